//! What known programs do with their arguments, as data: wrappers that
//! run another command, shells that run a script, interpreters that run
//! inline code, and commands that read, write, delete or re-permission
//! files. Each table entry carries the reason it is there.
//!
//! Input: a command's basename and its expanded arguments. Output:
//! `Action`s for the walker (run this inner command, analyse this script,
//! record this effect or finding). No I/O, no walker state.

use std::ffi::OsString;

use super::analysis::{Arg, ArgValue, EffectKind, FindingKind};
use super::args::{self, OptSpec, Parsed};
use super::expand::Positional;
use crate::invocation::{self, Parsed as InvParsed, Source};

/// Which grammar a nested shell uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// bash.
    Bash,
    /// dash/ash/posh/`sh`: bash grammar minus `$'…'` (dash reads it
    /// differently) — refused there.
    Posix,
    /// zsh, ksh, mksh, yash: analysed with bash grammar and reported.
    Foreign,
}

/// Where a nested shell's script comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptText {
    /// Literal text (`-c 'text'`, `eval 'text'`, joined `watch` args).
    Text(String),
    /// A script file named by this word (`bash FILE`, `source FILE`).
    File(Arg),
    /// The command's standard input.
    Stdin,
}

/// What the walker should do because of a command's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Run `args[start..]` as a command, under `via`.
    Inner {
        start: usize,
        via: String,
        env: Vec<(String, Arg)>,
        /// More arguments are appended at run time (`xargs`).
        dynamic_tail: bool,
        /// Words equal to this are replaced at run time (`{}`).
        placeholder: Option<String>,
    },
    /// Run an explicit argv (built from a split string, `find -exec`).
    InnerArgv {
        argv: Vec<Arg>,
        via: String,
        dynamic_tail: bool,
        placeholder: Option<String>,
    },
    /// Analyse a script run by a shell.
    Script {
        text: ScriptText,
        via: String,
        positional: Option<Positional>,
        dialect: Dialect,
    },
    Effect {
        kind: EffectKind,
        target: Arg,
        recursive: bool,
    },
    Finding {
        kind: FindingKind,
        detail: String,
    },
    /// Environment assignments that reach the inner command (`env X=1`).
    Assign {
        name: String,
        value: Arg,
    },
    /// An interpreter reads its program from standard input.
    StdinCode {
        lang: String,
    },
    /// `find TARGET -name NAME -delete`: deletes, under TARGET, only what
    /// matches NAME.
    FilteredDelete {
        target: Arg,
        name: String,
    },
}

fn finding(kind: FindingKind, detail: impl Into<String>) -> Action {
    Action::Finding {
        kind,
        detail: detail.into(),
    }
}

fn effect(kind: EffectKind, target: &Arg, recursive: bool) -> Action {
    Action::Effect {
        kind,
        target: target.clone(),
        recursive,
    }
}

type Handler = fn(&str, &[Arg]) -> Vec<Action>;

/// One table row: command names, what handles them, and why.
struct Entry {
    names: &'static [&'static str],
    handler: Handler,
    #[allow(dead_code)]
    reason: &'static str,
}

/// The table, looked up by argv[0]'s basename.
const TABLE: &[Entry] = &[
    // Wrappers: run the command in their operands.
    Entry {
        names: &["env"],
        handler: env_wrapper,
        reason: "runs its operand command with a modified environment (`-S` splits a string into a command line)",
    },
    Entry {
        names: &["nohup"],
        handler: nohup,
        reason: "runs its operand command immune to hangups",
    },
    Entry {
        names: &["nice"],
        handler: nice,
        reason: "runs its operand command at another priority",
    },
    Entry {
        names: &["ionice"],
        handler: ionice,
        reason: "runs its operand command in another I/O class",
    },
    Entry {
        names: &["time"],
        handler: time_program,
        reason: "/usr/bin/time runs and times its operand command (`-o` writes a file)",
    },
    Entry {
        names: &["timeout"],
        handler: timeout_wrapper,
        reason: "runs its operand command with a time limit",
    },
    Entry {
        names: &["stdbuf"],
        handler: stdbuf,
        reason: "runs its operand command with other stdio buffering",
    },
    Entry {
        names: &["setsid"],
        handler: setsid,
        reason: "runs its operand command in a new session",
    },
    Entry {
        names: &["sudo"],
        handler: sudo,
        reason: "runs its operand command as another user",
    },
    Entry {
        names: &["doas"],
        handler: doas,
        reason: "runs its operand command as another user",
    },
    Entry {
        names: &["xargs"],
        handler: xargs,
        reason: "runs its operand command with arguments read from stdin",
    },
    Entry {
        names: &["find"],
        handler: find,
        reason: "runs -exec/-execdir/-ok/-okdir commands, deletes with -delete, writes with -fprint",
    },
    Entry {
        names: &["watch"],
        handler: watch,
        reason: "runs its operands through `sh -c` (or directly with -x), repeatedly",
    },
    Entry {
        names: &["parallel"],
        handler: parallel,
        reason: "GNU parallel runs its command template through a shell",
    },
    Entry {
        names: &["flock"],
        handler: flock,
        reason: "runs its operand command (or `-c` string through a shell) holding a lock",
    },
    Entry {
        names: &["chroot"],
        handler: chroot,
        reason: "runs its operand command (default: an interactive shell) in another root",
    },
    Entry {
        names: &["busybox"],
        handler: busybox,
        reason: "runs its first operand as an applet (including sh)",
    },
    Entry {
        names: &["su", "runuser"],
        handler: su,
        reason: "runs `-c` strings through the target user's shell",
    },
    Entry {
        names: &["script"],
        handler: script_cmd,
        reason: "util-linux script runs `-c` strings through a shell",
    },
    Entry {
        names: &["strace", "ltrace"],
        handler: tracer,
        reason: "runs its operand command under a tracer (`-o` writes a file)",
    },
    Entry {
        names: &["taskset"],
        handler: taskset,
        reason: "runs its operand command on chosen CPUs",
    },
    Entry {
        names: &["unbuffer"],
        handler: plain_wrapper,
        reason: "runs its operand command on a pty",
    },
    // Shells: analyse the script they run.
    Entry {
        names: &["bash", "rbash"],
        handler: shell_bash,
        reason: "bash runs a -c string, a script file, or its stdin",
    },
    Entry {
        names: &["sh", "dash", "ash", "posh"],
        handler: shell_posix,
        reason: "a POSIX shell (dash here): bash grammar without $'…'",
    },
    Entry {
        names: &[
            "zsh", "ksh", "ksh93", "mksh", "pdksh", "yash", "fish", "csh", "tcsh",
        ],
        handler: shell_foreign,
        reason: "a shell whose grammar is not bash's",
    },
    // Interpreters with inline code.
    Entry {
        names: &["python", "python2", "python3", "pypy", "pypy3"],
        handler: python,
        reason: "-c CODE runs inline code; `-` or no script reads code from stdin",
    },
    Entry {
        names: &["node", "nodejs"],
        handler: node,
        reason: "-e/-p run inline code; `-` reads code from stdin",
    },
    Entry {
        names: &["deno"],
        handler: deno,
        reason: "`deno eval CODE` runs inline code",
    },
    Entry {
        names: &["bun"],
        handler: bun,
        reason: "-e runs inline code",
    },
    Entry {
        names: &["perl"],
        handler: perl,
        reason: "-e/-E run inline code; -i edits files in place",
    },
    Entry {
        names: &["ruby"],
        handler: ruby,
        reason: "-e runs inline code; -i edits files in place",
    },
    Entry {
        names: &["php"],
        handler: php,
        reason: "-r runs inline code",
    },
    Entry {
        names: &["lua", "luajit"],
        handler: lua,
        reason: "-e runs inline code",
    },
    Entry {
        names: &["Rscript"],
        handler: rscript,
        reason: "-e runs inline code",
    },
    Entry {
        names: &["osascript"],
        handler: osascript,
        reason: "-e runs inline AppleScript",
    },
    Entry {
        names: &["awk", "gawk", "mawk", "nawk"],
        handler: awk,
        reason: "the program can run commands (system(), pipes) and write files",
    },
    Entry {
        names: &["sed", "gsed"],
        handler: sed,
        reason: "the `e` command and `s///e` run commands; `w` writes files; -i edits in place",
    },
    Entry {
        names: &["tar", "gtar", "bsdtar"],
        handler: tar,
        reason: "--checkpoint-action=exec, --to-command, -I run commands; extraction writes files",
    },
    Entry {
        names: &["git"],
        handler: git,
        reason: "-c settings and --upload-pack/--receive-pack run programs; clean and rm delete files",
    },
    Entry {
        names: &["vim", "vi", "nvim", "view", "ex", "gvim", "vimdiff", "rvim"],
        handler: vim,
        reason: "-c/+/--cmd commands can run shell commands (`:!`)",
    },
    Entry {
        names: &["less", "more", "most"],
        handler: pager,
        reason: "+commands on the command line; `!` runs a shell command",
    },
    Entry {
        names: &["emacs", "emacsclient"],
        handler: emacs,
        reason: "--eval and -l run Lisp",
    },
    Entry {
        names: &["gdb"],
        handler: gdb,
        reason: "-ex/-x run debugger commands (including shell)",
    },
    Entry {
        names: &["ssh"],
        handler: ssh,
        reason: "-o ProxyCommand/LocalCommand run local commands",
    },
    Entry {
        names: &["rsync"],
        handler: rsync,
        reason: "-e runs a remote-shell program; --delete deletes in the destination",
    },
    Entry {
        names: &["man"],
        handler: man,
        reason: "-P/--pager and -H run programs",
    },
    // File effects.
    Entry {
        names: &["rm"],
        handler: rm,
        reason: "deletes its operands",
    },
    Entry {
        names: &["rmdir"],
        handler: rmdir,
        reason: "deletes directories",
    },
    Entry {
        names: &["unlink"],
        handler: unlink,
        reason: "deletes a file",
    },
    Entry {
        names: &["shred"],
        handler: shred,
        reason: "overwrites files (-u also deletes)",
    },
    Entry {
        names: &["cp"],
        handler: cp,
        reason: "writes its destination, reads its sources",
    },
    Entry {
        names: &["mv"],
        handler: mv,
        reason: "writes its destination, removes its sources",
    },
    Entry {
        names: &["install"],
        handler: install,
        reason: "writes its destination (or creates directories with -d)",
    },
    Entry {
        names: &["ln"],
        handler: ln,
        reason: "creates a link; writes through it reach the target",
    },
    Entry {
        names: &["tee"],
        handler: tee,
        reason: "writes (or with -a appends to) its operands",
    },
    Entry {
        names: &["dd"],
        handler: dd,
        reason: "writes of=, reads if=",
    },
    Entry {
        names: &["truncate"],
        handler: truncate,
        reason: "writes its operands",
    },
    Entry {
        names: &["chmod"],
        handler: chmod,
        reason: "changes permissions",
    },
    Entry {
        names: &["chown", "chgrp"],
        handler: chown,
        reason: "changes ownership",
    },
    Entry {
        names: &["mkdir"],
        handler: mkdir,
        reason: "creates directories",
    },
    Entry {
        names: &["touch"],
        handler: touch,
        reason: "creates or updates files",
    },
    Entry {
        names: &[
            "cat",
            "tac",
            "nl",
            "wc",
            "md5sum",
            "sha1sum",
            "sha256sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "file",
            "stat",
            "strings",
            "od",
            "hexdump",
            "base64",
            "base32",
            "diff",
            "cmp",
            "comm",
            "paste",
            "fold",
            "fmt",
            "column",
            "zcat",
            "bzcat",
            "xzcat",
            "readlink",
            "realpath",
        ],
        handler: reads,
        reason: "reads its file operands",
    },
    Entry {
        names: &["head", "tail"],
        handler: head_tail,
        reason: "reads its file operands",
    },
    Entry {
        names: &["grep", "egrep", "fgrep", "zgrep"],
        handler: grep,
        reason: "reads files (recursively with -r)",
    },
    Entry {
        names: &["curl"],
        handler: curl,
        reason: "-o/-D/-c write files; -T, -K and @file data read them",
    },
    Entry {
        names: &["wget"],
        handler: wget,
        reason: "-O/-P/-o/-a write files; -i reads a file",
    },
    Entry {
        names: &["rg"],
        handler: rg,
        reason: "reads files recursively; --pre runs a program",
    },
    Entry {
        names: &["cut"],
        handler: cut,
        reason: "reads its file operands",
    },
    Entry {
        names: &["sort"],
        handler: sort,
        reason: "reads files; -o writes; --compress-program runs a program",
    },
    Entry {
        names: &["uniq"],
        handler: uniq,
        reason: "reads its input operand, writes its output operand",
    },
    Entry {
        names: &["xxd"],
        handler: xxd,
        reason: "reads its input operand, writes its output operand",
    },
];

