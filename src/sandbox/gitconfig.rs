//! What a command of git alone may change in a repository's protected
//! configuration: git writes `.git/config` for routine work (`git remote
//! add`, `git submodule add`, `git push -u`, `git config user.email`), so
//! for such a command the file is watched instead of bound read-only, and
//! after it every change outside `GIT_WRITES` is undone. The parser is
//! stricter than git's: a line it does not fully understand makes the
//! change unaccepted (the file is restored), so git can never read a key
//! it did not see.

/// Keys git writes for routine work, by section; nothing here names a
/// program, a hook, a filter, an include or another repository's place.
/// `(section, key, which subsections, why)`.
pub const GIT_WRITES: &[(&str, &str, Sub, &str)] = &[
    (
        "core",
        "repositoryformatversion",
        Sub::None,
        "git init and git clone write the repository's format",
    ),
    (
        "core",
        "filemode",
        Sub::None,
        "git init probes the file system",
    ),
    ("core", "bare", Sub::None, "git init records the layout"),
    (
        "core",
        "logallrefupdates",
        Sub::None,
        "git init turns the reflog on",
    ),
    (
        "core",
        "ignorecase",
        Sub::None,
        "git init probes the file system",
    ),
    (
        "core",
        "precomposeunicode",
        Sub::None,
        "git init probes the file system",
    ),
    (
        "core",
        "symlinks",
        Sub::None,
        "git init probes the file system",
    ),
    (
        "core",
        "sparsecheckout",
        Sub::None,
        "git sparse-checkout turns itself on and off",
    ),
    (
        "core",
        "sparsecheckoutcone",
        Sub::None,
        "git sparse-checkout records its mode",
    ),
    (
        "extensions",
        "worktreeconfig",
        Sub::None,
        "git sparse-checkout keeps its settings per worktree",
    ),
    ("user", "name", Sub::None, "who commits: a name, never run"),
    (
        "user",
        "email",
        Sub::None,
        "who commits: an address, never run",
    ),
    (
        "pull",
        "rebase",
        Sub::None,
        "how git pull joins histories (git asks the user to set it)",
    ),
    ("pull", "ff", Sub::None, "how git pull joins histories"),
    (
        "branch",
        "remote",
        Sub::Any,
        "git push -u and git branch --set-upstream-to record the upstream",
    ),
    (
        "branch",
        "merge",
        Sub::Any,
        "git push -u and git branch --set-upstream-to record the upstream",
    ),
    (
        "branch",
        "rebase",
        Sub::Any,
        "git branch --track records how the branch pulls",
    ),
    (
        "branch",
        "pushremote",
        Sub::Any,
        "which configured remote a branch pushes to",
    ),
    (
        "branch",
        "description",
        Sub::Any,
        "git branch --edit-description: text",
    ),
    (
        "remote",
        "url",
        Sub::Whole,
        "git remote add and remove (an existing remote's address stays: the user's own push must not go elsewhere)",
    ),
    (
        "remote",
        "pushurl",
        Sub::Whole,
        "git remote add and remove, as for url",
    ),
    (
        "remote",
        "fetch",
        Sub::Whole,
        "git remote add and remove write the refspec",
    ),
    (
        "remote",
        "tagopt",
        Sub::Whole,
        "git remote add --no-tags and --tags",
    ),
    ("remote", "mirror", Sub::Whole, "git remote add --mirror"),
    (
        "submodule",
        "url",
        Sub::Any,
        "git submodule add, init and sync record where a submodule comes from",
    ),
    (
        "submodule",
        "active",
        Sub::Any,
        "git submodule add and init mark a submodule in use",
    ),
];

/// Where in a section a key is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sub {
    /// In the section itself (`[core]`).
    None,
    /// In any subsection (`[branch "main"]`).
    Any,
    /// In a subsection added or removed whole (a new or deleted
    /// `[remote "x"]`), never changed in one that stays.
    Whole,
}

/// One `section.subsection.key = value` (names lowercased, the value as
/// written).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    section: String,
    sub: Option<String>,
    key: String,
    value: Option<String>,
}

