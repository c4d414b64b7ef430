//! `automode log`: the last invocations from the audit log, each decision
//! joined with its outcome, in local time (`--json`: one object per
//! invocation, times in seconds since the epoch).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::nested;
use crate::state::audit;

pub(super) fn run(state_dir: Option<&Path>, lines: usize, json: bool) -> Result<String, String> {
    let dir = state_dir.ok_or("no state directory (HOME is not set)")?;
    let alive = |pid: i64, start: u64| {
        i32::try_from(pid)
            .ok()
            .and_then(nested::proc_stat)
            .is_some_and(|s| s.start_ticks == start)
    };
    let records = audit::entries(dir, lines, &alive);
    let mut out = String::new();
    for r in records {
        if json {
            let _ = writeln!(out, "{r}");
            continue;
        }
        let get = |k: &str| {
            r.get(k).map_or_else(String::new, |v| {
                v.as_str().map_or_else(|| v.to_string(), str::to_string)
            })
        };
        let script: String = get("script")
            .replace('\n', "; ")
            .chars()
            .take(100)
            .collect();
        let _ = writeln!(
            out,
            "[{}] {} ({}/{}) {}: {script}",
            r.get("at")
                .and_then(Value::as_u64)
                .map_or_else(|| get("at"), crate::exec::local_time_text),
            get("decision"),
            get("tier"),
            get("rule"),
            outcome_text(&r)
        );
    }
    Ok(out)
}

/// How the invocation ended, in a few words.
fn outcome_text(r: &Value) -> String {
    match r.get("pending").and_then(Value::as_str) {
        Some("running") => {
            return format!(
                "still running (automode pid {})",
                r.get("pid").map_or_else(String::new, ToString::to_string)
            );
        }
        Some(_) => return "outcome unknown: automode was killed".to_string(),
        None => {}
    }
    let Some(o) = r.get("outcome").filter(|o| !o.is_null()) else {
        return "did not run".to_string();
    };
    let mut text = format!(
        "exit {}",
        o.get("exit").map_or_else(String::new, ToString::to_string)
    );
    if o.get("timed_out") == Some(&Value::Bool(true)) {
        text.push_str(", timed out");
    }
    if o.get("truncated") == Some(&Value::Bool(true)) {
        text.push_str(", output cut at the limit");
    }
    if let Some(sig) = o.get("signal").filter(|s| !s.is_null()) {
        let _ = write!(text, ", killed by signal {sig}");
    }
    text
}
