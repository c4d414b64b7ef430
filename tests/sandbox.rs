//! The workspace sandbox through the real binary on the real kernel:
//! writes outside the project fail (with the hint), work inside it
//! works, secrets are unreadable, nothing inside can lift the
//! confinement, protected paths stay unwritable (read-only binds, or
//! restored), credentials are withheld, a widening goes to the
//! classifier and lasts one command, the file-size limit, the network
//! namespace, the modes without Landlock. Every home and project is a temp
//! dir; with auto mode off (`Env::supervision_only`) the policy lets
//! everything through, so only the kernel stands between the command and
//! the temp home.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::llm::{ALLOW, MockLlm, oa_call, oa_text};
use crate::support::{Env, automode_bin, helper, landlock_or_skip, run};

const BLOCKED: i32 = 121;
const HINT: &str = "likely refused by automode's sandbox";

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

/// A temp home with a profile and a key, policy off, sandbox on.
fn confined() -> Env {
    let env = Env::supervision_only();
    write(&env.home.join(".bashrc"), "# rc\n");
    write(&env.home.join(".ssh/id_ed25519"), "PRIVATE KEY\n");
    write(
        &env.home.join(".ssh/authorized_keys"),
        "ssh-ed25519 AAAA user\n",
    );
    env
}

fn git(dir: &Path, args: &[&str]) {
    let st = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

#[test]
fn writes_outside_the_writable_paths_fail_with_the_hint() {
    if !landlock_or_skip("writes_outside") {
        return;
    }
    let env = confined();
    // A compiled program that appends to the file named by its argument.
    let src = env.root().join("append.c");
    write(
        &src,
        "#include <stdio.h>\nint main(int c, char **v) { FILE *f = fopen(v[1], \"a\"); if (!f) { perror(v[1]); return 1; } fputs(\"x\", f); return fclose(f); }\n",
    );
    let bin = env.work.join("append");
    let cc = Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&bin)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    for target in [".bashrc", ".ssh/authorized_keys", "x"] {
        let path = env.home.join(target);
        let before = read(&path);
        let p = path.display();
        for script in [
            format!("python3 -c \"open('{p}', 'a').write('evil')\""),
            format!("./append {p}"),
            format!("cp /etc/hostname {p}"),
            format!("echo evil >> {p}"),
        ] {
            let r = run(&mut env.script(&script));
            assert_ne!(r.code(), Some(0), "{script}: ran");
            assert_eq!(read(&path), before, "{script}: wrote {target}");
            assert!(r.stderr().contains(HINT), "{script}: {}", r.stderr());
            // Never a grant that would be refused: a profile, a new file
            // in the home (its directory, the home, would be granted).
            let want = if target.starts_with(".ssh") {
                format!("'{p}' is among the secrets")
            } else {
                "never granted to a command".to_string()
            };
            assert!(r.stderr().contains(&want), "{script}: {}", r.stderr());
            assert!(!r.stderr().contains("AUTOMODE_WRITE"), "{}", r.stderr());
        }
    }
    // A path that can be granted: with auto mode off nothing reviews a
    // widening, so the hint says the user runs it; with it on, how to
    // ask.
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let p = outside.path().join("out.txt");
    let r = run(&mut env.script(&format!("./append {}", p.display())));
    assert_ne!(r.code(), Some(0));
    assert!(
        r.stderr().contains("the user runs it themselves"),
        "{}",
        r.stderr()
    );
    assert!(!r.stderr().contains("AUTOMODE_WRITE"), "{}", r.stderr());
    let on = Env::new();
    write(
        &on.work.join("put.py"),
        &format!("open('{}', 'a').write('x')\n", p.display()),
    );
    let r = run(&mut on.script("python3 put.py"));
    assert_ne!(r.code(), Some(0));
    assert!(
        r.stderr()
            .contains(&format!("AUTOMODE_WRITE={} ", p.display())),
        "{}",
        r.stderr()
    );
    // Deleting the home's files does nothing (they are out of sight, or
    // refused).
    run(&mut env.script(&format!("rm -rf {}", env.home.join(".ssh").display())));
    assert!(env.home.join(".ssh/id_ed25519").exists());
}

#[test]
fn work_in_the_project_temp_and_devices_goes_on() {
    if !landlock_or_skip("work_in_the_project") {
        return;
    }
    let env = confined();
    let r = run(&mut env.script(
        "mkdir -p src && echo hi > src/f && mv src/f src/g && rm src/g && \
         t=$(mktemp) && echo ok > \"$t\" && rm \"$t\" && echo x > /dev/null && \
         echo y > /dev/shm/automode-test-$$ && rm /dev/shm/automode-test-$$ && \
         cat /etc/hostname > /dev/null && python3 -c 'import json, subprocess' && echo done",
    ));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().ends_with("done\n"), "{}", r.stdout());
    assert!(!r.stderr().contains(HINT));
}

#[test]
fn secrets_cannot_be_read() {
    if !landlock_or_skip("secrets") {
        return;
    }
    let env = confined();
    let key = env.home.join(".ssh/id_ed25519");
    let r = run(&mut env.script(&format!("cat {}", key.display())));
    assert_ne!(r.code(), Some(0));
    assert!(!r.stdout().contains("PRIVATE"), "{}", r.stdout());
    assert!(r.stderr().contains("among the secrets"), "{}", r.stderr());
    // Copying it out fails the same way.
    let r = run(&mut env.script(&format!("cp {} stolen", key.display())));
    assert_ne!(r.code(), Some(0));
    assert!(!env.work.join("stolen").exists());
    // automode's own state is not readable either.
    let r = run(&mut env.script("cat $XDG_STATE_HOME/automode/audit.jsonl"));
    assert_ne!(r.code(), Some(0), "{}", r.stdout());
    let r = run(&mut env.script("cat /etc/hostname"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    // The rest of the table, read by a project script: histories,
    // database passwords, build tools' and deploy CLIs' credentials.
    let secrets = [
        ".bash_history",
        ".zsh_history",
        ".pgpass",
        ".my.cnf",
        ".m2/settings.xml",
        ".gradle/gradle.properties",
        ".config/op/config",
        ".config/doctl/config.yaml",
        ".fly/config.yml",
        ".local/share/com.vercel.cli/auth.json",
        ".config/netlify/config.json",
        ".config/stripe/config.toml",
        ".cache/huggingface/token",
    ];
    let env = confined();
    for s in secrets {
        write(&env.home.join(s), "SECRET-VALUE\n");
    }
    // Build tools' settings are read without their secrets
    // (credentials::SETTINGS): the secret lines are what is withheld.
    let settings = [".m2/settings.xml", ".gradle/gradle.properties"];
    write(
        &env.home.join(settings[0]),
        "<settings><mirrors><mirror><url>https://repo.example/m2</url></mirror></mirrors>\n<servers><server><id>corp</id><password>SECRET-VALUE</password></server></servers></settings>\n",
    );
    write(
        &env.home.join(settings[1]),
        "org.gradle.jvmargs=-Xmx1g\nrepoPassword=SECRET-VALUE\n",
    );
    write(
        &env.work.join("peek.py"),
        &format!(
            "import os\nfor s in {secrets:?}:\n    try:\n        print(s, open(os.path.expanduser('~/' + s)).read().strip().replace(chr(10), ' '))\n    except OSError as e:\n        print(s, 'refused')\n"
        ),
    );
    let r = run(&mut env.script("python3 peek.py"));
    assert!(!r.stdout().contains("SECRET-VALUE"), "{}", r.stdout());
    for line in r.stdout().lines() {
        let name = line.split(' ').next().unwrap_or("");
        if settings.contains(&name) {
            assert!(!line.ends_with("refused"), "{line}");
        } else {
            assert!(line.ends_with("refused"), "{line}");
        }
    }
    assert_eq!(r.stdout().lines().count(), secrets.len(), "{}", r.stdout());
    assert!(r.stdout().contains("repo.example/m2"), "{}", r.stdout());
}

#[test]
fn a_secret_made_after_the_sandbox_was_cached_is_denied_at_once() {
    if !landlock_or_skip("cached") {
        return;
    }
    let env = Env::supervision_only();
    let state = env.root().join("state/automode/sandbox");
    // The plan is stored once what it was built from has settled (a
    // directory changed within 100 ms is not trusted to the cache).
    let mut stored = false;
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(150));
        let r = run(&mut env.script("true"));
        assert_eq!(r.code(), Some(0), "{}", r.stderr());
        if std::fs::read_dir(&state).is_ok_and(|mut d| d.next().is_some()) {
            stored = true;
            break;
        }
    }
    assert!(stored, "no cache entry in {}", state.display());
    // A key that appears now is in no cached listing: the entry is stale,
    // the plan is built again, and the key is denied.
    write(&env.home.join(".ssh/id_ed25519"), "PRIVATE KEY\n");
    let r = run(&mut env.script("cat ~/.ssh/id_ed25519"));
    assert_ne!(r.code(), Some(0));
    assert!(!r.stdout().contains("PRIVATE"), "{}", r.stdout());
    // So is one made inside a directory that was there before (the
    // configuration directory, outside the home here).
    std::thread::sleep(std::time::Duration::from_millis(150));
    let _ = run(&mut env.script("true"));
    write(
        &env.root().join("config/gh/hosts.yml"),
        "oauth_token: SECRET\n",
    );
    let r = run(&mut env.script("cat $XDG_CONFIG_HOME/gh/hosts.yml"));
    assert_ne!(r.code(), Some(0));
    assert!(!r.stdout().contains("SECRET"), "{}", r.stdout());
    // The entries are automode's: a command cannot read them.
    let r = run(&mut env.script(&format!("cat {}/*", state.display())));
    assert_ne!(r.code(), Some(0), "{}", r.stdout());
}

