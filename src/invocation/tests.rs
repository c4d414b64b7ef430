//! Table tests for the invocation grammar, each row checked twice: against
//! the expected `Invocation`, and against what the real bash does with the
//! same argv (its `$0`, `$@`, `set -o` and `shopt` state, or its error).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// Prints `$0` and each argument in brackets, then the option state.
const PROBE: &str = r#"printf '<%s>' "$0" "$@"; echo; set -o; shopt -p"#;

fn os(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

fn real_bash() -> &'static str {
    if std::path::Path::new("/usr/bin/bash").exists() {
        "/usr/bin/bash"
    } else {
        "/bin/bash"
    }
}

fn run(words: &[&str]) -> Invocation {
    match parse(OsStr::new("bash"), os(words)) {
        Ok(Parsed::Run(inv)) => *inv,
        other => panic!("{words:?}: expected a run, got {other:?}"),
    }
}

/// Runs real bash with `args` (PROBE substituted for "{P}", a probe file
/// for "{F}"), feeding PROBE on stdin, and checks that its `$0`, `$@` and
/// option state are what `inv` says.
fn check_against_bash(words: &[&str], inv: &Invocation) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("probe.sh");
    std::fs::write(&file, PROBE).unwrap();
    let file_str = file.to_str().unwrap().to_string();
    let args: Vec<String> = words
        .iter()
        .map(|w| w.replace("{P}", PROBE).replace("{F}", &file_str))
        .collect();
    let mut child = Command::new(real_bash())
        .arg0("bash")
        .args(&args)
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("BASH_ENV")
        .env_remove("ENV")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // bash may exit without reading stdin (-c): ignore EPIPE.
    let _ = child.stdin.take().unwrap().write_all(PROBE.as_bytes());
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or("");
    let mut expected = String::new();
    let dollar0 = inv.dollar0.clone().unwrap_or_else(|| inv.argv0.clone());
    let dollar0 = dollar0.to_string_lossy().replace("{F}", &file_str);
    expected.push_str(&format!("<{dollar0}>"));
    for a in &inv.args {
        expected.push_str(&format!("<{}>", a.to_string_lossy()));
    }
    assert_eq!(first, expected, "{words:?}: $0 and $@ differ from bash");
    for (name, _) in &inv.options.set_options {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("{words:?}: bash did not list {name}"));
        let state = inv.options.set_option(name).unwrap();
        let want = if state { "on" } else { "off" };
        // bash ignores -n in interactive shells and for a few options
        // resets them after startup; only compare options bash keeps.
        if ["noexec", "monitor", "histexpand", "emacs", "vi", "history"].contains(&name.as_str()) {
            continue;
        }
        assert!(
            line.ends_with(want),
            "{words:?}: bash says {line:?}, we say {name} {want}"
        );
    }
    for (name, _) in &inv.options.shopts {
        let state = inv.options.shopt(name).unwrap();
        let want = format!("shopt {} {name}", if state { "-s" } else { "-u" });
        assert!(
            text.lines().any(|l| l == want),
            "{words:?}: bash disagrees about shopt {name}"
        );
    }
    let login = format!(
        "shopt {} login_shell",
        if inv.options.login { "-s" } else { "-u" }
    );
    assert!(
        text.lines().any(|l| l == login),
        "{words:?}: login state differs"
    );
}

#[test]
fn accepts_plain_command_string() {
    let words = ["-c", "{P}"];
    let inv = run(&words);
    assert_eq!(inv.source, Source::Command(OsString::from("{P}")));
    assert_eq!(inv.dollar0, None);
    assert!(inv.args.is_empty());
    check_against_bash(&words, &inv);
}

#[test]
fn takes_name_and_arguments_after_the_command_string() {
    let words = ["-c", "{P}", "name", "a b", "c"];
    let inv = run(&words);
    assert_eq!(inv.dollar0, Some(OsString::from("name")));
    assert_eq!(inv.args, os(&["a b", "c"]));
    check_against_bash(&words, &inv);
}

#[test]
fn accepts_combined_short_options() {
    for words in [
        ["-lc", "{P}"].as_slice(),
        &["-ec", "{P}"],
        &["-xec", "{P}", "n", "1"],
        &["-cx", "{P}"],
        &["-ce", "--", "{P}", "x"],
        &["-c", "-l", "{P}"],
        &["-c", "-e", "{P}", "-x"],
    ] {
        let inv = run(words);
        assert!(matches!(inv.source, Source::Command(_)), "{words:?}");
        check_against_bash(words, &inv);
    }
    assert!(run(&["-lc", "x"]).options.login);
    assert_eq!(
        run(&["-xec", "x"]).options.set_option("errexit"),
        Some(true)
    );
}