/// What `name args…` does, as far as the tables know.
pub fn interpret(name: &str, args: &[Arg]) -> Vec<Action> {
    let base = name
        .bytes()
        .rposition(|b| b == b'/')
        .map_or(name, |k| &name[k + 1..]);
    // python3.11, pip3 … style version suffixes.
    let lookup = if base.starts_with("python")
        && base[6..].chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        "python"
    } else {
        base
    };
    let Some(entry) = BY_NAME.get(lookup) else {
        return Vec::new();
    };
    // Every handler gets each word with its value: a word resolved from
    // the environment (`-o$HOME/x`, `of=$HOME/x`, `"$HOME/.ssh"`) is read
    // as the text it is, options split by the handler's own tables.
    if args.iter().any(resolved_text) {
        let args: Vec<Arg> = args
            .iter()
            .map(|a| match a.known() {
                Some(t) if resolved_text(a) => Arg {
                    raw: a.raw.clone(),
                    value: ArgValue::Literal {
                        text: t.to_string(),
                    },
                },
                _ => a.clone(),
            })
            .collect();
        return (entry.handler)(base, &args);
    }
    (entry.handler)(base, args)
}

/// A dynamic word whose value is known and is an option or names a path
/// (`-o…`, `…/…`, `of=…`): not empty (an unset variable stays a word
/// only known at run time) and no glob (a pattern stays a pattern).
fn resolved_text(a: &Arg) -> bool {
    matches!(&a.value, ArgValue::Dynamic { resolved: Some(t) }
        if !t.contains(['*', '?', '['])
            && (t.starts_with('-') && t.len() > 1 || t.contains(['/', '='])))
}

/// FNV-1a, for maps keyed by short names and paths (SipHash costs more
/// than the lookup).
pub(crate) struct NameHasher(u64);

impl Default for NameHasher {
    fn default() -> NameHasher {
        NameHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A table of entries indexed by each of their names.
pub(crate) type NameMap<T> =
    std::collections::HashMap<&'static str, &'static T, std::hash::BuildHasherDefault<NameHasher>>;

/// Index `table` by the names each entry lists; a name listed twice
/// keeps its first entry. Sized up front and hashed cheaply: every shim
/// call builds the indexes it uses, so this costs a few µs, not ~0.1 ms.
pub(crate) fn name_map<T>(
    table: &'static [T],
    names: impl Fn(&T) -> &'static [&'static str],
) -> NameMap<T> {
    let mut m = NameMap::with_capacity_and_hasher(
        table.iter().map(|e| names(e).len()).sum(),
        Default::default(),
    );
    for e in table {
        for n in names(e) {
            m.entry(*n).or_insert(e);
        }
    }
    m
}

/// A table looked up by name. The first lookups scan it: a short script
/// makes a handful, and indexing a table of a thousand names (hashing
/// each, and the map's pages) costs more than they do. Past
/// `SCANS_BEFORE_INDEX` the index is built, once. Either way a name listed
/// twice finds its first entry.
#[derive(Debug)]
pub(crate) struct NameIndex<T: 'static> {
    table: &'static [T],
    names: fn(&T) -> &'static [&'static str],
    map: std::sync::OnceLock<NameMap<T>>,
    scans: std::sync::atomic::AtomicUsize,
}

/// Lookups by scanning before a table is indexed.
const SCANS_BEFORE_INDEX: usize = 24;

