//! The project as a checkpoint sees it: every file, link and directory
//! under the root (but the excluded directories) with its mode, its
//! content's id and the stat data that says whether it changed since it
//! was last read. `update` brings a tree up to date with the disk, for the
//! whole project or only the paths a watcher saw change; a file whose
//! stat data did not move is not read again.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::fmt;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A file modified this close (ns) to the moment it was read is read
/// again next time: a later write in the same clock tick keeps size and
/// times (git's "racy" entries).
const RACY_NS: i64 = 2_000_000_000;

/// A content id: git's blob id (SHA-1 of `blob LEN\0` and the bytes,
/// computed with collision detection), so what git already stores is
/// named the same.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(pub [u8; 20]);

impl Id {
    /// The id of `bytes`, or None when the collision detection fires
    /// (the content is then not kept: it could pass for another).
    pub fn of(bytes: &[u8]) -> Option<Id> {
        use sha1_checked::Digest as _;
        let mut h = sha1_checked::Sha1::new();
        h.update(format!("blob {}\0", bytes.len()).as_bytes());
        h.update(bytes);
        match h.try_finalize() {
            sha1_checked::CollisionResult::Ok(out) => {
                let mut id = [0u8; 20];
                id.copy_from_slice(&out);
                Some(Id(id))
            }
            _ => None,
        }
    }

    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn from_hex(s: &str) -> Option<Id> {
        if s.len() != 40 || !s.is_ascii() {
            return None;
        }
        let mut id = [0u8; 20];
        for (i, b) in id.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Id(id))
    }

    /// The empty file's id: never stored, always known.
    pub fn empty() -> Id {
        // git's well-known empty blob, e69de29b…
        Id([
            0xe6, 0x9d, 0xe2, 0x9b, 0xb2, 0xd1, 0xd6, 0x43, 0x4b, 0x8b, 0x29, 0xae, 0x77, 0x5a,
            0xd8, 0xc2, 0xe4, 0x8c, 0x53, 0x91,
        ])
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.hex())
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        let s = String::deserialize(d)?;
        Id::from_hex(&s).ok_or_else(|| serde::de::Error::custom("not a 40-digit id"))
    }
}

/// A path relative to the project root, as bytes (`/` between names).
/// Written as a JSON string when it is UTF-8, else as its bytes.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Key(pub Vec<u8>);

impl Key {
    pub fn path(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.0))
    }

    pub fn of(rel: &Path) -> Key {
        Key(rel.as_os_str().as_bytes().to_vec())
    }

    pub fn join(&self, name: &OsStr) -> Key {
        let mut v = self.0.clone();
        if !v.is_empty() {
            v.push(b'/');
        }
        v.extend_from_slice(name.as_bytes());
        Key(v)
    }

    /// The keys inside this one (`a/` …), as a range's bounds.
    fn below(&self) -> (Key, Key) {
        let mut lo = self.0.clone();
        lo.push(b'/');
        let mut hi = self.0.clone();
        hi.push(b'/' + 1);
        (Key(lo), Key(hi))
    }

    /// The directory `self` is in; None at the top.
    pub fn parent(&self) -> Option<Key> {
        let at = self.0.iter().rposition(|b| *b == b'/')?;
        Some(Key(self.0[..at].to_vec()))
    }

    /// `self` is `other` or inside it.
    pub fn within(&self, other: &Key) -> bool {
        self.0 == other.0
            || (self.0.len() > other.0.len()
                && self.0.starts_with(&other.0)
                && self.0[other.0.len()] == b'/')
    }

    pub fn shown(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.shown())
    }
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum KeyRepr {
    Text(String),
    Bytes(Vec<u8>),
}

impl Serialize for Key {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(&self.0) {
            Ok(t) => s.serialize_str(t),
            Err(_) => self.0.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        Ok(match KeyRepr::deserialize(d)? {
            KeyRepr::Text(t) => Key(t.into_bytes()),
            KeyRepr::Bytes(b) => Key(b),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    #[serde(rename = "f")]
    File,
    #[serde(rename = "l")]
    Link,
    #[serde(rename = "d")]
    Dir,
}

/// One object of the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    #[serde(rename = "k")]
    pub kind: Kind,
    /// Permission bits (`0o7777`).
    #[serde(rename = "m")]
    pub mode: u32,
    #[serde(rename = "s", default)]
    pub size: u64,
    /// A file's content.
    #[serde(rename = "i", default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// A link's target.
    #[serde(rename = "l", default, skip_serializing_if = "Option::is_none")]
    pub link: Option<Key>,
    #[serde(rename = "t", default)]
    pub mtime: i64,
    #[serde(rename = "c", default)]
    pub ctime: i64,
    #[serde(rename = "n", default)]
    pub ino: u64,
    /// Read again next time, whatever the stat data says.
    #[serde(rename = "r", default, skip_serializing_if = "std::ops::Not::not")]
    pub racy: bool,
}

impl Entry {
    /// The same object for `undo`: kind, mode and content.
    pub fn same_content(&self, other: &Entry) -> bool {
        self.kind == other.kind
            && self.mode == other.mode
            && self.id == other.id
            && self.link == other.link
    }

