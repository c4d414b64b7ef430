//! `automode defaults`: the built-in catalogue, lists and program table.

use std::fmt::Write as _;

use crate::config;
use crate::policy::{catalogue, places, tools};

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
    let _ = writeln!(out, "\nPrograms (how each is judged by the allow tiers):");
    for line in tools::describe() {
        let _ = writeln!(out, "  {line}");
    }
    out
}
