//! Walking the syntax tree into an `Analysis`: every simple command in
//! every construct (lists, pipelines, compounds, functions, substitutions,
//! here-docs, arithmetic, `[[ ]]`, assignments), seen through wrappers and
//! literal nested scripts, with file effects resolved against the working
//! directory (tracking `cd`) and findings for what cannot be known.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

use super::analysis::{
    Analysis, Arg, ArgValue, Assignment as AssignmentRecord, CommandInfo, Effect, EffectKind,
    Finding, FindingKind, Stdin, TargetKind,
};
use super::ast::{
    AndOr, AndOrOp, Arith, AssignValue, Assignment, Command, Compound, CondToken, List, Param,
    Part, Pipeline, RedirOp, RedirTarget, Redirect, SimpleCommand, Word,
};
use super::commands::{self, Action, Dialect, ScriptText};
use super::expand::{self, Mode, Positional, VarValue};
use super::parse::{self, Script};
use super::paths;

/// Largest script file (`bash FILE`, `source FILE`) read for analysis.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Deepest chain of literal nested scripts followed.
const MAX_NESTED_SCRIPTS: usize = 16;
/// Most commands recorded before the analysis gives up.
const MAX_COMMANDS: usize = 20_000;
/// Findings beyond this many make the analysis opaque (they would only
/// repeat; each one is kept in memory and printed).
const MAX_FINDINGS: usize = 20_000;

/// Assignments that make programs execute code or change how the shell
/// parses and finds commands, with the reason (DESIGN §3; issue 3 §5).
const DANGEROUS_VARS: &[(&str, &str)] = &[
    ("BASH_ENV", "bash sources it before running a script"),
    ("ENV", "sh sources it at startup"),
    ("PROMPT_COMMAND", "runs as a command before each prompt"),
    ("PS0", "expanded (with substitutions) by interactive shells"),
    ("PS1", "expanded (with substitutions) by interactive shells"),
    ("PS4", "expanded with substitutions when xtrace is on"),
    ("IFS", "changes how words are split"),
    ("PATH", "changes which program a command name runs"),
    ("CDPATH", "changes where cd goes"),
    ("LD_PRELOAD", "injects a library into every program"),
    ("LD_LIBRARY_PATH", "changes which libraries programs load"),
    ("LD_AUDIT", "injects an audit library into every program"),
    ("PAGER", "programs run it"),
    ("GIT_PAGER", "git runs it"),
    ("MANPAGER", "man runs it"),
    ("EDITOR", "programs run it"),
    ("VISUAL", "programs run it"),
    ("LESSOPEN", "less runs it on every file"),
    ("LESSCLOSE", "less runs it"),
    (
        "BASHOPTS",
        "sets shell options (expand_aliases, extglob) in child bash",
    ),
    ("SHELLOPTS", "sets shell options in child bash"),
    ("GLOBIGNORE", "changes globbing"),
    ("FIGNORE", "changes completion"),
    ("PYTHONSTARTUP", "python runs it"),
    ("PYTHONPATH", "changes which modules python imports"),
    (
        "NODE_OPTIONS",
        "adds options (e.g. --require) to every node",
    ),
    ("PERL5OPT", "adds options (e.g. -M) to every perl"),
    ("PERL5LIB", "changes which modules perl loads"),
    ("RUBYOPT", "adds options to every ruby"),
    ("SSH_ASKPASS", "programs run it"),
    ("SUDO_ASKPASS", "sudo runs it"),
    ("TERMINFO", "changes terminal description loading"),
];

/// Prefixes of dangerous variable names.
const DANGEROUS_PREFIXES: &[(&str, &str)] = &[
    (
        "GIT_",
        "git runs programs named in GIT_* variables (GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_CONFIG_*)",
    ),
    (
        "BASH_FUNC_",
        "exports a function definition to child shells",
    ),
    ("LD_", "dynamic loader settings"),
];

/// Words whose presence means variables may be set in ways the taint scan
/// cannot see, so environment values are not trusted at all.
const TAINT_ALL_WORDS: &[&str] = &[
    "source",
    "eval",
    "declare",
    "typeset",
    "export",
    "local",
    "readonly",
    "read",
    "mapfile",
    "readarray",
    "printf",
    "let",
    "unset",
    "getopts",
    "set",
    "shift",
    "trap",
    "alias",
    "enable",
    "exec",
    ".",
];

/// What the walker is given.
#[derive(Debug, Clone)]
pub struct Input {
    pub positional: Positional,
    pub cwd: PathBuf,
    pub home: Option<String>,
    /// The environment automode was started with (UTF-8 names; a value
    /// that is not UTF-8 is `UNDECODABLE_VALUE`).
    pub env: HashMap<String, String>,
    /// False when startup files (login, interactive, BASH_ENV) may set
    /// variables before the script: then no environment value is trusted.
    pub trust_env: bool,
    pub dialect: Dialect,
    pub deadline: Option<Instant>,
}

/// The working directory as far as `cd` lets us know it.
#[derive(Debug, Clone)]
struct Cwd {
    /// Where commands most likely run; None when unknown.
    primary: Option<PathBuf>,
    /// Other directories they may run in (a `cd` that may have failed).
    others: Vec<PathBuf>,
}

#[derive(Debug, Clone)]
struct Frame {
    positional: Option<Rc<Positional>>,
    via: Vec<String>,
    depth: usize,
    in_function: Option<String>,
    cwd: Rc<Cwd>,
    /// The texts of this script and every enclosing one (for the taint
    /// scan).
    texts: Rc<Vec<Rc<str>>>,
    dialect: Dialect,
    /// The last pipeline was a `cd` (for `cd x && …`).
    cd_fresh: bool,
    /// Standard input of commands here that do not redirect it.
    stdin: Stdin,
}

/// The taint scans of script texts (each reads a whole text), remembered
/// by text: a large script asks about the same names again and again.
/// Entries keep their text alive, so an address names one text (nested
/// texts are forgotten when their walk ends).
#[derive(Default)]
struct TextScans {
    by_text: std::cell::RefCell<HashMap<usize, (Rc<str>, Scans)>>,
}

#[derive(Default)]
struct Scans {
    everything: Option<bool>,
    tainted: HashMap<String, bool>,
    unsafely: HashMap<String, bool>,
}

impl TextScans {
    fn with<T>(&self, text: &Rc<str>, f: impl FnOnce(&mut Scans) -> T) -> T {
        let mut by_text = self.by_text.borrow_mut();
        let key = Rc::as_ptr(text).cast::<u8>().addr();
        let entry = by_text
            .entry(key)
            .or_insert_with(|| (Rc::clone(text), Scans::default()));
        f(&mut entry.1)
    }

    /// Drop what is remembered about a text.
    fn forget(&self, text: &Rc<str>) {
        let key = Rc::as_ptr(text).cast::<u8>().addr();
        self.by_text.borrow_mut().remove(&key);
    }

    fn taints_everything(&self, text: &Rc<str>) -> bool {
        self.with(text, |s| {
            *s.everything.get_or_insert_with(|| taints_everything(text))
        })
    }

    fn is_tainted(&self, text: &Rc<str>, name: &str) -> bool {
        self.with(text, |s| match s.tainted.get(name) {
            Some(v) => *v,
            None => *s
                .tainted
                .entry(name.to_string())
                .or_insert_with(|| is_tainted(text, name)),
        })
    }

    fn assigned_unsafely(&self, text: &Rc<str>, name: &str) -> bool {
        self.with(text, |s| match s.unsafely.get(name) {
            Some(v) => *v,
            None => *s
                .unsafely
                .entry(name.to_string())
                .or_insert_with(|| assigned_unsafely(text, name)),
        })
    }
}

/// Path resolutions in one working directory, by target text.
type ResolvedIn =
    HashMap<String, (PathBuf, PathBuf), std::hash::BuildHasherDefault<commands::NameHasher>>;

struct Walker<'a> {
    input: &'a Input,
    out: Analysis,
    functions: BTreeMap<String, bool>,
    /// Still before the first command of the top-level script (leading
    /// AUTOMODE_TIMEOUT=… assignments are allowed there).
    at_start: bool,
    /// Paths the script writes (a script file it runs later may differ).
    written: Vec<PathBuf>,
    /// What the script writes into a path, when the walk can say: the
    /// output of `cat <<'EOF'`, `echo`, `printf` with literal text,
    /// written once (then maybe appended to); None once anything else
    /// writes there. A script the line writes and then runs is analysed
    /// as it will be.
    written_text: HashMap<PathBuf, Option<String>>,
    nested_scripts: usize,
    /// Literal values of scalars, as far as the walk knows them.
    values: HashMap<String, String>,
    /// Variables declared integer (`declare -i`).
    integers: std::collections::HashSet<String>,
    arith_depth: usize,
    /// (name, value) pairs whose value arithmetic has already evaluated:
    /// a value naming itself (or others that name it back) would
    /// otherwise be walked again for every mention, exponentially.
    evaluated: std::collections::HashSet<(String, String)>,
    /// Scratch space for expanding redirection targets.
    arg_buf: Vec<Arg>,
    /// Calls of `out_of_time`.
    clock_checks: u32,
    /// Path resolutions already done: by working directory (its bytes:
    /// hashing a path by components costs more than the lookup), then by
    /// target text.
    resolved: HashMap<
        std::ffi::OsString,
        ResolvedIn,
        std::hash::BuildHasherDefault<commands::NameHasher>,
    >,
    resolved_count: usize,
    /// The taint scans of script texts, remembered.
    scans: TextScans,
}

/// Walk a parsed top-level script.
pub fn walk(script: &Script, text: &str, input: &Input) -> Analysis {
    let mut session = Session::new(text, input);
    session.walk(&script.list, script);
    session.finish()
}

/// A walk of a top-level script given a part at a time (in order): the
/// same result as `walk` on the whole.
pub struct Session<'a> {
    w: Walker<'a>,
    frame: Frame,
    /// The result, decided before walking anything.
    early: Option<Analysis>,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("commands", &self.w.out.commands.len())
            .finish()
    }
}

