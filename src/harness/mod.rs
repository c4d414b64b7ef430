//! Harness wrappers: the scaffolding coding-agent harnesses wrap around the
//! agent's command (Claude Code's `source <snapshot> && … && eval '<cmd>'
//! && pwd -P >| …-cwd`, Codex's snapshot wrapper ending `exec '<shell>' -c
//! '<cmd>'`, Gemini CLI's subshell, pi's configured prefix). Templates are
//! matched by shape, only to find the payload: the payload is then judged
//! exactly as a raw `bash -c` payload. A script that does not match a
//! template exactly is judged whole, so a forged or newer wrapper is never
//! more permissive. The scaffolding a match accepts is limited to harmless
//! kinds: shell options, unalias/unset, setting and restoring variables,
//! writing the harness's own cwd file, and sourcing a snapshot file under
//! a pinned name in the harness's own state directory.

pub mod aliases;
pub mod builders;
pub mod snapshot;

use std::path::{Path, PathBuf};

use crate::shell::ast::{
    AndOrOp, Command, Compound, ListItem, RedirOp, RedirTarget, Redirect, SimpleCommand,
};
use crate::shell::parse;

/// What the recognisers need to know about this machine.
#[derive(Debug, Clone, Default)]
pub struct Places {
    pub home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude_dir: Option<PathBuf>,
    /// `CODEX_HOME`, else `~/.codex`.
    pub codex_home: Option<PathBuf>,
    /// Paths that name this shim (argv[0] as given, its canonical form,
    /// the automode binary): Codex must re-exec one of them.
    pub shims: Vec<PathBuf>,
    /// pi's `shellCommandPrefix` from its settings, if any.
    pub pi_prefix: Option<String>,
    /// `TMPDIR` (Claude's cwd file may live there).
    pub tmpdir: Option<PathBuf>,
}

/// A recognised wrapper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrapped {
    pub harness: &'static str,
    /// The template that matched.
    pub template: &'static str,
    /// The agent's command, judged as a raw `bash -c` payload.
    pub payload: String,
    /// Statements inside the wrapper that are not scaffolding (Claude's
    /// `CLAUDE_ENV_FILE` text): judged together with the payload.
    pub extra: Option<String>,
    /// The snapshot the wrapper sources (its aliases reach the payload).
    pub snapshot: Option<PathBuf>,
}

impl Wrapped {
    /// The text to judge: extra statements, then the payload.
    pub fn judged(&self) -> String {
        match &self.extra {
            Some(e) => format!("{e}\n{}", self.payload),
            None => self.payload.clone(),
        }
    }
}

/// Find the payload of a harness wrapper, if `script` is one.
pub fn recognize(script: &str, places: &Places) -> Option<Wrapped> {
    if script.contains("pwd -P >|") && script.contains("eval") {
        return claude(script, places);
    }
    if script.starts_with("__CODEX_SNAPSHOT_") || script.contains("\nexec '") {
        return codex(script, places);
    }
    if script.starts_with(GEMINI_HEAD) {
        return gemini(script);
    }
    if let Some(prefix) = places.pi_prefix.as_deref().filter(|p| !p.is_empty())
        && let Some(rest) = script
            .strip_prefix(prefix)
            .and_then(|r| r.strip_prefix('\n'))
    {
        return Some(Wrapped {
            harness: "pi",
            template: "pi-prefix",
            payload: rest.to_string(),
            extra: None,
            snapshot: None,
        });
    }
    None
}

// ------------------------------------------------------------ words

/// Literal argv of a simple command with no assignments.
fn argv(s: &SimpleCommand) -> Option<Vec<String>> {
    if !s.assignments.is_empty() {
        return None;
    }
    s.words.iter().map(parse::literal_of).collect()
}

fn redirect_target(r: &Redirect) -> Option<String> {
    match &r.target {
        RedirTarget::Word(w) => parse::literal_of(w),
        RedirTarget::HereDoc(_) => None,
    }
}

/// Redirections that only silence output.
fn silencing(rs: &[Redirect]) -> bool {
    rs.iter().all(|r| match r.op {
        RedirOp::Write | RedirOp::WriteBoth | RedirOp::Clobber => {
            redirect_target(r).as_deref() == Some("/dev/null")
        }
        RedirOp::DupOut => redirect_target(r).is_some_and(|t| t == "1" || t == "2"),
        _ => false,
    })
}

/// A `builtin`/`command` prefix removed (`\builtin shopt` → `shopt`).
fn strip_builtin(words: &[String]) -> &[String] {
    match words.first().map(String::as_str) {
        Some("builtin" | "command") => &words[1..],
        _ => words,
    }
}

