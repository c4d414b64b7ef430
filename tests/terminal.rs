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
