//! Protected paths inside the writable project (`.git/hooks`,
//! `.git/config`, harness settings …) where no read-only bind can be
//! made, and protected paths that do not exist yet: a snapshot before the
//! command, and after it every change undone and reported ("automode
//! restored .git/hooks/pre-commit, which the command wrote"). Bounded:
//! at most `MAX_ENTRIES` entries and `MAX_FILE_BYTES` per file are kept;
//! a larger change is reported as not restorable.
//!
//! The weak point, said in docs/sandbox.md: a process that outlives the command
//! can write after the check.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Most entries kept under all protected paths.
const MAX_ENTRIES: usize = 4096;
/// Largest file whose content is kept (to restore it).
const MAX_FILE_BYTES: u64 = 1 << 20;

/// One path as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Missing,
    Dir {
        mode: u32,
    },
    File {
        mode: u32,
        content: Option<Vec<u8>>,
        len: u64,
        mtime: i64,
        mtime_ns: i64,
    },
    Symlink {
        target: PathBuf,
    },
    /// A socket, fifo or device: kept as is, never restored.
    Other,
}

/// The protected paths before the command.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    roots: Vec<PathBuf>,
    entries: Vec<(PathBuf, Node)>,
    /// The bound was hit: changes beyond it go unnoticed.
    pub truncated: bool,
    /// Repository configurations whose change is judged
    /// (`gitconfig::check`) rather than undone whole.
    judged: Vec<PathBuf>,
}

/// One change undone (or not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: PathBuf,
    pub what: Undone,
    /// What in it was refused (a repository configuration's key).
    pub why: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undone {
    /// Its content (or kind, or mode) was put back.
    Restored,
    /// It was deleted and was put back.
    Recreated,
    /// The command created it; it was moved aside to this name.
    MovedAside(PathBuf),
    /// It changed and could not be put back (why).
    NotRestored(String),
}

fn read_node(p: &Path) -> Node {
    let Ok(meta) = std::fs::symlink_metadata(p) else {
        return Node::Missing;
    };
    let ft = meta.file_type();
    let mode = meta.permissions().mode() & 0o7777;
    if ft.is_symlink() {
        return match std::fs::read_link(p) {
            Ok(target) => Node::Symlink { target },
            Err(_) => Node::Other,
        };
    }
    if ft.is_dir() {
        return Node::Dir { mode };
    }
    if ft.is_file() {
        let content = (meta.len() <= MAX_FILE_BYTES)
            .then(|| std::fs::read(p).ok())
            .flatten();
        return Node::File {
            mode,
            content,
            len: meta.len(),
            mtime: meta.mtime(),
            mtime_ns: meta.mtime_nsec(),
        };
    }
    Node::Other
}

/// The entries under `root` (itself first), depth first, bounded.
fn walk(root: &Path, out: &mut Vec<(PathBuf, Node)>, truncated: &mut bool) {
    let node = read_node(root);
    let is_dir = matches!(node, Node::Dir { .. });
    out.push((root.to_path_buf(), node));
    if !is_dir {
        return;
    }
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    let mut names: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    names.sort();
    for p in names {
        if out.len() >= MAX_ENTRIES {
            *truncated = true;
            return;
        }
        walk(&p, out, truncated);
    }
}

impl Snapshot {
    /// Take the snapshot of `roots` (existing or not).
    pub fn take(roots: &[PathBuf]) -> Snapshot {
        let mut s = Snapshot {
            roots: roots.to_vec(),
            ..Snapshot::default()
        };
        for r in roots {
            walk(r, &mut s.entries, &mut s.truncated);
        }
        s
    }

    /// Judge the changes of these repository configurations: what git
    /// writes for routine work stays.
    pub fn judging(mut self, configs: &[PathBuf]) -> Snapshot {
        self.judged = configs.to_vec();
        self
    }

