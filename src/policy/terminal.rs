//! Programs that wait for terminal input when started without a script:
//! a REPL, a shell, an editor, a remote login. When the shim's stdin is a
//! terminal (Codex `tty:true`, a PTY), such a program would run with
//! stdin closed, and what is typed into the terminal later (Codex
//! `write_stdin`) never passes through automode: refused with a message
//! saying why, unless the user sets `autoMode.allowTerminalInput`.

use crate::shell::analysis::{Analysis, CommandInfo, Stdin};

/// When a program reads its input from the terminal.
#[derive(Debug, Clone, Copy)]
enum When {
    /// Unless a script is given: an operand, or one of these options
    /// (`python3 -c`, `psql -f`).
    NoScript(&'static [&'static str]),
    /// When it has at most `max` operands (`ssh host`, `sqlite3 db`,
    /// `redis-cli`); the `valued` options take a value.
    FewOperands {
        max: usize,
        valued: &'static [&'static str],
    },
    /// Always, unless one of these options makes it non-interactive.
    Always(&'static [&'static str]),
}

/// One program that waits for terminal input.
#[derive(Debug)]
struct Reader {
    name: &'static str,
    when: When,
    reason: &'static str,
}

const SHELL_SCRIPT: &[&str] = &["-c"];

/// The programs, by basename (`python3.12` matches `python3`).
const READERS: &[Reader] = &[
    Reader {
        name: "bash",
        when: When::NoScript(SHELL_SCRIPT),
        reason: "an interactive shell reads commands from the terminal",
    },
    Reader {
        name: "sh",
        when: When::NoScript(SHELL_SCRIPT),
        reason: "an interactive shell reads commands from the terminal",
    },
    Reader {
        name: "dash",
        when: When::NoScript(SHELL_SCRIPT),
        reason: "an interactive shell reads commands from the terminal",
    },
    Reader {
        name: "zsh",
        when: When::NoScript(SHELL_SCRIPT),
        reason: "an interactive shell reads commands from the terminal",
    },
    Reader {
        name: "ksh",
        when: When::NoScript(SHELL_SCRIPT),
        reason: "an interactive shell reads commands from the terminal",
    },
    Reader {
        name: "fish",
        when: When::NoScript(SHELL_SCRIPT),
        reason: "an interactive shell reads commands from the terminal",
    },
    Reader {
        name: "python",
        when: When::NoScript(&["-c", "-m"]),
        reason: "the Python REPL reads the terminal",
    },
    Reader {
        name: "python3",
        when: When::NoScript(&["-c", "-m"]),
        reason: "the Python REPL reads the terminal",
    },
    Reader {
        name: "python2",
        when: When::NoScript(&["-c", "-m"]),
        reason: "the Python REPL reads the terminal",
    },
    Reader {
        name: "ipython",
        when: When::NoScript(&["-c", "-m"]),
        reason: "the IPython REPL reads the terminal",
    },
    Reader {
        name: "node",
        when: When::NoScript(&["-e", "-p", "--eval", "--print", "--test", "--run"]),
        reason: "the Node.js REPL reads the terminal",
    },
    Reader {
        name: "deno",
        when: When::NoScript(&[]),
        reason: "`deno` alone starts a REPL",
    },
    Reader {
        name: "irb",
        when: When::Always(&[]),
        reason: "the Ruby REPL reads the terminal",
    },
    Reader {
        name: "ruby",
        when: When::NoScript(&["-e"]),
        reason: "ruby with no script reads its program from the terminal",
    },
    Reader {
        name: "perl",
        when: When::NoScript(&["-e", "-E"]),
        reason: "perl with no script reads its program from the terminal",
    },
    Reader {
        name: "php",
        when: When::NoScript(&["-r", "-l", "-S", "-m", "-i"]),
        reason: "php with no script reads the terminal",
    },
    Reader {
        name: "lua",
        when: When::NoScript(&["-e"]),
        reason: "the Lua REPL reads the terminal",
    },
    Reader {
        name: "luajit",
        when: When::NoScript(&["-e"]),
        reason: "the LuaJIT REPL reads the terminal",
    },
    Reader {
        name: "R",
        when: When::NoScript(&["-e", "-f", "--file"]),
        reason: "the R console reads the terminal",
    },
    Reader {
        name: "julia",
        when: When::NoScript(&["-e", "-E", "--eval", "--print"]),
        reason: "the Julia REPL reads the terminal",
    },
    Reader {
        name: "ghci",
        when: When::Always(&["-e"]),
        reason: "the GHC REPL reads the terminal",
    },
    Reader {
        name: "bc",
        when: When::NoScript(&[]),
        reason: "bc with no file reads the terminal",
    },
    Reader {
        name: "dc",
        when: When::NoScript(&["-e", "--expression"]),
        reason: "dc with no file reads the terminal",
    },
    Reader {
        name: "sqlite3",
        when: When::FewOperands {
            max: 1,
            valued: &["-cmd", "-separator", "-nullvalue", "-newline"],
        },
        reason: "sqlite3 with only a database reads SQL from the terminal",
    },
    Reader {
        name: "psql",
        when: When::Always(&["-c", "--command", "-f", "--file", "-l", "--list"]),
        reason: "psql without -c or -f reads SQL from the terminal",
    },
    Reader {
        name: "mysql",
        when: When::Always(&["-e", "--execute"]),
        reason: "mysql without -e reads SQL from the terminal",
    },
    Reader {
        name: "mariadb",
        when: When::Always(&["-e", "--execute"]),
        reason: "mariadb without -e reads SQL from the terminal",
    },
    Reader {
        name: "mongosh",
        when: When::NoScript(&["--eval", "-f", "--file"]),
        reason: "mongosh with no script reads the terminal",
    },
    Reader {
        name: "redis-cli",
        when: When::FewOperands {
            max: 0,
            valued: &["-h", "-p", "-a", "-n", "-u", "-s", "--user", "--pass"],
        },
        reason: "redis-cli with no command reads the terminal",
    },
    Reader {
        name: "ssh",
        when: When::FewOperands {
            max: 1,
            valued: &[
                "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o",
                "-p", "-Q", "-R", "-S", "-W", "-w", "-B",
            ],
        },
        reason: "ssh with no remote command opens a login shell that reads the terminal",
    },
    Reader {
        name: "mosh",
        when: When::FewOperands {
            max: 1,
            valued: &["-p", "--ssh", "--port"],
        },
        reason: "mosh opens a login shell that reads the terminal",
    },
    Reader {
        name: "telnet",
        when: When::Always(&[]),
        reason: "telnet sessions read the terminal",
    },
    Reader {
        name: "ftp",
        when: When::Always(&[]),
        reason: "ftp sessions read the terminal",
    },
    Reader {
        name: "sftp",
        when: When::Always(&["-b"]),
        reason: "sftp without -b reads commands from the terminal",
    },
    Reader {
        name: "vi",
        when: When::Always(&["-es", "-Es"]),
        reason: "editors read the terminal",
    },
    Reader {
        name: "vim",
        when: When::Always(&["-es", "-Es"]),
        reason: "editors read the terminal",
    },
    Reader {
        name: "nvim",
        when: When::Always(&["-es", "-Es", "--headless"]),
        reason: "editors read the terminal",
    },
    Reader {
        name: "nano",
        when: When::Always(&[]),
        reason: "editors read the terminal",
    },
    Reader {
        name: "emacs",
        when: When::Always(&["--batch", "-batch", "--script"]),
        reason: "editors read the terminal",
    },
    Reader {
        name: "ed",
        when: When::Always(&[]),
        reason: "ed reads its commands from the terminal",
    },
    Reader {
        name: "top",
        when: When::Always(&["-b", "-n"]),
        reason: "top reads keystrokes from the terminal",
    },
    Reader {
        name: "htop",
        when: When::Always(&[]),
        reason: "htop reads keystrokes from the terminal",
    },
    Reader {
        name: "gdb",
        when: When::Always(&["-batch", "--batch", "-ex", "-x"]),
        reason: "gdb without -batch reads commands from the terminal",
    },
    Reader {
        name: "read",
        when: When::Always(&[]),
        reason: "`read` reads a line from the terminal",
    },
    Reader {
        name: "passwd",
        when: When::Always(&[]),
        reason: "passwd prompts on the terminal",
    },
];

