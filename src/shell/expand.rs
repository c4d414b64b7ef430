//! Word expansion as far as it can be done before running anything:
//! quote removal, brace expansion, tilde expansion, literal positional
//! parameters, variables from the environment automode was started with;
//! globs and everything else are reported as such, never guessed.

use super::analysis::{Arg, ArgValue};
use super::ast::{Param, Part, Word};

/// Largest number of words one brace expansion may produce before we
/// call the word dynamic.
const MAX_BRACE_WORDS: usize = 1024;

/// What a variable name is worth at analysis time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarValue {
    /// From the environment, never changed by the script.
    Known(String),
    /// Set or changed by the script, or otherwise unknown.
    Unknown,
}

/// The positional parameters, when known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Positional {
    pub dollar0: String,
    pub args: Vec<String>,
}

/// Where a word is expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A command argument: brace expansion, field splitting, globbing.
    Argv,
    /// An assignment value: tilde after `=` and `:`, no splitting.
    Assign,
    /// A redirection target, case word, here-string: one word.
    Single,
}

/// What expansion needs from its surroundings.
pub trait Env {
    fn home(&self) -> Option<String>;
    /// `None` when the positional parameters are not known here.
    fn positional(&self) -> Option<&Positional>;
    fn var(&self, name: &str) -> VarValue;
    fn user_home(&self, user: &str) -> Option<String>;
}

/// One segment of a word being expanded.
#[derive(Debug, Clone)]
enum Seg {
    Text(String, bool),
    /// A dynamic part; `resolved` if known; `quoted` if inside "…".
    Dyn {
        resolved: Option<String>,
        quoted: bool,
    },
    /// `"$@"` with known arguments: separate words.
    AtWords(Vec<String>),
}

/// Plain text with nothing to expand: its value, if so (the common case,
/// kept cheap).
fn plain_text(w: &Word) -> Option<String> {
    // First check and measure, then copy once.
    let mut len = 0;
    for p in &w.parts {
        match p {
            Part::Lit { text, quoted } => {
                if !quoted
                    && text
                        .bytes()
                        .any(|b| matches!(b, b'{' | b'~' | b'*' | b'?' | b'['))
                {
                    return None;
                }
                len += text.len();
            }
            Part::Double(inner) => {
                for q in inner {
                    match q {
                        Part::Lit { text, .. } => len += text.len(),
                        _ => return None,
                    }
                }
            }
            Part::Param(_) | Part::CommandSub { .. } | Part::Arith(_) | Part::ProcessSub { .. } => {
                return None;
            }
        }
    }
    let mut out = String::with_capacity(len);
    for p in &w.parts {
        match p {
            Part::Lit { text, .. } => out.push_str(text),
            Part::Double(inner) => {
                for q in inner {
                    if let Part::Lit { text, .. } = q {
                        out.push_str(text);
                    }
                }
            }
            _ => {}
        }
    }
    Some(out)
}

/// Expand a word into the argument words it becomes.
pub fn expand(w: &Word, mode: Mode, env: &dyn Env) -> Vec<Arg> {
    let mut out = Vec::new();
    expand_into(w, mode, env, &mut out);
    out
}

/// `expand`, appending the words to `out`.
pub fn expand_into(w: &Word, mode: Mode, env: &dyn Env, out: &mut Vec<Arg>) {
    if let Some(text) = plain_text(w) {
        out.push(Arg {
            raw: w.raw.as_str().to_owned(),
            value: ArgValue::Literal { text },
        });
        return;
    }
    out.extend(expand_parts(w, mode, env));
}

/// `expand` for a word that is not plain text.
fn expand_parts(w: &Word, mode: Mode, env: &dyn Env) -> Vec<Arg> {
    let mut segs = Vec::new();
    for p in &w.parts {
        segments(p, false, env, &mut segs);
    }
    let raw = w.raw.as_str().to_owned();
    let has_dyn = segs.iter().any(|s| !matches!(s, Seg::Text(..)));
    if !has_dyn {
        let chars: Vec<(char, bool)> = segs
            .iter()
            .flat_map(|s| match s {
                Seg::Text(t, q) => t.chars().map(|c| (c, *q)).collect::<Vec<_>>(),
                Seg::Dyn { .. } | Seg::AtWords(_) => Vec::new(),
            })
            .collect();
        return expand_literal(&chars, mode, env, &raw);
    }
    // `"$@"` alone: one word per argument.
    if segs.len() == 1
        && let Seg::AtWords(words) = &segs[0]
    {
        return words
            .iter()
            .map(|t| Arg {
                raw: raw.clone(),
                value: ArgValue::Literal { text: t.clone() },
            })
            .collect();
    }
    // Otherwise one dynamic word, resolved when every part is known and
    // no unquoted part would be split or globbed.
    let mut resolved = Some(String::new());
    let mut any_quoted = false;
    for s in &segs {
        match s {
            Seg::Text(t, q) => {
                any_quoted |= *q;
                if let Some(r) = resolved.as_mut() {
                    r.push_str(t);
                }
            }
            Seg::Dyn {
                resolved: Some(v),
                quoted,
            } => {
                any_quoted |= *quoted;
                let splits = !quoted
                    && mode == Mode::Argv
                    && v.chars()
                        .any(|c| matches!(c, ' ' | '\t' | '\n' | '*' | '?' | '['));
                match resolved.as_mut() {
                    Some(r) if !splits => r.push_str(v),
                    _ => resolved = None,
                }
            }
            Seg::Dyn { resolved: None, .. } | Seg::AtWords(_) => resolved = None,
        }
    }
    // An unquoted expansion to nothing would vanish from the command; it
    // is kept as a dynamic word so argv[0] stays visibly dynamic.
    let _ = any_quoted;
    vec![Arg {
        raw,
        value: ArgValue::Dynamic { resolved },
    }]
}

