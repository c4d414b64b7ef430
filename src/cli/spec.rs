//! The one definition of the `automode` command line: every subcommand,
//! its arguments and options, as a data table. `--help`, `automode help
//! CMD`, the shell completions and the man page are generated from it;
//! the parser (`args.rs`) is checked against it by a unit test.

use std::fmt::Write as _;

/// Who may run a subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    Anyone,
    /// Refused inside an agent's command.
    User,
    /// Some forms only (saving a model, `setup --write`).
    Partly,
}

/// One option.
#[derive(Debug)]
pub struct Opt {
    pub long: &'static str,
    pub short: Option<char>,
    /// The value's name, when it takes one.
    pub value: Option<&'static str>,
    pub help: &'static str,
}

/// One subcommand.
#[derive(Debug)]
pub struct Sub {
    pub name: &'static str,
    /// Positional arguments as shown in the synopsis.
    pub args: &'static str,
    pub summary: &'static str,
    pub who: Who,
    pub options: &'static [Opt],
    /// Words the first positional argument completes to.
    pub values: &'static [&'static str],
    /// More text for `automode help CMD` and the man page.
    pub more: &'static str,
}

const JSON: Opt = Opt {
    long: "json",
    short: None,
    value: None,
    help: "print JSON instead of text",
};
const SESSION: Opt = Opt {
    long: "session",
    short: None,
    value: Some("ID"),
    help: "one session only (its id as `automode status` shows it)",
};

/// The harnesses `setup` knows.
pub const HARNESS_NAMES: &[&str] = &["claude-code", "codex", "pi", "gemini", "opencode"];

/// The shells `completions` writes for.
pub const SHELLS: &[&str] = &["bash", "zsh", "fish"];

