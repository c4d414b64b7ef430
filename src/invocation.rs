//! bash/sh invocation grammar: argv → `Invocation`, exactly as bash 5.2's
//! `parse_long_options` + `parse_shell_options` read it.
//!
//! Pure: never reads the environment, the terminal or files. The result
//! holds the option words verbatim (so the real shell sees what the caller
//! wrote), the decoded option state (so the analyser knows about `-k`,
//! `posix`, `extglob`, …), where the script comes from, `$0` and the
//! positional arguments. The shell analyser reuses it for nested `bash …`
//! words, so it must agree with bash on every form (see the table tests).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::OsStrExt;

/// Which name we were invoked under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellKind {
    Bash,
    Sh,
}

/// Where the script text comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `-c SCRIPT`.
    Command(OsString),
    /// `bash FILE`: read the file (bash also searches PATH for a bare name).
    File(OsString),
    /// `-s`, or no script argument: read standard input.
    Stdin,
}

/// Option state after bash has processed the invocation's options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellOptions {
    /// `-l`, `--login`, or argv[0] starting with `-`.
    pub login: bool,
    /// `-i` (forced interactive).
    pub interactive: bool,
    /// `-s`.
    pub read_stdin: bool,
    /// `-r` / `--restricted`.
    pub restricted: bool,
    /// `-D`, `--dump-strings`, `--dump-po-strings`: print strings, run nothing.
    pub dump_strings: bool,
    /// `--posix` (`-o posix` is in `set_options`).
    pub posix_long: bool,
    /// `--norc`, `--noprofile`, `--noediting`, `--verbose`, `--debug`,
    /// `--debugger`, `--pretty-print`, `--rcfile F`, `--init-file F`, in order.
    pub long: Vec<(String, Option<OsString>)>,
    /// Changes to `set` options in order, by their `-o` name.
    pub set_options: Vec<(String, bool)>,
    /// `-O name` / `+O name` in order.
    pub shopts: Vec<(String, bool)>,
}

impl ShellOptions {
    /// The final state of a `set -o` option, `None` if never changed.
    pub fn set_option(&self, name: &str) -> Option<bool> {
        self.set_options
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, on)| *on)
    }

    /// The final state of a shopt option, `None` if never changed.
    pub fn shopt(&self, name: &str) -> Option<bool> {
        self.shopts
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, on)| *on)
    }

    /// True when bash will parse and not execute (`-n`, `-o noexec`, `-D`).
    pub fn noexec(&self) -> bool {
        self.dump_strings || self.set_option("noexec") == Some(true)
    }

    /// True when the shell runs in POSIX mode.
    pub fn posix(&self) -> bool {
        self.posix_long || self.set_option("posix") == Some(true)
    }

    /// Whether a long option was given.
    pub fn has_long(&self, name: &str) -> bool {
        self.long.iter().any(|(n, _)| n == name)
    }
}

/// A parsed invocation that will run a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub shell: ShellKind,
    /// argv[0] as given; bash uses it for `$0` (stdin and plain `-c`),
    /// error messages and login detection.
    pub argv0: OsString,
    /// The option words exactly as given, with the arguments they consumed,
    /// but without a terminating `--` or `-`.
    pub option_words: Vec<OsString>,
    pub options: ShellOptions,
    pub source: Source,
    /// `$0` when given explicitly (`-c SCRIPT NAME`, or FILE).
    pub dollar0: Option<OsString>,
    /// `$1 …`.
    pub args: Vec<OsString>,
}

/// What the argv asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// A script to run.
    Run(Box<Invocation>),
    /// `--help` or `--version`: bash prints text and exits; nothing runs.
    Informational,
    /// `-o` or `-O` with no name: bash lists the options, then reads a
    /// script. Not supported through the shim.
    ListOptions,
}

/// A bad invocation, reported the way bash reports it (exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsageError {
    /// `-Z` or `+Z`. With errexit already on, bash exits 1 without usage.
    InvalidShort {
        shell: String,
        sign: char,
        flag: char,
        errexit: bool,
    },
    /// `--foo`.
    InvalidLong { shell: String, word: String },
    /// `--rcfile` at the end.
    LongNeedsArgument { shell: String, name: String },
    /// `-c` without a script.
    CommandNeedsArgument { shell: String, errexit: bool },
    /// `-o bogus`.
    InvalidOptionName { shell: String, name: String },
    /// `-O bogus`.
    InvalidShoptName { shell: String, name: String },
}

