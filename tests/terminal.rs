//! Terminal behaviour (process-supervision.md §4.8): the shim as the
//! foreground process of a pty, driven by tests/helpers/pty_run.py.

use std::process::Command;

use crate::support::{Env, helper};

/// Run `bash -c SCRIPT` through the shim on a fresh pty.
pub fn pty(env: &Env, opts: &[&str], script: &str) -> serde_json::Value {
    let out = Command::new("python3")
        .arg(helper("pty_run.py"))
        .args(opts)
        .arg("--")
        .arg(env.shims.join("bash"))
        .args(["-c", script])
        .env_clear()
        .env("PATH", &env.path)
        .env("HOME", &env.home)
        .envs(env.extra_env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .current_dir(&env.work)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn writes_to_a_tostop_terminal_without_being_stopped() {
    let env = Env::supervision_only();
    let r = pty(&env, &["--tostop"], "echo hi");
    assert_eq!(r["code"], 0, "{r}");
    assert!(r["output"].as_str().unwrap().contains("hi"), "{r}");
    assert!(r["elapsed"].as_f64().unwrap() < 2.0, "{r}");
}

#[test]
fn dev_tty_fails_at_once_instead_of_hanging() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "3");
    let r = pty(&env, &[], "read x </dev/tty; echo rc=$?");
    assert_eq!(r["code"], 0, "{r}");
    assert!(r["output"].as_str().unwrap().contains("rc=1"), "{r}");
    assert!(r["elapsed"].as_f64().unwrap() < 2.0, "{r}");
    let r = pty(&env, &[], "stty sane </dev/tty; echo rc=$?");
    assert!(r["output"].as_str().unwrap().contains("rc=1"), "{r}");
    assert!(r["elapsed"].as_f64().unwrap() < 2.0, "{r}");
}

#[test]
fn ctrl_c_on_the_terminal_cancels_the_command() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "5");
    let r = pty(&env, &["--ctrl-c-after", "0.7"], "sleep 41.07; echo never");
    assert_eq!(r["signal"], 2, "{r}");
    assert!(!r["output"].as_str().unwrap().contains("never"), "{r}");
    assert!(r["elapsed"].as_f64().unwrap() < 2.5, "{r}");
    crate::support::kill_all("sleep 41.07");
}

#[test]
fn never_takes_the_terminals_foreground() {
    let env = Env::supervision_only();
    let r = pty(&env, &[], "sleep 0.6");
    // The shim itself (the pty child) stays the foreground group.
    assert_eq!(r["fg_pgrp"], r["child_pid"], "{r}");
    assert_eq!(r["code"], 0);
}

#[test]
fn an_ask_can_be_answered_on_the_controlling_terminal() {
    let settings = r#"{"permissions": {"ask": ["bash(touch asked*)"]}, "autoMode": {"classifierModel": "none", "askOnTerminal": true, "askTimeoutSeconds": 2}}"#;
    for (answer, runs) in [(Some("y\n"), true), (Some("no\n"), false), (None, false)] {
        let env = Env::new().with_env("AUTOMODE_SETTINGS_JSON", settings);
        let mut opts = vec![];
        if let Some(a) = answer {
            opts = vec!["--send-after", "0.5", a];
        }
        let r = pty(&env, &opts, "touch asked.txt");
        let out = r["output"].as_str().unwrap_or("");
        assert!(out.contains("Allow it once? [y/N]"), "{r}");
        assert!(out.contains("touch asked.txt"), "{r}");
        assert_eq!(env.work.join("asked.txt").exists(), runs, "{answer:?}: {r}");
        assert_eq!(r["code"], if runs { 0 } else { 121 }, "{r}");
        assert!(r["elapsed"].as_f64().unwrap() < 5.0, "{r}");
    }
}

/// A tmux server of its own (socket and configuration in the test's temp
/// dir, the test's environment, the shim as its default shell).
struct Tmux {
    socket: std::path::PathBuf,
    conf: std::path::PathBuf,
    env: Vec<(String, String)>,
}