/// Every subcommand, in the order help lists them.
pub const COMMANDS: &[Sub] = &[
    Sub {
        name: "check",
        args: "SCRIPT [NAME [ARGS…]]",
        summary: "decide on SCRIPT as the shim would and print the verdict, the trace and the analysis; never runs anything",
        who: Who::Anyone,
        options: &[
            JSON,
            Opt {
                long: "classify",
                short: None,
                value: None,
                help: "also ask the classifier when the local tiers cannot decide",
            },
            Opt {
                long: "exit-code",
                short: None,
                value: None,
                help: "exit 0 for allow, 1 for deny or ask, 3 for classify (review)",
            },
            Opt {
                long: "cwd",
                short: None,
                value: Some("DIR"),
                help: "decide as if run in DIR (it must exist)",
            },
        ],
        values: &[],
        more: "NAME and ARGS are $0 and the positional parameters, as after `bash -c SCRIPT`.",
    },
    Sub {
        name: "exec",
        args: "[--] PROGRAM [ARGS…]",
        summary: "run one program directly (no shell, no policy) under supervision and the sandbox",
        who: Who::Anyone,
        options: &[
            Opt {
                long: "timeout",
                short: None,
                value: Some("SECONDS"),
                help: "time limit (default 60)",
            },
            Opt {
                long: "output-limit",
                short: None,
                value: Some("BYTES"),
                help: "output limit (default 64 MiB)",
            },
        ],
        values: &[],
        more: "",
    },
    Sub {
        name: "status",
        args: "",
        summary: "on or off and why, the sandbox, the classifier, pending approvals, the sessions of the last 24 hours with counters",
        who: Who::Anyone,
        options: &[
            JSON,
            Opt {
                long: "all",
                short: None,
                value: None,
                help: "every session, not only the recent ones",
            },
        ],
        values: &[],
        more: "",
    },
    Sub {
        name: "config",
        args: "",
        summary: "the effective configuration, each value with its source, the files read and diagnostics",
        who: Who::Anyone,
        options: &[JSON],
        values: &[],
        more: "",
    },
    Sub {
        name: "defaults",
        args: "",
        summary: "the built-in catalogue, lists, tables and classifier rules",
        who: Who::Anyone,
        options: &[JSON],
        values: &[],
        more: "",
    },
    Sub {
        name: "denials",
        args: "",
        summary: "recent blocks: denials, asks, classifier refusals and failures",
        who: Who::Anyone,
        options: &[JSON, SESSION],
        values: &[],
        more: "",
    },
    Sub {
        name: "log",
        args: "",
        summary: "the last invocations of the audit log, each decision with its outcome, in local time",
        who: Who::Anyone,
        options: &[
            Opt {
                long: "lines",
                short: Some('n'),
                value: Some("N"),
                help: "how many (default 20)",
            },
            JSON,
        ],
        values: &[],
        more: "",
    },
    Sub {
        name: "guidance",
        args: "",
        summary: "text for AGENTS.md, CLAUDE.md or a system prompt: how to read blocks and pass an approval request to the user",
        who: Who::Anyone,
        options: &[],
        values: &[],
        more: "",
    },
    Sub {
        name: "model",
        args: "[PROVIDER/MODEL | none]",
        summary: "show the classifier model in force and where it comes from, or save one (saving: the user only)",
        who: Who::Partly,
        options: &[JSON],
        values: &["none"],
        more: "`none` turns the classifier off on purpose: reviews then wait for `automode approve`.",
    },
    Sub {
        name: "doctor",
        args: "",
        summary: "will automode work here: binary, shims, real shell, each harness's setting, sandbox, classifier, configuration, state directory",
        who: Who::Anyone,
        options: &[
            Opt {
                long: "online",
                short: None,
                value: None,
                help: "also make one tiny classifier request and time it",
            },
            JSON,
        ],
        values: &[],
        more: "Exits 1 when a check fails.",
    },
    Sub {
        name: "setup",
        args: "HARNESS",
        summary: "what makes HARNESS run its commands through the shim; --write merges it into the harness's settings (the user only)",
        who: Who::Partly,
        options: &[
            Opt {
                long: "print",
                short: None,
                value: None,
                help: "print only (the default)",
            },
            Opt {
                long: "write",
                short: None,
                value: None,
                help: "merge the setting into the harness's file, keeping a backup (FILE.before-automode)",
            },
            Opt {
                long: "undo",
                short: None,
                value: None,
                help: "remove what --write added (only those keys; later edits stay)",
            },
            Opt {
                long: "hook",
                short: None,
                value: None,
                help: "claude-code: the PreToolUse hook instead of the shell",
            },
            Opt {
                long: "shim",
                short: None,
                value: Some("PATH"),
                help: "the shim to name instead of the one installed beside this binary",
            },
        ],
        values: HARNESS_NAMES,
        more: "",
    },
    Sub {
        name: "hook",
        args: "claude-code",
        summary: "Claude Code's PreToolUse / UserPromptSubmit hook (JSON on stdin)",
        who: Who::Anyone,
        options: &[],
        values: &["claude-code"],
        more: "",
    },
    Sub {
        name: "approve",
        args: "[CODE]",
        summary: "list the asks waiting for you, or let the one with CODE run once (the user only, in their own terminal)",
        who: Who::User,
        options: &[
            Opt {
                long: "deny",
                short: None,
                value: None,
                help: "refuse it instead",
            },
            JSON,
        ],
        values: &[],
        more: "An approval is used by the agent's next try of exactly that command, in the same directory and session, under the same configuration.",
    },
    Sub {
        name: "on",
        args: "",
        summary: "turn auto mode on (globally, or for one session)",
        who: Who::User,
        options: &[SESSION],
        values: &[],
        more: "",
    },
    Sub {
        name: "off",
        args: "",
        summary: "turn auto mode off: commands run without policy, still supervised (refused under a managed policy with allowOff false)",
        who: Who::User,
        options: &[SESSION],
        values: &[],
        more: "",
    },
    Sub {
        name: "allow",
        args: "[RULE]",
        summary: "add a permissions.allow rule to your global configuration, or the one suggested for the last blocked command (the user only)",
        who: Who::User,
        options: &[
            Opt {
                long: "last",
                short: None,
                value: None,
                help: "the rules suggested for the last command that waited for review",
            },
            Opt {
                long: "remove",
                short: None,
                value: None,
                help: "remove RULE instead",
            },
        ],
        values: &[],
        more: "Shows the change to the file; a rule automode does not understand is refused. Example: automode allow 'bash(npm run build*)'.",
    },
    Sub {
        name: "undo",
        args: "",
        summary: "list this project's checkpoints, or put the project back as it was before a command (the user only, in their own terminal)",
        who: Who::User,
        options: &[
            Opt {
                long: "to",
                short: None,
                value: Some("N"),
                help: "restore the project to its state before command N (a diff first, then y/N)",
            },
            Opt {
                long: "file",
                short: None,
                value: Some("PATH"),
                help: "restore this file only (as it was before the last command that changed it, or before N with --to)",
            },
            Opt {
                long: "yes",
                short: Some('y'),
                value: None,
                help: "restore without asking (needed where there is no terminal)",
            },
            Opt {
                long: "prune",
                short: None,
                value: None,
                help: "remove every checkpoint of this project",
            },
            JSON,
        ],
        values: &[],
        more: "A checkpoint is taken before every command that may change the project (not read-only ones). An undo is itself checkpointed: `automode undo --to N` with the number it prints undoes it. Directories no checkpoint keeps (node_modules, target, .venv, … — `automode defaults`) and files over checkpoint.maxFileBytes are never touched.",
    },
    Sub {
        name: "reset",
        args: "",
        summary: "remove the session files (and, without --session, the global switch)",
        who: Who::User,
        options: &[SESSION],
        values: &[],
        more: "",
    },
    Sub {
        name: "trust",
        args: "[DIR]",
        summary: "let the project's .automode/local.json be read",
        who: Who::User,
        options: &[],
        values: &[],
        more: "",
    },
    Sub {
        name: "untrust",
        args: "[DIR]",
        summary: "stop reading the project's .automode/local.json",
        who: Who::User,
        options: &[],
        values: &[],
        more: "",
    },
    Sub {
        name: "completions",
        args: "bash|zsh|fish",
        summary: "print a completion script for the shell",
        who: Who::Anyone,
        options: &[],
        values: SHELLS,
        more: "install/install.sh installs all three.",
    },
    Sub {
        name: "man",
        args: "",
        summary: "print the man page (roff)",
        who: Who::Anyone,
        options: &[],
        values: &[],
        more: "",
    },
    Sub {
        name: "help",
        args: "[COMMAND]",
        summary: "this overview, or one command's help",
        who: Who::Anyone,
        options: &[],
        values: &[],
        more: "",
    },
];

