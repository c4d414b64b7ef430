//! The base plan and its grants remembered between commands: building
//! them reads a few dozen paths and lists the directories on the way to
//! every denied one (most of the sandbox's start-up cost), and they change
//! only when those paths do. An entry holds what it was built from — the
//! inputs as text, the variables the templates read, and a witness for
//! every path that was looked at — and is used only while each witness
//! still matches. Entries live in automode's own state directory, which
//! no sandboxed command can read or write.
//!
//! Witnesses are taken when the path is consulted, before its answer is
//! used: a change after that shows as a difference next time. A path
//! asked only whether it exists (and what it is) is witnessed by its
//! inode; a directory that was listed or a file that was read, by its
//! times and size too, and an entry is not stored while one of those was
//! changed within the file system's timestamp granularity (the change
//! after could leave the same times: as git does for its index).

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::Plan;

/// Raise when the entry's meaning changes (with the automode version, it
/// names the entry's format).
const FORMAT: u32 = 3;

/// A listing or file read this recently is not trusted to a cache entry.
const RACY: Duration = Duration::from_millis(100);

/// At most this many entries are kept (a project and working directory
/// each); past it the oldest half goes.
const MAX_ENTRIES: usize = 64;

/// What a path was when it was consulted (`None` fields: not asked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    mode: u32,
    /// Times and size, for a listed directory or a file that was read.
    content: Option<(i64, i64, i64, i64, i64)>,
}

/// A path consulted while building, and what it was (`None`: absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Witness {
    path: PathBuf,
    stamp: Option<Stamp>,
}

/// One grant, as the ruleset builder adds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantSpec {
    pub path: PathBuf,
    pub rights: u64,
    pub is_dir: bool,
}

/// An entry: the plan and grants, and what they were built from.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    key: String,
    env: Vec<(String, Option<String>)>,
    witnesses: Vec<Witness>,
    plan: Plan,
    grants: Vec<GrantSpec>,
}

/// What a build consulted.
#[derive(Debug, Default)]
struct Recorder {
    witnesses: Vec<Witness>,
    env: Vec<(String, Option<String>)>,
    /// A listing or read too recent to trust.
    racy: bool,
}

thread_local! {
    static RECORDING: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

fn stamp_of(path: &Path, content: bool) -> Option<Stamp> {
    let st = nix::sys::stat::lstat(path).ok()?;
    Some(Stamp {
        dev: st.st_dev,
        ino: st.st_ino,
        mode: st.st_mode,
        content: content.then_some((
            st.st_mtime,
            st.st_mtime_nsec,
            st.st_ctime,
            st.st_ctime_nsec,
            st.st_size,
        )),
    })
}

/// Whether the stamp's times are too recent to trust.
fn is_racy(stamp: &Stamp) -> bool {
    let Some((m, mn, c, cn, _)) = stamp.content else {
        return false;
    };
    let at = |s: i64, n: i64| {
        SystemTime::UNIX_EPOCH + Duration::new(s.max(0) as u64, n.clamp(0, 999_999_999) as u32)
    };
    let now = SystemTime::now();
    [at(m, mn), at(c, cn)]
        .iter()
        .any(|t| now.duration_since(*t).map_or(true, |d| d < RACY))
}

fn record(path: &Path, content: bool) -> Option<Stamp> {
    RECORDING
        .with(|r| {
            let mut r = r.borrow_mut();
            let rec = r.as_mut()?;
            let known = rec
                .witnesses
                .iter()
                .position(|w| w.path == path)
                .map(|i| rec.witnesses[i].stamp);
            let stamp = match known {
                Some(s) if !content || s.is_none_or(|s| s.content.is_some()) => s,
                _ => {
                    let s = stamp_of(path, content);
                    rec.racy |= s.as_ref().is_some_and(is_racy);
                    rec.witnesses.retain(|w| w.path != path);
                    rec.witnesses.push(Witness {
                        path: path.to_path_buf(),
                        stamp: s,
                    });
                    s
                }
            };
            Some(stamp)
        })
        .flatten()
}

/// The build asks whether `path` exists and what it is: witness it.
pub fn exists(path: &Path) {
    record(path, false);
}

/// The build lists the directory `path` or reads the file: witness its
/// contents too.
pub fn listed(path: &Path) {
    record(path, true);
}

/// The build read the variable `name` (templates): its value is part of
/// the entry.
pub fn var(name: &str, value: Option<&str>) {
    RECORDING.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut()
            && !rec.env.iter().any(|(n, _)| n == name)
        {
            rec.env.push((name.to_string(), value.map(str::to_string)));
        }
    });
}

