//! A project's checkpoint store, under the state directory: the content
//! of files (a pack of objects named by their ids, each kept once) and a
//! log of checkpoints (what each one changed since the one before). Both
//! files only grow; a checkpoint's objects are written and synced before
//! the log record that names them, and each record carries a checksum, so
//! a crash at any point leaves the last complete checkpoint readable: a
//! torn record is cut off when the store is next opened, and so are
//! objects no record names. Dropping old checkpoints (age, size) writes a
//! new generation beside the old one and switches to it in one rename.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{Read as _, Write as _};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use nix::fcntl::Flock;
use serde::{Deserialize, Serialize};

use super::tree::{self, Entry, Id, Key, Scope, Tree};
use super::{Label, Settings, Taken};

/// The checksum kept with each log record (the first bytes of its
/// SHA-256).
const SUM: usize = 8;

/// The store of the project at `root`.
pub fn dir_for(state_dir: &Path, root: &Path) -> PathBuf {
    use sha2::Digest as _;
    use std::os::unix::ffi::OsStrExt as _;
    let sum = sha2::Sha256::digest(root.as_os_str().as_bytes());
    let name: String = sum[..8].iter().map(|b| format!("{b:02x}")).collect();
    state_dir.join("checkpoints").join(name)
}

/// One log record.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "r")]
enum Record {
    #[serde(rename = "checkpoint")]
    Checkpoint {
        n: u64,
        label: Label,
        /// The whole tree, not a change to the one before.
        #[serde(default)]
        base: bool,
        set: Vec<(Key, Entry)>,
        gone: Vec<Key>,
        skipped: Vec<(Key, u64)>,
        /// Objects first written with this record: id, offset, length.
        objects: Vec<(Id, u64, u64)>,
        /// The pack's length once they were written.
        pack_end: u64,
    },
    #[serde(rename = "undo")]
    Undo {
        /// Back to the state before this checkpoint's command.
        to: u64,
        /// The checkpoint taken just before the undo.
        from: u64,
        done: bool,
        time: u64,
    },
}

/// A checkpoint as the log holds it.
#[derive(Debug, Clone)]
pub struct Point {
    pub n: u64,
    pub label: Label,
    base: bool,
    set: Vec<(Key, Entry)>,
    gone: Vec<Key>,
    pub skipped: BTreeMap<Key, u64>,
}

/// git's index as last read: its identity (inode, size, time), its ids.
type GitCache = ((u64, u64, i64), std::sync::Arc<HashSet<Id>>);

/// An open store, locked for this process until dropped.
#[derive(Debug)]
pub struct Store {
    pub dir: PathBuf,
    pub root: PathBuf,
    lock: Option<Flock<File>>,
    generation: String,
    log: File,
    pack: File,
    log_end: u64,
    pack_end: u64,
    points: Vec<Point>,
    current: Tree,
    objects: HashMap<Id, (u64, u64)>,
    /// An undo that began and did not finish: (to, from).
    pub unfinished_undo: Option<(u64, u64)>,
    /// The tree as logged, when `current` was brought up to date ahead
    /// of the log (a watcher's first walk).
    ahead: Option<Tree>,
    /// `current` no longer matches the log (a checkpoint failed half
    /// way): read the log again before the next one.
    diverged: bool,
    /// git's index as last read: its identity (inode, size, time) and ids.
    git_cache: Option<GitCache>,
}

fn io(what: &str, p: &Path) -> impl Fn(std::io::Error) -> String {
    let shown = format!("{what} {}", p.display());
    move |e| format!("{shown}: {e}")
}

fn sync_dir(p: &Path) {
    if let Ok(d) = File::open(p) {
        let _ = d.sync_all();
    }
}