fn segments(p: &Part, quoted: bool, env: &dyn Env, out: &mut Vec<Seg>) {
    match p {
        Part::Lit { text, quoted: q } => {
            out.push(Seg::Text(text.as_str().to_owned(), quoted || *q));
        }
        Part::Double(inner) => {
            if inner.is_empty() {
                out.push(Seg::Text(String::new(), true));
            }
            for q in inner {
                segments(q, true, env, out);
            }
        }
        Part::Param(param) => out.push(param_seg(param, quoted, env)),
        Part::CommandSub { .. } | Part::Arith(_) | Part::ProcessSub { .. } => out.push(Seg::Dyn {
            resolved: None,
            quoted,
        }),
    }
}

fn param_seg(p: &Param, quoted: bool, env: &dyn Env) -> Seg {
    let unknown = Seg::Dyn {
        resolved: None,
        quoted,
    };
    if !p.plain {
        return unknown;
    }
    let name = p.name.as_str();
    if let Ok(n) = name.parse::<usize>() {
        let Some(pos) = env.positional() else {
            return unknown;
        };
        let v = if n == 0 {
            pos.dollar0.clone()
        } else {
            pos.args.get(n - 1).cloned().unwrap_or_default()
        };
        return literal_value(v, quoted);
    }
    match name {
        "@" | "*" => {
            let Some(pos) = env.positional() else {
                return unknown;
            };
            if quoted && name == "@" {
                Seg::AtWords(pos.args.clone())
            } else {
                literal_value(pos.args.join(" "), quoted)
            }
        }
        "#" => match env.positional() {
            Some(pos) => Seg::Text(pos.args.len().to_string(), true),
            None => unknown,
        },
        _ if super::parse::is_name(name) => match env.var(name) {
            VarValue::Known(v) => Seg::Dyn {
                resolved: Some(v),
                quoted,
            },
            VarValue::Unknown => unknown,
        },
        _ => unknown,
    }
}

/// A positional parameter's known value: literal text, unless unquoted
/// and empty (the word may vanish) or splittable or a pattern.
fn literal_value(v: String, quoted: bool) -> Seg {
    if quoted {
        return Seg::Text(v, true);
    }
    if v.is_empty()
        || v.chars()
            .any(|c| matches!(c, ' ' | '\t' | '\n' | '*' | '?' | '['))
    {
        return Seg::Dyn {
            resolved: Some(v),
            quoted,
        };
    }
    Seg::Text(v, true)
}

/// A word with no dynamic parts: brace, tilde, glob.
fn expand_literal(chars: &[(char, bool)], mode: Mode, env: &dyn Env, raw: &str) -> Vec<Arg> {
    let words = if mode == Mode::Argv || mode == Mode::Single {
        match brace_expand(chars, 0) {
            Some(w) => w,
            None => {
                return vec![Arg {
                    raw: raw.to_string(),
                    value: ArgValue::Dynamic { resolved: None },
                }];
            }
        }
    } else {
        vec![chars.to_vec()]
    };
    if mode == Mode::Single && words.len() > 1 {
        // bash: "ambiguous redirect"; report as dynamic.
        return vec![Arg {
            raw: raw.to_string(),
            value: ArgValue::Dynamic { resolved: None },
        }];
    }
    words
        .into_iter()
        .map(|w| {
            let value = match tilde(&w, mode, env) {
                TildeResult::Dynamic => ArgValue::Dynamic { resolved: None },
                TildeResult::Chars(cs) => {
                    let text: String = cs.iter().map(|(c, _)| *c).collect();
                    if mode != Mode::Assign && is_glob(&cs) {
                        ArgValue::Glob { pattern: text }
                    } else {
                        ArgValue::Literal { text }
                    }
                }
            };
            Arg {
                raw: raw.to_string(),
                value,
            }
        })
        .collect()
}

