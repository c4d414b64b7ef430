//! Sandbox plan tests, on fake trees in temp dirs (no kernel needed):
//! path templates, the project root's refusals, linked worktrees, caches,
//! protected paths, carving denied paths out of granted trees, widenings.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use landlock::{AccessFs, BitFlags};

use super::rules::{Grant, cover};
use super::widen::{Widening, parse};
use super::*;
use crate::policy::places::Places;

fn mkdirs(root: &Path, paths: &[&str]) {
    for p in paths {
        let p = root.join(p);
        if p.extension().is_some() {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        } else {
            std::fs::create_dir_all(&p).unwrap();
        }
    }
}

fn canon(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap()
}

#[test]
fn templates_expand_home_variables_and_defaults() {
    let vars = |k: &str| match k {
        "CARGO_HOME" => Some("/opt/cargo".to_string()),
        "RELATIVE" => Some("not/absolute".to_string()),
        _ => None,
    };
    let x = Expand {
        home: Some(Path::new("/home/u")),
        var: &vars,
    };
    assert_eq!(x.path("~/.ssh"), Some(PathBuf::from("/home/u/.ssh")));
    assert_eq!(
        x.path("${CARGO_HOME:-~/.cargo}/registry"),
        Some(PathBuf::from("/opt/cargo/registry"))
    );
    assert_eq!(
        x.path("${PIP_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/pip}"),
        Some(PathBuf::from("/home/u/.cache/pip"))
    );
    // A variable counts only when it is an absolute path.
    assert_eq!(
        x.path("${RELATIVE:-/fallback}"),
        Some(PathBuf::from("/fallback"))
    );
    assert_eq!(x.path("$UNSET/x"), None);
    assert_eq!(x.path("relative"), None);
    let no_home = Expand {
        home: None,
        var: &vars,
    };
    assert_eq!(no_home.path("~/.ssh"), None);
}

#[test]
fn the_project_root_is_refused_when_it_holds_the_home() {
    let home = Path::new("/home/u");
    assert_eq!(
        write_root(
            Path::new("/home/u/app"),
            Path::new("/home/u/app/src"),
            Some(home)
        )
        .0,
        Some(PathBuf::from("/home/u/app"))
    );
    // The project root is the home: only the working directory.
    let (root, why) = write_root(home, Path::new("/home/u/app"), Some(home));
    assert_eq!(root, Some(PathBuf::from("/home/u/app")));
    assert!(why.is_some_and(|w| w.contains("only the working directory")));
    // `/`, or working in the home itself: nothing of the project.
    let (root, why) = write_root(Path::new("/"), home, Some(home));
    assert_eq!(root, None);
    assert!(why.is_some());
    assert_eq!(
        write_root(Path::new("/home"), Path::new("/home"), Some(home)).0,
        None
    );
}

#[test]
fn a_linked_worktree_gets_its_gitdir_and_the_shared_parts_commits_write() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    mkdirs(
        &main,
        &[
            ".git/objects",
            ".git/refs/heads",
            ".git/logs",
            ".git/hooks",
            ".git/worktrees/wt",
            ".git/config.x",
        ],
    );
    std::fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
    let wt = dir.path().join("wt");
    std::fs::create_dir_all(&wt).unwrap();
    std::fs::write(
        wt.join(".git"),
        format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()),
    )
    .unwrap();
    let dirs = linked_git_dirs(&wt);
    let m = canon(&main);
    assert_eq!(
        dirs,
        vec![
            m.join(".git/worktrees/wt"),
            m.join(".git/objects"),
            m.join(".git/refs"),
            m.join(".git/logs"),
        ]
    );
    // The shared hooks and config are not among them; the worktree's own
    // config stays protected.
    let protect = protect_paths(&wt, &[".git/config".into(), ".git/hooks".into()], &dirs);
    assert!(protect.contains(&m.join(".git/worktrees/wt/config")));
    assert!(protect.contains(&m.join(".git/worktrees/wt/config.worktree")));
    assert!(linked_git_dirs(&main).is_empty());
}

