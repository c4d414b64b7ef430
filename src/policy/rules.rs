//! Permission rules (seed 001): `bash(pattern)`, `read(path)`,
//! `write(path)`, or a bare tool name; Claude Code's spelling too
//! (`Bash(npm test:*)`: the command `npm test` with any arguments,
//! `Bash(git status)`: exactly that). Deny and ask rules match
//! case-insensitively (they only tighten); allow rules match the way the
//! file system does, case-sensitively (`./scripts/build.sh` is not
//! `./SCRIPTS/BUILD.SH`). `*` matches any run of characters including
//! `/` and newlines. Matching is linear time
//! (a greedy matcher with one backtrack point per star: no blow-up), with
//! bounded pattern (4,096) and argument (1,048,576) lengths in UTF-16
//! units. An over-long argument matches deny and ask rules and never an
//! allow rule.

/// Longest pattern accepted.
pub const MAX_PATTERN_UNITS: usize = 4096;
/// Longest argument matched.
pub const MAX_ARGUMENT_UNITS: usize = 1_048_576;

/// What a rule applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleKind {
    Bash,
    Read,
    Write,
    /// Another tool name (bare): never matches a shell command.
    Other(String),
}

/// A parsed rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub kind: RuleKind,
    /// The pattern as written (None: the bare tool, any argument).
    pub pattern: Option<Vec<char>>,
    /// The pattern lower-cased, for deny and ask rules.
    pub lowered: Option<Vec<char>>,
    /// Claude Code's `PREFIX:*`: the pattern alone, or followed by a space
    /// and anything.
    pub prefix: bool,
    pub text: String,
}

/// Parse `bash(git push*)`, `read(~/.ssh/*)`, `Bash`, … None if invalid.
pub fn parse(text: &str) -> Result<Rule, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty rule".into());
    }
    let (tool, pattern) = match t.find('(') {
        Some(open) if t.ends_with(')') => (&t[..open], Some(&t[open + 1..t.len() - 1])),
        Some(_) => return Err(format!("rule {t:?} has an unclosed parenthesis")),
        None => (t, None),
    };
    if let Some(p) = pattern
        && p.encode_utf16().count() > MAX_PATTERN_UNITS
    {
        return Err(format!(
            "rule pattern longer than {MAX_PATTERN_UNITS} UTF-16 units"
        ));
    }
    if !tool
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        || !tool.starts_with(|c: char| c.is_ascii_alphabetic())
    {
        return Err(format!(
            "{t:?} is not a rule: write bash(PATTERN) for shell commands, e.g. bash({})",
            t.to_lowercase()
        ));
    }
    let kind = match tool.to_ascii_lowercase().as_str() {
        "bash" | "shell" | "sh" => RuleKind::Bash,
        "read" => RuleKind::Read,
        "write" | "edit" => RuleKind::Write,
        other => RuleKind::Other(other.to_string()),
    };
    let (pattern, prefix) = match pattern.map(str::trim) {
        Some(p) if kind == RuleKind::Bash && p.ends_with(":*") => {
            (Some(p[..p.len() - 2].trim_end()), true)
        }
        other => (other, false),
    };
    Ok(Rule {
        kind,
        pattern: pattern.map(|p| p.chars().collect()),
        lowered: pattern.map(|p| p.to_lowercase().chars().collect()),
        prefix,
        text: t.to_string(),
    })
}

/// What a rule is matched for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// A deny or ask rule: it may only tighten, so it matches
    /// case-insensitively and an over-long argument matches it.
    Tighten,
    /// An allow rule: case-sensitive, as file names are, and never an
    /// over-long argument.
    Allow,
}

/// Does the rule match `text`, used as `how`?
pub fn matches(rule: &Rule, text: &str, how: Use) -> bool {
    let (Some(pattern), Some(lowered)) = (&rule.pattern, &rule.lowered) else {
        return true;
    };
    if text.encode_utf16().count() > MAX_ARGUMENT_UNITS {
        return how == Use::Tighten;
    }
    let (pattern, text): (&Vec<char>, Vec<char>) = match how {
        Use::Tighten => (lowered, text.to_lowercase().chars().collect()),
        Use::Allow => (pattern, text.chars().collect()),
    };
    if glob_match(pattern, &text) {
        return true;
    }
    rule.prefix && {
        let mut with_args = pattern.clone();
        with_args.extend([' ', '*']);
        glob_match(&with_args, &text)
    }
}

/// `*`-only glob match in O(|p| + |s|): the literal segments between
/// stars are found left to right, each with a linear (KMP) search; the
/// first must be a prefix and the last a suffix unless a star is there.
fn glob_match(p: &[char], s: &[char]) -> bool {
    let segments: Vec<&[char]> = p.split(|c| *c == '*').collect();
    if segments.len() == 1 {
        return p == s;
    }
    let (first, rest) = match segments.split_first() {
        Some(x) => x,
        None => return true,
    };
    let (last, middle) = match rest.split_last() {
        Some(x) => x,
        None => return true,
    };
    if !s.starts_with(first) {
        return false;
    }
    let mut from = first.len();
    for seg in middle {
        if seg.is_empty() {
            continue;
        }
        match find(&s[from..], seg) {
            Some(at) => from += at + seg.len(),
            None => return false,
        }
    }
    s.len() >= from + last.len() && s.ends_with(last)
}

