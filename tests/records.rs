//! Records that survive: the audit's decision record written by the time
//! the command runs (a SIGKILLed shim leaves it, a command that kills its
//! shim at once too), lock waits that are
//! bounded and never swallow a cancellation (a real `flock` holder),
//! damaged state kept and reported, `reset` and `status`, NUL bytes,
//! configuration errors in the user's terms.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Env, run, wait_with_guard};

const BLOCKED: i32 = 121;

fn state(env: &Env) -> PathBuf {
    env.root().join("state/automode")
}

fn log(env: &Env) -> Vec<Value> {
    let r = run(env.automode().args(["log", "--json", "-n", "1000"]));
    r.stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "waited for {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `flock FILE sleep N` in the background, returned once it holds the lock.
fn hold_lock(lock: &Path, secs: u32) -> Child {
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    let ready = lock.with_extension("held");
    let child = Command::new("flock")
        .arg(lock)
        .args([
            "sh",
            "-c",
            &format!("touch '{}'; sleep {secs}", ready.display()),
        ])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the flock holder", || ready.exists());
    child
}

fn session_lock(env: &Env, id: &str) -> PathBuf {
    state(env)
        .join("sessions")
        .join(format!("{}.lock", automode::state::file_stem(id)))
}

/// Does process `pid` have children right now?
/// Does the shim have a child other than its PID namespace's first
/// process (which lingers up to a tick after the command)?
fn has_children(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).is_ok_and(|c| {
        c.split_whitespace().any(|child| {
            std::fs::read_to_string(format!("/proc/{child}/comm"))
                .is_ok_and(|comm| comm.trim() != "automode-pid1")
        })
    })
}

/// Where the command's processes can see the shim (no PID namespace of
/// their own: here the sandbox is off), its decision is on record before
/// it starts: a command that kills the shim at once still leaves it.
/// Written after the `execve` instead, it went missing in 1 to 4 of these
/// 200 runs (three tries), and in a third of them where the shim was
/// slower to wake.
#[test]
fn a_command_that_kills_its_shim_at_once_is_still_on_record() {
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}, "sandbox": {"mode": "off"}}"#,
    );
    const RUNS: usize = 200;
    for _ in 0..RUNS {
        let r = run(&mut env.script("kill -9 $PPID"));
        assert_eq!(r.code(), None, "the shim was not killed: {}", r.stderr());
    }
    let recorded = log(&env)
        .iter()
        .filter(|e| e["script"] == "kill -9 $PPID")
        .count();
    assert_eq!(recorded, RUNS);
}

#[test]
fn a_shim_killed_during_its_command_leaves_the_decision_record() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "killed");
    let mut shim = env
        .script("touch ran && sleep 30.71")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _reaper = crate::support::Reaper(vec!["sleep 30.71"]);
    let ran = env.work.join("ran");
    wait_for("the command to start", || ran.exists());
    shim.kill().unwrap();
    shim.wait().unwrap();
    let entries = log(&env);
    assert_eq!(entries.len(), 1, "{entries:?}");
    let e = &entries[0];
    assert_eq!(e["ran"], true, "{e}");
    assert!(e["outcome"].is_null(), "{e}");
    assert_eq!(e["pending"], "killed", "{e}");
    assert_eq!(e["script"], "touch ran && sleep 30.71");
    let r = run(env.automode().arg("log"));
    assert!(
        r.stdout().contains("outcome unknown: automode was killed"),
        "{}",
        r.stdout()
    );
    // A live one reads as running.
    let mut shim = env
        .script("touch ran2 && sleep 30.72")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _reaper2 = crate::support::Reaper(vec!["sleep 30.72"]);
    wait_for("the second command", || env.work.join("ran2").exists());
    let entries = log(&env);
    assert_eq!(entries[1]["pending"], "running", "{}", entries[1]);
    shim.kill().unwrap();
    shim.wait().unwrap();
}