/// Whether the change from `old` to `new` only touches `GIT_WRITES`;
/// `Err` names what else changed (or what could not be read).
pub fn check(old: &[u8], new: &[u8]) -> Result<(), String> {
    let before = parse(old).map_err(|e| format!("its old content: {e}"))?;
    let after = parse(new).map_err(|e| format!("the new content: {e}"))?;
    let (removed, added) = difference(&before, &after);
    let subs = |list: &[Entry], e: &Entry| {
        list.iter()
            .any(|o| o.section == e.section && o.sub == e.sub)
    };
    for e in removed.iter().chain(&added) {
        // An alias that names a git command (`alias.st = status`): git
        // runs nothing new until it is used, and `git st` is judged when
        // it is. One whose value starts with `!` runs a shell command.
        if e.section == "alias" && e.sub.is_none() {
            let runs = e
                .value
                .as_deref()
                .is_some_and(|v| v.trim_start_matches([' ', '\t', '"']).starts_with('!'));
            if runs && added.contains(e) {
                return Err(format!("it changed {} (a shell command)", e.name()));
            }
            continue;
        }
        let rule = GIT_WRITES
            .iter()
            .find(|(s, k, _, _)| *s == e.section && *k == e.key);
        let ok = match rule {
            None => false,
            Some((_, _, Sub::None, _)) => e.sub.is_none(),
            Some((_, _, Sub::Any, _)) => e.sub.is_some(),
            // Added to a subsection that did not exist, or removed from
            // one that no longer does.
            Some((_, _, Sub::Whole, _)) => {
                e.sub.is_some() && (!subs(&before, e) || !subs(&after, e))
            }
        };
        if !ok {
            return Err(format!("it changed {}", e.name()));
        }
    }
    Ok(())
}

impl Entry {
    fn name(&self) -> String {
        match &self.sub {
            Some(s) => format!("{}.{s:?}.{}", self.section, self.key),
            None => format!("{}.{}", self.section, self.key),
        }
    }
}

/// The entries in one list and not the other (as multisets).
fn difference(a: &[Entry], b: &[Entry]) -> (Vec<Entry>, Vec<Entry>) {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort();
    b.sort();
    let (mut i, mut j) = (0, 0);
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                only_a.push(x.clone());
                i += 1;
            }
            (Some(_), Some(y)) | (None, Some(y)) => {
                only_b.push(y.clone());
                j += 1;
            }
            (Some(x), None) => {
                only_a.push(x.clone());
                i += 1;
            }
            (None, None) => break,
        }
    }
    (only_a, only_b)
}

/// A configuration file in the forms git writes; anything else (a
/// continued line, an unclosed quote, a header git would read otherwise)
/// is an error.
fn parse(bytes: &[u8]) -> Result<Vec<Entry>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let mut out = Vec::new();
    let mut section: Option<(String, Option<String>)> = None;
    for (n, raw) in text.split('\n').enumerate() {
        let bad = |why: &str| format!("line {}: {why}", n + 1);
        let mut line = raw
            .strip_suffix('\r')
            .unwrap_or(raw)
            .trim_start_matches([' ', '\t']);
        if let Some(rest) = line.strip_prefix('[') {
            let (head, after) =
                header(rest).ok_or_else(|| bad("a section header automode does not read"))?;
            section = Some(head);
            line = after.trim_start_matches([' ', '\t']);
        }
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let Some((s, sub)) = &section else {
            return Err(bad("a key outside any section"));
        };
        let name_len = line
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(line.len());
        let key = &line[..name_len];
        if key.is_empty() || !key.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(bad("not a key"));
        }
        let rest = line[name_len..].trim_start_matches([' ', '\t']);
        let value = if rest.is_empty() || rest.starts_with(['#', ';']) {
            None
        } else if let Some(v) = rest.strip_prefix('=') {
            Some(value(v).ok_or_else(|| bad("a value automode does not read"))?)
        } else {
            return Err(bad("not a key"));
        };
        out.push(Entry {
            section: s.clone(),
            sub: sub.clone(),
            key: key.to_ascii_lowercase(),
            value,
        });
    }
    Ok(out)
}