impl UsageError {
    /// Whether bash follows the message with its usage text.
    pub fn shows_usage(&self) -> bool {
        match self {
            UsageError::InvalidShort { errexit, .. } => !errexit,
            UsageError::InvalidLong { .. } => true,
            UsageError::LongNeedsArgument { .. }
            | UsageError::CommandNeedsArgument { .. }
            | UsageError::InvalidOptionName { .. }
            | UsageError::InvalidShoptName { .. } => false,
        }
    }

    /// bash's exit status: 2 (EX_BADUSAGE), or 1 when `-e` was already on
    /// (its error reporter then exits at once).
    pub fn exit_code(&self) -> i32 {
        match self {
            UsageError::InvalidShort { errexit: true, .. }
            | UsageError::CommandNeedsArgument { errexit: true, .. } => 1,
            _ => 2,
        }
    }

    /// The message line as bash prints it. Errors bash reports through its
    /// builtin-error path carry "line 0: " unless stderr is a terminal.
    pub fn render(&self, stderr_is_tty: bool) -> String {
        let line0 = if stderr_is_tty { "" } else { "line 0: " };
        match self {
            UsageError::InvalidShort {
                shell, sign, flag, ..
            } => format!("{shell}: {sign}{flag}: invalid option"),
            UsageError::InvalidLong { shell, word } => format!("{shell}: {word}: invalid option"),
            UsageError::LongNeedsArgument { shell, name } => {
                format!("{shell}: {name}: option requires an argument")
            }
            UsageError::CommandNeedsArgument { shell, .. } => {
                format!("{shell}: -c: option requires an argument")
            }
            UsageError::InvalidOptionName { shell, name } => {
                format!("{shell}: {line0}{shell}: {name}: invalid option name")
            }
            UsageError::InvalidShoptName { shell, name } => {
                format!("{shell}: {line0}{name}: invalid shell option name")
            }
        }
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(true))
    }
}

/// bash 5.2's usage text, printed after an invalid option.
pub fn usage_text(shell: &str) -> String {
    format!(
        "Usage:\t{shell} [GNU long option] [option] ...\n\
         \t{shell} [GNU long option] [option] script-file ...\n\
         GNU long options:\n\
         \t--debug\n\t--debugger\n\t--dump-po-strings\n\t--dump-strings\n\t--help\n\
         \t--init-file\n\t--login\n\t--noediting\n\t--noprofile\n\t--norc\n\t--posix\n\
         \t--pretty-print\n\t--rcfile\n\t--restricted\n\t--verbose\n\t--version\n\
         Shell options:\n\
         \t-ilrsD or -c command or -O shopt_option\t\t(invocation only)\n\
         \t-abefhkmnptuvxBCEHPT or -o option\n"
    )
}

/// bash's GNU long options: name and whether it takes an argument.
const LONG_OPTIONS: &[(&str, bool)] = &[
    ("debug", false),
    ("debugger", false),
    ("dump-po-strings", false),
    ("dump-strings", false),
    ("help", false),
    ("init-file", true),
    ("login", false),
    ("noediting", false),
    ("noprofile", false),
    ("norc", false),
    ("posix", false),
    ("pretty-print", false),
    ("rcfile", true),
    ("restricted", false),
    ("verbose", false),
    ("version", false),
];

/// Single-letter `set` flags valid at invocation, with their `-o` names
/// (`i` and `r` have none; they are tracked separately).
const SET_FLAGS: &[(u8, &str)] = &[
    (b'a', "allexport"),
    (b'b', "notify"),
    (b'e', "errexit"),
    (b'f', "noglob"),
    (b'h', "hashall"),
    (b'k', "keyword"),
    (b'm', "monitor"),
    (b'n', "noexec"),
    (b'p', "privileged"),
    (b't', "onecmd"),
    (b'u', "nounset"),
    (b'v', "verbose"),
    (b'x', "xtrace"),
    (b'B', "braceexpand"),
    (b'C', "noclobber"),
    (b'E', "errtrace"),
    (b'H', "histexpand"),
    (b'P', "physical"),
    (b'T', "functrace"),
];

/// Names `set -o` accepts in bash 5.2.
const SET_O_NAMES: &[&str] = &[
    "allexport",
    "braceexpand",
    "emacs",
    "errexit",
    "errtrace",
    "functrace",
    "hashall",
    "histexpand",
    "history",
    "ignoreeof",
    "interactive-comments",
    "keyword",
    "monitor",
    "noclobber",
    "noexec",
    "noglob",
    "nolog",
    "notify",
    "nounset",
    "onecmd",
    "physical",
    "pipefail",
    "posix",
    "privileged",
    "verbose",
    "vi",
    "xtrace",
];

