//! Process supervision, line by line from
//! reference/process-supervision.md §4: exit statuses, stdin/session/signal
//! hygiene, timeouts, output limits, settling, cancellation, consumers.

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::support::{Env, Reaper, alive, kill_all, run, survives, wait_with_guard};

// ---------------------------------------------------------------- §4.2

#[test]
fn passes_exit_statuses_through() {
    let env = Env::supervision_only();
    for (script, code) in [
        ("exit 0", 0),
        ("exit 1", 1),
        ("exit 3", 3),
        ("exit 255", 255),
        ("exit 256", 0),
    ] {
        let r = run(&mut env.script(script));
        assert_eq!(r.code(), Some(code), "{script}: {}", r.stderr());
    }
}

#[test]
fn dies_by_the_signal_that_killed_the_shell() {
    let env = Env::supervision_only();
    for (script, sig) in [
        ("kill -TERM $$", 15),
        ("kill -SEGV $$", 11),
        ("kill -KILL $$", 9),
    ] {
        let r = run(&mut env.script(script));
        assert_eq!(r.signal(), Some(sig), "{script}");
        assert!(
            !r.stderr().contains("timed out"),
            "{script}: {}",
            r.stderr()
        );
    }
    // No core file from the shim itself.
    let cores: Vec<_> = std::fs::read_dir(&env.work)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("core"))
        .collect();
    assert!(cores.is_empty());
}

#[test]
fn reports_a_killed_background_job_like_bash() {
    let env = Env::supervision_only();
    let r = run(&mut env.script("sleep 41.01 & kill -KILL $!; wait $!"));
    assert_eq!(r.code(), Some(137));
}

#[test]
fn real_shell_missing_or_not_executable_gives_127_or_126() {
    for (record, code) in [("/nonexistent/bash", 127), ("{NOEXEC}", 126)] {
        let env = Env::supervision_only();
        // An installed layout: bin/automode + share/automode/real-shell.
        let bin = env.root().join("prefix/bin");
        let share = env.root().join("prefix/share/automode");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&share).unwrap();
        std::fs::copy(crate::support::automode_bin(), bin.join("automode")).unwrap();
        let noexec = env.root().join("noexec-bash");
        std::fs::write(&noexec, "#!/bin/sh\n").unwrap();
        let target = record.replace("{NOEXEC}", noexec.to_str().unwrap());
        std::fs::write(share.join("real-shell"), format!("{target}\n")).unwrap();
        let shim = env.root().join("prefix-shims");
        std::fs::create_dir_all(&shim).unwrap();
        std::os::unix::fs::symlink(bin.join("automode"), shim.join("bash")).unwrap();
        let r = run(env.command(shim.join("bash")).args(["-c", "echo ran"]));
        assert_eq!(r.code(), Some(code), "{record}: {}", r.stderr());
        assert!(r.stderr().contains("real shell"), "{}", r.stderr());
        assert!(!r.stdout().contains("ran"));
    }
}

// ---------------------------------------------------------------- §4.3

