//! git: which subcommands only read, which are routine local work, which
//! the classifier must see; and the repository probe that the read-only
//! path needs (a repository can configure programs that even `git status`
//! runs: core.fsmonitor, textconv and external diff drivers, clean/smudge
//! filters), with the environment overrides read-only git runs under.

use std::path::{Path, PathBuf};

use super::places::Places;
use super::tools::{Class, inside};

/// Subcommands that only read the repository.
const READ_ONLY: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "annotate",
    "shortlog",
    "describe",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "grep",
    "cat-file",
    "for-each-ref",
    "show-ref",
    "merge-base",
    "name-rev",
    "count-objects",
    "whatchanged",
    "reflog",
    "cherry",
    "range-diff",
    "diff-tree",
    "diff-files",
    "diff-index",
    "check-ignore",
    "check-attr",
    "check-ref-format",
    "var",
    "help",
    "version",
    "verify-commit",
    "verify-tag",
    "show-branch",
    "fsck",
    "bugreport_",
];

/// Local work: changes the repository or working tree inside the project.
const ROUTINE: &[&str] = &[
    "add",
    "commit",
    "switch",
    "merge",
    "rebase",
    "cherry-pick",
    "revert",
    "fetch",
    "pull",
    "clone",
    "init",
    "mv",
    "am",
    "apply",
    "format-patch",
    "bisect",
    "notes",
    "gc",
    "prune",
    "repack",
    "sparse-checkout",
    "archive",
    "bundle",
    "rerere",
    "stage",
    "subtree",
    "request-pull",
];

/// Local config keys (or prefixes) that change nothing git runs, with
/// what each sets.
const SAFE_CONFIG_KEYS: &[(&str, &str)] = &[
    ("user.", "who commits: names and addresses, never run"),
    ("core.autocrlf", "line endings on checkout and commit"),
    ("core.eol", "line endings in the working tree"),
    ("core.ignorecase", "how file names compare"),
    ("core.filemode", "whether the executable bit is tracked"),
    ("core.quotepath", "how paths are printed"),
    ("core.safecrlf", "a check on line-ending conversion"),
    ("core.whitespace", "which whitespace problems are shown"),
    ("core.precomposeunicode", "how file names are encoded"),
    ("core.symlinks", "whether links are checked out as links"),
    ("core.longpaths", "long paths on Windows file systems"),
    ("core.compression", "how hard objects are compressed"),
    (
        "core.bigfilethreshold",
        "when files are stored without deltas",
    ),
    ("pull.", "how git pull joins histories (rebase, ff)"),
    ("push.default", "which branch git push sends"),
    (
        "push.autosetupremote",
        "push -u by default for a new branch",
    ),
    ("init.defaultbranch", "the first branch's name"),
    ("color.", "colours of git's output"),
    ("branch.", "a branch's upstream and merge options"),
    (
        "fetch.prune",
        "deleting remote-tracking branches that are gone",
    ),
    ("fetch.prunetags", "deleting tags that are gone"),
    ("merge.ff", "whether merges fast-forward"),
    ("merge.conflictstyle", "how conflicts are marked"),
    ("rebase.autostash", "stash before a rebase, pop after"),
    ("rebase.autosquash", "fixup! commits ordered in rebase -i"),
    ("rebase.updaterefs", "branches moved along a rebase"),
    ("rerere.enabled", "recorded conflict resolutions reused"),
    (
        "commit.gpgsign",
        "commits signed with the user's own signing program (gpg.program stays risky)",
    ),
    (
        "commit.verbose",
        "the diff shown in the commit message editor",
    ),
    ("tag.sort", "the order tags are listed in"),
    (
        "tag.gpgsign",
        "tags signed with the user's own signing program",
    ),
    ("log.", "git log's defaults"),
    ("advice.", "which hints git prints"),
    ("status.", "git status's defaults"),
    ("diff.renames", "rename detection"),
    ("diff.algorithm", "the diff algorithm"),
    ("diff.colormoved", "colouring of moved lines"),
    ("diff.mnemonicprefix", "the a/ b/ prefixes"),
    (
        "help.autocorrect",
        "a mistyped git command corrected to a git command",
    ),
    ("column.", "columns in listings"),
    ("blame.", "git blame's defaults"),
    ("grep.", "git grep's defaults"),
    ("format.", "git format-patch's defaults"),
    ("i18n.", "the encoding of commit messages"),
    ("submodule.recurse", "commands recurse into submodules"),
    (
        "checkout.defaultremote",
        "the remote a bare branch name checks out from",
    ),
    ("feature.", "groups of performance settings"),
    ("index.", "the index file's format"),
    ("pack.", "how objects are packed"),
    ("gc.auto", "when git gc runs by itself"),
    (
        "safe.directory",
        "which repositories owned by others git reads",
    ),
];