impl Store {
    /// Open (or make) the store in `dir` for the project at `root`,
    /// waiting at most `wait` for another process using it.
    pub fn open(dir: &Path, root: &Path, wait: Duration) -> Result<Store, String> {
        std::fs::create_dir_all(dir).map_err(io("cannot make", dir))?;
        let lock = crate::state::lock_within(&dir.join("lock"), wait)?.ok_or_else(|| {
            format!(
                "another process has held the checkpoint store {} for {} s",
                dir.display(),
                wait.as_secs()
            )
        })?;
        let root_file = dir.join("root");
        if !root_file.exists() {
            crate::state::write_atomic(&root_file, root.as_os_str().as_encoded_bytes())
                .map_err(io("cannot write", &root_file))?;
        }
        let current_file = dir.join("current");
        let generation = match std::fs::read_to_string(&current_file) {
            Ok(g) if valid_generation(g.trim()) => g.trim().to_string(),
            _ => {
                let g = "g1".to_string();
                std::fs::create_dir_all(dir.join(&g)).map_err(io("cannot make", dir))?;
                sync_dir(dir);
                write_synced(&current_file, g.as_bytes())?;
                g
            }
        };
        sweep(dir, &generation);
        let gen_dir = dir.join(&generation);
        std::fs::create_dir_all(&gen_dir).map_err(io("cannot make", &gen_dir))?;
        let open = |name: &str| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(gen_dir.join(name))
                .map_err(io("cannot open", &gen_dir.join(name)))
        };
        let log = open("log")?;
        let pack = open("pack")?;
        let mut store = Store {
            dir: dir.to_path_buf(),
            root: root.to_path_buf(),
            lock: Some(lock),
            generation,
            log,
            pack,
            log_end: 0,
            pack_end: 0,
            points: Vec::new(),
            current: Tree::default(),
            objects: HashMap::new(),
            unfinished_undo: None,
            ahead: None,
            diverged: false,
            git_cache: None,
        };
        store.replay()?;
        Ok(store)
    }

    /// Let other processes use the store (a watcher between commands).
    pub fn unlock(&mut self) {
        self.lock = None;
    }

    /// Take the store back after `unlock`.
    pub fn relock(&mut self, wait: Duration) -> Result<(), String> {
        if self.lock.is_none() {
            self.lock = Some(
                crate::state::lock_within(&self.dir.join("lock"), wait)?.ok_or_else(|| {
                    format!("the checkpoint store {} is busy", self.dir.display())
                })?,
            );
        }
        Ok(())
    }

    /// Read the log again if another process wrote to it since (or this
    /// one lost track); true when it did.
    pub fn refresh(&mut self) -> Result<bool, String> {
        if !self.diverged && !self.stale() {
            return Ok(false);
        }
        let (dir, root) = (self.dir.clone(), self.root.clone());
        // Our own lock would keep the open waiting.
        self.lock = None;
        *self = Store::open(&dir, &root, super::LOCK_WAIT)?;
        Ok(true)
    }

    /// Bring the tree up to date with the project now, to be logged with
    /// the next checkpoint (a watcher walks once when it starts, and its
    /// checkpoints then look only at what changed).
    pub fn walk_ahead(&mut self, max_file_bytes: u64) -> Result<(), String> {
        let root = self.root.clone();
        let logged = self.current.clone();
        tree::update(
            &root,
            &mut self.current,
            &Scope::All,
            max_file_bytes,
            &mut HashMap::new(),
        )?;
        if self.ahead.is_none() {
            self.ahead = Some(logged);
        }
        Ok(())
    }

    /// Read the log: every complete record, in order. A torn or damaged
    /// tail is cut off, and so are pack bytes no record names.
    fn replay(&mut self) -> Result<(), String> {
        let mut bytes = Vec::new();
        (&self.log)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read the checkpoint log: {e}"))?;
        let mut at = 0usize;
        let mut good = 0usize;
        while at + 4 + SUM <= bytes.len() {
            let len = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
                as usize;
            let body = at + 4 + SUM;
            if body + len > bytes.len() || checksum(&bytes[body..body + len]) != bytes[at + 4..body]
            {
                break;
            }
            let Ok(record) = serde_json::from_slice::<Record>(&bytes[body..body + len]) else {
                break;
            };
            self.apply(record);
            at = body + len;
            good = at;
        }
        if good < bytes.len() {
            self.log
                .set_len(good as u64)
                .and_then(|()| self.log.sync_data())
                .map_err(|e| format!("cannot repair the checkpoint log: {e}"))?;
        }
        self.log_end = good as u64;
        let pack_len = self.pack.metadata().map(|m| m.len()).unwrap_or(0);
        if pack_len > self.pack_end {
            self.pack
                .set_len(self.pack_end)
                .and_then(|()| self.pack.sync_data())
                .map_err(|e| format!("cannot repair the checkpoint pack: {e}"))?;
        } else if pack_len < self.pack_end {
            return Err(format!(
                "the checkpoint pack in {} is shorter than its log says",
                self.dir.display()
            ));
        }
        Ok(())
    }

    /// A record read from the log: the tree it leads to, then the record.
    fn apply(&mut self, record: Record) {
        if let Record::Checkpoint {
            base,
            set,
            gone,
            skipped,
            ..
        } = &record
        {
            if *base {
                self.current = Tree::default();
            }
            for (k, e) in set {
                self.current.entries.insert(k.clone(), e.clone());
            }
            for k in gone {
                self.current.entries.remove(k);
            }
            self.current.skipped = skipped.iter().cloned().collect();
        }
        self.remember(record);
    }

    /// A record the store now holds (its objects, its checkpoint, an
    /// undo's state); `current` is left as it is.
    fn remember(&mut self, record: Record) {
        match record {
            Record::Checkpoint {
                n,
                label,
                base,
                set,
                gone,
                skipped,
                objects,
                pack_end,
            } => {
                for (id, off, len) in objects {
                    self.objects.insert(id, (off, len));
                }
                self.pack_end = pack_end;
                self.points.push(Point {
                    n,
                    label,
                    base,
                    set,
                    gone,
                    skipped: skipped.into_iter().collect(),
                });
            }
            Record::Undo { to, from, done, .. } => {
                self.unfinished_undo = (!done).then_some((to, from));
            }
        }
    }

    /// The project as the last checkpoint recorded it.
    pub fn current(&self) -> &Tree {
        &self.current
    }

    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// Has someone else written since this process read the log?
    pub fn stale(&self) -> bool {
        let current = std::fs::read_to_string(self.dir.join("current")).unwrap_or_default();
        current.trim() != self.generation
            || std::fs::metadata(self.dir.join(&self.generation).join("log"))
                .map_or(true, |m| m.len() != self.log_end)
    }

    /// The tree as checkpoint `n` recorded it.
    pub fn tree_at(&self, n: u64) -> Option<Tree> {
        let mut t = Tree::default();
        for p in &self.points {
            fold(&mut t, p);
            if p.n == n {
                return Some(t);
            }
        }
        None
    }

    /// Every checkpoint's tree, in order (for listings).
    pub fn trees(&self) -> Vec<Tree> {
        let mut t = Tree::default();
        self.points
            .iter()
            .map(|p| {
                fold(&mut t, p);
                t.clone()
            })
            .collect()
    }

    /// Some checkpoint holds each of these contents.
    pub fn holds_all(&self, ids: &[Id]) -> bool {
        // A link is a blob of its target in git.
        let held: HashSet<Id> = self
            .points
            .iter()
            .flat_map(|p| {
                p.set.iter().filter_map(|(_, e)| {
                    e.id.or_else(|| e.link.as_ref().and_then(|l| Id::of(&l.0)))
                })
            })
            .collect();
        ids.iter().all(|id| *id == Id::empty() || held.contains(id))
    }

    /// The content of `id`: from the pack, or from git's objects.
    pub fn content(&self, id: &Id) -> Result<Vec<u8>, String> {
        if *id == Id::empty() {
            return Ok(Vec::new());
        }
        let bytes = match self.objects.get(id) {
            Some(&(off, len)) => {
                let mut buf = vec![0u8; len as usize];
                self.pack
                    .read_exact_at(&mut buf, off)
                    .map_err(|e| format!("cannot read the checkpoint pack: {e}"))?;
                buf
            }
            None => super::git::blob(&self.root, id)?,
        };
        if Id::of(&bytes) != Some(*id) {
            return Err(format!("the kept content {} is damaged", id.hex()));
        }
        Ok(bytes)
    }

    /// Take a checkpoint: bring the tree up to date with the project (all
    /// of it, or the paths `scope` names), write the content not kept
    /// yet (synced), then the record naming it. Old checkpoints go first
    /// when they are past `keepHours` or when the new one would not fit
    /// in `maxBytes`; if it cannot fit even alone, nothing is logged and
    /// the error says so.
    pub fn checkpoint(
        &mut self,
        scope: &Scope,
        label: &Label,
        settings: &Settings,
    ) -> Result<Taken, String> {
        let mut scope = scope.clone();
        if self.refresh()? {
            scope = Scope::All;
        }
        if self.expire(label.time, settings)? {
            scope = Scope::All;
        }
        self.diverged = true;
        let taken = self.checkpoint_now(&scope, label, settings)?;
        self.diverged = false;
        Ok(taken)
    }

    fn checkpoint_now(
        &mut self,
        scope: &Scope,
        label: &Label,
        settings: &Settings,
    ) -> Result<Taken, String> {
        let root = self.root.clone();
        let max_file = settings.max_file_bytes;
        let mut read = HashMap::new();
        let region = tree::update(&root, &mut self.current, scope, max_file, &mut read)?;
        let (mut set, mut gone) = match self.ahead.take() {
            Some(logged) => tree::delta(&logged, &self.current),
            None => region.delta(&self.current),
        };
        // git's index is read only when something is not kept yet.
        let mut needed = self.needed(&set, &HashSet::new());
        let git = if needed.is_empty() {
            std::sync::Arc::default()
        } else {
            self.git_ids()
        };
        needed.retain(|(id, ..)| !git.contains(id));
        if self.pack_end + self.log_end + sum(&needed) > settings.max_bytes {
            self.make_room(&needed, settings)?;
            // What is logged now is older: look at everything again.
            let region = tree::update(&root, &mut self.current, &Scope::All, max_file, &mut read)?;
            (set, gone) = region.delta(&self.current);
            needed = self.needed(&set, &git);
            if self.pack_end + self.log_end + sum(&needed) > settings.max_bytes {
                return Err(format!(
                    "the project's content needs {} in the store, and checkpoint.maxBytes is {}",
                    super::shown_size(self.pack_end + self.log_end + sum(&needed)),
                    super::shown_size(settings.max_bytes)
                ));
            }
        }
        // The objects, appended and synced before any record names them.
        let mut objects: Vec<(Id, u64, u64)> = Vec::new();
        let mut at = self.pack_end;
        for (id, key, _) in &needed {
            // The content as the walk read it, or read again.
            let bytes = match read.remove(id) {
                Some(b) => b,
                None => {
                    let path = self.root.join(key.path());
                    let Ok(meta) = std::fs::symlink_metadata(&path) else {
                        return Err(format!("{} went away while it was kept", path.display()));
                    };
                    match tree::read_file(&path, &meta, max_file) {
                        tree::Read::Bytes(b, _) => b,
                        _ => return Err(format!("{} changed while it was kept", path.display())),
                    }
                }
            };
            let path = self.root.join(key.path());
            let Some(got) = Id::of(&bytes) else {
                return Err(format!("{} cannot be kept safely", path.display()));
            };
            if got != *id {
                // Written to since it was looked at: keep what is there
                // now, and look again next time.
                for e in self
                    .current
                    .entries
                    .get_mut(key)
                    .into_iter()
                    .chain(set.iter_mut().filter(|(k, _)| k == key).map(|(_, e)| e))
                {
                    e.id = Some(got);
                    e.size = bytes.len() as u64;
                    e.racy = true;
                }
                if self.objects.contains_key(&got) || objects.iter().any(|(i, _, _)| *i == got) {
                    continue;
                }
            }
            self.pack
                .write_all_at(&bytes, at)
                .map_err(|e| format!("cannot write the checkpoint pack: {e}"))?;
            objects.push((got, at, bytes.len() as u64));
            at += bytes.len() as u64;
        }
        if !objects.is_empty() {
            self.pack
                .sync_data()
                .map_err(|e| format!("cannot sync the checkpoint pack: {e}"))?;
        }
        let n = self.points.last().map_or(1, |p| p.n + 1);
        let new_bytes = objects.iter().map(|o| o.2).sum();
        // The first record of a log holds the whole tree.
        let base = self.points.is_empty();
        if base {
            set = self
                .current
                .entries
                .iter()
                .map(|(k, e)| (k.clone(), e.clone()))
                .collect();
            gone.clear();
        }
        let record = Record::Checkpoint {
            n,
            label: label.clone(),
            base,
            set,
            gone,
            skipped: self
                .current
                .skipped
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
            objects,
            pack_end: at,
        };
        self.append(&record)?;
        // `current` already is the tree the record leads to.
        self.remember(record);
        Ok(Taken { n, new_bytes })
    }

    /// The blob ids git's index names, read again only when the index
    /// file changed.
    fn git_ids(&mut self) -> std::sync::Arc<HashSet<Id>> {
        use std::os::unix::fs::MetadataExt as _;
        let Some(index) = super::git::git_dir(&self.root).map(|d| d.join("index")) else {
            return std::sync::Arc::default();
        };
        let Ok(m) = std::fs::metadata(&index) else {
            return std::sync::Arc::default();
        };
        let stamp = (m.ino(), m.len(), m.mtime() * 1_000_000_000 + m.mtime_nsec());
        match &self.git_cache {
            Some((s, ids)) if *s == stamp => ids.clone(),
            _ => {
                let ids = std::sync::Arc::new(super::git::index_ids(&self.root));
                self.git_cache = Some((stamp, ids.clone()));
                ids
            }
        }
    }

    /// Log the start or the end of an undo.
    pub fn note_undo(&mut self, to: u64, from: u64, done: bool, time: u64) -> Result<(), String> {
        let r = Record::Undo {
            to,
            from,
            done,
            time,
        };
        self.append(&r)?;
        self.remember(r);
        Ok(())
    }

    fn append(&mut self, record: &Record) -> Result<(), String> {
        let body = serde_json::to_vec(record).map_err(|e| e.to_string())?;
        let len =
            u32::try_from(body.len()).map_err(|_| "a checkpoint record over 4 GiB".to_string())?;
        let mut framed = Vec::with_capacity(body.len() + 4 + SUM);
        framed.extend_from_slice(&len.to_le_bytes());
        framed.extend_from_slice(&checksum(&body));
        framed.extend_from_slice(&body);
        self.log
            .write_all_at(&framed, self.log_end)
            .and_then(|()| self.log.sync_data())
            .map_err(|e| format!("cannot write the checkpoint log: {e}"))?;
        self.log_end += framed.len() as u64;
        Ok(())
    }

    /// The files of `now` whose content is kept nowhere yet: not in the
    /// pack, not in git's objects (named by its index), not empty.
    fn needed(&self, set: &[(Key, Entry)], git: &HashSet<Id>) -> Vec<(Id, Key, u64)> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for (k, e) in set {
            let Some(id) = e.id else { continue };
            if id == Id::empty()
                || self.objects.contains_key(&id)
                || git.contains(&id)
                || !seen.insert(id)
            {
                continue;
            }
            out.push((id, k.clone(), e.size));
        }
        out
    }

    /// Drop the checkpoints past `keepHours` after their session's last;
    /// true when some went.
    fn expire(&mut self, now: u64, settings: &Settings) -> Result<bool, String> {
        let keep_secs = settings.keep_hours.saturating_mul(3600);
        let mut last: HashMap<&str, u64> = HashMap::new();
        for p in &self.points {
            let t = last.entry(p.label.session.as_str()).or_default();
            *t = (*t).max(p.label.time);
        }
        let keep: Vec<bool> = self
            .points
            .iter()
            .map(|p| last[p.label.session.as_str()].saturating_add(keep_secs) >= now)
            .collect();
        if keep.iter().all(|k| *k) {
            return Ok(false);
        }
        self.compact(&keep)?;
        Ok(true)
    }

    /// Drop the oldest checkpoints until what the rest keep and `needed`
    /// fit the budget (all of them, if need be).
    fn make_room(&mut self, needed: &[(Id, Key, u64)], settings: &Settings) -> Result<(), String> {
        let extra = sum(needed);
        let len = self.points.len();
        // The smallest number of oldest checkpoints to drop (what the rest
        // keep only shrinks as more go).
        let (mut lo, mut hi) = (1usize, len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.live_bytes(mid) + extra <= settings.max_bytes {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let keep: Vec<bool> = (0..len).map(|i| i >= lo).collect();
        self.compact(&keep)
    }

    /// The bytes of content the checkpoints from the `k`th on keep.
    fn live_bytes(&self, k: usize) -> u64 {
        let mut t = Tree::default();
        let mut live = HashSet::new();
        for (i, p) in self.points.iter().enumerate() {
            fold(&mut t, p);
            if i == k {
                live.extend(t.entries.values().filter_map(|e| e.id));
            } else if i > k {
                live.extend(p.set.iter().filter_map(|(_, e)| e.id));
            }
        }
        live.iter()
            .filter_map(|id| self.objects.get(id))
            .map(|o| o.1)
            .sum()
    }

    /// Keep only the checkpoints `keep` marks: a new generation with
    /// their objects and records, switched to in one rename.
    fn compact(&mut self, keep: &[bool]) -> Result<(), String> {
        let next = format!("g{}", self.generation[1..].parse::<u64>().unwrap_or(1) + 1);
        let gen_dir = self.dir.join(&next);
        let _ = std::fs::remove_dir_all(&gen_dir);
        std::fs::create_dir_all(&gen_dir).map_err(io("cannot make", &gen_dir))?;
        let mut records = Vec::new();
        let mut t = Tree::default();
        let mut last_kept: Option<Tree> = None;
        let mut live: Vec<Id> = Vec::new();
        let mut live_seen = HashSet::new();
        for (p, k) in self.points.iter().zip(keep) {
            fold(&mut t, p);
            if !k {
                continue;
            }
            let (set, gone, base) = match &last_kept {
                None => (
                    t.entries
                        .iter()
                        .map(|(k, e)| (k.clone(), e.clone()))
                        .collect(),
                    Vec::new(),
                    true,
                ),
                Some(prev) => {
                    let (s, g) = tree::delta(prev, &t);
                    (s, g, false)
                }
            };
            for (_, e) in &set {
                if let Some(id) = e.id
                    && self.objects.contains_key(&id)
                    && live_seen.insert(id)
                {
                    live.push(id);
                }
            }
            records.push(Record::Checkpoint {
                n: p.n,
                label: p.label.clone(),
                base,
                set,
                gone,
                skipped: p.skipped.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                objects: Vec::new(),
                pack_end: 0,
            });
            last_kept = Some(t.clone());
        }
        // The objects, copied in the order first needed.
        let pack_path = gen_dir.join("pack");
        let mut pack = File::create(&pack_path).map_err(io("cannot make", &pack_path))?;
        let mut moved = Vec::new();
        let mut at = 0u64;
        for id in live {
            let (off, len) = self.objects[&id];
            let mut buf = vec![0u8; len as usize];
            self.pack
                .read_exact_at(&mut buf, off)
                .map_err(|e| format!("cannot read the checkpoint pack: {e}"))?;
            pack.write_all(&buf)
                .map_err(io("cannot write", &pack_path))?;
            moved.push((id, at, len));
            at += len;
        }
        pack.sync_all().map_err(io("cannot sync", &pack_path))?;
        if let Some(Record::Checkpoint { objects, .. }) = records.first_mut() {
            *objects = moved;
        }
        for r in &mut records {
            if let Record::Checkpoint { pack_end, .. } = r {
                *pack_end = at;
            }
        }
        let log_path = gen_dir.join("log");
        let mut log = File::create(&log_path).map_err(io("cannot make", &log_path))?;
        for r in &records {
            let body = serde_json::to_vec(r).map_err(|e| e.to_string())?;
            let len = u32::try_from(body.len()).map_err(|_| "a record over 4 GiB".to_string())?;
            log.write_all(&len.to_le_bytes())
                .and_then(|()| log.write_all(&checksum(&body)))
                .and_then(|()| log.write_all(&body))
                .map_err(io("cannot write", &log_path))?;
        }
        log.sync_all().map_err(io("cannot sync", &log_path))?;
        sync_dir(&gen_dir);
        // The switch: one rename of the file that names the generation.
        write_synced(&self.dir.join("current"), next.as_bytes())?;
        let old = self.dir.join(&self.generation);
        let _ = std::fs::remove_dir_all(old);
        // Read back what was written, as any later process will.
        self.generation = next;
        self.log = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&log_path)
            .map_err(io("cannot open", &log_path))?;
        self.pack = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&pack_path)
            .map_err(io("cannot open", &pack_path))?;
        self.points.clear();
        self.objects.clear();
        self.current = Tree::default();
        self.pack_end = 0;
        self.log_end = 0;
        self.unfinished_undo = None;
        self.ahead = None;
        self.replay()
    }

    /// Empty the store: every checkpoint goes.
    pub fn prune(&mut self) -> Result<(), String> {
        let keep = vec![false; self.points.len()];
        self.compact(&keep)
    }
}

