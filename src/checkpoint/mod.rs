//! Checkpoints: before a command that may change the project runs, the
//! content of the project's files is recorded in a store under the state
//! directory, so `automode undo` can give any of it back. `tree.rs` reads
//! the project, `store.rs` keeps what it read, `git.rs` names what git
//! already holds, `watch.rs` is the per-project watcher that makes a
//! checkpoint cost a few changed files instead of a walk, `restore.rs`
//! puts a checkpoint back.

pub mod git;
pub mod restore;
pub mod store;
pub mod tree;
pub mod watch;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use store::Store;
pub use tree::{Entry, Id, Key, Kind, Tree};

/// `checkpoint.maxFileBytes`: a single file over this is not kept (and
/// listed in the checkpoint as skipped).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 50 * 1024 * 1024;
/// `checkpoint.keepHours`: how long after its session's last checkpoint a
/// checkpoint is kept.
pub const DEFAULT_KEEP_HOURS: u64 = 72;
/// `checkpoint.maxBytes`: the store's budget per project.
pub const DEFAULT_MAX_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// More files than this and the project is not checkpointed (a walk of
/// it would cost seconds per command).
pub const MAX_ENTRIES: usize = 200_000;
/// How long a command waits for another checkpoint of the same project.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Directories no checkpoint enters besides the build artifacts the
/// deletion rules know (`places::ARTIFACT_DIRS`), with the reason.
pub const EXCLUDED_DIRS: &[(&str, &str)] = &[
    (
        ".git",
        "git's own store: its history is judged by the git rules",
    ),
    (".hg", "Mercurial's own store"),
    (".svn", "Subversion's own store"),
    (".jj", "Jujutsu's own store"),
    ("site-packages", "installed Python packages"),
    (".direnv", "direnv's generated environments"),
    (".terraform", "downloaded Terraform providers"),
    (".yarn", "Yarn's cache and install state"),
    (".pnpm-store", "pnpm's package store"),
    (
        "vendor",
        "vendored dependencies, fetched again by the package manager",
    ),
];

/// A directory of this name is not checkpointed (build output, dependency
/// trees, another tool's own store).
pub fn excluded_dir(name: &OsStr) -> Option<&'static str> {
    EXCLUDED_DIRS
        .iter()
        .chain(crate::policy::places::ARTIFACT_DIRS)
        .find(|(d, _)| name == *d)
        .map(|(_, why)| *why)
}

/// A size for people: bytes, KiB, MiB or GiB.
pub fn shown_size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b if b < 1024 * 1024 * 1024 => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
        b => format!("{:.2} GiB", b as f64 / (1024.0 * 1024.0 * 1024.0)),
    }
}

/// The checkpoint settings (`checkpoint.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub enabled: bool,
    pub max_file_bytes: u64,
    pub keep_hours: u64,
    pub max_bytes: u64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            enabled: true,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            keep_hours: DEFAULT_KEEP_HOURS,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// Where a command's checkpoint would be taken, for the policy: the
/// project root and the limit on a single file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    pub root: PathBuf,
    pub max_file_bytes: u64,
}

impl Coverage {
    /// `p` (canonical) is inside the project, in no directory no
    /// checkpoint enters, and not itself such a directory (a file named
    /// `build` is kept; a directory named `build` is not).
    pub fn holds_place(&self, p: &Path) -> bool {
        let Ok(rel) = p.strip_prefix(&self.root) else {
            return false;
        };
        let comps: Vec<_> = rel.components().collect();
        let Some((last, above)) = comps.split_last() else {
            return false;
        };
        above.iter().all(|c| excluded_dir(c.as_os_str()).is_none())
            && (excluded_dir(last.as_os_str()).is_none()
                || std::fs::symlink_metadata(p).is_ok_and(|m| !m.is_dir()))
    }

    /// What keeps `p` (canonical, existing or not) from being given back
    /// by the checkpoint: outside the project, or a file over the size
    /// limit (in a directory: any file in it). None: it is held. A walk of
    /// a directory stops at `limit` objects (then it is not held).
    pub fn not_held(&self, p: &Path, limit: usize) -> Option<String> {
        if !self.holds_place(p) {
            return Some(format!(
                "{} is outside the project's checkpoints",
                p.display()
            ));
        }
        self.contents_not_held(p, limit)
    }

    /// What keeps the files in `p` (the project root, or a place the
    /// checkpoint holds) from being given back: one over the size limit,
    /// a directory no checkpoint keeps (`find DIR -name … -delete`).
    pub fn inside_not_held(&self, p: &Path, limit: usize) -> Option<String> {
        if p != self.root && !self.holds_place(p) {
            return Some(format!(
                "{} is outside the project's checkpoints",
                p.display()
            ));
        }
        self.contents_not_held(p, limit)
    }