    /// The stat data says this is the object `meta` describes, unchanged.
    fn unchanged(&self, meta: &std::fs::Metadata) -> bool {
        !self.racy
            && kind_of(meta) == Some(self.kind)
            && self.mode == meta.mode() & 0o7777
            && self.size == meta.len()
            && self.mtime == ns(meta.mtime(), meta.mtime_nsec())
            && self.ctime == ns(meta.ctime(), meta.ctime_nsec())
            && self.ino == meta.ino()
    }
}

fn ns(s: i64, n: i64) -> i64 {
    s.saturating_mul(1_000_000_000).saturating_add(n)
}

fn kind_of(meta: &std::fs::Metadata) -> Option<Kind> {
    let t = meta.file_type();
    if t.is_file() {
        Some(Kind::File)
    } else if t.is_symlink() {
        Some(Kind::Link)
    } else if t.is_dir() {
        Some(Kind::Dir)
    } else {
        None
    }
}

/// The project's objects, and the files too large to keep.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tree {
    pub entries: BTreeMap<Key, Entry>,
    pub skipped: BTreeMap<Key, u64>,
}

impl Tree {
    /// Remove `key` and everything inside it; what was there.
    fn take_subtree(&mut self, key: &Key) -> BTreeMap<Key, Entry> {
        let (lo, hi) = key.below();
        let mut out: BTreeMap<Key, Entry> = self
            .entries
            .range(lo.clone()..hi.clone())
            .map(|(k, e)| (k.clone(), e.clone()))
            .collect();
        for k in out.keys() {
            self.entries.remove(k);
        }
        if let Some(e) = self.entries.remove(key) {
            out.insert(key.clone(), e);
        }
        let gone: Vec<Key> = self.skipped.range(lo..hi).map(|(k, _)| k.clone()).collect();
        for k in gone {
            self.skipped.remove(&k);
        }
        self.skipped.remove(key);
        out
    }
}

/// What to look at.
#[derive(Debug, Clone)]
pub enum Scope {
    /// The whole project.
    All,
    /// These paths (and, for a directory, all it holds).
    Paths(Vec<Key>),
}

/// What an update looked at, with what the tree held there before.
#[derive(Debug)]
pub enum Region {
    /// The whole tree; this was it.
    All(Tree),
    /// These paths and what is inside them; these entries were there.
    Paths(Vec<(Key, BTreeMap<Key, Entry>)>),
}

impl Region {
    /// From what was there to `now`: the keys set (added or changed) and
    /// the keys gone.
    pub fn delta(&self, now: &Tree) -> (Vec<(Key, Entry)>, Vec<Key>) {
        match self {
            Region::All(old) => delta(old, now),
            Region::Paths(parts) => {
                let mut set = Vec::new();
                let mut gone = Vec::new();
                for (key, old) in parts {
                    let (lo, hi) = key.below();
                    let here = now
                        .entries
                        .get_key_value(key)
                        .into_iter()
                        .chain(now.entries.range(lo..hi));
                    for (k, e) in here {
                        if old.get(k) != Some(e) {
                            set.push((k.clone(), e.clone()));
                        }
                    }
                    for k in old.keys() {
                        if !now.entries.contains_key(k) {
                            gone.push(k.clone());
                        }
                    }
                }
                (set, gone)
            }
        }
    }
}

/// Bring `tree` up to date with the project under `root`; what was
/// looked at, with what the tree held there before. The content of the
/// files read lands in `read` (up to a bound), for the store.
pub fn update(
    root: &Path,
    tree: &mut Tree,
    scope: &Scope,
    max_file_bytes: u64,
    read: &mut HashMap<Id, Vec<u8>>,
) -> Result<Region, String> {
    let mut walk = Walk {
        root,
        max_file_bytes,
        start: now_ns(),
        count: 0,
        read,
        kept: 0,
    };
    let keys = match scope {
        Scope::Paths(keys) if !keys.iter().any(|k| k.0.is_empty()) => keys,
        // The whole project (or its root's own names changed).
        _ => {
            let old = std::mem::take(tree);
            if let Err(e) = walk.dir(&Key::default(), &old.entries, tree) {
                *tree = old;
                return Err(e);
            }
            return Ok(Region::All(old));
        }
    };
    let mut keys = keys.clone();
    keys.sort();
    keys.dedup();
    walk.count = tree.entries.len();
    let mut parts: Vec<(Key, BTreeMap<Key, Entry>)> = Vec::new();
    for key in keys {
        if parts.iter().any(|(d, _)| key.within(d)) || excluded_on_the_way(&key) {
            continue;
        }
        // Only below a directory the tree holds: a path whose parent is
        // now a link (or gone) would be read through it, out of the
        // project. What it held goes.
        let parent_is_dir = key
            .parent()
            .is_none_or(|p| tree.entries.get(&p).is_some_and(|e| e.kind == Kind::Dir));
        if !parent_is_dir {
            let old = tree.take_subtree(&key);
            parts.push((key, old));
            continue;
        }
        let old = tree.take_subtree(&key);
        walk.count = walk.count.saturating_sub(old.len());
        let looked = walk.one(&key, &old, tree);
        parts.push((key, old));
        looked?;
    }
    Ok(Region::Paths(parts))
}

/// Some directory named by `key` (or `key` itself when it is a
/// directory) is one no checkpoint enters.
fn excluded_on_the_way(key: &Key) -> bool {
    let path = key.path();
    let comps: Vec<_> = path.components().collect();
    comps[..comps.len().saturating_sub(1)]
        .iter()
        .any(|c| super::excluded_dir(c.as_os_str()).is_some())
}

struct Walk<'a> {
    root: &'a Path,
    max_file_bytes: u64,
    start: i64,
    count: usize,
    /// The content of the files read, by id, while under `KEEP_READ`.
    read: &'a mut HashMap<Id, Vec<u8>>,
    kept: u64,
}