/// Config keys (prefixes) that make git run a program or fetch code.
const RISKY_KEYS: &[&str] = &[
    "core.fsmonitor",
    "core.hookspath",
    "core.sshcommand",
    "core.gitproxy",
    "core.askpass",
    "core.editor",
    "core.pager",
    "core.worktree",
    "diff.external",
    "textconv",
    ".command",
    "filter.",
    "include.path",
    "includeif.",
    "interactive.difffilter",
    "sequence.editor",
    "gpg.program",
    "gpg.ssh.program",
    "credential.helper",
    "uploadpack.",
    "receivepack.",
    "remote.",
    "url.",
    "http.",
    "alias.",
    "pager.",
    "merge.tool",
    "diff.tool",
];

/// git's own options before the subcommand that take no value (and do
/// not move it elsewhere).
const GLOBAL_FLAGS: &[&str] = &[
    "-P",
    "--no-pager",
    "--bare",
    "--no-replace-objects",
    "--no-lazy-fetch",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-advice",
    "--version",
    "-v",
    "--help",
    "-h",
    "--html-path",
    "--man-path",
    "--info-path",
];

/// git's subcommand in `git ARGS` (`args` excludes argv[0]): the first
/// word after git's own options (`-C dir`, `-c key=value` …); `None`
/// when a word before it is only known at run time or an option is one
/// automode does not know.
pub fn subcommand<'a>(args: &[Option<&'a str>]) -> Option<&'a str> {
    let mut i = 0;
    loop {
        let a = args.get(i).copied()??;
        if !a.starts_with('-') {
            return Some(a);
        }
        i += match a {
            "-C" | "-c" | "--namespace" | "--exec-path" | "--git-dir" | "--work-tree" => 2,
            _ if GLOBAL_FLAGS.contains(&a) || a.contains('=') || a.starts_with("-C") => 1,
            _ => return None,
        };
    }
}

/// The checkpoint taken before the command holds the worktree git would
/// change: the project is the repository's top, the command works in it,
/// and no file in it is over the checkpoint's size limit (or in a
/// directory checkpoints leave out that is not rebuilt).
fn undoable(places: &Places) -> bool {
    places.checkpoint.as_ref().is_some_and(|c| {
        c.root.join(".git").exists()
            && places.cwd.starts_with(&c.root)
            && c.inside_not_held(&c.root, super::recover::TREE_LIMIT)
                .is_none()
    })
}

