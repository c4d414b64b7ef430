//! Getting the script text: from `-c`, from a script FILE (bounded, with
//! bash's PATH search and errors), or from a non-terminal stdin (bounded,
//! under the time limit), so that it can be analysed and then run with
//! `-c` and stdin `/dev/null`.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout};

/// Largest script read from a file or stdin.
pub const MAX_SCRIPT_BYTES: usize = 1024 * 1024;
/// bash looks at this many bytes for a NUL to call a file binary.
const BINARY_SAMPLE_BYTES: usize = 80;

/// Why a script could not be read, worded and numbered as bash does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptError {
    NotFound(OsString),
    IsDirectory(OsString),
    PermissionDenied(OsString),
    Binary(OsString),
    Unreadable(OsString, String),
    TooLarge(String),
    StdinTimedOut(Duration),
    /// A NUL byte past bash's binary check, on this line (1-based): bash
    /// would run the text up to it and silently drop the rest, so what it
    /// ran is not what anyone could read. Refused whatever the mode.
    ContainsNul(OsString, usize),
}

/// Read a script file the way `bash FILE` finds it: as given, else (for a
/// bare name) through the absolute directories of PATH.
pub fn read_file(name: &OsStr, path_var: Option<&OsStr>) -> Result<Vec<u8>, ScriptError> {
    let given = Path::new(name);
    let path = if given.exists() || name.as_bytes().contains(&b'/') {
        given.to_path_buf()
    } else {
        search_path(name, path_var).unwrap_or_else(|| given.to_path_buf())
    };
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ScriptError::NotFound(name.to_os_string()));
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(ScriptError::PermissionDenied(name.to_os_string()));
        }
        Err(e) => return Err(ScriptError::Unreadable(name.to_os_string(), e.to_string())),
    };
    if meta.is_dir() {
        return Err(ScriptError::IsDirectory(name.to_os_string()));
    }
    let file = std::fs::File::open(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => ScriptError::PermissionDenied(name.to_os_string()),
        _ => ScriptError::Unreadable(name.to_os_string(), e.to_string()),
    })?;
    let mut text = Vec::new();
    file.take(MAX_SCRIPT_BYTES as u64 + 1)
        .read_to_end(&mut text)
        .map_err(|e| ScriptError::Unreadable(name.to_os_string(), e.to_string()))?;
    if text.len() > MAX_SCRIPT_BYTES {
        return Err(ScriptError::TooLarge(format!(
            "script file {}",
            path.display()
        )));
    }
    if looks_binary(&text) {
        return Err(ScriptError::Binary(name.to_os_string()));
    }
    if let Some(line) = nul_line(&text) {
        return Err(ScriptError::ContainsNul(name.to_os_string(), line));
    }
    Ok(text)
}

fn search_path(name: &OsStr, path_var: Option<&OsStr>) -> Option<PathBuf> {
    let path_var = path_var?;
    path_var
        .as_bytes()
        .split(|b| *b == b':')
        .filter(|dir| dir.first() == Some(&b'/'))
        .map(|dir| Path::new(OsStr::from_bytes(dir)).join(name))
        .find(|p| p.is_file())
}

/// bash's check: a NUL in the first line of the first 80 bytes.
fn looks_binary(text: &[u8]) -> bool {
    let sample = &text[..text.len().min(BINARY_SAMPLE_BYTES)];
    let first_line = sample.split(|b| *b == b'\n').next().unwrap_or(sample);
    first_line.contains(&0)
}

/// The line (1-based) of the first NUL byte, if any.
fn nul_line(text: &[u8]) -> Option<usize> {
    let at = text.iter().position(|b| *b == 0)?;
    Some(text[..at].iter().filter(|b| **b == b'\n').count() + 1)
}

