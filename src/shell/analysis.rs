//! What the analysis of one script found: the commands that may run
//! (however deeply nested), the files they touch, the dynamic or runtime
//! behaviour it could not pin down (findings), and whether it understood
//! the script at all (`opaque`). The policy decides on this value alone.

use std::path::PathBuf;

use serde::Serialize;

/// One word of a command line after expansion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Arg {
    /// The word as written (for messages).
    pub raw: String,
    pub value: ArgValue,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ArgValue {
    /// Known text after quote removal, escapes, `$'…'`, brace and tilde
    /// expansion and literal positional parameters.
    Literal { text: String },
    /// Contains an unquoted glob pattern (`*`, `?`, `[…]`).
    Glob { pattern: String },
    /// Depends on a variable, a substitution or runtime state. `resolved`
    /// is its value when every part comes from the environment automode
    /// was started with and the script never changes those variables (or
    /// from unset variables, which expand to nothing).
    Dynamic { resolved: Option<String> },
}

impl Arg {
    pub fn literal(text: impl Into<String>) -> Arg {
        let text = text.into();
        Arg {
            raw: text.clone(),
            value: ArgValue::Literal { text },
        }
    }

    /// The literal text, if the word is literal.
    pub fn lit(&self) -> Option<&str> {
        match &self.value {
            ArgValue::Literal { text } => Some(text),
            ArgValue::Glob { .. } | ArgValue::Dynamic { .. } => None,
        }
    }

    /// The text a word certainly starts with, as written (quotes removed,
    /// up to its first expansion or glob): `-o` for `-o$HOME/x`, empty
    /// for `"$X"`. For a word only known at run time, it tells whether it
    /// is an option.
    pub fn literal_prefix(&self) -> String {
        if let Some(t) = self.lit() {
            return t.to_string();
        }
        let mut out = String::new();
        let mut chars = self.raw.chars();
        let mut double = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(n) => out.push(n),
                    None => break,
                },
                '\'' if !double => {
                    for n in chars.by_ref() {
                        if n == '\'' {
                            break;
                        }
                        out.push(n);
                    }
                }
                '"' => double = !double,
                '$' | '`' => break,
                '*' | '?' | '[' | '{' if !double => break,
                _ => out.push(c),
            }
        }
        out
    }

    /// The best known text: literal, or dynamic resolved from the
    /// environment.
    pub fn known(&self) -> Option<&str> {
        match &self.value {
            ArgValue::Literal { text } => Some(text),
            ArgValue::Dynamic {
                resolved: Some(text),
            } => Some(text),
            ArgValue::Glob { .. } | ArgValue::Dynamic { resolved: None } => None,
        }
    }
}

/// How the command's standard input is supplied (for shells and
/// interpreters that read their program from stdin).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stdin {
    /// Not redirected: inherited (at top level, `/dev/null`).
    Inherited,
    /// From the previous command of a pipeline.
    Pipe,
    /// A here-document or here-string; `text` when it is literal.
    Inline { text: Option<String> },
    /// `< file`.
    File { path: Option<PathBuf> },
    /// `<(…)` or another dynamic source.
    Dynamic,
}

/// One simple command that may run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandInfo {
    pub argv: Vec<Arg>,
    /// `NAME=value` words before the command (its environment).
    pub env: Vec<(String, Arg)>,
    /// The wrappers and nested interpreters this command runs under,
    /// outermost first (`sudo`, `bash -c`, `find -exec`, `eval`, …).
    pub via: Vec<String>,
    /// Defined inside this shell function.
    pub in_function: Option<String>,
    /// argv[0] names a function the script defines.
    pub calls_function: bool,
    pub stdin: Stdin,
    /// Nesting level of literal nested scripts (0 = the script itself).
    pub depth: usize,
    /// Source text of the command.
    pub source: String,
    /// The directories it may run in (the likely one first, then those a
    /// failed `cd` leaves): empty when unknown.
    pub cwd: Vec<PathBuf>,
}