/// The subcommand called `name`.
pub fn find(name: &str) -> Option<&'static Sub> {
    COMMANDS.iter().find(|s| s.name == name)
}

fn synopsis(s: &Sub) -> String {
    let mut out = format!("automode {}", s.name);
    for o in s.options {
        let flag = match o.short {
            Some(c) => format!("-{c}|--{}", o.long),
            None => format!("--{}", o.long),
        };
        match o.value {
            Some(v) => {
                let _ = write!(out, " [{flag} {v}]");
            }
            None => {
                let _ = write!(out, " [{flag}]");
            }
        }
    }
    if !s.args.is_empty() {
        let _ = write!(out, " {}", s.args);
    }
    out
}

/// `automode --help`.
pub fn overview() -> String {
    let mut out = String::from(
        "automode — decides whether an AI coding agent's shell commands may run, and\nsupervises the ones it allows.\n\nInstalled as `bash` and `sh` in a shims directory, it receives the agent's\n`bash -c '…'` calls. Invoked as `automode`:\n\n",
    );
    for (title, who) in [
        ("Commands:", [Who::Anyone, Who::Partly]),
        (
            "For the user only (refused inside an agent's command):",
            [Who::User, Who::User],
        ),
    ] {
        let _ = writeln!(out, "{title}");
        for s in COMMANDS.iter().filter(|s| who.contains(&s.who)) {
            let head = if s.args.is_empty() {
                s.name.to_string()
            } else {
                format!("{} {}", s.name, s.args)
            };
            let _ = writeln!(out, "  {head:<28} {}", wrap(s.summary, 31, 79));
        }
        out.push('\n');
    }
    out.push_str(
        "`automode help COMMAND` or `automode COMMAND --help` shows a command's options.\n  automode --version | --help\n\nEnvironment: AUTOMODE_TIMEOUT (seconds), AUTOMODE_OUTPUT_LIMIT (bytes),\nAUTOMODE_SESSION, AUTOMODE_SETTINGS_JSON, AUTOMODE_TRANSCRIPT, NO_COLOR.\n",
    );
    out
}

/// `automode help CMD`.
pub fn command_help(s: &Sub) -> String {
    let mut out = format!("usage: {}\n\n{}\n", synopsis(s), wrap(s.summary, 0, 76));
    if s.who == Who::User {
        out.push_str("\nThe user only: refused inside an agent's command.\n");
    }
    if !s.more.is_empty() {
        let _ = writeln!(out, "\n{}", wrap(s.more, 0, 76));
    }
    if !s.options.is_empty() {
        out.push_str("\noptions:\n");
        for o in s.options {
            let flag = match (o.short, o.value) {
                (Some(c), Some(v)) => format!("-{c}, --{} {v}", o.long),
                (None, Some(v)) => format!("--{} {v}", o.long),
                (Some(c), None) => format!("-{c}, --{}", o.long),
                (None, None) => format!("--{}", o.long),
            };
            let _ = writeln!(out, "  {flag:<24} {}", wrap(o.help, 27, 79));
        }
        out.push_str("  -h, --help               this help\n");
    }
    out
}