#[test]
fn stdin_is_dev_null_and_reads_get_eof_at_once() {
    let env = Env::supervision_only();
    let r = run(&mut env.script(r#"cat; echo "cat-rc=$?""#));
    assert_eq!(r.stdout(), "cat-rc=0\n");
    assert!(r.secs() < 5.0);
    let r = run(&mut env.script(r#"read x; echo "rc=$?""#));
    assert_eq!(r.stdout(), "rc=1\n");
    let r = run(&mut env.script("readlink /proc/self/fd/0"));
    assert_eq!(r.stdout(), "/dev/null\n");
    let r = run(&mut env.script("[ -t 0 ] && echo tty || echo notty"));
    assert_eq!(r.stdout(), "notty\n");
}

#[test]
fn stdin_is_closed_even_when_the_caller_passes_a_pipe() {
    let env = Env::supervision_only();
    let mut c = env.script("cat; echo done");
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    // Keep our end open: the command must not wait for it.
    let _keep = child.stdin.take();
    let start = Instant::now();
    let out = wait_with_guard(child, Duration::from_secs(20));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "done\n");
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn runs_in_its_own_session_and_group() {
    let env = Env::supervision_only();
    let r = run(&mut env.script("ps -o pid=,pgid=,sid= -p $$"));
    let f: Vec<i32> = r
        .stdout()
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(f.len(), 3, "{} {}", r.stdout(), r.stderr());
    assert_eq!(f[0], f[1]);
    assert_eq!(f[0], f[2]);
    assert_ne!(f[1], nix::unistd::getpgrp().as_raw());
}

#[test]
fn child_has_no_blocked_signals_and_only_the_callers_ignored_ones() {
    let env = Env::supervision_only();
    let probe = r#"grep -E "Sig(Blk|Ign)" /proc/self/status"#;
    let ours = run(&mut env.script(probe));
    let theirs = run(&mut env.real(probe));
    assert!(
        ours.stdout().contains("SigBlk:\t0000000000000000"),
        "{}",
        ours.stdout()
    );
    // What the real bash sees from the same caller (nothing leaked: no
    // SIGPIPE ignored by Rust's runtime, no blocked mask).
    assert_eq!(ours.stdout(), theirs.stdout());
}

#[test]
fn sigpipe_is_default_in_the_child() {
    let env = Env::supervision_only();
    let r = run(&mut env.script(r#"yes | head -c 2 >/dev/null; echo "ps=${PIPESTATUS[*]}""#));
    assert_eq!(r.stdout(), "ps=141 0\n");
    assert!(!r.stderr().contains("Broken pipe"), "{}", r.stderr());
}

#[test]
fn times_out_even_when_the_caller_blocked_every_signal() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let _r = Reaper(vec!["sleep 41.02"]);
    let shim = env.shims.join("bash");
    let py = format!(
        "import os,signal; signal.pthread_sigmask(signal.SIG_BLOCK, range(1, signal.NSIG)); \
         os.execv({:?}, ['bash', '-c', 'sleep 41.02'])",
        shim.to_str().unwrap()
    );
    let r = run(env.command("python3").args(["-c", &py]));
    assert_eq!(r.code(), Some(124), "{}", r.stderr());
    assert!(r.secs() < 1.0 + 1.0 + 1.5, "{}", r.secs());
    assert!(!survives("sleep 41.02"));
}

#[test]
fn works_when_the_caller_ignores_sigchld() {
    let env = Env::supervision_only();
    let shim = env.shims.join("bash");
    let py = format!(
        "import os,signal; signal.signal(signal.SIGCHLD, signal.SIG_IGN); \
         os.execv({:?}, ['bash', '-c', 'exit 7'])",
        shim.to_str().unwrap()
    );
    let r = run(env.command("python3").args(["-c", &py]));
    assert_eq!(r.code(), Some(7), "{}", r.stderr());
}

// ---------------------------------------------------------------- §4.4

fn timed(env: &Env, script: &str) -> crate::support::Run {
    run(&mut env.script(script))
}

#[test]
fn timeout_kills_and_exits_124() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let _r = Reaper(vec!["sleep 31.1"]);
    let r = timed(&env, "sleep 31.1");
    assert_eq!(r.code(), Some(124));
    assert!(
        r.stderr().contains("automode: timed out after 1 s"),
        "{}",
        r.stderr()
    );
    assert!(r.secs() >= 1.0 && r.secs() < 2.6, "{}", r.secs());
    assert!(!survives("sleep 31.1"));
}

#[test]
fn timeout_escalates_to_kill_when_term_is_ignored() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let _r = Reaper(vec!["sleep 31.2"]);
    let r = timed(&env, "trap '' TERM; sleep 31.2");
    assert_eq!(r.code(), Some(124));
    assert!(r.secs() >= 2.0 && r.secs() < 3.6, "{}", r.secs());
    assert!(!survives("sleep 31.2"));
}

#[test]
fn timeout_is_124_even_if_the_handler_exits_zero() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let _r = Reaper(vec!["sleep 31.3"]);
    let r = timed(&env, "trap 'exit 0' TERM; sleep 31.3");
    assert_eq!(r.code(), Some(124), "{}", r.stderr());
    assert!(r.secs() < 2.6, "{}", r.secs());
    kill_all("sleep 31.3");
}

#[test]
fn kill_still_goes_out_after_the_leader_dies_at_term() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let _r = Reaper(vec!["sleep 31.4", "sleep 31.5"]);
    let r = timed(&env, r#"(trap "" TERM; sleep 31.4) & sleep 31.5"#);
    assert_eq!(r.code(), Some(124));
    assert!(r.secs() >= 1.9 && r.secs() < 3.6, "{}", r.secs());
    assert!(!survives("sleep 31.4"));
}

#[test]
fn timeout_does_not_hang_on_a_background_grandchild_holding_stdout() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let _r = Reaper(vec!["sleep 31.6", "sleep 31.7"]);
    let r = timed(&env, "(sleep 31.6 &) ; sleep 31.7");
    assert_eq!(r.code(), Some(124));
    assert!(r.secs() < 2.6, "{}", r.secs());
    assert!(!survives("sleep 31.6"));
}

#[test]
fn timeout_reaches_stopped_processes() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let r = timed(&env, "kill -STOP $$; echo never");
    assert_eq!(r.code(), Some(124));
    assert!(!r.stdout().contains("never"));
    assert!(r.secs() < 3.6, "{}", r.secs());
}