// ------------------------------------------------------------ Claude Code

/// `snapshot-(bash|zsh)-<digits>-<6 [a-z0-9]>[-…].sh` in the harness's
/// `shell-snapshots` directory.
fn claude_snapshot(path: &str, places: &Places) -> Option<PathBuf> {
    let p = Path::new(path);
    let dir = places.claude_dir.as_ref()?.join("shell-snapshots");
    if p.parent()? != dir {
        return None;
    }
    let name = p.file_name()?.to_str()?;
    let rest = name
        .strip_prefix("snapshot-bash-")
        .or_else(|| name.strip_prefix("snapshot-zsh-"))?;
    let rest = rest.strip_suffix(".sh")?;
    let mut parts = rest.splitn(3, '-');
    let digits = parts.next()?;
    let tag = parts.next()?;
    (!digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && tag.len() == 6
        && tag
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && parts.next().is_none_or(|x| !x.contains('/')))
    .then(|| p.to_path_buf())
}

/// Claude's cwd report file: `<tmp>/claude-<4 hex>-cwd`.
fn claude_cwd_file(path: &str, places: &Places) -> bool {
    let p = Path::new(path);
    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let hex_ok = name
        .strip_prefix("claude-")
        .and_then(|r| r.strip_suffix("-cwd"))
        .is_some_and(|h| h.len() == 4 && h.bytes().all(|b| b.is_ascii_hexdigit()));
    let dir_ok = p
        .parent()
        .is_some_and(|d| d == Path::new("/tmp") || places.tmpdir.as_deref() == Some(d));
    hex_ok && dir_ok
}

/// One piece of a Claude wrapper chain.
enum Piece {
    Scaffold,
    Snapshot(PathBuf),
    /// A statement that is not scaffolding (env-file text): its source.
    Other(String),
}

/// Judge one pipeline of the chain.
fn claude_piece(cmd: &Command, places: &Places) -> Option<Piece> {
    match cmd {
        Command::Simple(s) => {
            let Some(words) = argv(s) else {
                return Some(Piece::Other(s.raw.clone()));
            };
            let w = strip_builtin(&words);
            let w: Vec<&str> = w.iter().map(String::as_str).collect();
            match w.as_slice() {
                ["true"] | [":"] if s.redirects.is_empty() => Some(Piece::Scaffold),
                ["shopt", "-u", "extglob"] if silencing(&s.redirects) => Some(Piece::Scaffold),
                ["source" | ".", path] if silencing(&s.redirects) => {
                    match claude_snapshot(path, places) {
                        Some(p) => Some(Piece::Snapshot(p)),
                        None => Some(Piece::Other(s.raw.clone())),
                    }
                }
                _ => Some(Piece::Other(s.raw.clone())),
            }
        }
        // `{ \builtin unalias -- 'which'; \builtin unset -f -- 'which'; } >/dev/null 2>&1`
        // and `{ \builtin shopt -u extglob || \builtin setopt …; } >/dev/null 2>&1`.
        Command::Compound(Compound::Brace(list), redirects) if silencing(redirects) => {
            for item in &list.items {
                let mut pipes = vec![&item.and_or.first];
                pipes.extend(item.and_or.rest.iter().map(|(_, p)| p));
                for p in pipes {
                    let [Command::Simple(s)] = p.commands.as_slice() else {
                        return None;
                    };
                    let words = argv(s)?;
                    let w = strip_builtin(&words);
                    let w: Vec<&str> = w.iter().map(String::as_str).collect();
                    let ok = match w.as_slice() {
                        ["unalias", "--", name] | ["unset", "-f", "--", name] => is_name(name),
                        ["shopt", "-u", "extglob"] => true,
                        ["setopt", opts @ ..] => {
                            opts.iter().all(|o| o.starts_with("NO_") && is_name(o))
                        }
                        _ => false,
                    };
                    if !ok || p.bang || item.background {
                        return None;
                    }
                }
            }
            Some(Piece::Scaffold)
        }
        _ => None,
    }
}

fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

