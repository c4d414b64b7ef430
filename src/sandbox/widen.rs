//! One-command widenings the agent asks for with a leading literal
//! assignment on its top-level command (never from the inherited
//! environment, never inside `$(…)`, `eval` or a nested shell: the
//! analysis only records them there): `AUTOMODE_WRITE=/abs/path[:/other]`
//! grants writing those paths to this command, `AUTOMODE_SANDBOX=off`
//! runs it unconfined. Either sends the command to the classifier (never
//! an allow tier), which sees the widening and the user's words. Paths
//! that must never be granted are refused outright.

use std::path::{Path, PathBuf};

use crate::policy::places::Places;

/// A widening the script asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Widening {
    /// Write these (canonical; a path that does not exist yet is granted
    /// through the directory it would be created in).
    Write(Vec<PathBuf>),
    /// No sandbox for this command.
    SandboxOff,
}

impl Widening {
    /// For the classifier and messages.
    pub fn describe(&self) -> String {
        match self {
            Widening::Write(paths) => format!(
                "AUTOMODE_WRITE: the agent asks that this one command (every part of it) may also write {}",
                paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Widening::SandboxOff => "AUTOMODE_SANDBOX=off: the agent asks that this one command run outside automode's sandbox, with the user's full rights".to_string(),
        }
    }
}

/// The widening asked for by the analysis' leading assignments, or why
/// it is refused outright.
pub fn parse(
    write: Option<&str>,
    sandbox: Option<&str>,
    places: &Places,
    read_deny: &[PathBuf],
) -> Option<Result<Widening, String>> {
    if let Some(v) = sandbox {
        return Some(if v == "off" {
            Ok(Widening::SandboxOff)
        } else {
            Err(format!("AUTOMODE_SANDBOX only takes \"off\", not {v:?}"))
        });
    }
    let value = write?;
    let mut out = Vec::new();
    for part in value.split(':').filter(|p| !p.is_empty()) {
        if !part.starts_with('/') {
            return Some(Err(format!(
                "AUTOMODE_WRITE takes absolute paths separated by ':', not {part:?}"
            )));
        }
        let asked = crate::shell::paths::resolve(Path::new("/"), part).0;
        let granted = match std::fs::canonicalize(&asked) {
            Ok(p) => p,
            // Not there yet: the directory it would be created in is
            // what the sandbox grants, so it must be grantable too.
            Err(_) => match asked.parent().map(std::fs::canonicalize) {
                Some(Ok(parent)) => {
                    if let Some(why) = refusal(&parent, places, read_deny) {
                        return Some(Err(format!(
                            "AUTOMODE_WRITE asks for {}, which does not exist yet: making it needs its directory {}, and {why}",
                            asked.display(),
                            parent.display()
                        )));
                    }
                    parent.join(asked.file_name().unwrap_or_default())
                }
                _ => {
                    return Some(Err(format!(
                        "AUTOMODE_WRITE names {}, whose directory does not exist",
                        asked.display()
                    )));
                }
            },
        };
        if let Some(why) = refusal(&granted, places, read_deny) {
            return Some(Err(format!(
                "AUTOMODE_WRITE asks for {}: {why}",
                granted.display()
            )));
        }
        out.push(granted);
    }
    if out.is_empty() {
        return Some(Err("AUTOMODE_WRITE names no path".into()));
    }
    Some(Ok(Widening::Write(out)))
}

/// Why `p` may never be granted for writing, if it may not.
pub fn refusal(p: &Path, places: &Places, read_deny: &[PathBuf]) -> Option<String> {
    if p == Path::new("/") {
        return Some("that is the whole file system".into());
    }
    if let Some(home) = &places.home
        && home.starts_with(p)
    {
        return Some("that is the home directory (or contains it)".into());
    }
    if p.starts_with("/etc") {
        return Some("the system configuration is never granted".into());
    }
    let checks = [
        places.profile(p),
        places.ssh(p),
        places.secret(p),
        places.secret_under(p),
        places.automode_own(p),
        places.harness(p),
    ];
    if let Some(why) = checks.into_iter().flatten().next() {
        return Some(why);
    }
    for own in [&places.automode_config, &places.automode_state]
        .into_iter()
        .flatten()
    {
        if own.starts_with(p) {
            return Some(format!(
                "it contains automode's own files ({})",
                own.display()
            ));
        }
    }
    if let Some(d) = read_deny
        .iter()
        .find(|d| d.starts_with(p) || p.starts_with(d))
    {
        return Some(format!("it holds secrets ({})", d.display()));
    }
    None
}