#[test]
fn secrets_stay_unreadable_when_covered_in_the_mount_namespace() {
    if !landlock_or_skip("covered secrets") {
        return;
    }
    // A git project: protected paths are bound read-only in a mount
    // namespace, and the secrets are covered there (not carved out of
    // the Landlock grants).
    let env = confined();
    write(
        &env.home.join(".netrc"),
        "machine example.com password hunter2\n",
    );
    git(&env.work, &["init", "-q"]);
    let v: Value =
        serde_json::from_str(&run(env.automode().args(["check", "--json", "true"])).stdout())
            .unwrap();
    assert_eq!(v["sandbox"]["namespace"], true, "{}", v["sandbox"]);
    let home = env.home.display();
    let r = run(&mut env.script(&format!(
        "cat {home}/.ssh/id_ed25519; cat {home}/.netrc; ls -A {home}/.ssh; \
         umount {home}/.ssh; umount {home}/.netrc; cat {home}/.ssh/id_ed25519 {home}/.netrc; \
         cp -r {home}/.ssh stolen; cat stolen/id_ed25519; echo done"
    )));
    assert!(r.stdout().ends_with("done\n"), "{}", r.stderr());
    assert!(!r.stdout().contains("PRIVATE"), "{}", r.stdout());
    assert!(!r.stdout().contains("hunter2"), "{}", r.stdout());
    assert!(!r.stdout().contains("id_ed25519"), "listed: {}", r.stdout());
    // The real files are untouched.
    assert_eq!(read(&env.home.join(".ssh/id_ed25519")), "PRIVATE KEY\n");
}

#[test]
fn nothing_inside_can_lift_the_confinement() {
    if !landlock_or_skip("lift") {
        return;
    }
    let env = confined();
    let rc = env.home.join(".bashrc");
    let p = rc.display();
    for script in [
        // A nested shim call (it becomes the real shell, still confined).
        format!("bash -c 'echo evil >> {p}'"),
        // A new user and mount namespace.
        format!("unshare -rm sh -c 'echo evil >> {p}'"),
        // A second, wider ruleset: automode exec applies its own on top.
        format!(
            "{} exec -- python3 -c \"open('{p}', 'a').write('evil')\"",
            automode_bin().display()
        ),
    ] {
        let r = run(&mut env.script(&script));
        assert_ne!(r.code(), Some(0), "{script}: {}", r.stderr());
        assert_eq!(read(&rc), "# rc\n", "{script}");
    }
    // The supervisor is out of reach: outside the command's PID namespace
    // (its parent reads 0), and the namespace's first process, a copy of
    // it, takes no signals, no ptrace, and shows no environ.
    let r = run(&mut env.script("echo $PPID"));
    assert_eq!(r.stdout(), "0\n", "{}", r.stderr());
    let r = run(&mut env.script("kill -0 1"));
    assert_ne!(r.code(), Some(0), "signalled the supervisor");
    assert!(
        r.stderr().contains("Operation not permitted"),
        "{}",
        r.stderr()
    );
    let r =
        run(&mut env.script("strace -p 1 -o /dev/null & sleep 0.5; kill $! 2>/dev/null; wait $!"));
    assert_ne!(r.code(), Some(0), "traced the supervisor: {}", r.stderr());
    // Its environment (which holds what the command does not get) is not
    // readable (root may open the file, but the kernel's copy is blank).
    let env = env.with_env("FOO_API_KEY", "sk-secret-1234");
    let r = run(&mut env.script("cat /proc/1/environ | tr '\\0' '\\n'"));
    assert!(!r.stdout().contains("HOME="), "{}", r.stdout());
    assert!(!r.stdout().contains("sk-secret"), "{}", r.stdout());
}

#[test]
fn protected_paths_stay_unwritable_and_git_commits_still_work() {
    if !landlock_or_skip("protected") {
        return;
    }
    for mode in ["auto", "restore"] {
        let env = Env::supervision_only().with_env(
            "AUTOMODE_SETTINGS_JSON",
            &json!({"autoMode": {"enabled": false}, "sandbox": {"protectMode": mode}}).to_string(),
        );
        git(&env.work, &["init", "-q", "-b", "main"]);
        write(&env.work.join("a.txt"), "a\n");
        let config = read(&env.work.join(".git/config"));
        let r = run(&mut env.script(
            "python3 -c \"open('.git/hooks/pre-commit', 'w').write('evil')\"; \
             echo '[core] fsmonitor = evil' >> .git/config; \
             mkdir -p .claude && echo '{}' > .claude/settings.json; \
             git -c user.name=t -c user.email=t@example.com add a.txt && \
             git -c user.name=t -c user.email=t@example.com commit -qm one && echo committed",
        ));
        assert!(r.stdout().contains("committed"), "{mode}: {}", r.stderr());
        assert_eq!(read(&env.work.join(".git/config")), config, "{mode}");
        assert!(!env.work.join(".git/hooks/pre-commit").exists(), "{mode}");
        assert!(!env.work.join(".claude/settings.json").exists(), "{mode}");
        assert!(
            r.stderr().contains("automode moved .claude"),
            "{mode}: {}",
            r.stderr()
        );
        if mode == "restore" {
            assert!(
                r.stderr().contains("automode moved .git/hooks/pre-commit"),
                "{}",
                r.stderr()
            );
            assert!(
                r.stderr().contains("automode restored .git/config"),
                "{}",
                r.stderr()
            );
        } else {
            assert!(
                r.stderr().contains("Read-only file system"),
                "{}",
                r.stderr()
            );
        }
        // A linked worktree commits too (its gitdir lives in the main
        // repository's .git).
        let wt = env.root().join(format!("wt-{mode}"));
        git(&env.work, &["worktree", "add", "-q", wt.to_str().unwrap()]);
        write(&wt.join("b.txt"), "b\n");
        let mut cmd = env.script(
            "git -c user.name=t -c user.email=t@example.com add b.txt && \
             git -c user.name=t -c user.email=t@example.com commit -qm two && echo committed",
        );
        cmd.current_dir(&wt);
        let r = run(&mut cmd);
        assert!(
            r.stdout().contains("committed"),
            "{mode} worktree: {}",
            r.stderr()
        );
    }
}

