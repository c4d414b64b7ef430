//! Checkpoints and `automode undo`, through the real binary on temp
//! projects: what each destructive command changed comes back byte for
//! byte with its mode; editor edits between commands, ignored `.env`
//! files and the watcher's view are covered; build trees are never
//! touched; a checkpoint killed at any point leaves the store readable
//! and the project as it was; the size and age limits hold; the user's
//! command only. Every test works in its own temp home and project.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::support::{Env, automode_bin, run};

const BLOCKED: i32 = 121;

/// A project in the test's working directory: a git repository with a
/// commit, an ignored `.env`, an executable, a link, a binary file, and a
/// `node_modules` tree.
fn project(env: &Env) -> PathBuf {
    let w = env.work.clone();
    let files: &[(&str, &str)] = &[
        ("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n"),
        (
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
        ),
        (
            "notes.txt",
            "remember the milk and the eggs and the bread\n",
        ),
        (
            "package.json",
            "{\"name\": \"demo\", \"version\": \"1.0.0\"}\n",
        ),
        (".gitignore", ".env\nnode_modules/\n"),
        (".env", "API_KEY=local-only\n"),
        ("run.sh", "#!/bin/sh\necho run\n"),
        ("node_modules/dep/index.js", "module.exports = 1;\n"),
    ];
    for (p, text) in files {
        let path = w.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::set_permissions(w.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        w.join("data.bin"),
        (0..=255u8).cycle().take(5000).collect::<Vec<u8>>(),
    )
    .unwrap();
    std::os::unix::fs::symlink("src/main.rs", w.join("main-link")).unwrap();
    git(
        env,
        "init -q . && git add -A && git -c user.email=t@t -c user.name=t commit -qm init",
    );
    w
}

fn git(env: &Env, args: &str) {
    let r = run(&mut env.real(&format!("git {args}")));
    assert_eq!(r.code(), Some(0), "git {args}: {}", r.stderr());
}

/// Every file, link and directory under `root` with its mode and content,
/// but git's own and `node_modules`.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, (u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let name = e.file_name();
            if name == ".git" || name == "node_modules" {
                continue;
            }
            let p = e.path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let content = if m.file_type().is_symlink() {
                std::fs::read_link(&p)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else if m.is_file() {
                std::fs::read(&p).unwrap()
            } else {
                stack.push(p.clone());
                b"<dir>".to_vec()
            };
            out.insert(rel, (m.mode(), content));
        }
    }
    out
}