impl CommandInfo {
    /// argv[0] when literal.
    pub fn name(&self) -> Option<&str> {
        self.argv.first().and_then(Arg::lit)
    }

    /// The basename of argv[0] when literal (`/usr/bin/rm` → `rm`).
    pub fn base_name(&self) -> Option<&str> {
        self.name().map(|n| n.rsplit('/').next().unwrap_or(n))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EffectKind {
    Read,
    Write,
    Append,
    Create,
    Delete,
    Permission,
    Owner,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Literal,
    Glob,
    Dynamic,
}

/// A file a command reads, writes, deletes or re-permissions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Effect {
    pub kind: EffectKind,
    pub target: TargetKind,
    /// The target as written.
    pub raw: String,
    /// Absolute and canonical (symlinks resolved for the part that
    /// exists), when the target is known. For a glob, the pattern's
    /// directory part.
    pub path: Option<PathBuf>,
    /// The same, but the last component not followed if it is a symlink
    /// (what `rm link` removes).
    pub lexical: Option<PathBuf>,
    /// Other working directories the target might be relative to (after a
    /// `cd` that may fail): their resolutions.
    pub alternatives: Vec<PathBuf>,
    /// Index into `Analysis::commands` (None for a redirection with no
    /// command, `> file`).
    pub command: Option<usize>,
    /// `rm -r`, `chmod -R`, `find -delete`, `git clean` …
    pub recursive: bool,
    /// How many targets the command's effect of this kind has.
    pub count: usize,
    /// Made by a redirection rather than a command argument.
    pub redirect: bool,
    /// For `find DIR -name PAT -delete`: only names matching PAT go. For
    /// a glob: the pattern's last component (the names it reaches under
    /// `path`).
    pub filter: Option<String>,
}

/// Something the policy must know that is not a plain command or file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub detail: String,
    /// Index into `Analysis::commands`, when tied to one.
    pub command: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// argv[0] from a variable, substitution, glob or brace expansion.
    DynamicExecutable,
    /// A shell or `eval` runs text that is not literal: `sh -c "$X"`,
    /// `eval "$X"`, `curl … | sh`, `bash <(…)`, a sourced file that is
    /// missing or written by the script.
    DynamicShell,
    /// An interpreter runs code given inline (`python -c`, `node -e`,
    /// `perl -e`, awk/sed programs, …).
    InlineCode,
    /// The inline code can run other programs (awk `system()`, sed `e`,
    /// `tar --checkpoint-action=exec`, `git -c core.pager=…`, vim `:!`).
    InlineExec,
    /// Runtime evaluation no parser can see: arithmetic on script-set
    /// values, `printf -v`/`read`/`declare`/`test -v`/`unset` with
    /// subscripts, `${x@P}`, indirection, `mapfile -C`, `trap`, `coproc`.
    RuntimeSink,
    /// Changes how later text parses or which command a name runs:
    /// `alias`, `shopt -s expand_aliases|extglob`, `set -o posix`,
    /// `enable`, `hash -p`, `command_not_found_handle`, `set -k`.
    ParseStateChange,
    /// Assignment to a variable that makes programs execute code or
    /// changes how the shell works (`PATH`, `LD_PRELOAD`, `BASH_ENV`, …).
    DangerousAssignment,
    /// Assignment to automode's own `AUTOMODE_*` variables.
    AutomodeAssignment,
    /// A nested shell whose grammar is not bash's (dash, zsh, ksh, …).
    ForeignShell,
    /// A wrapper starts an interactive shell (`sudo -i`, `su`, `chroot
    /// DIR`): with stdin closed it reads nothing, but it asks for another
    /// user's or root's shell.
    InteractiveShell,
    /// A script file that does not exist (`bash ci.sh`, `source
    /// .venv/bin/activate`) and that the script does not write first:
    /// bash reports the missing file, unless an earlier command creates
    /// it in a way the analysis does not model.
    MissingScript,
    /// A script file or sourced file was read and analysed (informative).
    ReadScriptFile,
}