fn fold(t: &mut Tree, p: &Point) {
    if p.base {
        t.entries.clear();
    }
    for (k, e) in &p.set {
        t.entries.insert(k.clone(), e.clone());
    }
    for k in &p.gone {
        t.entries.remove(k);
    }
    t.skipped = p.skipped.clone();
}

fn sum(needed: &[(Id, Key, u64)]) -> u64 {
    needed.iter().map(|n| n.2).sum()
}

fn checksum(body: &[u8]) -> [u8; SUM] {
    use sha2::Digest as _;
    let d = sha2::Sha256::digest(body);
    let mut out = [0u8; SUM];
    out.copy_from_slice(&d[..SUM]);
    out
}

fn valid_generation(g: &str) -> bool {
    g.strip_prefix('g')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Write a small file durably: temp, sync, rename, sync the directory.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io("cannot write in", dir))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(io("cannot write", path))?;
    tmp.persist(path)
        .map_err(|e| format!("cannot write {}: {}", path.display(), e.error))?;
    sync_dir(dir);
    Ok(())
}

/// Remove what a crash left: generations not current, temp files.
fn sweep(dir: &Path, current: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if valid_generation(&name) && name != current {
            let _ = std::fs::remove_dir_all(e.path());
        } else if name.starts_with(".tmp") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Every project store under the state directory, with its root and size.
pub fn all(state_dir: &Path) -> Vec<(PathBuf, PathBuf, u64)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(state_dir.join("checkpoints")) else {
        return out;
    };
    for e in entries.flatten() {
        let dir = e.path();
        let Ok(root) = std::fs::read(dir.join("root")) else {
            continue;
        };
        let root =
            PathBuf::from(<std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(root));
        out.push((dir.clone(), root, du(&dir)));
    }
    out.sort();
    out
}

