//! The `automode` subcommands that show or change automode's own state:
//! status, config, defaults, denials, log, guidance (anyone), and on, off,
//! reset, trust, untrust (the user only; `app` refuses them inside an
//! agent's command before they get here).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::cli::Command;
use crate::config::{self, Config, FileStatus, Sourced};
use crate::context::Context;
use crate::exit::Exit;
use crate::policy::{catalogue, places, tools};
use crate::state::{self, Store, audit};

/// Run one admin subcommand.
pub fn run(ctx: &Context, command: Command) -> Exit {
    let home = ctx.home();
    let config_dir = config::config_dir(home.as_deref(), ctx.var_str("XDG_CONFIG_HOME"));
    let state_dir = state::state_dir(home.as_deref(), ctx.var_str("XDG_STATE_HOME"));
    let result = match command {
        Command::Status { json } => status(ctx, state_dir.as_deref(), json),
        Command::Config { json } => show_config(ctx, json),
        Command::Defaults => Ok(defaults()),
        Command::Denials { json, session } => {
            denials(state_dir.as_deref(), session.as_deref(), json)
        }
        Command::Log { lines, json } => log(state_dir.as_deref(), lines, json),
        Command::Guidance => Ok(GUIDANCE.to_string()),
        Command::Switch { on, session } => switch(state_dir.as_deref(), on, session),
        Command::Reset { session } => reset(state_dir.as_deref(), session),
        Command::Trust { trusted, dir } => {
            trust(ctx, config_dir.as_deref(), trusted, dir.map(PathBuf::from))
        }
        Command::Model { set: None } => model(ctx),
        Command::Model { set: Some(m) } => save_model(config_dir.as_deref(), &m),
        Command::Setup {
            harness,
            write,
            hook,
            shim,
        } => crate::setup::run(
            ctx,
            &crate::setup::Request {
                harness,
                write,
                hook,
                shim: shim.map(PathBuf::from),
            },
        ),
        Command::Exec { .. }
        | Command::Check { .. }
        | Command::Hook { .. }
        | Command::Help
        | Command::Version => Err("internal: not an admin command".into()),
    };
    match result {
        Ok(text) => {
            print!("{text}");
            Exit::Child(0)
        }
        Err(e) => {
            crate::report::say(&e);
            Exit::Child(1)
        }
    }
}

/// Text for AGENTS.md, CLAUDE.md or a system prompt.
pub const GUIDANCE: &str = "\
## Shell commands run under automode

Every shell command you run goes through automode, which decides whether it
may run and supervises it: stdin is closed, there is a time limit (60 s by
default) and an output limit.

- A command automode blocks did NOT run. Its message says why, which rule
  decided, and what to do. Exit status 121 means blocked.
- Report blocks to the user. Do not try an equivalent command, another
  spelling, a script file or an interpreter to get around a block.
- Delete one literal target per call (`rm -r build`), never a glob, a
  variable or a list of paths, unless every target is build output
  (build, dist, target, node_modules, __pycache__ …).
- Prefer plain, literal commands: variables as program names, `eval`,
  `sh -c \"$X\"` and `curl … | sh` are refused.
- For a longer time limit, start the command with `AUTOMODE_TIMEOUT=600`
  (seconds, at most 7200), e.g. `AUTOMODE_TIMEOUT=600 cargo build`; for
  more output, `AUTOMODE_OUTPUT_LIMIT=<bytes>`. Exit status 124 means the
  command timed out, 120 that its output was cut at the limit.
- Commands that need the user's approval say so: ask the user, and wait.
";