/// Knuth–Morris–Pratt search: the first index of `needle` in `hay`.
fn find(hay: &[char], needle: &[char]) -> Option<usize> {
    let mut fail = vec![0usize; needle.len()];
    let mut k = 0;
    for i in 1..needle.len() {
        while k > 0 && needle[i] != needle[k] {
            k = fail[k - 1];
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        fail[i] = k;
    }
    let mut q = 0;
    for (i, c) in hay.iter().enumerate() {
        while q > 0 && *c != needle[q] {
            q = fail[q - 1];
        }
        if *c == needle[q] {
            q += 1;
        }
        if q == needle.len() {
            return Some(i + 1 - needle.len());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn m(rule: &str, text: &str) -> bool {
        matches(
            &parse(rule).unwrap_or_else(|e| panic!("{e}")),
            text,
            Use::Tighten,
        )
    }

    fn allows(rule: &str, text: &str) -> bool {
        matches(
            &parse(rule).unwrap_or_else(|e| panic!("{e}")),
            text,
            Use::Allow,
        )
    }

    #[test]
    fn allow_rules_match_the_way_the_file_system_does() {
        assert!(allows("Bash(./scripts/build.sh)", "./scripts/build.sh"));
        assert!(!allows("Bash(./scripts/build.sh)", "./SCRIPTS/BUILD.SH"));
        assert!(!allows("bash(make *)", "MAKE install"));
        assert!(allows("Bash(npm test:*)", "npm test -- --watch"));
        assert!(!allows("Bash(npm test:*)", "NPM test"));
        // Deny and ask rules still catch every spelling.
        assert!(m("Bash(./scripts/build.sh)", "./SCRIPTS/BUILD.SH"));
    }

    #[test]
    fn matches_case_insensitively_across_slashes_and_newlines() {
        assert!(m("bash(git push*)", "git push --force"));
        assert!(m("Bash(GIT PUSH*)", "git push"));
        assert!(!m("bash(git push*)", "git pull"));
        assert!(m("bash(*rm -rf*)", "cd x\nrm -rf /tmp/a/b"));
        assert!(m("read(~/.ssh/*)", "~/.ssh/a/b"));
        assert!(m("bash(*)", ""));
        assert!(m("bash(a*b*c)", "axxbyyc"));
        assert!(!m("bash(a*b*c)", "axxbyy"));
        assert!(m("bash", "anything"));
    }

    #[test]
    fn claude_codes_spelling_means_what_it_means_there() {
        // `:*` is a prefix: the words, alone or with arguments.
        assert!(m("Bash(npm test:*)", "npm test"));
        assert!(m("Bash(npm test:*)", "npm test -- --watch"));
        assert!(!m("Bash(npm test:*)", "npm testing"));
        assert!(!m("Bash(npm test:*)", "npm run test"));
        assert!(m("Bash(npx cowsay:*)", "npx cowsay hello"));
        // Without a star: exactly that command.
        assert!(m("Bash(git status)", "git status"));
        assert!(!m("Bash(git status)", "git status --short"));
        assert!(m("bash(npx cowsay *)", "npx cowsay hi"));
    }

    #[test]
    fn rejects_bad_rules() {
        assert!(parse("npx cowsay*").is_err_and(|e| e.contains("bash(npx cowsay*)")));
        assert!(parse("git status").is_err());
        assert!(parse("WebFetch").is_ok());
        assert!(parse("").is_err());
        assert!(parse("bash(x").is_err());
        assert!(parse(&format!("bash({})", "a".repeat(MAX_PATTERN_UNITS + 1))).is_err());
    }

    #[test]
    fn worst_cases_stay_linear() {
        let text = "a".repeat(MAX_ARGUMENT_UNITS);
        for pattern in [
            format!("bash({}b)", "*a".repeat(2000)),
            format!("bash(*{}b)", "a".repeat(4000)),
            format!("bash(*{}*b*)", "a".repeat(4000)),
            format!("bash({}b*)", "a".repeat(4000)),
        ] {
            let rule = parse(&pattern).unwrap_or_else(|e| panic!("{e}"));
            let start = Instant::now();
            assert!(!matches(&rule, &text, Use::Allow));
            assert!(
                start.elapsed() < Duration::from_secs(2),
                "{:?}",
                start.elapsed()
            );
        }
    }

    #[test]
    fn overlong_arguments_match_deny_and_never_allow() {
        let rule = parse("bash(safe*)").unwrap_or_else(|e| panic!("{e}"));
        let long = format!("safe{}", "x".repeat(MAX_ARGUMENT_UNITS));
        assert!(matches(&rule, &long, Use::Tighten));
        assert!(!matches(&rule, &long, Use::Allow));
    }
}