/// The bytes of the files in a store's directory.
pub fn du(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(e.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(session: &str, time: u64) -> Label {
        Label {
            session: session.into(),
            command: "test".into(),
            cwd: String::new(),
            time,
        }
    }

    fn settings() -> Settings {
        Settings::default()
    }

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let t = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = t.path().join("proj");
        let dir = t.path().join("store");
        std::fs::create_dir_all(root.join("src")).unwrap_or_default();
        (t, root, dir)
    }

    fn write(p: &Path, s: &str) {
        std::fs::write(p, s).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn a_torn_record_and_unnamed_objects_are_cut_off_and_the_rest_reads() {
        let (_t, root, dir) = setup();
        write(&root.join("src/a.rs"), "one\n");
        let mut s = Store::open(&dir, &root, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
        let first = s
            .checkpoint(&Scope::All, &label("s", 100), &settings())
            .unwrap_or_else(|e| panic!("{e}"));
        write(&root.join("src/a.rs"), "two\n");
        s.checkpoint(&Scope::All, &label("s", 101), &settings())
            .unwrap_or_else(|e| panic!("{e}"));
        drop(s);
        // A crash mid-write: half a record in the log, bytes in the pack
        // no record names.
        let g = dir.join("g1");
        let log_len = std::fs::metadata(g.join("log"))
            .map(|m| m.len())
            .unwrap_or(0);
        let pack_len = std::fs::metadata(g.join("pack"))
            .map(|m| m.len())
            .unwrap_or(0);
        let mut log = OpenOptions::new()
            .append(true)
            .open(g.join("log"))
            .unwrap_or_else(|e| panic!("{e}"));
        log.write_all(&[200, 0, 0, 0, 1, 2, 3]).unwrap_or_default();
        let mut pack = OpenOptions::new()
            .append(true)
            .open(g.join("pack"))
            .unwrap_or_else(|e| panic!("{e}"));
        pack.write_all(b"orphan object bytes").unwrap_or_default();
        let s = Store::open(&dir, &root, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.points().len(), 2);
        assert_eq!(
            std::fs::metadata(g.join("log")).map(|m| m.len()).ok(),
            Some(log_len)
        );
        assert_eq!(
            std::fs::metadata(g.join("pack")).map(|m| m.len()).ok(),
            Some(pack_len)
        );
        let t = s.tree_at(first.n).unwrap_or_default();
        let id = t.entries[&Key(b"src/a.rs".to_vec())]
            .id
            .unwrap_or(Id::empty());
        assert_eq!(s.content(&id).ok().as_deref(), Some(&b"one\n"[..]));
        // A flipped byte inside the last record: it fails its checksum.
        drop(s);
        let mut bytes = std::fs::read(g.join("log")).unwrap_or_default();
        let at = bytes.len() - 3;
        bytes[at] ^= 0x55;
        std::fs::write(g.join("log"), &bytes).unwrap_or_default();
        let s = Store::open(&dir, &root, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.points().len(), 1);
    }

    #[test]
    fn checkpoints_past_keep_hours_after_their_session_go_and_the_rest_still_restore() {
        let (_t, root, dir) = setup();
        let mut s = Store::open(&dir, &root, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
        let hour = 3600;
        write(&root.join("src/a.rs"), "old session\n");
        s.checkpoint(&Scope::All, &label("old", 1000), &settings())
            .unwrap_or_else(|e| panic!("{e}"));
        write(&root.join("src/a.rs"), "new session\n");
        let kept = s
            .checkpoint(&Scope::All, &label("new", 1000 + 10 * hour), &settings())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.points().len(), 2);
        // 73 hours after the old session's last checkpoint.
        write(&root.join("src/b.rs"), "later\n");
        s.checkpoint(&Scope::All, &label("new", 1000 + 73 * hour), &settings())
            .unwrap_or_else(|e| panic!("{e}"));
        let ns: Vec<u64> = s.points().iter().map(|p| p.n).collect();
        assert_eq!(ns, vec![kept.n, kept.n + 1]);
        let t = s.tree_at(kept.n).unwrap_or_default();
        let id = t.entries[&Key(b"src/a.rs".to_vec())]
            .id
            .unwrap_or(Id::empty());
        assert_eq!(s.content(&id).ok().as_deref(), Some(&b"new session\n"[..]));
        assert!(!t.entries.contains_key(&Key(b"src/b.rs".to_vec())));
        // The old content is gone from the pack.
        assert!(s.objects.len() <= 2, "{:?}", s.objects.keys());
        // Read back from disk, the same.
        drop(s);
        let s = Store::open(&dir, &root, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.points().iter().map(|p| p.n).collect::<Vec<_>>(), ns);
    }

    #[test]
    fn content_git_holds_is_not_copied() {
        let (_t, root, dir) = setup();
        write(&root.join("src/a.rs"), "committed\n");
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args(args)
                .current_dir(&root)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        };
        if !git(&["init", "-q", "."]) || !git(&["add", "src/a.rs"]) {
            return;
        }
        write(&root.join("src/new.rs"), "not in git\n");
        let mut s = Store::open(&dir, &root, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
        let t = s
            .checkpoint(&Scope::All, &label("s", 1), &settings())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.new_bytes, "not in git\n".len() as u64);
        // Read back through git.
        let tree = s.tree_at(t.n).unwrap_or_default();
        let id = tree.entries[&Key(b"src/a.rs".to_vec())]
            .id
            .unwrap_or(Id::empty());
        assert_eq!(s.content(&id).ok().as_deref(), Some(&b"committed\n"[..]));
    }
}