#[test]
fn timeout_catches_setsid_escapees_through_the_subreaper() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let _r = Reaper(vec!["sleep 31.8", "sleep 31.9"]);
    let r = timed(&env, "setsid sleep 31.8 & sleep 31.9");
    assert_eq!(r.code(), Some(124));
    assert!(r.secs() < 2.6, "{}", r.secs());
    assert!(!survives("sleep 31.8"));
}

#[test]
fn timeout_catches_a_nested_timeout_in_its_own_group() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let _r = Reaper(vec!["sleep 32.1"]);
    let r = timed(
        &env,
        r#"timeout 30 bash -c 'trap "" TERM; sleep 32.1; :'; echo x"#,
    );
    assert_eq!(r.code(), Some(124));
    assert!(r.secs() >= 1.9 && r.secs() < 3.8, "{}", r.secs());
    assert!(!survives("sleep 32.1"));
}

#[test]
fn timeout_catches_job_control_groups() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "1");
    let _r = Reaper(vec!["sleep 32.2"]);
    let r = timed(&env, "set -m; sleep 32.2 & wait");
    assert_eq!(r.code(), Some(124));
    assert!(r.secs() < 2.6, "{}", r.secs());
    assert!(!survives("sleep 32.2"));
}

#[test]
fn waiting_costs_no_cpu() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "5");
    let shim = env.shims.join("bash");
    // getrusage of the children of a python parent = the shim + sleep.
    let py = format!(
        "import resource,subprocess; subprocess.run([{:?}, '-c', 'sleep 2']); \
         r=resource.getrusage(resource.RUSAGE_CHILDREN); print(r.ru_utime+r.ru_stime)",
        shim.to_str().unwrap()
    );
    let r = run(env.command("python3").args(["-c", &py]));
    let cpu: f64 = r.stdout().trim().parse().unwrap();
    assert!(cpu < 0.3, "cpu {cpu} s");
}

// ---------------------------------------------------------------- §4.5

#[test]
fn output_limit_passes_exactly_limit_bytes() {
    let env = Env::supervision_only().with_env("AUTOMODE_OUTPUT_LIMIT", "1000");
    let r = run(&mut env.script("yes"));
    assert_eq!(r.out.stdout.len(), 1000);
    assert_eq!(r.code(), Some(120));
    assert!(
        r.stderr().contains("output limit of 1000 bytes exceeded"),
        "{}",
        r.stderr()
    );
    assert!(r.stderr().contains("incomplete"));
    assert!(r.secs() < 3.0);
}