/// Names `shopt` accepts in bash 5.2.
const SHOPT_NAMES: &[&str] = &[
    "autocd",
    "assoc_expand_once",
    "cdable_vars",
    "cdspell",
    "checkhash",
    "checkjobs",
    "checkwinsize",
    "cmdhist",
    "compat31",
    "compat32",
    "compat40",
    "compat41",
    "compat42",
    "compat43",
    "compat44",
    "complete_fullquote",
    "direxpand",
    "dirspell",
    "dotglob",
    "execfail",
    "expand_aliases",
    "extdebug",
    "extglob",
    "extquote",
    "failglob",
    "force_fignore",
    "globasciiranges",
    "globskipdots",
    "globstar",
    "gnu_errfmt",
    "histappend",
    "histreedit",
    "histverify",
    "hostcomplete",
    "huponexit",
    "inherit_errexit",
    "interactive_comments",
    "lastpipe",
    "lithist",
    "localvar_inherit",
    "localvar_unset",
    "login_shell",
    "mailwarn",
    "no_empty_cmd_completion",
    "nocaseglob",
    "nocasematch",
    "noexpand_translation",
    "nullglob",
    "patsub_replacement",
    "progcomp",
    "progcomp_alias",
    "promptvars",
    "restricted_shell",
    "shift_verbose",
    "sourcepath",
    "varredir_close",
    "xpg_echo",
];

/// Is `name` one of the names we dispatch to shim mode, and which?
/// A leading `-` (login convention) is ignored.
pub fn shell_kind_of(argv0: &OsStr) -> Option<ShellKind> {
    let bytes = argv0.as_bytes();
    let base = bytes.rsplit(|b| *b == b'/').next().unwrap_or(bytes);
    let base = base.strip_prefix(b"-").unwrap_or(base);
    match base {
        b"bash" => Some(ShellKind::Bash),
        b"sh" => Some(ShellKind::Sh),
        _ => None,
    }
}

