//! Wrapper recognition on every wrapper recorded from the real harnesses
//! (scripts/e2e/fixtures), and on forged variants, which must never be
//! judged more leniently than the same text without a wrapper.

use std::path::{Path, PathBuf};

use super::*;

const HOME: &str = "/home/test";
const SHIM: &str = "/opt/automode/share/automode/shims/bash";

fn places() -> Places {
    Places {
        home: Some(PathBuf::from(HOME)),
        claude_dir: Some(PathBuf::from(HOME).join(".claude")),
        codex_home: Some(PathBuf::from(HOME).join(".codex")),
        shims: vec![PathBuf::from(SHIM)],
        pi_prefix: None,
        tmpdir: None,
    }
}

fn fill(s: &str) -> String {
    s.replace("{SHIM}", SHIM)
        .replace("{HOME}", HOME)
        .replace("{PROJECT}", "/home/test/project")
        .replace("{HARNESS_PKG}", "/opt/harness")
}

/// Every recorded invocation: (file, kind, script, payload).
fn fixtures() -> Vec<(String, String, String, Option<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/e2e/fixtures");
    let mut out = Vec::new();
    for harness in ["claude", "codex", "gemini", "pi"] {
        let Ok(dir) = std::fs::read_dir(root.join(harness)) else {
            continue;
        };
        for f in dir.flatten() {
            let text = std::fs::read_to_string(f.path()).unwrap_or_default();
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            let Some(argv) = v["argv"].as_array() else {
                continue;
            };
            let Some(script) = argv.last().and_then(|s| s.as_str()) else {
                continue;
            };
            out.push((
                f.file_name().to_string_lossy().into_owned(),
                format!("{harness}/{}", v["kind"].as_str().unwrap_or("")),
                fill(script),
                v["payload"].as_str().map(fill),
            ));
        }
    }
    out
}

#[test]
fn finds_the_payload_of_every_recorded_wrapper() {
    let fx = fixtures();
    assert!(fx.len() > 30, "{}", fx.len());
    let mut wrapped = 0;
    for (file, kind, script, payload) in &fx {
        let got = recognize(script, &places());
        // CLAUDE_CODE_SHELL_PREFIX runs `<prefix> '<wrapper>'`: the prefix
        // program, not this shell, receives the wrapper (not supported).
        if file.starts_with("prefix-") {
            continue;
        }
        let expect_wrapper = matches!(
            kind.as_str(),
            "claude/wrapped" | "codex/wrapper" | "gemini/wrapped"
        ) || kind.starts_with("claude/nosnap-wrapped")
            || kind.starts_with("claude/envfile");
        if expect_wrapper {
            let w = got.unwrap_or_else(|| panic!("{file} ({kind}) not recognised:\n{script}"));
            assert_eq!(Some(&w.payload), payload.as_ref(), "{file}");
            wrapped += 1;
        } else if let Some(w) = got {
            // Raw commands: if anything matched, it must be the payload.
            assert_eq!(Some(&w.payload), payload.as_ref(), "{file} ({kind})");
        }
    }
    assert!(wrapped >= 15, "{wrapped}");
}

#[test]
fn env_file_text_is_judged_with_the_payload() {
    let script = fill(
        "source {HOME}/.claude/shell-snapshots/snapshot-bash-1796020807179-67hz4v.sh 2>/dev/null || true && export E2E_HOOKVAR=x\n: && \\builtin shopt -u extglob 2>/dev/null || true && eval ls < /dev/null && pwd -P >| /tmp/claude-5001-cwd",
    );
    let w = recognize(&script, &places()).unwrap_or_else(|| panic!("not recognised"));
    assert_eq!(w.payload, "ls");
    assert_eq!(w.extra.as_deref(), Some("export E2E_HOOKVAR=x"));
    assert!(w.judged().contains("export E2E_HOOKVAR=x"));
    assert!(w.snapshot.is_some());
}

#[test]
fn forged_wrappers_are_never_more_lenient() {
    let p = places();
    // Scaffolding that runs something: judged with the payload.
    let w = recognize("rm -rf ~ && \\builtin shopt -u extglob 2>/dev/null || true && eval ls < /dev/null && pwd -P >| /tmp/claude-1234-cwd", &p)
        .unwrap_or_else(|| panic!("shape"));
    assert!(w.judged().contains("rm -rf ~"), "{w:?}");
    // A snapshot outside the pinned place: judged (not trusted).
    let w = recognize("source /tmp/evil.sh 2>/dev/null || true && eval ls < /dev/null && pwd -P >| /tmp/claude-1234-cwd", &p)
        .unwrap_or_else(|| panic!("shape"));
    assert!(
        w.snapshot.is_none() && w.judged().contains("/tmp/evil.sh"),
        "{w:?}"
    );
    let w = recognize(&fill("source {HOME}/.claude/shell-snapshots/../../.bashrc 2>/dev/null || true && eval ls < /dev/null && pwd -P >| /tmp/claude-1234-cwd"), &p)
        .unwrap_or_else(|| panic!("shape"));
    assert!(w.snapshot.is_none() && w.extra.is_some());
    // eval of a dynamic word, a cwd file elsewhere, extra statements
    // after the eval: not the template, judged whole.
    for script in [
        "eval \"$X\" < /dev/null && pwd -P >| /tmp/claude-1234-cwd",
        "eval ls < /dev/null && pwd -P >| /home/test/.bashrc",
        "eval ls < /dev/null && pwd -P >| /tmp/claude-1234-cwd && rm -rf ~",
        "eval ls < /dev/null & pwd -P >| /tmp/claude-1234-cwd",
        "eval ls < /dev/null || pwd -P >| /tmp/claude-1234-cwd",
    ] {
        assert!(recognize(script, &p).is_none(), "{script}");
    }
    // Codex: exec of another program, or a line outside the template.
    let codex_ok = format!(
        "__CODEX_SNAPSHOT_OVERRIDE_SET_0=\"${{CODEX_THREAD_ID+x}}\"\n\nexec '{SHIM}' -c 'ls'"
    );
    assert_eq!(
        recognize(&codex_ok, &p).map(|w| w.payload),
        Some("ls".into())
    );
    for script in [
        "__CODEX_SNAPSHOT_OVERRIDE_SET_0=\"${CODEX_THREAD_ID+x}\"\n\nexec '/usr/bin/bash' -c 'ls'"
            .to_string(),
        format!(
            "__CODEX_SNAPSHOT_OVERRIDE_SET_0=\"${{CODEX_THREAD_ID+x}}\"\nrm -rf ~\nexec '{SHIM}' -c 'ls'"
        ),
        format!("__CODEX_SNAPSHOT_OVERRIDE_SET_0=\"$(rm -rf ~)\"\nexec '{SHIM}' -c 'ls'"),
        format!("if . '/tmp/evil.sh' >/dev/null 2>&1; then :; fi\nexec '{SHIM}' -c 'ls'"),
        format!(
            "__CODEX_SNAPSHOT_OVERRIDE_SET_0=\"${{CODEX_THREAD_ID+x}}\"\nexec '{SHIM}' -c 'ls'; rm -rf ~"
        ),
    ] {
        assert!(recognize(&script, &p).is_none(), "{script}");
    }
    // Gemini: a payload that escapes the subshell.
    let escape = "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=/tmp/gemini-shell-x/bgpids.tmp\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\nls\n)\nrm -rf ~\n(\n)\n__code=$?\nexit $__code";
    assert!(recognize(escape, &p).is_none());
}