/// Every way the project's git files can be turned against the user's
/// next `git commit` (outside any sandbox), then the git work that must
/// keep going: with read-only binds, with the check after the command,
/// and with user namespaces refused by the system.
#[test]
fn git_files_cannot_be_turned_against_the_user() {
    if !landlock_or_skip("git files") {
        return;
    }
    for how in ["auto", "restore", "no user namespaces"] {
        let mode = if how == "restore" { "restore" } else { "auto" };
        let env = Env::supervision_only().with_env(
            "AUTOMODE_SETTINGS_JSON",
            &json!({"autoMode": {"enabled": false}, "sandbox": {"protectMode": mode}}).to_string(),
        );
        let shim = env.shims.join("bash");
        let script = |s: &str| {
            let mut c = if how == "no user namespaces" {
                let mut c = env.command("python3");
                c.arg(helper("no_userns.py")).arg(&shim);
                c
            } else {
                env.bash()
            };
            c.arg("-c").arg(s);
            run(&mut c)
        };
        // A submodule from a repository beside the project.
        let upstream = env.root().join("upstream");
        std::fs::create_dir_all(&upstream).unwrap();
        git(&upstream, &["init", "-q", "-b", "main"]);
        git(&upstream, &["commit", "-q", "--allow-empty", "-m", "up"]);
        git(&env.work, &["init", "-q", "-b", "main"]);
        git(
            &env.work,
            &[
                "-c",
                "protocol.file.allow=always",
                "submodule",
                "add",
                "-q",
                upstream.to_str().unwrap(),
                "sub",
            ],
        );
        git(&env.work, &["commit", "-q", "-m", "one"]);
        let pwned = env.root().join("PWNED");
        let hook = format!("#!/bin/sh\\ntouch {}\\n", pwned.display());
        let plant = |at: &str| format!("printf '{hook}' > {at} && chmod +x {at}");
        let config = read(&env.work.join(".git/config"));
        for attack in [
            // .git renamed away, a copy with a hook put back.
            format!(
                "mv .git .git-away && cp -a .git-away .git && {}",
                plant(".git/hooks/pre-commit")
            ),
            // .git swapped for a symlink to a copy with a hook.
            format!(
                "cp -a .git .g && {} && mv .git .git-old && ln -s .g .git",
                plant(".g/hooks/pre-commit")
            ),
            // commondir pointed at a folder inside the project.
            format!(
                "mkdir -p evil/hooks && cp .git/config evil/config && {} && echo \"$PWD/evil\" > .git/commondir",
                plant("evil/hooks/pre-commit")
            ),
            // The submodule's own hooks and config.
            plant(".git/modules/sub/hooks/pre-commit"),
            "git -C sub config core.fsmonitor 'touch ../FSMONITOR'".to_string(),
            // Attributes choosing a filter, an .envrc.
            "echo '* filter=evil' > .git/info/attributes; echo 'touch PWNED' > .envrc; echo ok"
                .to_string(),
        ] {
            let r = script(&attack);
            assert!(
                r.stderr().contains("automode") || r.code() != Some(0),
                "{how}: {attack}: {}",
                r.stderr()
            );
        }
        // The user's next commits, outside any sandbox.
        git(&env.work, &["commit", "-q", "--allow-empty", "-m", "two"]);
        git(
            &env.work.join("sub"),
            &["commit", "-q", "--allow-empty", "-m", "s"],
        );
        assert!(!pwned.exists(), "{how}: a hook ran");
        assert!(!env.work.join("FSMONITOR").exists(), "{how}: fsmonitor ran");
        assert!(!env.work.join(".git/commondir").exists(), "{how}");
        assert!(!env.work.join(".envrc").exists(), "{how}");
        assert!(!env.work.join(".git/info/attributes").exists(), "{how}");
        assert_eq!(read(&env.work.join(".git/config")), config, "{how}");
        // A hooks directory the repository names inside the project,
        // husky's hooks, pre-commit's configuration.
        git(&env.work, &["config", "core.hooksPath", ".githooks"]);
        write(&env.work.join(".githooks/pre-commit"), "#!/bin/sh\n");
        write(&env.work.join(".husky/pre-commit"), "npm test\n");
        for attack in [
            plant(".githooks/pre-commit"),
            format!("{}; echo ok", plant(".husky/pre-commit")),
            "echo 'repos: []' > .pre-commit-config.yaml".to_string(),
        ] {
            script(&attack);
        }
        git(&env.work, &["commit", "-q", "--allow-empty", "-m", "three"]);
        assert!(!pwned.exists(), "{how}: a hook ran");
        assert_eq!(
            read(&env.work.join(".githooks/pre-commit")),
            "#!/bin/sh\n",
            "{how}"
        );
        assert_eq!(
            read(&env.work.join(".husky/pre-commit")),
            "npm test\n",
            "{how}"
        );
        assert!(!env.work.join(".pre-commit-config.yaml").exists(), "{how}");
        git(&env.work, &["config", "--unset", "core.hooksPath"]);
        let config = read(&env.work.join(".git/config"));
        // The git work that must go on: commits, a worktree, a submodule
        // added and updated, a remote, the user's name for this project.
        let wt = env.work.join(".worktrees/wt");
        let r = script(&format!(
            "git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m four && \
             git worktree add -q {} && \
             git -c protocol.file.allow=always submodule add -q {} sub2 && \
             git submodule update --init -q && \
             git remote add upstream https://example.com/u.git && \
             git config user.email agent@example.com && echo done",
            wt.display(),
            upstream.display()
        ));
        assert_eq!(r.stdout(), "done\n", "{how}: {}", r.stderr());
        assert!(
            !r.stderr().contains("automode restored"),
            "{how}: {}",
            r.stderr()
        );
        let now = read(&env.work.join(".git/config"));
        assert!(now.starts_with(&config), "{how}: {now}");
        for added in [
            "[submodule \"sub2\"]",
            "[remote \"upstream\"]",
            "agent@example.com",
        ] {
            assert!(now.contains(added), "{how}: {now}");
        }
        assert!(wt.join(".git").exists(), "{how}");
        // What git does not write for itself is undone, even by git.
        let r = script("git config core.pager 'touch PAGER'; git config alias.x '!touch ALIAS'");
        assert!(
            r.stderr().contains("automode restored .git/config")
                && r.stderr().contains("which git does not write"),
            "{how}: {}",
            r.stderr()
        );
        assert_eq!(read(&env.work.join(".git/config")), now, "{how}");
    }
}

/// A UNIX socket server of the host's, in the host's `/tmp`: what it
/// received.
fn host_socket(path: &Path) -> std::sync::mpsc::Receiver<Vec<u8>> {
    use std::io::Read;
    let listener = std::os::unix::net::UnixListener::bind(path).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let mut buf = Vec::new();
            let _ = (&conn).take(64).read_to_end(&mut buf);
            let _ = tx.send(buf);
        }
    });
    rx
}