/// Classify `git ARGS` (`args` excludes argv[0]).
pub fn classify(_name: &str, args: &[Option<&str>], places: &Places) -> Class {
    let mut i = 0;
    while let Some(Some(a)) = args.get(i) {
        if !a.starts_with('-') {
            break;
        }
        match *a {
            "-C" => {
                match args.get(i + 1).copied().flatten() {
                    Some(dir) if inside(places, dir) => {}
                    _ => {
                        return review(
                            "git -C works in a repository outside the working directory",
                        );
                    }
                }
                i += 2;
            }
            "-c" | "--namespace" | "--exec-path" => i += 2,
            "--git-dir" | "--work-tree" => {
                match args.get(i + 1).copied().flatten() {
                    Some(dir) if inside(places, dir) => {}
                    _ => {
                        return review(
                            "git --git-dir/--work-tree points outside the working directory",
                        );
                    }
                }
                i += 2;
            }
            "-p" | "--paginate" => return review("git --paginate runs a pager"),
            _ if a.starts_with("-C") && !a.starts_with("--") => {
                if !inside(places, &a[2..]) {
                    return review("git -C works in a repository outside the working directory");
                }
                i += 1;
            }
            _ if a.starts_with("--git-dir=") || a.starts_with("--work-tree=") => {
                let dir = &a[a.find('=').map_or(0, |p| p + 1)..];
                if !inside(places, dir) {
                    return review(
                        "git --git-dir/--work-tree points outside the working directory",
                    );
                }
                i += 1;
            }
            _ if GLOBAL_FLAGS.contains(a)
                || a.starts_with("--namespace=")
                || a.starts_with("--exec-path")
                || a.starts_with("--config-env=")
                || a.starts_with("--attr-source=")
                || a.starts_with("--list-cmds=") =>
            {
                i += 1;
            }
            _ => return review(&format!("git {a} is not an option automode knows")),
        }
    }
    if args.iter().any(Option::is_none) && args.get(i).is_some_and(Option::is_none) {
        return review("git subcommand is not literal");
    }
    let sub = args.get(i).copied().flatten().unwrap_or("");
    let rest: Vec<&str> = args
        .get(i + 1..)
        .unwrap_or(&[])
        .iter()
        .map(|a| a.unwrap_or("\u{0}"))
        .collect();
    let has = |opts: &[&str]| {
        rest.iter().any(|a| {
            opts.contains(a)
                || opts
                    .iter()
                    .any(|o| o.starts_with("--") && a.starts_with(&format!("{o}=")))
        })
    };
    let short = |c: char| {
        rest.iter().any(|a| {
            a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c)
        })
    };
    let operands: Vec<&str> = rest
        .iter()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    // Options that run programs or load hooks, in any spelling getopt
    // accepts (`--upload-pa=…`).
    let long_prefix = |a: &str, o: &str| super::tools::option_matches(a, o);
    let mut dangerous: Vec<&str> = vec![
        "--upload-pack",
        "--receive-pack",
        "--exec",
        "--open-files-in-pager",
        "--extcmd",
        "--config",
        "--separate-git-dir",
    ];
    if matches!(sub, "init" | "clone" | "submodule") {
        dangerous.push("--template");
    }
    if let Some(a) = rest
        .iter()
        .find(|a| dangerous.iter().any(|o| long_prefix(a, o)))
    {
        return Class::Review(format!("git {sub} {a} runs a program or installs hooks"));
    }
    let url = |o: &&str| {
        o.contains("://") || o.starts_with("git@") || (o.contains(':') && o.contains('@'))
    };
    let outside = |d: &str| !inside(places, d);
    match sub {
        "grep" if short('O') => review("git grep -O runs a program on the matches"),
        "rebase" if has(&["--exec", "-x"]) || short('x') => {
            review("git rebase --exec runs commands")
        }
        "bisect" if operands.first() == Some(&"run") => review("git bisect run runs commands"),
        "maintenance" => review("git maintenance schedules background jobs"),
        "lfs" => match operands.first().copied() {
            Some("ls-files" | "status" | "env" | "version" | "logs") => Class::ReadOnly,
            Some("install" | "uninstall" | "update") => {
                review("git lfs install changes global configuration and hooks")
            }
            _ => Class::Routine,
        },
        "gc" | "prune"
            if rest
                .iter()
                .any(|a| a.starts_with("--prune") || *a == "--expire")
                || sub == "prune" =>
        {
            review("git gc --prune deletes unreachable commits now")
        }
        "fetch" | "pull" | "ls-remote" | "clone" | "submodule" | "remote" | "push"
            if args.iter().skip(i + 1).any(Option::is_none) =>
        {
            Class::Review(format!("git {sub} with arguments only known at run time"))
        }
        "submodule" if operands.first() == Some(&"add") => {
            review("git submodule add fetches another repository")
        }
        "fetch" | "pull" | "ls-remote" if operands.iter().any(url) => Class::Review(format!(
            "git {sub} contacts a URL given on the command line"
        )),
        "fetch" | "pull"
            if operands.iter().any(|o| o.starts_with('+')) || has(&["--force", "-f"]) =>
        {
            Class::Review(format!("git {sub} force-updates local branches"))
        }
        "clone" => {
            let source = operands.first().copied().unwrap_or("");
            let dest = operands.get(1).copied();
            if !url(&source) && outside(source) {
                review("git clone copies a repository from outside the working directory")
            } else if dest.is_some_and(outside) {
                review("git clone writes outside the working directory")
            } else {
                Class::Routine
            }
        }
        "init" if operands.first().is_some_and(|d| outside(d)) => {
            review("git init creates a repository outside the working directory")
        }
        "archive" if has(&["--remote"]) => {
            review("git archive --remote contacts another repository")
        }
        "archive"
            if rest
                .windows(2)
                .any(|w| matches!(w[0], "-o" | "--output") && outside(w[1]))
                || rest
                    .iter()
                    .any(|a| a.strip_prefix("--output=").is_some_and(outside)) =>
        {
            review("git archive writes outside the working directory")
        }
        "apply" | "am" if has(&["--unsafe-paths", "--directory"]) => {
            Class::Review(format!("git {sub} writes to paths it is told to"))
        }
        "" => Class::ReadOnly,
        "push" => {
            if has(&[
                "--force",
                "-f",
                "--force-with-lease",
                "--mirror",
                "--delete",
                "-d",
                "--prune",
                "--force-if-includes",
            ]) || short('f')
                || operands
                    .iter()
                    .any(|o| o.starts_with('+') || o.starts_with(':'))
            {
                review("git push rewrites or deletes remote history")
            } else {
                review("git push sends commits to a remote")
            }
        }
        // To the commit checked out, it only discards uncommitted work,
        // which the checkpoint holds; to another, commits may be left in
        // the reflog only.
        "reset"
            if has(&["--hard", "--merge", "--keep"])
                && operands.iter().all(|o| *o == "HEAD")
                && undoable(places) =>
        {
            Class::Routine
        }
        "reset" if has(&["--hard", "--merge", "--keep"]) => {
            review("git reset --hard discards uncommitted work")
        }
        "reset" => Class::Routine,
        "clean" if has(&["-n", "--dry-run"]) || short('n') => Class::ReadOnly,
        "clean" if !has(&["-x", "-X"]) && !short('x') && !short('X') && undoable(places) => {
            Class::Routine
        }
        "clean" => review("git clean deletes untracked files"),
        "checkout" => {
            if has(&["--", "-f", "--force", "--ours", "--theirs", "-p", "--patch"])
                || operands.contains(&".")
            {
                if undoable(places) {
                    Class::Routine
                } else {
                    review("git checkout of paths discards uncommitted changes")
                }
            } else {
                Class::Routine
            }
        }
        "switch" if has(&["-f", "--force", "--discard-changes"]) && !undoable(places) => {
            review("git switch -f discards uncommitted changes")
        }
        "restore" => {
            let staged_only = (has(&["--staged", "-S"]) || short('S'))
                && !has(&["--worktree", "-W"])
                && !short('W');
            if staged_only || undoable(places) {
                Class::Routine
            } else {
                review("git restore discards uncommitted changes")
            }
        }
        "stash" => match operands.first().copied() {
            // A stash whose content a checkpoint holds: undo brings it back.
            Some("drop") if super::recover::stash_held(places, operands.get(1).copied()) => {
                Class::Routine
            }
            Some("drop" | "clear") => review("git stash drop/clear deletes stashed work"),
            Some("list" | "show") => Class::ReadOnly,
            _ => Class::Routine,
        },
        "branch" | "tag" => {
            if has(&["-D", "--force", "-f", "-M", "-C"])
                || (has(&["--delete", "-d"]) && sub == "tag")
                || short('D')
                || short('M')
                || short('C')
            {
                Class::Review(format!("git {sub} -D/-f deletes or overwrites refs"))
            } else if operands.is_empty()
                || has(&[
                    "-l",
                    "--list",
                    "-a",
                    "-r",
                    "-v",
                    "-vv",
                    "--show-current",
                    "--contains",
                    "--merged",
                    "--no-merged",
                    "--points-at",
                ])
            {
                Class::ReadOnly
            } else {
                Class::Routine
            }
        }
        "rm" if has(&["--cached", "-n", "--dry-run"]) => Class::Routine,
        // Without -f, git refuses to remove a file whose content differs
        // from the last commit: what it removes, `git checkout` restores.
        "rm" if !has(&["--force"])
            && !rest
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('f'))
            && !operands.iter().any(|o| o.contains(['*', '?', '['])) =>
        {
            Class::Routine
        }
        "rm" if undoable(places) && operands.iter().all(|o| inside(places, o)) => Class::Routine,
        "rm" => review("git rm -f deletes tracked files with their uncommitted changes"),
        "remote" => match operands.first().copied() {
            None | Some("show" | "get-url" | "-v") => Class::ReadOnly,
            Some("add" | "update") => Class::Routine,
            Some(other) => Class::Review(format!(
                "git remote {other} changes where the project pushes"
            )),
        },
        "config" => config(&rest, &operands, &has),
        "submodule" => match operands.first().copied() {
            None | Some("status" | "summary") => Class::ReadOnly,
            Some("update" | "init" | "sync" | "add" | "absorbgitdirs") => Class::Routine,
            _ => review("git submodule foreach runs commands"),
        },
        "worktree" => match operands.first().copied() {
            Some("list") => Class::ReadOnly,
            Some("add") if operands.get(1).is_some_and(|d| inside(places, d)) => Class::Routine,
            _ => review("git worktree changes working trees outside the project"),
        },
        "filter-branch" | "filter-repo" | "replace" | "update-ref" | "symbolic-ref" | "reflog"
            if sub != "reflog"
                || operands
                    .first()
                    .is_some_and(|o| matches!(*o, "expire" | "delete")) =>
        {
            Class::Review(format!("git {sub} rewrites history or refs"))
        }
        "send-email" | "daemon" | "instaweb" | "credential" | "credential-store"
        | "credential-cache" | "imap-send" | "p4" | "svn" | "cvsimport" | "http-backend"
        | "upload-pack" | "receive-pack" => {
            Class::Review(format!("git {sub} reaches the network or credentials"))
        }
        s if READ_ONLY.contains(&s) => Class::ReadOnly,
        s if ROUTINE.contains(&s) => Class::Routine,
        other => Class::Review(format!("git {other} is not a git command automode knows")),
    }
}