impl<T: Sync> NameIndex<T> {
    pub(crate) const fn new(
        table: &'static [T],
        names: fn(&T) -> &'static [&'static str],
    ) -> NameIndex<T> {
        NameIndex {
            table,
            names,
            map: std::sync::OnceLock::new(),
            scans: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The entry that lists `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&'static T> {
        if let Some(m) = self.map.get() {
            return m.get(name).copied();
        }
        let scans = self
            .scans
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if scans < SCANS_BEFORE_INDEX {
            let table: &'static [T] = self.table;
            return table.iter().find(|e| (self.names)(e).contains(&name));
        }
        self.index().get(name).copied()
    }

    /// The whole index (built now if it was not).
    pub(crate) fn index(&self) -> &NameMap<T> {
        self.map.get_or_init(|| name_map(self.table, self.names))
    }
}

/// Every name of `ix`'s table finds the same entry by scanning as by the
/// index.
#[cfg(test)]
pub(crate) fn assert_scan_agrees_with_index<T: Sync>(ix: &NameIndex<T>) {
    let mut names = 0;
    for e in ix.table {
        for n in (ix.names)(e) {
            let scanned = ix.table.iter().find(|e| (ix.names)(e).contains(n));
            let indexed = ix.index().get(n).copied();
            assert!(
                scanned
                    .zip(indexed)
                    .is_some_and(|(a, b)| std::ptr::eq(a, b)),
                "{n}"
            );
            names += 1;
        }
    }
    assert!(names > 100, "{names} names");
    assert!(ix.index().get("no-such-program-name").is_none());
}

/// The table by command name.
static BY_NAME: NameIndex<Entry> = NameIndex::new(TABLE, |e| e.names);

/// Is `name` (a basename) in any table? (Used for `command -v` etc.)
pub fn is_known(name: &str) -> bool {
    TABLE.iter().any(|e| e.names.contains(&name))
}

/// Literal texts of all args, if all are literal.
fn all_literal(args: &[Arg]) -> Option<Vec<String>> {
    args.iter().map(|a| a.lit().map(str::to_string)).collect()
}

fn spec(short: &'static str, long: &'static [&'static str], stop: bool) -> OptSpec {
    OptSpec {
        short_with_value: short,
        long_with_value: long,
        stop_at_operand: stop,
    }
}

fn inner(start: usize, via: &str) -> Action {
    Action::Inner {
        start,
        via: via.to_string(),
        env: Vec::new(),
        dynamic_tail: false,
        placeholder: None,
    }
}

fn operands<'a>(p: &Parsed, args: &'a [Arg]) -> Vec<&'a Arg> {
    p.operands.iter().filter_map(|i| args.get(*i)).collect()
}

// ------------------------------------------------------------ wrappers

fn env_wrapper(_: &str, args: &[Arg]) -> Vec<Action> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let Some(w) = args[i].lit() else { break };
        if w == "--" {
            i += 1;
            break;
        }
        if w == "-"
            || w == "-i"
            || w == "--ignore-environment"
            || w == "-0"
            || w == "--null"
            || w == "-v"
            || w == "--debug"
        {
            i += 1;
            continue;
        }
        if w == "-u" || w == "-C" || w == "--unset" || w == "--chdir" {
            i += 2;
            continue;
        }
        if w.starts_with("--unset=")
            || w.starts_with("--chdir=")
            || (w.starts_with("-u") && w.len() > 2)
            || (w.starts_with("-C") && w.len() > 2)
            || w.starts_with("--block-signal")
            || w.starts_with("--default-signal")
            || w.starts_with("--ignore-signal")
            || w == "--list-signal-handling"
        {
            i += 1;
            continue;
        }
        let split = if w == "-S" || w == "--split-string" {
            i += 1;
            args.get(i).cloned()
        } else if let Some(s) = w.strip_prefix("--split-string=") {
            Some(Arg::literal(s))
        } else {
            w.strip_prefix("-S").map(Arg::literal)
        };
        if let Some(s) = split {
            // `env -S 'cmd args'`: split on blanks when that is all it does.
            match s.lit() {
                Some(t) if !t.contains(['\'', '"', '\\', '$', '#']) => {
                    let mut argv: Vec<Arg> = t.split_whitespace().map(Arg::literal).collect();
                    argv.extend(args[i + 1..].iter().cloned());
                    out.push(Action::InnerArgv {
                        argv,
                        via: "env -S".into(),
                        dynamic_tail: false,
                        placeholder: None,
                    });
                }
                _ => out.push(finding(
                    FindingKind::DynamicShell,
                    "env -S with a string automode cannot split exactly",
                )),
            }
            return out;
        }
        if w.starts_with('-') {
            out.push(finding(
                FindingKind::DynamicShell,
                format!("env option {w} is not understood"),
            ));
            return out;
        }
        if let Some((name, value)) = w.split_once('=') {
            out.push(Action::Assign {
                name: name.to_string(),
                value: Arg::literal(value),
            });
            i += 1;
            continue;
        }
        break;
    }
    // A dynamic word before the command could be an assignment or option.
    if i < args.len() {
        out.push(inner(i, "env"));
    }
    out
}

fn nohup(_: &str, args: &[Arg]) -> Vec<Action> {
    let start = usize::from(args.first().and_then(Arg::lit) == Some("--"));
    vec![inner(start, "nohup")]
}

fn plain_wrapper(name: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("", &[], true));
    vec![inner(p.rest, name)]
}

fn nice(_: &str, args: &[Arg]) -> Vec<Action> {
    let mut i = 0;
    while let Some(w) = args.get(i).and_then(Arg::lit) {
        if w == "--" {
            i += 1;
            break;
        }
        if w == "-n" || w == "--adjustment" {
            i += 2;
        } else if w.starts_with("--adjustment=") || (w.starts_with('-') && w.len() > 1) {
            i += 1;
        } else {
            break;
        }
    }
    vec![inner(i, "nice")]
}

fn ionice(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec("cnpPu", &["class", "classdata", "pid", "pgid", "uid"], true),
    );
    if p.has("p") || p.has("P") || p.has("u") || p.has("pid") || p.has("pgid") || p.has("uid") {
        return Vec::new();
    }
    vec![inner(p.rest, "ionice")]
}

fn time_program(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("fo", &["format", "output"], true));
    let mut out = Vec::new();
    for o in p.values("o").chain(p.values("output")) {
        let kind = if p.has("a") || p.has("append") {
            EffectKind::Append
        } else {
            EffectKind::Write
        };
        out.push(effect(kind, o, false));
    }
    out.push(inner(p.rest, "time"));
    out
}

fn timeout_wrapper(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("sk", &["signal", "kill-after"], true));
    // The first operand is the duration.
    vec![inner(p.rest + 1, "timeout")]
}

fn stdbuf(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("ioe", &["input", "output", "error"], true));
    vec![inner(p.rest, "stdbuf")]
}

fn setsid(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("", &[], true));
    vec![inner(p.rest, "setsid")]
}

fn sudo(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "CDghpRrtTUu",
            &[
                "close-from",
                "chdir",
                "group",
                "host",
                "prompt",
                "chroot",
                "role",
                "type",
                "command-timeout",
                "other-user",
                "user",
            ],
            true,
        ),
    );
    if p.has("e") || p.has("edit") {
        return operands(&p, args)
            .into_iter()
            .map(|a| effect(EffectKind::Write, a, false))
            .collect();
    }
    let mut out = Vec::new();
    let mut start = p.rest;
    while let Some(w) = args.get(start).and_then(Arg::lit) {
        match w.split_once('=') {
            Some((n, v)) if super::parse::is_name(n) => {
                out.push(Action::Assign {
                    name: n.to_string(),
                    value: Arg::literal(v),
                });
                start += 1;
            }
            _ => break,
        }
    }
    if start >= args.len() {
        if p.has("i") || p.has("s") || p.has("login") || p.has("shell") {
            out.push(finding(
                FindingKind::InteractiveShell,
                "sudo -i/-s without a command starts an interactive shell",
            ));
        }
        return out;
    }
    out.push(inner(start, "sudo"));
    out
}

fn doas(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("uC", &[], true));
    if p.rest >= args.len() {
        if p.has("s") {
            return vec![finding(
                FindingKind::InteractiveShell,
                "doas -s starts an interactive shell",
            )];
        }
        return Vec::new();
    }
    vec![inner(p.rest, "doas")]
}

fn xargs(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "adEILnPs",
            &[
                "arg-file",
                "delimiter",
                "eof",
                "replace",
                "max-lines",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
            ],
            true,
        ),
    );
    let mut out = Vec::new();
    for f in p.values("a").chain(p.values("arg-file")) {
        out.push(effect(EffectKind::Read, f, false));
    }
    let placeholder = p
        .value("I")
        .or_else(|| p.value("replace"))
        .and_then(Arg::lit)
        .map(str::to_string)
        .or_else(|| p.has("i").then(|| "{}".to_string()));
    if p.rest >= args.len() {
        // Default command: echo.
        out.push(Action::InnerArgv {
            argv: vec![Arg::literal("echo")],
            via: "xargs".into(),
            dynamic_tail: true,
            placeholder: None,
        });
        return out;
    }
    out.push(Action::Inner {
        start: p.rest,
        via: "xargs".into(),
        env: Vec::new(),
        dynamic_tail: placeholder.is_none(),
        placeholder,
    });
    out
}

fn find(_: &str, args: &[Arg]) -> Vec<Action> {
    let mut out = Vec::new();
    let mut i = 0;
    // Options before the start points.
    while let Some(w) = args.get(i).and_then(Arg::lit) {
        match w {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            _ if w.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut starts = Vec::new();
    while let Some(a) = args.get(i) {
        match a.lit() {
            Some(w) if w.starts_with('-') || w == "(" || w == "!" || w == ")" => break,
            _ => {
                starts.push(a.clone());
                i += 1;
            }
        }
    }
    if starts.is_empty() {
        starts.push(Arg::literal("."));
    }
    let mut deletes = false;
    let first_expr = i;
    while i < args.len() {
        let Some(w) = args[i].lit() else {
            // A dynamic expression word could be anything (-delete, -exec).
            out.push(finding(
                FindingKind::DynamicShell,
                format!("find expression word {} is not literal", args[i].raw),
            ));
            i += 1;
            continue;
        };
        match w {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let from = i + 1;
                let mut j = from;
                while j < args.len() && !matches!(args[j].lit(), Some(";" | "+")) {
                    j += 1;
                }
                if from < j {
                    // `{}` alone is each file found: a glob over the start
                    // point, narrowed to the `-name` pattern when the
                    // expression before `-exec` is only that test.
                    let before: Option<Vec<&str>> =
                        args[first_expr..i].iter().map(Arg::lit).collect();
                    let filter = before.and_then(|b| simple_name_filter(&b));
                    let fill = match (starts.as_slice(), starts.first().and_then(Arg::lit)) {
                        ([_], Some(start)) => {
                            let start = start.trim_end_matches('/');
                            let start = if start.is_empty() { "/" } else { start };
                            let sep = if start.ends_with('/') { "" } else { "/" };
                            Some(Arg {
                                raw: "{}".into(),
                                value: ArgValue::Glob {
                                    pattern: match &filter {
                                        Some(name) => format!("{start}{sep}**/{name}"),
                                        None => format!("{start}{sep}*"),
                                    },
                                },
                            })
                        }
                        _ => None,
                    };
                    let argv = args[from..j]
                        .iter()
                        .map(|a| match (&fill, a.lit()) {
                            (Some(fill), Some("{}")) => fill.clone(),
                            _ => a.clone(),
                        })
                        .collect();
                    out.push(Action::InnerArgv {
                        argv,
                        via: format!("find {w}"),
                        dynamic_tail: false,
                        placeholder: Some("{}".into()),
                    });
                }
                i = j + 1;
            }
            "-delete" => {
                deletes = true;
                i += 1;
            }
            "-fprint" | "-fprint0" | "-fls" => {
                if let Some(f) = args.get(i + 1) {
                    out.push(effect(EffectKind::Write, f, false));
                }
                i += 2;
            }
            "-fprintf" => {
                if let Some(f) = args.get(i + 1) {
                    out.push(effect(EffectKind::Write, f, false));
                }
                i += 3;
            }
            _ => i += 1,
        }
    }
    // `find DIR -name PAT -delete` with nothing else that selects files:
    // the deletion only reaches names matching PAT.
    let exprs: Vec<&str> = args.iter().skip(first_expr).filter_map(Arg::lit).collect();
    let name_filter = if deletes && args.iter().skip(first_expr).all(|a| a.lit().is_some()) {
        simple_name_filter(&exprs)
    } else {
        None
    };
    if let Some(pattern) = name_filter {
        for s in &starts {
            out.push(Action::FilteredDelete {
                target: s.clone(),
                name: pattern.clone(),
            });
        }
        return out;
    }
    for s in &starts {
        out.push(effect(
            if deletes {
                EffectKind::Delete
            } else {
                EffectKind::Read
            },
            s,
            true,
        ));
    }
    out
}

/// The single `-name`/`-iname` pattern of a find expression made only of
/// that test, `-type`, depth options, `-print` and `-delete`.
fn simple_name_filter(exprs: &[&str]) -> Option<String> {
    let mut name = None;
    let mut i = 0;
    while i < exprs.len() {
        match exprs[i] {
            "-name" | "-iname" => {
                if name.is_some() {
                    return None;
                }
                name = Some(exprs.get(i + 1)?.to_string());
                i += 2;
            }
            "-type" | "-maxdepth" | "-mindepth" => i += 2,
            "-delete" | "-print" | "-depth" | "-xdev" | "-mount" | "-prune" => i += 1,
            _ => return None,
        }
    }
    name
}

fn joined_script(args: &[Arg], via: &str) -> Action {
    match all_literal(args) {
        Some(words) => Action::Script {
            text: ScriptText::Text(words.join(" ")),
            via: via.to_string(),
            positional: None,
            dialect: Dialect::Posix,
        },
        None => finding(
            FindingKind::DynamicShell,
            format!("{via} runs a command line that is not literal"),
        ),
    }
}

fn watch(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("nq", &["interval", "equexit"], true));
    if p.rest >= args.len() {
        return Vec::new();
    }
    if p.has("x") || p.has("exec") {
        return vec![inner(p.rest, "watch -x")];
    }
    vec![joined_script(&args[p.rest..], "watch")]
}

fn parallel(_: &str, args: &[Arg]) -> Vec<Action> {
    let Some(end) = args
        .iter()
        .position(|a| matches!(a.lit(), Some(":::" | "::::" | ":::+" | "::::+")))
    else {
        return vec![finding(
            FindingKind::DynamicShell,
            "parallel reads its commands from stdin",
        )];
    };
    let p = args::parse(
        &args[..end],
        spec(
            "jIaS",
            &[
                "jobs",
                "colsep",
                "arg-file",
                "sshlogin",
                "results",
                "joblog",
                "tmpdir",
                "delimiter",
            ],
            true,
        ),
    );
    let template = &args[p.rest..end];
    if template.is_empty() {
        return vec![finding(
            FindingKind::DynamicShell,
            "parallel runs its arguments as commands",
        )];
    }
    vec![joined_script(template, "parallel")]
}

fn flock(_: &str, args: &[Arg]) -> Vec<Action> {
    // `flock FILE -c CMD` puts the option after the file.
    let stop = !args
        .iter()
        .any(|a| matches!(a.lit(), Some("-c" | "--command")));
    let p = args::parse(
        args,
        spec(
            "Ewc",
            &["conflict-exit-code", "timeout", "wait", "command"],
            stop,
        ),
    );
    if let Some(c) = p.value("c").or_else(|| p.value("command")) {
        return vec![match c.lit() {
            Some(t) => Action::Script {
                text: ScriptText::Text(t.to_string()),
                via: "flock -c".into(),
                positional: None,
                dialect: Dialect::Posix,
            },
            None => finding(
                FindingKind::DynamicShell,
                "flock -c with a command that is not literal",
            ),
        }];
    }
    // flock FILE CMD…: the first operand is the lock file.
    if p.rest + 1 < args.len() {
        return vec![inner(p.rest + 1, "flock")];
    }
    Vec::new()
}

fn chroot(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("", &["userspec", "groups"], true));
    if p.rest + 1 < args.len() {
        vec![inner(p.rest + 1, "chroot")]
    } else {
        vec![finding(
            FindingKind::InteractiveShell,
            "chroot without a command starts an interactive shell",
        )]
    }
}

fn busybox(_: &str, args: &[Arg]) -> Vec<Action> {
    if args.is_empty() {
        return Vec::new();
    }
    vec![inner(0, "busybox")]
}

fn su(name: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "cgGsuw",
            &[
                "command",
                "group",
                "supp-group",
                "shell",
                "user",
                "whitelist-environment",
                "session-command",
            ],
            false,
        ),
    );
    if let Some(c) = p
        .value("c")
        .or_else(|| p.value("command"))
        .or_else(|| p.value("session-command"))
    {
        return vec![match c.lit() {
            Some(t) => Action::Script {
                text: ScriptText::Text(t.to_string()),
                via: format!("{name} -c"),
                positional: None,
                dialect: Dialect::Posix,
            },
            None => finding(
                FindingKind::DynamicShell,
                format!("{name} -c with a command that is not literal"),
            ),
        }];
    }
    if name == "runuser" && p.has("u") {
        // runuser -u USER -- CMD…
        if let Some(dd) = args.iter().position(|a| a.lit() == Some("--")) {
            return vec![inner(dd + 1, "runuser")];
        }
    }
    vec![finding(
        FindingKind::InteractiveShell,
        format!("{name} without -c starts an interactive shell"),
    )]
}

fn script_cmd(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "cETBIOmt",
            &[
                "command",
                "echo",
                "log-timing",
                "log-io",
                "log-in",
                "log-out",
                "logging-format",
                "timing",
                "output-limit",
            ],
            false,
        ),
    );
    let mut out: Vec<Action> = operands(&p, args)
        .into_iter()
        .map(|a| effect(EffectKind::Write, a, false))
        .collect();
    match p.value("c").or_else(|| p.value("command")) {
        Some(c) => out.push(match c.lit() {
            Some(t) => Action::Script {
                text: ScriptText::Text(t.to_string()),
                via: "script -c".into(),
                positional: None,
                dialect: Dialect::Posix,
            },
            None => finding(
                FindingKind::DynamicShell,
                "script -c with a command that is not literal",
            ),
        }),
        None => out.push(finding(
            FindingKind::InteractiveShell,
            "script without -c starts an interactive shell",
        )),
    }
    out
}

fn tracer(name: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "abeEIoOpPsSuUX",
            &["output", "signal", "trace", "env", "user", "attach"],
            true,
        ),
    );
    let mut out: Vec<Action> = p
        .values("o")
        .chain(p.values("output"))
        .map(|o| effect(EffectKind::Write, o, false))
        .collect();
    if !p.has("p") && p.rest < args.len() {
        out.push(inner(p.rest, name));
    }
    out
}

fn taskset(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("", &[], true));
    if p.has("p") || p.has("pid") {
        return Vec::new();
    }
    // The first operand is the mask or CPU list.
    vec![inner(p.rest + 1, "taskset")]
}

// ------------------------------------------------------------ shells

fn shell_bash(name: &str, args: &[Arg]) -> Vec<Action> {
    shell(name, args, Dialect::Bash)
}

fn shell_posix(name: &str, args: &[Arg]) -> Vec<Action> {
    shell(name, args, Dialect::Posix)
}

fn shell_foreign(name: &str, args: &[Arg]) -> Vec<Action> {
    if matches!(name, "fish" | "csh" | "tcsh") {
        return vec![finding(
            FindingKind::DynamicShell,
            format!("{name} scripts are not analysed (different grammar)"),
        )];
    }
    let mut out = vec![finding(
        FindingKind::ForeignShell,
        format!("{name} is analysed with bash grammar; its own grammar differs"),
    )];
    out.extend(shell(name, args, Dialect::Foreign));
    out
}

/// A nested shell: where its script comes from, with `$0` and arguments.
/// Dynamic words after the script are its (unknown) positional
/// arguments; a dynamic word before it could be an option or the script
/// itself.
fn shell(name: &str, args: &[Arg], dialect: Dialect) -> Vec<Action> {
    let literal_len = args.iter().take_while(|a| a.lit().is_some()).count();
    let words: Vec<String> = args[..literal_len]
        .iter()
        .filter_map(|a| a.lit().map(str::to_string))
        .collect();
    let dynamic_rest = literal_len < args.len();
    let os: Vec<OsString> = words.iter().map(OsString::from).collect();
    let inv = match invocation::parse(std::ffi::OsStr::new(name), os) {
        Ok(InvParsed::Run(inv)) => inv,
        Ok(InvParsed::Informational) => return Vec::new(),
        Ok(InvParsed::ListOptions) => {
            return vec![finding(
                FindingKind::DynamicShell,
                format!("{name} options are not understood"),
            )];
        }
        Err(_) if dynamic_rest => {
            return vec![finding(
                FindingKind::DynamicShell,
                format!("{name} runs a script that is not literal"),
            )];
        }
        Err(_) => {
            return vec![finding(
                FindingKind::DynamicShell,
                format!("{name} options are not understood"),
            )];
        }
    };
    if dynamic_rest && inv.source == Source::Stdin {
        return vec![finding(
            FindingKind::DynamicShell,
            format!("{name} arguments are not literal"),
        )];
    }
    let mut out = Vec::new();
    if inv.options.set_option("keyword") == Some(true) {
        out.push(finding(
            FindingKind::ParseStateChange,
            format!(
                "{name} -k turns arguments that look like assignments into environment variables"
            ),
        ));
    }
    if inv.options.shopt("expand_aliases") == Some(true)
        || inv.options.shopt("extglob") == Some(true)
    {
        out.push(finding(
            FindingKind::ParseStateChange,
            format!("{name} -O changes how the script parses"),
        ));
    }
    for (long, value) in &inv.options.long {
        if matches!(long.as_str(), "rcfile" | "init-file")
            && let Some(v) = value
        {
            out.push(Action::Script {
                text: ScriptText::File(Arg::literal(v.to_string_lossy())),
                via: format!("{name} --{long}"),
                positional: None,
                dialect,
            });
        }
        if long == "debugger" {
            out.push(finding(
                FindingKind::ParseStateChange,
                format!("{name} --debugger sources a debugger"),
            ));
        }
    }
    let positional = (!dynamic_rest).then(|| Positional {
        dollar0: inv
            .dollar0
            .clone()
            .map_or_else(|| name.to_string(), |d| d.to_string_lossy().into_owned()),
        args: inv
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
    });
    let text = match &inv.source {
        Source::Command(s) => ScriptText::Text(s.to_string_lossy().into_owned()),
        Source::File(f) => ScriptText::File(Arg::literal(f.to_string_lossy())),
        Source::Stdin => ScriptText::Stdin,
    };
    let via = match &inv.source {
        Source::Command(_) => format!("{name} -c"),
        Source::File(_) => format!("{name} FILE"),
        Source::Stdin => format!("{name} (stdin)"),
    };
    out.push(Action::Script {
        text,
        via,
        positional,
        dialect,
    });
    out
}

// ------------------------------------------------------------ interpreters

fn inline(lang: &str, code: Option<&Arg>) -> Action {
    match code.and_then(Arg::lit) {
        Some(c) => finding(FindingKind::InlineCode, format!("{lang}: {c}")),
        None => finding(
            FindingKind::DynamicShell,
            format!("{lang} runs code that is not literal"),
        ),
    }
}

/// An interpreter reading its program from stdin.
fn from_stdin(lang: &str) -> Action {
    Action::StdinCode {
        lang: lang.to_string(),
    }
}

fn python(name: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("cmWXQ", &["check-hash-based-pycs"], true));
    if let Some(code) = p.value("c") {
        return vec![inline(name, Some(code))];
    }
    if p.has("m") {
        return Vec::new();
    }
    match args.get(p.rest).and_then(Arg::lit) {
        None if p.rest >= args.len() => vec![from_stdin(name)],
        Some("-") => vec![from_stdin(name)],
        Some(_) => vec![effect(EffectKind::Read, &args[p.rest], false)],
        None => vec![finding(
            FindingKind::DynamicShell,
            format!("{name} runs a script named by a variable"),
        )],
    }
}

fn node(name: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "eprC",
            &[
                "eval",
                "print",
                "require",
                "input-type",
                "import",
                "loader",
                "conditions",
                "experimental-loader",
                "env-file",
                "title",
            ],
            true,
        ),
    );
    if let Some(code) = p
        .value("e")
        .or_else(|| p.value("eval"))
        .or_else(|| p.value("p"))
        .or_else(|| p.value("print"))
    {
        return vec![inline(name, Some(code))];
    }
    match args.get(p.rest).and_then(Arg::lit) {
        None if p.rest >= args.len() => vec![from_stdin(name)],
        Some("-") => vec![from_stdin(name)],
        _ => Vec::new(),
    }
}

fn deno(name: &str, args: &[Arg]) -> Vec<Action> {
    if args.first().and_then(Arg::lit) == Some("eval") {
        return vec![inline(name, args.get(1))];
    }
    Vec::new()
}

fn bun(name: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("e", &["eval", "print"], true));
    match p
        .value("e")
        .or_else(|| p.value("eval"))
        .or_else(|| p.value("print"))
    {
        Some(code) => vec![inline(name, Some(code))],
        None => Vec::new(),
    }
}

/// perl and ruby: `-e CODE` may sit inside a cluster (`-ne`, `-lpe`).
fn perlish(name: &str, args: &[Arg], code_flags: &str) -> Vec<Action> {
    let mut out = Vec::new();
    let mut code = None;
    let mut in_place = false;
    let mut i = 0;
    while let Some(w) = args.get(i).and_then(Arg::lit) {
        if w == "--" {
            i += 1;
            break;
        }
        if !w.starts_with('-') || w == "-" {
            break;
        }
        let cluster: Vec<char> = w[1..].chars().collect();
        let mut k = 0;
        let mut consumed_next = false;
        while k < cluster.len() {
            let c = cluster[k];
            if code_flags.contains(c) {
                let rest: String = cluster[k + 1..].iter().collect();
                code = Some(if rest.is_empty() {
                    consumed_next = true;
                    args.get(i + 1).cloned().unwrap_or_else(|| Arg::literal(""))
                } else {
                    Arg::literal(rest)
                });
                break;
            }
            if c == 'i' {
                in_place = true;
                break; // -i[ext]: the rest is the backup suffix
            }
            if matches!(c, 'I' | 'M' | 'm' | 'x' | 'C' | 'F' | 'd' | 'D' | 'V') {
                break; // takes the rest of the cluster as its value
            }
            k += 1;
        }
        i += if consumed_next { 2 } else { 1 };
    }
    if let Some(c) = &code {
        out.push(inline(name, Some(c)));
        if in_place {
            for f in args.get(i..).unwrap_or(&[]) {
                out.push(effect(EffectKind::Write, f, false));
            }
        } else {
            for f in args.get(i..).unwrap_or(&[]) {
                out.push(effect(EffectKind::Read, f, false));
            }
        }
        return out;
    }
    match args.get(i).and_then(Arg::lit) {
        None if i >= args.len() => out.push(from_stdin(name)),
        Some("-") => out.push(from_stdin(name)),
        _ => {}
    }
    out
}

fn perl(name: &str, args: &[Arg]) -> Vec<Action> {
    perlish(name, args, "eE")
}

fn ruby(name: &str, args: &[Arg]) -> Vec<Action> {
    perlish(name, args, "e")
}

fn single_flag_code(name: &str, args: &[Arg], flag: &'static str) -> Vec<Action> {
    let p = args::parse(args, spec(flag, &[], false));
    match p.value(flag) {
        Some(code) => vec![inline(name, Some(code))],
        None => Vec::new(),
    }
}

fn php(name: &str, args: &[Arg]) -> Vec<Action> {
    single_flag_code(name, args, "r")
}

fn lua(name: &str, args: &[Arg]) -> Vec<Action> {
    single_flag_code(name, args, "e")
}

fn rscript(name: &str, args: &[Arg]) -> Vec<Action> {
    single_flag_code(name, args, "e")
}

fn osascript(name: &str, args: &[Arg]) -> Vec<Action> {
    single_flag_code(name, args, "e")
}

fn awk(name: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "Ffve",
            &[
                "field-separator",
                "assign",
                "file",
                "source",
                "include",
                "load",
            ],
            false,
        ),
    );
    let mut out = Vec::new();
    let mut ops = operands(&p, args);
    let program = if let Some(src) = p.value("e").or_else(|| p.value("source")) {
        Some(src.clone())
    } else if p.value("f").is_some() || p.value("file").is_some() {
        for f in p.values("f").chain(p.values("file")) {
            out.push(effect(EffectKind::Read, f, false));
        }
        out.push(finding(
            FindingKind::InlineCode,
            format!("{name} runs a program file"),
        ));
        None
    } else if ops.is_empty() {
        return vec![finding(
            FindingKind::DynamicShell,
            format!("{name} without a program"),
        )];
    } else {
        Some(ops.remove(0).clone())
    };
    if let Some(prog) = program {
        match prog.lit() {
            Some(text) => {
                let scan = scan_awk(text);
                if scan.runs_commands {
                    out.push(finding(
                        FindingKind::InlineExec,
                        format!("{name} program runs commands: {text}"),
                    ));
                } else if scan.writes_files {
                    out.push(finding(
                        FindingKind::InlineCode,
                        format!("{name} program writes files: {text}"),
                    ));
                }
            }
            None => out.push(finding(
                FindingKind::DynamicShell,
                format!("{name} program is not literal"),
            )),
        }
    }
    for f in ops {
        // `var=value` operands are assignments, not files.
        if f.lit().is_some_and(|t| {
            t.split_once('=')
                .is_some_and(|(n, _)| super::parse::is_name(n))
        }) {
            continue;
        }
        out.push(effect(EffectKind::Read, f, false));
    }
    out
}

struct AwkScan {
    runs_commands: bool,
    writes_files: bool,
}

/// A conservative look at an awk program: `system(`, pipes to or from
/// commands, and output redirection after print/printf.
fn scan_awk(prog: &str) -> AwkScan {
    let mut scan = AwkScan {
        runs_commands: false,
        writes_files: false,
    };
    // Drop string and regex literals' contents so their characters do not
    // count (a `|` inside /a|b/ is not a pipe).
    let mut code = String::new();
    let mut chars = prog.chars().peekable();
    let mut prev_sig: Option<char> = None;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                code.push('"');
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == '"' {
                        break;
                    }
                }
                code.push('"');
                prev_sig = Some('"');
            }
            '/' if matches!(
                prev_sig,
                None | Some('(' | ',' | '{' | ';' | '!' | '~' | '&' | '|' | '\n')
            ) =>
            {
                code.push('/');
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == '/' {
                        break;
                    }
                }
                code.push('/');
                prev_sig = Some('/');
            }
            _ => {
                code.push(c);
                if !c.is_whitespace() {
                    prev_sig = Some(c);
                }
            }
        }
    }
    let compact: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    if compact.contains("system") || compact.contains("getline") && compact.contains('|') {
        scan.runs_commands = true;
    }
    // Statements after print/printf up to ; } or newline.
    for (i, _) in code.match_indices("print") {
        let rest = &code[i..];
        let end = rest.find([';', '}', '\n']).unwrap_or(rest.len());
        let stmt = &rest[..end];
        let mut depth = 0i32;
        let mut in_str = false;
        for c in stmt.chars() {
            match c {
                '"' => in_str = !in_str,
                '(' if !in_str => depth += 1,
                ')' if !in_str => depth -= 1,
                '|' if !in_str && depth <= 0 => scan.runs_commands = true,
                '>' if !in_str && depth <= 0 => scan.writes_files = true,
                _ => {}
            }
        }
    }
    if code.contains("|&") || code.contains("fflush") && code.contains('|') {
        scan.runs_commands = true;
    }
    scan
}

fn sed(name: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "efl",
            &["expression", "file", "line-length", "separate"],
            false,
        ),
    );
    let mut out = Vec::new();
    let mut ops = operands(&p, args);
    let mut scripts: Vec<Arg> = p
        .values("e")
        .chain(p.values("expression"))
        .cloned()
        .collect();
    for f in p.values("f").chain(p.values("file")) {
        out.push(effect(EffectKind::Read, f, false));
        out.push(finding(
            FindingKind::InlineCode,
            format!("{name} runs a script file"),
        ));
    }
    if scripts.is_empty() && p.value("f").is_none() && p.value("file").is_none() {
        if ops.is_empty() {
            return out;
        }
        scripts.push(ops.remove(0).clone());
    }
    for s in &scripts {
        match s.lit() {
            Some(text) => match scan_sed(text) {
                Some(scan) => {
                    if scan.executes {
                        out.push(finding(
                            FindingKind::InlineExec,
                            format!("{name} script runs commands: {text}"),
                        ));
                    }
                    for w in scan.writes {
                        out.push(effect(EffectKind::Write, &Arg::literal(w), false));
                    }
                    for r in scan.reads {
                        out.push(effect(EffectKind::Read, &Arg::literal(r), false));
                    }
                }
                None => out.push(finding(
                    FindingKind::InlineCode,
                    format!("{name} script not understood: {text}"),
                )),
            },
            None => out.push(finding(
                FindingKind::DynamicShell,
                format!("{name} script is not literal"),
            )),
        }
    }
    let in_place = p
        .opts
        .iter()
        .any(|o| o.name == "i" || o.name == "in-place" || (o.name.starts_with('i') && !o.long));
    for f in ops {
        out.push(effect(
            if in_place {
                EffectKind::Write
            } else {
                EffectKind::Read
            },
            f,
            false,
        ));
    }
    out
}

#[derive(Debug, Default)]
struct SedScan {
    executes: bool,
    writes: Vec<String>,
    reads: Vec<String>,
}

/// A GNU sed script reader good enough to find `e`, `w`, `r` and the `e`
/// and `w` flags of `s`. None when it cannot follow the script.
fn scan_sed(script: &str) -> Option<SedScan> {
    let b: Vec<char> = script.chars().collect();
    let mut scan = SedScan::default();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && (b[*i].is_whitespace() || b[*i] == ';') {
            *i += 1;
        }
    };
    let read_delimited = |i: &mut usize, delim: char| -> Option<()> {
        while *i < b.len() {
            if b[*i] == '\\' {
                *i += 2;
                continue;
            }
            if b[*i] == delim {
                *i += 1;
                return Some(());
            }
            if b[*i] == '\n' && delim != '\n' {
                return None;
            }
            *i += 1;
        }
        None
    };
    let rest_of_line = |i: &mut usize| -> String {
        let s = *i;
        while *i < b.len() && b[*i] != '\n' {
            *i += 1;
        }
        b[s..*i].iter().collect::<String>().trim().to_string()
    };
    let mut guard = 0;
    loop {
        guard += 1;
        if guard > 10_000 {
            return None;
        }
        skip_ws(&mut i);
        if i >= b.len() {
            break;
        }
        // Addresses.
        for _ in 0..2 {
            if i < b.len() && (b[i].is_ascii_digit() || b[i] == '$') {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == '$' || b[i] == '~') {
                    i += 1;
                }
            } else if i < b.len() && b[i] == '/' {
                i += 1;
                read_delimited(&mut i, '/')?;
                while i < b.len() && (b[i] == 'I' || b[i] == 'M') {
                    i += 1;
                }
            } else if i + 1 < b.len() && b[i] == '\\' {
                let d = b[i + 1];
                i += 2;
                read_delimited(&mut i, d)?;
            }
            while i < b.len() && b[i] == ' ' {
                i += 1;
            }
            if i < b.len() && b[i] == ',' {
                i += 1;
                while i < b.len() && b[i] == ' ' {
                    i += 1;
                }
                if i < b.len() && (b[i] == '+' || b[i] == '~') {
                    i += 1;
                }
                continue;
            }
            break;
        }
        while i < b.len() && (b[i] == '!' || b[i] == ' ') {
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        let cmd = b[i];
        i += 1;
        match cmd {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'l' | 'n' | 'N' | 'p' | 'P'
            | 'x' | 'z' | 'F' => {}
            'q' | 'Q' | 'L' => {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == ' ') {
                    i += 1;
                }
            }
            '#' | ':' | 'b' | 't' | 'T' | 'v' => {
                while i < b.len() && b[i] != '\n' && b[i] != ';' {
                    i += 1;
                }
            }
            'a' | 'i' | 'c' => {
                // Text to the end of the line (with `\` continuation).
                loop {
                    while i < b.len() && b[i] != '\n' {
                        if b[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    if i >= 1 && i <= b.len() && i > 0 && b.get(i - 1) == Some(&'\\') && i < b.len()
                    {
                        i += 1;
                        continue;
                    }
                    break;
                }
            }
            'e' => {
                scan.executes = true;
                let _ = rest_of_line(&mut i);
            }
            'r' | 'R' => scan.reads.push(rest_of_line(&mut i)),
            'w' | 'W' => scan.writes.push(rest_of_line(&mut i)),
            's' | 'y' => {
                let delim = *b.get(i)?;
                if delim == '\n' || delim == '\\' {
                    return None;
                }
                i += 1;
                read_delimited(&mut i, delim)?;
                read_delimited(&mut i, delim)?;
                if cmd == 's' {
                    while i < b.len() {
                        match b[i] {
                            'e' => {
                                scan.executes = true;
                                i += 1;
                            }
                            'w' => {
                                i += 1;
                                scan.writes.push(rest_of_line(&mut i));
                            }
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => i += 1,
                            _ => break,
                        }
                    }
                }
            }
            _ => return None,
        }
    }
    Some(scan)
}

fn tar(name: &str, args: &[Arg]) -> Vec<Action> {
    let mut out = Vec::new();
    let mut words: Vec<Arg> = args.to_vec();
    // Old style: the first word is a bundle of letters without a dash.
    if let Some(first) = args.first().and_then(Arg::lit)
        && !first.starts_with('-')
        && first.chars().all(|c| c.is_ascii_alphabetic())
    {
        let mut rebuilt = Vec::new();
        let mut rest = args[1..].iter();
        for c in first.chars() {
            rebuilt.push(Arg::literal(format!("-{c}")));
            if matches!(
                c,
                'f' | 'C' | 'T' | 'X' | 'b' | 'H' | 'I' | 'F' | 'g' | 'K' | 'L' | 'N' | 'V'
            ) && let Some(v) = rest.next()
            {
                rebuilt.push(v.clone());
            }
        }
        rebuilt.extend(rest.cloned());
        words = rebuilt;
    }
    let p = args::parse(
        &words,
        spec(
            "fCTXbHIFgKLNV",
            &[
                "file",
                "directory",
                "files-from",
                "exclude-from",
                "blocking-factor",
                "format",
                "use-compress-program",
                "info-script",
                "new-volume-script",
                "listed-incremental",
                "starting-file",
                "tape-length",
                "newer",
                "after-date",
                "label",
                "checkpoint-action",
                "to-command",
                "rsh-command",
                "rmt-command",
                "exclude",
                "transform",
                "xform",
                "owner",
                "group",
                "mode",
                "mtime",
                "checkpoint",
                "suffix",
                "strip-components",
            ],
            false,
        ),
    );
    for o in &p.opts {
        let runs = matches!(
            o.name.as_str(),
            "use-compress-program"
                | "I"
                | "info-script"
                | "F"
                | "new-volume-script"
                | "to-command"
                | "rsh-command"
                | "rmt-command"
        ) || (o.name == "checkpoint-action"
            && o.value
                .as_ref()
                .and_then(Arg::lit)
                .is_none_or(|v| v.starts_with("exec")));
        if runs {
            out.push(finding(
                FindingKind::InlineExec,
                format!("{name} --{} runs a program", o.name),
            ));
        }
    }
    let extract = p.has("x") || p.has("extract") || p.has("get");
    let create = p.has("c")
        || p.has("create")
        || p.has("r")
        || p.has("append")
        || p.has("u")
        || p.has("update");
    let archive = p.value("f").or_else(|| p.value("file"));
    if let Some(a) = archive {
        out.push(effect(
            if create {
                EffectKind::Write
            } else {
                EffectKind::Read
            },
            a,
            false,
        ));
    }
    if extract {
        let dir = p
            .value("C")
            .or_else(|| p.value("directory"))
            .cloned()
            .unwrap_or_else(|| Arg::literal("."));
        out.push(effect(EffectKind::Write, &dir, true));
    }
    if create {
        for f in operands(&p, &words) {
            out.push(effect(EffectKind::Read, f, true));
        }
    }
    out
}

/// `git -c` keys that only change output or identity.
/// Pager settings that run nothing but a pager (`git -c core.pager=cat`).
pub const HARMLESS_PAGERS: &[&str] = &[
    "",
    "cat",
    "less",
    "less -R",
    "less -FRX",
    "less -FR",
    "more",
    "false",
    "true",
];

const HARMLESS_GIT_CONFIG: &[&str] = &[
    "user.name",
    "user.email",
    "color.",
    "advice.",
    "init.defaultbranch",
    "core.quotepath",
    "log.",
    "format.",
    "pull.rebase",
    "pull.ff",
    "merge.ff",
    "diff.renames",
    "diff.algorithm",
    "column.",
    "status.",
    "commit.gpgsign",
    "tag.gpgsign",
    "safe.directory",
    "core.autocrlf",
    "core.longpaths",
    "i18n.",
    "blame.",
    "grep.",
    "help.",
    "rerere.enabled",
    "gc.auto",
    "maintenance.auto",
    "fetch.prune",
    "push.default",
    "push.autosetupremote",
    "rebase.autostash",
];

fn git(_: &str, args: &[Arg]) -> Vec<Action> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i).and_then(Arg::lit) {
        if !w.starts_with('-') {
            break;
        }
        match w {
            "-c" => {
                match args.get(i + 1).and_then(Arg::lit) {
                    Some(kv) => {
                        let key = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
                        let value = kv.split_once('=').map_or("", |(_, v)| v);
                        let harmless_pager = (key == "core.pager" || key.starts_with("pager."))
                            && HARMLESS_PAGERS.contains(&value);
                        if !harmless_pager
                            && !HARMLESS_GIT_CONFIG
                                .iter()
                                .any(|h| key == *h || (h.ends_with('.') && key.starts_with(h)))
                        {
                            out.push(finding(
                                FindingKind::InlineExec,
                                format!("git -c {kv} can make git run programs"),
                            ));
                        }
                    }
                    None => out.push(finding(
                        FindingKind::InlineExec,
                        "git -c with a value that is not literal",
                    )),
                }
                i += 2;
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix"
            | "--config-env" => {
                if w == "--config-env" {
                    out.push(finding(
                        FindingKind::InlineExec,
                        "git --config-env sets configuration from the environment",
                    ));
                }
                i += 2;
            }
            _ if w.starts_with("--exec-path=") || w == "--exec-path" => {
                if w.contains('=') {
                    out.push(finding(
                        FindingKind::InlineExec,
                        "git --exec-path= runs git subcommands from another directory",
                    ));
                }
                i += 1;
            }
            _ if w.starts_with("--config-env=") => {
                out.push(finding(
                    FindingKind::InlineExec,
                    "git --config-env sets configuration from the environment",
                ));
                i += 1;
            }
            _ => i += 1,
        }
    }
    let sub = args.get(i).and_then(Arg::lit).unwrap_or("");
    let rest = args.get(i + 1..).unwrap_or(&[]);
    for a in rest {
        if let Some(t) = a.lit()
            && (t.starts_with("--upload-pack")
                || t.starts_with("--receive-pack")
                || t.starts_with("--exec=")
                || t == "-u" && matches!(sub, "clone" | "fetch" | "ls-remote" | "pull" | "archive"))
        {
            out.push(finding(
                FindingKind::InlineExec,
                format!("git {sub} {t} runs a program"),
            ));
        }
    }
    if matches!(
        sub,
        "log" | "diff" | "show" | "format-patch" | "whatchanged"
    ) {
        let mut k = 0;
        while k < rest.len() {
            match rest[k].lit() {
                Some("--output" | "-o") => {
                    if let Some(t) = rest.get(k + 1) {
                        out.push(effect(EffectKind::Write, t, sub == "format-patch"));
                    }
                    k += 1;
                }
                Some(t) if t.starts_with("--output=") || t.starts_with("--output-directory=") => {
                    let v = t.split_once('=').map_or("", |(_, v)| v);
                    out.push(effect(
                        EffectKind::Write,
                        &Arg::literal(v),
                        sub == "format-patch",
                    ));
                }
                _ => {}
            }
            k += 1;
        }
    }
    match sub {
        "clean" => {
            let p = args::parse(rest, spec("eX", &["exclude"], false));
            let targets = operands(&p, rest);
            if p.has("n") || p.has("dry-run") {
                return out;
            }
            if targets.is_empty() {
                out.push(effect(EffectKind::Delete, &Arg::literal("."), true));
            }
            for t in targets {
                out.push(effect(EffectKind::Delete, t, true));
            }
        }
        "rm" => {
            let p = args::parse(rest, spec("", &["pathspec-from-file"], false));
            if !p.has("cached") && !p.has("n") && !p.has("dry-run") {
                for t in operands(&p, rest) {
                    out.push(effect(EffectKind::Delete, t, p.has("r")));
                }
            }
        }
        _ => {}
    }
    out
}

fn vim(name: &str, args: &[Arg]) -> Vec<Action> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let w = a.lit().unwrap_or("");
        let code = if w == "-c" || w == "--cmd" || w == "-S" {
            i += 1;
            args.get(i).cloned()
        } else {
            w.strip_prefix('+').map(Arg::literal)
        };
        if let Some(c) = code {
            let text = c.lit().unwrap_or("");
            let kind = if c.lit().is_none()
                || text.contains('!')
                || text.contains("system")
                || text.contains("sh")
                || text.contains("py")
                || text.contains("lua")
                || text.contains("perl")
                || text.contains("ruby")
                || text.contains("term")
                || w == "-S"
            {
                FindingKind::InlineExec
            } else {
                FindingKind::InlineCode
            };
            out.push(finding(kind, format!("{name} command: {}", c.raw)));
        }
        i += 1;
    }
    out
}

fn pager(name: &str, args: &[Arg]) -> Vec<Action> {
    let mut out = Vec::new();
    for a in args {
        match a.lit() {
            Some(t) if t.starts_with('+') => {
                let kind = if t.contains('!') || t.contains('|') {
                    FindingKind::InlineExec
                } else {
                    FindingKind::InlineCode
                };
                out.push(finding(kind, format!("{name} command {t}")));
            }
            Some(t) if t.starts_with('-') => {}
            _ => out.push(effect(EffectKind::Read, a, false)),
        }
    }
    out
}

fn emacs(name: &str, args: &[Arg]) -> Vec<Action> {
    if args.iter().any(|a| {
        matches!(
            a.lit(),
            Some("--eval" | "-l" | "--load" | "-f" | "--funcall" | "--script" | "-x")
        ) || a.lit().is_some_and(|t| t.starts_with("--eval="))
    }) {
        vec![finding(
            FindingKind::InlineExec,
            format!("{name} runs Lisp given on its command line"),
        )]
    } else {
        Vec::new()
    }
}

fn gdb(name: &str, args: &[Arg]) -> Vec<Action> {
    if args.iter().any(|a| {
        matches!(
            a.lit(),
            Some("-ex" | "-x" | "-iex" | "-ix" | "--command" | "--eval-command")
        )
    }) {
        vec![finding(
            FindingKind::InlineExec,
            format!("{name} runs commands given on its command line"),
        )]
    } else {
        Vec::new()
    }
}

fn ssh(_: &str, args: &[Arg]) -> Vec<Action> {
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let t = a.lit().unwrap_or("");
        let opt = if t == "-o" {
            args.get(i + 1).and_then(Arg::lit).unwrap_or("")
        } else {
            t.strip_prefix("-o").unwrap_or("")
        };
        let key = opt
            .split(['=', ' '])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if matches!(
            key.as_str(),
            "proxycommand" | "localcommand" | "permitlocalcommand" | "knownhostscommand"
        ) {
            out.push(finding(
                FindingKind::InlineExec,
                format!("ssh -o {opt} runs a local command"),
            ));
        }
    }
    out
}

fn rsync(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "eBfMT",
            &[
                "rsh",
                "rsync-path",
                "filter",
                "exclude",
                "include",
                "exclude-from",
                "include-from",
                "files-from",
                "temp-dir",
                "compare-dest",
                "copy-dest",
                "link-dest",
                "partial-dir",
                "log-file",
                "password-file",
                "chmod",
                "chown",
                "usermap",
                "groupmap",
                "max-size",
                "min-size",
                "bwlimit",
                "timeout",
                "contimeout",
                "port",
                "sockopts",
                "out-format",
                "suffix",
                "backup-dir",
                "remote-option",
                "iconv",
                "checksum-choice",
                "compress-choice",
            ],
            false,
        ),
    );
    let mut out = Vec::new();
    if let Some(rsh) = p.value("e").or_else(|| p.value("rsh")) {
        match rsh.lit() {
            Some(t) if t == "ssh" || t.starts_with("ssh ") => {}
            _ => out.push(finding(
                FindingKind::InlineExec,
                format!("rsync -e {} runs that program", rsh.raw),
            )),
        }
    }
    let ops = operands(&p, args);
    if let Some((dest, srcs)) = ops.split_last() {
        for s in srcs {
            out.push(effect(EffectKind::Read, s, true));
        }
        let deleting = p
            .opts
            .iter()
            .any(|o| o.name.starts_with("delete") || o.name == "remove-source-files");
        out.push(effect(EffectKind::Write, dest, true));
        if deleting {
            out.push(effect(EffectKind::Delete, dest, true));
        }
    }
    out
}

fn man(_: &str, args: &[Arg]) -> Vec<Action> {
    // `-P`/`-H` alone, with a value attached or in a group (`-aP cat`),
    // read letter by letter as getopt does until one that takes a value.
    let short = |t: &str| {
        t.strip_prefix('-')
            .filter(|g| !g.starts_with('-'))
            .is_some_and(|g| {
                for c in g.chars() {
                    if c == 'P' || c == 'H' {
                        return true;
                    }
                    if "CEILMRSTXmprs".contains(c) {
                        return false;
                    }
                }
                false
            })
    };
    if args.iter().any(|a| {
        a.lit()
            .is_some_and(|t| short(t) || t.starts_with("--pager") || t.starts_with("--html"))
    }) {
        vec![finding(FindingKind::InlineExec, "man -P/-H runs a program")]
    } else {
        Vec::new()
    }
}

// ------------------------------------------------------------ effects

fn each(kind: EffectKind, ops: &[&Arg], recursive: bool) -> Vec<Action> {
    ops.iter().map(|a| effect(kind, a, recursive)).collect()
}

fn rm(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("", &[], false));
    let recursive = p.has("r") || p.has("R") || p.has("recursive");
    let mut out = each(EffectKind::Delete, &operands(&p, args), recursive);
    if p.has("no-preserve-root") {
        out.push(finding(FindingKind::DynamicShell, "rm --no-preserve-root"));
    }
    out
}

fn rmdir(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("", &[], false));
    each(EffectKind::Delete, &operands(&p, args), false)
}

fn unlink(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("", &[], false));
    each(EffectKind::Delete, &operands(&p, args), false)
}

fn shred(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec("ns", &["iterations", "size", "random-source"], false),
    );
    let ops = operands(&p, args);
    let mut out = each(EffectKind::Write, &ops, false);
    if p.has("u") || p.opts.iter().any(|o| o.name.starts_with("remove")) {
        out.extend(each(EffectKind::Delete, &ops, false));
    }
    out
}

/// cp, mv, install: sources and a destination (or `-t DIR`).
fn copy_like(args: &[Arg], source_kind: EffectKind, extra_short: &'static str) -> Vec<Action> {
    let short: &'static str = if extra_short.is_empty() {
        "St"
    } else {
        extra_short
    };
    let p = args::parse(
        args,
        spec(
            short,
            &[
                "target-directory",
                "suffix",
                "mode",
                "owner",
                "group",
                "strip-program",
                "context",
            ],
            false,
        ),
    );
    let recursive =
        p.has("r") || p.has("R") || p.has("a") || p.has("recursive") || p.has("archive");
    let ops = operands(&p, args);
    let mut out = Vec::new();
    if p.value("strip-program").is_some() {
        out.push(finding(
            FindingKind::InlineExec,
            "install --strip-program runs a program",
        ));
    }
    if let Some(dir) = p.value("t").or_else(|| p.value("target-directory")) {
        out.extend(each(source_kind, &ops, recursive));
        out.push(effect(EffectKind::Write, dir, true));
        return out;
    }
    if let Some((dest, srcs)) = ops.split_last() {
        if srcs.is_empty() {
            return out;
        }
        out.extend(each(source_kind, srcs, recursive));
        out.push(effect(EffectKind::Write, dest, recursive || srcs.len() > 1));
    }
    out
}

fn cp(_: &str, args: &[Arg]) -> Vec<Action> {
    copy_like(args, EffectKind::Read, "")
}

fn mv(_: &str, args: &[Arg]) -> Vec<Action> {
    copy_like(args, EffectKind::Delete, "")
}

fn install(_: &str, args: &[Arg]) -> Vec<Action> {
    if args
        .iter()
        .any(|a| a.lit() == Some("-d") || a.lit() == Some("--directory"))
    {
        let p = args::parse(args, spec("gmoSt", &["group", "mode", "owner"], false));
        return each(EffectKind::Create, &operands(&p, args), false);
    }
    copy_like(args, EffectKind::Read, "gmoSt")
}

fn ln(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("St", &["target-directory", "suffix"], false));
    let ops = operands(&p, args);
    let mut out = Vec::new();
    let (targets, link): (Vec<&Arg>, Option<Arg>) =
        if let Some(dir) = p.value("t").or_else(|| p.value("target-directory")) {
            // A link per target, named like it, inside the directory.
            for t in &ops {
                match (dir.lit(), t.lit()) {
                    (Some(d), Some(name)) => {
                        let name = name
                            .trim_end_matches('/')
                            .rsplit('/')
                            .next()
                            .unwrap_or(name);
                        out.push(effect(
                            EffectKind::Create,
                            &Arg::literal(format!("{}/{name}", d.trim_end_matches('/'))),
                            false,
                        ));
                    }
                    _ => out.push(effect(EffectKind::Create, dir, true)),
                }
            }
            (ops.clone(), None)
        } else if ops.len() == 1 {
            let base = ops[0].lit().map(|t| {
                t.trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or(t)
                    .to_string()
            });
            (
                ops.clone(),
                Some(base.map_or_else(|| ops[0].clone(), Arg::literal)),
            )
        } else if let Some((l, t)) = ops.split_last() {
            (t.to_vec(), Some((*l).clone()))
        } else {
            (Vec::new(), None)
        };
    if let Some(l) = link {
        out.push(effect(EffectKind::Create, &l, false));
    }
    // Writes through the new link land on its target.
    for t in targets {
        out.push(effect(EffectKind::Write, t, false));
    }
    out
}

fn tee(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("", &[], false));
    let kind = if p.has("a") || p.has("append") {
        EffectKind::Append
    } else {
        EffectKind::Write
    };
    each(kind, &operands(&p, args), false)
}

fn dd(_: &str, args: &[Arg]) -> Vec<Action> {
    let mut out = Vec::new();
    for a in args {
        match a.lit() {
            Some(t) if t.starts_with("of=") => {
                out.push(effect(EffectKind::Write, &sub_arg(a, &t[3..]), false))
            }
            Some(t) if t.starts_with("if=") => {
                out.push(effect(EffectKind::Read, &sub_arg(a, &t[3..]), false))
            }
            Some(_) => {}
            None if a.raw.contains("of=") => out.push(effect(EffectKind::Write, a, false)),
            None => {}
        }
    }
    out
}

/// A literal piece of a word (dd's `of=PATH`).
fn sub_arg(a: &Arg, text: &str) -> Arg {
    Arg {
        raw: a.raw.clone(),
        value: ArgValue::Literal {
            text: text.to_string(),
        },
    }
}

fn truncate(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("sr", &["size", "reference"], false));
    let mut out = each(EffectKind::Write, &operands(&p, args), false);
    for r in p.values("r").chain(p.values("reference")) {
        out.push(effect(EffectKind::Read, r, false));
    }
    out
}

fn chmod(_: &str, args: &[Arg]) -> Vec<Action> {
    // Modes like -x look like options: the first such word is the mode
    // when no mode has been given.
    let mut mode_seen = args
        .iter()
        .any(|a| a.lit().is_some_and(|t| t.starts_with("--reference")));
    let mut recursive = false;
    let mut targets = Vec::new();
    let mut options_done = false;
    for a in args {
        match a.lit() {
            Some("--") if !options_done => options_done = true,
            Some(t) if !options_done && (t == "-R" || t == "--recursive") => recursive = true,
            Some(t) if !options_done && t.starts_with("--") => {}
            Some(t)
                if !options_done
                    && t.starts_with('-')
                    && t[1..]
                        .chars()
                        .all(|c| "rwxXstugoa=+-,0123456789".contains(c))
                    && !mode_seen =>
            {
                mode_seen = true
            }
            Some(t) if !options_done && t.starts_with('-') && t.len() > 1 => {
                if t.contains('R') {
                    recursive = true;
                }
            }
            _ if !mode_seen => mode_seen = true,
            _ => targets.push(a),
        }
    }
    each(EffectKind::Permission, &targets, recursive)
}

fn chown(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("", &["from", "reference"], false));
    let recursive = p.has("R") || p.has("recursive");
    let mut ops = operands(&p, args);
    if p.value("reference").is_none() && !ops.is_empty() {
        ops.remove(0);
    }
    each(EffectKind::Owner, &ops, recursive)
}

fn mkdir(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("m", &["mode", "context"], false));
    each(EffectKind::Create, &operands(&p, args), false)
}

fn touch(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(args, spec("drt", &["date", "reference", "time"], false));
    let mut out = each(EffectKind::Create, &operands(&p, args), false);
    for r in p.values("r").chain(p.values("reference")) {
        out.push(effect(EffectKind::Read, r, false));
    }
    out
}

fn reads(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "wnNjAtSsT",
            &[
                "wrap",
                "bytes",
                "format",
                "width",
                "address-radix",
                "skip-bytes",
                "read-bytes",
                "strings",
                "encoding",
                "files0-from",
            ],
            false,
        ),
    );
    each(EffectKind::Read, &operands(&p, args), false)
}

fn head_tail(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "ncs",
            &[
                "lines",
                "bytes",
                "sleep-interval",
                "pid",
                "max-unchanged-stats",
            ],
            false,
        ),
    );
    let ops: Vec<&Arg> = operands(&p, args)
        .into_iter()
        .filter(|a| !a.lit().is_some_and(|t| t.starts_with('+')))
        .collect();
    each(EffectKind::Read, &ops, false)
}

fn grep(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "efmABCdD",
            &[
                "regexp",
                "file",
                "max-count",
                "after-context",
                "before-context",
                "context",
                "directories",
                "devices",
                "include",
                "exclude",
                "exclude-dir",
                "exclude-from",
                "label",
                "group-separator",
                "binary-files",
            ],
            false,
        ),
    );
    let mut ops = operands(&p, args);
    let has_pattern = p.value("e").is_some()
        || p.value("f").is_some()
        || p.value("regexp").is_some()
        || p.value("file").is_some();
    if !has_pattern && !ops.is_empty() {
        ops.remove(0);
    }
    let recursive =
        p.has("r") || p.has("R") || p.has("recursive") || p.has("dereference-recursive");
    let mut out = each(EffectKind::Read, &ops, recursive);
    for f in p.values("f").chain(p.values("file")) {
        out.push(effect(EffectKind::Read, f, false));
    }
    out
}

fn rg(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "efgtTmABCjMrEd",
            &[
                "regexp",
                "file",
                "glob",
                "iglob",
                "type",
                "type-not",
                "type-add",
                "max-count",
                "after-context",
                "before-context",
                "context",
                "threads",
                "max-columns",
                "replace",
                "encoding",
                "max-depth",
                "pre",
                "pre-glob",
                "ignore-file",
                "path-separator",
                "colors",
                "sort",
                "sortr",
                "dfa-size-limit",
                "regex-size-limit",
                "max-filesize",
                "context-separator",
                "field-context-separator",
                "field-match-separator",
                "engine",
                "color",
                "hostname-bin",
                "hyperlink-format",
            ],
            false,
        ),
    );
    let mut out = Vec::new();
    if p.value("pre").is_some() || p.value("hostname-bin").is_some() {
        out.push(finding(
            FindingKind::InlineExec,
            "rg --pre runs a program on every file",
        ));
    }
    let mut ops = operands(&p, args);
    let has_pattern = p.value("e").is_some()
        || p.value("f").is_some()
        || p.value("regexp").is_some()
        || p.value("file").is_some();
    if !has_pattern && !ops.is_empty() && !p.has("files") && !p.has("type-list") {
        ops.remove(0);
    }
    if ops.is_empty() {
        out.push(effect(EffectKind::Read, &Arg::literal("."), true));
    }
    out.extend(each(EffectKind::Read, &ops, true));
    out
}

fn cut(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "bcdf",
            &[
                "bytes",
                "characters",
                "delimiter",
                "fields",
                "output-delimiter",
            ],
            false,
        ),
    );
    each(EffectKind::Read, &operands(&p, args), false)
}

fn sort(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "koStT",
            &[
                "key",
                "output",
                "buffer-size",
                "field-separator",
                "temporary-directory",
                "parallel",
                "files0-from",
                "batch-size",
                "compress-program",
                "random-source",
                "sort",
            ],
            false,
        ),
    );
    let mut out = each(EffectKind::Read, &operands(&p, args), false);
    for o in p.values("o").chain(p.values("output")) {
        out.push(effect(EffectKind::Write, o, false));
    }
    if p.value("compress-program").is_some() {
        out.push(finding(
            FindingKind::InlineExec,
            "sort --compress-program runs a program",
        ));
    }
    out
}

fn curl(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "oDcKTdFHuAeXxrmEbwYyzCQtUP",
            &[
                "output",
                "dump-header",
                "cookie-jar",
                "config",
                "upload-file",
                "data",
                "data-binary",
                "data-raw",
                "data-urlencode",
                "form",
                "header",
                "user",
                "user-agent",
                "referer",
                "request",
                "proxy",
                "range",
                "max-time",
                "cookie",
                "cert",
                "cacert",
                "key",
                "output-dir",
                "trace",
                "trace-ascii",
                "stderr",
                "write-out",
                "connect-timeout",
                "retry",
                "resolve",
                "url",
                "json",
                "netrc-file",
            ],
            false,
        ),
    );
    let mut out = Vec::new();
    let dir = p.value("output-dir").cloned();
    for o in p.values("o").chain(p.values("output")) {
        let target = match (&dir, o.lit()) {
            (Some(d), Some(name)) if !name.starts_with('/') => match d.lit() {
                Some(dl) => Arg::literal(format!("{}/{name}", dl.trim_end_matches('/'))),
                None => d.clone(),
            },
            _ => o.clone(),
        };
        if target.lit() != Some("-") {
            out.push(effect(EffectKind::Write, &target, false));
        }
    }
    if p.has("O") || p.has("remote-name") || p.has("remote-name-all") {
        // The file name comes from the URL.
        let target = dir.unwrap_or_else(|| Arg::literal("."));
        out.push(effect(EffectKind::Write, &target, true));
    }
    for f in p
        .values("D")
        .chain(p.values("dump-header"))
        .chain(p.values("c"))
        .chain(p.values("cookie-jar"))
        .chain(p.values("trace"))
        .chain(p.values("trace-ascii"))
        .chain(p.values("stderr"))
    {
        if f.lit() != Some("-") {
            out.push(effect(EffectKind::Write, f, false));
        }
    }
    for f in p
        .values("T")
        .chain(p.values("upload-file"))
        .chain(p.values("K"))
        .chain(p.values("config"))
        .chain(p.values("netrc-file"))
    {
        out.push(effect(EffectKind::Read, f, false));
    }
    for d in p
        .values("d")
        .chain(p.values("data"))
        .chain(p.values("data-binary"))
        .chain(p.values("data-urlencode"))
        .chain(p.values("F"))
        .chain(p.values("form"))
        .chain(p.values("json"))
    {
        if let Some(t) = d.lit()
            && let Some(pos) = t.find('@')
            && t[pos + 1..] != *"-"
        {
            let file = t[pos + 1..].split(';').next().unwrap_or("");
            out.push(effect(EffectKind::Read, &Arg::literal(file), false));
        }
    }
    out
}

fn wget(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "OoaPiUTtQe",
            &[
                "output-document",
                "output-file",
                "append-output",
                "directory-prefix",
                "input-file",
                "user-agent",
                "timeout",
                "tries",
                "quota",
                "execute",
                "user",
                "password",
                "header",
                "post-data",
                "post-file",
                "body-file",
                "load-cookies",
                "save-cookies",
                "ca-certificate",
                "certificate",
                "private-key",
            ],
            false,
        ),
    );
    let mut out = Vec::new();
    for o in p.values("O").chain(p.values("output-document")) {
        if o.lit() != Some("-") {
            out.push(effect(EffectKind::Write, o, false));
        }
    }
    for o in p
        .values("o")
        .chain(p.values("output-file"))
        .chain(p.values("save-cookies"))
    {
        out.push(effect(EffectKind::Write, o, false));
    }
    for o in p.values("a").chain(p.values("append-output")) {
        out.push(effect(EffectKind::Append, o, false));
    }
    if p.value("O").is_none() && p.value("output-document").is_none() {
        let dir = p
            .value("P")
            .or_else(|| p.value("directory-prefix"))
            .cloned()
            .unwrap_or_else(|| Arg::literal("."));
        out.push(effect(EffectKind::Write, &dir, true));
    }
    for f in p
        .values("i")
        .chain(p.values("input-file"))
        .chain(p.values("post-file"))
        .chain(p.values("body-file"))
        .chain(p.values("load-cookies"))
    {
        out.push(effect(EffectKind::Read, f, false));
    }
    if p.value("e").is_some() || p.value("execute").is_some() {
        out.push(finding(
            FindingKind::InlineCode,
            "wget -e runs a .wgetrc command",
        ));
    }
    out
}

/// `cmd [INPUT [OUTPUT]]`: the first operand is read, the second written.
fn in_out(ops: &[&Arg]) -> Vec<Action> {
    let mut out = Vec::new();
    if let Some(i) = ops.first() {
        out.push(effect(EffectKind::Read, i, false));
    }
    if let Some(o) = ops.get(1) {
        out.push(effect(EffectKind::Write, o, false));
    }
    out
}

fn uniq(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "fsw",
            &[
                "skip-fields",
                "skip-chars",
                "check-chars",
                "group",
                "all-repeated",
            ],
            false,
        ),
    );
    in_out(&operands(&p, args))
}

fn xxd(_: &str, args: &[Arg]) -> Vec<Action> {
    let p = args::parse(
        args,
        spec(
            "cglosn",
            &["cols", "groupsize", "len", "offset", "seek", "name"],
            false,
        ),
    );
    in_out(&operands(&p, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(words: &[&str]) -> Vec<Arg> {
        words.iter().map(|w| Arg::literal(*w)).collect()
    }

    #[test]
    fn the_command_table_finds_each_name_by_scan_and_by_index() {
        assert_scan_agrees_with_index(&BY_NAME);
        // The first lookups scan, later ones use the index: same answers.
        let ix = NameIndex::new(TABLE, |e| e.names);
        let first: Vec<_> = (0..SCANS_BEFORE_INDEX + 2)
            .map(|_| ix.get("find").map(std::ptr::from_ref))
            .collect();
        assert!(first.windows(2).all(|w| w[0] == w[1] && w[0].is_some()));
        assert!(ix.map.get().is_some(), "indexed after the scans");
    }

    #[test]
    fn sed_scanner_finds_exec_and_write() {
        assert!(scan_sed("s/a/b/e").is_some_and(|s| s.executes));
        assert!(scan_sed("1e id").is_some_and(|s| s.executes));
        assert_eq!(
            scan_sed("s/a/b/w out.txt").map(|s| s.writes),
            Some(vec!["out.txt".to_string()])
        );
        assert!(
            scan_sed("s/foo/bar/g; /x/d; 3,5p").is_some_and(|s| !s.executes && s.writes.is_empty())
        );
        assert!(scan_sed("y/abc/xyz/").is_some_and(|s| !s.executes));
        assert!(scan_sed("/^#/!s|a|b|2").is_some_and(|s| !s.executes));
    }

    #[test]
    fn awk_scanner_finds_system_pipes_and_redirects() {
        assert!(scan_awk("BEGIN{system(\"id\")}").runs_commands);
        assert!(scan_awk("{print | \"sh\"}").runs_commands);
        assert!(scan_awk("{\"date\" | getline d}").runs_commands);
        assert!(scan_awk("{print > \"out\"}").writes_files);
        let plain = scan_awk("$3 > 100 {print $1, $2}");
        assert!(!plain.runs_commands && !plain.writes_files);
        assert!(!scan_awk("/a|b/ {print}").runs_commands);
    }

    #[test]
    fn wrappers_find_their_inner_command() {
        assert_eq!(
            interpret("timeout", &lits(&["-s", "KILL", "5", "rm", "x"])),
            vec![inner(3, "timeout")]
        );
        assert_eq!(
            interpret("nice", &lits(&["-n", "5", "rm"])),
            vec![inner(2, "nice")]
        );
        assert_eq!(interpret("nohup", &lits(&["rm"])), vec![inner(0, "nohup")]);
        let env = interpret("env", &lits(&["-i", "X=1", "rm", "-rf", "/"]));
        assert!(env.contains(&inner(2, "env")));
        let sudo = interpret("sudo", &lits(&["-u", "root", "-E", "rm", "x"]));
        assert!(sudo.contains(&inner(3, "sudo")));
    }
}