#[test]
fn output_exactly_at_the_limit_is_not_an_overflow() {
    let env = Env::supervision_only().with_env("AUTOMODE_OUTPUT_LIMIT", "1000");
    let r = run(&mut env.script("head -c 1000 /dev/zero"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.out.stdout.len(), 1000);
    let r = run(&mut env.script("head -c 1001 /dev/zero"));
    assert_eq!(r.code(), Some(120));
    assert_eq!(r.out.stdout.len(), 1000);
}

#[test]
fn stderr_counts_against_the_same_budget() {
    let env = Env::supervision_only().with_env("AUTOMODE_OUTPUT_LIMIT", "1000");
    let r = run(&mut env.script("yes >&2"));
    assert_eq!(r.code(), Some(120));
    let ys = r
        .out
        .stderr
        .iter()
        .take_while(|b| **b == b'y' || **b == b'\n')
        .count();
    assert_eq!(ys, 1000, "{}", r.stderr());
    let r = run(&mut env.script("echo abc; yes >&2"));
    assert_eq!(r.code(), Some(120));
    let ys = r
        .out
        .stderr
        .iter()
        .take_while(|b| **b == b'y' || **b == b'\n')
        .count();
    assert_eq!(r.out.stdout.len() + ys, 1000);
}

#[test]
fn output_limit_kills_writers_that_ignore_term_and_pipe() {
    let env = Env::supervision_only().with_env("AUTOMODE_OUTPUT_LIMIT", "1000");
    let r = run(&mut env.script(r#"trap "" TERM PIPE; while :; do echo xxxxxxxxxxxxxxxx; done"#));
    assert_eq!(r.code(), Some(120));
    assert!(r.secs() < 1.0 + 1.5, "{}", r.secs());
}

#[test]
fn output_limit_settles_with_background_holders() {
    let env = Env::supervision_only().with_env("AUTOMODE_OUTPUT_LIMIT", "1000");
    let _r = Reaper(vec!["sleep 32.4"]);
    let r = run(&mut env.script("(sleep 32.4 &); yes"));
    assert_eq!(r.code(), Some(120));
    assert!(r.secs() < 3.6, "{}", r.secs());
    assert!(!survives("sleep 32.4"));
}

#[test]
fn output_limit_wins_when_it_trips_first() {
    let env = Env::supervision_only()
        .with_env("AUTOMODE_OUTPUT_LIMIT", "1000")
        .with_env("AUTOMODE_TIMEOUT", "5");
    let r = run(&mut env.script("yes"));
    assert_eq!(r.code(), Some(120));
}

// ---------------------------------------------------------------- §4.6

#[test]
fn settles_after_a_normal_exit_when_a_holder_keeps_stdout() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "10");
    let _r = Reaper(vec!["sleep 32.5"]);
    let r = run(&mut env.script("(sleep 32.5 &) ; echo done"));
    assert_eq!(r.code(), Some(0));
    assert_eq!(r.stdout(), "done\n");
    assert!(r.secs() >= 1.9 && r.secs() < 3.6, "{}", r.secs());
    assert!(
        r.stderr().contains("background processes"),
        "{}",
        r.stderr()
    );
    kill_all("sleep 32.5");
}

#[test]
fn background_jobs_survive_a_normal_exit() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "10");
    let _r = Reaper(vec!["sleep 32.6", "sleep 32.7"]);
    let r = run(&mut env.script("sleep 32.6 >/dev/null 2>&1 & echo started"));
    assert_eq!(r.code(), Some(0));
    assert!(r.secs() < 1.5, "{}", r.secs());
    assert!(alive("sleep 32.6"), "policy: no kill on a normal exit");
    let r = run(&mut env.script("setsid nohup sleep 32.7 >/dev/null 2>&1 & echo ok"));
    assert_eq!(r.code(), Some(0));
    assert!(r.secs() < 1.5);
    assert!(survives("sleep 32.7"));
    kill_all("sleep 32.6");
}

#[test]
fn a_reader_of_our_output_gets_eof_when_we_exit() {
    let env = Env::supervision_only();
    let _r = Reaper(vec!["sleep 32.8", "sleep 50.1"]);
    let shim = env.shims.join("bash");
    let pipeline = format!(
        "AUTOMODE_TIMEOUT=1 {} -c 'setsid sleep 32.8 & sleep 50.1' | cat",
        shim.display()
    );
    let r = run(&mut env.real(&pipeline));
    assert!(r.secs() < 1.0 + 1.0 + 1.5, "{}", r.secs());
    kill_all("sleep 32.8");
}

