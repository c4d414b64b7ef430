//! Putting a checkpoint back: what differs between the project now and
//! the checkpoint (a plan the user sees first), then the changes, each
//! file written beside its place and renamed over it, so a file is at any
//! moment either its old or its restored self. What no checkpoint holds
//! (excluded directories, files over the size limit) is never touched.

use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use super::store::Store;
use super::tree::{Entry, Key, Kind, Tree};

/// What an undo changes.
#[derive(Debug, Default)]
pub struct Plan {
    /// Objects to remove (added since), deepest first.
    pub remove: Vec<(Key, Kind)>,
    /// Directories to make, shallowest first.
    pub mkdir: Vec<(Key, u32)>,
    /// Files and links to write back (changed or deleted since).
    pub write: Vec<(Key, Entry)>,
    /// Directories whose mode changes back.
    pub chmod: Vec<(Key, u32)>,
    /// Paths left alone, with why.
    pub left: Vec<(Key, String)>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.remove.is_empty()
            && self.mkdir.is_empty()
            && self.write.is_empty()
            && self.chmod.is_empty()
    }
}

/// From the project `now` back to `target`; only `only` and what is
/// inside it, when given.
pub fn plan(now: &Tree, target: &Tree, only: Option<&Key>) -> Plan {
    let mine = |k: &Key| only.is_none_or(|o| k.within(o));
    let mut p = Plan::default();
    for (k, e) in now.entries.iter().rev() {
        if !mine(k) {
            continue;
        }
        match target.entries.get(k) {
            Some(t) if t.kind == e.kind => {}
            _ => p.remove.push((k.clone(), e.kind)),
        }
    }
    for (k, t) in &target.entries {
        if !mine(k) {
            continue;
        }
        if now.skipped.contains_key(k) {
            p.left.push((
                k.clone(),
                "a file over checkpoint.maxFileBytes is there now".into(),
            ));
            continue;
        }
        match (now.entries.get(k), t.kind) {
            (Some(e), Kind::Dir) if e.kind == Kind::Dir => {
                if e.mode != t.mode {
                    p.chmod.push((k.clone(), t.mode));
                }
            }
            (_, Kind::Dir) => p.mkdir.push((k.clone(), t.mode)),
            (Some(e), _) if e.same_content(t) => {}
            _ => p.write.push((k.clone(), t.clone())),
        }
    }
    for (k, size) in &target.skipped {
        if mine(k) && !now.skipped.contains_key(k) {
            p.left.push((
                k.clone(),
                format!(
                    "{} MiB, over checkpoint.maxFileBytes: it was not kept",
                    size / (1024 * 1024)
                ),
            ));
        }
    }
    p
}

/// A key that stays inside the root: plain names only.
fn safe(key: &Key) -> bool {
    !key.0.is_empty()
        && key
            .path()
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// Every directory above `key` is a real directory (no link on the way
/// out of the project).
fn parents_are_dirs(root: &Path, key: &Key) -> bool {
    let mut at = root.to_path_buf();
    let comps: Vec<_> = key.path().components().collect();
    for c in &comps[..comps.len().saturating_sub(1)] {
        at.push(c.as_os_str());
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            _ => return false,
        }
    }
    true
}

/// What an undo did not do: what failed, and what it left on purpose.
#[derive(Debug, Default)]
pub struct Undone {
    pub failed: Vec<String>,
    pub left: Vec<String>,
}