/// Read the script from stdin, at most 1 MiB, giving up at `deadline`
/// (a writer that never closes the pipe must not hang us past the time
/// limit).
pub fn read_stdin(timeout: Duration) -> Result<Vec<u8>, ScriptError> {
    let deadline = Instant::now() + timeout;
    let stdin = std::io::stdin();
    let mut text = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ScriptError::StdinTimedOut(timeout));
        }
        let mut fds = [PollFd::new(
            std::os::fd::AsFd::as_fd(&stdin),
            PollFlags::POLLIN,
        )];
        let wait = PollTimeout::try_from(left).unwrap_or(PollTimeout::MAX);
        match nix::poll::poll(&mut fds, wait) {
            Ok(0) => continue,
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => {
                return Err(ScriptError::Unreadable(
                    "standard input".into(),
                    e.to_string(),
                ));
            }
        }
        // Read straight into the script (a 64 KiB buffer on the stack
        // was probed page by page in every command's start, this path
        // taken or not).
        match crate::exec::read_spare(std::os::fd::AsFd::as_fd(&stdin), &mut text, 64 * 1024) {
            Ok(0) => break,
            Ok(_) => {
                if text.len() > MAX_SCRIPT_BYTES {
                    return Err(ScriptError::TooLarge("script on standard input".into()));
                }
            }
            Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => continue,
            Err(e) => {
                return Err(ScriptError::Unreadable(
                    "standard input".into(),
                    e.to_string(),
                ));
            }
        }
    }
    if let Some(line) = nul_line(&text) {
        return Err(ScriptError::ContainsNul("standard input".into(), line));
    }
    Ok(text)
}

/// The agent's leading `AUTOMODE_TIMEOUT=N` / `AUTOMODE_OUTPUT_LIMIT=N`
/// assignments on its script (`AUTOMODE_TIMEOUT=1800 cargo test`, or
/// `AUTOMODE_TIMEOUT=1800; cargo test`). Values are taken verbatim (quotes
/// and expansions make them invalid, so the command is refused rather than
/// run under a limit nobody asked for).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeadingLimits {
    pub timeout: Option<String>,
    pub output_limit: Option<String>,
}

/// Scan the start of the script for leading limit assignments.
pub fn leading_limits(script: &[u8]) -> LeadingLimits {
    let mut out = LeadingLimits::default();
    let mut rest = script;
    loop {
        rest = trim_blanks(rest);
        let (slot, after) = if let Some(after) = rest.strip_prefix(b"AUTOMODE_TIMEOUT=") {
            (&mut out.timeout, after)
        } else if let Some(after) = rest.strip_prefix(b"AUTOMODE_OUTPUT_LIMIT=") {
            (&mut out.output_limit, after)
        } else {
            break;
        };
        let end = after
            .iter()
            .position(|b| {
                matches!(
                    b,
                    b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')'
                )
            })
            .unwrap_or(after.len());
        *slot = Some(String::from_utf8_lossy(&after[..end]).into_owned());
        rest = &after[end..];
        // `A=1; cmd` still counts as leading; stop at anything else.
        if let Some(after_semicolon) = trim_blanks(rest).strip_prefix(b";") {
            rest = after_semicolon;
        }
    }
    out
}

fn trim_blanks(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t'))
        .unwrap_or(s.len());
    &s[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_leading_limit_assignments() {
        let l = leading_limits(b"AUTOMODE_TIMEOUT=1800 cargo test");
        assert_eq!(l.timeout.as_deref(), Some("1800"));
        let l = leading_limits(b"  AUTOMODE_TIMEOUT=5 AUTOMODE_OUTPUT_LIMIT=100 yes");
        assert_eq!(l.timeout.as_deref(), Some("5"));
        assert_eq!(l.output_limit.as_deref(), Some("100"));
        let l = leading_limits(b"AUTOMODE_TIMEOUT=60; make");
        assert_eq!(l.timeout.as_deref(), Some("60"));
        let l = leading_limits(b"AUTOMODE_TIMEOUT=\"60\" make");
        assert_eq!(l.timeout.as_deref(), Some("\"60\""));
    }

    #[test]
    fn ignores_assignments_that_are_not_leading() {
        assert_eq!(
            leading_limits(b"echo AUTOMODE_TIMEOUT=5"),
            LeadingLimits::default()
        );
        assert_eq!(leading_limits(b"X=1 AUTOMODE_TIMEOUT=5 cmd").timeout, None);
        assert_eq!(
            leading_limits(b"ls && AUTOMODE_TIMEOUT=5 cmd").timeout,
            None
        );
    }

    #[test]
    fn detects_binary_files_like_bash() {
        assert!(looks_binary(b"\x7fELF\x00\x01"));
        assert!(!looks_binary(b"echo hi\n\x00later"));
        assert_eq!(nul_line(b"echo hi\n\necho \x00later"), Some(3));
        assert_eq!(nul_line(b"echo hi\n"), None);
    }
}
