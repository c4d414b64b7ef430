//! The audit log, `audit.jsonl`: for every invocation a *decision* record,
//! appended before the command starts (as sudo logs before it executes),
//! and for every command that ran an *outcome* record appended after it
//! ended, joined by one invocation id. A blocked command is one decision
//! record. `entries` joins them again for `automode log`; a decision that
//! ran and has no outcome is a command whose automode was killed.
//!
//! Appends take no lock: each record is one `write(2)` to a file opened
//! `O_APPEND`, which Linux keeps whole against other appenders on local
//! filesystems, so a process holding `audit.lock` can never stall a
//! command. Only rotation by size (`audit.jsonl` → `audit.jsonl.1`) takes
//! the lock, and only when it is free; a record appended to the old file
//! while it is renamed lands in `audit.jsonl.1`, never nowhere.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Rotate when the log grows past this.
pub const MAX_AUDIT_BYTES: u64 = 10 * 1024 * 1024;
/// Longest script text kept in one line.
pub const MAX_SCRIPT_CHARS: usize = 4096;

pub fn path(dir: &Path) -> PathBuf {
    dir.join("audit.jsonl")
}

fn rotated(dir: &Path) -> PathBuf {
    dir.join("audit.jsonl.1")
}

/// Append one record (one line, one write).
pub fn append(dir: &Path, record: &Value) -> Result<(), String> {
    let log = path(dir);
    let mut line = serde_json::to_string(record).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut f = super::in_dir(dir, || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&log)
    })
    .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    f.write_all(line.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    if f.metadata().is_ok_and(|m| m.len() > MAX_AUDIT_BYTES) {
        rotate(dir);
    }
    Ok(())
}

/// Rename the full log aside, if no one else is rotating it right now.
fn rotate(dir: &Path) {
    let Ok(Some(_lock)) = super::lock_within(&dir.join("audit.lock"), super::NO_WAIT) else {
        return;
    };
    let log = path(dir);
    // Another process may have rotated it between our write and the lock.
    if std::fs::metadata(&log).is_ok_and(|m| m.len() > MAX_AUDIT_BYTES) {
        let _ = std::fs::rename(&log, rotated(dir));
    }
}

/// How a decision record without an outcome is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    /// Its automode process is still alive.
    Running,
    /// Its automode process is gone: it was killed before it could write
    /// the outcome.
    Killed,
}

/// The last `n` invocations (newest last), each one object: the decision
/// record with its outcome record joined in as `"outcome"`. A decision
/// that ran and has no outcome gets `"outcome": null` and
/// `"pending": "running"` or `"killed"` (asked of `alive(pid, start)`).
/// Lines written by older versions (one line per invocation, no `id`)
/// are shown as they are.
pub fn entries(dir: &Path, n: usize, alive: &dyn Fn(i64, u64) -> bool) -> Vec<Value> {
    let mut text = std::fs::read_to_string(rotated(dir)).unwrap_or_default();
    text.push_str(&std::fs::read_to_string(path(dir)).unwrap_or_default());
    let mut out: Vec<Value> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for line in text.lines() {
        let Ok(mut record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let id = record.get("id").and_then(Value::as_str).map(str::to_string);
        let event = record.get("event").and_then(Value::as_str).unwrap_or("");
        match (event, id) {
            ("outcome", Some(id)) => {
                if let Some(entry) = by_id.get(&id).and_then(|i| out.get_mut(*i)) {
                    if let Some(obj) = record.as_object_mut() {
                        obj.remove("id");
                        obj.remove("event");
                    }
                    entry["outcome"] = record;
                }
            }
            ("decision", Some(id)) => {
                by_id.insert(id, out.len());
                out.push(record);
            }
            _ => out.push(record),
        }
    }
    let start = out.len().saturating_sub(n);
    let mut last: Vec<Value> = out.split_off(start);
    for entry in &mut last {
        let ran = entry.get("ran").and_then(Value::as_bool) == Some(true);
        let has_event = entry.get("event").is_some();
        if let Some(obj) = entry.as_object_mut() {
            obj.remove("event");
            if has_event && ran && obj.get("outcome").is_none_or(Value::is_null) {
                let pid = obj.get("pid").and_then(Value::as_i64).unwrap_or(0);
                let start = obj.get("pid_start").and_then(Value::as_u64).unwrap_or(0);
                let pending = if alive(pid, start) {
                    "running"
                } else {
                    "killed"
                };
                obj.insert("outcome".into(), Value::Null);
                obj.insert("pending".into(), Value::String(pending.into()));
            }
        }
    }
    last
}

/// Cut a script for the log.
pub fn clip(script: &str) -> String {
    if script.chars().count() <= MAX_SCRIPT_CHARS {
        return script.to_string();
    }
    let head: String = script.chars().take(MAX_SCRIPT_CHARS).collect();
    format!(
        "{head}… [{} more characters]",
        script.chars().count() - MAX_SCRIPT_CHARS
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never_alive(_: i64, _: u64) -> bool {
        false
    }

    #[test]
    fn joins_decisions_and_outcomes_by_id() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let d = dir.path();
        let rec = |v: Value| append(d, &v).unwrap_or_else(|e| panic!("{e}"));
        rec(
            serde_json::json!({"id": "a", "event": "decision", "ran": true, "script": "one", "pid": 1, "pid_start": 1}),
        );
        rec(serde_json::json!({"id": "b", "event": "decision", "ran": false, "script": "two"}));
        rec(
            serde_json::json!({"id": "c", "event": "decision", "ran": true, "script": "three", "pid": 1, "pid_start": 1}),
        );
        rec(serde_json::json!({"id": "a", "event": "outcome", "exit": 3}));
        let all = entries(d, 10, &never_alive);
        assert_eq!(all.len(), 3);
        assert_eq!(all[0]["outcome"]["exit"], 3);
        assert!(all[0].get("pending").is_none());
        assert_eq!(all[1]["ran"], false);
        assert!(all[1].get("pending").is_none());
        assert_eq!(all[2]["pending"], "killed");
        assert!(all[2]["outcome"].is_null());
        let running = entries(d, 1, &|_, _| true);
        assert_eq!(running.len(), 1);
        assert_eq!(running[0]["pending"], "running");
    }

    #[test]
    fn a_record_survives_rotation() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let d = dir.path();
        let big = "x".repeat(MAX_AUDIT_BYTES as usize + 1);
        std::fs::write(path(d), format!("{{\"script\": \"{big}\"}}\n"))
            .unwrap_or_else(|e| panic!("{e}"));
        append(
            d,
            &serde_json::json!({"id": "z", "event": "decision", "ran": false}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(rotated(d).exists());
        append(
            d,
            &serde_json::json!({"id": "y", "event": "decision", "ran": false}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let all = entries(d, 10, &never_alive);
        let ids: Vec<&str> = all.iter().filter_map(|e| e["id"].as_str()).collect();
        assert_eq!(ids, ["z", "y"]);
    }
}