    /// Nothing to watch.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// Compare with now; undo every change; say what was done.
    pub fn restore(&self, stamp: u64) -> Vec<Change> {
        let mut now = Vec::new();
        let mut truncated = false;
        for r in &self.roots {
            walk(r, &mut now, &mut truncated);
        }
        let mut changes = Vec::new();
        // New entries first, deepest first, so a new tree moves aside
        // whole (only its top is moved).
        let before: std::collections::HashMap<&Path, &Node> =
            self.entries.iter().map(|(p, n)| (p.as_path(), n)).collect();
        let mut moved: Vec<PathBuf> = Vec::new();
        for (p, node) in &now {
            if matches!(node, Node::Missing) || moved.iter().any(|m| p.starts_with(m)) {
                continue;
            }
            let was = before.get(p.as_path()).copied();
            let is_new = matches!(was, None | Some(Node::Missing));
            if is_new && !self.truncated {
                let aside = aside_name(p, stamp);
                let what = match std::fs::rename(p, &aside) {
                    Ok(()) => Undone::MovedAside(aside),
                    Err(e) => Undone::NotRestored(format!("could not move it aside: {e}")),
                };
                moved.push(p.clone());
                changes.push(Change {
                    path: p.clone(),
                    what,
                    why: None,
                });
            }
        }
        // What each watched entry is now: as just walked (one look per
        // path), else read (an entry whose directory went away).
        let current: std::collections::HashMap<&Path, &Node> =
            now.iter().map(|(p, n)| (p.as_path(), n)).collect();
        for (p, was) in &self.entries {
            if moved.iter().any(|m| p.starts_with(m) && p != m) {
                continue;
            }
            // A path that was missing and was just moved aside is missing
            // again, as it was.
            if moved.iter().any(|m| m == p) && matches!(was, Node::Missing) {
                continue;
            }
            let read;
            let is = match current.get(p.as_path()) {
                Some(n) => *n,
                None => {
                    read = read_node(p);
                    &read
                }
            };
            if same(was, is) {
                continue;
            }
            let why = match self.judge(p, was, is) {
                Some(Ok(())) => continue,
                Some(Err(why)) => Some(why),
                None => None,
            };
            if let Some(c) = put_back(p, was, is, stamp) {
                changes.push(Change { why, ..c });
            }
        }
        changes
    }
}

impl Snapshot {
    /// For a judged configuration, whether its change is one git makes
    /// for routine work (else what it changed).
    fn judge(&self, p: &Path, was: &Node, is: &Node) -> Option<Result<(), String>> {
        if !self.judged.iter().any(|j| j == p) {
            return None;
        }
        Some(match (was, is) {
            (
                Node::File {
                    mode: m1,
                    content: Some(old),
                    ..
                },
                Node::File {
                    mode: m2,
                    content: Some(new),
                    ..
                },
            ) if m1 == m2 => super::gitconfig::check(old, new),
            _ => Err("it is no longer the same kind of file".into()),
        })
    }
}

/// Unchanged, for restoring purposes (the mtime counts for files whose
/// content was too large to keep).
fn same(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (
            Node::File {
                mode: m1,
                content: Some(c1),
                ..
            },
            Node::File {
                mode: m2,
                content: Some(c2),
                ..
            },
        ) => m1 == m2 && c1 == c2,
        (
            Node::File {
                mode: m1,
                len: l1,
                mtime: t1,
                mtime_ns: n1,
                ..
            },
            Node::File {
                mode: m2,
                len: l2,
                mtime: t2,
                mtime_ns: n2,
                ..
            },
        ) => m1 == m2 && l1 == l2 && t1 == t2 && n1 == n2,
        (a, b) => a == b,
    }
}

/// Put one entry back as it was.
fn put_back(p: &Path, was: &Node, is: &Node, stamp: u64) -> Option<Change> {
    let deleted = matches!(is, Node::Missing);
    let done = |what| {
        Some(Change {
            path: p.to_path_buf(),
            what,
            why: None,
        })
    };
    // Whatever is there now of another kind goes aside first.
    let kind_changed = std::mem::discriminant(was) != std::mem::discriminant(is);
    if kind_changed
        && !deleted
        && !matches!(was, Node::Missing)
        && let Err(e) = std::fs::rename(p, aside_name(p, stamp))
    {
        return done(Undone::NotRestored(format!(
            "could not move the new one aside: {e}"
        )));
    }
    let result = match was {
        Node::Missing => return None,
        Node::Other => return done(Undone::NotRestored("a special file changed".into())),
        Node::Dir { mode } => std::fs::create_dir_all(p)
            .and_then(|()| std::fs::set_permissions(p, std::fs::Permissions::from_mode(*mode))),
        Node::Symlink { target } => {
            let _ = std::fs::remove_file(p);
            std::os::unix::fs::symlink(target, p)
        }
        Node::File { content: None, .. } => {
            return done(Undone::NotRestored(format!(
                "it is larger than {} MiB, so its old content was not kept",
                MAX_FILE_BYTES >> 20
            )));
        }
        Node::File {
            mode,
            content: Some(bytes),
            ..
        } => write_back(p, bytes, *mode),
    };
    match result {
        Ok(()) if deleted => done(Undone::Recreated),
        Ok(()) => done(Undone::Restored),
        Err(e) => done(Undone::NotRestored(e.to_string())),
    }
}