#[test]
fn no_settle_delay_without_holders() {
    let env = Env::supervision_only();
    let r = run(&mut env.script("echo hi"));
    assert_eq!(r.stdout(), "hi\n");
    assert!(r.secs() < 1.0, "{}", r.secs());
}

// ---------------------------------------------------------------- §4.7

/// Start the shim on `script`, wait, send `sig`, return (run, elapsed
/// since the signal).
fn cancel(
    env: &Env,
    script: &str,
    signals: &[Signal],
    gap: Duration,
) -> (crate::support::Run, f64) {
    let mut c = env.script(script);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    let pid = Pid::from_raw(child.id() as i32);
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    for (i, sig) in signals.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(gap);
        }
        kill(pid, *sig).unwrap();
    }
    let out = wait_with_guard(child, Duration::from_secs(30));
    let elapsed = sent.elapsed().as_secs_f64();
    (
        crate::support::Run {
            out,
            elapsed: Duration::from_secs_f64(elapsed),
        },
        elapsed,
    )
}

#[test]
fn cancellation_kills_the_group_and_dies_by_the_same_signal() {
    for (sig, marker_a, marker_b) in [
        (Signal::SIGTERM, "sleep 32.91", "sleep 33.11"),
        (Signal::SIGHUP, "sleep 32.92", "sleep 33.12"),
        (Signal::SIGINT, "sleep 32.93", "sleep 33.13"),
    ] {
        let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "20");
        let _r = Reaper(vec![marker_a, marker_b]);
        let (r, _) = cancel(
            &env,
            &format!("{marker_a} & {marker_b}"),
            &[sig],
            Duration::ZERO,
        );
        assert_eq!(r.signal(), Some(sig as i32), "{sig:?}");
        assert!(!survives(marker_a), "{sig:?}");
        assert!(!alive(marker_b));
    }
}

#[test]
fn cancellation_forwards_int_itself() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "20");
    let _r = Reaper(vec!["sleep 33.14"]);
    let (r, _) = cancel(
        &env,
        r#"trap "echo got-INT; exit 5" INT; sleep 33.14 & wait"#,
        &[Signal::SIGINT],
        Duration::ZERO,
    );
    assert!(r.stdout().contains("got-INT"), "{}", r.stdout());
    assert_eq!(r.signal(), Some(2));
    assert!(!survives("sleep 33.14"));
}

#[test]
fn python_sees_keyboard_interrupt() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "20");
    let (r, _) = cancel(
        &env,
        r#"python3 -c "import time; time.sleep(30)""#,
        &[Signal::SIGINT],
        Duration::ZERO,
    );
    assert!(r.stderr().contains("KeyboardInterrupt"), "{}", r.stderr());
    assert_eq!(r.signal(), Some(2));
}

#[test]
fn cancellation_escalates_to_kill_after_the_grace() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "20");
    let _r = Reaper(vec!["sleep 33.2"]);
    let (r, after) = cancel(
        &env,
        "trap '' INT TERM; sleep 33.2",
        &[Signal::SIGINT],
        Duration::ZERO,
    );
    assert_eq!(r.signal(), Some(2));
    assert!((0.9..2.5).contains(&after), "{after}");
    assert!(!survives("sleep 33.2"));
}

#[test]
fn a_second_cancel_signal_kills_at_once() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "20");
    let _r = Reaper(vec!["sleep 33.21"]);
    let (r, after) = cancel(
        &env,
        "trap '' INT TERM; sleep 33.21",
        &[Signal::SIGINT, Signal::SIGINT],
        Duration::from_millis(200),
    );
    assert_eq!(r.signal(), Some(2));
    assert!(after < 0.9, "{after}");
    assert!(!survives("sleep 33.21"));
}

#[test]
fn an_ignored_sigint_stays_ignored() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "3");
    let _r = Reaper(vec!["sleep 33.22"]);
    let shim = env.shims.join("bash");
    let py = format!(
        "import os,signal; signal.signal(signal.SIGINT, signal.SIG_IGN); \
         os.execv({:?}, ['bash', '-c', 'sleep 33.22; echo finished'])",
        shim.to_str().unwrap()
    );
    let mut c = env.command("python3");
    c.args(["-c", &py])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let out = wait_with_guard(child, Duration::from_secs(30));
    // Not cancelled: it ran until its own timeout.
    assert_eq!(out.status.code(), Some(124));
}