fn checkpoints(env: &Env) -> Vec<serde_json::Value> {
    let r = run(env.automode().args(["undo", "--json"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    v["checkpoints"].as_array().cloned().unwrap_or_default()
}

fn last_checkpoint(env: &Env) -> u64 {
    checkpoints(env)
        .last()
        .and_then(|c| c["n"].as_u64())
        .expect("a checkpoint")
}

fn undo_to(env: &Env, n: u64, extra: &[&str]) -> super::support::Run {
    let mut c = env.automode();
    c.args(["undo", "--to", &n.to_string(), "--yes"])
        .args(extra);
    run(&mut c)
}

/// The commands the text rules let through or stopped before
/// checkpoints: each runs (no review), changes the project, and `automode
/// undo` brings back the exact bytes and modes.
#[test]
fn each_destructive_command_runs_and_undo_brings_back_exact_bytes_and_modes() {
    let cases: &[(&str, &str)] = &[
        ("git restore -SW .", "staged"),
        ("fmt -w 1 notes.txt > notes.txt", ""),
        ("echo '' | tee src/*.rs", ""),
        ("sed -i '1,$d' src/*.rs", ""),
        ("jq . package.json > package.json", ""),
        ("perl -pi -e '$_=\"\"' src/*.rs", ""),
        ("python3 -c \"open('.env','w').write('X=1')\"", ""),
        ("mv -T src target && rm -rf target", ""),
        ("chmod -x run.sh && rm main-link data.bin", ""),
        ("git checkout -- .", "dirty"),
        ("git clean -fd", "untracked"),
        ("rm -r src", ""),
        ("mv notes.txt package.json", ""),
    ];
    for (script, setup) in cases {
        let env = Env::new();
        let root = project(&env);
        match *setup {
            "staged" => {
                std::fs::write(root.join("src/lib.rs"), "pub fn staged() {}\n").unwrap();
                git(&env, "add src/lib.rs");
                std::fs::write(root.join("src/main.rs"), "fn main() { /* edit */ }\n").unwrap();
            }
            "dirty" => std::fs::write(root.join("notes.txt"), "uncommitted thoughts\n").unwrap(),
            "untracked" => {
                std::fs::create_dir_all(root.join("drafts")).unwrap();
                std::fs::write(root.join("drafts/plan.md"), "# plan\n").unwrap();
                std::fs::write(root.join("scratch.txt"), "scratch\n").unwrap();
            }
            _ => {}
        }
        let before = snapshot(&root);
        let r = run(&mut env.script(script));
        assert_ne!(r.code(), Some(BLOCKED), "{script}: {}", r.stderr());
        assert!(
            !r.stderr().contains("no checkpoint"),
            "{script}: {}",
            r.stderr()
        );
        assert_ne!(snapshot(&root), before, "{script} changed nothing");
        let n = last_checkpoint(&env);
        let u = undo_to(&env, n, &[]);
        assert_eq!(u.code(), Some(0), "{script}: {}{}", u.stdout(), u.stderr());
        assert_eq!(snapshot(&root), before, "{script}: {}", u.stdout());
        // The node_modules tree was never the checkpoint's to touch.
        assert!(root.join("node_modules/dep/index.js").exists(), "{script}");
    }
}

/// Deletions from real developers' sessions (the agent's own drafts, made
/// before the session's first command): with checkpoints they run without
/// review; with checkpoints off the same deletions wait, as before.
#[test]
fn the_deletions_of_real_sessions_run_without_review_and_only_with_checkpoints() {
    let scripts = [
        "rm test_imports.py test_simple_pm.py",
        "rm assets/reports/mcp/demo_*.json",
        "rmdir assets/scripts assets/contracts assets/mcp",
        "mv tests/* assets/development/tests/",
        "echo a > gen1.txt && echo b > gen2.txt && rm gen1.txt gen2.txt",
    ];
    let setup = |root: &Path| {
        for f in [
            "test_imports.py",
            "test_simple_pm.py",
            "assets/reports/mcp/demo_1.json",
            "assets/reports/mcp/demo_2.json",
            "tests/test_a.py",
            "tests/test_b.py",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("# {f}\n")).unwrap();
        }
        for d in [
            "assets/scripts",
            "assets/contracts",
            "assets/mcp",
            "assets/development/tests",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
    };
    for script in scripts {
        let env = Env::new();
        let root = project(&env);
        setup(&root);
        let before = snapshot(&root);
        let r = run(&mut env.script(script));
        assert_eq!(r.code(), Some(0), "{script}: {}", r.stderr());
        let u = undo_to(&env, last_checkpoint(&env), &[]);
        assert_eq!(u.code(), Some(0), "{script}: {}", u.stderr());
        assert_eq!(snapshot(&root), before, "{script}");

        let off = Env::new().with_env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"checkpoint": {"enabled": false}}"#,
        );
        let root = project(&off);
        setup(&root);
        let r = run(&mut off.script(script));
        if script.starts_with("echo a") {
            // Files the line itself made: nothing existing is lost.
            continue;
        }
        assert_eq!(
            r.code(),
            Some(BLOCKED),
            "{script} without checkpoints: {}",
            r.stderr()
        );
        assert!(r.stderr().contains("automode undo"), "{}", r.stderr());
    }
}

/// A file over `checkpoint.maxFileBytes` is not kept: deleting it still
/// waits for review (and the message says undo could not bring it back);
/// a small one beside it is deleted at once.
#[test]
fn a_file_over_the_size_limit_is_not_kept_and_its_deletion_waits() {
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"checkpoint": {"maxFileBytes": 4000}}"#,
    );
    let root = project(&env);
    std::fs::write(root.join("big.log.bin"), vec![7u8; 9000]).unwrap();
    std::fs::write(root.join("small.txt"), "small\n").unwrap();
    let r = run(&mut env.script("rm big.log.bin"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains("checkpoint.maxFileBytes") && r.stderr().contains("automode undo"),
        "{}",
        r.stderr()
    );
    assert!(root.join("big.log.bin").exists());
    let r = run(&mut env.script("rm small.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    // The checkpoint lists the file it skipped (data.bin, 5000 bytes, too).
    let list = checkpoints(&env);
    assert!(
        list.last().unwrap()["skipped"].as_u64().unwrap() >= 2,
        "{list:?}"
    );
    let names = list.last().unwrap()["skipped_files"].to_string();
    assert!(
        names.contains("big.log.bin") && names.contains("9000"),
        "{names}"
    );
    let r = run(env.automode().arg("undo"));
    assert!(
        r.stdout()
            .contains("not kept (over checkpoint.maxFileBytes): ")
            && r.stdout().contains("big.log.bin"),
        "{}",
        r.stdout()
    );
    let u = undo_to(&env, last_checkpoint(&env), &[]);
    assert_eq!(u.code(), Some(0), "{}", u.stderr());
    assert_eq!(std::fs::read(root.join("small.txt")).unwrap(), b"small\n");
}

/// Edits made between commands (the agent's editor tool, not a shell
/// command) are in the next checkpoint: an undo brings back the edited
/// text, not the committed one. One file alone comes back with --file.
#[test]
fn editor_edits_between_commands_are_kept_and_one_file_comes_back_alone() {
    for watch in ["1", "0"] {
        let env = Env::new().with_env("AUTOMODE_CHECKPOINT_WATCH", watch);
        let root = project(&env);
        let r = run(&mut env.script("touch started"));
        assert_eq!(r.code(), Some(0), "{}", r.stderr());
        if watch == "1" {
            wait_for_watcher(&env);
        }
        // The editor writes, then the agent's command destroys.
        std::fs::write(root.join("src/lib.rs"), "// edited in the editor\n").unwrap();
        std::fs::write(root.join("notes.txt"), "edited notes\n").unwrap();
        let r = run(&mut env.script("rm src/lib.rs && echo gone > notes.txt"));
        assert_eq!(r.code(), Some(0), "{}", r.stderr());
        assert!(!root.join("src/lib.rs").exists());
        let u = run(env
            .automode()
            .args(["undo", "--file", "src/lib.rs", "--yes"]));
        assert_eq!(
            u.code(),
            Some(0),
            "watch={watch}: {}{}",
            u.stdout(),
            u.stderr()
        );
        assert_eq!(
            std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
            "// edited in the editor\n",
            "watch={watch}"
        );
        // Only that file: notes.txt keeps what the command wrote.
        assert_eq!(
            std::fs::read_to_string(root.join("notes.txt")).unwrap(),
            "gone\n"
        );
        // And the undo itself can be undone.
        let n = last_checkpoint(&env);
        let u = undo_to(&env, n, &[]);
        assert_eq!(u.code(), Some(0), "{}", u.stderr());
        assert!(!root.join("src/lib.rs").exists(), "watch={watch}");
    }
}

fn wait_for_watcher(env: &Env) {
    let state = env.root().join("state/automode/checkpoints");
    for _ in 0..100 {
        let sock = std::fs::read_dir(&state)
            .into_iter()
            .flatten()
            .flatten()
            .any(|d| d.path().join("watch.sock").exists());
        if sock {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the project's watcher did not start");
}

/// Through the watcher: a directory renamed and then written in, files
/// made in a new directory right after it appears, a deep tree removed —
/// each checkpoint holds exactly the project as it was.
#[test]
fn the_watcher_sees_renames_new_directories_and_removals() {
    let env = Env::new();
    let root = project(&env);
    run(&mut env.script("touch first"));
    wait_for_watcher(&env);
    let steps = [
        "mv src lib && echo '// moved' >> lib/main.rs",
        "mkdir -p deep/a/b/c && echo x > deep/a/b/c/f.txt && echo y > deep/a/g.txt",
        "rm -r deep lib",
        "chmod 600 notes.txt && ln -sf notes.txt link2",
    ];
    let mut before = Vec::new();
    for s in steps {
        before.push(snapshot(&root));
        let r = run(&mut env.script(s));
        assert_eq!(r.code(), Some(0), "{s}: {}", r.stderr());
    }
    // Back through each state, newest first.
    let list = checkpoints(&env);
    let ns: Vec<u64> = list.iter().map(|c| c["n"].as_u64().unwrap()).collect();
    let firsts = &ns[ns.len() - steps.len()..];
    for (i, n) in firsts.iter().enumerate().rev() {
        let u = undo_to(&env, *n, &[]);
        assert_eq!(u.code(), Some(0), "{}", u.stderr());
        assert_eq!(snapshot(&root), before[i], "before step {i}: {}", steps[i]);
    }
}

/// A checkpoint killed at random points: the store stays readable, the
/// project is untouched, and the checkpoints that completed still give
/// back what they hold.
#[test]
fn a_checkpoint_killed_at_any_point_leaves_the_store_readable_and_the_project_untouched() {
    let env = Env::new().with_env("AUTOMODE_CHECKPOINT_WATCH", "0");
    let root = project(&env);
    // Enough content that a checkpoint takes a while.
    for i in 0..600 {
        let d = root.join(format!("gen/d{}", i % 20));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(format!("f{i}.txt")), format!("{i} ").repeat(500)).unwrap();
    }
    let mut seed = 0x2545_f491_u64 ^ u64::from(std::process::id());
    for round in 0..12 {
        // New content each round, so each checkpoint writes objects.
        for i in (round..600).step_by(37) {
            let p = root.join(format!("gen/d{}/f{i}.txt", i % 20));
            std::fs::write(p, format!("round {round} file {i}\n").repeat(300)).unwrap();
        }
        let expected = snapshot(&root);
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_micros(seed % 120_000);
        let mut c = env.script("touch node_modules/.kept");
        let child = c
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = super::support::wait_with_guard(child, Duration::from_secs(30));
        // The command never changes the project; the checkpoint only reads.
        assert_eq!(snapshot(&root), expected, "round {round}");
        // The store opens (repairing a torn tail) and lists.
        let list = checkpoints(&env);
        assert!(list.len() <= round + 1, "{list:?}");
    }
    // A full checkpoint now, and the first state comes back from the
    // store whatever was cut.
    let r = run(&mut env.script("touch done"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let list = checkpoints(&env);
    let n = list.first().unwrap()["n"].as_u64().unwrap();
    let u = undo_to(&env, n, &[]);
    assert_eq!(u.code(), Some(0), "{}", u.stderr());
    assert!(!root.join("done").exists());
}

/// `checkpoint.maxBytes`: the oldest checkpoints go to make room; a
/// checkpoint that cannot fit even alone is not taken, and the command is
/// judged as without one (a deletion then waits).
#[test]
fn the_store_keeps_to_its_size_budget() {
    let env = Env::new()
        .with_env("AUTOMODE_CHECKPOINT_WATCH", "0")
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"checkpoint": {"maxBytes": 1048576}}"#,
        );
    let root = project(&env);
    // Not the session's own (made before its first command), not in git.
    std::fs::write(root.join("draft.md"), "not in git\n").unwrap();
    let noise = |seed: u64, n: usize| -> Vec<u8> {
        let mut x = seed * 2 + 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    };
    for round in 0..4u64 {
        for i in 0..3u64 {
            std::fs::write(
                root.join(format!("blob{i}.bin")),
                noise(round * 10 + i, 100_000),
            )
            .unwrap();
        }
        let r = run(&mut env.script("touch x"));
        assert_eq!(r.code(), Some(0), "{}", r.stderr());
        assert!(!r.stderr().contains("no checkpoint"), "{}", r.stderr());
    }
    let r = run(env.automode().args(["undo", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    assert!(v["bytes"].as_u64().unwrap() <= 1_048_576 + 64 * 1024, "{v}");
    let n: Vec<u64> = v["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["n"].as_u64().unwrap())
        .collect();
    assert!(n.first().copied().unwrap() > 1, "the oldest went: {n:?}");
    assert_eq!(n.last().copied(), Some(4));
    // More than the budget in one project: no checkpoint, today's rules.
    for i in 3..13u64 {
        std::fs::write(root.join(format!("blob{i}.bin")), noise(900 + i, 100_000)).unwrap();
    }
    let r = run(&mut env.script("rm draft.md"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains("no checkpoint could be taken"),
        "{}",
        r.stderr()
    );
    assert!(root.join("draft.md").exists());
    // --prune empties it.
    let r = run(env.automode().args(["undo", "--prune"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(checkpoints(&env).is_empty());
}

/// `automode undo` is the user's: inside an agent's command it refuses,
/// and without a terminal it restores only with --yes.
#[test]
fn undo_is_the_users_own_command() {
    let env = Env::new();
    let root = project(&env);
    run(&mut env.script("rm notes.txt"));
    let inside = format!("{} undo --to 1 --yes", automode_bin().display());
    let r = run(env.script(&inside).env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}}"#,
    ));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains("only the user may run it"),
        "{}",
        r.stderr()
    );
    assert!(!root.join("notes.txt").exists());
    // No terminal, no --yes: the plan is shown and nothing changes.
    let r = run(env.automode().args(["undo", "--to", "1"]));
    assert_eq!(r.code(), Some(1), "{}", r.stderr());
    assert!(
        r.stderr().contains("notes.txt") && r.stderr().contains("--yes"),
        "{}",
        r.stderr()
    );
    assert!(!root.join("notes.txt").exists());
    // A number that is not a checkpoint is an error that says which are.
    let r = run(env.automode().args(["undo", "--to", "99", "--yes"]));
    assert_eq!(r.code(), Some(1), "{}", r.stderr());
    assert!(r.stderr().contains("no checkpoint 99"), "{}", r.stderr());
    let r = run(env.automode().args(["undo", "--to", "1", "--yes"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(root.join("notes.txt").exists());
    // The list and the status show the store.
    let r = run(env.automode().arg("undo"));
    assert!(r.stdout().contains("rm notes.txt"), "{}", r.stdout());
    let r = run(env.automode().arg("status"));
    assert!(r.stdout().contains("checkpoints"), "{}", r.stdout());
}

/// Read-only commands take no checkpoint.
#[test]
fn read_only_commands_take_no_checkpoint() {
    let env = Env::new();
    project(&env);
    for s in ["ls -la", "cat notes.txt", "git status", "grep -r milk ."] {
        let r = run(&mut env.script(s));
        assert_eq!(r.code(), Some(0), "{s}: {}", r.stderr());
    }
    assert!(checkpoints(&env).is_empty());
    run(&mut env.script("touch new.txt"));
    assert_eq!(checkpoints(&env).len(), 1);
}

/// `git stash drop` of a stash whose content a checkpoint holds runs
/// (undo gives it back); a stash made before any checkpoint still waits.
#[test]
fn a_stash_a_checkpoint_holds_may_be_dropped_and_others_wait() {
    let env = Env::new();
    let root = project(&env);
    // The user's own stash, from before the session.
    std::fs::write(root.join("notes.txt"), "the user's stashed notes\n").unwrap();
    git(&env, "-c user.email=t@t -c user.name=t stash -q");
    let r = run(&mut env.script("git stash drop"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    // The agent's stash, made by a checkpointed command.
    std::fs::write(root.join("src/lib.rs"), "pub fn wip() {}\n").unwrap();
    let r = run(&mut env.script("git -c user.email=t@t -c user.name=t stash -q"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let n = last_checkpoint(&env);
    let r = run(&mut env.script("git stash drop -q stash@{0}"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    // The user's, now stash@{0} again, still waits.
    let r = run(&mut env.script("git stash drop"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    let u = undo_to(&env, n, &["--file", "src/lib.rs"]);
    assert_eq!(u.code(), Some(0), "{}", u.stderr());
    assert_eq!(
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        "pub fn wip() {}\n"
    );
}

/// An undo never touches what no checkpoint keeps: a dependency tree
/// changed after the checkpoint stays as it is now, and a directory that
/// came with it is left in place, named.
#[test]
fn an_undo_leaves_what_checkpoints_do_not_keep() {
    let env = Env::new();
    let root = project(&env);
    let r = run(&mut env.script("mkdir -p gen && echo x > gen/out.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let n = last_checkpoint(&env);
    std::fs::write(
        root.join("node_modules/dep/index.js"),
        "module.exports = 2;\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("gen/node_modules/x")).unwrap();
    std::fs::write(root.join("gen/node_modules/x/a.js"), "1\n").unwrap();
    let u = undo_to(&env, n, &[]);
    assert_eq!(u.code(), Some(0), "{}{}", u.stdout(), u.stderr());
    assert!(u.stdout().contains("gen: left in place"), "{}", u.stdout());
    assert!(!root.join("gen/out.txt").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("node_modules/dep/index.js")).unwrap(),
        "module.exports = 2;\n"
    );
    assert!(root.join("gen/node_modules/x/a.js").exists());
}

/// A directory replaced by a link to a place outside the project: the
/// watcher's old watch on it still reports what happens there, and none
/// of it is read into the store.
#[test]
fn a_directory_turned_link_is_not_read_through() {
    let env = Env::new();
    let root = project(&env);
    let outside = env.root().join("outside");
    run(&mut env.script("touch first"));
    wait_for_watcher(&env);
    // The user moves the directory out and leaves a link in its place.
    std::fs::rename(root.join("src"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("src")).unwrap();
    let r = run(&mut env.script("touch second"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    std::fs::write(outside.join("secret.txt"), "TOPSECRET-7731\n").unwrap();
    std::fs::write(outside.join("main.rs"), "TOPSECRET-7731 in main\n").unwrap();
    let r = run(&mut env.script("touch third"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let mut stack = vec![env.root().join("state/automode/checkpoints")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                let text = String::from_utf8_lossy(&bytes);
                assert!(!text.contains("TOPSECRET-7731"), "{} holds it", p.display());
            }
        }
    }
}

/// A change no event reports (a write through a shared mapping) is found
/// by the watcher's idle check walk, so the next checkpoint holds it.
#[test]
fn the_watchers_check_walk_finds_what_no_event_reported() {
    let env = Env::new().with_env("AUTOMODE_CHECKPOINT_CHECK_SECS", "1");
    let root = project(&env);
    run(&mut env.script("touch first"));
    wait_for_watcher(&env);
    // Same size, through a shared mapping, the file kept open (its close
    // would be an event): inotify says nothing.
    let mut writer = env
        .real(
            "exec python3 -c \"import mmap, time; f = open('notes.txt', 'r+b'); m = mmap.mmap(f.fileno(), 0); m[0:8] = b'MAPPED!!'; m.flush(); open('.mapped', 'w').close(); time.sleep(30)\" # mmap-writer-7731",
        )
        .spawn()
        .unwrap();
    let _reap = super::support::Reaper(vec!["mmap-writer-7731"]);
    for _ in 0..100 {
        if root.join(".mapped").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mapped = std::fs::read(root.join("notes.txt")).unwrap();
    assert!(mapped.starts_with(b"MAPPED!!"));
    std::thread::sleep(Duration::from_millis(3500));
    let r = run(&mut env.script("rm notes.txt"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let u = undo_to(&env, last_checkpoint(&env), &[]);
    assert_eq!(u.code(), Some(0), "{}", u.stderr());
    assert_eq!(std::fs::read(root.join("notes.txt")).unwrap(), mapped);
    let _ = writer.kill();
    let _ = writer.wait();
}

/// Where checkpoints fall back (no watcher: every checkpoint walks), or
/// are off, `automode status` and `automode doctor` say so.
#[test]
fn status_and_doctor_say_how_checkpoints_are_taken_here() {
    let env = Env::new().with_env("AUTOMODE_CHECKPOINT_WATCH", "0");
    project(&env);
    run(&mut env.script("touch first"));
    let r = run(env.automode().arg("status"));
    assert!(
        r.stdout().contains("checkpoints here: ") && r.stdout().contains("through its watcher"),
        "{}",
        r.stdout()
    );
    // A project the watcher cannot follow (what it writes for a network
    // file system).
    let store = std::fs::read_dir(env.root().join("state/automode/checkpoints"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    std::fs::write(store.join("watch.off"), "the project is on NFS").unwrap();
    let r = run(env.automode().arg("status"));
    assert!(
        r.stdout()
            .contains("no watcher, every checkpoint walks it (the project is on NFS)"),
        "{}",
        r.stdout()
    );
    let r = run(env.automode().arg("doctor"));
    assert!(
        r.stdout().contains("warn  checkpoints: ") && r.stdout().contains("no watcher"),
        "{}",
        r.stdout()
    );
    let off = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"checkpoint": {"enabled": false}}"#,
    );
    let r = run(off.automode().arg("doctor"));
    assert!(
        r.stdout().contains("checkpoints: off here"),
        "{}",
        r.stdout()
    );
}
