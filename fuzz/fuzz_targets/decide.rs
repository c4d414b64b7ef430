//! Fuzz target: the whole decision of a script, as `automode check` makes
//! it (analysis → policy → sandbox plan), under a fixed configuration in a
//! temp home and project. Never a panic; never an allow of a script the
//! analysis marked opaque; an allowed command always has an enforced
//! plan, never a lifted sandbox (only the user lifts it).
#![no_main]

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

use automode::context::{Context, Workspace};
use automode::judge::{self, Judge, Origin, Switches};
use automode::policy::Decision;
use automode::shell;
use libfuzzer_sys::fuzz_target;

struct Fixed {
    ctx: Context,
    judge: Judge,
    cwd: PathBuf,
}

fn fixed() -> &'static Fixed {
    static FIXED: OnceLock<Fixed> = OnceLock::new();
    FIXED.get_or_init(|| {
        // Not under /tmp: a home there is a case of its own (the sandbox
        // leaves /tmp out).
        let root = std::path::Path::new("/var/tmp").join(format!("automode-fuzz-decide-{}", std::process::id()));
        let (home, cwd) = (root.join("home"), root.join("work"));
        for d in [home.join(".ssh"), home.join(".config/automode"), cwd.join(".git/hooks"), cwd.join("src"), cwd.join("target")] {
            std::fs::create_dir_all(&d).expect("fixture");
        }
        std::fs::write(home.join(".bashrc"), "# rc\n").expect("fixture");
        std::fs::write(cwd.join("src/main.rs"), "fn main() {}\n").expect("fixture");
        std::fs::write(
            home.join(".config/automode/config.json"),
            r#"{"permissions": {"allow": ["Bash(make *)"], "deny": ["Bash(git push --force*)"], "ask": ["Bash(npm publish*)"]},
                "deniedPaths": ["~/secrets"], "autoMode": {"classifierModel": "none"}}"#,
        )
        .expect("fixture");
        let env: Vec<(OsString, OsString)> = [
            ("HOME", home.display().to_string()),
            ("PATH", "/usr/local/bin:/usr/bin:/bin".to_string()),
            ("XDG_STATE_HOME", root.join("state").display().to_string()),
            ("LANG", "C.UTF-8".to_string()),
            ("AUTOMODE_SESSION", "fuzz".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .collect();
        let ctx = Context {
            argv0: OsString::from("automode"),
            args: Vec::new(),
            env,
            workspace: Workspace::of(&cwd),
            stdin_is_tty: false,
            exe: None,
            started: std::time::Instant::now(),
            now: std::time::SystemTime::now(),
        };
        let judge = Judge::load(&ctx, &cwd, Switches::Global).expect("the fixed configuration loads");
        Fixed { ctx, judge, cwd }
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let f = fixed();
    let text = String::from_utf8_lossy(data);
    let decided = f.judge.judge(
        &f.ctx,
        &judge::Request {
            origin: Origin::Check { classify: false },
            script: &text,
            cwd: &f.cwd,
            positional: shell::Positional {
                dollar0: "bash".into(),
                args: vec!["a b".into()],
            },
            max_bytes: shell::MAX_COMMAND_BYTES,
            dialect: shell::Dialect::Bash,
            trust_env: true,
            terminal: false,
            undecodable: judge::undecodable(data, None, &[]),
        },
    );
    let v = &decided.verdict;
    let opaque = decided.analysis.as_ref().is_none_or(|a| a.opaque.is_some());
    if v.decision == Decision::Allow {
        assert!(!opaque, "allowed an opaque script: {text:?}: {v:?}");
        let sandbox = decided.sandbox.as_ref().expect("check decides a sandbox");
        assert!(sandbox.lifted.is_none(), "lifted without the user: {text:?}");
        if sandbox.status.enforced() {
            assert!(sandbox.plan.is_some(), "enforced without a plan: {text:?}");
        }
    }
    // The judge never runs anything: nothing here may have a ruleset
    // error for a plan it built.
    if let Some(s) = &decided.sandbox
        && let Some(Err(why)) = &s.ruleset
    {
        panic!("the ruleset failed: {why}");
    }
    // The paths a ruleset holds open are closed once a command starts;
    // nothing starts here.
    drop(decided);
    automode::sandbox::rules::release_held();
});