impl<'a> Session<'a> {
    pub fn new(text: &str, input: &'a Input) -> Session<'a> {
        let mut w = Walker {
            input,
            out: Analysis::default(),
            functions: BTreeMap::new(),
            at_start: true,
            written: Vec::new(),
            written_text: HashMap::new(),
            nested_scripts: 0,
            values: HashMap::new(),
            integers: std::collections::HashSet::new(),
            arith_depth: 0,
            evaluated: std::collections::HashSet::new(),
            resolved: HashMap::default(),
            resolved_count: 0,
            scans: TextScans::default(),
            arg_buf: Vec::new(),
            clock_checks: u32::MAX,
        };
        let frame = Frame {
            positional: Some(Rc::new(input.positional.clone())),
            via: Vec::new(),
            depth: 0,
            in_function: None,
            cwd: Rc::new(Cwd {
                primary: Some(input.cwd.clone()),
                others: Vec::new(),
            }),
            texts: Rc::new(vec![Rc::from(text)]),
            dialect: input.dialect,
            cd_fresh: false,
            stdin: Stdin::Inherited,
        };
        // Room for the commands at about one per 16 bytes of script (a
        // capacity hint: growing a vector of records copies them).
        w.out.commands.reserve((text.len() / 16).min(MAX_COMMANDS));
        let early = (input.dialect == Dialect::Posix && text.contains("$'"))
            .then(|| Analysis::opaque("$'…' means different things to bash and to sh/dash"));
        Session { w, frame, early }
    }

    /// Walk the next items of the top-level list (`sc` holds the
    /// here-documents they refer to).
    pub fn walk(&mut self, list: &List, sc: &Script) {
        if self.early.is_none() {
            self.w.list(list, sc, &mut self.frame);
        }
    }

    pub fn finish(self) -> Analysis {
        if let Some(early) = self.early {
            return early;
        }
        let mut out = self.w.out;
        out.functions = self.w.functions.keys().cloned().collect();
        out
    }
}

/// Expansion environment for one frame.
struct EnvView<'w> {
    walker: &'w Walker<'w>,
    frame: &'w Frame,
}

impl expand::Env for EnvView<'_> {
    fn home(&self) -> Option<String> {
        self.walker.input.home.clone()
    }

    fn positional(&self) -> Option<&Positional> {
        self.frame.positional.as_deref()
    }

    fn var(&self, name: &str) -> VarValue {
        let input = self.walker.input;
        // `$PWD` is the directory the walk knows the command is in (bash
        // sets it there and on every `cd`), unless the script sets it.
        if name == "PWD"
            && let Some(dir) = &self.frame.cwd.primary
            && self.frame.cwd.others.is_empty()
            && !self.frame.texts.iter().any(|t| {
                self.walker.scans.taints_everything(t) || self.walker.scans.is_tainted(t, name)
            })
            && let Some(text) = dir.to_str()
        {
            return VarValue::Known(text.to_string());
        }
        if !input.trust_env || SHELL_MANAGED.contains(&name) {
            return VarValue::Unknown;
        }
        let scans = &self.walker.scans;
        if self
            .frame
            .texts
            .iter()
            .any(|t| scans.taints_everything(t) || scans.is_tainted(t, name))
        {
            return VarValue::Unknown;
        }
        match input.env.get(name) {
            Some(v) if v.contains('\0') => VarValue::Unknown,
            Some(v) => VarValue::Known(v.clone()),
            None => VarValue::Known(String::new()),
        }
    }

    fn user_home(&self, user: &str) -> Option<String> {
        passwd_home(user)
    }
}

/// Open a file the analysis reads (a script it runs or sources) only if
/// it is a regular file: never blocking on a FIFO's open or a terminal's
/// read, never taking a controlling terminal (found by the `analyze`
/// fuzz target: `. /dev/tty9` waited for typing).
fn open_regular(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(std::io::Error::other("not a regular file"))
    }
}

/// Commands `Walker::builtin` interprets.
fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "cd" | "pushd"
            | "popd"
            | "eval"
            | "source"
            | "."
            | "exec"
            | "command"
            | "builtin"
            | "alias"
            | "unalias"
            | "shopt"
            | "set"
            | "shift"
            | "enable"
            | "hash"
            | "trap"
            | "declare"
            | "typeset"
            | "local"
            | "export"
            | "readonly"
            | "read"
            | "mapfile"
            | "readarray"
            | "getopts"
            | "printf"
            | "test"
            | "["
            | "let"
            | "unset"
    )
}

/// Variables bash itself sets or changes while running.
const SHELL_MANAGED: &[&str] = &[
    "PWD",
    "OLDPWD",
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "LINENO",
    "BASHPID",
    "BASH_SUBSHELL",
    "BASH_COMMAND",
    "BASH_LINENO",
    "BASH_SOURCE",
    "BASH_ARGC",
    "BASH_ARGV",
    "BASH_REMATCH",
    "FUNCNAME",
    "PIPESTATUS",
    "REPLY",
    "OPTARG",
    "OPTIND",
    "HISTCMD",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "PPID",
    "SHLVL",
    "UID",
    "EUID",
    "GROUPS",
    "HOSTNAME",
    "MACHTYPE",
    "BASH_VERSION",
    "BASH",
    "IFS",
    "_",
    "COLUMNS",
    "LINES",
    "DIRSTACK",
    "COPROC",
];

fn taints_everything(text: &str) -> bool {
    TAINT_ALL_WORDS.iter().any(|w| has_word(text, w))
}

/// Does `text` contain `word` as a whole word (not after `$`)?
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(|c| {
            c.is_alphanumeric() || c == '_' || c == '$' || c == '-' || c == '/' || c == '.'
        }) && !after.is_some_and(|c| {
            c.is_alphanumeric() || c == '_' || c == '-' || c == '/' || (word != "." && c == '.')
        }) && (word != "." || after.is_some_and(char::is_whitespace))
    })
}

/// Is the variable possibly set by the script text? (Any mention other
/// than `$name`/`${name}` reading it, or `${name=…}`/`${name:=…}`.)
fn is_tainted(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after_text = &text[i + name.len()..];
        let after = after_text.chars().next();
        if after.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return false;
        }
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return false;
        }
        match before {
            Some('$') => false,
            Some('{') => {
                after_text.starts_with(":=")
                    || after_text.starts_with('=')
                    || after_text.starts_with("::")
            }
            _ => true,
        }
    })
}

/// Home directory of a user from /etc/passwd (for `~user`).
fn passwd_home(user: &str) -> Option<String> {
    let text = std::fs::read_to_string("/etc/passwd").ok()?;
    text.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        (f.len() >= 6 && f[0] == user).then(|| f[5].to_string())
    })
}

/// Devices that are streams, not files: writing them changes nothing.
fn stream_device(t: &str) -> bool {
    matches!(
        t,
        "/dev/null"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/stdin"
            | "/dev/tty"
            | "/dev/zero"
            | "/dev/full"
            | "/dev/random"
            | "/dev/urandom"
    ) || t
        .strip_prefix("/dev/fd/")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `NAME=` or `NAME+=` at the start of a word as written, with NAME plain
/// text (no quotes, expansions or subscripts).
fn literal_assignment_name(raw: &str) -> Option<&str> {
    let (name, _) = raw.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

/// Why assigning this variable is dangerous, if it is.
pub fn dangerous_var(name: &str) -> Option<&'static str> {
    DANGEROUS_VARS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, r)| *r)
        .or_else(|| {
            DANGEROUS_PREFIXES
                .iter()
                .find(|(p, _)| name.starts_with(p))
                .map(|(_, r)| *r)
        })
}

impl<'a> Walker<'a> {
    fn finding(&mut self, kind: FindingKind, detail: impl Into<String>, command: Option<usize>) {
        if self.out.findings.len() >= MAX_FINDINGS {
            self.give_up(format!("more than {MAX_FINDINGS} findings"));
            return;
        }
        self.out.findings.push(Finding {
            kind,
            detail: detail.into(),
            command,
        });
    }

    fn give_up(&mut self, reason: impl Into<String>) {
        if self.out.opaque.is_none() {
            self.out.opaque = Some(reason.into());
        }
    }

    /// Past the deadline? (The clock is read every few calls: reading it
    /// costs more than walking a simple command.)
    fn out_of_time(&mut self) -> bool {
        self.clock_checks = self.clock_checks.wrapping_add(1);
        if !self.clock_checks.is_multiple_of(16) {
            return false;
        }
        self.input.deadline.is_some_and(|d| Instant::now() > d)
    }

    // ------------------------------------------------------------ lists

    fn list(&mut self, l: &List, sc: &Script, f: &mut Frame) {
        for item in &l.items {
            if self.out.opaque.is_some() {
                return;
            }
            if item.background {
                // A background job runs in a subshell: its cd stays there.
                let mut sub = f.clone();
                self.and_or(&item.and_or, sc, &mut sub);
            } else {
                self.and_or(&item.and_or, sc, f);
            }
        }
    }

    fn and_or(&mut self, a: &AndOr, sc: &Script, f: &mut Frame) {
        self.pipeline(&a.first, sc, f);
        let mut prev_was_cd = f.cd_fresh;
        for (op, p) in &a.rest {
            if *op == AndOrOp::And && prev_was_cd {
                // `cd x && …`: what follows runs only if the cd worked.
                Rc::make_mut(&mut f.cwd).others.clear();
            }
            let is_exit = || matches!(p.commands.as_slice(), [Command::Simple(s)] if s.words.first().is_some_and(|w| w.raw == "exit" || w.raw == "return"));
            if *op == AndOrOp::Or && prev_was_cd && is_exit() {
                // `cd x || exit`: later commands run only if the cd worked.
                Rc::make_mut(&mut f.cwd).others.clear();
            }
            self.pipeline(p, sc, f);
            prev_was_cd = f.cd_fresh;
        }
    }

    fn pipeline(&mut self, p: &Pipeline, sc: &Script, f: &mut Frame) {
        f.cd_fresh = false;
        if p.commands.len() == 1 {
            let stdin = f.stdin.clone();
            self.command(&p.commands[0], sc, f, stdin);
            return;
        }
        // Each part of a pipeline runs in a subshell.
        for (i, c) in p.commands.iter().enumerate() {
            let mut sub = f.clone();
            let stdin = if i == 0 { f.stdin.clone() } else { Stdin::Pipe };
            self.command(c, sc, &mut sub, stdin);
        }
        f.cd_fresh = false;
    }