/// The cache for one set of inputs: `key` is everything the build takes
/// that is not a path on disk or a variable (which are witnessed).
#[derive(Debug)]
pub struct Cache {
    file: PathBuf,
    key: String,
}

impl Cache {
    /// The entry for `key` in automode's state directory `state`.
    pub fn new(state: &Path, key: String) -> Cache {
        let file = state
            .join("sandbox")
            .join(format!("{}.json", key.get(..16).unwrap_or(&key)));
        Cache { file, key }
    }

    /// The plan and grants when the entry is still valid. `var`: the
    /// environment now.
    pub fn load(&self, var: &dyn Fn(&str) -> Option<String>) -> Option<(Plan, Vec<GrantSpec>)> {
        let bytes = std::fs::read(&self.file).ok()?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        if entry.key != self.key {
            return None;
        }
        if entry
            .env
            .iter()
            .any(|(n, v)| var(n).as_deref() != v.as_deref())
        {
            return None;
        }
        for w in &entry.witnesses {
            let content = w.stamp.is_some_and(|s| s.content.is_some());
            if stamp_of(&w.path, content) != w.stamp {
                return None;
            }
        }
        Some((entry.plan, entry.grants))
    }

    /// Build with `f` while recording what it consults, and store its
    /// plan and grants (`None`: the build failed) unless something it
    /// read was too recent to trust.
    pub fn build(
        &self,
        f: impl FnOnce() -> (super::Prepared, Option<Vec<GrantSpec>>),
    ) -> super::Prepared {
        RECORDING.with(|r| *r.borrow_mut() = Some(Recorder::default()));
        let (built, grants) = f();
        let rec = RECORDING
            .with(|r| r.borrow_mut().take())
            .unwrap_or_default();
        if let Some(grants) = grants
            && !rec.racy
        {
            // A path inside an absent one is absent while that one is:
            // one witness answers for both.
            let absent: Vec<PathBuf> = rec
                .witnesses
                .iter()
                .filter(|w| w.stamp.is_none())
                .map(|w| w.path.clone())
                .collect();
            let mut witnesses = rec.witnesses;
            witnesses.retain(|w| !absent.iter().any(|a| w.path != *a && w.path.starts_with(a)));
            // Best effort: without the entry the next command builds
            // again.
            let _ = self.store(&Entry {
                key: self.key.clone(),
                env: rec.env,
                witnesses,
                plan: built.plan.clone(),
                grants,
            });
        }
        built
    }

    fn store(&self, entry: &Entry) -> std::io::Result<()> {
        let dir = self.file.parent().unwrap_or(Path::new("/"));
        std::fs::create_dir_all(dir)?;
        prune(dir);
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(&serde_json::to_vec(entry).map_err(std::io::Error::other)?)?;
        tmp.persist(&self.file).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Keep the directory small: past `MAX_ENTRIES`, the oldest half goes.
fn prune(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(SystemTime, PathBuf)> = rd
        .flatten()
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if files.len() < MAX_ENTRIES {
        return;
    }
    files.sort();
    for (_, p) in files.iter().take(files.len() / 2) {
        let _ = std::fs::remove_file(p);
    }
}

/// The key for these inputs: a SHA-256 of their `Debug` text (with the
/// automode version, a digest of the sources it was built from — its
/// built-in tables are part of every plan — and the entry format),
/// streamed into the hash rather than built as a string.
pub fn key(parts: &[&dyn std::fmt::Debug]) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write as _;
    struct Hashing(Sha256);
    impl std::fmt::Write for Hashing {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.update(s.as_bytes());
            Ok(())
        }
    }
    let mut h = Hashing(Sha256::new());
    let _ = write!(
        h,
        "{} {} {FORMAT}",
        env!("CARGO_PKG_VERSION"),
        env!("AUTOMODE_SOURCE_DIGEST")
    );
    for p in parts {
        let _ = write!(h, "\n{p:?}");
    }
    h.0.finalize()
        .iter()
        .fold(String::with_capacity(64), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}
