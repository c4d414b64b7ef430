//! What building a command's sandbox costs in the supervisor (not a
//! timed test): the base plan (paths looked up, denied and kept trees),
//! the Landlock ruleset with its rules, both, and both from the cache
//! (`sandbox/cache.rs`: the witnesses checked, the rules added again), in
//! a fresh temp home
//! and project and in a home with many entries (a developer's), as
//! medians over rounds. The whole start-up, sandbox included, is
//! `scripts/bench.sh`. Run: `cargo bench --bench sandbox`.

use std::path::{Path, PathBuf};
use std::time::Duration;

mod support;
use support::median;

use automode::config::{self, LoadInput};
use automode::policy::places::Places;
use automode::sandbox::{self, OwnedInputs};

fn inputs(home: &Path, project: &Path) -> OwnedInputs {
    let cfg = config::load(&LoadInput {
        managed: None,
        home: Some(home),
        xdg_config_home: None,
        cwd: Some(project),
        inline: None,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    OwnedInputs {
        config: cfg.sandbox,
        places: Places {
            home: Some(home.to_path_buf()),
            cwd: project.to_path_buf(),
            automode_config: Some(home.join(".config/automode")),
            automode_state: Some(home.join(".local/state/automode")),
            ..Places::default()
        },
        project: project.to_path_buf(),
        env: vec![
            ("HOME".into(), home.display().to_string()),
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
        ],
        keep: vec![PathBuf::from("/usr/bin"), PathBuf::from("/bin")],
        classifier_key: None,
    }
}

fn main() {
    let abi = match automode::exec::landlock_abi() {
        Ok(a) if a >= 2 => a,
        other => {
            println!("sandbox bench: Landlock unavailable ({other:?}); nothing to time");
            return;
        }
    };
    let base = std::fs::canonicalize(if Path::new("/var/tmp").is_dir() {
        "/var/tmp"
    } else {
        "/tmp"
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir_in(&base).unwrap_or_else(|e| panic!("{e}"));
    let root = std::fs::canonicalize(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let fresh = root.join("fresh-home");
    let busy = root.join("busy-home");
    let project = root.join("project");
    let gitproject = root.join("git-project");
    for d in [&fresh, &busy, &project, &gitproject] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::create_dir_all(fresh.join(".local/state/automode")).unwrap_or_else(|e| panic!("{e}"));
    // A developer's home: 80 entries, a few secrets, a populated ~/.config.
    for i in 0..70 {
        std::fs::create_dir_all(busy.join(format!(".tool{i}"))).unwrap_or_else(|e| panic!("{e}"));
    }
    for d in [
        ".ssh",
        ".aws",
        ".gnupg",
        ".cargo/registry",
        ".local/state/automode",
        ".local/share/keyrings",
    ] {
        std::fs::create_dir_all(busy.join(d)).unwrap_or_else(|e| panic!("{e}"));
    }
    for i in 0..30 {
        std::fs::create_dir_all(busy.join(format!(".config/app{i}")))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::create_dir_all(busy.join(".config/gh")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(busy.join(".netrc"), "machine x").unwrap_or_else(|e| panic!("{e}"));
    // A git project: its hooks and config are bound read-only in a mount
    // namespace, and the secrets are covered there instead of carved out.
    for d in [".git/hooks", ".git/objects"] {
        std::fs::create_dir_all(gitproject.join(d)).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(gitproject.join(".git/config"), "[core]\n").unwrap_or_else(|e| panic!("{e}"));
    println!("sandbox bench: Landlock ABI {abi}; medians of 300 rounds");
    for (name, home, project) in [
        ("fresh home", &fresh, &project),
        ("developer's home", &busy, &project),
        ("  … git project", &busy, &gitproject),
    ] {
        let inp = inputs(home, project);
        let plan = inp.with(sandbox::base_plan);
        let rules = sandbox::rules::grants(&plan).len();
        let t_plan = median(300, || {
            sandbox::forget_resolved();
            let _ = inp.with(sandbox::base_plan);
        });
        let t_rules = median(300, || {
            let _ = sandbox::rules::Builder::new(&plan, abi).map(sandbox::rules::Builder::finish);
            sandbox::rules::release_held();
        });
        let t_all = median(300, || {
            sandbox::forget_resolved();
            let _ = sandbox::prepare(&inp, abi)
                .ruleset
                .map(sandbox::rules::Builder::finish);
            sandbox::rules::release_held();
        });
        let state = root.join(format!(
            "state-{}",
            name.trim_start_matches(['.', ' ', '…'])
        ));
        std::fs::create_dir_all(&state).unwrap_or_else(|e| panic!("{e}"));
        // Stored once the trees above are older than the cache's
        // racy window.
        std::thread::sleep(Duration::from_millis(150));
        let _ = sandbox::prepare_cached(&inp, abi, &state);
        let t_cached = median(300, || {
            let _ = sandbox::prepare_cached(&inp, abi, &state)
                .ruleset
                .map(sandbox::rules::Builder::finish);
            sandbox::rules::release_held();
        });
        println!(
            "  {name:18} {rules:4} rules{}",
            if plan.namespace {
                " (mount namespace)"
            } else {
                ""
            }
        );
        println!(
            "  {:18} plan {:7.1} us   ruleset {:7.1} us   both {:7.1} us   cached {:7.1} us",
            "",
            t_plan.as_secs_f64() * 1e6,
            t_rules.as_secs_f64() * 1e6,
            t_all.as_secs_f64() * 1e6,
            t_cached.as_secs_f64() * 1e6
        );
    }
}
