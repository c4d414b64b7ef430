//! The `automode` command line as a new user meets it: help for every
//! command, completions and the man page, clear errors, `check
//! --exit-code`, local times, `setup --undo`, Claude Code's rule spelling,
//! rule diagnostics, the rule a block suggests, and asks among the
//! denials.

use std::process::Command;

use serde_json::{Value, json};

use crate::support::{Env, run};

const BLOCKED: i32 = 121;

/// Every subcommand `automode --help` lists.
fn subcommands(env: &Env) -> Vec<String> {
    let r = run(env.automode().arg("--help"));
    assert_eq!(r.code(), Some(0));
    let words: Vec<String> = r
        .stdout()
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|w| w != "automode" && w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect();
    assert!(words.len() >= 20, "{words:?}");
    words
}

#[test]
fn every_command_explains_itself() {
    let env = Env::new();
    for sub in subcommands(&env) {
        for args in [vec![sub.as_str(), "--help"], vec!["help", sub.as_str()]] {
            let r = run(env.automode().args(&args));
            assert_eq!(r.code(), Some(0), "{args:?}: {}", r.stderr());
            assert!(
                r.stdout().starts_with(&format!("usage: automode {sub}")),
                "{args:?}: {}",
                r.stdout()
            );
        }
    }
    let r = run(env.automode().arg("--version"));
    assert!(r.stdout().starts_with("automode "), "{}", r.stdout());
    assert!(r.stdout().contains("commit"), "{}", r.stdout());
    let r = run(env.automode().args(["frobnicate", "x"]));
    assert_eq!(r.code(), Some(2));
    assert!(
        r.stderr().contains("unknown command 'frobnicate'"),
        "{}",
        r.stderr()
    );
    let r = run(env
        .automode()
        .args(["check", "--cwd", "/no/such/dir", "true"]));
    assert_eq!(r.code(), Some(2));
    assert!(r.stderr().contains("no such directory"), "{}", r.stderr());
}

#[test]
fn completions_and_the_man_page_are_well_formed() {
    let env = Env::new();
    let r = run(env.automode().args(["completions", "bash"]));
    assert_eq!(r.code(), Some(0));
    let file = env.root().join("automode.bash");
    std::fs::write(&file, r.stdout()).unwrap();
    // The real bash parses it and completes a subcommand from it.
    let probe = format!(
        "source {}; COMP_WORDS=(automode doc); COMP_CWORD=1; _automode; echo \"${{COMPREPLY[@]}}\"",
        file.display()
    );
    let out = Command::new(crate::support::real_bash())
        .args(["-c", &probe])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "doctor",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let probe = format!(
        "source {}; COMP_WORDS=(automode setup c); COMP_CWORD=2; _automode; echo \"${{COMPREPLY[@]}}\"",
        file.display()
    );
    let out = Command::new(crate::support::real_bash())
        .args(["-c", &probe])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("claude-code"));
    for shell in ["zsh", "fish"] {
        let r = run(env.automode().args(["completions", shell]));
        assert_eq!(r.code(), Some(0));
        assert!(r.stdout().contains("approve"), "{shell}");
    }
    assert_eq!(
        run(env.automode().args(["completions", "tcsh"])).code(),
        Some(2)
    );
    let r = run(env.automode().arg("man"));
    assert!(r.stdout().starts_with(".TH AUTOMODE 1"), "{}", r.stdout());
    assert!(r.stdout().contains(".B automode approve"));
}

#[test]
fn check_exit_code_and_json_views() {
    let env = Env::new();
    for (script, want) in [("ls", 0), ("rm -rf ~", 1), ("vercel deploy", 3)] {
        let r = run(env.automode().args(["check", "--exit-code", script]));
        assert_eq!(r.code(), Some(want), "{script}: {}", r.stdout());
    }
    let asked = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"permissions": {"ask": ["bash(touch *)"]}}"#,
    );
    assert_eq!(
        run(asked.automode().args(["check", "--exit-code", "touch x"])).code(),
        Some(1)
    );
    for sub in ["defaults", "model"] {
        let r = run(env.automode().args([sub, "--json"]));
        assert_eq!(r.code(), Some(0), "{sub}");
        let _: Value = serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("{sub}: {e}"));
    }
}

