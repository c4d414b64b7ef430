//! The optional ways to answer a pending ask at once, both off by
//! default: `autoMode.askCommand` (a program gets the ask as JSON on
//! stdin and prints `allow` or `deny`) and `autoMode.askOnTerminal` (the
//! shim's controlling terminal). Anything but a clear `allow` in time is
//! a refusal.

use std::io::{Read as _, Write as _};
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Ask;

/// What a channel answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Allow,
    /// Refused, and why (an answer of `deny`, garbage, a crash, a timeout).
    Deny(String),
}

/// The ask as the ask command gets it on stdin.
pub fn ask_json(ask: &Ask) -> serde_json::Value {
    serde_json::json!({
        "code": ask.code,
        "session": ask.session,
        "cwd": ask.cwd,
        "script": ask.script,
        "why": ask.why,
        "rule": ask.rule,
        "expires_at": ask.expires_at,
        "approve": format!("automode approve {}", ask.code),
    })
}

/// Run `argv` with the ask on stdin; its first line of output decides.
pub fn ask_command(argv: &[String], ask: &Ask, timeout: Duration) -> Answer {
    let Some((program, args)) = argv.split_first() else {
        return Answer::Deny("autoMode.askCommand is empty".into());
    };
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Answer::Deny(format!("the ask command {program} could not start: {e}")),
    };
    // Written and read on threads of their own: a program that does not
    // read its input, or whose child keeps its output open, cannot hold
    // the shim past the deadline.
    if let Some(mut stdin) = child.stdin.take() {
        let input = format!("{}\n", ask_json(ask));
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
    }
    let mut stdout = child.stdout.take();
    let (sent, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.take(4096).read_to_end(&mut out);
        }
        let _ = sent.send(out);
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => break None,
        }
    };
    let Some(status) = status else {
        if let Ok(pid) = i32::try_from(child.id()) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = child.wait();
        return Answer::Deny(format!(
            "the ask command {program} did not answer within {} s",
            timeout.as_secs()
        ));
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let out = answer
        .recv_timeout(left.max(Duration::from_millis(100)))
        .unwrap_or_default();
    if !status.success() {
        return Answer::Deny(format!("the ask command {program} failed ({status})"));
    }
    decide(&String::from_utf8_lossy(&out), program)
}

/// The first line of an answer: `allow` or `deny`, anything else refuses.
fn decide(text: &str, who: &str) -> Answer {
    match text.lines().next().map(str::trim) {
        Some("allow") => Answer::Allow,
        Some("deny") => Answer::Deny(format!("{who} refused it")),
        other => Answer::Deny(format!(
            "{who} answered {:?}, not allow or deny",
            other.unwrap_or("")
        )),
    }
}

/// Ask on the controlling terminal (`/dev/tty`); none: `None`.
pub fn ask_terminal(ask: &Ask, timeout: Duration) -> Option<Answer> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd as _;
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let prompt = format!(
        "\nautomode: the agent asks to run this command ({}):\n{}\n  in {}\nAllow it once? [y/N] ",
        super::shown(&ask.why),
        super::shown(&ask.script),
        ask.cwd
    );
    // What was typed before the question (for the harness, ahead) is
    // not an answer to it.
    let _ = nix::sys::termios::tcflush(&tty, nix::sys::termios::FlushArg::TCIFLUSH);
    tty.write_all(prompt.as_bytes()).ok()?;
    let deadline = Instant::now() + timeout;
    let mut line = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ms = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
        if left.is_zero() {
            let _ = tty.write_all(b"\n(no answer in time: refused)\n");
            return Some(Answer::Deny("no answer on the terminal in time".into()));
        }
        let mut fds = [PollFd::new(tty.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::from(ms)) {
            Ok(0) => continue,
            Ok(_) => {}
            Err(_) => return Some(Answer::Deny("the terminal could not be read".into())),
        }
        let mut byte = [0u8; 1];
        match tty.read(&mut byte) {
            Ok(0) | Err(_) => return Some(Answer::Deny("the terminal closed".into())),
            Ok(_) if byte[0] == b'\n' || byte[0] == b'\r' => break,
            Ok(_) => line.push(byte[0]),
        }
    }
    let text = String::from_utf8_lossy(&line).trim().to_ascii_lowercase();
    Some(if text == "y" || text == "yes" {
        Answer::Allow
    } else {
        Answer::Deny("refused on the terminal".into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_clear_allow_allows() {
        assert_eq!(decide("allow\n", "x"), Answer::Allow);
        assert_eq!(decide(" allow \nmore", "x"), Answer::Allow);
        assert!(matches!(decide("deny", "x"), Answer::Deny(_)));
        assert!(matches!(decide("Allow", "x"), Answer::Deny(_)));
        assert!(matches!(decide("", "x"), Answer::Deny(_)));
        assert!(matches!(decide("yes", "x"), Answer::Deny(_)));
    }
}
