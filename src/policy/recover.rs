//! Which targets of a deletion or an overwrite can be got back: what this
//! session made, regenerable build artifacts, and files git holds with no
//! uncommitted change. Looked up at decision time, and only for the
//! targets of a deletion or an overwrite.
//!
//! A session's artifacts are the objects in the project born (the
//! `statx` birth time) after the session's first command: what its
//! commands and its agent's own editor made. A tree qualifies when every
//! object in it does. A file system without birth times holds nothing
//! here: the deletion then goes the way it would without this.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, UNIX_EPOCH};

use super::places::Places;

/// How many objects of a tree are looked at before it counts as not made
/// by the session (a bound on the time a deletion's check takes: about
/// 10 µs an object on a small VM).
pub const TREE_LIMIT: usize = 20_000;

/// How long git may take to list what it tracks and what changed.
const GIT_WAIT: Duration = Duration::from_secs(2);

/// Why a target can be got back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(into = "String")]
pub enum Held {
    /// (a) This session made it (and everything in it).
    Session,
    /// (b) A regenerable build artifact in the project: which kind.
    Build(&'static str),
    /// (c) Tracked by git with no uncommitted change: `git checkout`
    /// brings it back.
    Git,
    /// (d) The checkpoint taken before the command holds it: `automode
    /// undo` brings it back.
    Checkpoint,
}

impl From<Held> for String {
    fn from(h: Held) -> String {
        h.describe()
    }
}

impl Held {
    pub fn describe(&self) -> String {
        match self {
            Held::Session => "made by this session".to_string(),
            Held::Build(why) => format!("a build artifact ({why})"),
            Held::Git => "tracked by git with no uncommitted change".to_string(),
            Held::Checkpoint => "kept by the checkpoint before it (automode undo)".to_string(),
        }
    }
}

/// The lookups of one decision, kept so each target is checked once and
/// `automode check --json` can show them.
#[derive(Debug, Default)]
pub struct Recovery {
    /// When the session's first command was counted (ns since the epoch).
    pub session_start_ns: Option<u64>,
    seen: RefCell<Vec<(PathBuf, Option<Held>)>>,
    not_kept: RefCell<Vec<String>>,
}

impl Recovery {
    pub fn new(session_start_ns: Option<u64>) -> Recovery {
        Recovery {
            session_start_ns,
            seen: RefCell::default(),
            not_kept: RefCell::default(),
        }
    }

    /// What holds for each target (canonical paths), in order.
    pub fn held_all(&self, places: &Places, targets: &[PathBuf]) -> Vec<Option<Held>> {
        let mut out: Vec<Option<Option<Held>>> = targets
            .iter()
            .map(|p| {
                self.seen
                    .borrow()
                    .iter()
                    .find(|(q, _)| q == p)
                    .map(|(_, h)| h.clone())
            })
            .collect();
        let mut for_git = Vec::new();
        for (i, p) in targets.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            let inside = places.inside_cwd(p) && *p != places.cwd;
            if in_git_dir(p) {
                out[i] = Some(None);
            } else if let Some(why) = places.artifact(p).filter(|_| inside) {
                out[i] = Some(Some(Held::Build(why)));
            } else if self.checkpoint_holds(places, p) {
                out[i] = Some(Some(Held::Checkpoint));
            } else if !inside {
                out[i] = Some(None);
            } else if self.made_by_session(places, p) {
                out[i] = Some(Some(Held::Session));
            } else {
                for_git.push(i);
            }
        }
        if !for_git.is_empty() {
            let paths: Vec<&Path> = for_git.iter().map(|&i| targets[i].as_path()).collect();
            // Git is asked only when the repository's configuration runs
            // no program (fsmonitor, filters, hooks).
            let clean = if super::git::probe(&places.cwd, None, None) == super::git::Probe::Clean {
                git_clean(places, &paths, |p| self.made_by_session(places, p))
            } else {
                vec![false; paths.len()]
            };
            for (&i, ok) in for_git.iter().zip(clean) {
                out[i] = Some(ok.then_some(Held::Git));
            }
        }
        let out: Vec<Option<Held>> = out.into_iter().map(Option::flatten).collect();
        let mut seen = self.seen.borrow_mut();
        for (p, h) in targets.iter().zip(&out) {
            if !seen.iter().any(|(q, _)| q == p) {
                seen.push((p.clone(), h.clone()));
            }
        }
        out
    }