/// How much of the content read by a walk is kept for the store (the
/// rest is read again when written).
const KEEP_READ: u64 = 64 * 1024 * 1024;

impl Walk<'_> {
    fn full(&self, key: &Key) -> PathBuf {
        if key.0.is_empty() {
            self.root.to_path_buf()
        } else {
            self.root.join(key.path())
        }
    }

    /// Look at one path (and, for a directory, what it holds).
    fn one(&mut self, key: &Key, old: &BTreeMap<Key, Entry>, out: &mut Tree) -> Result<(), String> {
        let path = self.full(key);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return Ok(());
        };
        if meta.is_dir() {
            let name = path.file_name().unwrap_or_default();
            if super::excluded_dir(name).is_some() {
                return Ok(());
            }
            self.record(key, &meta, old, out)?;
            return self.dir(key, old, out);
        }
        self.record(key, &meta, old, out)
    }

    /// Everything inside the directory `key`.
    fn dir(&mut self, key: &Key, old: &BTreeMap<Key, Entry>, out: &mut Tree) -> Result<(), String> {
        let path = self.full(key);
        let entries = match std::fs::read_dir(&path) {
            Ok(e) => e,
            // Gone since: what it held is gone too.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let name = entry.file_name();
            let child = key.join(&name);
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                if super::excluded_dir(&name).is_some() {
                    continue;
                }
                self.record(&child, &meta, old, out)?;
                self.dir(&child, old, out)?;
            } else {
                self.record(&child, &meta, old, out)?;
            }
        }
        Ok(())
    }

    fn record(
        &mut self,
        key: &Key,
        meta: &std::fs::Metadata,
        old: &BTreeMap<Key, Entry>,
        out: &mut Tree,
    ) -> Result<(), String> {
        let Some(kind) = kind_of(meta) else {
            // FIFOs, sockets, devices: not content.
            return Ok(());
        };
        self.count += 1;
        if self.count > super::MAX_ENTRIES {
            return Err(format!(
                "the project holds more than {} files and directories",
                super::MAX_ENTRIES
            ));
        }
        if let Some(e) = old.get(key)
            && e.unchanged(meta)
        {
            out.entries.insert(key.clone(), e.clone());
            return Ok(());
        }
        let mtime = ns(meta.mtime(), meta.mtime_nsec());
        let mut entry = Entry {
            kind,
            mode: meta.mode() & 0o7777,
            size: meta.len(),
            id: None,
            link: None,
            mtime,
            ctime: ns(meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            racy: mtime >= self.start - RACY_NS,
        };
        let path = self.full(key);
        match kind {
            Kind::Dir => {}
            Kind::Link => {
                let Ok(target) = std::fs::read_link(&path) else {
                    return Ok(());
                };
                entry.link = Some(Key::of(&target));
            }
            Kind::File => {
                if meta.len() > self.max_file_bytes {
                    out.skipped.insert(key.clone(), meta.len());
                    return Ok(());
                }
                match read_file(&path, meta, self.max_file_bytes) {
                    Read::Bytes(bytes, moved) => {
                        let Some(id) = Id::of(&bytes) else {
                            out.skipped.insert(key.clone(), meta.len());
                            return Ok(());
                        };
                        entry.id = Some(id);
                        entry.size = bytes.len() as u64;
                        entry.racy |= moved;
                        if self.kept + entry.size <= KEEP_READ {
                            self.kept += entry.size;
                            self.read.insert(id, bytes);
                        }
                    }
                    Read::Gone => return Ok(()),
                    Read::TooLarge(n) => {
                        out.skipped.insert(key.clone(), n);
                        return Ok(());
                    }
                    Read::Failed(why) => return Err(why),
                }
            }
        }
        out.entries.insert(key.clone(), entry);
        Ok(())
    }
}