fn review(why: &str) -> Class {
    Class::Review(why.to_string())
}

fn config(rest: &[&str], operands: &[&str], has: &dyn Fn(&[&str]) -> bool) -> Class {
    let reading = has(&[
        "--get",
        "--get-all",
        "--get-regexp",
        "--list",
        "-l",
        "--get-urlmatch",
        "--show-origin",
        "--show-scope",
        "--name-only",
        "--get-color",
        "--get-colorbool",
    ]) || matches!(operands.first().copied(), Some("get" | "list"))
        || (operands.len() == 1
            && !has(&[
                "--unset",
                "--unset-all",
                "--remove-section",
                "--rename-section",
                "--edit",
                "-e",
                "--add",
                "--replace-all",
            ]));
    if reading {
        return Class::ReadOnly;
    }
    if has(&["--global", "--system", "--file", "-f", "--blob"]) || rest.contains(&"--global") {
        return review("git config changes user-wide or another file's settings");
    }
    if has(&["--edit", "-e"]) {
        return review("git config --edit opens an editor");
    }
    if has(&["--unset", "--unset-all"]) || operands.first() == Some(&"unset") {
        // Removing a local setting restores git's default.
        return Class::Routine;
    }
    let key = operands
        .iter()
        .find(|o| !matches!(**o, "set" | "unset"))
        .map(|k| k.to_ascii_lowercase())
        .unwrap_or_default();
    if SAFE_CONFIG_KEYS
        .iter()
        .any(|(s, _)| key == *s || (s.ends_with('.') && key.starts_with(s)))
    {
        return Class::Routine;
    }
    // An alias naming a git command (`git config alias.st status`) runs
    // nothing until it is used, and using it is judged then; one whose
    // value starts with `!` runs a shell command.
    if key.starts_with("alias.") && key.len() > "alias.".len() {
        let at = operands.iter().position(|o| o.eq_ignore_ascii_case(&key));
        return match at.and_then(|i| operands.get(i + 1)) {
            Some(v) if !v.trim_start().starts_with('!') => Class::Routine,
            _ => review("git config alias.… with ! runs a shell command"),
        };
    }
    if has(&["--unset", "--unset-all"])
        && !RISKY_KEYS
            .iter()
            .any(|r| key.contains(r.trim_start_matches('.')))
    {
        return Class::Routine;
    }
    Class::Review(format!(
        "git config {key} can change which programs git runs"
    ))
}

