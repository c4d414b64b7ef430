//! The `automode` command line (when not invoked as `bash`/`sh`): argv →
//! `Command`. Pure: reads nothing but the arguments given.

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
        cwd: Option<OsString>,
        script: OsString,
        dollar0: Option<OsString>,
        args: Vec<OsString>,
    },
    Help,
    Version,
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

/// The text of `automode --help`.
pub const HELP: &str = "\
automode — decides whether an AI coding agent's shell commands may run, and
supervises the ones it allows.

Installed as `bash` and `sh` in a shims directory, it receives the agent's
`bash -c '…'` calls. Invoked as `automode`:

  automode exec [--timeout S] [--output-limit BYTES] [--] PROGRAM [ARGS…]
      Run one program directly (no shell) under supervision: own session,
      stdin /dev/null, time limit (default 60 s, at most 7200 s), output
      limit (default 64 MiB over stdout + stderr).
  automode check [--json] [--cwd DIR] SCRIPT [NAME [ARGS…]]
      Decide on SCRIPT as the shim would, and print the decision and the
      analysis (commands, file effects, findings). Never runs anything.
  automode --version
  automode --help

Environment: AUTOMODE_TIMEOUT (seconds), AUTOMODE_OUTPUT_LIMIT (bytes).
";

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
        Value(sub) if sub == "help" => Ok(Command::Help),
        Value(sub) if sub == "exec" => parse_exec(&mut parser),
        Value(sub) if sub == "check" => parse_check(&mut parser),
        Value(sub) => Err(CliError(format!(
            "unknown command {:?}; see `automode --help`",
            sub.to_string_lossy()
        ))),
        other => Err(other.unexpected().into()),
    }
}

fn parse_exec(parser: &mut lexopt::Parser) -> Result<Command, CliError> {
    use lexopt::prelude::*;
    let mut timeout = None;
    let mut output_limit = None;
    let mut argv = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
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
    let mut cwd = None;
    let mut words = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("json") => json = true,
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
        assert!(parse(args(&["frobnicate"])).is_err());
        assert!(parse(args(&["exec", "--bogus", "ls"])).is_err());
    }
}
