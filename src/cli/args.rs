//! The `automode` command line's grammar: argv → `Command`. Pure: reads
//! nothing but the arguments given.

use std::ffi::OsString;
use std::fmt;

/// A parsed `automode …` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `automode exec [--timeout S] [--output-limit BYTES] [--] ARGV…`
    Exec {
        timeout: Option<String>,
        output_limit: Option<String>,
        argv: Vec<OsString>,
    },
    /// `automode check [--json] [--cwd DIR] SCRIPT [NAME [ARGS…]]`
    Check {
        json: bool,
        /// Exit 0 allow, 1 deny or ask, 3 classify.
        exit_code: bool,
        /// Also ask the classifier (never runs the script).
        classify: bool,
        cwd: Option<OsString>,
        script: OsString,
        dollar0: Option<OsString>,
        args: Vec<OsString>,
    },
    /// `automode status [--json] [--all]`: on/off, the sessions active in
    /// the last 24 hours (`--all`: every one), counters, last decision.
    Status {
        json: bool,
        all: bool,
    },
    /// `automode config [--json]`: effective values with sources.
    Config {
        json: bool,
    },
    /// `automode doctor [--online] [--json]`: will automode work here?
    Doctor {
        online: bool,
        json: bool,
    },
    /// `automode defaults [--json]`: the built-in lists and tables.
    Defaults {
        json: bool,
    },
    /// `automode denials [--json] [--session ID]`.
    Denials {
        json: bool,
        session: Option<String>,
    },
    /// `automode log [-n N] [--json]`: the audit log's last lines.
    Log {
        lines: usize,
        json: bool,
    },
    /// `automode guidance`: text for AGENTS.md and system prompts.
    Guidance,
    /// `automode on|off [--session ID]` (user only).
    Switch {
        on: bool,
        session: Option<String>,
    },
    /// `automode approve [--json]` lists pending asks; `automode approve
    /// [--deny] CODE` answers one (user only).
    Approve {
        code: Option<String>,
        deny: bool,
        json: bool,
    },
    /// `automode undo [--to N] [--file PATH] [--yes] [--prune] [--json]`
    /// (user only).
    Undo(UndoArgs),
    /// `automode allow RULE`, `automode allow --last`, `automode allow
    /// --remove RULE` (user only).
    Allow {
        rule: Option<String>,
        last: bool,
        remove: bool,
    },
    /// `automode reset [--session ID]` (user only).
    Reset {
        session: Option<String>,
    },
    /// `automode trust|untrust [DIR]` (user only).
    Trust {
        trusted: bool,
        dir: Option<OsString>,
    },
    /// `automode model [provider/model-id]`: show, or save (user only).
    Model {
        set: Option<String>,
        json: bool,
    },
    /// `automode hook claude-code`: Claude Code's PreToolUse /
    /// UserPromptSubmit hook (JSON on stdin).
    Hook {
        harness: String,
    },
    /// `automode setup HARNESS [--write]`: how to make a harness call the
    /// shim (user only with `--write`).
    Setup {
        harness: String,
        write: bool,
        /// Remove what `--write` added.
        undo: bool,
        hook: bool,
        shim: Option<OsString>,
    },
    /// `automode completions SHELL`.
    Completions {
        shell: String,
    },
    /// `automode man`.
    Man,
    Help,
    /// `automode help CMD`, `automode CMD --help`.
    HelpFor(String),
    Version,
}

/// What `automode undo` is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoArgs {
    /// Back to the state before this checkpoint's command.
    pub to: Option<u64>,
    /// One file only.
    pub file: Option<OsString>,
    /// Without asking.
    pub yes: bool,
    /// Remove every checkpoint.
    pub prune: bool,
    pub json: bool,
}

impl Command {
    /// Commands that change automode's state: only the user may run
    /// them, never an agent's command.
    pub fn changes_state(&self) -> bool {
        matches!(
            self,
            Command::Switch { .. }
                | Command::Approve { .. }
                | Command::Undo(_)
                | Command::Allow { .. }
                | Command::Reset { .. }
                | Command::Trust { .. }
                | Command::Model { set: Some(_), .. }
                | Command::Setup { write: true, .. }
                | Command::Setup { undo: true, .. }
        )
    }
}

/// A bad `automode` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<lexopt::Error> for CliError {
    fn from(e: lexopt::Error) -> Self {
        CliError(e.to_string())
    }
}

/// Parse `automode`'s arguments (argv[0] excluded).
pub fn parse(args: Vec<OsString>) -> Result<Command, CliError> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let Some(first) = parser.next()? else {
        return Ok(Command::Help);
    };
    match first {
        Long("help") | Short('h') => Ok(Command::Help),
        Long("version") | Short('V') => Ok(Command::Version),
        Value(sub) if sub == "help" => match parser.next()? {
            None => Ok(Command::Help),
            Some(Long("help") | Short('h')) => Ok(Command::HelpFor("help".into())),
            Some(Value(name)) => {
                let name = name.to_string_lossy();
                known(&name)?;
                Ok(Command::HelpFor(name.into_owned()))
            }
            Some(other) => Err(other.unexpected().into()),
        },
        Value(sub) => {
            let sub = sub.to_string_lossy().into_owned();
            known(&sub)?;
            match sub.as_str() {
                "exec" => parse_exec(&mut parser),
                "check" => parse_check(&mut parser),
                _ => parse_other(&sub, &mut parser),
            }
        }
        Long(flag) => Err(CliError(format!(
            "unknown option '--{flag}'; `automode --help` lists the commands"
        ))),
        other => Err(other.unexpected().into()),
    }
}