/// Wrap `text` to `width` columns, continuation lines indented by
/// `indent`.
fn wrap(text: &str, indent: usize, width: usize) -> String {
    let mut out = String::new();
    let mut col = indent;
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 && col + 1 + word.chars().count() > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            col = indent;
        } else if i > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += word.chars().count();
    }
    out
}

/// A completion script for `shell`.
pub fn completions(shell: &str) -> Option<String> {
    let names: Vec<&str> = COMMANDS.iter().map(|s| s.name).collect();
    // What a command's arguments complete to: its options, its values,
    // and for `help` the commands.
    let words = |s: &Sub| -> String {
        let mut w: Vec<String> = s.options.iter().map(|o| format!("--{}", o.long)).collect();
        w.push("--help".into());
        w.extend(s.values.iter().map(|v| (*v).to_string()));
        if s.name == "help" {
            w.extend(names.iter().map(|n| (*n).to_string()));
        }
        w.join(" ")
    };
    match shell {
        "bash" => {
            let mut out = String::from(
                "# bash completion for automode (generated by `automode completions bash`)\n_automode() {\n    local cur=${COMP_WORDS[COMP_CWORD]} sub=${COMP_WORDS[1]}\n    if [ \"$COMP_CWORD\" -eq 1 ]; then\n",
            );
            let _ = writeln!(
                out,
                "        COMPREPLY=($(compgen -W '{} --help --version' -- \"$cur\"))\n        return\n    fi\n    case $sub in",
                names.join(" ")
            );
            for s in COMMANDS {
                let _ = writeln!(
                    out,
                    "    {}) COMPREPLY=($(compgen -W '{}' -- \"$cur\")) ;;",
                    s.name,
                    words(s)
                );
            }
            out.push_str("    esac\n}\ncomplete -o default -F _automode automode\n");
            Some(out)
        }
        "zsh" => {
            let mut out = String::from(
                "#compdef automode\n# zsh completion for automode (generated by `automode completions zsh`)\n_automode() {\n    local -a subs\n    subs=(\n",
            );
            for s in COMMANDS {
                let _ = writeln!(
                    out,
                    "        '{}:{}'",
                    s.name,
                    s.summary.replace('\'', "'\\''").replace(':', "\\:")
                );
            }
            out.push_str(
                "    )\n    if (( CURRENT == 2 )); then\n        _describe 'automode command' subs\n        return\n    fi\n    case ${words[2]} in\n",
            );
            for s in COMMANDS {
                let _ = writeln!(out, "        {}) compadd -- {} ;;", s.name, words(s));
            }
            out.push_str("    esac\n}\ncompdef _automode automode\n");
            Some(out)
        }
        "fish" => {
            let mut out = String::from(
                "# fish completion for automode (generated by `automode completions fish`)\ncomplete -c automode -f\n",
            );
            for s in COMMANDS {
                let _ = writeln!(
                    out,
                    "complete -c automode -n __fish_use_subcommand -a {} -d '{}'",
                    s.name,
                    s.summary.replace('\'', "\\'")
                );
                for o in s.options {
                    let short = o.short.map(|c| format!(" -s {c}")).unwrap_or_default();
                    let value = if o.value.is_some() { " -r" } else { "" };
                    let _ = writeln!(
                        out,
                        "complete -c automode -n '__fish_seen_subcommand_from {}' -l {}{short}{value} -d '{}'",
                        s.name,
                        o.long,
                        o.help.replace('\'', "\\'")
                    );
                }
                if !s.values.is_empty() {
                    let _ = writeln!(
                        out,
                        "complete -c automode -n '__fish_seen_subcommand_from {}' -a '{}'",
                        s.name,
                        s.values.join(" ")
                    );
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// Text in roff, escaped.
fn roff(text: &str) -> String {
    text.replace('\\', "\\e")
        .replace('-', "\\-")
        .replace('\'', "\\(aq")
}

/// The man page, automode(1).
pub fn man_page() -> String {
    let mut out = format!(
        ".TH AUTOMODE 1 \"\" \"automode {}\" \"User Commands\"\n.SH NAME\nautomode \\- decides whether an AI coding agent\\(aqs shell commands may run, and supervises the ones it allows\n.SH SYNOPSIS\n.B automode\n.I command\n[\\fIoptions\\fR]\n.br\n.B bash\n\\-c \\fISCRIPT\\fR (the shim)\n.SH DESCRIPTION\nInstalled as \\fBbash\\fR and \\fBsh\\fR in a shims directory that an agent\\(aqs harness uses as its shell, automode parses every command the agent runs, decides it through ordered local tiers and a fail\\-closed classifier, and runs what it allows in a kernel sandbox (Landlock) under supervision: its own session, stdin closed, a time limit, an output limit and faithful exit codes. A command it does not allow does not run (exit 121), and the agent is told why.\n.SH COMMANDS\n",
        env!("CARGO_PKG_VERSION")
    );
    for s in COMMANDS {
        let _ = writeln!(out, ".TP\n.B {}\n{}", roff(&synopsis(s)), roff(s.summary));
        if s.who == Who::User {
            out.push_str(" The user only: refused inside an agent\\(aqs command.\n");
        }
        if !s.more.is_empty() {
            let _ = writeln!(out, ".br\n{}", roff(s.more));
        }
        for o in s.options {
            let value = o.value.map(|v| format!(" \\fI{v}\\fR")).unwrap_or_default();
            let _ = writeln!(
                out,
                ".RS\n.TP\n\\fB\\-\\-{}\\fR{value}\n{}\n.RE",
                roff(o.long),
                roff(o.help)
            );
        }
    }
    out.push_str(
        ".SH EXIT STATUS\n.TP\n.B 121\nblocked: the command did not run (or a user\\-only command was refused)\n.TP\n.B 124\nthe command timed out\n.TP\n.B 120\nits output was cut at the limit\n.TP\n.B 2\nan invalid automode command line\n.PP\nOtherwise the command\\(aqs own exit status.\n.SH ENVIRONMENT\n.TP\n.B AUTOMODE_TIMEOUT\nseconds (at most 7200)\n.TP\n.B AUTOMODE_OUTPUT_LIMIT\nbytes\n.TP\n.B AUTOMODE_SETTINGS_JSON\na configuration layer from the harness\n.TP\n.B AUTOMODE_SESSION\nthe session id\n.TP\n.B NO_COLOR\nno colour\n.SH FILES\n.TP\n.I ~/.config/automode/config.json\nthe user\\(aqs configuration\n.TP\n.I /etc/automode/managed.json\nthe administrator\\(aqs managed policy\n.TP\n.I ~/.local/state/automode/\nsessions, approvals and the audit log\n.SH SEE ALSO\n.BR bash (1),\nthe README and docs/ of the automode repository.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// Every documented option of every command is one the parser takes.
    #[test]
    fn the_parser_takes_every_option_the_table_documents() {
        for s in COMMANDS {
            let first = match s.name {
                "setup" | "hook" => vec!["claude-code"],
                "completions" => vec!["bash"],
                _ => vec![],
            };
            for o in s.options {
                let mut argv: Vec<OsString> = vec![s.name.into()];
                argv.extend(first.iter().map(OsString::from));
                // `allow --remove` names the rule it removes.
                if s.name == "allow" && o.long == "remove" {
                    argv.push("bash(true)".into());
                }
                argv.push(format!("--{}", o.long).into());
                if let Some(v) = o.value {
                    argv.push(if v == "DIR" { "/".into() } else { "1".into() });
                }
                if s.name == "check" {
                    argv.push("true".into());
                }
                if s.name == "exec" {
                    argv.push("true".into());
                }
                if s.name == "approve" && o.long == "deny" {
                    argv.push("ABCD-EF".into());
                }
                let parsed = super::super::parse(argv.clone());
                assert!(parsed.is_ok(), "{argv:?}: {parsed:?}");
            }
            let help = super::super::parse(vec![s.name.into(), "--help".into()]);
            assert!(
                matches!(help, Ok(super::super::Command::HelpFor(n)) if n == s.name),
                "{}",
                s.name
            );
        }
    }

    #[test]
    fn every_command_has_help_and_the_completions_name_them_all() {
        for s in COMMANDS {
            assert!(command_help(s).starts_with(&format!("usage: automode {}", s.name)));
            for sh in SHELLS {
                assert!(completions(sh).is_some_and(|c| c.contains(s.name)), "{sh}");
            }
            assert!(man_page().contains(&format!(".B automode {}", roff(s.name))));
            assert!(overview().contains(&format!("  {}", s.name)));
        }
        assert!(completions("tcsh").is_none());
    }
}