fn status(ctx: &Context, state_dir: Option<&Path>, json: bool) -> Result<String, String> {
    let cfg = load_config(ctx)?;
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

fn load_config(ctx: &Context) -> Result<Config, String> {
    let home = ctx.home().map(|h| places::canon(&h));
    config::load(&config::LoadInput {
        home: home.as_deref(),
        xdg_config_home: ctx.var_str("XDG_CONFIG_HOME"),
        cwd: ctx.cwd(),
        inline: ctx.var_str("AUTOMODE_SETTINGS_JSON"),
    })
    .map_err(|e| {
        format!(
            "the configuration is invalid (every shell command is blocked until it is fixed): {e}"
        )
    })
}

fn sourced_list(list: &[Sourced<String>]) -> Vec<serde_json::Value> {
    list.iter()
        .map(|s| serde_json::json!({"value": s.value, "source": s.source.to_string()}))
        .collect()
}

fn show_config(ctx: &Context, json: bool) -> Result<String, String> {
    let cfg = load_config(ctx)?;
    let rules = |list: &[config::RuleEntry]| -> Vec<serde_json::Value> {
        list.iter()
            .map(|r| serde_json::json!({"rule": r.pattern, "source": r.source.to_string()}))
            .collect()
    };
    let files: Vec<serde_json::Value> = cfg
        .files
        .iter()
        .map(|(p, st)| {
            serde_json::json!({"path": p.display().to_string(), "status": match st {
                FileStatus::Read => "read",
                FileStatus::Missing => "missing",
                FileStatus::IgnoredUntrusted => "ignored (project not trusted)",
            }})
        })
        .collect();
    let value = serde_json::json!({
        "files": files,
        "autoMode.enabled": {"value": cfg.enabled.value, "source": cfg.enabled.source.to_string()},
        "permissions.deny": rules(&cfg.deny),
        "permissions.ask": rules(&cfg.ask),
        "permissions.allow": rules(&cfg.allow),
        "allowInsideWorkingDirectory": {"value": cfg.allow_inside_working_directory.value, "source": cfg.allow_inside_working_directory.source.to_string()},
        "deniedPaths": sourced_list(&cfg.denied_paths),
        "protectedPaths": sourced_list(&cfg.protected_paths),
        "classifyReadOnlyTools": {"value": cfg.classify_read_only_tools.value, "source": cfg.classify_read_only_tools.source.to_string()},
        "autoMode.allow": sourced_list(&cfg.classifier_allow),
        "autoMode.soft_deny": sourced_list(&cfg.classifier_soft_deny),
        "autoMode.hard_deny": sourced_list(&cfg.classifier_hard_deny),
        "autoMode.environment": sourced_list(&cfg.classifier_environment),
        "timeoutSeconds": cfg.timeout_seconds.as_ref().map(|t| serde_json::json!({"value": t.value, "source": t.source.to_string()})),
        "outputLimitBytes": cfg.output_limit_bytes.as_ref().map(|t| serde_json::json!({"value": t.value, "source": t.source.to_string()})),
        "diagnostics": cfg.diagnostics,
    });
    if json {
        return Ok(format!("{value}\n"));
    }
    let mut out = String::new();
    for (path, st) in &cfg.files {
        let status = match st {
            FileStatus::Read => "read",
            FileStatus::Missing => "not present",
            FileStatus::IgnoredUntrusted => "IGNORED: project not trusted",
        };
        let _ = writeln!(out, "file {}: {status}", path.display());
    }
    if let Some(obj) = value.as_object() {
        for (k, v) in obj {
            if k == "files" || k == "diagnostics" {
                continue;
            }
            match v {
                serde_json::Value::Array(items) => {
                    let _ = writeln!(out, "{k}:{}", if items.is_empty() { " (none)" } else { "" });
                    for item in items {
                        let text = item
                            .get("value")
                            .or_else(|| item.get("rule"))
                            .map_or_else(String::new, |t| {
                                t.as_str().map_or_else(|| t.to_string(), str::to_string)
                            });
                        let src = item.get("source").and_then(|s| s.as_str()).unwrap_or("");
                        let _ = writeln!(out, "  - {text}  [{src}]");
                    }
                }
                serde_json::Value::Null => {
                    let _ = writeln!(out, "{k}: (default)");
                }
                other => {
                    let _ = writeln!(
                        out,
                        "{k}: {}  [{}]",
                        other
                            .get("value")
                            .map_or_else(String::new, ToString::to_string),
                        other.get("source").and_then(|s| s.as_str()).unwrap_or("")
                    );
                }
            }
        }
    }
    for d in &cfg.diagnostics {
        let _ = writeln!(out, "note: {d}");
    }
    Ok(out)
}

fn defaults() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Hard-deny catalogue (checked before any allow):");
    for c in catalogue::CATALOGUE {
        let _ = writeln!(out, "  {:20} {}", c.id, c.reason);
    }
    let _ = writeln!(out, "\nProtected paths (writes never take an allow tier):");
    for p in config::DEFAULT_PROTECTED_PATHS {
        let _ = writeln!(out, "  {p}");
    }
    let _ = writeln!(
        out,
        "\nRegenerable build artifacts (routine cleanup may delete them):"
    );
    for (d, why) in places::ARTIFACT_DIRS {
        let _ = writeln!(out, "  {d}/  ({why})");
    }
    for (f, why) in places::ARTIFACT_FILES {
        let _ = writeln!(out, "  {f}  ({why})");
    }
    let _ = writeln!(out, "\nSecrets (reading them needs the classifier):");
    for (p, why) in places::SECRET_PATHS {
        let _ = writeln!(out, "  ~/{p}  ({why})");
    }
    let _ = writeln!(
        out,
        "\nClassifier rules (autoMode.*; lists replace these unless they contain \"$defaults\"):"
    );
    for (name, list) in [
        ("allow", config::DEFAULT_CLASSIFIER_ALLOW),
        ("soft_deny", config::DEFAULT_SOFT_DENY),
        ("hard_deny", config::DEFAULT_HARD_DENY),
        ("environment", config::DEFAULT_ENVIRONMENT),
    ] {
        let _ = writeln!(out, "  {name}:");
        for r in list {
            let _ = writeln!(out, "    - {r}");
        }
    }
    let _ = writeln!(out, "\nPrograms (how each is judged by the allow tiers):");
    for line in tools::describe() {
        let _ = writeln!(out, "  {line}");
    }
    out
}