#[test]
fn log_and_denials_speak_local_time_and_count_asks() {
    let env = Env::new().with_env("TZ", "UTC").with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"permissions": {"ask": ["bash(touch asked*)"]}}"#,
    );
    run(&mut env.script("true"));
    run(&mut env.script("touch asked.txt"));
    run(&mut env.script("vercel deploy"));
    let r = run(env.automode().args(["log", "-n", "5"]));
    let first = r.stdout().lines().next().unwrap_or("").to_string();
    // `[2026-12-02 03:04:05 +0000] …`
    assert!(
        first.starts_with("[20") && first[1..26].contains(" +0000"),
        "{first}"
    );
    let r = run(env.automode().args(["log", "--json", "-n", "5"]));
    let v: Value = serde_json::from_str(r.stdout().lines().next().unwrap()).unwrap();
    assert!(v["at"].is_u64(), "{v}");
    // The ask rule's ask and the review's ask are both among the denials.
    let r = run(env.automode().args(["denials", "--json"]));
    let d: Value = serde_json::from_str(&r.stdout()).unwrap();
    let rules: Vec<&str> = d
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x["denial"]["rule"].as_str())
        .collect();
    assert!(rules.contains(&"bash(touch asked*)"), "{rules:?}");
    assert!(rules.contains(&"no-classifier"), "{rules:?}");
    // The counters agree with the audit log.
    let r = run(env.automode().args(["log", "--json", "-n", "50"]));
    let logged: Vec<String> = r
        .stdout()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["decision"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    let count = |d: &str| logged.iter().filter(|x| *x == d).count();
    assert_eq!((count("allow"), count("ask")), (1, 2), "{logged:?}");
    let r = run(env.automode().args(["status", "--json"]));
    let s: Value = serde_json::from_str(&r.stdout()).unwrap();
    let session = &s["sessions"][0];
    assert_eq!(session["checked"], 3, "{session}");
    assert_eq!(session["allowed"], 1);
    assert_eq!(session["asked"], 2);
}

#[test]
fn claude_codes_rules_work_and_a_rule_automode_does_not_understand_is_named() {
    let dir = Env::new();
    let cfg = dir.root().join("config/automode");
    std::fs::create_dir_all(&cfg).unwrap();
    std::fs::write(
        cfg.join("config.json"),
        "{\n  \"permissions\": {\n    \"allow\": [\"Bash(npx cowsay:*)\", \"npx lolcat*\"],\n    \"deny\": [\"Bash(git push:*)\"]\n  }\n}\n",
    )
    .unwrap();
    let r = run(dir.automode().args(["check", "npx cowsay hello"]));
    assert!(
        r.stdout().starts_with("decision: allow (allow-rule tier"),
        "{}",
        r.stdout()
    );
    let r = run(dir.automode().args(["check", "git push origin main"]));
    assert!(
        r.stdout().starts_with("decision: deny (deny-rule tier"),
        "{}",
        r.stdout()
    );
    let r = run(dir.automode().args(["check", "git pushx"]));
    assert!(
        !r.stdout().starts_with("decision: deny (deny-rule"),
        "{}",
        r.stdout()
    );
    let r = run(dir.automode().arg("config"));
    assert!(
        r.stdout()
            .contains("config.json:3: permissions.allow rule \"npx lolcat*\" is not understood"),
        "{}",
        r.stdout()
    );
    let r = run(dir.automode().arg("doctor"));
    assert!(r.stdout().contains("npx lolcat*"), "{}", r.stdout());
}

#[test]
fn a_review_names_the_rule_that_allows_it_next_time() {
    let env = Env::new();
    let r = run(&mut env.script("vercel deploy --prod"));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(
        r.stderr()
            .contains("`automode allow --last` allows \"bash(vercel deploy *)\""),
        "{}",
        r.stderr()
    );
    // Following it works.
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        &json!({"permissions": {"allow": ["bash(vercel deploy *)"]}}).to_string(),
    );
    let r = run(env.automode().args(["check", "vercel deploy --prod"]));
    assert!(r.stdout().starts_with("decision: allow"), "{}", r.stdout());
    // Never a blanket rule for an interpreter or a shell.
    let r = run(&mut Env::new().script("python3 -c 'import os; os.system(\"vercel x\")'"));
    assert!(!r.stderr().contains("bash(python3 *)"), "{}", r.stderr());
    let r = run(&mut Env::new().script("sudo vercel deploy"));
    assert!(
        !r.stderr().contains("permissions.allow in"),
        "{}",
        r.stderr()
    );
    // Not for what the catalogue denies.
    let r = run(&mut env.script("rm -rf ~"));
    assert!(
        !r.stderr().contains("permissions.allow in"),
        "{}",
        r.stderr()
    );
}

