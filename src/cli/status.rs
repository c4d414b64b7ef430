//! `automode status`: on or off and why, and the recent sessions with
//! their counters and last decision.

use std::fmt::Write as _;
use std::path::Path;

use crate::context::Context;
use crate::state::{self, Store};

pub(super) fn run(ctx: &Context, state_dir: Option<&Path>, json: bool) -> Result<String, String> {
    let cfg = super::load_config(ctx)?;
    let global = state_dir.map(state::global).unwrap_or_default();
    let sessions = state_dir.map(Store::all).unwrap_or_default();
    let enabled = global.enabled.unwrap_or(cfg.enabled.value);
    if json {
        let value = serde_json::json!({
            "enabled": enabled,
            "global_switch": global.enabled,
            "config_enabled": cfg.enabled.value,
            "state_dir": state_dir.map(|d| d.display().to_string()),
            "sessions": sessions,
        });
        return Ok(format!("{value}\n"));
    }
    let mut out = String::new();
    let why = match global.enabled {
        Some(_) => "set with automode on/off".to_string(),
        None => format!("autoMode.enabled from {}", cfg.enabled.source),
    };
    let _ = writeln!(
        out,
        "auto mode: {} ({why})",
        if enabled { "on" } else { "off" }
    );
    let _ = writeln!(
        out,
        "state: {}",
        state_dir.map_or_else(|| "(no home directory)".into(), |d| d.display().to_string())
    );
    if sessions.is_empty() {
        let _ = writeln!(out, "no sessions recorded yet");
    }
    for s in sessions.iter().take(10) {
        let switch = match s.enabled {
            Some(true) => " [on for this session]",
            Some(false) => " [off for this session]",
            None => "",
        };
        let _ = writeln!(
            out,
            "session {}{switch}: {} checked, {} allowed, {} denied, {} asked, {} classified; consecutive classifier failures {}",
            s.session,
            s.checked,
            s.allowed,
            s.denied,
            s.asked,
            s.classified,
            s.consecutive_classifier_failures
        );
        if let (Some(d), Some(r)) = (&s.last_decision, &s.last_reason) {
            let _ = writeln!(out, "  last: {d}: {r}");
        }
    }
    Ok(out)
}
