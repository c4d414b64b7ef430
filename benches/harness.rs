//! What judging a command inside a harness wrapper adds (not a timed
//! test): for every recorded Claude Code, Codex and Gemini CLI wrapper,
//! the median time to recognise it, read and parse the snapshot it
//! sources and resolve aliases, plus the extra analysis of the resolved
//! text over the raw payload. Target: <= 0.2 ms per call.
//! Run: `cargo bench --bench harness`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod support;
use support::median;

use automode::harness::{self, Places};
use automode::shell::{self, Dialect, Positional};

const SHIM: &str = "/opt/automode/share/automode/shims/bash";

fn analyse(script: &str) {
    let _ = shell::analyze(shell::Request {
        script: script.as_bytes().to_vec(),
        max_bytes: shell::MAX_COMMAND_BYTES,
        positional: Positional {
            dollar0: "bash".into(),
            args: Vec::new(),
        },
        cwd: PathBuf::from("/tmp"),
        home: Some("/root".into()),
        env: HashMap::from([("HOME".to_string(), "/root".to_string())]),
        trust_env: true,
        dialect: Dialect::Bash,
        budget: shell::TIME_BUDGET,
    });
}

/// What the shim does with a wrapper before judging (app.rs `prepare`).
fn prepare(script: &str, places: &Places) -> Option<String> {
    let w = harness::recognize(script, places)?;
    Some(match (&w.snapshot, w.harness) {
        (Some(snap), "claude-code") => match harness::snapshot::read(snap) {
            Some(s) => harness::aliases::resolve(&w.judged(), &s),
            None => w.judged(),
        },
        _ => w.judged(),
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir()?;
    let home = tmp.path().join("home");
    let fill = |s: &str| {
        s.replace("{SHIM}", SHIM)
            .replace("{SHIM_DIR}", "/opt/automode/share/automode/shims")
            .replace("{HOME}", &home.to_string_lossy())
            .replace("{PROJECT}", "/work/project")
            .replace("{HARNESS_PKG}", "/opt/claude")
            .replace("{TMP}", "/tmp")
    };
    let snapshot = fill(&std::fs::read_to_string(
        root.join("tests/data/claude-snapshot.sh"),
    )?);
    let places = Places {
        home: Some(home.clone()),
        claude_dir: Some(home.join(".claude")),
        codex_home: Some(home.join(".codex")),
        shims: vec![PathBuf::from(SHIM)],
        pi_prefix: None,
        tmpdir: None,
    };
    let mut rows = Vec::new();
    for h in ["claude", "codex", "gemini"] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(root.join("scripts/e2e/fixtures").join(h))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        names.sort();
        for path in names {
            let f: serde_json::Value =
                serde_json::from_str(&fill(&std::fs::read_to_string(&path)?))?;
            let (Some(argv), Some(payload)) = (f["argv"].as_array(), f["payload"].as_str()) else {
                continue;
            };
            let Some(script) = argv
                .iter()
                .skip(1)
                .filter_map(|a| a.as_str())
                .find(|a| !a.starts_with('-'))
            else {
                continue;
            };
            if script == payload {
                continue;
            }
            // The snapshot the wrapper sources, where it says (a real file).
            if let Some(w) = harness::recognize(script, &places)
                && let Some(snap) = &w.snapshot
            {
                std::fs::create_dir_all(snap.parent().ok_or("snapshot path")?)?;
                std::fs::write(snap, &snapshot)?;
            }
            let Some(judged) = prepare(script, &places) else {
                println!("  not recognised: {}", path.display());
                continue;
            };
            let recognise = median(500, || {
                let _ = prepare(script, &places);
            });
            let extra =
                median(500, || analyse(&judged)).saturating_sub(median(500, || analyse(payload)));
            rows.push((recognise + extra, recognise, extra, path));
        }
    }
    rows.sort();
    println!(
        "wrapper cost per call (median of 500 runs): recognise+snapshot+aliases, extra analysis"
    );
    for (total, r, e, path) in &rows {
        println!(
            "  {:>7.1} µs = {:>7.1} + {:>6.1}  {}",
            total.as_secs_f64() * 1e6,
            r.as_secs_f64() * 1e6,
            e.as_secs_f64() * 1e6,
            path.strip_prefix(root).unwrap_or(path).display()
        );
    }
    let worst = rows.last().map_or(Duration::ZERO, |r| r.0);
    let mid = rows.get(rows.len() / 2).map_or(Duration::ZERO, |r| r.0);
    println!(
        "{} wrappers: median {:.3} ms, worst {:.3} ms (target <= 0.2 ms)",
        rows.len(),
        mid.as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3
    );
    Ok(())
}