#[test]
fn killing_the_shim_kills_its_direct_child() {
    let env = Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "20");
    let _r = Reaper(vec!["sleep 33.3", "sleep 33.4"]);
    let mut c = env.script("sleep 33.3 & sleep 33.4");
    c.stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // PDEATHSIG took the real bash; its children survive (documented).
    assert!(!alive("-c sleep 33.3 & sleep 33.4"));
    kill_all("sleep 33.3");
    kill_all("sleep 33.4");
}

#[test]
fn never_signals_its_caller() {
    // The shim runs in its caller's process group; a timeout must only hit
    // the command's own group.
    let env = Env::supervision_only();
    let shim = env.shims.join("bash");
    let py = format!(
        "import subprocess,os; r=subprocess.run([{:?}, '-c', 'sleep 41.08'], env=dict(os.environ, AUTOMODE_TIMEOUT='1')); \
         print('alive', r.returncode)",
        shim.to_str().unwrap()
    );
    let r = run(env.command("python3").args(["-c", &py]));
    assert_eq!(r.stdout().trim(), "alive 124", "{}", r.stderr());
    kill_all("sleep 41.08");
}

// ---------------------------------------------------------------- §4.9

#[test]
fn timeout_holds_while_the_reader_is_stalled() {
    let env = Env::supervision_only();
    let rcfile = env.root().join("rc");
    let shim = env.shims.join("bash");
    let pipeline = format!(
        "{{ AUTOMODE_TIMEOUT=2 {} -c yes; echo $? >{}; }} | sleep 4",
        shim.display(),
        rcfile.display()
    );
    let mut c = env.real(&pipeline);
    c.stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let start = Instant::now();
    let mut rc = String::new();
    while start.elapsed() < Duration::from_secs(8) {
        if let Ok(mut f) = std::fs::File::open(&rcfile) {
            f.read_to_string(&mut rc).unwrap();
            if !rc.is_empty() {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let when = start.elapsed().as_secs_f64();
    child.wait().unwrap();
    assert_eq!(rc.trim(), "124");
    assert!(when < 3.8, "{when}");
}

#[test]
fn a_closed_reader_gives_sigpipe_like_bash() {
    let env = Env::supervision_only();
    let shim = env.shims.join("bash");
    let pipeline = format!(
        "{} -c yes | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}",
        shim.display()
    );
    let r = run(&mut env.real(&pipeline));
    assert_eq!(r.stdout().trim(), "141");
}

#[test]
fn appends_to_an_o_append_destination() {
    let env = Env::supervision_only();
    let file = env.root().join("out.log");
    std::fs::write(&file, "first\n").unwrap();
    let shim = env.shims.join("bash");
    let pipeline = format!(
        "{} -c 'echo second; echo third >&2' >>{} 2>&1",
        shim.display(),
        file.display()
    );
    let r = run(&mut env.real(&pipeline));
    assert_eq!(r.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "first\nsecond\nthird\n"
    );
}

#[test]
fn keeps_stdout_and_stderr_order_when_they_share_a_pipe() {
    let env = Env::supervision_only();
    let shim = env.shims.join("bash");
    let pipeline = format!(
        "{} -c 'for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done' 2>&1 | cat",
        shim.display()
    );
    let r = run(&mut env.real(&pipeline));
    let expected: String = (1..=5).map(|i| format!("out{i}\nerr{i}\n")).collect();
    assert_eq!(r.stdout(), expected);
}

#[test]
fn moves_large_output_intact() {
    let env = Env::supervision_only().with_env("AUTOMODE_OUTPUT_LIMIT", "100000000");
    let shim = env.shims.join("bash");
    let pipeline = format!(
        "{} -c 'head -c 20000000 /dev/zero | tr \"\\0\" x' | wc -c",
        shim.display()
    );
    let r = run(&mut env.real(&pipeline));
    assert_eq!(r.stdout().trim(), "20000000");
}
