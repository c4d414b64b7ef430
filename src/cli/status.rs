//! `automode status`: on or off and why, and the sessions active in the
//! last 24 hours (`--all`: every one), each named by its harness, a short
//! id and its working directory, with counters and the last decision.

use std::fmt::Write as _;
use std::path::Path;

use crate::context::Context;
use crate::session;
use crate::state::{self, SessionState, Store};

/// Sessions idle for longer than this are left out unless `--all`.
const RECENT_SECS: u64 = 24 * 60 * 60;

pub(super) fn run(
    ctx: &Context,
    state_dir: Option<&Path>,
    json: bool,
    all: bool,
) -> Result<String, String> {
    let cfg = super::load_config(ctx)?;
    let global = state_dir.map(state::global).unwrap_or_default();
    let now = ctx.unix_secs();
    let every = state_dir.map(Store::all).unwrap_or_default();
    let total = every.len();
    let sessions: Vec<SessionState> = every
        .into_iter()
        .filter(|s| {
            all || s
                .last_at
                .is_some_and(|t| now.saturating_sub(t) <= RECENT_SECS)
        })
        .collect();
    let locked = cfg.switch_locked();
    let enabled = match locked {
        Some(_) => cfg.enabled.value,
        None => global.enabled.unwrap_or(cfg.enabled.value),
    };
    let var = |k: &str| ctx.var_str(k).map(str::to_string);
    let userns = namespaces_work(ctx);
    let (sockets_line, sockets_covered) = crate::sandbox::views::describe(userns, state_dir);
    let home_line = crate::sandbox::views::describe_home(userns);
    let chosen = crate::classifier::provider::choice(&cfg, &var);
    let ready = crate::classifier::provider::resolve(&cfg, &var);
    let pending = state_dir.map_or(0, |d| {
        crate::approval::Book::new(d)
            .live(now)
            .iter()
            .filter(|a| a.state == crate::approval::State::Pending)
            .count()
    });
    let mode = cfg.sandbox.mode.value;
    let kernel = crate::sandbox::Kernel::probe();
    let sandbox_status = kernel.status(mode);
    let gaps = if sandbox_status.enforced() {
        kernel.gaps()
    } else {
        Vec::new()
    };
    let home_in_roots = ctx
        .home()
        .map(|h| {
            crate::sandbox::roots_holding_home(
                &cfg.sandbox,
                &crate::policy::places::canon(&h),
                &var,
            )
        })
        .unwrap_or_default();
    let stores = state_dir
        .map(crate::checkpoint::store::all)
        .unwrap_or_default();
    let store_bytes: u64 = stores.iter().map(|(_, _, b)| b).sum();
    if json {
        let value = serde_json::json!({
            "checkpoints": {
                "enabled": cfg.checkpoint.enabled.value,
                "bytes": store_bytes,
                "max_bytes_per_project": cfg.checkpoint.max_bytes.value,
                "keep_hours": cfg.checkpoint.keep_hours.value,
                "projects": stores.iter().map(|(_, root, bytes)| serde_json::json!({"root": root, "bytes": bytes})).collect::<Vec<_>>(),
            "here": ctx.cwd().map(|cwd| crate::checkpoint::describe_here(state_dir, cwd, ctx.home().map(|h| crate::policy::places::canon(&h)), &cfg.checkpoint.settings()).0),
            },
            "sandbox": {
                "mode": mode,
                "mode_source": cfg.sandbox.mode.source.to_string(),
                "status": sandbox_status,
                "kernel_abi": kernel.abi,
                "not_confined": gaps,
                "sockets_covered": sockets_covered,
                "sockets": sockets_line,
                "home_view": if userns { "allow-listed" } else { "deny-listed" },
                "home_in_write_roots": home_in_roots.iter().map(|(r, w)| serde_json::json!({"root": r.display().to_string(), "warning": w})).collect::<Vec<_>>(),
            },
            "enabled": enabled,
            "switch_locked": locked,
            "classifier": {
                "model": chosen.spec(),
                "source": super::model::source_words(&chosen),
                "ready": ready.is_ok(),
                "not_ready_because": ready.as_ref().err(),
            },
            "pending_approvals": pending,
            "global_switch": global.enabled,
            "config_enabled": cfg.enabled.value,
            "state_dir": state_dir.map(|d| d.display().to_string()),
            "sessions": sessions,
        });
        return Ok(format!("{value}\n"));
    }
    let mut out = String::new();
    let why = match (&locked, global.enabled) {
        (Some(l), _) => format!("the managed policy keeps it: {l}"),
        (None, Some(_)) => "set with automode on/off".to_string(),
        (None, None) => format!("autoMode.enabled from {}", cfg.enabled.source),
    };
    let _ = writeln!(
        out,
        "auto mode: {} ({why})",
        if enabled { "on" } else { "off" }
    );
    let _ = match &sandbox_status {
        crate::sandbox::Status::Enforced { abi } => writeln!(
            out,
            "sandbox: enforced (Landlock ABI {abi}; sandbox.mode {} from {})",
            serde_json::json!(mode).as_str().unwrap_or(""),
            cfg.sandbox.mode.source
        ),
        crate::sandbox::Status::Off => writeln!(
            out,
            "sandbox: off (sandbox.mode off from {}): commands run with the user's full rights",
            cfg.sandbox.mode.source
        ),
        crate::sandbox::Status::Unavailable { why } => writeln!(
            out,
            "sandbox: NOT enforced: {why}; {}",
            if mode == crate::sandbox::Mode::Require {
                "sandbox.mode is require, so every command is refused"
            } else {
                "commands run with the user's full rights (sandbox.mode auto)"
            }
        ),
    };
    for g in &gaps {
        let _ = writeln!(out, "  not confined on this kernel: {g}");
    }
    if sandbox_status.enforced() {
        let (line, _) = crate::sandbox::net::describe(&cfg.sandbox, ctx.exe.as_deref());
        let _ = writeln!(out, "{line}");
        let _ = writeln!(out, "{sockets_line}");
        let _ = writeln!(out, "{home_line}");
        for (_, warning) in &home_in_roots {
            let _ = writeln!(out, "  warning: {warning}");
        }
    }
    let _ = match (chosen.spec(), &ready) {
        (Some(m), Ok(_)) => writeln!(
            out,
            "classifier: {m} ({})",
            super::model::source_words(&chosen)
        ),
        (Some(m), Err(why)) => writeln!(out, "classifier: {m}, NOT ready: {why}"),
        (None, _) => writeln!(
            out,
            "classifier: none ({}): commands that need review wait for `automode approve`",
            chosen.source()
        ),
    };
    if pending > 0 {
        let _ = writeln!(
            out,
            "approvals: {pending} ask(s) waiting for you (`automode approve` lists them)"
        );
    }
    let _ = writeln!(
        out,
        "checkpoints: {}; {} in the store for {} project(s) (`automode undo` lists a project's; --prune empties it)",
        if cfg.checkpoint.enabled.value {
            format!(
                "on, kept {} h after their session, up to {} MiB per project",
                cfg.checkpoint.keep_hours.value,
                cfg.checkpoint.max_bytes.value / (1024 * 1024)
            )
        } else {
            format!(
                "off (checkpoint.enabled from {})",
                cfg.checkpoint.enabled.source
            )
        },
        crate::checkpoint::shown_size(store_bytes),
        stores.len()
    );
    if let Some(cwd) = ctx.cwd() {
        let (line, _) = crate::checkpoint::describe_here(
            state_dir,
            cwd,
            ctx.home().map(|h| crate::policy::places::canon(&h)),
            &cfg.checkpoint.settings(),
        );
        let _ = writeln!(out, "  checkpoints here: {line}");
    }
    let _ = writeln!(
        out,
        "state: {}",
        state_dir.map_or_else(|| "(no home directory)".into(), |d| d.display().to_string())
    );
    if sessions.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            if total == 0 {
                "no sessions recorded yet".to_string()
            } else {
                format!("no session active in the last 24 hours ({total} older: --all)")
            }
        );
    }
    for s in &sessions {
        let switch = match s.enabled {
            Some(true) => " [on for this session]",
            Some(false) => " [off for this session]",
            None => "",
        };
        let _ = writeln!(
            out,
            "{} {} in {}{switch}, last active {}",
            s.harness.as_deref().unwrap_or("session"),
            session::short_id(&s.session),
            s.cwd.as_deref().unwrap_or("?"),
            s.last_at
                .map_or_else(|| "never".to_string(), |t| ago(now.saturating_sub(t)))
        );
        let _ = writeln!(
            out,
            "  {} checked, {} allowed, {} denied, {} asked, {} classified; consecutive classifier failures {}",
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
        if let Some(tmp) = state_dir
            .map(|d| {
                crate::sandbox::views::session_tmp(
                    &d.join("tmp").join(state::file_stem(&s.session)),
                )
            })
            .filter(|t| t.is_dir())
        {
            let _ = writeln!(out, "  /tmp of its commands: {}", tmp.display());
        }
    }
    let hidden = total - sessions.len();
    if hidden > 0 && !sessions.is_empty() {
        let _ = writeln!(out, "({hidden} older session(s) not shown: --all)");
    }
    Ok(out)
}

/// "5 s ago", "3 min ago", "2 h ago", "4 days ago".
fn ago(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s ago"),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86_400 => format!("{} h ago", secs / 3600),
        _ => format!("{} days ago", secs / 86_400),
    }
}

/// Can a command get a mount namespace here (the real attempt, where
/// automode's executable is known)?
pub(super) fn namespaces_work(ctx: &Context) -> bool {
    match ctx.exe.as_deref() {
        Some(exe) => crate::sandbox::net::probe(exe).is_ok(),
        None => crate::sandbox::user_namespaces_possible(),
    }
}