/// Carry out `plan` in the project (the rest is done whatever fails).
pub fn apply(store: &Store, plan: &Plan) -> Undone {
    let root = store.root.clone();
    let mut failed = Vec::new();
    let mut left = Vec::new();
    let full = |k: &Key| root.join(k.path());
    for (k, kind) in &plan.remove {
        if !safe(k) || !parents_are_dirs(&root, k) {
            continue;
        }
        let path = full(k);
        let result = match kind {
            Kind::Dir => match std::fs::remove_dir(&path) {
                Err(e) if e.raw_os_error() == Some(libc::ENOTEMPTY) => {
                    left.push(format!(
                        "{}: left in place, it holds what no checkpoint keeps",
                        k.shown()
                    ));
                    Ok(())
                }
                r => r,
            },
            _ => std::fs::remove_file(&path),
        };
        match result {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                failed.push(format!("{}: cannot remove: {e}", k.shown()));
            }
            _ => {}
        }
    }
    for (k, mode) in &plan.mkdir {
        if !safe(k) || !parents_are_dirs(&root, k) {
            failed.push(format!("{}: a link or file stands on its way", k.shown()));
            continue;
        }
        let path = full(k);
        match std::fs::create_dir(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && path.is_dir() => {}
            Err(e) => failed.push(format!("{}: cannot make the directory: {e}", k.shown())),
        }
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(*mode | 0o700));
    }
    for (k, e) in &plan.write {
        if !safe(k) || !parents_are_dirs(&root, k) {
            failed.push(format!("{}: a link or file stands on its way", k.shown()));
            continue;
        }
        if let Err(why) = write_one(store, &full(k), e) {
            failed.push(format!("{}: {why}", k.shown()));
        }
    }
    // Directory modes last (a read-only directory is filled first), the
    // deepest first.
    let mut modes: Vec<&(Key, u32)> = plan.chmod.iter().chain(&plan.mkdir).collect();
    modes.sort_by(|a, b| b.0.cmp(&a.0));
    for (k, mode) in modes {
        if safe(k) && parents_are_dirs(&root, k) {
            let _ = std::fs::set_permissions(full(k), std::fs::Permissions::from_mode(*mode));
        }
    }
    Undone { failed, left }
}

/// Write one file or link beside its place and rename it over it.
fn write_one(store: &Store, path: &Path, e: &Entry) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("/"));
    let tmp = temp_name(path);
    match e.kind {
        Kind::Link => {
            let target = e.link.as_ref().ok_or("a link without a target")?;
            std::os::unix::fs::symlink(target.path(), &tmp)
                .map_err(|err| format!("cannot make the link: {err}"))?;
        }
        Kind::File => {
            let id = e.id.ok_or("a file without content")?;
            let bytes = store.content(&id)?;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&tmp)
                .map_err(|err| format!("cannot write in {}: {err}", dir.display()))?;
            let written = f
                .write_all(&bytes)
                .and_then(|()| f.set_permissions(std::fs::Permissions::from_mode(e.mode)))
                .and_then(|()| f.sync_data());
            if let Err(err) = written {
                let _ = std::fs::remove_file(&tmp);
                return Err(format!("cannot write: {err}"));
            }
        }
        Kind::Dir => return Ok(()),
    }
    // A directory where the file goes (made since, emptied above) goes.
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        let _ = std::fs::remove_dir(path);
    }
    std::fs::rename(&tmp, path).map_err(|err| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot put it in place: {err}")
    })
}

fn temp_name(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let nonce = super::tree::now_ns() ^ i64::from(std::process::id());
    path.with_file_name(format!(".{name}.automode-undo-{:x}", nonce.unsigned_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(id: u8, mode: u32) -> Entry {
        Entry {
            kind: Kind::File,
            mode,
            size: 1,
            id: Some(super::super::tree::Id([id; 20])),
            link: None,
            mtime: 0,
            ctime: 0,
            ino: 0,
            racy: false,
        }
    }

    fn dir() -> Entry {
        Entry {
            kind: Kind::Dir,
            id: None,
            ..file(0, 0o755)
        }
    }

    fn key(s: &str) -> Key {
        Key(s.as_bytes().to_vec())
    }

    #[test]
    fn a_plan_removes_what_came_and_writes_back_what_went() {
        let mut before = Tree::default();
        before.entries.insert(key("src"), dir());
        before.entries.insert(key("src/a.rs"), file(1, 0o644));
        before.entries.insert(key("run.sh"), file(2, 0o755));
        let mut now = Tree::default();
        now.entries.insert(key("src"), dir());
        now.entries.insert(key("src/a.rs"), file(3, 0o644));
        now.entries.insert(key("new"), dir());
        now.entries.insert(key("new/x"), file(4, 0o644));
        now.entries.insert(key("run.sh"), file(2, 0o644));
        let p = plan(&now, &before, None);
        assert_eq!(
            p.remove,
            vec![(key("new/x"), Kind::File), (key("new"), Kind::Dir)]
        );
        let written: Vec<&Key> = p.write.iter().map(|(k, _)| k).collect();
        assert_eq!(written, vec![&key("run.sh"), &key("src/a.rs")]);
        let only = plan(&now, &before, Some(&key("src/a.rs")));
        assert!(only.remove.is_empty());
        assert_eq!(only.write.len(), 1);
    }

    #[test]
    fn keys_that_leave_the_root_are_refused() {
        assert!(!safe(&key("../x")));
        assert!(!safe(&key("/etc/passwd")));
        assert!(safe(&key("a/b")));
    }
}
