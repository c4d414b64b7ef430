//! `automode config`: the effective configuration, each value with its
//! source, the files read, and diagnostics.

use std::fmt::Write as _;

use crate::config::{self, FileStatus, Sourced};
use crate::context::Context;

fn sourced_list(list: &[Sourced<String>]) -> Vec<serde_json::Value> {
    list.iter()
        .map(|s| serde_json::json!({"value": s.value, "source": s.source.to_string()}))
        .collect()
}

pub(super) fn run(ctx: &Context, json: bool) -> Result<String, String> {
    let cfg = super::load_config(ctx)?;
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
    let var = |k: &str| ctx.var_str(k).map(str::to_string);
    let chosen = crate::classifier::provider::choice(&cfg, &var);
    let resolved = crate::classifier::provider::resolve(&cfg, &var);
    let classifier = serde_json::json!({
        "model": chosen.spec(),
        "source": super::model::source_words(&chosen),
        "provider": resolved.as_ref().ok().map(|p| p.name.clone()),
        "base_url": resolved.as_ref().ok().map(|p| p.base_url.clone()),
        "timeout_ms": cfg.classifier_timeout_ms.value,
        "key_env": resolved.as_ref().ok().map(|p| p.key_env.clone()),
        "key_present": resolved.as_ref().ok().map(|p| p.key.is_some()),
        "ready": resolved.is_ok(),
        "not_ready_because": resolved.as_ref().err(),
    });
    let sourced = |v: serde_json::Value, src: &config::Source| serde_json::json!({"value": v, "source": src.to_string()});
    let value = serde_json::json!({
        "files": files,
        "managed_policy": crate::config::managed_path(&var).display().to_string(),
        "locked": sourced_list(&cfg.locked),
        "classifier": classifier,
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
        "sandbox.mode": {"value": cfg.sandbox.mode.value, "source": cfg.sandbox.mode.source.to_string()},
        "sandbox.write": sourced_list(&cfg.sandbox.write),
        "sandbox.caches": sourced_list(&cfg.sandbox.caches),
        "sandbox.readDeny": sourced_list(&cfg.sandbox.read_deny),
        "sandbox.protect": sourced_list(&cfg.sandbox.protect),
        "sandbox.protectMode": {"value": cfg.sandbox.protect_mode.value, "source": cfg.sandbox.protect_mode.source.to_string()},
        "sandbox.network": {"value": cfg.sandbox.network.value, "source": cfg.sandbox.network.source.to_string()},
        "sandbox.passEnv": sourced_list(&cfg.sandbox.pass_env),
        "sandbox.maxFileBytes": {"value": cfg.sandbox.max_file_bytes.value, "source": cfg.sandbox.max_file_bytes.source.to_string()},
        "autoMode.approvalTtlSeconds": sourced(cfg.approval_ttl_seconds.value.into(), &cfg.approval_ttl_seconds.source),
        "autoMode.askCommand": cfg.ask_command.as_ref().map(|c| sourced(c.value.clone().into(), &c.source)),
        "autoMode.askTimeoutSeconds": sourced(cfg.ask_timeout_seconds.value.into(), &cfg.ask_timeout_seconds.source),
        "autoMode.askOnTerminal": sourced(cfg.ask_on_terminal.value.into(), &cfg.ask_on_terminal.source),
        "autoMode.allowOff": sourced(cfg.allow_off.value.into(), &cfg.allow_off.source),
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
    let _ = writeln!(
        out,
        "managed policy: {}",
        value["managed_policy"].as_str().unwrap_or("")
    );
    let c = &value["classifier"];
    let _ = writeln!(
        out,
        "classifier: {} ({}){}",
        c["model"].as_str().unwrap_or("none"),
        c["source"].as_str().unwrap_or(""),
        match (&c["provider"], &c["key_env"]) {
            (serde_json::Value::String(p), serde_json::Value::String(k)) => format!(
                ", provider {p} at {}, timeout {} ms, key ${k} {}",
                c["base_url"].as_str().unwrap_or(""),
                c["timeout_ms"],
                if c["key_present"] == true {
                    "present"
                } else {
                    "absent"
                }
            ),
            _ => format!(
                ", not ready: {}",
                c["not_ready_because"].as_str().unwrap_or("")
            ),
        }
    );
    if let Some(obj) = value.as_object() {
        for (k, v) in obj {
            if matches!(
                k.as_str(),
                "files" | "diagnostics" | "managed_policy" | "classifier"
            ) {
                continue;
            }
            let lock = if cfg.lock_of(k).is_some() {
                " (locked)"
            } else {
                ""
            };
            match v {
                serde_json::Value::Array(items) => {
                    let _ = writeln!(
                        out,
                        "{k}{lock}:{}",
                        if items.is_empty() { " (none)" } else { "" }
                    );
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
                        "{k}{lock}: {}  [{}]",
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