fn denials(state_dir: Option<&Path>, session: Option<&str>, json: bool) -> Result<String, String> {
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
            d.at,
            d.decision,
            d.tier,
            d.rule,
            d.reason,
            d.command.replace('\n', "\n    ")
        );
    }
    Ok(out)
}

fn log(state_dir: Option<&Path>, lines: usize, json: bool) -> Result<String, String> {
    let dir = state_dir.ok_or("no state directory (HOME is not set)")?;
    let records = audit::tail(dir, lines);
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
        let outcome = r.get("outcome").filter(|o| !o.is_null()).map_or_else(
            || "did not run".to_string(),
            |o| {
                format!(
                    "exit {}",
                    o.get("exit").map_or_else(String::new, ToString::to_string)
                )
            },
        );
        let script: String = get("script")
            .replace('\n', "; ")
            .chars()
            .take(100)
            .collect();
        let _ = writeln!(
            out,
            "[{}] {} ({}/{}) {outcome}: {script}",
            get("at"),
            get("decision"),
            get("tier"),
            get("rule")
        );
    }
    Ok(out)
}

fn switch(state_dir: Option<&Path>, on: bool, session: Option<String>) -> Result<String, String> {
    let dir = state_dir.ok_or("no state directory (HOME is not set)")?;
    let word = if on { "on" } else { "off" };
    match session {
        Some(id) => {
            Store::new(dir.to_path_buf(), id.clone()).update(|s| s.enabled = Some(on))?;
            Ok(format!("auto mode is {word} for session {id}\n"))
        }
        None => {
            state::set_global(dir, Some(on))?;
            Ok(format!(
                "auto mode is {word} (every session without its own switch)\n"
            ))
        }
    }
}