fn claude(script: &str, places: &Places) -> Option<Wrapped> {
    let parsed = parse::parse(script, &parse::Options::default()).ok()?;
    if !parsed.heredocs.is_empty() {
        // A here-doc belongs in the eval'd word, never in the scaffolding.
        return None;
    }
    let items: &[ListItem] = &parsed.list.items;
    let last = items.last()?;
    if items.iter().any(|i| i.background) {
        return None;
    }
    // The last chain ends `… && eval W… [< /dev/null] && pwd -P >| FILE`.
    let mut chain: Vec<(Option<AndOrOp>, &crate::shell::ast::Pipeline)> =
        vec![(None, &last.and_or.first)];
    chain.extend(last.and_or.rest.iter().map(|(op, p)| (Some(*op), p)));
    if chain.len() < 2 {
        return None;
    }
    let (pwd_op, pwd) = chain[chain.len() - 1];
    let (eval_op, eval) = chain[chain.len() - 2];
    if pwd_op != Some(AndOrOp::And) || pwd.bang || pwd.commands.len() != 1 {
        return None;
    }
    let Command::Simple(pwd_cmd) = &pwd.commands[0] else {
        return None;
    };
    if argv(pwd_cmd)? != ["pwd", "-P"] {
        return None;
    }
    let [r] = pwd_cmd.redirects.as_slice() else {
        return None;
    };
    if r.op != RedirOp::Clobber
        || r.fd.is_some_and(|fd| fd != 1)
        || !claude_cwd_file(&redirect_target(r)?, places)
    {
        return None;
    }
    if chain.len() > 2 && eval_op != Some(AndOrOp::And) {
        return None;
    }
    if eval.bang || eval.commands.len() != 1 {
        return None;
    }
    let Command::Simple(eval_cmd) = &eval.commands[0] else {
        return None;
    };
    let words = argv(eval_cmd)?;
    if words.first().map(String::as_str) != Some("eval") || words.len() < 2 {
        return None;
    }
    // `< /dev/null` only.
    if !eval_cmd.redirects.iter().all(|r| {
        r.op == RedirOp::Read
            && r.fd.is_none_or(|fd| fd == 0)
            && redirect_target(r).as_deref() == Some("/dev/null")
    }) {
        return None;
    }
    let payload = words[1..].join(" ");
    // Everything before the eval: scaffolding, the snapshot, or other
    // statements (env-file text) judged with the payload.
    let mut extra: Vec<String> = Vec::new();
    let mut snapshot = None;
    let mut before: Vec<(Option<AndOrOp>, &Command, bool)> = Vec::new();
    for item in &items[..items.len() - 1] {
        let mut first = true;
        for (op, p) in std::iter::once((None, &item.and_or.first))
            .chain(item.and_or.rest.iter().map(|(o, p)| (Some(*o), p)))
        {
            let [c] = p.commands.as_slice() else {
                return None;
            };
            if p.bang {
                return None;
            }
            before.push((if first { None } else { op }, c, first));
            first = false;
        }
    }
    for (op, p) in &chain[..chain.len() - 2] {
        let [c] = p.commands.as_slice() else {
            return None;
        };
        if p.bang {
            return None;
        }
        before.push((*op, c, false));
    }
    for (i, (op, c, _)) in before.iter().enumerate() {
        // `X || true`: the `true` after `||` is part of X's scaffolding.
        if *op == Some(AndOrOp::Or) {
            match c {
                Command::Simple(s) if argv(s).is_some_and(|w| w == ["true"] || w == [":"]) => {
                    continue;
                }
                _ => return None,
            }
        }
        let _ = i;
        match claude_piece(c, places)? {
            Piece::Scaffold => {}
            Piece::Snapshot(p) => snapshot = Some(p),
            Piece::Other(text) => extra.push(text),
        }
    }
    Some(Wrapped {
        harness: "claude-code",
        template: if snapshot.is_some() {
            "claude-wrapper"
        } else {
            "claude-wrapper-no-snapshot"
        },
        payload,
        extra: (!extra.is_empty()).then(|| extra.join("\n")),
        snapshot,
    })
}

// ------------------------------------------------------------ Codex

