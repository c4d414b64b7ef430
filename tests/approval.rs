//! Approvals out of band (`automode approve`, the ask command), the
//! classifier taken from the environment, the managed policy and
//! `automode doctor`, through the real binary. Loopback only.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::llm::{MockLlm, an_text, oa_text};
use crate::support::{Env, automode_bin, run};

const BLOCKED: i32 = 121;

/// An ask rule for `touch asked*`, the classifier off on purpose (an
/// approval then stands alone), one session.
fn asking(extra: Value) -> Env {
    let mut settings = json!({
        "permissions": {"ask": ["bash(touch asked*)"]},
        "autoMode": {"classifierModel": "none"}
    });
    if let (Some(s), Value::Object(e)) = (settings["autoMode"].as_object_mut(), extra) {
        s.extend(e);
    }
    Env::new()
        .with_env("AUTOMODE_SETTINGS_JSON", &settings.to_string())
        .with_env("AUTOMODE_SESSION", "approval-test")
}

/// The code in a block message: `automode approve XXXX-XX`.
fn code_in(stderr: &str) -> String {
    let at = stderr
        .find("automode approve ")
        .unwrap_or_else(|| panic!("no code in: {stderr}"));
    stderr[at + "automode approve ".len()..][..7].to_string()
}

/// Run it through the shim: blocked, with a code.
fn blocked_code(env: &Env, script: &str) -> String {
    let r = run(&mut env.script(script));
    assert_eq!(r.code(), Some(BLOCKED), "{script}: {}", r.stderr());
    assert!(
        r.stderr().contains("needs the user's approval"),
        "{}",
        r.stderr()
    );
    assert!(
        r.stderr().contains("do not retry it until"),
        "{}",
        r.stderr()
    );
    code_in(&r.stderr())
}

fn approve(env: &Env, args: &[&str]) -> crate::support::Run {
    run(env.automode().arg("approve").args(args))
}