#[test]
fn a_held_session_lock_costs_at_most_a_bounded_wait() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "held");
    let mut holder = hold_lock(&session_lock(&env, "held"), 20);
    // `timeout 15 bash -c true` through the shim: the count cannot be
    // written, the command still runs and the shim returns long before
    // the holder lets go.
    let start = Instant::now();
    let r = run(env
        .command("timeout")
        .args(["15"])
        .arg(env.shims.join("bash"))
        .args(["-c", "echo ran"]));
    let took = start.elapsed();
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout(), "ran\n");
    assert!(took < Duration::from_secs(10), "waited {took:?} for a lock");
    let err = r.stderr();
    let warnings: Vec<&str> = err.lines().collect();
    assert_eq!(warnings.len(), 1, "warns once: {}", r.stderr());
    assert!(warnings[0].contains("is not counted"), "{}", r.stderr());
    // A blocked command is refused the same way.
    let r = run(&mut env.script("rm -rf ~"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(r.stderr().contains("is not counted"), "{}", r.stderr());
    // The audit log still has both.
    assert_eq!(log(&env).len(), 2);
    holder.kill().unwrap();
    holder.wait().unwrap();
}

#[test]
fn a_held_audit_lock_never_stalls_a_command() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "audit-held");
    let mut holder = hold_lock(&state(&env).join("audit.lock"), 20);
    let start = Instant::now();
    let r = run(&mut env.script("echo ran"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stderr(), "", "nothing to warn about");
    assert!(start.elapsed() < Duration::from_secs(10));
    let entries = log(&env);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["outcome"]["exit"], 0);
    holder.kill().unwrap();
    holder.wait().unwrap();
}

#[test]
fn a_cancellation_during_a_lock_wait_is_honoured_at_once() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "cancel-wait");
    let mut holder = hold_lock(&session_lock(&env, "cancel-wait"), 20);
    let shim = env
        .script("sleep 0.2")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = shim.id();
    // Its child has ended: the shim is now waiting for the session lock
    // to count the command (bounded at 500 ms).
    wait_for("the child to start", || has_children(pid));
    wait_for("the child to end", || !has_children(pid));
    let sent = Instant::now();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let out = wait_with_guard(shim, Duration::from_secs(20));
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(15), "{:?}", out.status);
    assert!(sent.elapsed() < Duration::from_secs(5));
    holder.kill().unwrap();
    holder.wait().unwrap();
}

#[test]
fn fifty_parallel_invocations_each_have_their_audit_entry() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "parallel-audit");
    let children: Vec<_> = (0..50)
        .map(|i| {
            let mut c = env.script(if i % 5 == 0 {
                "vercel deploy"
            } else {
                "echo parallel"
            });
            c.stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        c.wait().unwrap();
    }
    let entries = log(&env);
    assert_eq!(entries.len(), 50);
    let ran: Vec<&Value> = entries.iter().filter(|e| e["ran"] == true).collect();
    assert_eq!(ran.len(), 40);
    assert!(
        ran.iter()
            .all(|e| e["outcome"]["exit"] == 0 && e["outcome"]["stdout_bytes"] == 9),
        "every command that ran has its outcome"
    );
    let ids: std::collections::HashSet<&str> =
        entries.iter().filter_map(|e| e["id"].as_str()).collect();
    assert_eq!(ids.len(), 50, "one id per invocation");
    // Two records per command that ran, one per blocked one.
    let lines = std::fs::read_to_string(state(&env).join("audit.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 90);
}

#[test]
fn damaged_state_is_kept_and_reported() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "damaged");
    assert_eq!(run(&mut env.script("true")).code(), Some(0));
    let sessions = state(&env).join("sessions");
    let file = sessions.join(format!("{}.json", automode::state::file_stem("damaged")));
    assert!(file.exists());
    std::fs::write(&file, "{ not json").unwrap();
    let r = run(&mut env.script("echo after"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout(), "after\n");
    let warning = r.stderr();
    assert!(warning.contains(&file.display().to_string()), "{warning}");
    assert!(warning.contains(".corrupt-"), "{warning}");
    let kept: Vec<_> = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".json.corrupt-"))
        .collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(
        std::fs::read_to_string(kept[0].path()).unwrap(),
        "{ not json"
    );
    // Only once.
    let r = run(&mut env.script("true"));
    assert_eq!(r.stderr(), "");
    // A damaged global switch that said "off" reads as on.
    assert_eq!(run(env.automode().arg("off")).code(), Some(0));
    let r = run(&mut env.script("vercel deploy"));
    assert_eq!(r.code(), Some(127), "off: it runs (and is not found)");
    std::fs::write(state(&env).join("global.json"), "garbage").unwrap();
    let r = run(&mut env.script("vercel deploy"));
    assert_eq!(r.code(), Some(BLOCKED), "on again: {}", r.stderr());
    assert!(r.stderr().contains("global.json"), "{}", r.stderr());
    assert!(r.stderr().contains("auto mode is on"), "{}", r.stderr());
}

