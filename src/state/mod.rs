//! Session state and the audit log, in `$XDG_STATE_HOME/automode/`.
//!
//! Per session: counters, last decision and reason, the 12 most recent
//! denials, consecutive classifier failures, on/off. Every update is
//! lock, read, write temp, rename, so parallel agent commands never
//! lose a count or leave a torn file. The audit log gets one JSON line per
//! invocation and is rotated by size. Nothing here decides anything.

pub mod audit;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};

/// How many recent denials are kept.
pub const RECENT_DENIALS: usize = 12;

/// The state directory.
pub fn state_dir(home: Option<&Path>, xdg_state_home: Option<&str>) -> Option<PathBuf> {
    match xdg_state_home {
        Some(x) if x.starts_with('/') => Some(PathBuf::from(x).join("automode")),
        _ => home.map(|h| h.join(".local/state/automode")),
    }
}

/// Write a file atomically: a temp file in the same directory, put in
/// place of the target in one step. Readers see the old or the new file,
/// never a torn one. No fsync: the files are counters and switches, and an
/// fsync per command would cost more than the rest of the decision.
///
/// The temp file is *exchanged* with an existing target (then the old
/// content, now under the temp name, is removed) rather than renamed over
/// it: ext4 (`auto_da_alloc`) starts writing a file's data back when it
/// is renamed over another, which cost ~0.6 ms per command here, about a
/// fifth of the shim's whole overhead. Where exchange is not available
/// (or there is no target yet) it is a plain rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("path has no parent"))?;
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    let exchanged = nix::fcntl::renameat2(
        nix::fcntl::AT_FDCWD,
        tmp.path(),
        nix::fcntl::AT_FDCWD,
        path,
        nix::fcntl::RenameFlags::RENAME_EXCHANGE,
    );
    if exchanged.is_ok() {
        // The temp name now holds the old content: dropping removes it.
        return Ok(());
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// One verdict as the session state counts it.
#[derive(Debug, Clone, Copy)]
pub struct Counted<'a> {
    pub decision: &'a str,
    pub tier: &'a str,
    pub rule: &'a str,
    pub reason: &'a str,
    pub script: &'a str,
}

/// Count a classifier call: failures separately from denials; a success
/// resets the consecutive count.
pub fn count_classifier(s: &mut SessionState, failed: bool) {
    s.classified += 1;
    if failed {
        s.classifier_failures += 1;
        s.consecutive_classifier_failures += 1;
    } else {
        s.consecutive_classifier_failures = 0;
    }
}

/// Count one verdict into a session's state.
pub fn count(s: &mut SessionState, now: u64, v: Counted<'_>) {
    s.checked += 1;
    if v.rule == "classifier-failure" {
        // A failure is not a judgement: counted by `count_classifier`,
        // not as a denial.
        s.last_decision = Some(format!("{} (classifier failure)", v.decision));
        s.last_reason = Some(v.reason.to_string());
        s.last_at = Some(now);
        return;
    }
    match v.decision {
        "allow" => s.allowed += 1,
        "ask" => s.asked += 1,
        "classify" => {}
        _ => s.denied += 1,
    }
    s.last_decision = Some(v.decision.to_string());
    s.last_reason = Some(v.reason.to_string());
    s.last_at = Some(now);
    if v.decision != "allow" {
        s.recent_denials.push(DenialRecord {
            at: now,
            decision: v.decision.to_string(),
            tier: v.tier.to_string(),
            rule: v.rule.to_string(),
            reason: v.reason.to_string(),
            command: audit::clip(v.script).chars().take(500).collect(),
        });
        let excess = s.recent_denials.len().saturating_sub(RECENT_DENIALS);
        s.recent_denials.drain(..excess);
    }
}

/// A denial as remembered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DenialRecord {
    pub at: u64,
    pub decision: String,
    pub tier: String,
    pub rule: String,
    pub reason: String,
    pub command: String,
}

/// One session's state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionState {
    pub version: u32,
    pub session: String,
    /// `automode off --session ID` / `on`: overrides the global switch.
    pub enabled: Option<bool>,
    pub checked: u64,
    pub allowed: u64,
    pub denied: u64,
    pub asked: u64,
    pub classified: u64,
    pub classifier_failures: u64,
    pub consecutive_classifier_failures: u64,
    pub last_decision: Option<String>,
    pub last_reason: Option<String>,
    pub last_at: Option<u64>,
    pub recent_denials: Vec<DenialRecord>,
}

/// State shared by all sessions (`automode off` without a session).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GlobalState {
    pub enabled: Option<bool>,
}

/// A session's files.
#[derive(Debug, Clone)]
pub struct Store {
    pub dir: PathBuf,
    pub session: String,
}

/// A filesystem-safe name for a session id.
pub fn file_stem(session: &str) -> String {
    let clean: String = session
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    // Distinct ids that clean to the same text stay distinct.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in session.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{clean}-{:08x}", hash & 0xffff_ffff)
}

impl Store {
    pub fn new(dir: PathBuf, session: String) -> Store {
        Store { dir, session }
    }

    fn sessions_dir(&self) -> PathBuf {
        self.dir.join("sessions")
    }

    pub fn path(&self) -> PathBuf {
        self.sessions_dir()
            .join(format!("{}.json", file_stem(&self.session)))
    }