#[test]
fn an_approved_ask_runs_once_and_only_exactly_that_command() {
    let env = asking(json!({}));
    let code = blocked_code(&env, "touch asked.txt");
    assert!(!env.work.join("asked.txt").exists());
    // The same command again waits under the same code.
    assert_eq!(blocked_code(&env, "touch asked.txt"), code);
    // The user sees it.
    let r = approve(&env, &[]);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains(&code), "{}", r.stdout());
    assert!(r.stdout().contains("touch asked.txt"), "{}", r.stdout());
    assert!(r.stdout().contains("approval-test"), "{}", r.stdout());
    // The agent cannot approve itself: the policy denies it, and with the
    // policy off automode sees the shim among its ancestors.
    let inside = format!("{} approve {code}", automode_bin().display());
    let r = run(&mut env.script(&inside));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(r.stderr().contains("automode-command"), "{}", r.stderr());
    let r = run(env.script(&inside).env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}}"#,
    ));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains("only the user may run it"),
        "{}",
        r.stderr()
    );
    // The user approves from their own terminal.
    let r = approve(&env, &[&code.to_lowercase()]);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("approved"), "{}", r.stdout());
    // Anything but exactly that command does not match.
    let other = blocked_code(&env, "touch asked2.txt");
    assert_ne!(other, code);
    std::fs::create_dir(env.work.join("sub")).unwrap();
    let r = run(env
        .script("touch asked.txt")
        .current_dir(env.work.join("sub")));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    let r = run(env
        .script("touch asked.txt")
        .env("AUTOMODE_SESSION", "another"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    let missed = format!(
        "the approval {code} of this command does not apply here: it was given in session approval-test"
    );
    assert!(r.stderr().contains(&missed), "{}", r.stderr());
    assert!(!env.work.join("sub/asked.txt").exists());
    // Exactly that command runs, once.
    let r = run(&mut env.script("touch asked.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(env.work.join("asked.txt").exists());
    let again = blocked_code(&env, "touch asked.txt");
    assert_ne!(again, code, "a used approval is gone");
    let r = approve(&env, &[&code]);
    assert_eq!(r.code(), Some(1));
    assert!(r.stderr().contains("no pending ask"), "{}", r.stderr());
    // The audit log names the approval.
    let r = run(env.automode().args(["log", "--json", "-n", "50"]));
    assert!(
        r.stdout().contains(&format!("\"code\":\"{code}\"")),
        "{}",
        r.stdout()
    );
}

#[test]
fn a_changed_policy_or_directory_expiry_and_refusal_do_not_run_it() {
    // A changed configuration.
    let env = asking(json!({}));
    let code = blocked_code(&env, "touch asked.txt");
    assert_eq!(approve(&env, &[&code]).code(), Some(0));
    std::fs::create_dir_all(env.root().join("config/automode")).unwrap();
    std::fs::write(
        env.root().join("config/automode/config.json"),
        r#"{"permissions": {"deny": ["bash(wget *)"]}}"#,
    )
    .unwrap();
    blocked_code(&env, "touch asked.txt");
    assert!(!env.work.join("asked.txt").exists());
    // The same path, but a directory made again.
    let env = asking(json!({}));
    let dir = env.work.join("d");
    std::fs::create_dir(&dir).unwrap();
    let r = run(env.script("touch asked.txt").current_dir(&dir));
    let code = code_in(&r.stderr());
    assert_eq!(approve(&env, &[&code]).code(), Some(0));
    std::fs::remove_dir(&dir).unwrap();
    std::fs::create_dir(&dir).unwrap();
    let r = run(env.script("touch asked.txt").current_dir(&dir));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    // Expired.
    // (Three seconds: on a loaded machine the approval itself may come a
    // second after the block.)
    let env = asking(json!({"approvalTtlSeconds": 3}));
    let code = blocked_code(&env, "touch asked.txt");
    assert_eq!(approve(&env, &[&code]).code(), Some(0));
    std::thread::sleep(Duration::from_millis(3100));
    blocked_code(&env, "touch asked.txt");
    let late = blocked_code(&env, "touch asked.txt");
    std::thread::sleep(Duration::from_millis(3100));
    let r = approve(&env, &[&late]);
    assert_eq!(r.code(), Some(1), "{}", r.stdout());
    assert!(!env.work.join("asked.txt").exists());
    // A script the command runs, rewritten after the approval.
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"permissions": {"ask": ["bash(sh ./job.sh*)"]}, "autoMode": {"classifierModel": "none"}}"#,
        )
        .with_env("AUTOMODE_SESSION", "s");
    std::fs::write(env.work.join("job.sh"), "touch ran-v1\n").unwrap();
    let code = blocked_code(&env, "sh ./job.sh");
    assert_eq!(approve(&env, &[&code]).code(), Some(0));
    std::fs::write(env.work.join("job.sh"), "touch ran-v2\n").unwrap();
    let r = run(&mut env.script("sh ./job.sh"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains("a file it runs, changed since"),
        "{}",
        r.stderr()
    );
    assert!(!env.work.join("ran-v2").exists());
    // Refused: the retry is told so.
    let env = asking(json!({}));
    let code = blocked_code(&env, "touch asked.txt");
    assert_eq!(approve(&env, &["--deny", &code]).code(), Some(0));
    let r = run(&mut env.script("touch asked.txt"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(r.stderr().contains("the user refused"), "{}", r.stderr());
    assert!(!env.work.join("asked.txt").exists());
}

#[test]
fn an_approved_ask_still_meets_the_deny_checks_and_the_classifier() {
    // A hard-deny check after the ask rule.
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"permissions": {"ask": ["bash(echo *)"]}, "autoMode": {"classifierModel": "none"}}"#,
        )
        .with_env("AUTOMODE_SESSION", "s");
    let code = blocked_code(&env, "echo x >> ~/.bashrc");
    assert_eq!(approve(&env, &[&code]).code(), Some(0));
    let r = run(&mut env.script("echo x >> ~/.bashrc"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(r.stderr().contains("profile-write"), "{}", r.stderr());
    assert!(!env.home.join(".bashrc").exists());
    // With a classifier: the approved ask goes to it (and skips the allow
    // tiers: `touch` alone would be routine).
    for (reply, runs) in [
        (oa_text("0", "stop"), true),
        (crate::support::llm::Reply::status(500, "x"), false),
    ] {
        let mock = MockLlm::start(vec![reply]);
        let mut settings: Value =
            serde_json::from_str(&crate::classifier::settings(&mock, "openai", json!({}))).unwrap();
        settings["permissions"] = json!({"ask": ["bash(touch asked*)"]});
        let env = Env::new()
            .with_env("AUTOMODE_SETTINGS_JSON", &settings.to_string())
            .with_env("MOCK_KEY", "k")
            .with_env("AUTOMODE_SESSION", "s");
        let code = blocked_code(&env, "touch asked.txt");
        assert!(
            mock.requests().is_empty(),
            "an ask does not go to the classifier first"
        );
        assert_eq!(approve(&env, &[&code]).code(), Some(0));
        let r = run(&mut env.script("touch asked.txt"));
        assert_eq!(mock.requests().len(), 1, "{}", r.stderr());
        assert_eq!(env.work.join("asked.txt").exists(), runs, "{}", r.stderr());
        if !runs {
            assert!(r.stderr().contains("classifier failure"), "{}", r.stderr());
        }
    }
}

#[test]
fn after_three_classifier_failures_the_user_is_the_reviewer() {
    use crate::support::llm::Reply;
    let mock = MockLlm::start(vec![
        Reply::status(500, "x"),
        Reply::status(500, "x"),
        Reply::status(500, "x"),
    ]);
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            &crate::classifier::settings(&mock, "openai", json!({})),
        )
        .with_env("MOCK_KEY", "k")
        .with_env("AUTOMODE_SESSION", "s");
    for _ in 0..2 {
        let r = run(&mut env.script("printenv > printed.txt"));
        assert!(r.stderr().contains("classifier failure"), "{}", r.stderr());
    }
    let code = blocked_code(&env, "printenv > printed.txt");
    assert_eq!(approve(&env, &[&code]).code(), Some(0));
    let r = run(&mut env.script("printenv > printed.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(env.work.join("printed.txt").exists());
    assert_eq!(
        mock.requests().len(),
        3,
        "the user reviewed it, not the classifier"
    );
}

#[test]
fn without_a_classifier_the_user_reviews() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "s");
    let r = run(&mut env.script("vercel deploy > made.txt"));
    assert_eq!(r.code(), Some(BLOCKED));
    let msg = r.stderr();
    assert!(msg.contains("No classifier is configured"), "{msg}");
    assert!(
        msg.contains("automode model anthropic/claude-haiku-4-5"),
        "{msg}"
    );
    assert!(msg.contains("ANTHROPIC_API_KEY"), "{msg}");
    // Short, and the set-up advice once a session.
    let r = run(&mut env.script("vercel deploy --prod > made.txt"));
    let again = r.stderr();
    assert!(!again.contains("No classifier is configured"), "{again}");
    assert!(again.contains("automode approve "), "{again}");
    assert!(again.len() <= 520, "{} characters: {again}", again.len());
    let code = code_in(&msg);
    assert_eq!(approve(&env, &[&code]).code(), Some(0));
    // `vercel` is not installed: it ran (the real shell says so) and
    // its output went to the file.
    let r = run(&mut env.script("vercel deploy > made.txt"));
    assert_eq!(r.code(), Some(127), "{}", r.stderr());
    assert!(env.work.join("made.txt").exists());
    // Off on purpose: said so.
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"classifierModel": "none"}}"#,
    );
    let r = run(&mut env.script("vercel deploy"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(r.stderr().contains("off on purpose"), "{}", r.stderr());
}

/// An ask command: a script that records its input and prints `answer`
/// after `delay` seconds.
fn ask_script(env: &Env, answer: &str, delay: u32) -> String {
    let path = env
        .root()
        .join(format!("ask-{}.sh", answer.len() + delay as usize));
    let got = env.root().join("got.json");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\ncat > '{}'\nsleep {delay}\nprintf '%s\\n' '{answer}'\n",
            got.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

#[test]
fn the_ask_command_answers_at_once_and_anything_but_allow_refuses() {
    for (answer, delay, runs) in [
        ("allow", 0, true),
        ("deny", 0, false),
        ("sure!", 0, false),
        ("allow", 5, false),
    ] {
        let probe = Env::new();
        let script = ask_script(&probe, answer, delay);
        let env = asking(json!({"askCommand": script, "askTimeoutSeconds": 1}));
        let r = run(&mut env.script("touch asked.txt"));
        assert_eq!(
            env.work.join("asked.txt").exists(),
            runs,
            "{answer}/{delay}: {}",
            r.stderr()
        );
        if runs {
            assert_eq!(r.code(), Some(0), "{}", r.stderr());
        } else {
            assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
            assert!(r.stderr().contains("refused"), "{}", r.stderr());
            assert!(
                r.secs() < 4.0,
                "a slow ask command is cut at its timeout: {}",
                r.secs()
            );
        }
        let got: Value =
            serde_json::from_str(&std::fs::read_to_string(probe.root().join("got.json")).unwrap())
                .unwrap();
        assert_eq!(got["script"], "touch asked.txt");
        assert!(
            got["approve"]
                .as_str()
                .unwrap()
                .starts_with("automode approve ")
        );
    }
}

#[test]
fn a_key_in_the_environment_chooses_the_classifier_and_says_so_once() {
    let mock = MockLlm::start(vec![an_text("0", "end_turn"), an_text("0", "end_turn")]);
    let env = Env::new()
        .with_env("ANTHROPIC_API_KEY", "sk-ant-test")
        .with_env("ANTHROPIC_BASE_URL", &mock.url)
        .with_env("AUTOMODE_SESSION", "env-classifier");
    let r = run(&mut env.script("printenv > printed.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(
        r.stderr()
            .contains("anthropic/claude-haiku-4-5 (from ANTHROPIC_API_KEY in the environment"),
        "{}",
        r.stderr()
    );
    let req = &mock.requests()[0];
    assert_eq!(req.header("x-api-key"), Some("sk-ant-test"));
    let r = run(&mut env.script("printenv > printed.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(
        !r.stderr().contains("reviewed by"),
        "once per session: {}",
        r.stderr()
    );
    // Shown where it matters, never the key.
    let r = run(env.automode().args(["config", "--json"]));
    let c: Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(c["classifier"]["model"], "anthropic/claude-haiku-4-5");
    assert_eq!(
        c["classifier"]["source"],
        "from ANTHROPIC_API_KEY in the environment"
    );
    assert_eq!(c["classifier"]["key_present"], true);
    assert!(!r.stdout().contains("sk-ant-test"));
    for sub in ["status", "model"] {
        let r = run(env.automode().arg(sub));
        assert!(
            r.stdout()
                .contains("from ANTHROPIC_API_KEY in the environment"),
            "{sub}: {}",
            r.stdout()
        );
    }
    let r = run(env.automode().args(["log", "--json", "-n", "5"]));
    assert!(
        r.stdout()
            .contains("\"model_source\":\"from ANTHROPIC_API_KEY in the environment\""),
        "{}",
        r.stdout()
    );
}

/// A managed policy in a root-owned directory, named for the debug build.
fn managed(env: Env, text: &str) -> (Env, std::path::PathBuf) {
    let dir = env.root().join("etc-automode");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let file = dir.join("managed.json");
    std::fs::write(&file, text).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let path = file.display().to_string();
    (env.with_env("AUTOMODE_TEST_MANAGED_PATH", &path), file)
}

#[test]
fn the_managed_policy_wins_locks_and_refuses_off() {
    let (env, file) = managed(
        Env::new(),
        r#"{"locked": ["permissions.allow", "autoMode.enabled"], "permissions": {"deny": ["bash(touch managed*)"]}, "autoMode": {"allowOff": false}}"#,
    );
    let user = env.root().join("config/automode");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("config.json"),
        r#"{"permissions": {"allow": ["bash(vercel *)"]}, "autoMode": {"enabled": false}}"#,
    )
    .unwrap();
    let r = run(&mut env.script("touch managed.txt"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains(&file.display().to_string()),
        "{}",
        r.stderr()
    );
    // The user's allow rule and their `enabled: false` do not hold.
    let r = run(&mut env.script("vercel deploy"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    let r = run(env.automode().arg("off"));
    assert_eq!(r.code(), Some(1));
    assert!(r.stderr().contains("refused"), "{}", r.stderr());
    let r = run(env.automode().arg("config"));
    assert!(
        r.stdout().contains("permissions.allow (locked)"),
        "{}",
        r.stdout()
    );
    assert!(
        r.stdout().contains(&format!(
            "permissions.allow is ignored: {} locks it",
            file.display()
        )),
        "{}",
        r.stdout()
    );
    // A locked limit is a ceiling the agent's script cannot raise.
    let (capped, _) = managed(
        Env::new(),
        r#"{"locked": ["timeoutSeconds"], "timeoutSeconds": 1}"#,
    );
    let r = run(&mut capped.script("AUTOMODE_TIMEOUT=30 sleep 41.09"));
    assert_eq!(r.code(), Some(124), "{}", r.stderr());
    assert!(r.secs() < 5.0, "{}", r.secs());
    crate::support::kill_all("sleep 41.09");
    // An agent's write to the managed policy is hard-denied (decided
    // while the policy is still valid, so the block is that rule's).
    let r = run(env
        .automode()
        .args(["check", "echo x > /etc/automode/managed.json"]));
    assert!(
        r.stdout()
            .starts_with("decision: deny (hard-deny tier, rule automode-tamper"),
        "{}",
        r.stdout()
    );
    // Writable by others: refused, and every command blocked until fixed.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    let r = run(&mut env.script("true"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(r.stderr().contains("writable by others"), "{}", r.stderr());
    let r = run(&mut env.script("echo x > /etc/automode/managed.json"));
    assert_eq!(r.code(), Some(BLOCKED));
}

#[test]
fn doctor_says_what_works_and_fails_on_a_broken_install() {
    let env = Env::new();
    let r = run(env.automode().args(["doctor", "--json"]));
    assert_eq!(r.code(), Some(0), "{}{}", r.stdout(), r.stderr());
    let d: Value = serde_json::from_str(&r.stdout()).unwrap();
    let level = |name: &str| {
        d["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .map(|c| c["level"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(level("shims").as_deref(), Some("ok"), "{d}");
    assert_eq!(level("real shell").as_deref(), Some("ok"));
    assert_eq!(level("state").as_deref(), Some("ok"));
    assert_eq!(level("classifier").as_deref(), Some("warn"));
    // The shims dir is first on PATH: Gemini CLI would run the shim.
    assert_eq!(level("harness gemini").as_deref(), Some("ok"));
    // The others are fine once one harness runs the shim.
    assert_eq!(level("harness claude-code").as_deref(), Some("ok"));
    assert!(d.to_string().contains("not set up"), "{d}");
    // --online: one tiny request to the (loopback) provider, timed.
    let mock = MockLlm::start(vec![oa_text("0", "stop")]);
    let online = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            &crate::classifier::settings(&mock, "openai", json!({})),
        )
        .with_env("MOCK_KEY", "k");
    let r = run(online.automode().args(["doctor", "--online"]));
    assert!(
        r.stdout().contains("classifier online: answered in"),
        "{}",
        r.stdout()
    );
    assert_eq!(mock.requests().len(), 1);
    // Broken: a configuration that does not parse, a classifier without
    // its key.
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"classifierModel": "openai/gpt-5-mini"}}"#,
    );
    let r = run(env.automode().arg("doctor"));
    assert_eq!(r.code(), Some(1), "{}", r.stdout());
    assert!(r.stdout().contains("FAIL  classifier"), "{}", r.stdout());
    let env = Env::new().with_env("AUTOMODE_SETTINGS_JSON", "{nope");
    let r = run(env.automode().arg("doctor"));
    assert_eq!(r.code(), Some(1));
    assert!(r.stdout().contains("FAIL  configuration"), "{}", r.stdout());
}

/// `git config --global` waits for the user and, approved, writes the
/// user's git configuration (git makes its lock file in the home itself,
/// which no other grant allows); a line that does more than set git's
/// settings gets no such grant, and the next command none either.
#[test]
fn an_approved_global_git_config_succeeds_and_grants_nothing_else() {
    if !crate::support::landlock_or_skip("global git config") {
        return;
    }
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"autoMode": {"classifierModel": "none"}}"#,
        )
        .with_env("AUTOMODE_SESSION", "git-global");
    let gitconfig = env.home.join(".gitconfig");
    let set = "git config --global user.email dev@example.com";
    let code = blocked_code(&env, set);
    assert_eq!(approve(&env, &[&code]).code(), Some(0));
    let r = run(&mut env.script(set));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let text = std::fs::read_to_string(&gitconfig).unwrap();
    assert!(text.contains("email = dev@example.com"), "{text}");
    // Approved, a line that also writes elsewhere in the home: git's
    // part has no grant on the home, and nothing is written there.
    let rc = env.home.join("notes.txt");
    let more = format!(
        "git config --global user.name Dev; echo evil > {}",
        rc.display()
    );
    let code = blocked_code(&env, &more);
    assert_eq!(approve(&env, &[&code]).code(), Some(0));
    let r = run(&mut env.script(&more));
    assert_ne!(r.code(), Some(0), "{}", r.stderr());
    assert!(!rc.exists());
    assert!(!std::fs::read_to_string(&gitconfig).unwrap().contains("Dev"));
    // The grant was that command's: the same setting again waits.
    let r = run(&mut env.script(set));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
}