impl Tmux {
    /// `shim_shell`: the shim is tmux's default shell (else tmux runs
    /// commands with /bin/sh).
    fn new(env: &Env, name: &str, shim_shell: bool) -> Option<Tmux> {
        let ok = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            crate::support::skip("terminal", "tmux is missing (scripts/test.sh installs it)");
            return None;
        }
        let conf = env.root().join(format!("{name}.conf"));
        let text = if shim_shell {
            format!(
                "set -g default-shell {}\n",
                env.shims.join("bash").display()
            )
        } else {
            "set -g default-shell /bin/sh\n".to_string()
        };
        std::fs::write(&conf, text).unwrap();
        Some(Tmux {
            socket: env.root().join(format!("{name}.sock")),
            conf,
            env: vec![
                ("HOME".into(), env.home.display().to_string()),
                ("PATH".into(), env.path.clone()),
                (
                    "XDG_STATE_HOME".into(),
                    env.root().join("state").display().to_string(),
                ),
                (
                    "XDG_CONFIG_HOME".into(),
                    env.root().join("config").display().to_string(),
                ),
                ("TERM".into(), "xterm".into()),
            ],
        })
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .arg("-S")
            .arg(&self.socket)
            .arg("-f")
            .arg(&self.conf)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane's text once it contains `want` (or after 10 s).
    fn wait_for(&self, want: &str) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let text = self.run(&["capture-pane", "-p", "-J", "-t", "t"]);
            if text.contains(want) || std::time::Instant::now() > deadline {
                return text;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

#[test]
fn a_login_shell_for_a_person_is_the_real_bash_and_a_harness_shell_is_refused() {
    let env = Env::new();
    let Some(tmux) = Tmux::new(&env, "person", true) else {
        return;
    };
    let shim = env.shims.join("bash");
    // A tmux pane: the person's multiplexer starts its default shell, the
    // shim, as a login shell (`-bash`).
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "200", "-y", "50"]);
    let text = tmux.wait_for("running the real bash");
    assert!(
        text.contains("interactive shell for a person (its parent is tmux"),
        "{text}"
    );
    tmux.run(&[
        "send-keys",
        "-t",
        "t",
        "echo REAL-$((6*7))-$BASH_VERSION",
        "Enter",
    ]);
    let text = tmux.wait_for("REAL-42-5");
    assert!(text.contains("REAL-42-5"), "{text}");
    drop(tmux);
    // A harness-like parent (a program that forks the shell on the
    // terminal): refused, as before.
    let Some(tmux) = Tmux::new(&env, "harness", false) else {
        return;
    };
    let cmd = format!(
        "/bin/sh -c '{} -l; echo shim-exit=$?; sleep 30'",
        shim.display()
    );
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "200",
        "-y",
        "50",
        &cmd,
    ]);
    let text = tmux.wait_for("shim-exit=");
    assert!(
        text.contains("refusing to start an interactive shell"),
        "{text}"
    );
    assert!(text.contains("shim-exit=2"), "{text}");
}

#[test]
fn approve_on_a_terminal_shows_the_command_and_asks_first() {
    let settings = r#"{"permissions": {"ask": ["bash(touch asked*)"]}, "autoMode": {"classifierModel": "none"}}"#;
    let env = Env::new()
        .with_env("AUTOMODE_SETTINGS_JSON", settings)
        .with_env("AUTOMODE_SESSION", "tty-approve");
    let r = crate::support::run(&mut env.script("touch asked.txt"));
    let msg = r.stderr();
    let at = msg.find("automode approve ").unwrap() + "automode approve ".len();
    let code = msg[at..at + 7].to_string();
    let approve = |answer: &str| {
        let out = Command::new("python3")
            .arg(helper("pty_run.py"))
            .args(["--send-after", "0.5", answer, "--"])
            .arg(crate::support::automode_bin())
            .args(["approve", &code])
            .env_clear()
            .env("PATH", &env.path)
            .env("HOME", &env.home)
            .env("XDG_STATE_HOME", env.root().join("state"))
            .env("XDG_CONFIG_HOME", env.root().join("config"))
            .current_dir(&env.work)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["output"].as_str().unwrap_or("").to_string()
    };
    let out = approve("n\n");
    assert!(
        out.contains("touch asked.txt") && out.contains("Allow it once?"),
        "{out}"
    );
    assert!(out.contains("not approved"), "{out}");
    let out = approve("y\n");
    assert!(out.contains(&format!("approved {code}")), "{out}");
    let r = crate::support::run(&mut env.script("touch asked.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let env = Env::new();
    let doctor = |no_color: bool| {
        let mut c = Command::new("python3");
        c.arg(helper("pty_run.py"))
            .arg("--")
            .arg(crate::support::automode_bin())
            .arg("doctor")
            .env_clear()
            .env("PATH", &env.path)
            .env("HOME", &env.home)
            .env("TERM", "xterm")
            .env("XDG_STATE_HOME", env.root().join("state"))
            .env("XDG_CONFIG_HOME", env.root().join("config"))
            .current_dir(&env.work);
        if no_color {
            c.env("NO_COLOR", "1");
        }
        let v: serde_json::Value = serde_json::from_slice(&c.output().unwrap().stdout).unwrap();
        v["output"].as_str().unwrap_or("").to_string()
    };
    assert!(doctor(false).contains("\u{1b}[32mok"), "{}", doctor(false));
    assert!(!doctor(true).contains('\u{1b}'), "{}", doctor(true));
    // Not a terminal: plain.
    let r = crate::support::run(env.automode().arg("doctor"));
    assert!(
        !r.stdout().contains('\u{1b}') && r.stdout().contains("ok    shims"),
        "{}",
        r.stdout()
    );
}