#[test]
fn reset_removes_sessions_and_status_names_them() {
    let env = Env::new();
    let r = run(env.script("echo a").env("CLAUDECODE", "1").env(
        "CLAUDE_CODE_SESSION_ID",
        "7278bf70-3f7d-4afc-886b-b956a7f27d30",
    ));
    assert_eq!(r.code(), Some(0));
    assert_eq!(run(&mut env.script("echo b")).code(), Some(0));
    let r = run(env.automode().arg("status"));
    let out = r.stdout();
    let work = env.work.display().to_string();
    assert!(
        out.contains(&format!("claude-code 7278bf70 in {work}")),
        "{out}"
    );
    assert!(out.contains("session pid "), "{out}");
    // The session is shown by its short id (its /tmp's path has the
    // whole one).
    assert!(
        !out.lines()
            .filter(|l| !l.contains("/tmp of its commands"))
            .any(|l| l.contains("ppid-")),
        "{out}"
    );
    // Sessions idle for more than a day need --all.
    let sessions = state(&env).join("sessions");
    for e in std::fs::read_dir(&sessions).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json") {
            let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            v["last_at"] = Value::from(1_000_000_000u64);
            std::fs::write(&p, v.to_string()).unwrap();
        }
    }
    let r = run(env.automode().arg("status"));
    assert!(
        r.stdout()
            .contains("no session active in the last 24 hours (2 older: --all)"),
        "{}",
        r.stdout()
    );
    let r = run(env.automode().args(["status", "--all"]));
    assert!(
        r.stdout().contains("claude-code 7278bf70"),
        "{}",
        r.stdout()
    );
    let r = run(env.automode().arg("reset"));
    assert_eq!(r.code(), Some(0));
    assert!(r.stdout().contains("reset 2 session(s)"), "{}", r.stdout());
    let left: Vec<_> = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let r = run(env.automode().args(["status", "--all", "--json"]));
    let v: Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v["sessions"], Value::Array(vec![]));
}

#[test]
fn a_nul_byte_is_refused_naming_the_file_and_line_in_every_mode() {
    for env in [Env::new(), Env::supervision_only()] {
        std::fs::write(env.work.join("s.sh"), "echo one\necho two\0three\n").unwrap();
        let r = run(env.bash().arg("s.sh"));
        assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
        assert!(
            r.stderr().contains("s.sh contains a NUL byte on line 2"),
            "{}",
            r.stderr()
        );
        assert_eq!(r.stdout(), "", "nothing ran");
        let mut child = env
            .bash()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"echo one\0\n")
            .unwrap();
        let out = wait_with_guard(child, Duration::from_secs(20));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(BLOCKED), "{err}");
        assert!(
            err.contains("standard input contains a NUL byte on line 1"),
            "{err}"
        );
    }
}

#[test]
fn configuration_type_and_range_errors_block_with_file_and_line() {
    let env = Env::new();
    let file = env.root().join("config/automode/config.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{\n  \"timeoutSeconds\": \"300\"\n}\n").unwrap();
    let r = run(&mut env.script("echo hi"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains(&format!("{}:2:", file.display()))
            && r.stderr()
                .contains("expected a number of seconds, got the string \"300\""),
        "{}",
        r.stderr()
    );
    std::fs::write(&file, "{\n  \"timeoutSeconds\": 9000\n}\n").unwrap();
    let r = run(&mut env.script("echo hi"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains(&format!("{}:2:", file.display())),
        "{}",
        r.stderr()
    );
    assert!(
        r.stderr().contains("at most 7200 seconds"),
        "{}",
        r.stderr()
    );
}