    fn lock_path(&self) -> PathBuf {
        self.sessions_dir()
            .join(format!("{}.lock", file_stem(&self.session)))
    }

    /// The state as it is now (no lock: a snapshot for deciding).
    pub fn read(&self) -> SessionState {
        read_json(&self.path()).unwrap_or_else(|| SessionState {
            version: 1,
            session: self.session.clone(),
            ..SessionState::default()
        })
    }

    /// Lock, read, change, write atomically, unlock.
    pub fn update<F>(&self, change: F) -> Result<SessionState, String>
    where
        F: FnOnce(&mut SessionState),
    {
        self.update_with(FlockArg::LockExclusive, change)
            .map(|s| s.unwrap_or_default())
    }

    /// `update`, unless another process holds the lock right now
    /// (`Ok(None)`, nothing changed): for callers that must not wait.
    pub fn try_update<F>(&self, change: F) -> Result<Option<SessionState>, String>
    where
        F: FnOnce(&mut SessionState),
    {
        self.update_with(FlockArg::LockExclusiveNonblock, change)
    }

    fn update_with<F>(&self, how: FlockArg, change: F) -> Result<Option<SessionState>, String>
    where
        F: FnOnce(&mut SessionState),
    {
        std::fs::create_dir_all(self.sessions_dir())
            .map_err(|e| format!("cannot create {}: {e}", self.sessions_dir().display()))?;
        let Some(_lock) = lock_with(&self.lock_path(), how)? else {
            return Ok(None);
        };
        let mut state = self.read();
        state.version = 1;
        state.session.clone_from(&self.session);
        change(&mut state);
        let text = serde_json::to_vec_pretty(&state).map_err(|e| e.to_string())?;
        write_atomic(&self.path(), &text)
            .map_err(|e| format!("cannot write {}: {e}", self.path().display()))?;
        Ok(Some(state))
    }

    /// Every session's state (for `automode status`).
    pub fn all(dir: &Path) -> Vec<SessionState> {
        let Ok(entries) = std::fs::read_dir(dir.join("sessions")) else {
            return Vec::new();
        };
        let mut out: Vec<SessionState> = entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| read_json(&e.path()))
            .collect();
        out.sort_by_key(|s: &SessionState| std::cmp::Reverse(s.last_at));
        out
    }
}

/// The global switch.
pub fn global(dir: &Path) -> GlobalState {
    read_json(&dir.join("global.json")).unwrap_or_default()
}

/// Change the global switch (locked, atomic).
pub fn set_global(dir: &Path, enabled: Option<bool>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let _lock = lock(&dir.join("global.lock"))?;
    let state = GlobalState { enabled };
    let text = serde_json::to_vec_pretty(&state).map_err(|e| e.to_string())?;
    write_atomic(&dir.join("global.json"), &text).map_err(|e| e.to_string())
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Option<T> {
    let text = std::fs::read(path).ok()?;
    serde_json::from_slice(&text).ok()
}

/// An exclusive lock held until dropped.
pub fn lock(path: &Path) -> Result<Flock<File>, String> {
    lock_with(path, FlockArg::LockExclusive)?
        .ok_or_else(|| format!("cannot lock {}", path.display()))
}

/// Lock `path` as `how` says; `None` when a non-blocking lock is busy.
fn lock_with(path: &Path, how: FlockArg) -> Result<Option<Flock<File>>, String> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    match Flock::lock(file, how) {
        Ok(l) => Ok(Some(l)),
        Err((_, nix::errno::Errno::EWOULDBLOCK)) if how == FlockArg::LockExclusiveNonblock => {
            Ok(None)
        }
        Err((_, e)) => Err(format!("cannot lock {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_updates_lose_nothing() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = Store::new(dir.path().to_path_buf(), "s/1 x".into());
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..25 {
                        store
                            .update(|st| st.checked += 1)
                            .unwrap_or_else(|e| panic!("{e}"));
                    }
                });
            }
        });
        assert_eq!(store.read().checked, 200);
        assert_eq!(store.read().session, "s/1 x");
    }

    #[test]
    fn a_busy_lock_defers_a_non_blocking_update() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = Store::new(dir.path().to_path_buf(), "busy".into());
        store
            .update(|st| st.checked = 1)
            .unwrap_or_else(|e| panic!("{e}"));
        let held = lock(&store.lock_path()).unwrap_or_else(|e| panic!("{e}"));
        let tried = store
            .try_update(|st| st.checked += 1)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(tried.is_none());
        assert_eq!(store.read().checked, 1);
        drop(held);
        let tried = store
            .try_update(|st| st.checked += 1)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(tried.map(|s| s.checked), Some(2));
        assert_eq!(store.read().checked, 2);
    }

    #[test]
    fn atomic_writes_replace_the_file_and_leave_no_temp_files() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("x.json");
        for text in ["first", "second, longer", "3"] {
            write_atomic(&path, text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
            let read = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(read, text);
            let names: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap_or_else(|e| panic!("{e}"))
                .flatten()
                .map(|e| e.file_name())
                .collect();
            assert_eq!(names, vec![std::ffi::OsString::from("x.json")]);
        }
    }

    #[test]
    fn session_file_names_are_safe_and_distinct() {
        assert_ne!(file_stem("a/b"), file_stem("a_b"));
        assert!(!file_stem("../../etc").contains('/'));
    }
}