/// The host's `/tmp` and the sockets in it are out of reach; a session's
/// commands share their own `/tmp` and reach the sockets they make; a
/// socket the user lists stays reachable; `status` names the session's
/// `/tmp`. Without user namespaces, the host's `/tmp` is what commands
/// see, and `status` says so.
#[test]
fn host_sockets_and_tmp_are_out_of_reach() {
    if !landlock_or_skip("host sockets") {
        return;
    }
    let host = tempfile::tempdir_in("/tmp").unwrap();
    let h = host.path().display().to_string();
    write(&host.path().join("notes.txt"), "host tmp\n");
    let blocked = host_socket(&host.path().join("agent.sock"));
    let listed = host_socket(&host.path().join("db.sock"));
    // A PATH directory under the host's /tmp: bound back, read-only
    // (the session's /tmp around it is writable).
    write(&host.path().join("bin/tool"), "#!/bin/sh\necho tool ran\n");
    std::fs::set_permissions(
        host.path().join("bin/tool"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let mut env = Env::supervision_only();
    env.path = format!("{h}/bin:{}", env.path);
    let env = env.with_env(
        "AUTOMODE_SETTINGS_JSON",
        &json!({"autoMode": {"enabled": false},
                "sandbox": {"sockets": {"allow": [format!("{h}/db.sock")]}}})
        .to_string(),
    );
    let send = |path: &str| {
        format!(
            "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{path}'); s.sendall(b'sent')\""
        )
    };
    let r = run(&mut env.script(&format!("tool; echo evil > {h}/bin/tool")));
    assert!(r.stdout().contains("tool ran"), "{}", r.stderr());
    assert_ne!(r.code(), Some(0));
    assert_eq!(
        read(&host.path().join("bin/tool")),
        "#!/bin/sh\necho tool ran\n"
    );
    // The host's /tmp and a socket in it.
    let r = run(&mut env.script(&format!("cat {h}/notes.txt")));
    assert_ne!(r.code(), Some(0));
    assert!(
        r.stderr().contains("session's own temporary directory"),
        "{}",
        r.stderr()
    );
    let r = run(&mut env.script(&send(&format!("{h}/agent.sock"))));
    assert_ne!(r.code(), Some(0), "{}", r.stderr());
    assert!(blocked.recv_timeout(Duration::from_millis(300)).is_err());
    // The one the user listed.
    let r = run(&mut env.script(&send(&format!("{h}/db.sock"))));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(
        listed.recv_timeout(Duration::from_secs(5)).unwrap(),
        b"sent"
    );
    // A tmux server of the user's cannot be driven.
    if which("tmux") {
        let sock = host.path().join("tmux.sock");
        let started = env
            .real(&format!(
                "tmux -S {} new-session -d -s t 'sleep 60'",
                sock.display()
            ))
            .status()
            .unwrap();
        assert!(started.success());
        let pid: i32 = String::from_utf8_lossy(
            &env.real(&format!("tmux -S {} display -p '#{{pid}}'", sock.display()))
                .output()
                .unwrap()
                .stdout,
        )
        .trim()
        .parse()
        .unwrap();
        let _stop = crate::support::Kill(pid);
        let marker = host.path().join("TMUX-RAN");
        let r = run(&mut env.script(&format!(
            "tmux -S {} send-keys -t t 'touch {}' Enter",
            sock.display(),
            marker.display()
        )));
        assert_ne!(r.code(), Some(0), "{}", r.stderr());
        std::thread::sleep(Duration::from_millis(300));
        assert!(!marker.exists(), "a command ran in the user's tmux");
    }
    // The session's own /tmp: kept between its commands, not the host's.
    let name = format!("automode-test-{}", std::process::id());
    let r = run(&mut env.script(&format!("echo one > /tmp/{name} && ls /tmp")));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(
        !r.stdout()
            .contains(host.path().file_name().unwrap().to_str().unwrap())
    );
    assert!(
        !Path::new("/tmp").join(&name).exists(),
        "written to the host's /tmp"
    );
    let r = run(&mut env.script(&format!("cat /tmp/{name}")));
    assert_eq!(r.stdout(), "one\n", "{}", r.stderr());
    // A socket a command makes is reached by the next one.
    let r = run(&mut env.script(
        "python3 -c \"
import os, socket
s = socket.socket(socket.AF_UNIX); s.bind('/tmp/own.sock'); s.listen(1)
if os.fork() == 0:
    os.setsid()
    c, _ = s.accept(); open('got.part', 'wb').write(c.recv(16)); os.rename('got.part', 'got.txt'); os._exit(0)
\"",
    ));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let r = run(&mut env.script(&send("/tmp/own.sock")));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    // Written aside and renamed: it exists only once it holds what came.
    for _ in 0..250 {
        if env.work.join("got.txt").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(read(&env.work.join("got.txt")), "sent");
    // status names the session's /tmp.
    let r = run(env.automode().arg("status"));
    assert!(
        r.stdout().contains("host sockets and /tmp: covered"),
        "{}",
        r.stdout()
    );
    assert!(
        r.stdout().contains("/tmp of its commands: "),
        "{}",
        r.stdout()
    );
    // Without user namespaces (a fresh state: no session's wall to
    // join): the host's /tmp, and status says so.
    let env = Env::supervision_only();
    let bash = env.shims.join("bash");
    let mut c = env.command("python3");
    c.arg(helper("no_userns.py"))
        .arg(&bash)
        .args(["-c", &format!("cat {h}/notes.txt")]);
    let r = run(&mut c);
    assert_eq!(r.stdout(), "host tmp\n", "{}", r.stderr());
    let mut c = env.command("python3");
    c.arg(helper("no_userns.py"))
        .arg(crate::support::automode_bin())
        .arg("status");
    let r = run(&mut c);
    assert!(
        r.stdout()
            .contains("host sockets, /tmp and other processes: NOT covered"),
        "{}",
        r.stdout()
    );
}

/// The user's other processes are out of sight: their command lines,
/// environments and signals; `ps` shows the command's own tree; a
/// background process of one command is not in the next one's view, and
/// goes on running. Without user namespaces the command lines are
/// readable (status says so, above).
#[test]
fn other_processes_are_invisible() {
    if !landlock_or_skip("pids") {
        return;
    }
    let env = Env::supervision_only();
    let mut outside = std::process::Command::new("sleep")
        .arg("77.7")
        .spawn()
        .unwrap();
    let _stop = crate::support::Kill(outside.id() as i32);
    let pid = outside.id();
    let r = run(&mut env.script(&format!(
        "cat /proc/{pid}/cmdline; kill -0 {pid} && echo signalled; ps -e -o pid=,comm= | wc -l; ps -e -o comm="
    )));
    assert!(!r.stdout().contains("77.7"), "{}", r.stdout());
    assert!(!r.stdout().contains("signalled"), "{}", r.stdout());
    let out = r.stdout();
    // pid 1, the command's bash, ps (and wc, in a pipeline).
    let count: usize = out.lines().next().unwrap().trim().parse().unwrap();
    assert!(count <= 4, "{}", r.stdout());
    assert!(!r.stdout().contains("sleep"), "{}", r.stdout());
    let record = last_confinement(&env);
    assert_eq!(record["processes"], "own", "{record}");
    assert!(
        record["replaced"].to_string().contains("\"/tmp\""),
        "{record}"
    );
    // A background process of one command lives on, unseen by the next.
    let r = run(&mut env.script("sleep 77.8 > /dev/null 2>&1 & echo started"));
    assert_eq!(r.stdout(), "started\n", "{}", r.stderr());
    assert!(crate::support::alive("sleep 77.8"));
    let r = run(&mut env.script("ps -e -o comm="));
    assert!(!r.stdout().contains("sleep"), "{}", r.stdout());
    crate::support::kill_all("sleep 77.8");
    let _ = outside.kill();
    let _ = outside.wait();
}

/// The home's view is remembered with the sandbox's plan (what of
/// `HOME_READ` the home has) and follows the home: a configuration file
/// made after the plan was stored is shown to the next command.
#[test]
fn the_home_view_follows_files_made_after_it_was_remembered() {
    if !landlock_or_skip("home view cached") {
        return;
    }
    let env = Env::supervision_only().with_env(
        "AUTOMODE_SETTINGS_JSON",
        &json!({"autoMode": {"enabled": false}}).to_string(),
    );
    // Past the window in which a plan just built is not stored.
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..2 {
        let r = run(&mut env.script("true"));
        assert_eq!(r.code(), Some(0), "{}", r.stderr());
    }
    let stored = std::fs::read_dir(env.root().join("state/automode/sandbox"))
        .unwrap()
        .flatten()
        .any(|e| read(&e.path()).contains("\"home_rows\""));
    assert!(stored, "no plan was stored");
    write(&env.home.join(".editorconfig"), "root = true\n");
    let r = run(&mut env.script(&format!("cat {}/.editorconfig", env.home.display())));
    assert_eq!(r.stdout(), "root = true\n", "{}", r.stderr());
}

/// Where a mount namespace can be made the home is allow-listed: the
/// project, toolchains, caches and the configuration builds read are
/// there, other projects and files are not (`sandbox.read` adds one);
/// without namespaces the deny table applies and status says which.
#[test]
fn the_home_shows_only_what_builds_need() {
    if !landlock_or_skip("home view") {
        return;
    }
    let env = Env::supervision_only().with_env(
        "AUTOMODE_SETTINGS_JSON",
        &json!({"autoMode": {"enabled": false}, "sandbox": {"read": ["~/notes/shared.txt"]}})
            .to_string(),
    );
    write(&env.home.join("code/other/.env"), "OTHER_SECRET=1\n");
    write(&env.home.join("code/other/main.py"), "print('other')\n");
    write(&env.home.join("notes/private.txt"), "private\n");
    write(&env.home.join("notes/shared.txt"), "shared\n");
    write(&env.home.join(".gitconfig"), "[user]\n\tname = Home User\n");
    write(
        &env.home.join(".local/bin/mytool"),
        "#!/bin/sh\necho mytool ran\n",
    );
    std::fs::set_permissions(
        env.home.join(".local/bin/mytool"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let h = env.home.display().to_string();
    let r = run(&mut env.script(&format!(
        "cat {h}/code/other/.env; cat {h}/code/other/main.py; ls {h}/code; \
         cat {h}/notes/shared.txt; git config user.name; {h}/.local/bin/mytool; \
         cat {h}/notes/private.txt"
    )));
    let out = r.stdout();
    assert!(!out.contains("OTHER_SECRET"), "{out}");
    assert!(!out.contains("other"), "{out}");
    assert!(!out.contains("private"), "{out}");
    assert!(out.contains("shared\n"), "{out}: {}", r.stderr());
    assert!(out.contains("Home User\n"), "{out}: {}", r.stderr());
    assert!(out.contains("mytool ran\n"), "{out}: {}", r.stderr());
    assert!(r.stderr().contains("sandbox.read"), "{}", r.stderr());
    // The home's configuration stays read-only.
    let r = run(&mut env.script(&format!("echo x >> {h}/.gitconfig")));
    assert_ne!(r.code(), Some(0));
    assert_eq!(
        read(&env.home.join(".gitconfig")),
        "[user]\n\tname = Home User\n"
    );
    // A dotfile linked into a dotfiles repository is there, linked.
    write(&env.home.join("dotfiles/editorconfig"), "root = true\n");
    std::os::unix::fs::symlink("dotfiles/editorconfig", env.home.join(".editorconfig")).unwrap();
    let r = run(&mut env.script(&format!("cat {h}/.editorconfig")));
    assert_eq!(r.stdout(), "root = true\n", "{}", r.stderr());
    let r = run(env.automode().arg("status"));
    assert!(r.stdout().contains("home: allow-listed"), "{}", r.stdout());
    // Without user namespaces (fresh state): the deny table; status says
    // so.
    let env2 = Env::supervision_only();
    write(&env2.home.join("notes/private.txt"), "private\n");
    let bash = env2.shims.join("bash");
    let mut c = env2.command("python3");
    c.arg(helper("no_userns.py")).arg(&bash).args([
        "-c",
        &format!("cat {}/notes/private.txt", env2.home.display()),
    ]);
    assert_eq!(run(&mut c).stdout(), "private\n");
    let mut c = env2.command("python3");
    c.arg(helper("no_userns.py"))
        .arg(crate::support::automode_bin())
        .arg("status");
    assert!(run(&mut c).stdout().contains("home: deny-listed"));
}

fn which(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

#[test]
fn credentials_are_withheld_from_what_automode_does_not_know() {
    if !landlock_or_skip("credentials") {
        return;
    }
    let env = confined().with_env("FOO_API_KEY", "sk-secret-1234");
    let r = run(&mut env.script("printenv FOO_API_KEY || echo none; exit 3"));
    assert_eq!(r.stdout(), "none\n");
    assert!(
        r.stderr().contains("FOO_API_KEY"),
        "the notice names it: {}",
        r.stderr()
    );
    let env = env.with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}, "sandbox": {"passEnv": ["FOO_API_KEY"]}}"#,
    );
    let r = run(&mut env.script("printenv FOO_API_KEY"));
    assert_eq!(r.stdout(), "sk-secret-1234\n");
    // A known program allowed as itself keeps what it uses.
    let env = Env::new()
        .with_env("SSH_AUTH_SOCK", "/tmp/agent.sock")
        .with_env("FOO_API_KEY", "x");
    let check = |script: &str| -> Value {
        let r = run(env.automode().args(["check", "--json", script]));
        serde_json::from_str(&r.stdout()).unwrap()
    };
    let v = check("git status");
    assert_eq!(
        v["sandbox"]["withheld_env"],
        json!(["FOO_API_KEY"]),
        "{}",
        v["sandbox"]
    );
    let v = check("ls");
    assert_eq!(
        v["sandbox"]["withheld_env"],
        json!(["FOO_API_KEY", "SSH_AUTH_SOCK"]),
        "{}",
        v["sandbox"]
    );
    // Passwords by any name, URLs with a password in them, connection
    // strings: a project script gets none; a URL without one stays.
    let env = confined()
        .with_env("PGPASSWORD", "pg-secret")
        .with_env(
            "DATABASE_URL",
            "postgres://app:db-secret@db.internal:5432/app",
        )
        .with_env("REDIS_URL", "redis://cache.internal:6379")
        .with_env("SENTRY_DSN", "https://key@sentry.example/1");
    std::fs::write(
        env.work.join("show.py"),
        "import os\nfor k in ['PGPASSWORD', 'DATABASE_URL', 'REDIS_URL', 'SENTRY_DSN']:\n    print(k, os.environ.get(k, '-'))\n",
    )
    .unwrap();
    let r = run(&mut env.script("python3 show.py"));
    assert_eq!(
        r.stdout(),
        "PGPASSWORD -\nDATABASE_URL -\nREDIS_URL redis://cache.internal:6379\nSENTRY_DSN -\n",
        "{}",
        r.stderr()
    );
}

#[test]
fn a_widening_is_reviewed_and_lasts_one_command() {
    if !landlock_or_skip("widening") {
        return;
    }
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().join("granted.txt");
    let script = format!(
        "AUTOMODE_WRITE={} python3 -c \"open('{}', 'w').write('ok')\"",
        target.display(),
        target.display()
    );
    let mock = MockLlm::start(vec![oa_text("1", "stop"), oa_call(ALLOW, "stop")]);
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            &crate::classifier::settings(&mock, "openai", json!({})),
        )
        .with_env("MOCK_KEY", "sk-mock-0123456789abcdefghij");
    let v: Value =
        serde_json::from_str(&run(env.automode().args(["check", "--json", &script])).stdout())
            .unwrap();
    assert_eq!(
        v["decision"], "classify",
        "never an allow tier: {}",
        v["reason"]
    );
    assert!(
        v["reason"].as_str().unwrap().contains("AUTOMODE_WRITE"),
        "{}",
        v["reason"]
    );
    let r = run(&mut env.script(&script));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(read(&target), "ok");
    let sent = mock.requests();
    assert!(
        sent.iter()
            .any(|r| r.body.to_string().contains("AUTOMODE_WRITE")),
        "the classifier saw it"
    );
    // The next command does not have it.
    let off = confined();
    let r = run(&mut off.script(&format!("echo again > {}", target.display())));
    assert_ne!(r.code(), Some(0));
    assert_eq!(read(&target), "ok");
    // Refused outright: the home itself, a profile.
    let home = env.home.display().to_string();
    for bad in [
        format!("AUTOMODE_WRITE={home} ls"),
        format!("AUTOMODE_WRITE={home}/.bashrc ls"),
        "AUTOMODE_WRITE=/etc ls".to_string(),
    ] {
        let r = run(&mut env.script(&bad));
        assert_eq!(r.code(), Some(BLOCKED), "{bad}");
        assert!(
            r.stderr().contains("sandbox-widening"),
            "{bad}: {}",
            r.stderr()
        );
    }
}

#[test]
fn an_approved_outside_target_is_granted_to_that_command_only() {
    if !landlock_or_skip("approved target") {
        return;
    }
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"permissions": {"allow": ["bash(cp dist/app *)"]}}"#,
    );
    let dest = env.home.join("bin");
    std::fs::create_dir_all(&dest).unwrap();
    write(&env.work.join("dist/app"), "app\n");
    let script = format!("cp dist/app {}", dest.join("app").display());
    // A new file: the directory it is created in, and nothing else.
    let v: Value =
        serde_json::from_str(&run(env.automode().args(["check", "--json", &script])).stdout())
            .unwrap();
    assert_eq!(v["tier"], "allow-rule", "{}", v["reason"]);
    let grants = v["sandbox"]["grants"].as_array().unwrap();
    assert_eq!(grants.len(), 1, "{grants:?}");
    assert_eq!(grants[0]["path"], dest.display().to_string());
    let r = run(&mut env.script(&script));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(read(&dest.join("app")), "app\n");
    // The same copy elsewhere in the home has no grant.
    let mut off = confined_like(&env);
    off.arg("-c").arg(format!(
        "cp {} {}",
        env.work.join("dist/app").display(),
        env.home.join("app2").display()
    ));
    let r = run(&mut off);
    assert_ne!(r.code(), Some(0));
    assert!(!env.home.join("app2").exists());
}

