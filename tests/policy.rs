//! The policy through the real binary: blocks and their message and exit
//! code, configuration layers and errors, trust, user-only commands,
//! session state, the audit log, the admin commands, and 50 parallel
//! invocations on one session.

use std::path::Path;

use crate::support::{Env, automode_bin, run};

const BLOCKED: i32 = 121;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `automode check --json SCRIPT` in the environment's directory.
fn check_json(env: &Env, script: &str) -> serde_json::Value {
    json(&run(env.automode().args(["check", "--json", script])).stdout())
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_denied_command_does_not_run_and_says_why() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "deny-test");
    let rc = env.home.join(".bashrc");
    let r = run(&mut env.script("echo 'export X=1' >> ~/.bashrc"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(!rc.exists(), "the profile was written");
    let err = r.stderr();
    assert_eq!(err.lines().count(), 1, "one paragraph: {err}");
    assert!(
        err.starts_with("automode: blocked: this command did not run"),
        "{err}"
    );
    assert!(
        err.contains("Rule: profile-write (hard-deny tier, from built-in)"),
        "{err}"
    );
    assert!(err.contains("do not try an equivalent command"), "{err}");
    // A deletion block says how to delete (where no checkpoint is taken:
    // with one, the glob is undoable work).
    let r = run(env.script("rm -rf src/*").env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"checkpoint": {"enabled": false}}"#,
    ));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(
        r.stderr().contains("one literal target per call"),
        "{}",
        r.stderr()
    );
}

