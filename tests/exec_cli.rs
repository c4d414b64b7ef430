//! `automode exec`: one argv, no shell, the same supervision.

use crate::support::{Env, run};

#[test]
fn runs_one_argv_directly_with_path_lookup() {
    let env = Env::new();
    let r = run(env
        .automode()
        .args(["exec", "--", "printf", "%s|", "a b", "$HOME", ";"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout(), "a b|$HOME|;|");
    let r = run(env.automode().args(["exec", "false"]));
    assert_eq!(r.code(), Some(1));
    let r = run(env
        .automode()
        .args(["exec", "--", "readlink", "/proc/self/fd/0"]));
    assert_eq!(r.stdout(), "/dev/null\n");
}

#[test]
fn refuses_shells_and_wrappers() {
    let env = Env::new();
    for program in [
        "bash", "sh", "/bin/sh", "env", "sudo", "xargs", "nohup", "timeout", "setsid", "nice",
    ] {
        let r = run(env
            .automode()
            .args(["exec", "--", program, "-c", "echo ran"]));
        assert_eq!(r.code(), Some(2), "{program}");
        assert!(
            r.stderr().contains("pass the executable argv directly"),
            "{}",
            r.stderr()
        );
        assert!(!r.stdout().contains("ran"));
    }
}

#[test]
fn missing_and_unexecutable_programs() {
    let env = Env::new();
    let r = run(env.automode().args(["exec", "--", "no-such-program-xyz"]));
    assert_eq!(r.code(), Some(127));
    std::fs::write(env.work.join("plain.txt"), "x").unwrap();
    let r = run(env.automode().args(["exec", "--", "./plain.txt"]));
    assert_eq!(r.code(), Some(126), "{}", r.stderr());
}

#[test]
fn applies_the_timeout_flag() {
    let env = Env::new();
    let r = run(env
        .automode()
        .args(["exec", "--timeout", "1", "--", "sleep", "41.06"]));
    assert_eq!(r.code(), Some(124));
    assert!(r.secs() < 3.0);
    crate::support::kill_all("sleep 41.06");
}

#[test]
fn usage_errors_exit_2() {
    let env = Env::new();
    assert_eq!(run(env.automode().args(["exec"])).code(), Some(2));
    assert_eq!(run(env.automode().args(["frobnicate"])).code(), Some(2));
    let r = run(env.automode().arg("--help"));
    assert_eq!(r.code(), Some(0));
    assert!(r.stdout().contains("  exec [--] PROGRAM"), "{}", r.stdout());
}
