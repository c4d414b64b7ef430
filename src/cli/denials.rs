//! `automode denials`: the recent blocks of every session (or one):
//! denials, asks, classifier refusals and failures.

use std::fmt::Write as _;
use std::path::Path;

use crate::state::{self, Store};

pub(super) fn run(
    state_dir: Option<&Path>,
    session: Option<&str>,
    json: bool,
) -> Result<String, String> {
    let dir = state_dir.ok_or("no state directory (HOME is not set)")?;
    let mut records: Vec<(String, state::DenialRecord)> = Vec::new();
    for s in Store::all(dir) {
        if session.is_some_and(|id| id != s.session) {
            continue;
        }
        for d in s.recent_denials {
            records.push((s.session.clone(), d));
        }
    }
    records.sort_by_key(|(_, d)| d.at);
    if json {
        let items: Vec<serde_json::Value> = records
            .iter()
            .map(|(s, d)| serde_json::json!({"session": s, "denial": d}))
            .collect();
        return Ok(format!("{}\n", serde_json::Value::Array(items)));
    }
    if records.is_empty() {
        return Ok("no recent denials\n".into());
    }
    let mut out = String::new();
    for (s, d) in records {
        let _ = writeln!(
            out,
            "[{}] session {s}: {} ({} / {}): {}\n    {}",
            crate::exec::local_time_text(d.at),
            d.decision,
            d.tier,
            d.rule,
            d.reason,
            d.command.replace('\n', "\n    ")
        );
    }
    Ok(out)
}