/// A subcommand the table knows, or a clear error.
fn known(sub: &str) -> Result<(), CliError> {
    match super::spec::find(sub) {
        Some(_) => Ok(()),
        None => Err(CliError(format!(
            "unknown command '{sub}'; `automode --help` lists the commands"
        ))),
    }
}

/// The subcommands that take only flags (and `trust DIR`).
fn parse_other(sub: &str, parser: &mut lexopt::Parser) -> Result<Command, CliError> {
    use lexopt::prelude::*;
    let mut json = false;
    let mut session = None;
    let mut lines = 20usize;
    let mut dir = None;
    let mut write = false;
    let mut hook = false;
    let mut shim = None;
    let mut all = false;
    let mut deny = false;
    let mut online = false;
    let mut undo = false;
    let mut to = None;
    let mut file = None;
    let mut yes = false;
    let mut prune = false;
    let mut last = false;
    let mut remove = false;
    while let Some(arg) = parser.next()? {
        match arg {
            Long("help") | Short('h') => return Ok(Command::HelpFor(sub.to_string())),
            Long("json")
                if matches!(
                    sub,
                    "status"
                        | "config"
                        | "denials"
                        | "log"
                        | "approve"
                        | "doctor"
                        | "defaults"
                        | "model"
                        | "undo"
                ) =>
            {
                json = true
            }
            Long("deny") if sub == "approve" => deny = true,
            Long("to") if sub == "undo" => {
                let v = string_value(parser, "--to")?;
                to = Some(v.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                    CliError(format!(
                        "--to needs a checkpoint number as `automode undo` lists them, not {v:?}"
                    ))
                })?);
            }
            Long("file") if sub == "undo" => file = Some(parser.value()?),
            Long("yes") | Short('y') if sub == "undo" => yes = true,
            Long("prune") if sub == "undo" => prune = true,
            Long("last") if sub == "allow" => last = true,
            Long("remove") if sub == "allow" => remove = true,
            Long("online") if sub == "doctor" => online = true,
            Long("session") if matches!(sub, "on" | "off" | "reset" | "denials") => {
                session = Some(string_value(parser, "--session")?);
            }
            Short('n') | Long("lines") if sub == "log" => {
                let v = string_value(parser, "-n")?;
                lines = v
                    .parse()
                    .map_err(|_| CliError(format!("-n needs a number of lines, not {v:?}")))?;
            }
            Value(v)
                if matches!(
                    sub,
                    "trust"
                        | "untrust"
                        | "model"
                        | "hook"
                        | "setup"
                        | "approve"
                        | "completions"
                        | "allow"
                ) && dir.is_none() =>
            {
                dir = Some(v)
            }
            Long("all") if sub == "status" => all = true,
            Long("write") if sub == "setup" => write = true,
            Long("undo") if sub == "setup" => undo = true,
            Long("print") if sub == "setup" => write = false,
            Long("hook") if sub == "setup" => hook = true,
            Long("shim") if sub == "setup" => shim = Some(parser.value()?),
            other => return Err(other.unexpected().into()),
        }
    }
    Ok(match sub {
        "status" => Command::Status { json, all },
        "config" => Command::Config { json },
        "defaults" => Command::Defaults { json },
        "man" => Command::Man,
        "completions" => {
            let shell = dir
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !super::spec::SHELLS.contains(&shell.as_str()) {
                return Err(CliError(format!(
                    "automode completions needs a shell: {}",
                    super::spec::SHELLS.join(", ")
                )));
            }
            Command::Completions { shell }
        }
        "doctor" => Command::Doctor { online, json },
        "denials" => Command::Denials { json, session },
        "log" => Command::Log { lines, json },
        "guidance" => Command::Guidance,
        "on" | "off" => Command::Switch {
            on: sub == "on",
            session,
        },
        "reset" => Command::Reset { session },
        "allow" => {
            let rule = dir.map(|d| d.to_string_lossy().into_owned());
            match (&rule, last, remove) {
                (None, false, _) => {
                    return Err(CliError(
                        "automode allow needs a rule (for example 'bash(npm run build*)') or --last"
                            .into(),
                    ));
                }
                (Some(_), true, _) => {
                    return Err(CliError(
                        "automode allow takes a rule or --last, not both".into(),
                    ));
                }
                (None, true, true) => {
                    return Err(CliError(
                        "automode allow --remove needs the rule to remove".into(),
                    ));
                }
                _ => {}
            }
            Command::Allow { rule, last, remove }
        }
        "undo" => {
            if prune && (to.is_some() || file.is_some()) {
                return Err(CliError(
                    "automode undo --prune removes every checkpoint: it takes no --to or --file"
                        .into(),
                ));
            }
            Command::Undo(UndoArgs {
                to,
                file,
                yes,
                prune,
                json,
            })
        }
        "approve" => {
            let code = dir.map(|d| d.to_string_lossy().into_owned());
            if deny && code.is_none() {
                return Err(CliError(
                    "automode approve --deny needs the code of the ask to refuse".into(),
                ));
            }
            Command::Approve { code, deny, json }
        }
        "trust" | "untrust" => Command::Trust {
            trusted: sub == "trust",
            dir,
        },
        "model" => Command::Model {
            set: dir.map(|d| d.to_string_lossy().into_owned()),
            json,
        },
        "hook" | "setup" => {
            let Some(h) = dir.map(|d| d.to_string_lossy().into_owned()) else {
                return Err(CliError(format!(
                    "automode {sub} needs a harness: claude-code, codex, pi, gemini or opencode"
                )));
            };
            if sub == "hook" {
                Command::Hook { harness: h }
            } else {
                if undo && (write || hook) {
                    return Err(CliError(
                        "automode setup --undo takes no --write or --hook: it removes what --write added".into(),
                    ));
                }
                Command::Setup {
                    harness: h,
                    write,
                    undo,
                    hook,
                    shim,
                }
            }
        }
        _ => {
            return Err(CliError(format!(
                "unknown command {sub:?}; see `automode --help`"
            )));
        }
    })
}

