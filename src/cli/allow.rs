//! `automode allow RULE` (the user only, in their own terminal): add a
//! `permissions.allow` rule to the global configuration (or the rules
//! suggested for the last command that waited for review, `--last`), or
//! remove one (`--remove`), showing the change to the file. A rule automode
//! does not understand, or a file that would no longer load, is refused
//! and the file left as it was.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::context::Context;

pub(super) fn run(
    ctx: &Context,
    config_dir: Option<&Path>,
    state_dir: Option<&Path>,
    rule: Option<&str>,
    last: bool,
    remove: bool,
) -> Result<String, String> {
    let dir = config_dir.ok_or("no configuration directory (HOME is not set)")?;
    let rules: Vec<String> = match rule {
        Some(r) => vec![r.trim().to_string()],
        None if last => last_suggested(state_dir)?,
        None => return Err("automode allow needs a rule or --last".into()),
    };
    for r in &rules {
        let parsed = crate::policy::rules::parse(r)
            .map_err(|why| format!("{r:?} is not a rule automode understands: {why}"))?;
        if let crate::policy::rules::RuleKind::Other(tool) = parsed.kind {
            return Err(format!(
                "{r:?} names the tool {tool:?}, which never runs through the shell: it would never match"
            ));
        }
    }
    let path = dir.join("config.json");
    let before = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut root: Value = if before.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(&before)
            .map_err(|e| format!("{} does not parse: {e}; fix it first", path.display()))?
    };
    let list = allow_list(&mut root).ok_or_else(|| {
        format!(
            "{}: permissions.allow is not a list; fix it first",
            path.display()
        )
    })?;
    let changed: Vec<&String> = if remove {
        let had = list.len();
        list.retain(|v| !rules.iter().any(|r| v.as_str() == Some(r)));
        if list.len() == had {
            return Err(format!(
                "{} is not in permissions.allow of {}",
                rules.join(", "),
                path.display()
            ));
        }
        rules.iter().collect()
    } else {
        let new: Vec<&String> = rules
            .iter()
            .filter(|r| !list.iter().any(|v| v.as_str() == Some(r.as_str())))
            .collect();
        for r in &new {
            list.push(Value::String((*r).clone()));
        }
        new
    };
    if changed.is_empty() {
        return Ok(format!(
            "{} is already in permissions.allow of {}\n",
            rules.join(", "),
            path.display()
        ));
    }
    let after = format!(
        "{}\n",
        serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?
    );
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    crate::state::write_atomic(&path, after.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    // The file must still load; if not, it goes back as it was.
    if let Err(e) = super::load_config(ctx) {
        let restored = if before.is_empty() {
            std::fs::remove_file(&path)
        } else {
            crate::state::write_atomic(&path, before.as_bytes())
        };
        return Err(format!(
            "{e}; {} is left as it was{}",
            path.display(),
            restored
                .err()
                .map(|e| format!(" (could not restore it: {e})"))
                .unwrap_or_default()
        ));
    }
    let mut out = diff(&path, &before, &after);
    let _ = writeln!(
        out,
        "{} {} {} permissions.allow in {}.",
        if remove { "removed" } else { "added" },
        changed
            .iter()
            .map(|r| format!("{r:?}"))
            .collect::<Vec<_>>()
            .join(", "),
        if remove { "from" } else { "to" },
        path.display()
    );
    if !remove {
        out.push_str(
            "Commands it matches run without review from now on (deny and ask rules, the hard-deny catalogue and the sandbox still apply).\n",
        );
    }
    Ok(out)
}

/// `permissions.allow` in a configuration (made when missing); None when
/// something there is not what it must be.
fn allow_list(root: &mut Value) -> Option<&mut Vec<Value>> {
    let perms = root
        .as_object_mut()?
        .entry("permissions")
        .or_insert_with(|| Value::Object(Default::default()));
    perms
        .as_object_mut()?
        .entry("allow")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
}

/// The rules suggested for the newest command that waited for review,
/// across the sessions.
fn last_suggested(state_dir: Option<&Path>) -> Result<Vec<String>, String> {
    let dir = state_dir.ok_or("no state directory (HOME is not set)")?;
    crate::state::Store::all(dir)
        .into_iter()
        .flat_map(|s| s.recent_denials)
        .filter(|d| !d.suggest.is_empty())
        .max_by_key(|d| d.at)
        .map(|d| d.suggest)
        .ok_or_else(|| {
            "no blocked command with a suggested rule is remembered; name the rule: automode allow 'bash(…)'"
                .to_string()
        })
}

/// The change as a unified diff (`diff -u`), or the new file when there
/// was none.
fn diff(path: &Path, before: &str, after: &str) -> String {
    let shown = path.display().to_string();
    let run = || -> Option<String> {
        let old = tempfile::NamedTempFile::new().ok()?;
        std::fs::write(old.path(), before).ok()?;
        let out = std::process::Command::new("diff")
            .args(["-u", "--label", &shown, "--label", &shown])
            .arg(old.path())
            .arg(path)
            .stdin(std::process::Stdio::null())
            .output()
            .ok()?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    match run() {
        Some(d) if !d.is_empty() => d,
        _ => format!("{shown} is now:\n{after}"),
    }
}