/// Options that print and exit (`python3 --version`).
const INFO_FLAGS: &[&str] = &["--version", "-V", "--help"];

/// The first command that would wait for terminal input, and why.
pub fn first_reader(a: &Analysis) -> Option<(String, &'static str)> {
    a.commands
        .iter()
        .filter(|c| c.stdin == Stdin::Inherited)
        .find_map(|c| reads_terminal(c).map(|r| (c.source.clone(), r)))
}

fn reads_terminal(c: &CommandInfo) -> Option<&'static str> {
    let base = c.base_name()?;
    let reader = READERS.iter().find(|r| {
        base == r.name
            || base
                .strip_prefix(r.name)
                .is_some_and(|v| r.name.starts_with("python") && is_version(v))
    })?;
    let args: Vec<&str> = c.argv[1..].iter().map(|a| a.lit().unwrap_or("?")).collect();
    if args.iter().any(|a| INFO_FLAGS.contains(a)) {
        return None;
    }
    let has = |flags: &[&str]| {
        args.iter().any(|a| {
            flags.contains(a)
                || flags
                    .iter()
                    .any(|f| f.len() == 2 && a.starts_with(f) && !a.starts_with("--"))
        })
    };
    let interactive = match reader.when {
        When::NoScript(flags) => {
            // `bash -s ARGS` reads its script from the terminal; `python3 -`
            // too (`-` is not a script operand).
            let from_stdin = matches!(reader.name, "bash" | "sh" | "dash" | "zsh" | "ksh" | "fish")
                && args.contains(&"-s");
            from_stdin || !(has(flags) || args.iter().any(|a| !a.starts_with('-')))
        }
        When::FewOperands { max, valued } => {
            let mut operands = 0;
            let mut skip = false;
            for a in &args {
                if skip {
                    skip = false;
                } else if valued.contains(a) {
                    skip = true;
                } else if !a.starts_with('-') {
                    operands += 1;
                }
            }
            operands <= max
        }
        When::Always(flags) => !has(flags),
    };
    interactive.then_some(reader.reason)
}

fn is_version(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}
