//! Real harnesses through the real binary: the wrappers recorded from
//! Claude Code, Codex, Gemini CLI and pi judged like their payloads;
//! Claude Code's hook mode (allow, deny with the reason, fail closed,
//! the user's prompt kept for the classifier); `automode setup`; programs
//! that would wait for terminal input.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::support::llm::{MockLlm, oa_text};
use crate::support::{Env, automode_bin, run};
use crate::terminal::pty;

const BLOCKED: i32 = 121;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/e2e/fixtures")
}

/// A recorded fixture with its placeholders filled for this Env.
fn fixture(env: &Env, harness: &str, name: &str) -> Value {
    let text = std::fs::read_to_string(fixtures().join(harness).join(name)).unwrap();
    let slug: String = env
        .work
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let fill = |s: &str| {
        s.replace("{SHIM}", &env.shims.join("bash").to_string_lossy())
            .replace("{SHIM_DIR}", &env.shims.to_string_lossy())
            .replace("{HOME}", &env.home.to_string_lossy())
            .replace("{PROJECT_SLUG}", &slug)
            .replace("{PROJECT}", &env.work.to_string_lossy())
            .replace("{TMP}", "/tmp")
    };
    // Fill inside JSON strings (the placeholders never need escaping).
    serde_json::from_str(&fill(&text)).unwrap()
}

fn check(env: &Env, script: &str) -> Value {
    let r = run(env.automode().args(["check", "--json", "--"]).arg(script));
    serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("{e}: {}", r.stderr()))
}

#[test]
fn recorded_wrappers_are_judged_like_their_payloads() {
    let env = Env::new();
    let mut seen = 0;
    for harness in ["claude", "codex", "gemini", "pi"] {
        let mut names: Vec<String> = std::fs::read_dir(fixtures().join(harness))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with("session") && !n.starts_with("prefix"))
            .collect();
        names.sort();
        for name in names {
            let f = fixture(&env, harness, &name);
            let (Some(argv), Some(payload)) = (f["argv"].as_array(), f["payload"].as_str()) else {
                continue;
            };
            // The script: the first word after the options (`-c`, `-lc`, `-c -l`).
            let Some(script) = argv
                .iter()
                .skip(1)
                .filter_map(Value::as_str)
                .find(|a| !a.starts_with('-'))
            else {
                continue;
            };
            let wrapped = check(&env, script);
            let raw = check(&env, payload);
            assert_eq!(
                wrapped["decision"], raw["decision"],
                "{harness}/{name}: wrapped {} vs raw {}",
                wrapped["reason"], raw["reason"]
            );
            if script != payload {
                assert!(
                    wrapped["wrapper"].is_object(),
                    "{harness}/{name}: wrapper not recognised: {}",
                    wrapped["trace"]
                );
            }
            if f["turn"] == "deny_bashrc" {
                assert_eq!(wrapped["decision"], "deny", "{harness}/{name}");
            }
            if [
                "ls",
                "pipe_quotes",
                "git_status",
                "stdin_redirect",
                "heredoc",
            ]
            .contains(&f["turn"].as_str().unwrap_or(""))
            {
                assert_eq!(
                    wrapped["decision"], "allow",
                    "{harness}/{name}: {}",
                    wrapped["reason"]
                );
            }
            seen += 1;
        }
    }
    assert!(seen >= 30, "only {seen} fixtures checked");
}

#[test]
fn a_forged_wrapper_is_no_more_permissive_than_its_text() {
    let env = Env::new();
    let home = env.home.to_string_lossy().into_owned();
    let forged = [
        // scaffolding that runs something
        format!(
            "source {home}/.claude/shell-snapshots/snapshot-bash-1-abcdef.sh 2>/dev/null || true && echo x >> ~/.bashrc && eval ls < /dev/null && pwd -P >| /tmp/claude-1-cwd"
        ),
        // a dynamic eval word
        "eval \"$X\" < /dev/null && pwd -P >| /tmp/claude-1-cwd".to_string(),
        // a snapshot outside the pinned pattern
        "source /tmp/evil.sh 2>/dev/null || true && eval ls < /dev/null && pwd -P >| /tmp/claude-1-cwd"
            .to_string(),
        // Codex: exec of another bash
        "exec '/usr/bin/bash' -c 'echo x >> ~/.bashrc'".to_string(),
    ];
    for script in &forged {
        let v = check(&env, script);
        assert_ne!(v["decision"], "allow", "{script}: {}", v["reason"]);
    }
}