    /// Every target looked at, with what held.
    pub fn report(&self) -> Vec<(PathBuf, Option<Held>)> {
        self.seen.borrow().clone()
    }

    /// The checkpoint before the command gives `p` back (and all it
    /// holds); when it cannot, why is kept for the message.
    fn checkpoint_holds(&self, places: &Places, p: &Path) -> bool {
        let Some(cov) = &places.checkpoint else {
            return false;
        };
        match cov.not_held(p, TREE_LIMIT) {
            None => true,
            Some(why) => {
                self.not_kept.borrow_mut().push(why);
                false
            }
        }
    }

    /// Why the checkpoint could not give back a target looked at (a file
    /// over its size limit, …), for the block message.
    pub fn not_kept(&self) -> Option<String> {
        self.not_kept.borrow().first().cloned()
    }

    /// `p` and, for a directory, everything in it was born after the
    /// session's first command.
    fn made_by_session(&self, places: &Places, p: &Path) -> bool {
        let Some(start) = self.session_start_ns else {
            return false;
        };
        let born_after = |m: &std::fs::Metadata| {
            m.created()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .is_some_and(|d| d.as_nanos() >= u128::from(start))
        };
        let Ok(meta) = std::fs::symlink_metadata(p) else {
            return false;
        };
        if !born_after(&meta) {
            return false;
        }
        if !meta.is_dir() {
            return true;
        }
        let mut stack = vec![p.to_path_buf()];
        let mut seen = 0usize;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                return false;
            };
            for entry in entries {
                seen += 1;
                if seen > TREE_LIMIT {
                    return false;
                }
                let Ok(entry) = entry else { return false };
                let path = entry.path();
                // `statx` by path: `DirEntry::metadata` (fstatat) has no
                // birth time.
                let Ok(m) = std::fs::symlink_metadata(&path) else {
                    return false;
                };
                // A build artifact inside may be older: it regenerates.
                if !born_after(&m) && places.artifact(&path).is_none() {
                    return false;
                }
                if m.is_dir() {
                    stack.push(path);
                }
            }
        }
        true
    }
}