/// `name]` or `name "sub"]` after the `[`: the section and what follows
/// the header on its line.
fn header(rest: &str) -> Option<((String, Option<String>), &str)> {
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(rest.len());
    let name = &rest[..name_len];
    if name.is_empty() {
        return None;
    }
    let rest = &rest[name_len..];
    if let Some(after) = rest.strip_prefix(']') {
        return Some(((name.to_ascii_lowercase(), None), after));
    }
    let quoted = rest.strip_prefix(' ')?.strip_prefix('"')?;
    let mut sub = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => sub.push(chars.next()?.1),
            '"' => {
                let after = quoted[i + 1..].strip_prefix(']')?;
                return Some(((name.to_ascii_lowercase(), Some(sub)), after));
            }
            _ => sub.push(c),
        }
    }
    None
}

/// A value as written (quotes and escapes kept), its comment and the
/// surrounding blanks taken off; `None` for a continued line or an
/// unclosed quote.
fn value(v: &str) -> Option<String> {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                out.push(chars.next()?);
            }
            '"' => {
                quoted = !quoted;
                out.push(c);
            }
            '#' | ';' if !quoted => break,
            _ => out.push(c),
        }
    }
    (!quoted).then(|| out.trim_matches([' ', '\t']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/a.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n";

    fn ok(new: &str) -> bool {
        check(BASE.as_bytes(), new.as_bytes()).is_ok()
    }

    #[test]
    fn what_git_writes_for_routine_work_is_accepted() {
        let remote = format!(
            "{BASE}[remote \"up\"]\n\turl = https://example.com/b.git\n\tfetch = +refs/heads/*:refs/remotes/up/*\n"
        );
        assert!(ok(&remote));
        let sub = format!(
            "{BASE}[submodule \"lib\"]\n\turl = /srv/lib\n\tactive = true\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\temail = a@example.com\n"
        );
        assert!(ok(&sub));
        // An alias naming a git command (git runs nothing until it is
        // used, and `git st` is judged then).
        assert!(ok(&format!(
            "{BASE}[alias]\n\tst = status\n\tlg = log --oneline\n"
        )));
        // Removing a remote whole.
        assert!(ok(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
        ));
        assert!(ok(BASE));
    }

    #[test]
    fn anything_that_runs_a_program_or_moves_a_push_is_refused() {
        for extra in [
            "[core]\n\tfsmonitor = ./evil\n",
            "[core] hooksPath = .h\n",
            "[CORE]\n\tPager = evil\n",
            "[include]\n\tpath = ../x\n",
            "[includeIf \"gitdir:/\"]\n\tpath = x\n",
            "[filter \"x\"]\n\tclean = evil\n",
            "[alias]\n\tst = !evil\n",
            "[alias]\n\tst = \"!evil\"\n",
            "[alias]\n\tst =  ! evil\n",
            "[alias \"x\"]\n\tst = status\n",
            "[submodule \"lib\"]\n\tupdate = !evil\n",
            "[remote \"origin\"]\n\tuploadpack = evil\n",
            "[core]\n\tsshCommand = evil\n",
            "[user]\n\temail = a\\\n[core]\n\tfsmonitor = evil\n",
            "[core \"x\"]\n\tbare = false\n",
            "[user]\n\tname = \"open\n",
            "[core.x]\n\tbare = false\n",
            "[ core ]\n\tfsmonitor = evil\n",
        ] {
            assert!(!ok(&format!("{BASE}{extra}")), "{extra}");
        }
        // An existing remote's address stays.
        assert!(!ok(&BASE.replace("example.com/a", "attacker.example/a")));
        assert!(!ok(&format!(
            "{BASE}\tpushurl = https://attacker.example/a\n"
        )));
    }

    #[test]
    fn comments_and_layout_are_read_like_git() {
        let p = parse(
            b"# c\n[core] bare = true ; c\n\tx = \"a;b\" # c\n[sec \"A \\\"q\\\"\"]\n\tflag\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].key, "bare");
        assert_eq!(p[0].value.as_deref(), Some("true"));
        assert_eq!(p[1].value.as_deref(), Some("\"a;b\""));
        assert_eq!(p[2].sub.as_deref(), Some("A \"q\""));
        assert_eq!(p[2].value, None);
        assert!(parse(b"bare = true\n").is_err());
        assert!(parse(b"[core]\n\tbare = \xff\n").is_err());
    }
}