#[test]
fn protected_paths_reach_into_submodules_and_worktrees() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    mkdirs(
        root,
        &[
            ".git/modules/lib/hooks",
            ".git/modules/lib/modules/inner",
            ".git/worktrees/w",
        ],
    );
    let got = protect_paths(root, &[".git/hooks".into(), ".claude".into()], &[]);
    for want in [
        ".git/hooks",
        ".claude",
        ".git/modules/lib/hooks",
        ".git/modules/lib/modules/inner/hooks",
        ".git/worktrees/w/hooks",
    ] {
        assert!(got.contains(&root.join(want)), "{want}: {got:?}");
    }
}

fn rights() -> BitFlags<AccessFs> {
    AccessFs::ReadFile.into()
}

fn paths(grants: &[Grant]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = grants.iter().map(|g| g.path.clone()).collect();
    v.sort();
    v
}

#[test]
fn a_denied_path_is_carved_out_by_granting_its_siblings() {
    let dir = tempfile::tempdir().unwrap();
    let r = canon(dir.path());
    mkdirs(
        &r,
        &[
            "home/.ssh/id",
            "home/.bashrc.x",
            "home/src",
            "other/a",
            "top.x",
        ],
    );
    let mut out = Vec::new();
    cover(&r, rights(), &[r.join("home/.ssh")], &[], &mut out);
    assert_eq!(
        paths(&out),
        vec![
            r.join("home/.bashrc.x"),
            r.join("home/src"),
            r.join("other"),
            r.join("top.x")
        ]
    );
    // Nothing denied below: one grant for the whole tree.
    let mut out = Vec::new();
    cover(
        &r.join("other"),
        rights(),
        &[r.join("home/.ssh")],
        &[],
        &mut out,
    );
    assert_eq!(paths(&out), vec![r.join("other")]);
}

#[test]
fn a_kept_path_inside_a_denied_tree_comes_back_without_its_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let r = canon(dir.path());
    mkdirs(
        &r,
        &[
            "root/.cargo/bin/cargo.x",
            "root/.cargo/credentials.toml",
            "root/.cargo/registry",
            "root/.ssh/id",
            "root/notes.x",
        ],
    );
    let mut out = Vec::new();
    let deny = [r.join("root"), r.join("root/.cargo/credentials.toml")];
    let keep = [r.join("root/.cargo")];
    cover(&r.join("root"), rights(), &deny, &keep, &mut out);
    assert_eq!(
        paths(&out),
        vec![r.join("root/.cargo/bin"), r.join("root/.cargo/registry")]
    );
}

#[test]
fn a_home_inside_a_write_root_is_carved_out_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let r = canon(dir.path());
    mkdirs(&r, &["tmp/x/home/.bashrc.x", "tmp/x/work", "tmp/other"]);
    let mut out = Vec::new();
    let tmp = r.join("tmp");
    cover(
        &tmp,
        rights(),
        &[r.join("tmp/x/home")],
        std::slice::from_ref(&tmp),
        &mut out,
    );
    assert_eq!(paths(&out), vec![r.join("tmp/other"), r.join("tmp/x/work")]);
    // A cache inside the home is granted on its own.
    let cache = r.join("tmp/x/home");
    let mut out = Vec::new();
    cover(
        &cache,
        rights(),
        &[r.join("tmp/x/home")],
        std::slice::from_ref(&cache),
        &mut out,
    );
    assert_eq!(paths(&out), vec![cache]);
}

fn places(home: &Path, cwd: &Path) -> Places {
    Places {
        home: Some(home.to_path_buf()),
        cwd: cwd.to_path_buf(),
        automode_config: Some(home.join(".config/automode")),
        automode_state: Some(home.join(".local/state/automode")),
        automode_exe: None,
        automode_share: None,
        automode_shims: None,
        codex_home: None,
        checkpoint: None,
    }
}