/// Parse a bash argv (without argv[0]) the way bash 5.2 does.
pub fn parse<I>(argv0: &OsStr, args: I) -> Result<Parsed, UsageError>
where
    I: IntoIterator<Item = OsString>,
{
    let args: Vec<OsString> = args.into_iter().collect();
    let shell_name = argv0.to_string_lossy().into_owned();
    let shell = shell_kind_of(argv0).unwrap_or(ShellKind::Bash);
    let mut options = ShellOptions {
        login: argv0.as_bytes().first() == Some(&b'-'),
        ..ShellOptions::default()
    };
    let mut option_words: Vec<OsString> = Vec::new();
    let mut i = 0;

    // GNU long options, only before anything else (bash: parse_long_options).
    // `-login` works like `--login`; `--x` that is not a long option is an
    // error, `-x` that is not one falls through to the short options.
    let mut informational = false;
    while let Some(word) = args.get(i) {
        let bytes = word.as_bytes();
        if bytes.first() != Some(&b'-') {
            break;
        }
        let double = bytes.len() > 2 && bytes[1] == b'-';
        let name = if double { &bytes[2..] } else { &bytes[1..] };
        let Some(&(long, takes_arg)) = LONG_OPTIONS.iter().find(|(n, _)| n.as_bytes() == name)
        else {
            if double {
                return Err(UsageError::InvalidLong {
                    shell: shell_name,
                    word: word.to_string_lossy().into_owned(),
                });
            }
            break;
        };
        option_words.push(word.clone());
        let value = if takes_arg {
            i += 1;
            let Some(value) = args.get(i) else {
                return Err(UsageError::LongNeedsArgument {
                    shell: shell_name,
                    name: long.to_string(),
                });
            };
            option_words.push(value.clone());
            Some(value.clone())
        } else {
            None
        };
        match long {
            "help" | "version" => informational = true,
            "login" => options.login = true,
            "posix" => options.posix_long = true,
            "restricted" => options.restricted = true,
            "dump-strings" | "dump-po-strings" => options.dump_strings = true,
            _ => options.long.push((long.to_string(), value)),
        }
        i += 1;
    }
    if informational {
        return Ok(Parsed::Informational);
    }

    // Single-letter options (bash: parse_shell_options).
    let mut want_command = false;
    let mut list_options = false;
    while let Some(word) = args.get(i) {
        let bytes = word.as_bytes();
        let sign = match bytes.first() {
            Some(b'-') => b'-',
            Some(b'+') => b'+',
            _ => break,
        };
        if sign == b'-' && (bytes.len() == 1 || bytes == b"--") {
            i += 1;
            break;
        }
        let on = sign == b'-';
        let mut next = i + 1;
        for &flag in &bytes[1..] {
            match flag {
                b'c' => want_command = true,
                b'l' => options.login = true,
                b's' => options.read_stdin = true,
                b'D' => options.dump_strings = true,
                b'o' => match args.get(next) {
                    None => list_options = true,
                    Some(name) => {
                        let name_str = name.to_string_lossy();
                        if !SET_O_NAMES.contains(&name_str.as_ref()) {
                            return Err(UsageError::InvalidOptionName {
                                shell: shell_name,
                                name: name_str.into_owned(),
                            });
                        }
                        options.set_options.push((name_str.into_owned(), on));
                        next += 1;
                    }
                },
                b'O' => match args.get(next) {
                    None => list_options = true,
                    Some(name) => {
                        let name_str = name.to_string_lossy();
                        if !SHOPT_NAMES.contains(&name_str.as_ref()) {
                            return Err(UsageError::InvalidShoptName {
                                shell: shell_name,
                                name: name_str.into_owned(),
                            });
                        }
                        options.shopts.push((name_str.into_owned(), on));
                        next += 1;
                    }
                },
                b'i' => options.interactive = on,
                b'r' => {
                    if !on && options.restricted {
                        return Err(UsageError::InvalidShort {
                            shell: shell_name,
                            sign: '+',
                            flag: 'r',
                            errexit: options.set_option("errexit") == Some(true),
                        });
                    }
                    options.restricted |= on;
                }
                other => match SET_FLAGS.iter().find(|(c, _)| *c == other) {
                    Some((_, name)) => options.set_options.push(((*name).to_string(), on)),
                    None => {
                        return Err(UsageError::InvalidShort {
                            shell: shell_name,
                            sign: char::from(sign),
                            flag: char::from(other),
                            errexit: options.set_option("errexit") == Some(true),
                        });
                    }
                },
            }
        }
        option_words.extend(args[i..next].iter().cloned());
        i = next;
    }

    let rest = &args[i.min(args.len())..];
    let (source, dollar0, positional) = if want_command {
        let Some((script, after)) = rest.split_first() else {
            return Err(UsageError::CommandNeedsArgument {
                shell: shell_name,
                errexit: options.set_option("errexit") == Some(true),
            });
        };
        match after.split_first() {
            Some((name, positional)) => (
                Source::Command(script.clone()),
                Some(name.clone()),
                positional.to_vec(),
            ),
            None => (Source::Command(script.clone()), None, Vec::new()),
        }
    } else {
        match rest.split_first() {
            Some((file, positional)) if !options.read_stdin => (
                Source::File(file.clone()),
                Some(file.clone()),
                positional.to_vec(),
            ),
            _ => (Source::Stdin, None, rest.to_vec()),
        }
    };
    if list_options {
        return Ok(Parsed::ListOptions);
    }
    Ok(Parsed::Run(Box::new(Invocation {
        shell,
        argv0: argv0.to_os_string(),
        option_words,
        options,
        source,
        dollar0,
        args: positional,
    })))
}

impl Invocation {
    /// The argv (after argv[0]) that makes the real bash run `script` with
    /// `-c`, the same options, `$0` and positional arguments. When invoked
    /// as `sh`, bash is put in POSIX mode.
    pub fn real_shell_args(&self, script: &OsStr) -> Vec<OsString> {
        let mut out = Vec::with_capacity(self.option_words.len() + self.args.len() + 4);
        if self.shell == ShellKind::Sh && !self.options.posix_long {
            out.push(OsString::from("--posix"));
        }
        out.extend(self.option_words.iter().cloned());
        if !matches!(self.source, Source::Command(_)) {
            out.push(OsString::from("-c"));
        }
        out.push(script.to_os_string());
        match &self.dollar0 {
            Some(name) => out.push(name.clone()),
            None => {
                if !self.args.is_empty() || matches!(self.source, Source::Stdin) {
                    out.push(self.argv0.clone());
                }
            }
        }
        out.extend(self.args.iter().cloned());
        out
    }
}

#[cfg(test)]
mod tests;