/// What reading one file gave.
#[derive(Debug)]
pub enum Read {
    /// The bytes, and whether the file moved while it was read (read
    /// again next time).
    Bytes(Vec<u8>, bool),
    /// Gone, or no longer a regular file.
    Gone,
    TooLarge(u64),
    Failed(String),
}

/// Read a regular file without following a link, without waiting on a
/// FIFO put in its place, at most `max` bytes.
pub fn read_file(path: &Path, meta: &std::fs::Metadata, max: u64) -> Read {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let mut file = match file {
        Ok(f) => f,
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::ENOENT | libc::ELOOP | libc::ENOTDIR | libc::ENXIO)
            ) =>
        {
            return Read::Gone;
        }
        Err(e) => return Read::Failed(format!("cannot read {}: {e}", path.display())),
    };
    let Ok(before) = file.metadata() else {
        return Read::Gone;
    };
    if !before.is_file() || before.ino() != meta.ino() {
        return Read::Gone;
    }
    let mut bytes = Vec::with_capacity(before.len() as usize);
    if let Err(e) = (&mut file).take(max + 1).read_to_end(&mut bytes) {
        return Read::Failed(format!("cannot read {}: {e}", path.display()));
    }
    if bytes.len() as u64 > max {
        return Read::TooLarge(bytes.len() as u64);
    }
    let moved = file.metadata().map_or(true, |after| {
        after.len() != bytes.len() as u64
            || after.mtime() != before.mtime()
            || after.mtime_nsec() != before.mtime_nsec()
            || after.ctime_nsec() != before.ctime_nsec()
    });
    Read::Bytes(bytes, moved)
}

pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// From `from` to `to`: the keys set (added or changed) and the keys gone.
pub fn delta(from: &Tree, to: &Tree) -> (Vec<(Key, Entry)>, Vec<Key>) {
    let mut set = Vec::new();
    let mut gone = Vec::new();
    for (k, e) in &to.entries {
        if from.entries.get(k) != Some(e) {
            set.push((k.clone(), e.clone()));
        }
    }
    for k in from.entries.keys() {
        if !to.entries.contains_key(k) {
            gone.push(k.clone());
        }
    }
    (set, gone)
}

/// What changed between two trees, by content: (changed, added, deleted)
/// files and links.
pub fn counts(from: &Tree, to: &Tree) -> (usize, usize, usize) {
    let mut changed = 0;
    let mut added = 0;
    let mut deleted = 0;
    for (k, e) in to.entries.iter().filter(|(_, e)| e.kind != Kind::Dir) {
        match from.entries.get(k) {
            Some(o) if o.same_content(e) => {}
            Some(_) => changed += 1,
            None => added += 1,
        }
    }
    for (k, _) in from.entries.iter().filter(|(_, e)| e.kind != Kind::Dir) {
        if !to.entries.contains_key(k) {
            deleted += 1;
        }
    }
    (changed, added, deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_gits_blob_ids() {
        assert_eq!(Id::of(b"").map(|i| i.hex()), Some(Id::empty().hex()));
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            Id::of(b"hello\n").map(|i| i.hex()).as_deref(),
            Some("ce013625030ba8dba906f756967f9e9ca394464a")
        );
        let id = Id::of(b"x").unwrap_or(Id::empty());
        assert_eq!(Id::from_hex(&id.hex()), Some(id));
    }

    #[test]
    fn keys_nest_by_whole_names() {
        let a = Key(b"src".to_vec());
        assert!(Key(b"src/a.rs".to_vec()).within(&a));
        assert!(!Key(b"src-old/a.rs".to_vec()).within(&a));
        let mut t = Tree::default();
        for k in ["src", "src/a", "src/b/c", "src-x", "srd"] {
            t.entries.insert(
                Key(k.as_bytes().to_vec()),
                Entry {
                    kind: Kind::File,
                    mode: 0o644,
                    size: 0,
                    id: None,
                    link: None,
                    mtime: 0,
                    ctime: 0,
                    ino: 0,
                    racy: false,
                },
            );
        }
        let taken = t.take_subtree(&a);
        assert_eq!(taken.len(), 3);
        assert_eq!(t.entries.len(), 2);
    }

    #[test]
    fn non_utf8_keys_survive_json() {
        let k = Key(vec![b'a', 0xff, b'b']);
        let text = serde_json::to_string(&k).unwrap_or_default();
        let back: Key = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(back, k);
    }
}