#[test]
fn widenings_are_parsed_and_the_never_granted_refused() {
    let dir = tempfile::tempdir().unwrap();
    let home = canon(dir.path()).join("home");
    mkdirs(&home, &[".ssh", "bin", ".config/automode"]);
    let pl = places(&home, &home.join("bin"));
    let deny = [home.join(".ssh")];
    let ok = parse(
        Some(&format!(
            "{}:{}",
            home.join("bin").display(),
            home.join("bin/new").display()
        )),
        None,
        &pl,
        &deny,
    );
    assert_eq!(
        ok,
        Some(Ok(Widening::Write(vec![
            home.join("bin"),
            home.join("bin/new")
        ])))
    );
    assert_eq!(
        parse(None, Some("off"), &pl, &deny),
        Some(Ok(Widening::SandboxOff))
    );
    assert!(matches!(parse(None, Some("yes"), &pl, &deny), Some(Err(_))));
    assert_eq!(parse(None, None, &pl, &deny), None);
    for bad in [
        "/".to_string(),
        home.display().to_string(),
        home.join(".bashrc").display().to_string(),
        home.join(".ssh/authorized_keys").display().to_string(),
        home.join(".config").display().to_string(),
        "/etc/cron.d".to_string(),
        "relative".to_string(),
        "/nonexistent-dir-for-automode/x".to_string(),
    ] {
        assert!(
            matches!(parse(Some(&bad), None, &pl, &deny), Some(Err(_))),
            "{bad} was not refused"
        );
    }
}

#[test]
fn a_plan_grants_the_project_caches_and_devices_and_denies_the_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let base = canon(dir.path());
    let home = base.join("home");
    let project = base.join("proj");
    mkdirs(
        &home,
        &[".ssh", ".aws", ".cargo/registry", ".config/automode"],
    );
    mkdirs(&project, &[".git/hooks", ".git/config.x", "src"]);
    std::fs::write(project.join(".git/config"), "[core]\n").unwrap();
    let cfg = crate::config::load(&crate::config::LoadInput {
        managed: None,
        home: Some(&home),
        xdg_config_home: None,
        cwd: Some(&project),
        inline: None,
    })
    .unwrap();
    let pl = places(&home, &project);
    let vars = |_: &str| None;
    let inputs = Inputs {
        config: &cfg.sandbox,
        places: &pl,
        project: &project,
        expand: Expand {
            home: Some(&home),
            var: &vars,
        },
        env_names: vec!["PATH", "OPENAI_API_KEY"],
        env_credentials: Vec::new(),
        keep: Vec::new(),
        classifier_key: None,
    };
    let cmd = ForCommand {
        programs: vec!["npm"],
        will_run: true,
        ..ForCommand::default()
    };
    // Deciding alone (`automode check`) creates nothing.
    let _ = plan(
        &inputs,
        &ForCommand {
            will_run: false,
            ..cmd.clone()
        },
    );
    assert!(!home.join(".npm").exists());
    let plan = plan(&inputs, &cmd);
    assert!(plan.write.contains(&project));
    assert!(plan.write.contains(&home.join(".cargo/registry")));
    // npm runs: its cache is created so that the grant applies.
    assert!(plan.write.contains(&home.join(".npm")), "{:?}", plan.write);
    assert!(!plan.write.contains(&home));
    assert!(plan.devices.contains(&PathBuf::from("/dev/null")));
    assert!(plan.read_deny.contains(&home.join(".ssh")));
    assert!(plan.read_deny.contains(&home.join(".aws")));
    assert!(plan.read_deny.contains(&home.join(".config/automode")));
    assert!(plan.write_exclude.contains(&home));
    assert!(plan.protect.contains(&project.join(".git/hooks")));
    assert!(plan.protect.contains(&project.join(".git/config")));
    assert!(plan.protect_missing.contains(&project.join(".claude")));
    assert_eq!(plan.withheld_env, ["OPENAI_API_KEY"]);
    assert_eq!(plan.max_file_bytes, DEFAULT_MAX_FILE_BYTES);
    // Approved targets outside: a new file's directory, an existing
    // file itself; protected targets are left writable for the command;
    // never the home for a new file in it (the whole home would be).
    std::fs::create_dir_all(home.join("bin")).unwrap();
    std::fs::write(home.join("notes.txt"), "n").unwrap();
    let analysis = crate::shell::analyze(crate::shell::Request {
        script: format!(
            "cp a {}/bin/app; echo x >> {}/notes.txt; echo y > .git/hooks/pre-push; echo z > {}/new.txt",
            home.display(),
            home.display(),
            home.display()
        )
        .into_bytes(),
        max_bytes: crate::shell::MAX_COMMAND_BYTES,
        positional: crate::shell::Positional {
            dollar0: "bash".into(),
            args: Vec::new(),
        },
        cwd: project.clone(),
        home: Some(home.display().to_string()),
        env: std::collections::HashMap::new(),
        trust_env: true,
        dialect: crate::shell::Dialect::Bash,
        budget: crate::shell::TIME_BUDGET,
    });
    let (outside, protected) = approved_targets(&plan, &analysis, &pl);
    let granted: Vec<&PathBuf> = outside.iter().map(|(p, _)| p).collect();
    assert_eq!(granted, [&home.join("bin"), &home.join("notes.txt")]);
    assert_eq!(protected, [project.join(".git/hooks/pre-push")]);
}