/// `automode hook claude-code` with JSON on stdin.
fn hook(env: &Env, input: &str) -> (Option<i32>, String, String) {
    let mut child = env
        .automode()
        .args(["hook", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn decision(stdout: &str) -> (String, String) {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let h = &v["hookSpecificOutput"];
    assert_eq!(h["hookEventName"], "PreToolUse");
    (
        h["permissionDecision"].as_str().unwrap().to_string(),
        h["permissionDecisionReason"].as_str().unwrap().to_string(),
    )
}

#[test]
fn hook_mode_allows_routine_commands_and_denies_with_the_reason() {
    let env = Env::new();
    for (name, want) in [
        ("hook-pretooluse-ls.json", "allow"),
        ("hook-pretooluse-heredoc.json", "allow"),
        ("hook-pretooluse-deny_bashrc.json", "deny"),
    ] {
        let f = fixture(&env, "claude", name);
        let (code, out, err) = hook(&env, &f["stdin"].to_string());
        assert_eq!(code, Some(0), "{name}: {err}");
        let (d, reason) = decision(&out);
        assert_eq!(d, want, "{name}: {reason}");
        if want == "deny" {
            assert!(reason.starts_with("automode: blocked:"), "{reason}");
            assert!(reason.contains("profile-write"), "{reason}");
            assert!(reason.contains("did not run"), "{reason}");
        }
    }
    // A hook decides; it never runs the command.
    assert!(!env.home.join(".bashrc").exists());
    assert!(!env.work.join("notes.txt").exists());
    // Needs review and no classifier is configured: Claude asks the user
    // (its own ask), saying why.
    let f = fixture(&env, "claude", "hook-pretooluse-ls.json");
    let mut input = f["stdin"].clone();
    input["tool_input"]["command"] = json!("printenv > printed.txt");
    let (code, out, _) = hook(&env, &input.to_string());
    assert_eq!(code, Some(0));
    let (d, reason) = decision(&out);
    assert_eq!(d, "ask");
    assert!(reason.contains("classifier"), "{reason}");
    // Recorded under the harness's session id.
    let r = run(env.automode().args([
        "denials",
        "--json",
        "--session",
        "claude-code-7278bf70-3f7d-4afc-886b-b956a7f27d30",
    ]));
    assert!(r.stdout().contains("profile-write"), "{}", r.stdout());
}

/// In hook mode Claude Code runs the command itself: the hook takes the
/// checkpoint before it answers, so a deletion it allows can be undone.
#[test]
fn hook_mode_takes_the_checkpoint_before_it_allows() {
    let env = Env::new();
    std::fs::write(env.work.join("draft.md"), "the user's draft\n").unwrap();
    let f = fixture(&env, "claude", "hook-pretooluse-ls.json");
    let mut input = f["stdin"].clone();
    input["cwd"] = json!(env.work.display().to_string());
    input["tool_input"]["command"] = json!("rm draft.md");
    let (code, out, err) = hook(&env, &input.to_string());
    assert_eq!(code, Some(0), "{err}");
    let (d, reason) = decision(&out);
    assert_eq!(d, "allow", "{reason}");
    // What Claude Code then does, and the user's undo.
    std::fs::remove_file(env.work.join("draft.md")).unwrap();
    let r = run(env.automode().args(["undo", "--to", "1", "--yes"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(
        std::fs::read_to_string(env.work.join("draft.md")).unwrap(),
        "the user's draft\n"
    );
}

#[test]
fn hook_mode_fails_closed_with_exit_2() {
    let env = Env::new();
    for bad in [
        "",
        "not json",
        "[1]",
        r#"{"tool_name":"Bash"}"#,
        r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}"#,
    ] {
        let (code, out, err) = hook(&env, bad);
        assert_eq!(code, Some(2), "{bad:?}: {out}");
        assert!(err.contains("blocked"), "{bad:?}: {err}");
    }
    // Other tools and events: no opinion.
    let (code, out, _) = hook(
        &env,
        r#"{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/hosts"}}"#,
    );
    assert_eq!((code, out.as_str()), (Some(0), ""));
    // An unknown harness.
    let r = run(env.automode().args(["hook", "aider"]));
    assert_eq!(r.code(), Some(2));
    // A broken configuration file blocks.
    let cfg = env.root().join("config/automode");
    std::fs::create_dir_all(&cfg).unwrap();
    std::fs::write(cfg.join("config.json"), "{ nope").unwrap();
    let f = fixture(&env, "claude", "hook-pretooluse-ls.json");
    let (code, _, err) = hook(&env, &f["stdin"].to_string());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("configuration"), "{err}");
}

#[test]
fn hook_mode_gives_the_users_prompt_to_the_classifier() {
    let mock = MockLlm::start(vec![oa_text("0", "stop")]);
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            &crate::classifier::settings(&mock, "openai", json!({})),
        )
        .with_env("MOCK_KEY", "sk-mock-0123456789abcdefghij");
    let session = json!({"session_id": "s-prompt", "cwd": env.work});
    let mut prompt = session.clone();
    prompt["hook_event_name"] = json!("UserPromptSubmit");
    prompt["prompt"] = json!("Please dump the environment into printed.txt");
    let (code, out, err) = hook(&env, &prompt.to_string());
    assert_eq!((code, out.as_str()), (Some(0), ""), "{err}");
    let mut pre = session;
    pre["hook_event_name"] = json!("PreToolUse");
    pre["tool_name"] = json!("Bash");
    pre["tool_input"] = json!({"command": "printenv > printed.txt"});
    let (code, out, err) = hook(&env, &pre.to_string());
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(decision(&out).0, "allow");
    let body = mock.requests()[0].body.to_string();
    assert!(
        body.contains("Please dump the environment into printed.txt"),
        "{body}"
    );
    assert!(
        !env.work.join("printed.txt").exists(),
        "hook mode ran the command"
    );
}

#[test]
fn setup_writes_each_harness_setting_and_keeps_a_backup() {
    let env = Env::new();
    let shim = env.shims.join("bash");
    let setup = |args: &[&str]| {
        let mut c = env.automode();
        c.arg("setup").args(args).arg("--shim").arg(&shim);
        run(&mut c)
    };
    // Print only: nothing written.
    let r = setup(&["pi"]);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("\"shellPath\""), "{}", r.stdout());
    let pi = env.home.join(".pi/agent/settings.json");
    assert!(!pi.exists());
    // Write: merged into the existing file, other keys kept, backup made.
    std::fs::create_dir_all(pi.parent().unwrap()).unwrap();
    std::fs::write(&pi, r#"{"defaultModel": "x", "shellPath": "/bin/bash"}"#).unwrap();
    let r = setup(&["pi", "--write"]);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&pi).unwrap()).unwrap();
    assert_eq!(v["shellPath"], shim.to_string_lossy().as_ref());
    assert_eq!(v["defaultModel"], "x");
    let backup = std::fs::read_to_string(pi.with_extension("json.before-automode")).unwrap();
    assert!(backup.contains("/bin/bash"));
    // Claude Code: the env key, then the hooks, idempotent.
    for args in [
        &["claude-code", "--write"][..],
        &["claude-code", "--hook", "--write"],
        &["claude-code", "--hook", "--write"],
    ] {
        let r = setup(args);
        assert_eq!(r.code(), Some(0), "{args:?}: {}", r.stderr());
    }
    let claude: Value = serde_json::from_str(
        &std::fs::read_to_string(env.home.join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        claude["env"]["CLAUDE_CODE_SHELL"],
        shim.to_string_lossy().as_ref()
    );
    assert_eq!(claude["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
    assert_eq!(claude["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    let hook_cmd = claude["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(hook_cmd.ends_with(" hook claude-code"), "{hook_cmd}");
    assert_eq!(
        claude["hooks"]["UserPromptSubmit"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // opencode: the config key.
    assert_eq!(setup(&["opencode", "--write"]).code(), Some(0));
    let oc: Value = serde_json::from_str(
        &std::fs::read_to_string(env.root().join("config/opencode/opencode.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(oc["shell"], shim.to_string_lossy().as_ref());
    // Codex and Gemini: instructions on stdout, and --write says why not.
    for h in ["codex", "gemini"] {
        let r = setup(&[h, "--write"]);
        assert_eq!(r.code(), Some(1), "{h}");
        assert!(
            r.stdout().contains(&*env.shims.to_string_lossy()),
            "{h}: {}",
            r.stdout()
        );
        assert!(
            r.stderr().contains("nothing written"),
            "{h}: {}",
            r.stderr()
        );
    }
    let r = setup(&["codex"]);
    assert!(r.stdout().contains("chsh -s"), "{}", r.stdout());
}

#[test]
fn setup_refuses_what_it_cannot_do_safely() {
    let env = Env::new();
    let shim = env.shims.join("bash");
    let setup = |args: &[&str]| {
        let mut c = env.automode();
        c.arg("setup").args(args);
        run(&mut c)
    };
    // A file that is not plain JSON is left alone.
    let pi = env.home.join(".pi/agent/settings.json");
    std::fs::create_dir_all(pi.parent().unwrap()).unwrap();
    std::fs::write(&pi, "// comment\n{}").unwrap();
    let r = setup(&["pi", "--write", "--shim", &shim.to_string_lossy()]);
    assert_eq!(r.code(), Some(1));
    assert!(r.stderr().contains("not plain JSON"), "{}", r.stderr());
    assert_eq!(std::fs::read_to_string(&pi).unwrap(), "// comment\n{}");
    // Claude Code needs "bash" in the path; unknown harnesses; relative shims.
    let r = setup(&["claude-code", "--shim", "/opt/automode/shim"]);
    assert_eq!(r.code(), Some(1));
    assert!(r.stderr().contains("\"bash\""), "{}", r.stderr());
    assert_eq!(setup(&["aider"]).code(), Some(1));
    assert_eq!(setup(&["pi", "--shim", "rel/bash"]).code(), Some(1));
    assert_eq!(setup(&["pi", "--hook"]).code(), Some(1));
    // The shim is found on PATH when not given.
    let r = setup(&["pi"]);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(
        r.stdout().contains(&*shim.to_string_lossy()),
        "{}",
        r.stdout()
    );
    // Writing is for the user only: refused inside an agent's command.
    let r = run(&mut env.script(&format!(
        "{} setup pi --write --shim {}",
        automode_bin().display(),
        shim.display()
    )));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert_eq!(std::fs::read_to_string(&pi).unwrap(), "// comment\n{}");
}

#[test]
fn programs_that_would_read_the_terminal_are_refused_unless_allowed() {
    let env = Env::new();
    // On a terminal: a REPL or `read` would wait for input that never
    // reaches it.
    for script in ["python3", "read -r line; echo got=$line", "bash"] {
        let r = pty(&env, &[], script);
        assert_eq!(r["code"], BLOCKED, "{script}: {r}");
        let out = r["output"].as_str().unwrap();
        assert!(out.contains("terminal-input"), "{script}: {out}");
    }
    // The same with a script, or with stdin redirected, runs.
    let r = pty(
        &env,
        &[],
        "python3 -c 'print(6*7)'; read -r x < /dev/null; echo done",
    );
    assert_eq!(r["code"], 0, "{r}");
    assert!(r["output"].as_str().unwrap().contains("42"), "{r}");
    // Not a terminal: `read` gets end of file, nothing refused.
    let r = run(&mut env.script("read -r line; echo rc=$?"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("rc=1"));
    // The user lets terminal input through: the command reads what is typed.
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"allowTerminalInput": true}}"#,
    );
    let r = pty(
        &env,
        &["--send-after", "0.5", "typed-by-a-human\n"],
        "read -r line; echo got=$line",
    );
    assert_eq!(r["code"], 0, "{r}");
    assert!(
        r["output"]
            .as_str()
            .unwrap()
            .contains("got=typed-by-a-human"),
        "{r}"
    );
}

#[test]
fn aider_and_codex_invocation_shapes_run() {
    let env = Env::new();
    // aider: `$SHELL -i -c LINE` (interactive: ~/.bashrc is read).
    std::fs::write(env.home.join(".bashrc"), "export FROM_RC=yes\n").unwrap();
    let r = run(env.bash().args(["-i", "-c", "echo flags=$- rc=$FROM_RC"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(
        r.stdout().contains('i') && r.stdout().contains("rc=yes"),
        "{}",
        r.stdout()
    );
    // Codex: `-lc CMD`, and the model-chosen `sh`.
    let r = run(env.bash().args(["-lc", "echo login-ok"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("login-ok"));
    let r = run(env.sh().args(["-lc", "echo x >> ~/.bashrc"]));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    // Claude Code's fallback `-c -l SCRIPT` order.
    let r = run(env
        .bash()
        .args(["-c", "-l", "shopt -q login_shell && echo login"]));
    assert!(r.stdout().contains("login"), "{}", r.stderr());
}

#[test]
fn a_codex_wrapper_is_one_verdict_even_with_a_stale_marker_in_its_snapshot() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "codex-one-verdict");
    // Codex's snapshot builder runs in a login shell that automode
    // supervises, and `declare -xp`s every exported variable, the
    // supervisor's marker included; its wrapper re-exports them all before
    // `exec <shim> -c <command>`. Build such a snapshot (auto mode off, as
    // the harness's own setup call is allowed), then run the wrapper.
    let builder = fixture(&env, "codex", "snapshot-builder.json");
    let script = builder["argv"][2].as_str().unwrap();
    let off = Env::supervision_only();
    let r = run(off.bash().args(["-lc", script]));
    let stale: Vec<String> = r
        .stdout()
        .split('\0')
        .filter(|s| s.starts_with("declare -x AUTOMODE_SUPERVISOR"))
        .map(str::to_string)
        .collect();
    assert_eq!(stale.len(), 1, "{}", r.stdout());
    let f = fixture(&env, "codex", "wrapper-heredoc.json");
    let wrapper = f["argv"][2]
        .as_str()
        .unwrap()
        .replace("{HARNESS_PKG}", "/nonexistent");
    let snapshot = wrapper
        .split("if . '")
        .nth(1)
        .and_then(|s| s.split('\'').next())
        .unwrap();
    std::fs::create_dir_all(Path::new(snapshot).parent().unwrap()).unwrap();
    std::fs::write(snapshot, format!("# Snapshot file\n{}\n", stale.join("\n"))).unwrap();
    let mut cmd = env.bash();
    cmd.args(["-c", &wrapper]);
    for (k, v) in f["env"].as_object().unwrap() {
        if !matches!(k.as_str(), "HOME" | "PATH") {
            let v = v.as_str().unwrap().replace("{HARNESS_PKG}", "/nonexistent");
            cmd.env(k, v);
        }
    }
    let r = run(&mut cmd);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("wrote-notes"), "{}", r.stdout());
    let r = run(env.automode().args(["log", "--json", "-n", "10"]));
    let entries: Vec<Value> = r
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(entries.len(), 1, "judged more than once: {}", r.stdout());
    assert_eq!(entries[0]["tier"], "routine", "{}", entries[0]);
}