fn parse_exec(parser: &mut lexopt::Parser) -> Result<Command, CliError> {
    use lexopt::prelude::*;
    let mut timeout = None;
    let mut output_limit = None;
    let mut argv = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("help") | Short('h') => return Ok(Command::HelpFor("exec".into())),
            Long("timeout") => timeout = Some(string_value(parser, "--timeout")?),
            Long("output-limit") => output_limit = Some(string_value(parser, "--output-limit")?),
            Value(program) => {
                argv.push(program);
                argv.extend(parser.raw_args()?);
                break;
            }
            other => return Err(other.unexpected().into()),
        }
    }
    if argv.is_empty() {
        return Err(CliError(
            "automode exec needs a program to run: automode exec [--timeout S] [--output-limit BYTES] -- PROGRAM [ARGS…]".into(),
        ));
    }
    Ok(Command::Exec {
        timeout,
        output_limit,
        argv,
    })
}

fn parse_check(parser: &mut lexopt::Parser) -> Result<Command, CliError> {
    use lexopt::prelude::*;
    let mut json = false;
    let mut classify = false;
    let mut exit_code = false;
    let mut cwd = None;
    let mut words = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("help") | Short('h') => return Ok(Command::HelpFor("check".into())),
            Long("json") => json = true,
            Long("exit-code") => exit_code = true,
            Long("classify") => classify = true,
            Long("cwd") => cwd = Some(parser.value()?),
            Value(v) => {
                words.push(v);
                words.extend(parser.raw_args()?);
                break;
            }
            other => return Err(other.unexpected().into()),
        }
    }
    let mut words = words.into_iter();
    let Some(script) = words.next() else {
        return Err(CliError(
            "automode check needs a script: automode check [--json] [--cwd DIR] SCRIPT".into(),
        ));
    };
    Ok(Command::Check {
        json,
        exit_code,
        classify,
        cwd,
        script,
        dollar0: words.next(),
        args: words.collect(),
    })
}

fn string_value(parser: &mut lexopt::Parser, flag: &str) -> Result<String, CliError> {
    parser
        .value()?
        .into_string()
        .map_err(|_| CliError(format!("{flag} needs a value in UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_exec_with_options_and_argv() {
        assert_eq!(
            parse(args(&["exec", "--timeout", "5", "--", "ls", "-la"])),
            Ok(Command::Exec {
                timeout: Some("5".into()),
                output_limit: None,
                argv: args(&["ls", "-la"]),
            })
        );
        assert_eq!(
            parse(args(&[
                "exec",
                "--output-limit=10",
                "echo",
                "--timeout",
                "x"
            ])),
            Ok(Command::Exec {
                timeout: None,
                output_limit: Some("10".into()),
                argv: args(&["echo", "--timeout", "x"]),
            })
        );
    }

    #[test]
    fn rejects_exec_without_program_or_unknown_commands() {
        assert!(parse(args(&["exec"])).is_err());
        assert!(parse(args(&["exec", "--timeout"])).is_err());
        assert_eq!(
            parse(args(&["frobnicate", "x"])),
            Err(CliError(
                "unknown command 'frobnicate'; `automode --help` lists the commands".into()
            ))
        );
        assert_eq!(
            parse(args(&["help", "check"])),
            Ok(Command::HelpFor("check".into()))
        );
        assert!(parse(args(&["help", "frobnicate"])).is_err());
        assert!(parse(args(&["completions", "tcsh"])).is_err());
        assert!(parse(args(&["exec", "--bogus", "ls"])).is_err());
    }
}