#[test]
fn review_without_a_classifier_and_ask_both_block() {
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"permissions": {"ask": ["bash(touch asked*)"]}}"#,
    );
    let r = run(&mut env.script("vercel deploy --all > made.txt"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(
        r.stderr().contains("no classifier is configured"),
        "{}",
        r.stderr()
    );
    assert!(!env.work.join("made.txt").exists());
    let r = run(&mut env.script("touch asked.txt"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(
        r.stderr().contains("needs the user's approval"),
        "{}",
        r.stderr()
    );
    assert!(r.stderr().contains("bash(touch asked*)"), "{}", r.stderr());
    assert!(!env.work.join("asked.txt").exists());
}

#[test]
fn allowed_commands_run_and_git_read_only_gets_safe_overrides() {
    let env = Env::new();
    let r = run(&mut env.script("mkdir -p src && echo hi > src/x.txt && cat src/x.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout(), "hi\n");
    assert!(run(&mut env.real("git init -q")).code() == Some(0));
    let r =
        run(&mut env.script("git status --short >/dev/null && git config --get core.fsmonitor"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    // The override reaches git as configuration.
    assert_eq!(r.stdout(), "false\n");
}

#[test]
fn broken_configuration_blocks_everything_naming_file_line_and_key() {
    let env = Env::new();
    let cfg = env.root().join("config/automode/config.json");
    write(
        &cfg,
        "{\n  \"permissions\": {\n    \"deny\": [\"bash(x)\",]\n  }\n}\n",
    );
    let r = run(&mut env.script("echo hi"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(r.stdout().is_empty());
    assert!(
        r.stderr().contains(&format!("{}:3:", cfg.display())),
        "{}",
        r.stderr()
    );
    write(
        &cfg,
        "{\n  \"autoMode\": {\n    \"enabeld\": false\n  }\n}\n",
    );
    let r = run(&mut env.script("echo hi"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(
        r.stderr().contains("unknown key `enabeld`"),
        "{}",
        r.stderr()
    );
    assert!(
        r.stderr().contains(&format!("{}:3", cfg.display())),
        "{}",
        r.stderr()
    );
    let r = run(env.automode().arg("config"));
    assert_ne!(r.code(), Some(0));
    assert!(r.stderr().contains("enabeld"), "{}", r.stderr());
}

#[test]
fn project_files_add_rules_but_local_ones_need_trust() {
    let env = Env::new();
    write(
        &env.work.join(".automode/config.json"),
        r#"{"permissions": {"deny": ["bash(cat secret*)"], "allow": ["bash(*)"]}, "autoMode": {"enabled": false}}"#,
    );
    write(&env.work.join("secret.txt"), "s\n");
    let r = run(&mut env.script("cat secret.txt"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains(".automode/config.json"),
        "{}",
        r.stderr()
    );
    // The shared file's allow and enabled are ignored, with a diagnostic.
    let r = run(&mut env.script("vercel deploy"));
    assert_eq!(r.code(), Some(BLOCKED));
    let r = run(env.automode().args(["config"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(
        r.stdout().contains("ignored autoMode.enabled"),
        "{}",
        r.stdout()
    );
    assert!(
        r.stdout().contains("permissions.allow is ignored"),
        "{}",
        r.stdout()
    );

    write(
        &env.work.join(".automode/local.json"),
        r#"{"permissions": {"allow": ["bash(vercel*)"]}}"#,
    );
    let r = run(&mut env.script("vercel deploy"));
    assert_eq!(
        r.code(),
        Some(BLOCKED),
        "untrusted local.json must be ignored"
    );
    let r = run(env.automode().arg("trust"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let r = run(&mut env.script("vercel deploy"));
    // Allowed now: bash reports the missing program itself.
    assert_eq!(r.code(), Some(127), "{}", r.stderr());
    let r = run(env.automode().arg("untrust"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let r = run(&mut env.script("vercel deploy"));
    assert_eq!(r.code(), Some(BLOCKED));
}

#[test]
fn user_only_commands_refuse_inside_an_agent_command() {
    // Policy off, so the shim runs the script and automode itself must
    // notice the shim among its ancestors.
    let env = Env::supervision_only();
    let bin = automode_bin();
    for sub in ["off", "on", "reset", "trust", "untrust"] {
        let r = run(&mut env.script(&format!("{} {sub}", bin.display())));
        assert_eq!(r.code(), Some(BLOCKED), "{sub}: {}", r.stderr());
        assert!(
            r.stderr().contains("only the user may run it"),
            "{}",
            r.stderr()
        );
    }
    // Even with the nesting marker removed from the environment.
    let r = run(&mut env.script(&format!("env -i PATH=/usr/bin:/bin {} off", bin.display())));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    // Read-only admin commands work anywhere.
    let r = run(&mut env.script(&format!("{} status", bin.display())));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    // With the policy on, the agent's command is denied before it runs.
    let env = Env::new();
    let r = run(&mut env.script("automode off"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(r.stderr().contains("automode-command"), "{}", r.stderr());
}

#[test]
fn on_off_switch_the_policy_per_session_and_globally() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "switch-test");
    assert_eq!(run(&mut env.script("vercel deploy")).code(), Some(BLOCKED));
    let r = run(env.automode().args(["off", "--session", "switch-test"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(run(&mut env.script("vercel deploy")).code(), Some(127));
    assert_eq!(
        run(env.automode().args(["on", "--session", "switch-test"])).code(),
        Some(0)
    );
    assert_eq!(run(&mut env.script("vercel deploy")).code(), Some(BLOCKED));
    assert_eq!(run(env.automode().arg("off")).code(), Some(0));
    let other = Env::new();
    // The global switch lives in this env's state dir only.
    assert_eq!(
        run(&mut other.script("vercel deploy")).code(),
        Some(BLOCKED)
    );
    let r = run(env
        .script("vercel deploy")
        .env("AUTOMODE_SESSION", "another"));
    assert_eq!(r.code(), Some(127), "{}", r.stderr());
    assert_eq!(run(env.automode().arg("reset")).code(), Some(0));
    assert_eq!(run(&mut env.script("vercel deploy")).code(), Some(BLOCKED));
}

#[test]
fn state_audit_and_admin_commands_record_each_invocation() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "audit-test");
    assert_eq!(run(&mut env.script("echo one")).code(), Some(0));
    assert_eq!(run(&mut env.script("exit 3")).code(), Some(3));
    assert_eq!(run(&mut env.script("rm -rf ~")).code(), Some(BLOCKED));
    let r = run(env.automode().args(["status", "--json"]));
    let status = json(&r.stdout());
    let session = &status["sessions"][0];
    assert_eq!(session["session"], "audit-test");
    assert_eq!(session["checked"], 3);
    assert_eq!(session["allowed"], 2);
    assert_eq!(session["denied"], 1);
    assert_eq!(session["last_decision"], "deny");
    let r = run(env.automode().args(["denials", "--json"]));
    let denials = json(&r.stdout());
    assert_eq!(denials[0]["denial"]["rule"], "rm-root");
    let r = run(env.automode().args(["log", "--json", "-n", "3"]));
    let lines: Vec<serde_json::Value> = r.stdout().lines().map(json).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["outcome"]["exit"], 0);
    assert_eq!(lines[0]["outcome"]["stdout_bytes"], 4);
    assert_eq!(lines[1]["outcome"]["exit"], 3);
    assert_eq!(lines[2]["ran"], false);
    assert_eq!(lines[2]["tier"], "hard-deny");
    let r = run(env.automode().arg("log"));
    assert!(r.stdout().contains("did not run"), "{}", r.stdout());
    let r = run(env.automode().arg("guidance"));
    assert!(r.stdout().contains("did NOT run") && r.stdout().contains("AUTOMODE_TIMEOUT"));
    let r = run(env.automode().arg("defaults"));
    for id in ["rm-root", "tls-weakening", "bulk-delete", "node_modules"] {
        assert!(r.stdout().contains(id), "{id}");
    }
}

#[test]
fn fifty_parallel_invocations_lose_no_count() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "parallel");
    let children: Vec<_> = (0..50)
        .map(|i| {
            let mut c = env.script(if i % 5 == 0 { "vercel deploy" } else { "true" });
            c.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        c.wait().unwrap();
    }
    let r = run(env.automode().args(["status", "--json"]));
    let status = json(&r.stdout());
    let s = &status["sessions"][0];
    assert_eq!(s["checked"], 50, "{s}");
    assert_eq!(s["allowed"], 40);
    assert_eq!(
        s["classifier_failures"], 10,
        "no classifier configured: each is a failure"
    );
    let r = run(env.automode().args(["log", "--json", "-n", "100"]));
    assert_eq!(r.stdout().lines().map(json).count(), 50);
}

#[test]
fn check_prints_the_verdict_with_its_trace() {
    let env = Env::new();
    let r = run(env
        .automode()
        .args(["check", "--json", "curl -k https://example.com"]));
    let v = json(&r.stdout());
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["tier"], "hard-deny");
    assert_eq!(v["rule"], "tls-weakening");
    assert_eq!(v["source"], "built-in");
    assert!(
        v["trace"].as_array().is_some_and(|t| t.len() == 5),
        "{}",
        v["trace"]
    );
    let r = run(env.automode().args(["check", "ls"]));
    assert!(
        r.stdout().starts_with("decision: allow (read-only tier"),
        "{}",
        r.stdout()
    );
}

#[test]
fn deletions_are_judged_by_what_can_be_got_back() {
    // The text rules, as where no checkpoint is taken (the last lines
    // show what one changes; tests/checkpoint.rs runs them).
    const NO_CHECKPOINTS: &str = r#"{"checkpoint": {"enabled": false}}"#;
    let env = Env::new()
        .with_env("AUTOMODE_SESSION", "recover-test")
        .with_env("AUTOMODE_SETTINGS_JSON", NO_CHECKPOINTS);
    let w = &env.work;
    for (rel, text) in [
        ("tracked.txt", "a\n"),
        ("dirty.txt", "b\n"),
        ("src/a.rs", "// a\n"),
        ("src/b.rs", "// b\n"),
    ] {
        write(&w.join(rel), text);
    }
    let r = run(&mut env.real(
        "git init -q && git add . && git -c user.name=t -c user.email=t@example.com commit -qm init",
    ));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    write(&w.join("old.txt"), "untracked, from before\n");
    write(&w.join("dirty.txt"), "b\nchanged\n");
    // The session's first command marks its start; what is born after
    // it is the session's.
    assert_eq!(run(&mut env.script("true")).code(), Some(0));
    write(&w.join("test_imports.py"), "x\n");
    write(&w.join("test_simple.py"), "y\n");
    write(&w.join("scratch/deep/q.txt"), "z\n");
    let check = |script: &str| check_json(&env, script);
    for (script, want) in [
        // (a) made by this session, any number, a glob of them, a tree
        ("rm test_imports.py test_simple.py", "allow"),
        ("rm test_*.py", "allow"),
        ("rm -rf scratch", "allow"),
        // (c) tracked and unchanged; git rm without -f
        ("rm tracked.txt src/a.rs", "allow"),
        ("rm -r src", "allow"),
        ("git rm -r src", "allow"),
        // one pre-existing target that cannot be got back: the classifier
        ("rm old.txt", "classify"),
        ("rm dirty.txt", "classify"),
        ("git rm -f dirty.txt", "classify"),
        // several, or a glob, not all recoverable: denied
        ("rm old.txt tracked.txt", "deny"),
        ("rm *.txt", "deny"),
        // overwrites: an unchanged tracked file can be got back
        ("mv src/a.rs src/b.rs", "allow"),
        ("cp old.txt dirty.txt", "classify"),
        // a rename that replaces nothing is not a deletion
        ("mv old.txt renamed.txt", "allow"),
        // the script fills it first: not what is there now
        ("mv old.txt scratch/ && rm -rf scratch", "classify"),
    ] {
        let v = check(script);
        assert_eq!(v["decision"], want, "{script}: {}", v["reason"]);
    }
    // check --json says which held for each target.
    let v = check("rm -rf scratch tracked.txt old.txt");
    let held: Vec<(String, serde_json::Value)> = v["recovery"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let p = t["target"].as_str().unwrap();
            (p.rsplit('/').next().unwrap().to_string(), t["held"].clone())
        })
        .collect();
    assert_eq!(
        held,
        vec![
            ("scratch".into(), "made by this session".into()),
            (
                "tracked.txt".into(),
                "tracked by git with no uncommitted change".into()
            ),
            ("old.txt".into(), serde_json::Value::Null),
        ],
        "{v}"
    );
    // Run for real: the session's files go, the others stay.
    let r = run(&mut env.script("rm test_imports.py test_simple.py && rm -rf scratch"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(!w.join("test_imports.py").exists() && !w.join("scratch").exists());
    let r = run(&mut env.script("rm old.txt tracked.txt"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(w.join("old.txt").exists() && w.join("tracked.txt").exists());
    // Another session did not make them.
    let other = Env::new()
        .with_env("AUTOMODE_SESSION", "another")
        .with_env("AUTOMODE_SETTINGS_JSON", NO_CHECKPOINTS);
    write(&other.work.join("new.txt"), "n\n");
    let v = json(
        &run(other
            .automode()
            .args(["check", "--json", "rm new.txt other.txt"]))
        .stdout(),
    );
    assert_ne!(v["decision"], "allow", "{v}");
    // With checkpoints (the default), the checkpoint holds what the
    // other rules could not.
    let v = json(
        &run(env
            .automode()
            .args(["check", "--json", "rm old.txt dirty.txt"])
            .env_remove("AUTOMODE_SETTINGS_JSON"))
        .stdout(),
    );
    assert_eq!(v["decision"], "allow", "{v}");
    assert_eq!(
        v["recovery"][0]["held"], "kept by the checkpoint before it (automode undo)",
        "{v}"
    );
}

/// An argument made of raw bytes.
fn bytes(b: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b).to_os_string()
}

#[test]
fn the_analysis_judges_the_bytes_bash_runs() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "bytes");
    // A file whose name is not UTF-8.
    write(&env.work.join("notes"), "notes\n");
    let target = env.work.join("x");
    let mut name = target.as_os_str().as_encoded_bytes().to_vec();
    name.push(0xff);
    std::fs::write(std::path::Path::new(&bytes(&name)), "bytes\n").unwrap();
    for script in [
        // In a command word.
        b"\xffcat notes".to_vec(),
        b"ca\xff notes".to_vec(),
        // In a path.
        [b"cat ".as_slice(), &name].concat(),
        [b"rm -f ".as_slice(), &name].concat(),
    ] {
        let r = run(env.bash().arg("-c").arg(bytes(&script)));
        assert_eq!(r.code(), Some(BLOCKED), "{script:?}: {}", r.stderr());
        assert!(r.stderr().contains("not valid UTF-8"), "{}", r.stderr());
        assert_eq!(r.stdout(), "");
        let c = run(env.automode().args(["check", "--json"]).arg(bytes(&script)));
        let v = json(&c.stdout());
        assert_eq!(v["decision"], "deny", "{script:?}: {v}");
        assert_eq!(v["tier"], "analysis", "{script:?}: {v}");
    }
    assert!(std::path::Path::new(&bytes(&name)).exists());
    // In an argument the script reads.
    let r = run(env.bash().args(["-c", "cat \"$1\"", "_"]).arg(bytes(&name)));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(r.stderr().contains("argument $1"), "{}", r.stderr());
    // A variable whose value is not UTF-8 is unknown, never empty.
    let mut check = env.automode();
    check
        .args(["check", "--json", "rm -rf \"build$X\""])
        .env("X", bytes(b"/../\xff"));
    let v = json(&run(&mut check).stdout());
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("run time"), "{v}");
    // The same without it: the analysis placed every byte.
    let v = json(&run(env.automode().args(["check", "--json", "cat notes"])).stdout());
    assert_eq!(v["decision"], "allow", "{v}");
}

#[test]
fn allow_rules_match_case_sensitively_and_deny_rules_do_not() {
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"permissions": {"allow": ["Bash(./scripts/build.sh)", "Bash(cp notes /var/tmp/out/*)"],
            "deny": ["Bash(./scripts/deploy.sh)"]},
            "autoMode": {"classifierModel": "none"}}"#,
    );
    let check = |script: &str| check_json(&env, script);
    let v = check("./scripts/build.sh");
    assert_eq!(v["tier"], "allow-rule", "{v}");
    for other in ["./SCRIPTS/BUILD.SH", "./Scripts/build.sh"] {
        let v = check(other);
        assert_ne!(v["tier"], "allow-rule", "{other}: {v}");
    }
    // An allow rule's verdict grants its outside targets: only for the
    // exact spelling.
    let v = check("cp notes /var/tmp/out/a");
    assert_eq!(v["tier"], "allow-rule", "{v}");
    assert!(
        v["sandbox"]["grants"].to_string().contains("/var/tmp/out"),
        "{v}"
    );
    let v = check("cp notes /var/tmp/OUT/a");
    assert_ne!(v["tier"], "allow-rule", "{v}");
    assert!(
        !v["sandbox"]["grants"].to_string().contains("/var/tmp"),
        "{v}"
    );
    // Deny rules tighten whatever the case.
    for spelling in ["./scripts/deploy.sh", "./SCRIPTS/DEPLOY.SH"] {
        let v = check(spelling);
        assert_eq!(v["tier"], "deny-rule", "{spelling}: {v}");
    }
}

/// A developer's first day (issue 24): a virtual environment's own
/// `activate`, PATH and PYTHONPATH pointed inside the project, run with no
/// classifier; the same variables pointed elsewhere still wait or are
/// refused.
#[test]
fn a_virtual_environment_and_project_paths_run_without_review() {
    let env = Env::new();
    let made = run(&mut env.real("python3 -m venv --without-pip .venv"));
    assert_eq!(made.code(), Some(0), "{}", made.stderr());
    write(&env.work.join("src/app/__main__.py"), "print('app ran')\n");
    for (script, want) in [
        (
            "source .venv/bin/activate && python3 -c 'import sys; print(sys.prefix)'",
            "/.venv\n",
        ),
        (". .venv/bin/activate && deactivate && echo back", "back\n"),
        (
            "PATH=\"$PWD/.venv/bin:$PATH\" python3 -c 'import sys; print(sys.prefix)'",
            "/.venv\n",
        ),
        ("PYTHONPATH=$PWD/src python3 -m app", "app ran\n"),
    ] {
        let r = run(&mut env.script(script));
        assert_eq!(r.code(), Some(0), "{script}: {}", r.stderr());
        assert!(r.stdout().ends_with(want), "{script}: {}", r.stdout());
    }
    for script in [
        "PYTHONHOME=/tmp/elsewhere python3 -c 1",
        "PYTHONPATH=/tmp/elsewhere python3 -m app",
        "PATH=\"/tmp/elsewhere:$PATH\" python3 -c 1",
        "S=/tmp/elsewhere; PYTHONHOME=\"$S\"; python3 -c 1",
    ] {
        let r = run(&mut env.script(script));
        assert_eq!(r.code(), Some(BLOCKED), "{script}: {}", r.stderr());
    }
}

/// Reading is allowed (issue 24): the forge's read-only subcommands with
/// the user's own login, sqlite3 statements that only read, `git add` of
/// a protected path (it reads it into the index), bundled short options
/// read as the tool reads them; what writes or reaches further still
/// waits.
#[test]
fn reading_the_forge_a_database_and_bundled_options_is_read_only() {
    let env = Env::new();
    write(&env.work.join(".cursor/rules/style.mdc"), "style\n");
    let check = |script: &str| check_json(&env, script);
    for (script, tier) in [
        ("gh pr view 42", "read-only"),
        ("gh run list --limit 5", "read-only"),
        ("glab mr list", "read-only"),
        ("sqlite3 :memory: 'select 1'", "read-only"),
        (
            "sqlite3 app.db 'select count(*) from t; pragma table_info(t)'",
            "read-only",
        ),
        ("git add .cursor/rules/style.mdc", "routine"),
        ("curl -sI http://127.0.0.1:3000/", "read-only"),
        ("curl -sSfI http://localhost:3000/health", "read-only"),
    ] {
        let v = check(script);
        assert_eq!(v["decision"], "allow", "{script}: {}", v["reason"]);
        assert_eq!(v["tier"], tier, "{script}: {}", v["reason"]);
    }
    for script in [
        "gh pr view 42 --web",
        "gh auth status --show-token",
        "gh api -X DELETE /repos/o/r",
        "sqlite3 app.db 'delete from t'",
        "sqlite3 :memory: \"select load_extension('/tmp/x.so')\"",
        "sqlite3 /var/lib/app.db 'select 1'",
        "sqlite3 app.db",
    ] {
        let v = check(script);
        assert_ne!(v["tier"], "read-only", "{script}: {}", v["reason"]);
    }
    // A bundle that hides a method or data is not a read.
    for script in [
        "curl -sIX POST http://127.0.0.1:3000/",
        "curl -sd x=1 http://127.0.0.1:3000/",
    ] {
        let v = check(script);
        assert_ne!(v["tier"], "read-only", "{script}: {}", v["reason"]);
    }
}

/// A script the line itself writes with text the analysis can read, then
/// runs, is judged by that text like any project script (issue 24): it
/// runs; with a dangerous line in it, or text written two ways, it does not.
#[test]
fn a_script_the_line_writes_and_runs_is_judged_by_its_text() {
    let env = Env::new();
    for (script, want) in [
        (
            "cat > run.sh <<'EOF'\necho built\nEOF\nchmod +x run.sh && ./run.sh",
            "built\n",
        ),
        ("printf 'echo ok\\n' > t.sh && sh t.sh", "ok\n"),
        ("echo 'print(6*7)' > calc.py && python3 calc.py", "42\n"),
    ] {
        let r = run(&mut env.script(script));
        assert_eq!(r.code(), Some(0), "{script}: {}", r.stderr());
        assert_eq!(r.stdout(), want, "{script}");
    }
    for script in [
        "cat > r.sh <<'EOF'\nrm -rf ~\nEOF\nbash r.sh",
        "echo 'echo a' > s.sh; echo 'rm -rf ~' >> s.sh; sh s.sh",
        "if true; then echo 'rm -rf ~' > s.sh; else echo 'echo hi' > s.sh; fi; sh s.sh",
    ] {
        let r = run(&mut env.script(script));
        assert_eq!(r.code(), Some(BLOCKED), "{script}: {}", r.stderr());
    }
    assert!(env.home.exists());
}

/// `$PWD` is the directory the analysis knows the command runs in (issue
/// 24: a configure script's prefix inside the project is placed); after a
/// `cd` it cannot follow, it is unknown again.
#[test]
fn pwd_is_the_directory_the_command_runs_in() {
    let env = Env::new();
    write(&env.work.join("configure"), "#!/bin/sh\necho configured\n");
    std::fs::set_permissions(
        env.work.join("configure"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let r = run(&mut env.script("./configure --prefix=$PWD/out"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout(), "configured\n");
    let check = |script: &str| check_json(&env, script);
    for script in [
        "./configure --prefix=/usr/local",
        "cd \"$(mktemp -d)\" && rm -rf $PWD/x",
        "PWD=/etc; rm -rf $PWD/x",
    ] {
        let v = check(script);
        assert_ne!(v["decision"], "allow", "{script}: {}", v["reason"]);
    }
}

/// git's identity is set in the project and used at once, with a reading
/// program beside git in the line (issue 24, point 3).
#[test]
fn the_git_identity_is_set_and_used_in_one_line() {
    let env = Env::new();
    let r = run(&mut env.real("git init -q ."));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let r = run(&mut env.script(
        "git config user.email dev@example.com && git config user.name Dev && git commit -q --allow-empty -m first && git log --format=%ae | head -1",
    ));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout(), "dev@example.com\n");
    let config = std::fs::read_to_string(env.work.join(".git/config")).unwrap();
    assert!(config.contains("email = dev@example.com"), "{config}");
}
