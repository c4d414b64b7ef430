//! The shim as a `bash`/`sh` replacement: invocation forms, scripts from
//! files and stdin, bash's own errors, `sh` in POSIX mode, nested calls,
//! and never recursing into itself.

use std::io::Write;
use std::os::unix::fs::symlink;
use std::process::Stdio;

use crate::support::{Env, automode_bin, real_bash, run};

#[test]
fn runs_command_strings_with_name_and_arguments() {
    let env = Env::new();
    let r = run(env
        .bash()
        .args(["-c", r#"echo "$0|$1|$2""#, "name", "a b", "c"]));
    assert_eq!(r.stdout(), "name|a b|c\n");
    let r = run(env.bash().args(["-lc", "echo $0"]));
    assert!(r.stdout().trim_end().ends_with("bash"), "{}", r.stdout());
    let r = run(env.bash().args(["-xec", "true; echo $-", "n"]));
    assert!(r.stdout().contains('e') && r.stdout().contains('x'));
    let r = run(env
        .bash()
        .args(["-c", "-l", "shopt -q login_shell && echo login"]));
    assert_eq!(r.stdout(), "login\n");
    let r = run(env.bash().args(["-o", "pipefail", "-c", "false | true"]));
    assert_eq!(r.code(), Some(1));
    let r = run(env
        .bash()
        .args(["-O", "extglob", "-c", "shopt -q extglob && echo on"]));
    assert_eq!(r.stdout(), "on\n");
    let r = run(env.bash().args(["--noprofile", "--norc", "-c", "echo ok"]));
    assert_eq!(r.stdout(), "ok\n");
}

#[test]
fn runs_script_files_with_arguments_and_path_search() {
    let env = Env::new();
    std::fs::write(env.work.join("s.sh"), "echo \"$0:$1:$#\"\n").unwrap();
    let r = run(env.bash().args(["s.sh", "x", "y"]));
    assert_eq!(r.stdout(), "s.sh:x:2\n");
    let r = run(env.bash().args(["-e", "--", "s.sh", "-x"]));
    assert_eq!(r.stdout(), "s.sh:-x:1\n");
    // A bare name not in the cwd is searched on PATH, like bash does.
    let bin = env.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("onpath.sh"), "echo found-on-path\n").unwrap();
    let mut c = env.bash();
    c.env("PATH", format!("{}:{}", env.path, bin.display()))
        .arg("onpath.sh");
    assert_eq!(run(&mut c).stdout(), "found-on-path\n");
}

#[test]
fn script_files_get_bash_errors() {
    let env = Env::new();
    let r = run(env.bash().arg("missing.sh"));
    assert_eq!(r.code(), Some(127));
    assert!(
        r.stderr().contains("missing.sh: No such file or directory"),
        "{}",
        r.stderr()
    );
    std::fs::create_dir(env.work.join("adir")).unwrap();
    let r = run(env.bash().arg("adir"));
    assert_eq!(r.code(), Some(126));
    assert!(r.stderr().contains("Is a directory"));
    std::fs::write(env.work.join("bin.sh"), b"\x7fELF\x00\x00rm -rf x\n").unwrap();
    let r = run(env.bash().arg("bin.sh"));
    assert_eq!(r.code(), Some(126));
    assert!(r.stderr().contains("cannot execute binary file"));
}

#[test]
fn reads_scripts_from_a_pipe_and_runs_them_with_stdin_closed() {
    let env = Env::new();
    let mut c = env.bash();
    c.args(["-s", "a", "b"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"echo \"$1 $2\"; readlink /proc/self/fd/0\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a b\n/dev/null\n");
    // A here-string, through a real shell.
    let shim = env.shims.join("bash");
    let r = run(&mut env.real(&format!("{} <<< 'echo here-$0'", shim.display())));
    assert!(r.stdout().starts_with("here-"), "{}", r.stdout());
}

#[test]
fn refuses_scripts_over_one_mebibyte() {
    let env = Env::new();
    let marker = env.root().join("ran");
    let mut big = format!("touch {}\n", marker.display());
    while big.len() <= 1024 * 1024 {
        big.push_str("# padding padding padding padding padding padding padding\n");
    }
    std::fs::write(env.work.join("big.sh"), &big).unwrap();
    let r = run(env.bash().arg("big.sh"));
    assert_eq!(r.code(), Some(121));
    assert!(
        r.stderr().contains("larger than 1024 KiB"),
        "{}",
        r.stderr()
    );
    assert!(!marker.exists());
    let mut c = env.bash();
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(big.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(121));
    assert!(!marker.exists());
}

#[test]
fn bad_options_get_bashs_own_error_and_code() {
    let env = Env::new();
    for args in [
        vec!["-Z", "-c", "true"],
        vec!["--bogus", "-c", "true"],
        vec!["-c"],
        vec!["-o", "nosuch", "-c", "true"],
        vec!["-e", "-Z"],
    ] {
        let ours = run(env.bash().args(&args));
        let theirs = run(env.command(real_bash()).args(&args));
        assert_eq!(ours.code(), theirs.code(), "{args:?}");
        let first = |s: String| {
            s.lines()
                .next()
                .unwrap_or("")
                .rsplit_once(": ")
                .map(|(_, m)| m.to_string())
        };
        assert_eq!(first(ours.stderr()), first(theirs.stderr()), "{args:?}");
    }
}

#[test]
fn version_and_help_pass_through() {
    let env = Env::new();
    let r = run(env.bash().arg("--version"));
    assert_eq!(r.code(), Some(0));
    assert!(r.stdout().contains("GNU bash"), "{}", r.stdout());
    let r = run(env.bash().arg("--help"));
    assert!(r.stdout().contains("Usage:"));
}

#[test]
fn noexec_checks_syntax_without_running() {
    let env = Env::new();
    let marker = env.root().join("ran");
    let r = run(env
        .bash()
        .args(["-n", "-c", &format!("touch {}", marker.display())]));
    assert_eq!(r.code(), Some(0));
    assert!(!marker.exists());
    let r = run(env.bash().args(["-n", "-c", "if then"]));
    assert_eq!(r.code(), Some(2));
}

#[test]
fn sh_runs_bash_in_posix_mode() {
    let env = Env::new();
    let r = run(env.sh().args(["-c", "set -o | grep '^posix'"]));
    assert!(r.stdout().contains("on"), "{}", r.stdout());
    let r = run(env.sh().args(["-c", "echo $0", "myname"]));
    assert_eq!(r.stdout(), "myname\n");
}

#[test]
fn nested_calls_exec_the_real_shell_without_a_second_supervisor() {
    let env = Env::new();
    // Inside a supervised command, `bash` resolves to the shim again (PATH);
    // the nested shim must replace itself with the real bash: the inner
    // shell's parent is then the outer real bash, not an automode process.
    // (`; true` keeps bash from exec'ing the last command in place.)
    let r =
        run(&mut env
            .script(r#"bash -c 'readlink /proc/$PPID/exe; readlink /proc/$$/exe; true'; true"#));
    let stdout = r.stdout();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout());
    assert!(lines[0].ends_with("bash"), "{}", r.stdout());
    assert!(lines[1].ends_with("bash"), "{}", r.stdout());
    // No timeout of its own: the outer limit applies.
    let r = run(env
        .script("AUTOMODE_TIMEOUT=0 bash -c 'echo nested-ok'")
        .env("AUTOMODE_TIMEOUT", "10"));
    // The outer script's own leading AUTOMODE_TIMEOUT=0 is invalid.
    assert_eq!(r.code(), Some(2), "{}", r.stderr());
    let r = run(&mut env.script("X=1; AUTOMODE_TIMEOUT=0 bash -c 'echo nested-ok'"));
    assert_eq!(r.stdout(), "nested-ok\n", "{}", r.stderr());
}

#[test]
fn a_copied_marker_outside_the_session_is_not_trusted() {
    // Grab a real marker from inside a supervised command, then present it
    // from outside: the shim must supervise (and time out) as top level.
    let grab = Env::supervision_only();
    let r = run(&mut grab.script("env | grep ^AUTOMODE_SUPERVISOR"));
    let line = r.stdout().trim().to_string();
    let (name, marker) = line.split_once('=').unwrap_or_else(|| panic!("{line:?}"));
    assert!(name.starts_with("AUTOMODE_SUPERVISOR_"), "{line}");
    assert!(marker.contains(':'), "{marker}");
    let env = Env::new().with_env("AUTOMODE_TIMEOUT", "1");
    let r = run(env.script("sleep 41.03").env(name, marker));
    assert_eq!(r.code(), Some(124));
    crate::support::kill_all("sleep 41.03");
}

#[test]
fn setsid_escapes_are_supervised_again() {
    let env = Env::new()
        .with_env("AUTOMODE_TIMEOUT", "2")
        .with_env("AUTOMODE_SETTINGS_JSON", r#"{"sandbox": {"mode": "off"}}"#);
    // A nested call in a new session is not "inside": it gets a supervisor
    // (visible as an automode parent of the real bash).
    let r = run(&mut env.script(r#"setsid bash -c 'readlink /proc/$PPID/exe'"#));
    assert!(r.stdout().contains("automode"), "{}", r.stdout());
    // Inside the sandbox automode cannot read its own configuration to
    // judge it: refused, saying why.
    let env = Env::new().with_env("AUTOMODE_TIMEOUT", "2");
    let r = run(&mut env.script(r#"setsid bash -c 'echo escaped'"#));
    assert!(!r.stdout().contains("escaped"), "{}", r.stdout());
    assert!(
        r.stderr().contains("started in a new session"),
        "{}",
        r.stderr()
    );
}

#[test]
fn interactive_use_is_refused_with_exit_2() {
    let env = Env::new();
    let out = std::process::Command::new("python3")
        .arg(crate::support::helper("pty_run.py"))
        .arg("--")
        .arg(env.shims.join("bash"))
        .env_clear()
        .env("PATH", &env.path)
        .env("HOME", &env.home)
        .current_dir(&env.work)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["code"], 2, "{report}");
    assert!(
        report["output"]
            .as_str()
            .unwrap_or("")
            .contains("interactive"),
        "{report}"
    );
}

/// A prefix with a copy of automode as `bash` first on PATH.
fn path_with(env: &Env, dirs: &[&std::path::Path]) -> String {
    let mut p: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    p.push(env.path.clone());
    p.join(":")
}

#[test]
fn never_runs_itself_as_the_real_shell() {
    let env = Env::new();
    // A copy of the binary named bash, a symlink chain to it, a relative
    // PATH entry with a planted bash: all before the real bash.
    let copies = env.root().join("copies");
    let chain = env.root().join("chain");
    std::fs::create_dir_all(&copies).unwrap();
    std::fs::create_dir_all(&chain).unwrap();
    std::fs::copy(automode_bin(), copies.join("bash")).unwrap();
    symlink(copies.join("bash"), chain.join("link1")).unwrap();
    symlink(chain.join("link1"), chain.join("bash")).unwrap();
    std::fs::write(env.work.join("bash"), "#!/bin/sh\necho planted\n").unwrap();
    std::fs::set_permissions(
        env.work.join("bash"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let path = path_with(&env, &[&chain, &copies]);
    for shim in [
        env.shims.join("bash"),
        copies.join("bash"),
        chain.join("bash"),
    ] {
        let mut c = env.command(&shim);
        c.env("PATH", &path).args([
            "-c",
            "echo $BASH_VERSION; bash -c 'echo nested $BASH_VERSION; true'; true",
        ]);
        let r = run(&mut c);
        assert_eq!(r.code(), Some(0), "{}: {}", shim.display(), r.stderr());
        assert!(r.stdout().starts_with('5'), "{}", r.stdout());
        assert!(r.stdout().contains("nested 5"), "{}", r.stdout());
        // A relative PATH entry (".") with a planted bash is never used as
        // the real shell.
        let mut c = env.command(&shim);
        c.env("PATH", format!(".:{path}"))
            .args(["-c", "echo $BASH_VERSION"]);
        let r = run(&mut c);
        assert!(r.stdout().starts_with('5'), "{}", r.stdout());
        assert!(!r.stdout().contains("planted"));
    }
    // PATH with nothing but copies: the fallback /usr/bin/bash is used.
    let mut c = env.command(copies.join("bash"));
    c.env("PATH", copies.display().to_string())
        .args(["-c", "echo $BASH_VERSION"]);
    let r = run(&mut c);
    assert!(r.stdout().starts_with('5'), "{} {}", r.stdout(), r.stderr());
}

#[test]
fn an_install_record_naming_automode_is_refused() {
    let env = Env::new();
    let bin = env.root().join("prefix/bin");
    let share = env.root().join("prefix/share/automode");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&share).unwrap();
    std::fs::copy(automode_bin(), bin.join("automode")).unwrap();
    let shims = env.root().join("prefix/share/automode/shims");
    std::fs::create_dir_all(&shims).unwrap();
    symlink("../../../bin/automode", shims.join("bash")).unwrap();
    for target in [bin.join("automode"), shims.join("bash"), automode_bin()] {
        std::fs::write(share.join("real-shell"), format!("{}\n", target.display())).unwrap();
        let r = run(env.command(shims.join("bash")).args(["-c", "echo ran"]));
        assert_eq!(r.code(), Some(126), "{}: {}", target.display(), r.stderr());
        assert!(r.stderr().contains("automode"), "{}", r.stderr());
    }
    // A good record is used even when PATH has no bash at all.
    std::fs::write(share.join("real-shell"), format!("{}\n", real_bash())).unwrap();
    let r = run(env
        .command(shims.join("bash"))
        .env("PATH", "/nonexistent")
        .args(["-c", "echo $BASH_VERSION"]));
    assert!(r.stdout().starts_with('5'), "{}", r.stderr());
}

#[test]
fn a_login_dash_argv0_is_a_shim_and_a_login_shell() {
    let env = Env::new();
    let shim = env.shims.join("bash");
    let py = format!(
        "import os; os.execv({:?}, ['-bash', '-c', 'shopt -q login_shell && echo login'])",
        shim.to_str().unwrap()
    );
    let r = run(env.command("python3").args(["-c", &py]));
    assert_eq!(r.stdout(), "login\n", "{}", r.stderr());
}