    fn contents_not_held(&self, p: &Path, limit: usize) -> Option<String> {
        let Ok(meta) = std::fs::symlink_metadata(p) else {
            return None;
        };
        if meta.is_file() && meta.len() > self.max_file_bytes {
            return Some(self.over(p, meta.len()));
        }
        if !meta.is_dir() {
            return None;
        }
        let mut stack = vec![p.to_path_buf()];
        let mut seen = 0usize;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                return Some(format!("{} cannot be read", dir.display()));
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > limit {
                    return Some(format!(
                        "{} holds more than {limit} files to check",
                        p.display()
                    ));
                }
                let Ok(m) = entry.metadata() else { continue };
                if m.is_dir() {
                    let name = entry.file_name();
                    if excluded_dir(&name).is_none() {
                        stack.push(entry.path());
                    } else if crate::policy::places::artifact_name(&name.to_string_lossy())
                        .is_none()
                        // The project's own repository is judged by the
                        // git rules.
                        && !(dir == self.root && name == ".git")
                    {
                        // A nested repository, vendored code: not kept,
                        // and not rebuilt either.
                        return Some(format!(
                            "{} holds {}, which checkpoints do not keep",
                            p.display(),
                            entry.path().display()
                        ));
                    }
                } else if m.is_file() && m.len() > self.max_file_bytes {
                    return Some(self.over(&entry.path(), m.len()));
                }
            }
        }
        None
    }

    fn over(&self, p: &Path, len: u64) -> String {
        format!(
            "{} is {} MiB, over checkpoint.maxFileBytes ({} MiB): automode undo could not bring it back",
            p.display(),
            len / (1024 * 1024),
            self.max_file_bytes / (1024 * 1024)
        )
    }
}

/// The project root a checkpoint of work in `cwd` covers, or why there
/// is none: the home itself, `/` and system trees are not projects.
pub fn root_for(cwd: &Path, places: &crate::policy::places::Places) -> Result<PathBuf, String> {
    let root = crate::config::project_root(cwd).unwrap_or_else(|| cwd.to_path_buf());
    if root == Path::new("/") || places.is_home_root(&root) || places.system_root(&root).is_some() {
        return Err(format!(
            "{} is not a project automode checkpoints (the home, / or a top-level system directory)",
            root.display()
        ));
    }
    if let Some(state) = &places.automode_state
        && (root.starts_with(state) || state.starts_with(&root))
    {
        return Err(format!(
            "{} holds or is inside automode's state directory: it is not checkpointed",
            root.display()
        ));
    }
    Ok(root)
}

/// Whether commands in `cwd` get checkpoints, and how (for `automode
/// status` and `automode doctor`): the line, and whether all is as it
/// should be (a project, checkpoints on, a watcher possible).
pub fn describe_here(
    state_dir: Option<&Path>,
    cwd: &Path,
    home: Option<PathBuf>,
    settings: &Settings,
) -> (String, bool) {
    if !settings.enabled {
        return (
            "off here (checkpoint.enabled): deletions and overwrites are judged without them"
                .into(),
            false,
        );
    }
    let Some(state_dir) = state_dir else {
        return ("none: no state directory (HOME is not set)".into(), false);
    };
    let places = crate::policy::places::Places {
        home,
        cwd: cwd.to_path_buf(),
        automode_state: Some(state_dir.to_path_buf()),
        ..Default::default()
    };
    let root = match root_for(cwd, &places) {
        Ok(r) => r,
        Err(why) => return (format!("none here: {why}"), false),
    };
    let dir = store::dir_for(state_dir, &root);
    match std::fs::read_to_string(dir.join(watch::NO_WATCHER)) {
        Ok(why) => (
            format!(
                "{}: no watcher, every checkpoint walks it ({why})",
                root.display()
            ),
            false,
        ),
        Err(_) => (
            format!(
                "{}: before every command that may change it, through its watcher",
                root.display()
            ),
            true,
        ),
    }
}

/// What a command's checkpoint is labelled with.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Label {
    pub session: String,
    pub command: String,
    pub cwd: String,
    /// Seconds since the epoch.
    pub time: u64,
}

/// A checkpoint taken: its number and the content it kept.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Taken {
    pub n: u64,
    /// Bytes of content no earlier checkpoint (or git) held.
    pub new_bytes: u64,
}

/// Take a checkpoint of `root` before a command: through the project's
/// watcher when it runs (only what changed is read), else by a walk here
/// (and, with `watch`, the watcher is started for the next command).
pub fn take(
    state_dir: &Path,
    root: &Path,
    settings: &Settings,
    label: &Label,
    watch: bool,
) -> Result<Taken, String> {
    let dir = store::dir_for(state_dir, root);
    if watch && let Some(answer) = watch::ask(&dir, label, settings) {
        return answer;
    }
    let taken =
        Store::open(&dir, root, LOCK_WAIT)?.checkpoint(&tree::Scope::All, label, settings)?;
    if watch {
        watch::start(&dir, root, settings.max_file_bytes);
    }
    Ok(taken)
}