/// Lines of Codex's snapshot wrapper, with placeholders: `{N}` digits,
/// `{V}` a variable name, `{DIR}` text without quotes, `{SNAP}` the
/// snapshot path.
const CODEX_LINES: &[&str] = &[
    "",
    "__CODEX_SNAPSHOT_OVERRIDE_SET_{N}=\"${{V}+x}\"",
    "__CODEX_SNAPSHOT_OVERRIDE_{N}=\"${{V}-}\"",
    "__CODEX_SNAPSHOT_PROXY_OVERRIDE_SET_{N}=\"${{V}+x}\"",
    "__CODEX_SNAPSHOT_PROXY_OVERRIDE_{N}=\"${{V}-}\"",
    "__CODEX_SNAPSHOT_PROXY_ENV_SET=\"${CODEX_NETWORK_PROXY_ACTIVE+x}\"",
    "if . '{SNAP}' >/dev/null 2>&1; then :; fi",
    "if [ -n \"${__CODEX_SNAPSHOT_OVERRIDE_SET_{N}}\" ]; then",
    "if [ -n \"${__CODEX_SNAPSHOT_PROXY_OVERRIDE_SET_{N}}\" ]; then",
    "  if [ -z \"${{V}+x}\" ] || [ \"${{V}-}\" != \"${__CODEX_SNAPSHOT_OVERRIDE_{N}}\" ]; then export {V}=\"${__CODEX_SNAPSHOT_OVERRIDE_{N}}\"; else export {V}; fi",
    "  if [ -z \"${{V}+x}\" ] || [ \"${{V}-}\" != \"${__CODEX_SNAPSHOT_PROXY_OVERRIDE_{N}}\" ]; then export {V}=\"${__CODEX_SNAPSHOT_PROXY_OVERRIDE_{N}}\"; else export {V}; fi",
    "else builtin unset {V} 2>/dev/null || command unset {V}; fi",
    "builtin unset __CODEX_SNAPSHOT_OVERRIDE_SET_{N} __CODEX_SNAPSHOT_OVERRIDE_{N} 2>/dev/null || command unset __CODEX_SNAPSHOT_OVERRIDE_SET_{N} __CODEX_SNAPSHOT_OVERRIDE_{N}",
    "builtin unset __CODEX_SNAPSHOT_PROXY_OVERRIDE_SET_{N} __CODEX_SNAPSHOT_PROXY_OVERRIDE_{N} 2>/dev/null || command unset __CODEX_SNAPSHOT_PROXY_OVERRIDE_SET_{N} __CODEX_SNAPSHOT_PROXY_OVERRIDE_{N}",
    "if [ -n \"$__CODEX_SNAPSHOT_PROXY_ENV_SET\" ] || [ -n \"${CODEX_NETWORK_PROXY_ACTIVE+x}\" ]; then",
    "builtin unset __CODEX_SNAPSHOT_PROXY_ENV_SET 2>/dev/null || command unset __CODEX_SNAPSHOT_PROXY_ENV_SET",
    "fi",
    "if [ -n \"${PATH:-}\" ]; then export PATH='{DIR}':\"$PATH\"; else export PATH='{DIR}'; fi",
];

/// A template compiled once: literal runs and placeholders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seg {
    Lit(&'static str),
    /// `{N}` digits, `{V}` a variable name, `{DIR}`/`{SNAP}` a path.
    Num,
    Var,
    Dir,
    Snap,
}