enum TildeResult {
    Chars(Vec<(char, bool)>),
    Dynamic,
}

/// Tilde expansion at the start (and after `=`/`:` in assignments).
fn tilde(w: &[(char, bool)], mode: Mode, env: &dyn Env) -> TildeResult {
    let mut out = Vec::with_capacity(w.len());
    let mut i = 0;
    let mut at_start = true;
    while i < w.len() {
        if at_start && w[i] == ('~', false) {
            let end = w[i..]
                .iter()
                .position(|(c, q)| *q || *c == '/' || (mode == Mode::Assign && *c == ':'))
                .map_or(w.len(), |k| i + k);
            let quoted_inside = w[i..end].iter().any(|(_, q)| *q);
            let user: String = w[i + 1..end].iter().map(|(c, _)| *c).collect();
            let stops_cleanly = end == w.len() || !w[end].1;
            if !quoted_inside && stops_cleanly {
                let home = if user.is_empty() {
                    env.home()
                } else if user == "+" || user == "-" {
                    return TildeResult::Dynamic;
                } else {
                    env.user_home(&user)
                };
                if let Some(h) = home {
                    out.extend(h.chars().map(|c| (c, true)));
                    i = end;
                    at_start = false;
                    continue;
                }
            }
        }
        at_start = mode == Mode::Assign && !w[i].1 && w[i].0 == ':';
        out.push(w[i]);
        i += 1;
    }
    TildeResult::Chars(out)
}

/// Does the word contain an unquoted glob pattern?
fn is_glob(w: &[(char, bool)]) -> bool {
    for (k, (c, q)) in w.iter().enumerate() {
        if *q {
            continue;
        }
        match c {
            '*' | '?' => return true,
            '[' if w[k + 1..].iter().skip(1).any(|(d, dq)| *d == ']' && !dq) => return true,
            _ => {}
        }
    }
    false
}

/// bash brace expansion over characters with their quoted flags. None if
/// the result would be too large.
pub fn brace_expand(w: &[(char, bool)], depth: usize) -> Option<Vec<Vec<(char, bool)>>> {
    if depth > 64 {
        return None;
    }
    // Find the first unquoted `{` with a matching `}` that has a top-level
    // comma or is a valid sequence.
    let mut start = 0;
    while start < w.len() {
        if w[start] == ('{', false)
            && (start == 0 || w[start - 1] != ('$', false))
            && let Some((close, kind)) = brace_group(w, start)
        {
            {
                let pre = &w[..start];
                let post = &w[close + 1..];
                let alternatives: Vec<Vec<(char, bool)>> = match kind {
                    BraceKind::Commas(splits) => {
                        let mut alts = Vec::new();
                        let mut from = start + 1;
                        for s in splits.into_iter().chain(std::iter::once(close)) {
                            let alt = &w[from..s];
                            for e in brace_expand(alt, depth + 1)? {
                                alts.push(e);
                            }
                            from = s + 1;
                        }
                        alts
                    }
                    BraceKind::Sequence(items) => items
                        .into_iter()
                        .map(|s| s.chars().map(|c| (c, true)).collect())
                        .collect(),
                    BraceKind::TooLarge => return None,
                };
                let posts = brace_expand(post, depth + 1)?;
                let mut out = Vec::new();
                for a in &alternatives {
                    for p in &posts {
                        let mut word = pre.to_vec();
                        word.extend_from_slice(a);
                        word.extend_from_slice(p);
                        out.push(word);
                        if out.len() > MAX_BRACE_WORDS {
                            return None;
                        }
                    }
                }
                return Some(out);
            }
        }
        start += 1;
    }
    Some(vec![w.to_vec()])
}

enum BraceKind {
    Commas(Vec<usize>),
    Sequence(Vec<String>),
    /// A valid sequence with too many members to enumerate.
    TooLarge,
}

fn brace_group(w: &[(char, bool)], open: usize) -> Option<(usize, BraceKind)> {
    let mut depth = 0usize;
    let mut commas = Vec::new();
    for (k, &(c, q)) in w.iter().enumerate().skip(open + 1) {
        if q {
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            '}' => {
                if !commas.is_empty() {
                    return Some((k, BraceKind::Commas(commas)));
                }
                let inner: String = w[open + 1..k].iter().map(|(c, _)| *c).collect();
                return match sequence(&inner) {
                    Sequence::Items(s) => Some((k, BraceKind::Sequence(s))),
                    Sequence::TooLarge => Some((k, BraceKind::TooLarge)),
                    Sequence::Not => None,
                };
            }
            ',' if depth == 0 => commas.push(k),
            _ => {}
        }
    }
    None
}