/// What the probe found in the repository's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// No repository, or one with nothing that runs programs.
    Clean,
    /// A setting that makes git run programs: which.
    Risky(String),
}

/// Probe the configuration git would read in `cwd`: the repository's
/// config (found by walking up), the global and XDG files and the system
/// file.
pub fn probe(cwd: &Path, _home: Option<&Path>, _xdg_config_home: Option<&str>) -> Probe {
    // Only the repository's own configuration: the user's global and the
    // system files are the user's choices (credential helpers, LFS
    // filters, signing programs) and automode trusts them; a repository
    // can come from anywhere, and its config is where an attack would sit.
    // Commands that point git at another HOME or XDG directory are sent
    // to review by the policy (`HOME=` assignments).
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(dir) = git_dir(cwd) {
        files.push(dir.join("config"));
        if let Ok(common) = std::fs::read_to_string(dir.join("commondir")) {
            files.push(dir.join(common.trim()).join("config"));
        }
        files.push(dir.join("config.worktree"));
    }
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        if let Some(key) = risky_key(&text) {
            return Probe::Risky(format!("{key} in {}", f.display()));
        }
    }
    Probe::Clean
}

/// The repository directory for `cwd` (`.git` dir, or the dir a `.git`
/// file points to).
fn git_dir(cwd: &Path) -> Option<PathBuf> {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        let candidate = d.join(".git");
        if candidate.is_dir() {
            return Some(candidate);
        }
        if let Ok(text) = std::fs::read_to_string(&candidate)
            && let Some(rest) = text.trim().strip_prefix("gitdir:")
        {
            let p = Path::new(rest.trim());
            return Some(if p.is_absolute() {
                p.to_path_buf()
            } else {
                d.join(p)
            });
        }
        dir = d.parent();
    }
    None
}