/// Write a file's old content back in one step (temp file, rename).
fn write_back(p: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let dir = p
        .parent()
        .ok_or_else(|| std::io::Error::other("no parent"))?;
    std::fs::create_dir_all(dir)?;
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::fs::write(tmp.path(), bytes)?;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode))?;
    tmp.persist(p).map_err(|e| e.error)?;
    Ok(())
}

/// `<path>.automode-removed-<stamp>`, never over an existing name.
fn aside_name(p: &Path, stamp: u64) -> PathBuf {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut aside = p.with_file_name(format!("{name}.automode-removed-{stamp}"));
    let mut n = 1;
    while std::fs::symlink_metadata(&aside).is_ok() {
        aside = p.with_file_name(format!("{name}.automode-removed-{stamp}-{n}"));
        n += 1;
    }
    aside
}

/// The report line for one change (`root`: shown relative to it).
pub fn describe(c: &Change, root: &Path) -> String {
    let shown = c
        .path
        .strip_prefix(root)
        .unwrap_or(&c.path)
        .display()
        .to_string();
    match &c.what {
        Undone::Restored => match &c.why {
            Some(why) => format!(
                "automode restored {shown}, which the command changed ({why}, which git does not write for routine work: a protected path, sandbox.protect)"
            ),
            None => format!(
                "automode restored {shown}, which the command changed (a protected path: sandbox.protect)"
            ),
        },
        Undone::Recreated => format!(
            "automode restored {shown}, which the command deleted (a protected path: sandbox.protect)"
        ),
        Undone::MovedAside(to) => format!(
            "automode moved {shown}, which the command created in a protected path, aside to {}",
            to.strip_prefix(root).unwrap_or(to).display()
        ),
        Undone::NotRestored(why) => format!(
            "automode could not restore {shown}, a protected path the command changed: {why}; check it before the next commit"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_undone_and_new_files_moved_aside() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let hooks = dir.path().join(".git/hooks");
        let config = dir.path().join(".git/config");
        let claude = dir.path().join(".claude");
        std::fs::create_dir_all(&hooks).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(hooks.join("pre-commit.sample"), "sample").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&config, "[core]\n").unwrap_or_else(|e| panic!("{e}"));
        let snap = Snapshot::take(&[hooks.clone(), config.clone(), claude.clone()]);
        std::fs::write(hooks.join("pre-commit"), "evil").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&config, "[core]\nfsmonitor = evil\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(hooks.join("pre-commit.sample")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(claude.join("x")).unwrap_or_else(|e| panic!("{e}"));
        let changes = snap.restore(7);
        assert_eq!(
            std::fs::read_to_string(&config).unwrap_or_default(),
            "[core]\n"
        );
        assert_eq!(
            std::fs::read_to_string(hooks.join("pre-commit.sample")).unwrap_or_default(),
            "sample"
        );
        assert!(!hooks.join("pre-commit").exists());
        assert!(hooks.join("pre-commit.automode-removed-7").exists());
        assert!(!claude.exists());
        assert!(dir.path().join(".claude.automode-removed-7/x").exists());
        let kinds: Vec<&Undone> = changes.iter().map(|c| &c.what).collect();
        assert_eq!(changes.len(), 4, "{changes:?}");
        assert!(kinds.contains(&&Undone::Restored) && kinds.contains(&&Undone::Recreated));
        let line = describe(&changes[0], dir.path());
        assert!(line.starts_with("automode "), "{line}");
        // Unchanged: nothing to say.
        let snap = Snapshot::take(&[hooks.clone(), config.clone()]);
        assert!(snap.restore(8).is_empty());
    }
}