enum Sequence {
    Items(Vec<String>),
    TooLarge,
    Not,
}

/// `{a..e}`, `{1..10}`, `{01..10..2}`, `{5..1}`.
fn sequence(inner: &str) -> Sequence {
    match sequence_items(inner) {
        Some(Ok(items)) => Sequence::Items(items),
        Some(Err(())) => Sequence::TooLarge,
        None => Sequence::Not,
    }
}

fn sequence_items(inner: &str) -> Option<Result<Vec<String>, ()>> {
    let parts: Vec<&str> = inner.split("..").collect();
    if parts.len() != 2 && parts.len() != 3 {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let (a, b) = (parts[0], parts[1]);
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let width = if (a.starts_with('0') && a.len() > 1)
            || (b.starts_with('0') && b.len() > 1)
            || a.starts_with("-0")
            || b.starts_with("-0")
        {
            a.len().max(b.len())
        } else {
            0
        };
        let Some(diff) = x.checked_sub(y) else {
            return Some(Err(()));
        };
        let count = diff.unsigned_abs() / step.unsigned_abs() + 1;
        if count as usize > MAX_BRACE_WORDS {
            return Some(Err(()));
        }
        let mut out = Vec::new();
        let mut v = x;
        loop {
            out.push(if width > 0 {
                format!("{v:0width$}")
            } else {
                v.to_string()
            });
            if v == y {
                break;
            }
            let next = if x < y {
                v.checked_add(step).filter(|n| *n <= y)
            } else {
                v.checked_sub(step).filter(|n| *n >= y)
            };
            match next {
                Some(n) => v = n,
                None => break,
            }
        }
        return Some(Ok(out));
    }
    let (ac, bc) = (single_char(a)?, single_char(b)?);
    if !ac.is_ascii_alphabetic() || !bc.is_ascii_alphabetic() {
        return None;
    }
    let (x, y) = (ac as i64, bc as i64);
    let mut out = Vec::new();
    let mut v = x;
    loop {
        let Some(c) = u32::try_from(v).ok().and_then(char::from_u32) else {
            return Some(Err(()));
        };
        out.push(c.to_string());
        if v == y {
            break;
        }
        let next = if x < y {
            v.checked_add(step).filter(|n| *n <= y)
        } else {
            v.checked_sub(step).filter(|n| *n >= y)
        };
        match next {
            Some(n) => v = n,
            None => break,
        }
    }
    Some(Ok(out))
}

fn single_char(s: &str) -> Option<char> {
    let mut it = s.chars();
    let c = it.next()?;
    it.next().is_none().then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<(char, bool)> {
        s.chars().map(|c| (c, false)).collect()
    }

    fn strings(v: Option<Vec<Vec<(char, bool)>>>) -> Vec<String> {
        v.unwrap_or_default()
            .into_iter()
            .map(|w| w.into_iter().map(|(c, _)| c).collect())
            .collect()
    }

    #[test]
    fn expands_braces_like_bash() {
        assert_eq!(strings(brace_expand(&chars("a{b,c}d"), 0)), ["abd", "acd"]);
        assert_eq!(
            strings(brace_expand(&chars("{rm,-rf,/}"), 0)),
            ["rm", "-rf", "/"]
        );
        assert_eq!(
            strings(brace_expand(&chars("{a,b{c,d}}"), 0)),
            ["a", "bc", "bd"]
        );
        assert_eq!(
            strings(brace_expand(&chars("x{1..3}"), 0)),
            ["x1", "x2", "x3"]
        );
        assert_eq!(
            strings(brace_expand(&chars("{01..03}"), 0)),
            ["01", "02", "03"]
        );
        assert_eq!(
            strings(brace_expand(&chars("{5..1..2}"), 0)),
            ["5", "3", "1"]
        );
        assert_eq!(strings(brace_expand(&chars("{a..c}"), 0)), ["a", "b", "c"]);
        assert_eq!(strings(brace_expand(&chars("{a}"), 0)), ["{a}"]);
        assert_eq!(strings(brace_expand(&chars("{}"), 0)), ["{}"]);
        assert_eq!(strings(brace_expand(&chars("a{,b}"), 0)), ["a", "ab"]);
        assert!(brace_expand(&chars("{1..100000}"), 0).is_none());
    }

    #[test]
    fn quoted_braces_do_not_expand() {
        let w: Vec<(char, bool)> = "{a,b}".chars().map(|c| (c, true)).collect();
        assert_eq!(strings(brace_expand(&w, 0)), ["{a,b}"]);
    }
}