/// Inputs for `prepare_cached` in a temp tree.
fn owned(home: &Path, project: &Path, env: &[(&str, &str)]) -> OwnedInputs {
    let cfg = crate::config::load(&crate::config::LoadInput {
        managed: None,
        home: Some(home),
        xdg_config_home: None,
        cwd: Some(project),
        inline: None,
    })
    .unwrap();
    OwnedInputs {
        config: cfg.sandbox,
        places: places(home, project),
        project: project.to_path_buf(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        keep: Vec::new(),
        classifier_key: None,
    }
}

/// Whether the cache holds a valid entry for these inputs now.
fn hit(inp: &OwnedInputs, abi: u32, state: &Path) -> bool {
    cache_for(inp, abi, state).load(&|k| inp.var(k)).is_some()
}

/// Build until the entry is stored (a tree just made is too recent to be
/// trusted to the cache).
fn settle(inp: &OwnedInputs, abi: u32, state: &Path) -> Prepared {
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(120));
        let p = prepare_cached(inp, abi, state);
        if hit(inp, abi, state) {
            return p;
        }
    }
    panic!("the cache entry was never stored");
}

#[test]
fn the_cached_plan_is_used_until_what_it_was_built_from_changes() {
    let abi = Kernel::probe().abi;
    if abi < 2 {
        crate::testing::skip("the cached plan", "no Landlock ABI 2 on this kernel");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let base = canon(dir.path());
    let home = base.join("home");
    let project = base.join("proj");
    let state = base.join("state");
    mkdirs(&home, &[".aws", ".config"]);
    mkdirs(&project, &["src"]);
    std::fs::create_dir_all(&state).unwrap();
    let inp = owned(&home, &project, &[]);
    let built = settle(&inp, abi, &state);
    // A hit gives the same plan and the same rules.
    let again = prepare_cached(&inp, abi, &state);
    assert_eq!(again.plan, built.plan);
    let rules = |p: &Prepared| p.ruleset.as_ref().unwrap().added.clone();
    assert_eq!(rules(&again), rules(&built));
    assert!(rules(&again).len() > 3);
    // Built afresh: the same plan, and the same rules in this tree (the
    // directories above it, `/tmp` among them, change under other tests).
    let uncached = prepare(&inp, abi);
    assert_eq!(uncached.plan, built.plan);
    let ours = |p: &Prepared| {
        let mut r = rules(p);
        r.retain(|g| g.path.starts_with(&base));
        r
    };
    assert_eq!(ours(&uncached), ours(&built));

    // A new secret in the home: stale, and the new plan denies it.
    mkdirs(&home, &[".ssh"]);
    assert!(!hit(&inp, abi, &state));
    let p = settle(&inp, abi, &state);
    assert!(p.plan.read_deny.contains(&home.join(".ssh")));
    // One inside a directory that was listed before.
    mkdirs(&home, &[".config/gh"]);
    assert!(!hit(&inp, abi, &state));
    assert!(
        settle(&inp, abi, &state)
            .plan
            .read_deny
            .contains(&home.join(".config/gh"))
    );
    // A protected path made in the project.
    mkdirs(&project, &[".claude"]);
    assert!(!hit(&inp, abi, &state));
    assert!(
        settle(&inp, abi, &state)
            .plan
            .protect
            .contains(&project.join(".claude"))
    );
    // A linked worktree's pointer rewritten.
    let gitdir = base.join("main.git/worktrees/proj");
    mkdirs(&gitdir, &["x"]);
    std::fs::write(
        project.join(".git"),
        format!("gitdir: {}\n", base.join("elsewhere").display()),
    )
    .unwrap();
    let p = settle(&inp, abi, &state);
    assert!(!p.plan.write.contains(&gitdir));
    std::fs::write(
        project.join(".git"),
        format!("gitdir: {}\n", gitdir.display()),
    )
    .unwrap();
    assert!(!hit(&inp, abi, &state));
    assert!(settle(&inp, abi, &state).plan.write.contains(&gitdir));
    // A variable a template reads.
    let other = owned(&home, &project, &[("XDG_CONFIG_HOME", "/nowhere")]);
    assert!(!hit(&other, abi, &state));
    // A file the listing did not reach: still a hit.
    std::thread::sleep(std::time::Duration::from_millis(120));
    std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
    assert!(hit(&inp, abi, &state));
}

#[test]
fn the_cache_key_changes_with_every_sandbox_setting_and_not_with_sources() {
    use crate::config::{Source, Sourced};
    let base = crate::config::load(&crate::config::LoadInput {
        managed: None,
        home: None,
        xdg_config_home: None,
        cwd: None,
        inline: None,
    })
    .unwrap()
    .sandbox;
    let text = |c: &crate::config::SandboxConfig| format!("{:?}", ConfigKey(c));
    // The built-in lists are named, not spelled out.
    assert!(text(&base).contains("readDeny=;"), "{}", text(&base));
    assert!(text(&base).len() < 200, "{}", text(&base));
    let changed: Vec<crate::config::SandboxConfig> = {
        let s = |v: &str| Sourced {
            value: v.to_string(),
            source: Source::Inline,
        };
        let mut out = Vec::new();
        for i in 0..5 {
            let mut c = base.clone();
            let l = match i {
                0 => &mut c.write,
                1 => &mut c.caches,
                2 => &mut c.read_deny,
                3 => &mut c.protect,
                _ => &mut c.pass_env,
            };
            l.push(s("/x"));
            out.push(c);
        }
        // One built-in entry fewer is another key too.
        let mut c = base.clone();
        c.read_deny.remove(0);
        out.push(c);
        let mut c = base.clone();
        c.mode.value = crate::sandbox::Mode::Require;
        out.push(c);
        let mut c = base.clone();
        c.protect_mode.value = crate::sandbox::ProtectMode::Restore;
        out.push(c);
        let mut c = base.clone();
        c.network.value = crate::sandbox::Network::Deny;
        out.push(c);
        let mut c = base.clone();
        c.max_file_bytes.value += 1;
        out.push(c);
        out
    };
    for c in &changed {
        assert_ne!(text(c), text(&base), "{c:?}");
    }
    // The same values from another source: the same plan, the same key.
    let mut c = base.clone();
    for e in &mut c.read_deny {
        e.source = Source::Inline;
    }
    assert_eq!(text(&c), text(&base));
}

#[test]
fn a_template_is_also_denied_where_its_variables_point_by_default() {
    assert_eq!(
        super::defaults_only("${XDG_CONFIG_HOME:-~/.config}/gh").as_deref(),
        Some("~/.config/gh")
    );
    assert_eq!(
        super::defaults_only("${HF_HOME:-${XDG_CACHE_HOME:-~/.cache}/huggingface}/token")
            .as_deref(),
        Some("~/.cache/huggingface/token")
    );
    assert_eq!(super::defaults_only("~/.ssh"), None);
    assert_eq!(super::defaults_only("${CODEX_HOME}/auth.json"), None);
}