    fn command(&mut self, c: &Command, sc: &Script, f: &mut Frame, stdin: Stdin) {
        if self.out_of_time() {
            self.give_up("analysis time budget exceeded");
            return;
        }
        if super::stack::exhausted() {
            self.give_up("out of stack");
            return;
        }
        match c {
            Command::Simple(s) => self.simple(s, sc, f, stdin),
            Command::Compound(comp, redirects) => {
                self.at_start = false;
                let stdin = self.redirects(redirects, sc, f, None).unwrap_or(stdin);
                let saved = f.stdin.clone();
                f.stdin = stdin;
                self.compound(comp, sc, f);
                f.stdin = saved;
            }
            Command::Function { name, body } => {
                self.at_start = false;
                if name == "command_not_found_handle" {
                    self.finding(
                        FindingKind::ParseStateChange,
                        "defines command_not_found_handle, which runs for every unknown command",
                        None,
                    );
                }
                let mut inner = f.clone();
                inner.in_function = Some(name.clone());
                inner.positional = None;
                let before = self.out.commands.len();
                self.command(body, sc, &mut inner, Stdin::Inherited);
                let has_cd = self.out.commands[before..]
                    .iter()
                    .any(|c| matches!(c.base_name(), Some("cd" | "pushd" | "popd")));
                self.functions.insert(name.clone(), has_cd);
            }
            Command::Coproc { body, .. } => {
                self.at_start = false;
                self.finding(
                    FindingKind::RuntimeSink,
                    "coproc runs a command in the background with pipes",
                    None,
                );
                let mut sub = f.clone();
                self.command(body, sc, &mut sub, stdin);
            }
        }
    }

    fn compound(&mut self, c: &Compound, sc: &Script, f: &mut Frame) {
        match c {
            Compound::Brace(l) => self.list(l, sc, f),
            Compound::Subshell(l) => {
                let mut sub = f.clone();
                self.list(l, sc, &mut sub);
            }
            Compound::If {
                branches,
                otherwise,
            } => {
                for (cond, body) in branches {
                    self.list(cond, sc, f);
                    self.list(body, sc, f);
                }
                if let Some(o) = otherwise {
                    self.list(o, sc, f);
                }
            }
            Compound::While { cond, body, .. } => {
                self.list(cond, sc, f);
                self.list(body, sc, f);
            }
            Compound::For { var, words, body } | Compound::Select { var, words, body } => {
                self.assigned_name(var, None);
                if let Some(ws) = words {
                    for w in ws {
                        self.word(w, Mode::Argv, sc, f);
                    }
                }
                self.list(body, sc, f);
            }
            Compound::ArithFor { parts, body } => {
                for a in parts.iter() {
                    self.arith(a, sc, f);
                }
                self.list(body, sc, f);
            }
            Compound::Case { word, arms } => {
                self.word(word, Mode::Single, sc, f);
                for arm in arms {
                    for p in &arm.patterns {
                        self.word(p, Mode::Single, sc, f);
                    }
                    self.list(&arm.body, sc, f);
                }
            }
            Compound::Arith(a) => self.arith(a, sc, f),
            Compound::Cond(tokens) => self.cond(tokens, sc, f),
        }
    }