fn reset(state_dir: Option<&Path>, session: Option<String>) -> Result<String, String> {
    let dir = state_dir.ok_or("no state directory (HOME is not set)")?;
    let mut n = 0;
    for s in Store::all(dir) {
        if session.as_deref().is_some_and(|id| id != s.session) {
            continue;
        }
        let store = Store::new(dir.to_path_buf(), s.session.clone());
        store.update(|st| *st = state::SessionState::default())?;
        n += 1;
    }
    if session.is_none() {
        state::set_global(dir, None)?;
    }
    Ok(format!(
        "reset {n} session(s){}\n",
        if session.is_none() {
            " and the global on/off switch"
        } else {
            ""
        }
    ))
}

/// The resolved classifier model and whether its key is present (never
/// the key itself).
fn model(ctx: &Context) -> Result<String, String> {
    let cfg = load_config(ctx)?;
    let mut out = String::new();
    match &cfg.classifier_model {
        Some(m) => {
            let _ = writeln!(out, "classifier model: {} (from {})", m.value, m.source);
        }
        None => {
            let _ = writeln!(
                out,
                "classifier model: not set (`automode model provider/model-id` sets it)"
            );
        }
    }
    let var = |k: &str| ctx.var_str(k).map(str::to_string);
    match crate::classifier::provider::resolve(&cfg, &var) {
        Ok(p) => {
            let _ = writeln!(
                out,
                "provider: {} ({:?} format) at {}",
                p.name,
                p.format,
                p.url()
            );
            let key = if p.key.is_some() {
                "present"
            } else {
                "absent (not required)"
            };
            let _ = writeln!(out, "key: {key} (${})", p.key_env);
            let _ = writeln!(out, "timeout: {} ms per stage", p.timeout.as_millis());
            let _ = writeln!(out, "ready: yes");
        }
        Err(why) => {
            let _ = writeln!(out, "ready: no: {why}");
        }
    }
    let _ = writeln!(out, "\npresets:");
    for line in crate::classifier::provider::preset_lines() {
        let _ = writeln!(out, "  {line}");
    }
    Ok(out)
}

fn save_model(config_dir: Option<&Path>, model: &str) -> Result<String, String> {
    let dir = config_dir.ok_or("no configuration directory (HOME is not set)")?;
    if model
        .split_once('/')
        .is_none_or(|(p, m)| p.is_empty() || m.is_empty())
    {
        return Err(format!(
            "{model:?} is not provider/model-id (for example openai/gpt-5-mini)"
        ));
    }
    let path = config::save_global_value(
        dir,
        &["autoMode", "classifierModel"],
        serde_json::Value::String(model.into()),
    )?;
    Ok(format!(
        "classifier model {model} saved to {}\n",
        path.display()
    ))
}

fn trust(
    ctx: &Context,
    config_dir: Option<&Path>,
    trusted: bool,
    dir: Option<PathBuf>,
) -> Result<String, String> {
    let config_dir = config_dir.ok_or("no configuration directory (HOME is not set)")?;
    let base = match dir {
        Some(d) if d.is_absolute() => d,
        Some(d) => ctx
            .cwd()
            .ok_or("cannot determine the working directory")?
            .join(d),
        None => ctx
            .cwd()
            .ok_or("cannot determine the working directory")?
            .to_path_buf(),
    };
    if !base.is_dir() {
        return Err(format!("{} is not a directory", base.display()));
    }
    let root = config::project_root(&base).unwrap_or(base);
    let file = config::trust::set(config_dir, &root, trusted)?;
    Ok(format!(
        "{} {}: its .automode/local.json is {} (recorded in {})\n",
        if trusted {
            "trusted"
        } else {
            "no longer trusted"
        },
        root.display(),
        if trusted { "read" } else { "ignored" },
        file.display()
    ))
}