/// The same home and state, auto mode off.
fn confined_like(env: &Env) -> Command {
    let mut c = env.bash();
    c.env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}}"#,
    );
    c
}

#[test]
fn the_file_size_limit_stops_a_flood() {
    if !landlock_or_skip("file size") {
        return;
    }
    let env = Env::supervision_only().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}, "sandbox": {"maxFileBytes": 1048576}}"#,
    );
    let r = run(&mut env.script("head -c 3000000 /dev/zero > big.bin"));
    assert_ne!(r.code(), Some(0));
    assert!(
        r.stderr().contains("larger than the sandbox allows"),
        "{}",
        r.stderr()
    );
    assert!(std::fs::metadata(env.work.join("big.bin")).unwrap().len() <= 1_048_576);
}

#[test]
fn network_deny_leaves_only_loopback() {
    if !landlock_or_skip("network") {
        return;
    }
    let outside = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = outside.local_addr().unwrap().port();
    let env = Env::supervision_only().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}, "sandbox": {"network": "deny"}}"#,
    );
    let probe = format!(
        "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', {port}), 2); print('reached')\""
    );
    let r = run(&mut env.script(&probe));
    assert!(!r.stdout().contains("reached"), "{}", r.stdout());
    // Loopback inside works (a server and its client in the command).
    let r = run(&mut env.script(
        "python3 -c \"import socket; l = socket.socket(); l.bind(('127.0.0.1', 0)); l.listen(); c = socket.create_connection(l.getsockname()); print('inside ok')\"",
    ));
    assert_eq!(r.stdout(), "inside ok\n", "{}", r.stderr());
    // With the network open, the host's loopback is reached; behind the
    // wall (the default) it is not.
    let open = Env::supervision_only().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}, "sandbox": {"network": "open"}}"#,
    );
    let r = run(&mut open.script(&probe));
    assert_eq!(r.stdout(), "reached\n", "{}", r.stderr());
    let r = run(&mut confined().script(&probe));
    assert!(!r.stdout().contains("reached"), "{}", r.stdout());
}

