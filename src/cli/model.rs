//! `automode model [PROVIDER/MODEL]`: the classifier model in force and
//! whether it is ready (never the key), or save one (the user only).

use std::fmt::Write as _;
use std::path::Path;

use crate::config;
use crate::context::Context;

/// The resolved classifier model and whether its key is present (never
/// the key itself).
pub(super) fn show(ctx: &Context, json: bool) -> Result<String, String> {
    let cfg = super::load_config(ctx)?;
    let mut out = String::new();
    let var = |k: &str| ctx.var_str(k).map(str::to_string);
    let chosen = crate::classifier::provider::choice(&cfg, &var);
    if json {
        let resolved = crate::classifier::provider::resolve(&cfg, &var);
        let p = resolved.as_ref().ok();
        return Ok(format!(
            "{}\n",
            serde_json::json!({
                "model": chosen.spec(),
                "source": source_words(&chosen),
                "ready": p.is_some(),
                "not_ready_because": resolved.as_ref().err(),
                "provider": p.map(|p| &p.name),
                "url": p.map(crate::classifier::provider::Provider::url),
                "key_env": p.map(|p| &p.key_env),
                "key_present": p.map(|p| p.key.is_some()),
                "timeout_ms": p.map(|p| u64::try_from(p.timeout.as_millis()).unwrap_or(u64::MAX)),
                "presets": crate::classifier::provider::preset_lines(),
            })
        ));
    }
    match chosen.spec() {
        Some(spec) => {
            let _ = writeln!(out, "classifier model: {spec} ({})", source_words(&chosen));
        }
        None => {
            let _ = writeln!(out, "classifier model: none ({})", chosen.source());
        }
    }
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

/// "from FILE", or the environment's variable, in words.
pub(super) fn source_words(chosen: &crate::classifier::provider::Choice) -> String {
    use crate::classifier::provider::Choice;
    match chosen {
        Choice::Configured { source, .. } => format!("from {source}"),
        other => other.source(),
    }
}

pub(super) fn save(config_dir: Option<&Path>, model: &str) -> Result<String, String> {
    let dir = config_dir.ok_or("no configuration directory (HOME is not set)")?;
    if model != crate::classifier::provider::OFF
        && model
            .split_once('/')
            .is_none_or(|(p, m)| p.is_empty() || m.is_empty())
    {
        return Err(format!(
            "{model:?} is not provider/model-id (for example openai/gpt-5-mini) or none"
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