#[test]
fn reads_set_o_and_shopt_options_with_their_arguments() {
    for words in [
        ["-o", "pipefail", "-c", "{P}"].as_slice(),
        &["+o", "braceexpand", "-c", "{P}"],
        &["-oo", "errexit", "nounset", "-c", "{P}"],
        &["-O", "extglob", "-c", "{P}"],
        &["+O", "checkwinsize", "-c", "{P}"],
        &[
            "-O",
            "expand_aliases",
            "-O",
            "extglob",
            "+O",
            "extglob",
            "-c",
            "{P}",
        ],
        &["-o", "posix", "-c", "{P}"],
    ] {
        let inv = run(words);
        check_against_bash(words, &inv);
    }
    let inv = run(&["-O", "extglob", "-c", "x"]);
    assert_eq!(inv.options.shopt("extglob"), Some(true));
    assert_eq!(inv.option_words, os(&["-O", "extglob", "-c"]));
    let inv = run(&["-o", "posix", "-c", "x"]);
    assert!(inv.options.posix());
}

#[test]
fn reads_long_options_first() {
    for words in [
        ["--login", "-c", "{P}"].as_slice(),
        &["-login", "-c", "{P}"],
        &["--noprofile", "--norc", "-c", "{P}"],
        &["--posix", "-c", "{P}"],
        &["--rcfile", "/dev/null", "-c", "{P}"],
        &["--init-file", "/dev/null", "-c", "{P}"],
        &["--noprofile", "--norc", "-lc", "{P}"],
    ] {
        let inv = run(words);
        check_against_bash(words, &inv);
    }
    assert!(run(&["--posix", "-c", "x"]).options.posix());
    assert!(run(&["-login", "-c", "x"]).options.login);
    // After the script, a long option is just an argument.
    let inv = run(&["-c", "x", "--login"]);
    assert_eq!(inv.dollar0, Some(OsString::from("--login")));
    assert!(!inv.options.login);
    // --init-file consumes the next word, even "-c".
    let inv = run(&["--init-file", "-c", "x"]);
    assert_eq!(inv.source, Source::File(OsString::from("x")));
}

#[test]
fn reads_script_files_with_arguments() {
    for words in [
        ["{F}"].as_slice(),
        &["{F}", "a", "b"],
        &["-e", "{F}", "-x"],
        &["--", "{F}", "a"],
        &["-", "{F}", "a"],
        &["-x", "--", "{F}"],
    ] {
        let inv = run(words);
        assert!(matches!(inv.source, Source::File(_)), "{words:?}");
        check_against_bash(words, &inv);
    }
    // After `--` or `-`, "-c" is a file name.
    assert_eq!(
        run(&["--", "-c", "x"]).source,
        Source::File(OsString::from("-c"))
    );
    assert_eq!(
        run(&["-", "-c", "x"]).source,
        Source::File(OsString::from("-c"))
    );
}

#[test]
fn reads_standard_input_with_s_or_without_arguments() {
    for words in [
        [].as_slice(),
        &["-s"],
        &["-s", "a", "b"],
        &["-s", "-x", "a"],
        &["-e"],
        &["--"],
        &["-s", "--", "-a"],
    ] {
        let inv = run(words);
        assert_eq!(inv.source, Source::Stdin, "{words:?}");
        check_against_bash(words, &inv);
    }
}

#[test]
fn command_wins_over_s() {
    let words = ["-s", "-c", "{P}", "a", "b"];
    let inv = run(&words);
    assert!(matches!(inv.source, Source::Command(_)));
    check_against_bash(&words, &inv);
}

#[test]
fn help_and_version_are_informational() {
    for words in [
        ["--version"].as_slice(),
        &["--help"],
        &["-version"],
        &["--login", "--version", "-c", "x"],
    ] {
        assert_eq!(
            parse(OsStr::new("bash"), os(words)),
            Ok(Parsed::Informational)
        );
    }
}

#[test]
fn options_without_a_name_list_options() {
    assert_eq!(
        parse(OsStr::new("bash"), os(&["-o"])),
        Ok(Parsed::ListOptions)
    );
    assert_eq!(
        parse(OsStr::new("bash"), os(&["-O"])),
        Ok(Parsed::ListOptions)
    );
}

#[test]
fn records_noexec_interactive_and_keyword() {
    assert!(run(&["-n", "-c", "x"]).options.noexec());
    assert!(!run(&["-n", "+n", "-c", "x"]).options.noexec());
    assert!(run(&["-o", "noexec", "-c", "x"]).options.noexec());
    assert!(run(&["-D", "-c", "x"]).options.noexec());
    assert!(run(&["--dump-strings", "-c", "x"]).options.noexec());
    assert!(run(&["-ic", "x"]).options.interactive);
    assert!(!run(&["-i", "+i", "-c", "x"]).options.interactive);
    assert_eq!(
        run(&["-k", "-c", "x"]).options.set_option("keyword"),
        Some(true)
    );
}