#[test]
fn setup_undo_takes_out_only_what_write_added() {
    let env = Env::new();
    let settings = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, r#"{"model": "opus", "env": {"FOO": "1"}}"#).unwrap();
    let shim = env.shims.join("bash").display().to_string();
    let r = run(env
        .automode()
        .args(["setup", "claude-code", "--write", "--shim", &shim]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v["env"]["CLAUDE_CODE_SHELL"], shim.as_str());
    // A later edit of the user's own stays.
    let mut v2 = v.clone();
    v2["theme"] = json!("dark");
    std::fs::write(&settings, v2.to_string()).unwrap();
    let r = run(env.automode().args(["setup", "claude-code", "--undo"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        v,
        json!({"model": "opus", "env": {"FOO": "1"}, "theme": "dark"})
    );
    let r = run(env.automode().args(["setup", "claude-code", "--undo"]));
    assert!(r.stdout().contains("nothing to undo"), "{}", r.stdout());
    // A value changed since is kept.
    run(env
        .automode()
        .args(["setup", "pi", "--write", "--shim", &shim]));
    let pi = env.home.join(".pi/agent/settings.json");
    std::fs::write(&pi, r#"{"shellPath": "/bin/zsh"}"#).unwrap();
    let r = run(env.automode().args(["setup", "pi", "--undo"]));
    assert!(
        r.stdout().contains("kept (changed since)"),
        "{}",
        r.stdout()
    );
    assert!(std::fs::read_to_string(&pi).unwrap().contains("/bin/zsh"));
    // A file --write made is removed again when nothing else is in it.
    let oc = env.root().join("config/opencode/opencode.json");
    run(env
        .automode()
        .args(["setup", "opencode", "--write", "--shim", &shim]));
    assert!(oc.exists());
    let r = run(env.automode().args(["setup", "opencode", "--undo"]));
    assert!(!oc.exists(), "{}", r.stdout());
    // The user's only.
    let r = run(&mut Env::supervision_only().script(&format!(
        "{} setup pi --undo",
        crate::support::automode_bin().display()
    )));
    assert_eq!(r.code(), Some(BLOCKED));
}

#[test]
fn the_scripts_find_the_binary_where_cargo_builds_it() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let elsewhere = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(root.join("scripts/target-dir"))
        .env("CARGO_TARGET_DIR", elsewhere.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        elsewhere.path().display().to_string()
    );
    // score.py looks there by default (and says so when nothing is built).
    let out = std::process::Command::new("python3")
        .arg(root.join("scripts/score.py"))
        .env("CARGO_TARGET_DIR", elsewhere.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}/release/automode", elsewhere.path().display())),
        "{err}"
    );
}

#[test]
fn the_configuration_examples_load_or_say_where_they_are_wrong() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/data/config-examples.jsonl")).unwrap();
    let env = Env::new();
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let r = run(env
            .automode()
            .arg("config")
            .env("AUTOMODE_SETTINGS_JSON", case["config"].to_string()));
        if case["valid"] == true {
            assert_eq!(r.code(), Some(0), "{}: {}", case["what"], r.stderr());
        } else {
            assert_ne!(r.code(), Some(0), "{}", case["what"]);
            assert!(
                r.stderr().contains("AUTOMODE_SETTINGS_JSON:1:"),
                "{}: {}",
                case["what"],
                r.stderr()
            );
        }
    }
}

/// `automode allow`: the rule suggested for the last review, added to the
/// global file with its diff, lets that command run; a rule automode does
/// not understand is refused; the agent cannot run it; --remove takes it
/// out again.
#[test]
fn allow_adds_the_suggested_rule_and_the_command_then_runs() {
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"checkpoint": {"enabled": false}}"#,
    );
    std::fs::write(env.work.join("old.txt"), "kept\n").unwrap();
    let r = run(&mut env.script("rm old.txt"));
    assert_eq!(r.code(), Some(121), "{}", r.stderr());
    let r = run(env.automode().args(["allow", "--last"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(
        r.stdout().contains("+      \"bash(rm old.txt:*)\""),
        "{}",
        r.stdout()
    );
    let file = env.root().join("config/automode/config.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["permissions"]["allow"], json!(["bash(rm old.txt:*)"]));
    let r = run(&mut env.script("rm old.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(!env.work.join("old.txt").exists());
    // Not understood: refused, the file unchanged.
    let r = run(env.automode().args(["allow", "bash(unclosed"]));
    assert_eq!(r.code(), Some(1));
    assert!(
        r.stderr().contains("not a rule automode understands"),
        "{}",
        r.stderr()
    );
    // The agent cannot allow itself.
    let inside = format!(
        "{} allow 'bash(curl *)'",
        crate::support::automode_bin().display()
    );
    let r = run(env.script(&inside).env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}}"#,
    ));
    assert_eq!(r.code(), Some(121), "{}", r.stderr());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["permissions"]["allow"], json!(["bash(rm old.txt:*)"]));
    let r = run(env
        .automode()
        .args(["allow", "--remove", "bash(rm old.txt:*)"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["permissions"]["allow"], json!([]));
}

/// `automode denials` lists what the sandbox refused a command that ran
/// (issue 24), beside what the policy refused.
#[test]
fn denials_include_what_the_sandbox_refused() {
    if !crate::support::landlock_or_skip("denials: sandbox refusals") {
        return;
    }
    let env = Env::new().with_env("AUTOMODE_SESSION", "refusals");
    std::fs::write(
        env.work.join("t.py"),
        "import os\nopen(os.path.expanduser('~') + '/outside.txt', 'w').write('x')\n",
    )
    .unwrap();
    let r = run(&mut env.script("python3 t.py"));
    assert_ne!(r.code(), Some(0), "{}", r.stderr());
    assert!(!env.home.join("outside.txt").exists());
    let r = run(env
        .automode()
        .args(["denials", "--json", "--session", "refusals"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let v: Value = serde_json::from_str(&r.stdout()).unwrap();
    let text = v.to_string();
    assert!(text.contains("\"sandbox-refusal\""), "{text}");
    assert!(text.contains("outside.txt"), "{text}");
    assert!(text.contains("python3 t.py"), "{text}");
}