/// The first setting in a git config file that runs a program during
/// read-only commands (fsmonitor, textconv/external diff, filters,
/// includes that could bring those in).
fn risky_key(text: &str) -> Option<String> {
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let head = rest.split(']').next().unwrap_or("");
            let mut parts = head.splitn(2, char::is_whitespace);
            let name = parts.next().unwrap_or("").to_ascii_lowercase();
            section = match parts.next() {
                Some(sub) => format!("{name}.{}.", sub.trim().trim_matches('"')),
                None => format!("{name}."),
            };
            let after = rest.split_once(']').map_or("", |(_, a)| a.trim());
            if after.is_empty() {
                continue;
            }
            return risky(&section, after);
        }
        if let Some(hit) = risky(&section, line) {
            return Some(hit);
        }
    }
    None
}

fn risky(section: &str, line: &str) -> Option<String> {
    let key = line
        .split(['=', ' ', '\t'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let value = line
        .split_once('=')
        .map_or("true", |(_, v)| v.trim())
        .to_ascii_lowercase();
    let full = format!("{}{key}", section.to_ascii_lowercase());
    let hit = match full.as_str() {
        "core.fsmonitor" => !matches!(value.as_str(), "false" | "no" | "off" | "0" | ""),
        "diff.external"
        | "include.path"
        | "core.hookspath"
        | "core.sshcommand"
        | "core.gitproxy"
        | "core.askpass"
        | "credential.helper"
        | "gpg.program"
        | "sequence.editor"
        | "uploadpack.packobjectshook"
        | "protocol.allow" => true,
        _ if full.starts_with("protocol.") && full.ends_with(".allow") => value != "never",
        _ if full.starts_with("remote.") && full.ends_with(".url") => value.starts_with("ext::"),
        _ if full.starts_with("remote.")
            && (full.ends_with(".uploadpack")
                || full.ends_with(".receivepack")
                || full.ends_with(".proxy")) =>
        {
            true
        }
        _ if full.starts_with("url.")
            && (full.ends_with(".insteadof") || full.ends_with(".pushinsteadof")) =>
        {
            true
        }
        _ if full.starts_with("gpg.") && full.ends_with(".program") => true,
        _ if full.starts_with("merge.") && full.ends_with(".driver") => true,
        _ if full.starts_with("credential.") && full.ends_with(".helper") => true,
        _ => {
            (full.starts_with("diff.")
                && (full.ends_with(".textconv") || full.ends_with(".command")))
                || (full.starts_with("filter.")
                    && (full.ends_with(".clean")
                        || full.ends_with(".smudge")
                        || full.ends_with(".process")))
                || full.starts_with("includeif.")
        }
    };
    hit.then_some(full)
}

/// The environment read-only git commands run under: no optional index
/// writes, no fsmonitor, no hooks, no pager.
pub fn safe_env(existing_count: usize) -> Vec<(String, String)> {
    let pairs = [
        ("core.fsmonitor", "false"),
        ("core.hooksPath", "/dev/null"),
        ("core.pager", "cat"),
    ];
    let mut env = vec![
        ("GIT_OPTIONAL_LOCKS".to_string(), "0".to_string()),
        ("GIT_PAGER".to_string(), "cat".to_string()),
        (
            "GIT_CONFIG_COUNT".to_string(),
            (existing_count + pairs.len()).to_string(),
        ),
    ];
    for (n, (k, v)) in pairs.iter().enumerate() {
        env.push((
            format!("GIT_CONFIG_KEY_{}", existing_count + n),
            (*k).to_string(),
        ));
        env.push((
            format!("GIT_CONFIG_VALUE_{}", existing_count + n),
            (*v).to_string(),
        ));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_programs_in_git_config() {
        assert_eq!(
            risky_key("[core]\n\tfsmonitor = .git/hooks/x\n"),
            Some("core.fsmonitor".into())
        );
        assert_eq!(risky_key("[core]\n\tfsmonitor = false\n"), None);
        assert_eq!(
            risky_key("[diff \"pdf\"]\n\ttextconv = pdftotext\n"),
            Some("diff.pdf.textconv".into())
        );
        assert_eq!(
            risky_key("[filter \"lfs\"]\n  clean = git-lfs clean -- %f\n"),
            Some("filter.lfs.clean".into())
        );
        assert_eq!(
            risky_key("[include]\n path = other\n"),
            Some("include.path".into())
        );
        assert_eq!(risky_key("[user]\n name = x\n[color]\n ui = auto\n"), None);
    }
}
