//! The harnesses' own calls that are not agent commands: Claude Code's
//! `-c env` probe and `-c -l` snapshot builder, Codex's `-lc` snapshot
//! script and its `. <snapshot>` validation. They print the environment
//! and source the user's rc files, so they are allowed only when the call
//! is top level, its parent process is the harness binary, and the script
//! has the builder's shape; anything else is judged normally (the harness
//! then runs without a snapshot, which still works).

use std::path::Path;

use super::Places;

/// Which harness binary a process executable is.
pub fn harness_of(exe: &Path, claude_execpath: Option<&str>) -> Option<&'static str> {
    let name = exe.file_name()?.to_str()?;
    if matches!(name, "claude" | "claude.exe")
        || claude_execpath.is_some_and(|p| std::fs::canonicalize(p).ok().as_deref() == Some(exe))
    {
        return Some("claude-code");
    }
    if name == "codex" {
        return Some("codex");
    }
    None
}

/// If `script` is a harness-internal call that `parent` (the parent
/// process's harness) makes, its name.
pub fn internal_call(
    script: &str,
    login: bool,
    parent: Option<&str>,
    places: &Places,
) -> Option<&'static str> {
    match parent? {
        "claude-code" => {
            if script == "env" {
                return Some("claude-env-probe");
            }
            let first = script.lines().next()?;
            let path = first.strip_prefix("SNAPSHOT_FILE=")?;
            let dir = places.claude_dir.as_ref()?.join("shell-snapshots");
            let p = Path::new(path);
            let name_ok = p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                (n.starts_with("snapshot-bash-") || n.starts_with("snapshot-zsh-"))
                    && n.ends_with(".sh")
                    && !n.contains('\'')
            });
            (login
                && p.parent() == Some(dir.as_path())
                && name_ok
                && script.contains("echo \"# Snapshot file\" >| \"$SNAPSHOT_FILE\"")
                && script.trim_end().ends_with("fi"))
            .then_some("claude-snapshot-builder")
        }
        "codex" => {
            if login
                && script.starts_with("if [ -z \"${BASH_ENV-}\" ] && [ -n \"${HOME-}\" ] && [ -r \"$HOME/.bashrc\" ]; then\n  . \"$HOME/.bashrc\"\nfi\necho '# Snapshot file'\n")
                && script.contains("done < <(compgen -e)")
            {
                return Some("codex-snapshot-builder");
            }
            let rest = script.strip_prefix("set -e; . \"")?.strip_suffix('"')?;
            let p = Path::new(rest);
            let dir = places.codex_home.as_ref()?.join("shell_snapshots");
            let name_ok = p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.contains(".tmp-")
                    && n.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
            });
            (p.parent() == Some(dir.as_path()) && name_ok).then_some("codex-snapshot-validation")
        }
        _ => None,
    }
}
