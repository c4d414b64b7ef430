//! The shell snapshot a harness wrapper sources before the agent's
//! command (Claude Code's `~/.claude/shell-snapshots/snapshot-bash-….sh`):
//! its aliases are live in the command (`expand_aliases` is on), its
//! functions shadow programs. Read bounded; only what the payload needs.

use std::collections::BTreeMap;
use std::path::Path;

use crate::shell::parse;

/// Largest snapshot read.
const MAX_SNAPSHOT: u64 = 1024 * 1024;

/// Claude Code's own template functions: they run the harness binary as
/// the tool they are named after (`exec -a rg|bfs|ugrep <claude>`), or
/// guard `pkill` against the harness's own pid.
pub const TEMPLATE_FUNCTIONS: &[&str] = &["rg", "find", "grep", "pkill"];

/// What a snapshot defines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// `alias -- NAME='VALUE'`.
    pub aliases: BTreeMap<String, String>,
    /// User functions: name → definition text (`NAME () { … }`).
    pub functions: BTreeMap<String, String>,
}

/// Read a snapshot; `None` if it cannot be read (then nothing is known
/// and the caller judges names that it might define strictly).
pub fn read(path: &Path) -> Option<Snapshot> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_SNAPSHOT {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    Some(parse_text(&text))
}

/// Parse the lines a snapshot is made of.
pub fn parse_text(text: &str) -> Snapshot {
    let mut s = Snapshot::default();
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t
            .strip_prefix("alias -- ")
            .or_else(|| t.strip_prefix("alias "))
        {
            if let Some((name, value)) = alias_line(rest) {
                s.aliases.insert(name, value);
            }
        } else if t.starts_with("eval $'") {
            // `eval $'NAME () \n{ … }' > /dev/null 2>&1`: one user function.
            if let Some(def) = eval_word(t)
                && let Some(name) = def.split_whitespace().next()
                && def[name.len()..].trim_start().starts_with("()")
            {
                s.functions.insert(name.to_string(), def);
            }
        } else if let Some(rest) = t.strip_prefix("function ") {
            let name = rest
                .split(|c: char| c.is_whitespace() || c == '{' || c == '(')
                .next()
                .unwrap_or("");
            if !name.is_empty() && !TEMPLATE_FUNCTIONS.contains(&name) {
                // A function the analysis cannot place: its body is not
                // read here, so calling it is judged strictly.
                s.functions.insert(name.to_string(), String::new());
            }
        }
    }
    s
}

/// `NAME='VALUE'` (bash's `alias -p` quoting).
fn alias_line(rest: &str) -> Option<(String, String)> {
    let (name, value) = rest.split_once('=')?;
    let parsed = parse::parse(&format!("x {value}"), &parse::Options::default()).ok()?;
    let item = parsed.list.items.first()?;
    let crate::shell::ast::Command::Simple(cmd) = item.and_or.first.commands.first()? else {
        return None;
    };
    let value = crate::shell::parse::literal_of(cmd.words.get(1)?)?;
    Some((name.to_string(), value))
}

/// The literal text of the word after `eval`.
fn eval_word(line: &str) -> Option<String> {
    let parsed = parse::parse(line, &parse::Options::default()).ok()?;
    let item = parsed.list.items.first()?;
    let crate::shell::ast::Command::Simple(cmd) = item.and_or.first.commands.first()? else {
        return None;
    };
    crate::shell::parse::literal_of(cmd.words.get(1)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_aliases_and_functions() {
        let text = "# Snapshot file\nunalias -a 2>/dev/null || true\neval $'myfunc () \\n{ \\n    echo \"myfunc called with $*\"\\n}' > /dev/null 2>&1\nshopt -s expand_aliases\nalias -- gs='git status'\nalias -- ll='ls -l'\nalias -- q='echo '\\''hi'\\'''\nfunction rg { exec -a rg /x \"$@\"; }\n";
        let s = parse_text(text);
        assert_eq!(s.aliases.get("gs").map(String::as_str), Some("git status"));
        assert_eq!(s.aliases.get("ll").map(String::as_str), Some("ls -l"));
        assert_eq!(s.aliases.get("q").map(String::as_str), Some("echo 'hi'"));
        assert!(
            s.functions
                .get("myfunc")
                .is_some_and(|d| d.contains("echo")),
            "{:?}",
            s.functions
        );
        assert!(!s.functions.contains_key("rg"));
    }
}