#[test]
fn without_landlock_auto_warns_once_and_require_refuses() {
    let env = Env::new().with_env("AUTOMODE_SESSION", "no-landlock");
    let shim = env.shims.join("bash");
    let via = |env: &Env| {
        let mut c = env.command("python3");
        c.arg(helper("no_landlock.py"))
            .arg(&shim)
            .args(["-c", "echo ran"]);
        c
    };
    let r = run(&mut via(&env));
    assert_eq!(r.stdout(), "ran\n", "{}", r.stderr());
    assert!(
        r.stderr().contains("sandbox is not enforced"),
        "{}",
        r.stderr()
    );
    let r = run(&mut via(&env));
    assert_eq!(r.stdout(), "ran\n");
    assert_eq!(r.stderr(), "", "once per session");
    let env = env.with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"sandbox": {"mode": "require"}}"#,
    );
    let r = run(&mut via(&env));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert_eq!(r.stdout(), "");
    assert!(r.stderr().contains("\"require\""), "{}", r.stderr());
    let mut status = env.command("python3");
    status
        .arg(helper("no_landlock.py"))
        .arg(automode_bin())
        .arg("status");
    let r = run(&mut status);
    assert!(
        r.stdout().contains("sandbox: NOT enforced"),
        "{}",
        r.stdout()
    );
}