    fn cond(&mut self, tokens: &[CondToken], sc: &Script, f: &mut Frame) {
        const ARITH_OPS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];
        for (i, t) in tokens.iter().enumerate() {
            let CondToken::Word(w) = t else { continue };
            self.word(w, Mode::Single, sc, f);
            let op_next = matches!(tokens.get(i + 1), Some(CondToken::Word(n)) if ARITH_OPS.contains(&n.raw.as_str()));
            let op_prev = i > 0
                && matches!(tokens.get(i - 1), Some(CondToken::Word(n)) if ARITH_OPS.contains(&n.raw.as_str()));
            if (op_next || op_prev) && word_is_unsafe_arith(w) {
                self.finding(
                    FindingKind::RuntimeSink,
                    format!("[[ … {} … ]] evaluates {} as arithmetic", w.raw, w.raw),
                    None,
                );
            }
            if w.raw == "-v"
                && let Some(CondToken::Word(n)) = tokens.get(i + 1)
                && subscript_has_code(&n.raw)
            {
                if let Some(t) = parse::literal_of(n) {
                    self.subscript_text(&t, "[[ -v ]] subscript", f);
                }
                self.finding(
                    FindingKind::RuntimeSink,
                    format!("[[ -v {} ]] evaluates a subscript", n.raw),
                    None,
                );
            }
        }
    }

    /// Arithmetic evaluates the values of the names it reads, recursively:
    /// look into values the script set to text with substitutions.
    fn eval_names(&mut self, names: &[String], f: &mut Frame) {
        for name in names {
            if let Some(v) = self.values.get(name).cloned()
                && (v.contains("$(") || v.contains('`') || v.contains("${"))
                && self.evaluated.insert((name.clone(), v.clone()))
            {
                self.finding(
                    FindingKind::RuntimeSink,
                    format!("arithmetic evaluates the value of {name}: {v}"),
                    None,
                );
                self.arith_text(&v, &format!("arithmetic on {name}"), f);
            }
        }
    }

    fn arith(&mut self, a: &Arith, sc: &Script, f: &mut Frame) {
        self.parts(&a.parts, sc, f);
        self.eval_names(&a.names, f);
        for name in &a.names {
            if self.var_is_unsafe(name, f) {
                self.finding(
                    FindingKind::RuntimeSink,
                    format!("arithmetic evaluates the value of {name}, which the script sets"),
                    None,
                );
            }
        }
    }

    /// A variable whose value the script sets from something not literal
    /// (or to text with code in it): arithmetic would evaluate that value.
    fn var_is_unsafe(&self, name: &str, f: &Frame) -> bool {
        // Values from the environment are the harness's, not the agent's.
        f.texts.iter().any(|t| self.scans.is_tainted(t, name))
            && f.texts
                .iter()
                .any(|t| self.scans.assigned_unsafely(t, name))
    }

    // ------------------------------------------------------------ simple

    fn simple(&mut self, s: &SimpleCommand, sc: &Script, f: &mut Frame, stdin: Stdin) {
        let leading = self.at_start && f.depth == 0 && f.in_function.is_none();
        let mut env = Vec::new();
        for a in &s.assignments {
            let value = self.assignment(a, sc, f, leading, !s.words.is_empty());
            env.push((a.name.clone(), value));
        }
        let mut argv = Vec::with_capacity(s.words.len());
        let mut first_dynamic = false;
        for (i, w) in s.words.iter().enumerate() {
            let from = argv.len();
            self.word_into(w, Mode::Argv, sc, f, &mut argv);
            if i == 0 {
                let expanded = &argv[from..];
                // argv[0] is dynamic unless its word is plain text that
                // became exactly one literal word (a parameter, even a
                // known one, brace expansion into several words, a glob:
                // all dynamic).
                first_dynamic = !(expanded.len() == 1 && expanded[0].lit().is_some())
                    || w.parts.iter().any(|p| {
                        !matches!(p, Part::Lit { .. })
                            && !matches!(p, Part::Double(inner) if inner.iter().all(|q| matches!(q, Part::Lit { .. })))
                    });
            }
        }
        let known_before: Vec<(PathBuf, Option<String>)> = self
            .stdout_file(s, f)
            .map(|(p, _)| (p.clone(), self.written_text.get(&p).cloned().flatten()))
            .into_iter()
            .collect();
        let redirect_stdin = self.redirects(&s.redirects, sc, f, Some(self.out.commands.len()));
        if s.words.is_empty() {
            return;
        }
        self.at_start = false;
        let stdin = redirect_stdin.unwrap_or(stdin);
        // The file it writes, with what it writes when that is known.
        if let Some((path, append)) = self.stdout_file(s, f) {
            let before = known_before.into_iter().next().and_then(|(_, t)| t);
            let seen_before = self.written.iter().filter(|w| **w == path).count() > 1;
            let text = printed_text(&argv, &stdin);
            let now = match (append, text) {
                (false, Some(t)) if !seen_before => Some(t),
                (true, Some(t)) => before.map(|b| b + &t),
                _ => None,
            };
            self.written_text.insert(path, now);
        }
        if argv.is_empty() {
            if first_dynamic {
                self.finding(
                    FindingKind::DynamicExecutable,
                    format!("the command name {} is not literal", s.words[0].raw),
                    None,
                );
            }
            return;
        }
        let idx = self.run_argv(argv, env, f, stdin, &s.raw, Vec::new());
        if first_dynamic
            && let Some(idx) = idx
            && !self
                .out
                .findings
                .iter()
                .any(|x| x.kind == FindingKind::DynamicExecutable && x.command == Some(idx))
        {
            self.finding(
                FindingKind::DynamicExecutable,
                format!("the command name {} is not literal", s.words[0].raw),
                Some(idx),
            );
        }
    }

    /// The file a simple command's standard output goes to (`> f`, `>> f`
    /// with a plain literal name), and whether it appends.
    fn stdout_file(&mut self, s: &SimpleCommand, f: &Frame) -> Option<(PathBuf, bool)> {
        let mut out = None;
        for r in &s.redirects {
            if r.fd.is_some_and(|fd| fd != 1) || r.varfd.is_some() {
                continue;
            }
            let append = match r.op {
                RedirOp::Write | RedirOp::Clobber => false,
                RedirOp::Append => true,
                _ => continue,
            };
            let RedirTarget::Word(w) = &r.target else {
                continue;
            };
            let text: Option<String> = w
                .parts
                .iter()
                .map(|p| match p {
                    Part::Lit { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            out = match text {
                Some(t) if !t.is_empty() => Some((self.resolve(&t, f).0, append)),
                _ => None,
            };
        }
        out
    }

    /// Walk an assignment's value; check its name. Returns the value.
    fn assignment(
        &mut self,
        a: &Assignment,
        sc: &Script,
        f: &mut Frame,
        leading: bool,
        prefix: bool,
    ) -> Arg {
        if let Some(sub) = &a.subscript {
            self.word(sub, Mode::Single, sc, f);
        }
        let value = match &a.value {
            AssignValue::Scalar(w) => {
                let mut v = self.word(w, Mode::Assign, sc, f);
                v.pop().unwrap_or_else(|| Arg::literal(""))
            }
            AssignValue::Array(ws) => {
                for w in ws {
                    self.word(w, Mode::Argv, sc, f);
                    if w.raw.starts_with('[') && subscript_has_code(&w.raw) {
                        self.finding(
                            FindingKind::RuntimeSink,
                            format!("array element {} has a subscript that runs code", w.raw),
                            None,
                        );
                    }
                }
                Arg {
                    raw: a.raw.as_str().to_owned(),
                    value: ArgValue::Dynamic { resolved: None },
                }
            }
        };
        let limit_var = matches!(
            a.name.as_str(),
            "AUTOMODE_TIMEOUT" | "AUTOMODE_OUTPUT_LIMIT" | "AUTOMODE_WRITE" | "AUTOMODE_SANDBOX"
        );
        if limit_var && leading {
            let text = value
                .lit()
                .map_or_else(|| value.raw.clone(), str::to_string);
            if value.lit().is_none() {
                self.finding(
                    FindingKind::AutomodeAssignment,
                    format!("{} must be a literal value, not {}", a.name, value.raw),
                    None,
                );
            }
            match a.name.as_str() {
                "AUTOMODE_TIMEOUT" => self.out.limits.timeout = Some(text),
                "AUTOMODE_OUTPUT_LIMIT" => self.out.limits.output_limit = Some(text),
                "AUTOMODE_WRITE" => self.out.limits.write = Some(text),
                _ => self.out.limits.sandbox = Some(text),
            }
        } else if prefix {
            // Only the command's environment (`CommandInfo::env`).
            if a.name.starts_with("AUTOMODE_") || dangerous_var(&a.name).is_some() {
                self.assigned_name(&a.name, None);
                self.out.assignments.pop();
            }
        } else {
            self.assigned_name(&a.name, None);
            if let Some(last) = self.out.assignments.last_mut() {
                last.value = value.known().map(str::to_string);
                if let AssignValue::Scalar(w) = &a.value {
                    last.from = super::analysis::copied_var(w.raw.as_str()).map(str::to_string);
                    last.prefixed = super::analysis::own_with_prefix(w.raw.as_str(), &a.name);
                    last.raw = Some(w.raw.as_str().to_string());
                }
            }
        }
        self.remember_value(&a.name, &value, sc, f);
        value
    }

    /// Track a scalar's literal value (for arithmetic on it later); run
    /// what an integer variable's assignment evaluates; look into prompt
    /// and PROMPT_COMMAND values.
    fn remember_value(&mut self, name: &str, value: &Arg, sc: &Script, f: &mut Frame) {
        match value.lit() {
            Some(text) => {
                self.values.insert(name.to_string(), text.to_string());
                if self.integers.contains(name) {
                    self.arith_text(text, &format!("integer assignment to {name}"), f);
                }
                match name {
                    "PROMPT_COMMAND" => {
                        let positional = f.positional.clone();
                        let dialect = f.dialect;
                        self.nested(text, "PROMPT_COMMAND".into(), positional, dialect, f);
                    }
                    "PS0" | "PS1" | "PS2" | "PS4" => self.expansion_text(text, name, sc, f),
                    _ => {}
                }
            }
            None => {
                self.values.remove(name);
            }
        }
    }

    /// Text bash will expand later (a prompt string): walk the
    /// substitutions in it.
    fn expansion_text(&mut self, text: &str, label: &str, _sc: &Script, f: &mut Frame) {
        if !text.contains("$(") && !text.contains('`') {
            return;
        }
        let doc = format!("cat <<_AUTOMODE_END_\n{text}\n_AUTOMODE_END_\n");
        let positional = f.positional.clone();
        let dialect = f.dialect;
        self.nested(&doc, format!("{label} expansion"), positional, dialect, f);
    }

    /// Text bash will evaluate as arithmetic at run time: walk the
    /// substitutions in it, and the values of the variables it names.
    fn arith_text(&mut self, text: &str, label: &str, f: &mut Frame) {
        if self.arith_depth > 8 || self.out.opaque.is_some() {
            return;
        }
        if self.out_of_time() {
            self.give_up("analysis time budget exceeded");
            return;
        }
        let opts = parse::Options {
            deadline: self.input.deadline,
            ..parse::Options::default()
        };
        match parse::parse_arith(text, &opts) {
            Ok((arith, script)) => {
                let mut sub = f.clone();
                sub.via.push(label.to_string());
                sub.depth += 1;
                self.arith_depth += 1;
                self.arith(&arith, &script, &mut sub);
                self.arith_depth -= 1;
            }
            Err(e) => self.finding(
                FindingKind::RuntimeSink,
                format!("{label}: {}", e.message),
                None,
            ),
        }
    }

    /// The subscript of a literal `name[…]` that bash evaluates.
    fn subscript_text(&mut self, text: &str, label: &str, f: &mut Frame) {
        if let (Some(open), Some(close)) = (text.find('['), text.rfind(']'))
            && open < close
        {
            self.arith_text(&text[open + 1..close], label, f);
        }
    }

    /// A variable is being set (by assignment, `read`, `for`, `export` …).
    fn assigned_name(&mut self, name: &str, command: Option<usize>) {
        self.out.assignments.push(AssignmentRecord {
            name: name.to_string(),
            value: None,
            before: self.out.commands.len(),
            command,
            from: None,
            prefixed: None,
            raw: None,
        });
        if name.starts_with("AUTOMODE_") {
            self.finding(
                FindingKind::AutomodeAssignment,
                format!("assigns {name}, one of automode's own settings"),
                command,
            );
        } else if let Some(why) = dangerous_var(name) {
            self.finding(
                FindingKind::DangerousAssignment,
                format!("assigns {name}: {why}"),
                command,
            );
        }
    }

    // ------------------------------------------------------------ words

    /// Walk the substitutions in a word and expand it.
    fn word(&mut self, w: &Word, mode: Mode, sc: &Script, f: &mut Frame) -> Vec<Arg> {
        let mut out = Vec::new();
        self.word_into(w, mode, sc, f, &mut out);
        out
    }

    /// `word`, appending to `out`.
    fn word_into(&mut self, w: &Word, mode: Mode, sc: &Script, f: &mut Frame, out: &mut Vec<Arg>) {
        self.parts(&w.parts, sc, f);
        let view = EnvView {
            walker: self,
            frame: f,
        };
        let from = out.len();
        expand::expand_into(w, mode, &view, out);
        if f.dialect == Dialect::Posix && out.len() - from > 1 && w.raw.contains('{') {
            // dash has no brace expansion; bash (and so `sh` through the
            // shim) has: which one runs is not known here.
            self.give_up(format!(
                "{}: brace expansion differs between bash and sh/dash",
                w.raw
            ));
        }
    }

    fn parts(&mut self, parts: &[Part], sc: &Script, f: &mut Frame) {
        for p in parts {
            if matches!(p, Part::Lit { .. }) {
                continue;
            }
            if super::stack::exhausted() {
                self.give_up("out of stack");
                return;
            }
            match p {
                Part::Lit { .. } => {}
                Part::Double(inner) => self.parts(inner, sc, f),
                Part::Param(param) => self.param(param, sc, f),
                Part::CommandSub { body, .. } | Part::ProcessSub { body, .. } => {
                    let mut sub = f.clone();
                    sub.stdin = Stdin::Inherited;
                    let was_start = self.at_start;
                    self.list(body, sc, &mut sub);
                    self.at_start = was_start;
                }
                Part::Arith(a) => self.arith(a, sc, f),
            }
        }
    }

    fn param(&mut self, p: &Param, sc: &Script, f: &mut Frame) {
        if let Some(sub) = &p.subscript {
            self.parts(&sub.parts, sc, f);
            self.eval_names(&sub_names(sub), f);
            if let Some(name) = sub_names(sub)
                .into_iter()
                .find(|n| self.var_is_unsafe(n, f))
            {
                self.finding(
                    FindingKind::RuntimeSink,
                    format!("{} evaluates the subscript variable {name}", p.raw),
                    None,
                );
            }
        }
        for w in &p.operands {
            self.parts(&w.parts, sc, f);
        }
        match p.op.as_deref() {
            Some("@P") => self.finding(
                FindingKind::RuntimeSink,
                format!("{} expands prompt escapes, which run substitutions", p.raw),
                None,
            ),
            Some(":") => {
                // Substring offsets are arithmetic.
                if let Some(w) = p.operands.first() {
                    self.eval_names(&sub_names(w), f);
                }
                if let Some(w) = p.operands.first()
                    && sub_names(w).iter().any(|n| self.var_is_unsafe(n, f))
                {
                    self.finding(
                        FindingKind::RuntimeSink,
                        format!("{} evaluates its offset as arithmetic", p.raw),
                        None,
                    );
                }
            }
            Some("=" | ":=") => self.assigned_name(&p.name, None),
            _ => {}
        }
        if p.indirect && p.op.as_deref() != Some("*") && self.var_is_unsafe(&p.name, f) {
            self.finding(
                FindingKind::RuntimeSink,
                format!(
                    "{} expands a variable named by a value the script sets",
                    p.raw
                ),
                None,
            );
        }
    }

    // ------------------------------------------------------------ redirects

    /// Walk redirections: effects and nested commands. Returns the stdin
    /// they set up, if any.
    fn redirects(
        &mut self,
        rs: &[Redirect],
        sc: &Script,
        f: &mut Frame,
        cmd: Option<usize>,
    ) -> Option<Stdin> {
        let mut stdin = None;
        for r in rs {
            if let Some(v) = &r.varfd {
                self.assigned_name(v, cmd);
            }
            let fd0 = r.fd.is_none_or(|fd| fd == 0);
            match &r.target {
                RedirTarget::HereDoc(id) => {
                    let Some(h) = sc.heredocs.get(id.0) else {
                        continue;
                    };
                    self.parts(&h.parts, sc, f);
                    if fd0 {
                        let literal =
                            h.quoted || h.parts.iter().all(|p| matches!(p, Part::Lit { .. }));
                        let text = if h.quoted {
                            Some(h.body.clone())
                        } else if literal {
                            Some(
                                h.parts
                                    .iter()
                                    .map(|p| match p {
                                        Part::Lit { text, .. } => text.as_str(),
                                        _ => "",
                                    })
                                    .collect(),
                            )
                        } else {
                            None
                        };
                        stdin = Some(Stdin::Inline { text });
                    }
                }
                RedirTarget::Word(w) => {
                    let mut targets = std::mem::take(&mut self.arg_buf);
                    self.word_into(w, Mode::Single, sc, f, &mut targets);
                    let mut target = targets.pop().unwrap_or_else(|| Arg::literal(""));
                    targets.clear();
                    self.arg_buf = targets;
                    let kind = match r.op {
                        RedirOp::Write | RedirOp::Clobber | RedirOp::WriteBoth => {
                            Some(EffectKind::Write)
                        }
                        RedirOp::Append | RedirOp::AppendBoth => Some(EffectKind::Append),
                        RedirOp::Read => Some(EffectKind::Read),
                        RedirOp::ReadWrite => Some(EffectKind::Write),
                        RedirOp::DupIn | RedirOp::DupOut => {
                            // `>&$x` may name a file when $x is not a number.
                            match target.known() {
                                Some(t)
                                    if t == "-"
                                        || t.trim_end_matches('-')
                                            .bytes()
                                            .all(|b| b.is_ascii_digit()) =>
                                {
                                    None
                                }
                                _ => Some(EffectKind::Write),
                            }
                        }
                        RedirOp::HereString => {
                            if fd0 {
                                stdin = Some(Stdin::Inline {
                                    text: target.lit().map(|t| format!("{t}\n")),
                                });
                            }
                            None
                        }
                        RedirOp::HereDoc => None,
                    };
                    if let Some(kind) = kind {
                        if r.op == RedirOp::Read && fd0 {
                            stdin = Some(match &*w.parts {
                                [Part::ProcessSub { .. }] => Stdin::Dynamic,
                                _ => Stdin::File {
                                    path: target.known().map(|t| self.resolve(t, f).0),
                                },
                            });
                        }
                        if r.op == RedirOp::ReadWrite {
                            self.effect(EffectKind::Read, &target, false, f, cmd, true, 1);
                        }
                        // /dev/null, /dev/stdout … are not files (every
                        // other device is recorded: disks, /dev/tcp).
                        if !target.known().is_some_and(stream_device) {
                            let raw = std::mem::take(&mut target.raw);
                            self.effect_of(kind, &target.value, raw, false, f, cmd, true, 1);
                        }
                    }
                }
            }
        }
        stdin
    }

    // ------------------------------------------------------------ effects

    /// `paths::resolve`, remembered: scripts touch the same paths often.
    fn resolve_in(&mut self, cwd: &std::path::Path, text: &str) -> (PathBuf, PathBuf) {
        if let Some(hit) = self.resolved.get(cwd.as_os_str()).and_then(|m| m.get(text)) {
            return hit.clone();
        }
        let value = paths::resolve(cwd, text);
        if self.resolved_count < 4096 {
            self.resolved_count += 1;
            self.resolved
                .entry(cwd.as_os_str().to_os_string())
                .or_default()
                .insert(text.to_string(), value.clone());
        }
        value
    }

    /// `resolve_in` the frame's working directory (`/` when unknown).
    fn resolve(&mut self, text: &str, f: &Frame) -> (PathBuf, PathBuf) {
        let cwd = f
            .cwd
            .primary
            .as_deref()
            .unwrap_or(std::path::Path::new("/"));
        self.resolve_in(cwd, text)
    }

    #[allow(clippy::too_many_arguments)]
    fn effect(
        &mut self,
        kind: EffectKind,
        target: &Arg,
        recursive: bool,
        f: &Frame,
        cmd: Option<usize>,
        redirect: bool,
        count: usize,
    ) {
        let raw = target.raw.clone();
        self.effect_of(kind, &target.value, raw, recursive, f, cmd, redirect, count);
    }

    /// `effect` for a target given as its value and its text as written.
    #[allow(clippy::too_many_arguments)]
    fn effect_of(
        &mut self,
        kind: EffectKind,
        value: &ArgValue,
        raw: String,
        recursive: bool,
        f: &Frame,
        cmd: Option<usize>,
        redirect: bool,
        count: usize,
    ) {
        let (target_kind, text) = match value {
            ArgValue::Literal { text } => (TargetKind::Literal, Some(text.as_str())),
            ArgValue::Glob { pattern } => (TargetKind::Glob, Some(pattern.as_str())),
            ArgValue::Dynamic { resolved } => (TargetKind::Dynamic, resolved.as_deref()),
        };
        let relative = text.is_some_and(|t| !t.starts_with('/'));
        let cwd_known = f.cwd.primary.is_some();
        let root = std::path::Path::new("/");
        let (path, lexical, alternatives) = match text {
            Some(t) if !relative || cwd_known => {
                let cwd = f.cwd.primary.as_deref().unwrap_or(root);
                let others: Vec<PathBuf> = if relative {
                    f.cwd
                        .others
                        .iter()
                        .map(|c| match target_kind {
                            TargetKind::Glob => paths::glob_base(c, t),
                            _ => self.resolve_in(c, t).0,
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                if target_kind == TargetKind::Glob {
                    let base = paths::glob_base(cwd, t);
                    (Some(base.clone()), Some(base), others)
                } else {
                    let (p, l) = self.resolve_in(cwd, t);
                    (Some(p), Some(l), others)
                }
            }
            _ => (None, None, Vec::new()),
        };
        if matches!(
            kind,
            EffectKind::Write | EffectKind::Append | EffectKind::Create
        ) && let Some(p) = &path
        {
            self.written.push(p.clone());
            // What else writes there is not known here (`simple` puts
            // back what a known output makes of it).
            self.written_text.insert(p.clone(), None);
        }
        self.out.effects.push(Effect {
            kind,
            target: target_kind,
            raw,
            path,
            lexical,
            alternatives,
            command: cmd,
            recursive,
            count,
            redirect,
            // A glob reaches, under its base, the names that match its
            // last component.
            filter: match value {
                ArgValue::Glob { pattern } => {
                    Some(pattern.rsplit('/').next().unwrap_or(pattern).to_string())
                }
                _ => None,
            },
        });
    }

    // ------------------------------------------------------------ commands

    /// Record a command and interpret it: builtins, wrappers, shells,
    /// interpreters, file effects. Returns its index.
    fn run_argv(
        &mut self,
        argv: Vec<Arg>,
        env: Vec<(String, Arg)>,
        f: &mut Frame,
        stdin: Stdin,
        source: &str,
        via_extra: Vec<String>,
    ) -> Option<usize> {
        if self.out.commands.len() >= MAX_COMMANDS {
            self.give_up("too many commands");
            return None;
        }
        if super::stack::exhausted() {
            self.give_up("out of stack");
            return None;
        }
        let mut via = f.via.clone();
        via.extend(via_extra);
        let calls_function = argv
            .first()
            .and_then(Arg::lit)
            .is_some_and(|n| self.functions.contains_key(n));
        let idx = self.out.commands.len();
        let literal_name = argv.first().and_then(Arg::lit).is_some();
        self.out.commands.push(CommandInfo {
            argv,
            env,
            via: via.clone(),
            in_function: f.in_function.clone(),
            calls_function,
            stdin: stdin.clone(),
            depth: f.depth,
            source: source.to_string(),
            cwd: match &f.cwd.primary {
                Some(p) => std::iter::once(p)
                    .chain(f.cwd.others.iter())
                    .cloned()
                    .collect(),
                None => Vec::new(),
            },
        });
        if !literal_name {
            let raw0 = self.out.commands[idx]
                .argv
                .first()
                .map(|a| a.raw.as_str())
                .unwrap_or_default();
            let detail = format!("the command name {raw0} is not literal");
            self.finding(FindingKind::DynamicExecutable, detail, Some(idx));
            return Some(idx);
        }
        // The arguments are lent out of the recorded command while it is
        // interpreted (nothing reads a command's own record meanwhile),
        // and put back after.
        let argv = std::mem::take(&mut self.out.commands[idx].argv);
        self.interpret(&argv, calls_function, f, idx, &stdin, &via, source);
        self.out.commands[idx].argv = argv;
        Some(idx)
    }

    /// Interpret a recorded command whose name is literal: builtins,
    /// tables, scripts run by path.
    #[allow(clippy::too_many_arguments)]
    fn interpret(
        &mut self,
        argv: &[Arg],
        calls_function: bool,
        f: &mut Frame,
        idx: usize,
        stdin: &Stdin,
        via: &[String],
        source: &str,
    ) {
        let Some((name, args)) = argv.split_first() else {
            return;
        };
        let Some(name) = name.lit() else {
            return;
        };
        if calls_function && self.functions.get(name).copied().unwrap_or(false) {
            // The function changes directory: later paths are unknown.
            Rc::make_mut(&mut f.cwd).primary = None;
        }
        if is_builtin(name) && self.builtin(name, args, f, idx, stdin) {
            return;
        }
        let actions = commands::interpret(name, args);
        if !actions.is_empty() {
            self.apply(actions, args, f, idx, stdin, via, source);
        } else if name.contains('/') && !calls_function {
            self.path_program(name, args, idx, f, via);
        }
    }

    /// `./scripts/build.sh`: a shell script (a bash or sh `#!` line, or
    /// none: bash runs text files itself) is read and analysed like `bash
    /// FILE`; a missing file is reported; anything else is a program the
    /// policy judges by name.
    fn path_program(
        &mut self,
        name: &str,
        args: &[Arg],
        idx: usize,
        f: &mut Frame,
        via: &[String],
    ) {
        use std::io::Read;
        let path = self.resolve(name, f).0;
        let written = self.written.contains(&path);
        if written && self.written_text.get(&path).is_none_or(Option::is_none) {
            self.finding(
                FindingKind::DynamicShell,
                format!("runs {}, which this script writes first", path.display()),
                Some(idx),
            );
            return;
        }
        let mut head = [0u8; 128];
        let opened = if written {
            // Written by this line with text the walk knows: that text.
            let text = self
                .written_text
                .get(&path)
                .cloned()
                .flatten()
                .unwrap_or_default();
            let n = text.len().min(head.len());
            head[..n].copy_from_slice(&text.as_bytes()[..n]);
            Ok(n)
        } else {
            open_regular(&path).and_then(|mut file| file.read(&mut head))
        };
        let n = match opened {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.finding(
                    FindingKind::MissingScript,
                    format!("runs {}, which does not exist yet", path.display()),
                    Some(idx),
                );
                return;
            }
            Err(_) => return,
        };
        let head = &head[..n];
        let dialect = if let Some(line) = head.strip_prefix(b"#!") {
            let line = String::from_utf8_lossy(line);
            let mut words = line.lines().next().unwrap_or("").split_whitespace();
            let mut interp = words.next().unwrap_or("").rsplit('/').next().unwrap_or("");
            if interp == "env" {
                interp = words.find(|w| !w.starts_with('-')).unwrap_or("");
            }
            match interp {
                "bash" => Dialect::Bash,
                "sh" => Dialect::Posix,
                _ => return,
            }
        } else if head.contains(&0) || std::str::from_utf8(head).is_err() && n < 124 {
            return;
        } else {
            Dialect::Bash
        };
        let Some(body) = self.read_path(&path, idx) else {
            return;
        };
        let args: Option<Vec<String>> = args.iter().map(|a| a.lit().map(str::to_string)).collect();
        let positional = args.map(|args| {
            Rc::new(Positional {
                dollar0: name.to_string(),
                args,
            })
        });
        let mut sub = f.clone();
        sub.via = via.to_vec();
        self.nested(
            &body,
            format!("{name} (script)"),
            positional,
            dialect,
            &mut sub,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        actions: Vec<Action>,
        args: &[Arg],
        f: &mut Frame,
        idx: usize,
        stdin: &Stdin,
        via: &[String],
        source: &str,
    ) {
        // How many effects of each kind the command has.
        let mut counts: Vec<(EffectKind, usize)> = Vec::new();
        for a in &actions {
            if let Action::Effect { kind, .. } = a {
                match counts.iter_mut().find(|(k, _)| k == kind) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((*kind, 1)),
                }
            }
        }
        let mut inner_env: Vec<(String, Arg)> = Vec::new();
        for action in actions {
            match action {
                Action::Effect {
                    kind,
                    target,
                    recursive,
                } => {
                    let n = counts
                        .iter()
                        .find(|(k, _)| *k == kind)
                        .map_or(1, |(_, n)| *n);
                    self.effect(kind, &target, recursive, f, Some(idx), false, n);
                }
                Action::Finding { kind, detail } => self.finding(kind, detail, Some(idx)),
                Action::Assign { name, value } => {
                    self.assigned_name(&name, Some(idx));
                    inner_env.push((name, value));
                }
                Action::Inner {
                    start,
                    via: label,
                    env,
                    dynamic_tail,
                    placeholder,
                } => {
                    let Some(rest) = args.get(start..).filter(|r| !r.is_empty()) else {
                        continue;
                    };
                    let mut e = inner_env.clone();
                    e.extend(env);
                    self.inner(
                        rest.to_vec(),
                        e,
                        label,
                        dynamic_tail,
                        placeholder,
                        f,
                        stdin,
                        via,
                        source,
                    );
                }
                Action::InnerArgv {
                    argv,
                    via: label,
                    dynamic_tail,
                    placeholder,
                } => {
                    if argv.is_empty() {
                        continue;
                    }
                    self.inner(
                        argv,
                        inner_env.clone(),
                        label,
                        dynamic_tail,
                        placeholder,
                        f,
                        stdin,
                        via,
                        source,
                    );
                }
                Action::Script {
                    text,
                    via: label,
                    positional,
                    dialect,
                } => {
                    let mut sub = f.clone();
                    sub.via = via.to_vec();
                    self.script(
                        text,
                        label,
                        positional.map(Rc::new),
                        dialect,
                        &mut sub,
                        idx,
                        stdin,
                    );
                    if sub.cwd.primary != f.cwd.primary {
                        f.cwd = sub.cwd;
                    }
                }
                Action::StdinCode { lang } => self.stdin_code(&lang, stdin, idx),
                Action::FilteredDelete { target, name } => {
                    self.effect(EffectKind::Delete, &target, true, f, Some(idx), false, 1);
                    if let Some(e) = self.out.effects.last_mut() {
                        e.filter = Some(name);
                    }
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn inner(
        &mut self,
        mut argv: Vec<Arg>,
        env: Vec<(String, Arg)>,
        label: String,
        dynamic_tail: bool,
        placeholder: Option<String>,
        f: &mut Frame,
        stdin: &Stdin,
        via: &[String],
        source: &str,
    ) {
        if let Some(ph) = &placeholder {
            for a in &mut argv {
                if a.lit().is_some_and(|t| t.contains(ph.as_str())) {
                    a.value = ArgValue::Dynamic { resolved: None };
                }
            }
        }
        if dynamic_tail {
            argv.push(Arg {
                raw: "…".into(),
                value: ArgValue::Dynamic { resolved: None },
            });
        }
        let mut sub = f.clone();
        sub.via = via.to_vec();
        let _ = self.run_argv(argv, env, &mut sub, stdin.clone(), source, vec![label]);
        if sub.cwd.primary != f.cwd.primary {
            f.cwd = sub.cwd;
        }
    }

    fn stdin_code(&mut self, lang: &str, stdin: &Stdin, idx: usize) {
        match stdin {
            Stdin::Inherited => {}
            Stdin::Inline { text: Some(t) } => self.finding(
                FindingKind::InlineCode,
                format!("{lang} (stdin): {t}"),
                Some(idx),
            ),
            Stdin::File { path } => self.finding(
                FindingKind::InlineCode,
                format!(
                    "{lang} runs the program in {}",
                    path.as_ref()
                        .map_or_else(|| "a file".to_string(), |p| p.display().to_string())
                ),
                Some(idx),
            ),
            Stdin::Pipe | Stdin::Dynamic | Stdin::Inline { text: None } => self.finding(
                FindingKind::DynamicShell,
                format!("{lang} reads its program from a pipe or a dynamic source"),
                Some(idx),
            ),
        }
    }

    /// A nested script run by a shell, `eval`, `source`, `watch` …
    #[allow(clippy::too_many_arguments)]
    fn script(
        &mut self,
        text: ScriptText,
        via: String,
        positional: Option<Rc<Positional>>,
        dialect: Dialect,
        f: &mut Frame,
        idx: usize,
        stdin: &Stdin,
    ) {
        let body = match text {
            ScriptText::Text(t) => t,
            ScriptText::File(arg) => match self.read_script_file(&arg, f, idx) {
                Some(t) => t,
                None => return,
            },
            ScriptText::Stdin => match stdin {
                Stdin::Inherited => return,
                Stdin::Inline { text: Some(t) } => t.clone(),
                Stdin::File { path: Some(p) } => match self.read_path(p, idx) {
                    Some(t) => t,
                    None => return,
                },
                Stdin::Pipe
                | Stdin::Dynamic
                | Stdin::Inline { text: None }
                | Stdin::File { path: None } => {
                    self.finding(
                        FindingKind::DynamicShell,
                        format!(
                            "{via}: the shell reads its script from a pipe or a dynamic source"
                        ),
                        Some(idx),
                    );
                    return;
                }
            },
        };
        self.nested(&body, via, positional, dialect, f);
    }

    /// Analyse a literal nested script in a new frame.
    fn nested(
        &mut self,
        body: &str,
        via: String,
        positional: Option<Rc<Positional>>,
        dialect: Dialect,
        f: &mut Frame,
    ) {
        if f.depth + 1 > MAX_NESTED_SCRIPTS || self.nested_scripts > 1000 {
            self.give_up("nested scripts too deep");
            return;
        }
        self.nested_scripts += 1;
        if dialect == Dialect::Posix && body.contains("$'") {
            self.give_up(format!(
                "{via}: $'…' means different things to bash and to sh/dash"
            ));
            return;
        }
        let opts = parse::Options {
            deadline: self.input.deadline,
            ..parse::Options::default()
        };
        let parsed = match parse::parse(body, &opts) {
            Ok(p) => p,
            Err(e) => {
                self.give_up(format!("{via}: {} (at byte {})", e.message, e.offset));
                return;
            }
        };
        let mut sub = f.clone();
        sub.depth += 1;
        sub.via.push(via);
        sub.positional = positional;
        let text: Rc<str> = Rc::from(body);
        Rc::make_mut(&mut sub.texts).push(Rc::clone(&text));
        sub.dialect = dialect;
        sub.stdin = Stdin::Inherited;
        self.at_start = false;
        self.list(&parsed.list, &parsed, &mut sub);
        // The nested text is done with (frames are not kept).
        self.scans.forget(&text);
        // eval and source run in this shell: their cd sticks.
        if sub.cwd.primary != f.cwd.primary {
            f.cwd = sub.cwd;
        }
    }

    fn read_script_file(&mut self, arg: &Arg, f: &Frame, idx: usize) -> Option<String> {
        let Some(name) = arg.known() else {
            self.finding(
                FindingKind::DynamicShell,
                format!(
                    "runs the script file {}, whose name is not literal",
                    arg.raw
                ),
                Some(idx),
            );
            return None;
        };
        let path = if name.contains('/') {
            self.resolve(name, f).0
        } else {
            // bash: a bare name is looked up in the cwd, then PATH.
            let local = self.resolve(name, f).0;
            if local.exists() {
                local
            } else {
                self.input
                    .env
                    .get("PATH")
                    .into_iter()
                    .flat_map(|p| {
                        p.split(':')
                            .filter(|d| d.starts_with('/'))
                            .map(|d| PathBuf::from(d).join(name))
                            .collect::<Vec<_>>()
                    })
                    .find(|p| p.is_file())
                    .unwrap_or(local)
            }
        };
        self.effect(EffectKind::Read, arg, false, f, Some(idx), false, 1);
        self.read_path(&path, idx)
    }

    fn read_path(&mut self, path: &std::path::Path, idx: usize) -> Option<String> {
        let canon = paths::resolve(std::path::Path::new("/"), &path.to_string_lossy()).0;
        if self.written.contains(&canon) {
            if let Some(Some(text)) = self.written_text.get(&canon) {
                let text = text.clone();
                self.finding(
                    FindingKind::ReadScriptFile,
                    format!("analysed {} as this script writes it", path.display()),
                    Some(idx),
                );
                return Some(text);
            }
            self.finding(
                FindingKind::DynamicShell,
                format!("runs {}, which this script writes first", path.display()),
                Some(idx),
            );
            return None;
        }
        let meta = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => m,
            _ => {
                self.finding(
                    FindingKind::MissingScript,
                    format!("runs {}, which does not exist yet", path.display()),
                    Some(idx),
                );
                return None;
            }
        };
        if meta.len() > MAX_FILE_BYTES {
            self.finding(
                FindingKind::DynamicShell,
                format!("runs {}, which is larger than 1 MiB", path.display()),
                Some(idx),
            );
            return None;
        }
        let read = open_regular(path).and_then(|mut file| {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes).map(|_| bytes)
        });
        match read {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(t) => {
                    self.finding(
                        FindingKind::ReadScriptFile,
                        format!("analysed {}", path.display()),
                        Some(idx),
                    );
                    Some(t)
                }
                Err(_) => {
                    self.finding(
                        FindingKind::DynamicShell,
                        format!("runs {}, which is not UTF-8 text", path.display()),
                        Some(idx),
                    );
                    None
                }
            },
            Err(e) => {
                self.finding(
                    FindingKind::DynamicShell,
                    format!("runs {}, which cannot be read ({e})", path.display()),
                    Some(idx),
                );
                None
            }
        }
    }

    // ------------------------------------------------------------ builtins

    /// Shell builtins that need the walker's state. True when handled.
    fn builtin(
        &mut self,
        name: &str,
        args: &[Arg],
        f: &mut Frame,
        idx: usize,
        stdin: &Stdin,
    ) -> bool {
        let lit = |a: &Arg| a.lit().map(str::to_string);
        match name {
            "cd" | "pushd" => {
                let target = args
                    .iter()
                    .find(|a| !a.lit().is_some_and(|t| t.starts_with('-') && t.len() > 1));
                let dest = match target {
                    None if name == "cd" => self.input.home.clone(),
                    None => None,
                    Some(a) => a.known().filter(|t| *t != "-").map(str::to_string),
                };
                match (dest, f.cwd.primary.clone()) {
                    (Some(d), Some(cur)) => {
                        let new = paths::resolve(&cur, &d).0;
                        let mut others = vec![cur];
                        others.extend(f.cwd.others.iter().cloned());
                        others.truncate(4);
                        f.cwd = Rc::new(Cwd {
                            primary: Some(new),
                            others,
                        });
                    }
                    (Some(d), None) if d.starts_with('/') => {
                        Rc::make_mut(&mut f.cwd).primary =
                            Some(paths::resolve(std::path::Path::new("/"), &d).0);
                    }
                    _ => Rc::make_mut(&mut f.cwd).primary = None,
                }
                f.cd_fresh = true;
                true
            }
            "popd" => {
                Rc::make_mut(&mut f.cwd).primary = None;
                true
            }
            "eval" => {
                match args.iter().map(lit).collect::<Option<Vec<_>>>() {
                    Some(words) => {
                        let positional = f.positional.clone();
                        let dialect = f.dialect;
                        self.nested(&words.join(" "), "eval".into(), positional, dialect, f);
                    }
                    None => self.finding(
                        FindingKind::DynamicShell,
                        "eval of text that is not literal",
                        Some(idx),
                    ),
                }
                true
            }
            "source" | "." => {
                if let Some(file) = args.first() {
                    let positional = if args.len() > 1 {
                        Some(Rc::new(Positional {
                            dollar0: f
                                .positional
                                .as_ref()
                                .map(|p| p.dollar0.clone())
                                .unwrap_or_default(),
                            args: args[1..]
                                .iter()
                                .map(|a| a.known().unwrap_or("").to_string())
                                .collect(),
                        }))
                    } else {
                        f.positional.clone()
                    };
                    if let Some(text) = self.read_script_file(file, f, idx) {
                        let dialect = f.dialect;
                        self.nested(
                            &text,
                            format!("{name} {}", file.raw),
                            positional,
                            dialect,
                            f,
                        );
                    }
                }
                true
            }
            "exec" => {
                // `exec` alone only applies redirections.
                let mut i = 0;
                while let Some(t) = args.get(i).and_then(Arg::lit) {
                    if t == "--" {
                        i += 1;
                        break;
                    }
                    // Clusters of -c, -l and -a NAME (`-cla name`).
                    let Some(flags) = t.strip_prefix('-').filter(|r| {
                        !r.is_empty() && r.chars().all(|c| matches!(c, 'c' | 'l' | 'a'))
                    }) else {
                        break;
                    };
                    i += if flags.contains('a') { 2 } else { 1 };
                }
                if i < args.len() {
                    let via = f.via.clone();
                    self.inner(
                        args[i..].to_vec(),
                        Vec::new(),
                        "exec".into(),
                        false,
                        None,
                        f,
                        stdin,
                        &via,
                        "",
                    );
                }
                true
            }
            "command" => {
                let describe = args
                    .iter()
                    .take_while(|a| a.lit().is_some_and(|t| t.starts_with('-')))
                    .any(|a| a.lit().is_some_and(|t| t.contains('v') || t.contains('V')));
                if !describe {
                    let start = args
                        .iter()
                        .position(|a| !a.lit().is_some_and(|t| t.starts_with('-')))
                        .unwrap_or(args.len());
                    if start < args.len() {
                        let via = f.via.clone();
                        self.inner(
                            args[start..].to_vec(),
                            Vec::new(),
                            "command".into(),
                            false,
                            None,
                            f,
                            stdin,
                            &via,
                            "",
                        );
                    }
                }
                true
            }
            "builtin" => {
                if !args.is_empty() {
                    let via = f.via.clone();
                    self.inner(
                        args.to_vec(),
                        Vec::new(),
                        "builtin".into(),
                        false,
                        None,
                        f,
                        stdin,
                        &via,
                        "",
                    );
                }
                true
            }
            "alias" => {
                let defines = args.iter().any(|a| a.lit().is_none_or(|t| t.contains('=')));
                if defines {
                    self.finding(
                        FindingKind::ParseStateChange,
                        "alias definitions change what later command names run",
                        Some(idx),
                    );
                    for a in args {
                        if let Some((_, value)) = a.lit().and_then(|t| t.split_once('=')) {
                            // An alias value is a fragment, not always a
                            // whole script: look inside when it parses.
                            if parse::parse(value, &parse::Options::default()).is_ok() {
                                let positional = f.positional.clone();
                                let dialect = f.dialect;
                                self.nested(value, "alias".into(), positional, dialect, f);
                            }
                        }
                    }
                }
                true
            }
            "unalias" => true,
            "shopt" => {
                let setting = args.iter().any(|a| a.lit() == Some("-s"));
                let risky = args.iter().any(|a| {
                    a.lit().is_none()
                        || matches!(
                            a.lit(),
                            Some(
                                "expand_aliases"
                                    | "extglob"
                                    | "extdebug"
                                    | "xpg_echo"
                                    | "sourcepath"
                                    | "execfail"
                            )
                        )
                });
                if setting && risky || args.iter().any(|a| a.lit().is_none()) {
                    self.finding(
                        FindingKind::ParseStateChange,
                        format!(
                            "shopt {} changes how later text parses or runs",
                            args.iter()
                                .map(|a| a.raw.as_str())
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                        Some(idx),
                    );
                }
                if args.iter().any(|a| a.lit() == Some("-o"))
                    && args.iter().any(|a| a.lit() == Some("posix"))
                {
                    self.finding(
                        FindingKind::ParseStateChange,
                        "shopt -o posix turns on alias expansion",
                        Some(idx),
                    );
                }
                true
            }
            "set" => {
                let mut positional_change = false;
                let mut i = 0;
                while let Some(a) = args.get(i) {
                    match a.lit() {
                        Some("--") => {
                            positional_change = true;
                            break;
                        }
                        Some(t) if t.starts_with('-') || t.starts_with('+') => {
                            let on = t.starts_with('-');
                            if t == "-o" || t == "+o" {
                                let opt = args.get(i + 1).and_then(Arg::lit);
                                // `set -o` alone lists the options.
                                let dynamic = args.get(i + 1).is_some() && opt.is_none();
                                if on && (matches!(opt, Some("posix" | "keyword")) || dynamic) {
                                    self.finding(
                                        FindingKind::ParseStateChange,
                                        format!(
                                            "set -o {} changes how later text parses",
                                            opt.unwrap_or("?")
                                        ),
                                        Some(idx),
                                    );
                                }
                                i += 2;
                                continue;
                            }
                            if on && t.contains('k') {
                                self.finding(FindingKind::ParseStateChange, "set -k turns arguments that look like assignments into environment variables", Some(idx));
                            }
                            i += 1;
                        }
                        Some(_) => {
                            positional_change = true;
                            break;
                        }
                        None => {
                            positional_change = true;
                            self.finding(
                                FindingKind::ParseStateChange,
                                format!("set {} with a dynamic option", a.raw),
                                Some(idx),
                            );
                            break;
                        }
                    }
                }
                if positional_change {
                    f.positional = None;
                }
                true
            }
            "shift" => {
                f.positional = None;
                true
            }
            "enable" => {
                self.finding(
                    FindingKind::ParseStateChange,
                    "enable changes which builtins exist",
                    Some(idx),
                );
                true
            }
            "hash" => {
                if args
                    .iter()
                    .any(|a| a.lit().is_none_or(|t| t.starts_with("-p")))
                {
                    self.finding(
                        FindingKind::ParseStateChange,
                        "hash -p makes a command name run another program",
                        Some(idx),
                    );
                }
                true
            }
            "trap" => {
                let first = args.first();
                match first.map(|a| (a.lit(), a)) {
                    None => {}
                    Some((Some(t), _))
                        if t.starts_with('-')
                            || t.is_empty()
                            || t.bytes().all(|b| b.is_ascii_digit()) => {}
                    Some((Some(code), _)) => {
                        self.finding(
                            FindingKind::RuntimeSink,
                            format!("trap runs {code} later"),
                            Some(idx),
                        );
                        let positional = f.positional.clone();
                        let dialect = f.dialect;
                        let code = code.to_string();
                        self.nested(&code, "trap".into(), positional, dialect, f);
                    }
                    Some((None, a)) => self.finding(
                        FindingKind::DynamicShell,
                        format!("trap runs {} later, which is not literal", a.raw),
                        Some(idx),
                    ),
                }
                true
            }
            "declare" | "typeset" | "local" | "export" | "readonly" => {
                let mut integer = false;
                let mut function_export = false;
                let mut nameref = false;
                for a in args {
                    match a.lit() {
                        Some(t) if t.starts_with('-') || t.starts_with('+') => {
                            if t.starts_with('-') && t.contains('i') {
                                integer = true;
                            }
                            if t.starts_with('-') && t.contains('n') {
                                nameref = true;
                            }
                            if t.starts_with('-') && t.contains('f') && name == "export" {
                                function_export = true;
                            }
                        }
                        Some(t) => {
                            let (n, has_value) = match t.split_once('=') {
                                Some((n, _)) => (n, true),
                                None => (t, false),
                            };
                            if nameref
                                && let Some((_, v)) = t.split_once('=')
                                && subscript_has_code(v)
                            {
                                self.finding(
                                    FindingKind::RuntimeSink,
                                    format!("{name} -n {t} refers to a subscript that runs code"),
                                    Some(idx),
                                );
                                self.subscript_text(v, "nameref subscript", f);
                            }
                            if integer && let Some((n, v)) = t.split_once('=') {
                                self.integers.insert(n.to_string());
                                self.arith_text(v, &format!("integer assignment to {n}"), f);
                            } else if integer {
                                self.integers.insert(t.to_string());
                            }
                            let base = n.split('[').next().unwrap_or(n).trim_end_matches('+');
                            if subscript_has_code(n) {
                                self.finding(
                                    FindingKind::RuntimeSink,
                                    format!("{name} {t} evaluates a subscript"),
                                    Some(idx),
                                );
                                self.subscript_text(n, &format!("{name} subscript"), f);
                            }
                            if has_value || name != "export" || dangerous_var(base).is_some() {
                                self.assigned_name(base, Some(idx));
                                if let (Some(last), Some((_, v))) =
                                    (self.out.assignments.last_mut(), t.split_once('='))
                                {
                                    last.value = Some(v.to_string());
                                    last.raw = Some(v.to_string());
                                }
                            }
                            if function_export {
                                self.finding(
                                    FindingKind::DangerousAssignment,
                                    format!("export -f {base} exports a function to child shells"),
                                    Some(idx),
                                );
                            }
                        }
                        None => match literal_assignment_name(&a.raw) {
                            // `export PATH="$PWD/bin:$PATH"`: the name is
                            // literal, only the value is not.
                            Some(n) if !integer && !nameref => {
                                self.assigned_name(n, Some(idx));
                                if let Some(last) = self.out.assignments.last_mut() {
                                    last.value = a.known().and_then(|k| {
                                        k.split_once('=').map(|(_, v)| v.to_string())
                                    });
                                    last.raw = a.raw.split_once('=').map(|(_, v)| v.to_string());
                                }
                            }
                            _ => self.finding(
                                FindingKind::RuntimeSink,
                                format!(
                                    "{name} {} with a name or value that is not literal",
                                    a.raw
                                ),
                                Some(idx),
                            ),
                        },
                    }
                }
                if integer {
                    self.finding(
                        FindingKind::RuntimeSink,
                        format!("{name} -i makes later assignments arithmetic"),
                        Some(idx),
                    );
                }
                true
            }
            "read" | "mapfile" | "readarray" | "getopts" => {
                let spec = match name {
                    "read" => "adeinNptu",
                    "getopts" => "",
                    _ => "CcdnOsu",
                };
                let p = super::args::parse(
                    args,
                    super::args::OptSpec {
                        short_with_value: spec,
                        long_with_value: &[],
                        stop_at_operand: false,
                    },
                );
                if name != "read"
                    && let Some(cb) = p.value("C")
                {
                    self.finding(
                        FindingKind::RuntimeSink,
                        format!("{name} -C runs a callback"),
                        Some(idx),
                    );
                    match cb.lit() {
                        Some(code) => {
                            let positional = f.positional.clone();
                            let dialect = f.dialect;
                            let code = code.to_string();
                            self.nested(&code, format!("{name} -C"), positional, dialect, f);
                        }
                        None => self.finding(
                            FindingKind::DynamicShell,
                            format!("{name} -C runs {}, which is not literal", cb.raw),
                            Some(idx),
                        ),
                    }
                }
                let mut names: Vec<&Arg> = p.operands.iter().filter_map(|i| args.get(*i)).collect();
                if name == "getopts" && !names.is_empty() {
                    names = names.split_off(1).into_iter().take(1).collect();
                }
                if let Some(a) = p.value("a") {
                    names.push(a);
                }
                for a in names {
                    match a.lit() {
                        Some(n) => {
                            if subscript_has_code(n) {
                                self.finding(
                                    FindingKind::RuntimeSink,
                                    format!("{name} {n} evaluates a subscript"),
                                    Some(idx),
                                );
                                // getopts assigns without evaluating the
                                // subscript; read and mapfile evaluate it.
                                if name != "getopts" {
                                    let n = n.to_string();
                                    self.subscript_text(&n, &format!("{name} subscript"), f);
                                }
                            }
                            self.assigned_name(n.split('[').next().unwrap_or(n), Some(idx));
                        }
                        None => self.finding(
                            FindingKind::RuntimeSink,
                            format!("{name} into a variable named by {}", a.raw),
                            Some(idx),
                        ),
                    }
                }
                true
            }
            "printf" => {
                if let Some(i) = args.iter().position(|a| a.lit() == Some("-v")) {
                    match args.get(i + 1).map(|a| (a.lit(), a)) {
                        Some((Some(n), _)) => {
                            if subscript_has_code(n) {
                                self.finding(
                                    FindingKind::RuntimeSink,
                                    format!("printf -v {n} evaluates a subscript"),
                                    Some(idx),
                                );
                                let n = n.to_string();
                                self.subscript_text(&n, "printf -v subscript", f);
                            }
                            self.assigned_name(n.split('[').next().unwrap_or(n), Some(idx));
                        }
                        Some((None, a)) => self.finding(
                            FindingKind::RuntimeSink,
                            format!("printf -v into a variable named by {}", a.raw),
                            Some(idx),
                        ),
                        None => {}
                    }
                }
                true
            }
            "test" | "[" => {
                for (i, a) in args.iter().enumerate() {
                    if a.lit() == Some("-v")
                        && let Some(n) = args.get(i + 1)
                        && (n.lit().is_none() || subscript_has_code(n.lit().unwrap_or("")))
                    {
                        self.finding(
                            FindingKind::RuntimeSink,
                            format!("{name} -v {} evaluates a subscript", n.raw),
                            Some(idx),
                        );
                        if let Some(t) = n.lit() {
                            let t = t.to_string();
                            self.subscript_text(&t, "test -v subscript", f);
                        }
                    }
                }
                true
            }
            "let" => {
                for a in args {
                    match a.lit() {
                        Some(t) if t.contains("$(") || t.contains('`') => {
                            self.finding(
                                FindingKind::RuntimeSink,
                                format!("let {t} runs a substitution"),
                                Some(idx),
                            );
                            let t = t.to_string();
                            self.arith_text(&t, "let", f);
                        }
                        Some(t) => {
                            let probe = Arith {
                                names: t
                                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                                    .filter(|w| parse::is_name(w))
                                    .map(str::to_string)
                                    .collect(),
                                ..Arith::default()
                            };
                            let empty = Script::default();
                            self.arith(&probe, &empty, f);
                            let names: Vec<String> = t
                                .split(|c: char| !c.is_alphanumeric() && c != '_')
                                .filter(|w| parse::is_name(w))
                                .map(str::to_string)
                                .collect();
                            for n in names {
                                if self.var_is_unsafe(&n, f) {
                                    self.finding(
                                        FindingKind::RuntimeSink,
                                        format!("let evaluates the value of {n}"),
                                        Some(idx),
                                    );
                                }
                            }
                        }
                        None => self.finding(
                            FindingKind::RuntimeSink,
                            format!("let {} evaluates text that is not literal", a.raw),
                            Some(idx),
                        ),
                    }
                }
                true
            }
            "unset" => {
                for a in args {
                    if a.lit().is_some_and(subscript_has_code) || a.lit().is_none() {
                        self.finding(
                            FindingKind::RuntimeSink,
                            format!("unset {} evaluates a subscript", a.raw),
                            Some(idx),
                        );
                        if let Some(t) = a.lit() {
                            let t = t.to_string();
                            self.subscript_text(&t, "unset subscript", f);
                        }
                    }
                }
                true
            }
            _ => false,
        }
    }
}

/// Literal text with a subscript that contains a substitution.
fn subscript_has_code(text: &str) -> bool {
    text.find('[').is_some_and(|i| {
        let sub = &text[i..];
        sub.contains("$(") || sub.contains('`') || sub.contains("${")
    })
}

/// Variable names read in a subscript or arithmetic operand word.
fn sub_names(w: &Word) -> Vec<String> {
    let mut names = Vec::new();
    for p in &w.parts {
        match p {
            Part::Lit { text, .. } => names.extend(
                text.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .filter(|t| parse::is_name(t))
                    .map(str::to_string),
            ),
            Part::Param(p) => names.push(p.name.clone()),
            _ => {}
        }
    }
    names
}

/// Is this word, used as an arithmetic operand, possibly carrying code?
fn word_is_unsafe_arith(w: &Word) -> bool {
    w.parts.iter().any(|p| match p {
        Part::Param(_) | Part::CommandSub { .. } => true,
        Part::Double(inner) => inner
            .iter()
            .any(|q| matches!(q, Part::Param(_) | Part::CommandSub { .. })),
        Part::Lit { text, .. } => subscript_has_code(text),
        _ => false,
    })
}

/// Does the script give `name` a value that is not plain literal text
/// (a substitution, another variable, `read`, a loop over words), or
/// literal text with code in it?
fn assigned_unsafely(text: &str, name: &str) -> bool {
    for (i, _) in text.match_indices(name) {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '{') {
            continue;
        }
        let after = &text[i + name.len()..];
        if after
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let Some(value) = after.strip_prefix('=').or_else(|| after.strip_prefix("+=")) else {
            // `read name`, `for name in`, `declare name`: not a literal.
            let line_start = text[..i]
                .rfind(['\n', ';', '&', '|', '('])
                .map_or(0, |k| k + 1);
            let head = text[line_start..i].trim_start();
            if head.starts_with("read")
                || head.starts_with("for")
                || head.starts_with("mapfile")
                || head.starts_with("readarray")
                || head.starts_with("printf")
                || head.starts_with("getopts")
                || head.starts_with("select")
            {
                return true;
            }
            continue;
        };
        let end = value
            .find([' ', '\t', '\n', ';', '&', '|', ')'])
            .unwrap_or(value.len());
        let v = &value[..end];
        if v.contains('$') || v.contains('`') || v.contains('[') || v.starts_with('(') {
            return true;
        }
    }
    false
}

/// What `cat` (its here-document or here-string), `echo` or `printf`
/// prints, when its words are literal and it is plain enough to say.
fn printed_text(argv: &[Arg], stdin: &Stdin) -> Option<String> {
    let words: Option<Vec<&str>> = argv.iter().map(Arg::lit).collect();
    let words = words?;
    let (name, args) = words.split_first()?;
    match (name.rsplit('/').next()?, args) {
        ("cat", [] | ["-"]) => match stdin {
            Stdin::Inline { text } => text.clone(),
            _ => None,
        },
        ("echo", args) => {
            let (newline, args) = match args.first() {
                Some(&"-n") => (false, &args[1..]),
                Some(a) if a.starts_with('-') => return None,
                _ => (true, args),
            };
            if args.iter().any(|a| a.contains('\\')) {
                return None;
            }
            let mut t = args.join(" ");
            if newline {
                t.push('\n');
            }
            Some(t)
        }
        ("printf", [format]) if !format.contains('%') => {
            let mut out = String::new();
            let mut chars = format.chars();
            while let Some(c) = chars.next() {
                if c != '\\' {
                    out.push(c);
                    continue;
                }
                match chars.next()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    '\\' => out.push('\\'),
                    _ => return None,
                }
            }
            Some(out)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taint_scan_sees_assignments_and_reads() {
        assert!(is_tainted("X=1; echo $X", "X"));
        assert!(is_tainted("read X", "X"));
        assert!(is_tainted("echo ${X:=/}", "X"));
        assert!(!is_tainted("echo $X ${X} \"$X/y\"", "X"));
        assert!(!is_tainted("echo $HOME", "HOM"));
        assert!(has_word("a; eval b", "eval"));
        assert!(!has_word("evaluate", "eval"));
        assert!(has_word("x; . ./f", "."));
        assert!(!has_word("cat ./f", "."));
    }

    #[test]
    fn finds_unsafe_assignments() {
        assert!(assigned_unsafely("x='a[$(id)]'; echo $((x))", "x"));
        assert!(assigned_unsafely("x=$(cat f); echo $((x))", "x"));
        assert!(assigned_unsafely(
            "for i in $(ls); do echo $((i)); done",
            "i"
        ));
        assert!(!assigned_unsafely("i=0; echo $((i+1))", "i"));
    }
}