fn compile(template: &'static str) -> Vec<Seg> {
    let mut segs = Vec::new();
    let mut lit_start = 0;
    let mut i = 0;
    while i < template.len() {
        let rest = &template[i..];
        let ph = [
            ("{N}", Seg::Num),
            ("{V}", Seg::Var),
            ("{DIR}", Seg::Dir),
            ("{SNAP}", Seg::Snap),
        ]
        .into_iter()
        .find(|(name, _)| rest.starts_with(name));
        match ph {
            Some((name, seg)) => {
                if lit_start < i {
                    segs.push(Seg::Lit(&template[lit_start..i]));
                }
                segs.push(seg);
                i += name.len();
                lit_start = i;
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    if lit_start < template.len() {
        segs.push(Seg::Lit(&template[lit_start..]));
    }
    segs
}

fn codex_templates() -> &'static [Vec<Seg>] {
    static COMPILED: std::sync::OnceLock<Vec<Vec<Seg>>> = std::sync::OnceLock::new();
    COMPILED.get_or_init(|| CODEX_LINES.iter().map(|t| compile(t)).collect())
}

/// Does `line` match the compiled template (placeholders as above)? The
/// same placeholder names the same text throughout a line.
fn line_matches(template: &[Seg], line: &str, places: &Places, snap: &mut Option<PathBuf>) -> bool {
    let l = line.as_bytes();
    let mut j = 0;
    // At most one value per placeholder kind: no allocation.
    let mut seen: [Option<&str>; 4] = [None; 4];
    for seg in template {
        let (slot, stop): (usize, fn(u8) -> bool) = match *seg {
            Seg::Lit(text) => {
                if !line[j..].starts_with(text) {
                    return false;
                }
                j += text.len();
                continue;
            }
            Seg::Num => (0, |b| !b.is_ascii_digit()),
            Seg::Var => (1, |b| !(b.is_ascii_alphanumeric() || b == b'_')),
            Seg::Dir => (2, |b| matches!(b, b'\'' | b'\n' | b'\\' | b'$' | b'`')),
            Seg::Snap => (3, |b| matches!(b, b'\'' | b'\n' | b'\\' | b'$' | b'`')),
        };
        let start = j;
        while j < l.len() && !stop(l[j]) {
            j += 1;
        }
        if j == start {
            return false;
        }
        let value = &line[start..j];
        match seen[slot] {
            Some(v) if v != value => return false,
            Some(_) => {}
            None => seen[slot] = Some(value),
        }
        if *seg == Seg::Snap {
            match codex_snapshot(value, places) {
                Some(p) => *snap = Some(p),
                None => return false,
            }
        }
    }
    j == l.len()
}

/// `<CODEX_HOME>/shell_snapshots/<uuid>.<digits>.sh`.
fn codex_snapshot(path: &str, places: &Places) -> Option<PathBuf> {
    let p = Path::new(path);
    if p.parent()? != places.codex_home.as_ref()?.join("shell_snapshots") {
        return None;
    }
    let name = p.file_name()?.to_str()?.strip_suffix(".sh")?;
    let (uuid, digits) = name.rsplit_once('.')?;
    (uuid.len() >= 32
        && uuid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit()))
    .then(|| p.to_path_buf())
}

fn codex(script: &str, places: &Places) -> Option<Wrapped> {
    // The exec statement starts on the last line that begins `exec '`.
    let at = script.rfind("\nexec '")?;
    let (prefix, exec_text) = (&script[..at], &script[at + 1..]);
    let mut snapshot = None;
    let mut depth: i64 = 0;
    // The templates come in runs (`_SET_0`, `_0`, `_SET_1`, …): start
    // each search at the last one that matched.
    let templates = codex_templates();
    let mut last = 0;
    let n = templates.len();
    for line in prefix.lines() {
        last = (0..n)
            .map(|d| (last + d) % n)
            .find(|&k| line_matches(&templates[k], line, places, &mut snapshot))?;
        let trimmed = line.trim_start();
        if trimmed.starts_with("if ") && trimmed.ends_with("; then") {
            depth += 1;
        }
        if line == "fi" || trimmed.starts_with("else builtin unset") {
            depth -= 1;
        }
        if depth < 0 {
            return None;
        }
    }
    if depth != 0 {
        return None;
    }
    let parsed = parse::parse(exec_text, &parse::Options::default()).ok()?;
    let [item] = parsed.list.items.as_slice() else {
        return None;
    };
    if item.background || !item.and_or.rest.is_empty() || item.and_or.first.bang {
        return None;
    }
    let [Command::Simple(s)] = item.and_or.first.commands.as_slice() else {
        return None;
    };
    if !s.redirects.is_empty() {
        return None;
    }
    let words = argv(s)?;
    let [exec, target, flag, cmd, ..] = words.as_slice() else {
        return None;
    };
    if exec != "exec" || flag != "-c" {
        return None;
    }
    // Only a re-exec of this shim is scaffolding: any other program is
    // judged as what it is.
    let target_path = Path::new(target);
    let canon = std::fs::canonicalize(target_path).ok();
    if !places
        .shims
        .iter()
        .any(|s| s == target_path || canon.as_deref() == Some(s.as_path()))
    {
        return None;
    }
    Some(Wrapped {
        harness: "codex",
        template: "codex-snapshot-wrapper",
        payload: cmd.clone(),
        extra: None,
        snapshot,
    })
}

// ------------------------------------------------------------ Gemini CLI

const GEMINI_HEAD: &str = "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=";
const GEMINI_TRAP: &str = "\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\n";
const GEMINI_TAIL: &str = "\n)\n__code=$?\nexit $__code";

fn gemini(script: &str) -> Option<Wrapped> {
    let rest = script.strip_prefix(GEMINI_HEAD)?;
    let nl = rest.find('\n')?;
    let tmp = &rest[..nl];
    // The bgpids file: a plain path in Gemini's temp directory.
    if !(tmp.starts_with("/tmp/gemini-shell-") || tmp.starts_with("'/tmp/gemini-shell-"))
        || tmp.contains(['$', '`', ';', ' ', '('])
        || !tmp.trim_matches('\'').ends_with("/bgpids.tmp")
    {
        return None;
    }
    let body = rest[nl..].strip_prefix(GEMINI_TRAP)?;
    let payload = body.strip_suffix(GEMINI_TAIL)?;
    // The payload must stand alone (an unbalanced `)` would otherwise
    // escape the subshell), and the whole script must be exactly the
    // template around it.
    parse::parse(payload, &parse::Options::default()).ok()?;
    let whole = parse::parse(script, &parse::Options::default()).ok()?;
    if whole.list.items.len() != 5 {
        return None;
    }
    Some(Wrapped {
        harness: "gemini",
        template: "gemini-subshell",
        payload: payload.to_string(),
        extra: None,
        snapshot: None,
    })
}

#[cfg(test)]
mod tests;