#[test]
fn exec_and_status_and_check_show_the_sandbox() {
    if !landlock_or_skip("exec") {
        return;
    }
    let env = confined();
    let rc = env.home.join(".bashrc");
    let r = run(env
        .automode()
        .args(["exec", "--", "python3", "-c"])
        .arg(format!("open('{}', 'a').write('evil')", rc.display())));
    assert_ne!(r.code(), Some(0));
    assert_eq!(read(&rc), "# rc\n");
    let r = run(env.automode().arg("status"));
    assert!(
        r.stdout().contains("sandbox: enforced (Landlock ABI"),
        "{}",
        r.stdout()
    );
    let r = run(env.automode().args(["status", "--json"]));
    let v: Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v["sandbox"]["status"]["state"], "enforced");
    let v: Value =
        serde_json::from_str(&run(env.automode().args(["check", "--json", "ls"])).stdout())
            .unwrap();
    let s = &v["sandbox"];
    let work = std::fs::canonicalize(&env.work)
        .unwrap()
        .display()
        .to_string();
    assert!(
        s["write"].as_array().unwrap().iter().any(|w| *w == work),
        "{s}"
    );
    assert!(
        s["read_deny"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d.as_str().unwrap().ends_with("/.ssh")),
        "{s}"
    );
    assert_eq!(s["network"], "allowlist");
    // The audit record carries it.
    let r = run(&mut env.script("true"));
    assert_eq!(r.code(), Some(0));
    let r = run(env.automode().args(["log", "--json", "-n", "1"]));
    let v: Value = serde_json::from_str(r.stdout().trim()).unwrap();
    assert_eq!(v["sandbox"]["status"]["state"], "enforced", "{v}");
}