/// The stash `which` (`stash@{N}`, `N`, none: the newest) holds only
/// content some checkpoint of the project holds: its worktree, its index
/// and its untracked files. Then dropping it loses nothing `automode undo`
/// cannot give back. Git is asked only when the repository's
/// configuration runs no program.
pub fn stash_held(places: &Places, which: Option<&str>) -> bool {
    let (Some(cov), Some(state)) = (&places.checkpoint, &places.automode_state) else {
        return false;
    };
    let rev = match which {
        None => "stash@{0}".to_string(),
        Some(w) if w.bytes().all(|b| b.is_ascii_digit()) && !w.is_empty() => {
            format!("stash@{{{w}}}")
        }
        Some(w)
            if w.strip_prefix("stash@{")
                .and_then(|r| r.strip_suffix('}'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            w.to_string()
        }
        Some(_) => return false,
    };
    if super::git::probe(&places.cwd, None, None) != super::git::Probe::Clean {
        return false;
    }
    let mut ids = Vec::new();
    for (suffix, required) in [("", true), ("^2", true), ("^3", false)] {
        let Some(entries) = git_z(
            &places.cwd,
            &["ls-tree", "-r", "-z", &format!("{rev}{suffix}")],
            &[],
        ) else {
            if required {
                return false;
            }
            continue;
        };
        for e in entries {
            // `MODE TYPE ID\tPATH`
            let mut head = e.split('\t').next().unwrap_or("").split(' ');
            let (_, kind, id) = (head.next(), head.next(), head.next());
            match (kind, id.and_then(crate::checkpoint::Id::from_hex)) {
                (Some("blob"), Some(id)) => ids.push(id),
                (Some("commit"), _) => {}
                _ => return false,
            }
        }
    }
    // What the checked-out commit holds stays after the drop.
    let head: std::collections::HashSet<crate::checkpoint::Id> =
        git_z(&places.cwd, &["ls-tree", "-r", "-z", "HEAD"], &[])
            .unwrap_or_default()
            .iter()
            .filter_map(|e| {
                let head = e.split('\t').next()?;
                crate::checkpoint::Id::from_hex(head.split(' ').nth(2)?)
            })
            .collect();
    ids.retain(|id| !head.contains(id));
    let dir = crate::checkpoint::store::dir_for(state, &cov.root);
    if !dir.join("current").exists() {
        return false;
    }
    crate::checkpoint::Store::open(&dir, &cov.root, Duration::from_secs(2))
        .is_ok_and(|s| s.holds_all(&ids))
}

/// `p` is a repository's `.git` or inside one.
fn in_git_dir(p: &Path) -> bool {
    p.components().any(|c| c.as_os_str() == ".git")
}

/// The top of the worktree `cwd` is in (where `.git` is).
fn worktree_top(cwd: &Path) -> Option<&Path> {
    cwd.ancestors().find(|d| d.join(".git").exists())
}

/// For each path: git tracks it (for a directory, something in it) and
/// nothing in it is changed, untracked or ignored (except what `fine`
/// accepts and build artifacts). Two git commands for all the paths, with
/// the safe overrides and a time bound; any failure holds nothing.
fn git_clean(places: &Places, paths: &[&Path], fine: impl Fn(&Path) -> bool) -> Vec<bool> {
    let none = vec![false; paths.len()];
    let Some(top) = worktree_top(&places.cwd) else {
        return none;
    };
    let rel: Vec<&Path> = paths
        .iter()
        .filter_map(|p| p.strip_prefix(&places.cwd).ok())
        .collect();
    if rel.len() != paths.len() {
        return none;
    }
    // Both list paths from the top of the worktree.
    let Some(tracked) = git_z(&places.cwd, &["ls-files", "-z", "--full-name", "--"], &rel) else {
        return none;
    };
    let Some(status) = git_z(
        &places.cwd,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--ignored=matching",
            "--no-renames",
            "--",
        ],
        &rel,
    ) else {
        return none;
    };
    let changed: Vec<PathBuf> = status
        .iter()
        .filter(|e| e.len() > 3)
        .filter_map(|e| {
            let p = top.join(&e[3..]);
            let kept = e.starts_with("!! ") && (places.artifact(&p).is_some() || fine(&p));
            (!kept).then_some(p)
        })
        .collect();
    paths
        .iter()
        .map(|root| {
            tracked.iter().any(|t| top.join(t).starts_with(root))
                && !changed.iter().any(|c| c.starts_with(root))
        })
        .collect()
}

/// Run a git command in `cwd` on `paths`, returning its NUL-separated
/// output, or None on failure or past `GIT_WAIT`.
fn git_z(cwd: &Path, args: &[&str], paths: &[&Path]) -> Option<Vec<String>> {
    let mut cmd = Command::new("git");
    cmd.arg("--no-optional-locks")
        .args(args)
        .args(paths)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in super::git::safe_env(0) {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().ok()?;
    let mut out = Vec::new();
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        use std::io::Read;
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if started.elapsed() < GIT_WAIT => {
                std::thread::sleep(Duration::from_millis(1));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let out = reader.join().ok()?;
    if !status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out)
            .split('\0')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    )
}
