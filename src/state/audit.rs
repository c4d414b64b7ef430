//! The audit log: one JSON line per invocation joining the verdict to the
//! outcome, appended under a lock and rotated by size
//! (`audit.jsonl` → `audit.jsonl.1`).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Rotate when the log grows past this.
pub const MAX_AUDIT_BYTES: u64 = 10 * 1024 * 1024;
/// Longest script text kept in one line.
pub const MAX_SCRIPT_CHARS: usize = 4096;

pub fn path(dir: &Path) -> PathBuf {
    dir.join("audit.jsonl")
}

/// Append one record.
pub fn append(dir: &Path, record: &serde_json::Value) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let _lock = super::lock(&dir.join("audit.lock"))?;
    let log = path(dir);
    if std::fs::metadata(&log).is_ok_and(|m| m.len() > MAX_AUDIT_BYTES) {
        let _ = std::fs::rename(&log, dir.join("audit.jsonl.1"));
    }
    let mut line = serde_json::to_string(record).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    f.write_all(line.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", log.display()))
}

/// The last `n` records (newest last).
pub fn tail(dir: &Path, n: usize) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path(dir)).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
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