/// A program automode does not know, on PATH outside the project: it
/// records its arguments, makes `./out/tool`, and tries the home.
fn frobnicate_on_path(env: &mut Env) {
    let bin = env.root().join("bin");
    write(
        &bin.join("frobnicate"),
        "#!/bin/sh\necho \"$@\" > ran.txt\nmkdir -p out\nprintf '#!/bin/sh\\necho tool ran\\n' > out/tool\nchmod +x out/tool\necho owned >> \"$HOME/.bashrc\" 2>/dev/null || echo refused > refused.txt\n",
    );
    std::fs::set_permissions(
        bin.join("frobnicate"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    env.path = format!("{}:{}", bin.display(), env.path);
}

#[test]
fn unknown_programs_run_contained_with_the_policy_on() {
    if !landlock_or_skip("contained") {
        return;
    }
    let mut env = Env::new();
    write(&env.home.join(".bashrc"), "# rc\n");
    frobnicate_on_path(&mut env);
    // Not known, literal, writes nowhere the analysis sees outside: the
    // contained tier runs it, and the kernel keeps it out of the home.
    let r = run(env
        .automode()
        .args(["check", "--json", "frobnicate tasks get '#002' --json"]));
    let v: Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v["decision"], "allow", "{v}");
    assert_eq!(v["tier"], "contained", "{v}");
    let r = run(&mut env.script("frobnicate tasks get '#002' --json && ./out/tool"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout(), "tool ran\n");
    assert_eq!(read(&env.work.join("ran.txt")), "tasks get #002 --json\n");
    assert_eq!(read(&env.work.join("refused.txt")), "refused\n");
    assert_eq!(read(&env.home.join(".bashrc")), "# rc\n");
    // A review reason stays the classifier's (none here: blocked).
    let r = run(&mut env.script("frobnicate && vercel deploy --prod"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    // With the sandbox off, the tier is off.
    let off = env.with_env("AUTOMODE_SETTINGS_JSON", r#"{"sandbox": {"mode": "off"}}"#);
    let r = run(off.automode().args(["check", "--json", "frobnicate"]));
    let v: Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v["decision"], "classify", "{v}");
}

/// The audit log's records, oldest first.
fn audit(env: &Env) -> Vec<Value> {
    std::fs::read_to_string(env.root().join("state/automode/audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The last outcome record's `confinement`.
pub(crate) fn last_confinement(env: &Env) -> Value {
    audit(env)
        .into_iter()
        .rev()
        .find(|r| r["event"] == "outcome")
        .map(|r| r["confinement"].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn with_auto_mode_off_commands_stay_confined_and_no_widening_is_honoured() {
    if !landlock_or_skip("auto_mode_off_confined") {
        return;
    }
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    for mode in ["require", "auto"] {
        let env = Env::new().with_env(
            "AUTOMODE_SETTINGS_JSON",
            &json!({"autoMode": {"enabled": false}, "sandbox": {"mode": mode}}).to_string(),
        );
        for (asked, name) in [
            ("AUTOMODE_SANDBOX=off".to_string(), "lifted"),
            (
                format!("AUTOMODE_WRITE={}", outside.path().join("w").display()),
                "w",
            ),
        ] {
            let target = outside.path().join(name);
            let script = format!("{asked} touch {}", target.display());
            let r = run(&mut env.script(&script));
            assert_eq!(r.code(), Some(BLOCKED), "{mode}: {script}: {}", r.stderr());
            assert!(!target.exists(), "{mode}: {script} ran");
            assert!(
                r.stderr().contains("auto mode is off") && r.stderr().contains("nothing can grant"),
                "{}",
                r.stderr()
            );
        }
        // Without the prefix: the kernel refuses, and the record says
        // what the child applied.
        let target = outside.path().join("plain");
        let r = run(&mut env.script(&format!("touch {}", target.display())));
        assert_ne!(r.code(), Some(0));
        assert!(!target.exists());
        let c = last_confinement(&env);
        assert_eq!(c["state"], "confined", "{c}");
        assert!(c["landlock_abi"].as_u64().unwrap() >= 2, "{c}");
        assert_eq!(c["no_new_privs"], true, "{c}");
    }
}

#[test]
fn only_the_users_approval_lifts_the_sandbox() {
    if !landlock_or_skip("only_the_user_lifts") {
        return;
    }
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().join("lifted");
    let script = format!("AUTOMODE_SANDBOX=off touch {}", target.display());
    // A classifier that allows everything is never asked.
    let mock = MockLlm::start(vec![oa_text("1", "stop"), oa_call(ALLOW, "stop")]);
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            &crate::classifier::settings(&mock, "openai", json!({})),
        )
        .with_env("MOCK_KEY", "sk-mock-0123456789abcdefghij")
        .with_env("AUTOMODE_SESSION", "lift");
    let r = run(&mut env.script(&script));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains("needs the user's approval"),
        "{}",
        r.stderr()
    );
    assert!(!target.exists());
    assert!(mock.requests().is_empty(), "the classifier was asked");
    let at = r.stderr().find("automode approve ").unwrap();
    let code = r.stderr()[at + "automode approve ".len()..][..7].to_string();
    let ok = run(env.automode().args(["approve", &code]));
    assert_eq!(ok.code(), Some(0), "{}", ok.stderr());
    let r = run(&mut env.script(&script));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(target.exists(), "the approved command ran unconfined");
    let c = last_confinement(&env);
    assert_eq!(c["state"], "unconfined", "{c}");
    assert!(
        c["because"].as_str().unwrap().contains("user approved"),
        "{c}"
    );
    // The approval was used up: the next try asks again.
    std::fs::remove_file(&target).unwrap();
    let r = run(&mut env.script(&script));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(!target.exists());
    // sandbox.mode off: unconfined, and the record says whose choice.
    let off = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}, "sandbox": {"mode": "off"}}"#,
    );
    let r = run(&mut off.script(&format!("touch {}", outside.path().join("off").display())));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let c = last_confinement(&off);
    assert_eq!(c["state"], "unconfined", "{c}");
    assert!(
        c["because"]
            .as_str()
            .unwrap()
            .contains("sandbox.mode is \"off\""),
        "{c}"
    );
}

#[test]
fn denied_paths_are_kept_from_every_command_by_the_sandbox() {
    if !landlock_or_skip("denied_paths_in_the_sandbox") {
        return;
    }
    for covered in [false, true] {
        let env = Env::new().with_env(
            "AUTOMODE_SETTINGS_JSON",
            &json!({"deniedPaths": ["~/secrets", "private"]}).to_string(),
        );
        if covered {
            // A git project: the command gets a mount namespace, and the
            // denied paths are covered there instead of carved.
            git(&env.work, &["init", "-q"]);
        }
        write(&env.home.join("secrets/key"), "TOPSECRET\n");
        write(&env.work.join("private/notes"), "PRIVATE\n");
        // A project script the agent wrote with its editor: its text
        // names no denied path.
        write(
            &env.work.join("leak.py"),
            "import os\nfor p in [os.path.expanduser('~/sec' + 'rets/key'), 'priv' + 'ate/notes']:\n    try:\n        print(open(p).read().strip())\n    except OSError as e:\n        print('read refused', e.errno)\n    try:\n        open(p, 'a').write('x')\n        print('wrote', p)\n    except OSError as e:\n        print('write refused', e.errno)\n",
        );
        let r = run(&mut env.script("python3 leak.py"));
        let out = r.stdout();
        assert!(
            !out.contains("TOPSECRET") && !out.contains("PRIVATE"),
            "{covered}: {out}"
        );
        assert!(!out.contains("wrote"), "{covered}: {out}");
        assert_eq!(out.matches("read refused").count(), 2, "{covered}: {out}");
        assert_eq!(read(&env.home.join("secrets/key")), "TOPSECRET\n");
        assert_eq!(read(&env.work.join("private/notes")), "PRIVATE\n");
        // `check --json` lists them among the sandbox's denied reads.
        let v: Value =
            serde_json::from_str(&run(env.automode().args(["check", "--json", "ls"])).stdout())
                .unwrap();
        let denied = v["sandbox"]["read_deny"].to_string();
        assert!(
            denied.contains("/home/secrets") && denied.contains("/work/private"),
            "{denied}"
        );
    }
}

#[test]
fn with_the_home_under_tmp_the_hint_and_doctor_say_what_works() {
    if !landlock_or_skip("home_under_tmp") {
        return;
    }
    let tmp_home = tempfile::tempdir_in("/tmp").unwrap();
    let env = Env::new().with_env("HOME", &tmp_home.path().display().to_string());
    let r = run(&mut env.script("mktemp"));
    assert_ne!(r.code(), Some(0));
    let err = r.stderr();
    assert!(err.contains("lies inside it"), "{err}");
    assert!(!err.contains("AUTOMODE_WRITE"), "{err}");
    // What it proposes works.
    let at = err.find("mkdir -p ").unwrap();
    let proposed = &err[at..err[at..].find(" <the same command>").unwrap() + at];
    let r = run(&mut env.script(&format!("{proposed} mktemp")));
    assert_eq!(r.code(), Some(0), "{proposed}: {}", r.stderr());
    assert!(
        r.stdout()
            .starts_with(&env.work.join(".tmp").display().to_string())
    );
    for view in [["doctor"].as_slice(), ["status"].as_slice()] {
        let r = run(env.automode().args(view));
        assert!(
            r.stdout().contains("lies under /tmp"),
            "{view:?}: {}",
            r.stdout()
        );
    }
}

#[test]
fn an_approved_file_the_tool_replaces_says_the_user_must_run_it() {
    if !landlock_or_skip("approved_file_replaced") {
        return;
    }
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"autoMode": {"classifierModel": "none"}}"#,
        )
        .with_env("AUTOMODE_SESSION", "replaced");
    // A file in the home, named by `--file` (an approved `git config
    // --global` gets its directory: `approval::an_approved_global_git_…`;
    // the home is never granted to anything else).
    let config = env.home.join("settings.conf");
    write(&config, "[core]\n");
    let script = format!(
        "AUTOMODE_WRITE={} git config --file {} user.name agent",
        config.display(),
        config.display()
    );
    let r = run(&mut env.script(&script));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    let at = r.stderr().find("automode approve ").unwrap();
    let code = r.stderr()[at + "automode approve ".len()..][..7].to_string();
    assert_eq!(run(env.automode().args(["approve", &code])).code(), Some(0));
    let r = run(&mut env.script(&script));
    assert_ne!(r.code(), Some(0));
    assert_eq!(read(&config), "[core]\n");
    let err = r.stderr();
    assert!(err.contains("was granted to this command"), "{err}");
    assert!(
        err.contains("the user must run this command themselves"),
        "{err}"
    );
    assert!(!err.contains("AUTOMODE_WRITE="), "no loop: {err}");
}

/// A Python probe that tries each way to the network the seccomp filter
/// shuts and prints what the kernel answered.
const SOCKET_PROBE: &str = r#"
import ctypes, errno, socket
def attempt(name, f):
    try:
        s = f()
        print(name, "open")
        s.close()
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
attempt("tcp", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
attempt("udp", lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM))
attempt("unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("mptcp", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262))
attempt("sctp", lambda: socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 132))
attempt("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
attempt("icmp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP))
attempt("packet", lambda: socket.socket(17, socket.SOCK_RAW, 0))
attempt("vsock", lambda: socket.socket(40, socket.SOCK_STREAM, 0))
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 8, params)
print("io_uring", "open" if fd >= 0 else errno.errorcode.get(ctypes.get_errno()))
"#;

#[test]
fn a_confined_network_shuts_the_ways_around_it() {
    if !landlock_or_skip("seccomp") {
        return;
    }
    let env = Env::supervision_only().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}, "sandbox": {"network": "deny"}}"#,
    );
    std::fs::write(env.work.join("probe.py"), SOCKET_PROBE).unwrap();
    let r = run(&mut env.script("python3 probe.py"));
    let out = r.stdout();
    for open in ["tcp open", "udp open", "unix open"] {
        assert!(out.contains(open), "{open}: {out}{}", r.stderr());
    }
    for shut in [
        "mptcp EPERM",
        "sctp EPERM",
        "raw EPERM",
        "icmp EPERM",
        "packet EPERM",
        "vsock EPERM",
        "io_uring EPERM",
    ] {
        assert!(out.contains(shut), "{shut}: {out}");
    }
    let c = last_confinement(&env);
    assert_eq!(c["seccomp"], true, "{c}");
    // With the network open, nothing of it is filtered (today's
    // behaviour): MPTCP and io_uring open where the kernel has them.
    let open = Env::supervision_only().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}, "sandbox": {"network": "open"}}"#,
    );
    std::fs::write(open.work.join("probe.py"), SOCKET_PROBE).unwrap();
    let r = run(&mut open.script("python3 probe.py"));
    assert!(!r.stdout().contains("io_uring EPERM"), "{}", r.stdout());
    assert_eq!(last_confinement(&open)["seccomp"], false);
}

/// A project inside the home (the usual place) is seen through the
/// home's view; its protected paths stay read-only by a relative path
/// too (the command works in the view, not under it), in a later command
/// of the session as in the first.
#[test]
fn protected_paths_hold_by_relative_path_in_a_project_in_the_home() {
    if !landlock_or_skip("project in the home") {
        return;
    }
    let env = Env::supervision_only();
    let project = env.home.join("code/app");
    std::fs::create_dir_all(&project).unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&project)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    let config = read(&project.join(".git/config"));
    for _ in 0..2 {
        let mut c = env.script(
            "echo evil > .git/hooks/pre-commit; echo evil >> .git/config; echo ok > notes.txt",
        );
        c.current_dir(&project);
        let r = run(&mut c);
        assert_eq!(
            r.stderr().matches("Read-only file system").count(),
            2,
            "{}",
            r.stderr()
        );
        assert!(!project.join(".git/hooks/pre-commit").exists());
        assert_eq!(read(&project.join(".git/config")), config);
        assert_eq!(read(&project.join("notes.txt")), "ok\n");
    }
}
