//! `automode defaults`: the built-in catalogue, lists and program table.

use std::fmt::Write as _;

use crate::policy::{catalogue, places, tools};
use crate::{config, sandbox};

pub(super) fn text() -> String {
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
    let _ = writeln!(
        out,
        "\nSandbox (sandbox.*; lists replace these unless they contain \"$defaults\"):"
    );
    let _ = writeln!(
        out,
        "  write (besides the project and its linked git dirs):"
    );
    for (p, why) in sandbox::DEFAULT_WRITE {
        let _ = writeln!(out, "    {p}  ({why})");
    }
    let _ = writeln!(out, "  caches (written where they exist):");
    for (p, tools, why) in sandbox::DEFAULT_CACHES {
        let _ = writeln!(out, "    {p}  ({why}; made for {})", tools.join(" "));
    }
    let _ = writeln!(out, "  readDeny (besides automode's own directories):");
    for (p, why) in sandbox::DEFAULT_READ_DENY {
        let _ = writeln!(out, "    {p}  ({why})");
    }
    let _ = writeln!(out, "  protect (inside the project):");
    for (p, why) in sandbox::DEFAULT_PROTECT {
        let _ = writeln!(out, "    {p}  ({why})");
    }
    let _ = writeln!(out, "  devices every command may write:");
    for (p, why) in sandbox::DEVICES.iter().chain(sandbox::DEVICE_DIRS) {
        let _ = writeln!(out, "    {p}  ({why})");
    }
    let _ = writeln!(
        out,
        "  credential variables withheld from programs automode does not know:"
    );
    for line in sandbox::env::describe() {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(
        out,
        "  credential files a tool reads as itself, and settings read without their secrets:"
    );
    for line in sandbox::credentials::describe() {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(
        out,
        "\nCheckpoints leave out these directories (and the build artifacts above):"
    );
    for (p, why) in crate::checkpoint::EXCLUDED_DIRS {
        let _ = writeln!(out, "  {p}/  ({why})");
    }
    let _ = writeln!(out, "\nPrograms (how each is judged by the allow tiers):");
    for line in tools::describe() {
        let _ = writeln!(out, "  {line}");
    }
    out
}

/// `automode defaults --json`: the same tables as data.
pub(super) fn json() -> String {
    let pairs = |items: &[(&str, &str)]| -> Vec<serde_json::Value> {
        items
            .iter()
            .map(|(p, why)| serde_json::json!({"entry": p, "why": why}))
            .collect()
    };
    let value = serde_json::json!({
        "catalogue": catalogue::CATALOGUE.iter().map(|c| serde_json::json!({"id": c.id, "why": c.reason})).collect::<Vec<_>>(),
        "protectedPaths": config::DEFAULT_PROTECTED_PATHS,
        "artifactDirs": pairs(places::ARTIFACT_DIRS),
        "artifactFiles": pairs(places::ARTIFACT_FILES),
        "secrets": pairs(places::SECRET_PATHS),
        "autoMode": {
            "allow": config::DEFAULT_CLASSIFIER_ALLOW,
            "soft_deny": config::DEFAULT_SOFT_DENY,
            "hard_deny": config::DEFAULT_HARD_DENY,
            "environment": config::DEFAULT_ENVIRONMENT,
        },
        "sandbox": {
            "write": pairs(sandbox::DEFAULT_WRITE),
            "caches": sandbox::DEFAULT_CACHES.iter().map(|(p, tools, why)| serde_json::json!({"entry": p, "tools": tools, "why": why})).collect::<Vec<_>>(),
            "readDeny": pairs(sandbox::DEFAULT_READ_DENY),
            "protect": pairs(sandbox::DEFAULT_PROTECT),
            "devices": pairs(sandbox::DEVICES).into_iter().chain(pairs(sandbox::DEVICE_DIRS)).collect::<Vec<_>>(),
            "withheldEnv": sandbox::env::describe(),
            "credentials": sandbox::credentials::describe(),
        },
        "checkpointExcluded": pairs(crate::checkpoint::EXCLUDED_DIRS),
        "programs": tools::describe(),
        "classifierPresets": crate::classifier::provider::preset_lines(),
    });
    format!("{value}\n")
}