/// Runs real bash with `words` and returns (exit code, first stderr line).
fn bash_error(words: &[&str]) -> (i32, String) {
    let out = Command::new(real_bash())
        .arg0("bash")
        .args(words)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    (
        out.status.code().unwrap_or(-1),
        err.lines().next().unwrap_or("").to_string(),
    )
}

#[test]
fn rejects_bad_options_as_bash_does() {
    for words in [
        ["-Z", "-c", "true"].as_slice(),
        &["+Z", "-c", "true"],
        &["-eZ", "-c", "true"],
        &["--foo", "-c", "true"],
        &["--log", "-c", "true"],
        &["--rcfile=/dev/null", "-c", "true"],
        &["--rcfile"],
        &["--init-file"],
        &["-c"],
        &["-e", "-c"],
        &["-o", "bogus", "-c", "true"],
        &["-o", "pipef", "-c", "true"],
        &["-O", "bogus", "-c", "true"],
        &["+O", "extg", "-c", "true"],
        &["-r", "+r", "-c", "true"],
        &["--protected", "-c", "true"],
        &["-e", "-Z"],
        &["-e", "-c"],
        &["-e", "--foo"],
        &["-e", "+e", "-Z"],
        &["-e", "-o", "bogus"],
        &["-e", "-r", "+r", "-c", "true"],
    ] {
        let err = match parse(OsStr::new("bash"), os(words)) {
            Err(e) => e,
            other => panic!("{words:?}: expected an error, got {other:?}"),
        };
        let (code, first) = bash_error(words);
        assert_eq!(code, err.exit_code(), "{words:?}: bash's exit code");
        assert_eq!(first, err.render(false), "{words:?}: message differs");
        if err.shows_usage() {
            let out = Command::new(real_bash())
                .arg0("bash")
                .args(words)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let rest: String = stderr.lines().skip(1).map(|l| format!("{l}\n")).collect();
            assert_eq!(rest, usage_text("bash"), "{words:?}: usage text differs");
        }
    }
}

#[test]
fn error_messages_name_the_shell_as_invoked() {
    let err = parse(OsStr::new("/opt/shims/sh"), os(&["-Z"])).unwrap_err();
    assert_eq!(err.to_string(), "/opt/shims/sh: -Z: invalid option");
}

#[test]
fn dispatches_on_basename_and_login_dash() {
    assert_eq!(shell_kind_of(OsStr::new("bash")), Some(ShellKind::Bash));
    assert_eq!(
        shell_kind_of(OsStr::new("/x/shims/sh")),
        Some(ShellKind::Sh)
    );
    assert_eq!(shell_kind_of(OsStr::new("-bash")), Some(ShellKind::Bash));
    assert_eq!(shell_kind_of(OsStr::new("automode")), None);
    assert_eq!(shell_kind_of(OsStr::new("bash5")), None);
    let inv = match parse(OsStr::new("-bash"), os(&["-c", "x"])) {
        Ok(Parsed::Run(inv)) => *inv,
        other => panic!("{other:?}"),
    };
    assert!(inv.options.login);
}

#[test]
fn rebuilds_argv_for_the_real_shell() {
    let inv = run(&["-lc", "echo hi", "n", "a"]);
    assert_eq!(
        inv.real_shell_args(OsStr::new("echo hi")),
        os(&["-lc", "echo hi", "n", "a"])
    );
    let inv = run(&["-e", "--", "file.sh", "a"]);
    assert_eq!(
        inv.real_shell_args(OsStr::new("body")),
        os(&["-e", "-c", "body", "file.sh", "a"])
    );
    let inv = run(&["-s", "a"]);
    assert_eq!(
        inv.real_shell_args(OsStr::new("body")),
        os(&["-s", "-c", "body", "bash", "a"])
    );
    let sh = match parse(OsStr::new("sh"), os(&["-c", "x"])) {
        Ok(Parsed::Run(inv)) => *inv,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        sh.real_shell_args(OsStr::new("x")),
        os(&["--posix", "-c", "x"])
    );
}

#[test]
fn rebuilt_argv_behaves_like_the_original() {
    // The FILE and stdin forms are rerun as -c: $0, $@ and options must
    // come out the same.
    for words in [
        ["{F}", "a", "b"].as_slice(),
        &["-e", "--", "{F}", "-x"],
        &["-s", "a", "b"],
        &[],
        &["-O", "extglob", "{F}"],
    ] {
        let inv = run(words);
        let rebuilt: Vec<String> = inv
            .real_shell_args(OsStr::new("{P}"))
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect();
        let rebuilt: Vec<&str> = rebuilt.iter().map(String::as_str).collect();
        let again = run(&rebuilt);
        check_against_bash(&rebuilt, &again);
        assert_eq!(again.args, inv.args, "{words:?}");
        assert_eq!(
            again.dollar0.unwrap_or(again.argv0),
            inv.dollar0.clone().unwrap_or(inv.argv0.clone()),
            "{words:?}"
        );
    }
}