/// A variable set for the rest of the shell (not just one command's
/// environment): `X=1`, `export X=…`, `declare`, `read X`, `for X in`,
/// `printf -v X`. Prefix assignments (`X=1 cmd`) are in
/// `CommandInfo::env` instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assignment {
    pub name: String,
    /// The value when known (literal, or resolved from the environment).
    pub value: Option<String>,
    /// How many commands were recorded before it: the commands from this
    /// index on may run after it.
    pub before: usize,
    /// The builtin that made it, if one did.
    pub command: Option<usize>,
    /// The value is exactly another variable's (`$X`, `"${X:-}"`): its
    /// name (`X`). Saving a variable and setting it back is not a change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The value is plain text put before the variable's own value
    /// (`PS1="(.venv) ${PS1:-}"`): that text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefixed: Option<String>,
    /// The value as written (`"$PWD/lib:$LD_LIBRARY_PATH"`), where an
    /// assignment or `export` gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
}

/// The variable a value is exactly, when it is one expansion and nothing
/// else: `$X`, `${X}`, `${X:-}`, `${X-}`, each maybe in double quotes.
pub fn copied_var(raw: &str) -> Option<&str> {
    let t = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    let name = if let Some(inner) = t.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
        inner
            .strip_suffix(":-")
            .or_else(|| inner.strip_suffix('-'))
            .unwrap_or(inner)
    } else {
        t.strip_prefix('$')?
    };
    let mut chars = name.chars();
    (chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

/// `TEXT${NAME:-}` where TEXT holds no expansion, backquote or escape,
/// however quoted (`"(.venv) ${PS1:-}"`, `'(.venv) '"${PS1:-}"`): TEXT
/// without its quotes.
pub fn own_with_prefix(raw: &str, name: &str) -> Option<String> {
    let body = raw.strip_suffix('"').unwrap_or(raw);
    let forms = [
        format!("${{{name}:-}}"),
        format!("${{{name}-}}"),
        format!("${{{name}}}"),
        format!("${name}"),
    ];
    let prefix = forms.iter().find_map(|f| body.strip_suffix(f.as_str()))?;
    if prefix.contains(['$', '`', '\\']) {
        return None;
    }
    let text: String = prefix
        .chars()
        .filter(|c| !matches!(c, '"' | '\''))
        .collect();
    (!text.is_empty()).then_some(text)
}

/// What the agent asks for with leading assignments on its script:
/// `AUTOMODE_TIMEOUT=N`, `AUTOMODE_OUTPUT_LIMIT=N`, and a one-command
/// sandbox widening `AUTOMODE_WRITE=/abs/path[:/other]` or
/// `AUTOMODE_SANDBOX=off` (only literal, only before the first command of
/// the top-level script).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LimitRequests {
    pub timeout: Option<String>,
    pub output_limit: Option<String>,
    pub write: Option<String>,
    pub sandbox: Option<String>,
}

/// The result of analysing one script.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// Why the analysis gave up, if it did. An opaque script never takes
    /// an allow tier.
    pub opaque: Option<String>,
    pub commands: Vec<CommandInfo>,
    pub effects: Vec<Effect>,
    pub findings: Vec<Finding>,
    pub limits: LimitRequests,
    /// Functions the script defines.
    pub functions: Vec<String>,
    pub assignments: Vec<Assignment>,
}

impl Analysis {
    /// An analysis that understood nothing.
    pub fn opaque(reason: impl Into<String>) -> Analysis {
        Analysis {
            opaque: Some(reason.into()),
            ..Analysis::default()
        }
    }

    pub fn has(&self, kind: FindingKind) -> bool {
        self.findings.iter().any(|f| f.kind == kind)
    }
}
