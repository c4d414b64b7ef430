//! Time and output limits from every source: accepted values, refused
//! values (the command must not start), and which source wins.

use crate::support::{Env, run};

const BAD_TIMEOUTS: &[&str] = &[
    "7201", "0", "-1", "abc", "", "nan", "inf", "+5", " 5", "1e3", "0.0001",
];

#[test]
fn refuses_bad_timeouts_from_the_environment_before_starting() {
    for bad in BAD_TIMEOUTS {
        let env = Env::new().with_env("AUTOMODE_TIMEOUT", bad);
        let marker = env.root().join("ran");
        let r = run(&mut env.script(&format!("touch {}", marker.display())));
        assert_eq!(r.code(), Some(2), "{bad:?}: {}", r.stderr());
        assert!(
            r.stderr().contains("invalid timeout"),
            "{bad:?}: {}",
            r.stderr()
        );
        assert!(!marker.exists(), "{bad:?}: the command ran");
    }
}

#[test]
fn refuses_bad_timeouts_requested_by_the_script() {
    for bad in ["0", "7201", "abc", "-5", "\"60\"", "$X"] {
        let env = Env::new();
        let marker = env.root().join("ran");
        let r = run(&mut env.script(&format!(
            "AUTOMODE_TIMEOUT={bad} touch {}",
            marker.display()
        )));
        assert_eq!(r.code(), Some(2), "{bad:?}: {}", r.stderr());
        assert!(!marker.exists(), "{bad:?}");
    }
}

#[test]
fn refuses_bad_timeouts_on_the_exec_command_line() {
    for bad in BAD_TIMEOUTS {
        let env = Env::new();
        let marker = env.root().join("ran");
        let r = run(env
            .automode()
            .args(["exec", "--timeout", bad, "--", "touch"])
            .arg(&marker));
        assert_eq!(r.code(), Some(2), "{bad:?}: {}", r.stderr());
        assert!(!marker.exists());
    }
}

#[test]
fn accepts_the_maximum_and_fractions() {
    let env = Env::new().with_env("AUTOMODE_TIMEOUT", "7200");
    assert_eq!(run(&mut env.script("exit 0")).code(), Some(0));
    let env = Env::new().with_env("AUTOMODE_TIMEOUT", "1.5");
    let r = run(&mut env.script("sleep 41.04"));
    assert_eq!(r.code(), Some(124));
    assert!(r.secs() >= 1.5 && r.secs() < 3.5, "{}", r.secs());
    assert!(r.stderr().contains("after 1.5 s"), "{}", r.stderr());
    crate::support::kill_all("sleep 41.04");
}

#[test]
fn the_scripts_request_overrides_the_harness_environment() {
    let env = Env::new().with_env("AUTOMODE_TIMEOUT", "30");
    let r = run(&mut env.script("AUTOMODE_TIMEOUT=1 sleep 41.05"));
    assert_eq!(r.code(), Some(124));
    assert!(r.secs() < 3.0);
    crate::support::kill_all("sleep 41.05");
    let env = Env::new().with_env("AUTOMODE_TIMEOUT", "1");
    let r = run(&mut env.script("AUTOMODE_TIMEOUT=5; sleep 1.5; echo done"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout(), "done\n");
}

#[test]
fn output_limit_from_script_and_exec_flag() {
    let env = Env::new();
    let r = run(&mut env.script("AUTOMODE_OUTPUT_LIMIT=10 yes"));
    assert_eq!(r.code(), Some(120));
    assert_eq!(r.out.stdout.len(), 10);
    let r = run(env
        .automode()
        .args(["exec", "--output-limit", "7", "--", "yes"]));
    assert_eq!(r.code(), Some(120));
    assert_eq!(r.out.stdout.len(), 7);
    for bad in ["0", "-1", "1.5", "", "x"] {
        let env = Env::new().with_env("AUTOMODE_OUTPUT_LIMIT", bad);
        let r = run(&mut env.script("echo hi"));
        assert_eq!(r.code(), Some(2), "{bad:?}");
        assert!(r.stdout().is_empty());
    }
}
