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
use std::time::{Duration, Instant};

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

/// Make a file in `dir` with `make`; when `dir` does not exist yet,
/// create it (and its parents) and make the file again. (Trying first
/// spares two system calls on every command once the directory exists.)
pub fn in_dir<T>(dir: &Path, make: impl Fn() -> std::io::Result<T>) -> std::io::Result<T> {
    match make() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir)?;
            make()
        }
        made => made,
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
    let mut tmp = in_dir(dir, || tempfile::NamedTempFile::new_in(dir))?;
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
    /// The working directory it was submitted in.
    pub cwd: &'a str,
    /// The harness that runs the session, when it is known.
    pub harness: Option<&'static str>,
    /// The allow rules suggested for a review.
    pub suggest: &'a [String],
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

/// Now, for the session's start (`first_at_ns`), on the clock file systems
/// stamp birth times with: the coarse real-time clock, which lags the
/// precise one by up to a scheduler tick. Read from the precise clock, a
/// file the session made within a tick of its start would look older
/// than the session (`policy::recover`).
fn session_clock_ns() -> u64 {
    use nix::time::{ClockId, clock_gettime};
    clock_gettime(ClockId::CLOCK_REALTIME_COARSE).map_or(0, |t| {
        u64::try_from(t.tv_sec())
            .unwrap_or(0)
            .saturating_mul(1_000_000_000)
            .saturating_add(u64::try_from(t.tv_nsec()).unwrap_or(0))
    })
}

/// Count one verdict into a session's state.
pub fn count(s: &mut SessionState, now: u64, v: Counted<'_>) {
    s.checked += 1;
    s.first_at.get_or_insert(now);
    s.first_at_ns.get_or_insert_with(session_clock_ns);
    s.cwd = Some(v.cwd.to_string());
    if let Some(h) = v.harness {
        s.harness = Some(h.to_string());
    }
    // A failure is not a judgement: a blocked failure is counted by
    // `count_classifier`, not as a denial; an ask is an ask whatever
    // asked. Both are in the recent denials ("why was it blocked?").
    let failure = v.rule == "classifier-failure";
    match v.decision {
        "allow" => s.allowed += 1,
        "ask" => s.asked += 1,
        "classify" => {}
        _ if failure => {}
        _ => s.denied += 1,
    }
    s.last_decision = Some(if failure {
        format!("{} (classifier failure)", v.decision)
    } else {
        v.decision.to_string()
    });
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
            suggest: v.suggest.to_vec(),
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
    /// The allow rules that would let commands like it run (for a review).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suggest: Vec<String>,
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
    /// When the session's first command was counted.
    pub first_at: Option<u64>,
    /// The same in nanoseconds: what this session made is what was born
    /// after it (the deletion policy's session artifacts).
    pub first_at_ns: Option<u64>,
    /// The working directory of its latest command.
    pub cwd: Option<String>,
    /// The harness that runs it (`claude-code`, `codex`, …), when known.
    pub harness: Option<String>,
    /// It was told that the sandbox cannot be enforced here.
    pub sandbox_warned: bool,
    /// It was told which classifier the environment's key chose.
    pub classifier_announced: bool,
    /// It was told (once) how to set up a classifier.
    #[serde(default)]
    pub classifier_advised: bool,
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

    fn fresh(&self) -> SessionState {
        SessionState {
            version: 1,
            session: self.session.clone(),
            ..SessionState::default()
        }
    }

    /// The state as it is now (no lock: a snapshot for deciding). A
    /// damaged file reads as fresh here; the next update, which holds the
    /// lock, moves it aside and says so.
    pub fn read(&self) -> SessionState {
        match read_json(&self.path()) {
            Read::Parsed(s) => s,
            Read::Missing | Read::Damaged => self.fresh(),
        }
    }

    /// Lock (waiting at most `wait`), read, change, write atomically,
    /// unlock. `Ok(None)`: the lock stayed busy, nothing changed.
    pub fn update<F>(&self, wait: Duration, change: F) -> Result<Option<SessionState>, String>
    where
        F: FnOnce(&mut SessionState),
    {
        std::fs::create_dir_all(self.sessions_dir())
            .map_err(|e| format!("cannot create {}: {e}", self.sessions_dir().display()))?;
        let Some(_lock) = lock_within(&self.lock_path(), wait)? else {
            return Ok(None);
        };
        let mut state = match read_json(&self.path()) {
            Read::Parsed(s) => s,
            Read::Missing => self.fresh(),
            Read::Damaged => {
                quarantine(
                    &self.path(),
                    "the session's counters, recent denials and its own on/off switch start fresh",
                );
                self.fresh()
            }
        };
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
            .filter_map(|e| match read_json::<SessionState>(&e.path()) {
                // Files an older `reset` blanked name no session.
                Read::Parsed(s) if !s.session.is_empty() => Some(s),
                Read::Parsed(_) | Read::Missing | Read::Damaged => None,
            })
            .collect();
        out.sort_by_key(|s: &SessionState| std::cmp::Reverse(s.last_at));
        out
    }
}

/// Forget sessions (`automode reset`): every session file, or only
/// `only`'s, is removed under its lock (the empty lock file stays:
/// removing it could let two processes hold "the" lock on different
/// files). Damaged files and files of older versions go too. Returns how
/// many were removed.
pub fn remove_sessions(dir: &Path, only: Option<&str>, wait: Duration) -> Result<usize, String> {
    let sessions = dir.join("sessions");
    let files: Vec<PathBuf> = match only {
        Some(id) => vec![Store::new(dir.to_path_buf(), id.to_string()).path()],
        None => match std::fs::read_dir(&sessions) {
            Ok(entries) => entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", sessions.display())),
        },
    };
    let mut removed = 0;
    for file in files {
        if !file.exists() {
            continue;
        }
        let lock = file.with_extension("lock");
        let _lock = lock_within(&lock, wait)?.ok_or_else(|| busy(&lock))?;
        match std::fs::remove_file(&file) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot remove {}: {e}", file.display())),
        }
    }
    Ok(removed)
}

/// The global switch. A damaged `global.json` reads as "on" (the safe
/// reading: it may have said off, or on), and is moved aside and
/// replaced by an explicit "on", with a warning.
pub fn global(dir: &Path) -> GlobalState {
    let path = dir.join("global.json");
    match read_json(&path) {
        Read::Parsed(g) => g,
        Read::Missing => GlobalState::default(),
        Read::Damaged => {
            if let Ok(Some(_lock)) = lock_within(&dir.join("global.lock"), SHIM_LOCK_WAIT)
                && matches!(read_json::<GlobalState>(&path), Read::Damaged)
            {
                quarantine(
                    &path,
                    "auto mode is on (the safe reading); `automode off` turns it off again",
                );
                let on = GlobalState {
                    enabled: Some(true),
                };
                if let Ok(text) = serde_json::to_vec_pretty(&on) {
                    let _ = write_atomic(&path, &text);
                }
            }
            GlobalState {
                enabled: Some(true),
            }
        }
    }
}

/// Change the global switch (locked, atomic).
pub fn set_global(dir: &Path, enabled: Option<bool>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join("global.lock");
    let _lock = lock_within(&path, USER_LOCK_WAIT)?.ok_or_else(|| busy(&path))?;
    let state = GlobalState { enabled };
    let text = serde_json::to_vec_pretty(&state).map_err(|e| e.to_string())?;
    write_atomic(&dir.join("global.json"), &text).map_err(|e| e.to_string())
}

/// The error for a lock that stayed busy.
pub fn busy(lock: &Path) -> String {
    format!(
        "{} is held by another process; try again (a stuck automode process can be found with `fuser {}`)",
        lock.display(),
        lock.display()
    )
}

/// A state file as read.
enum Read<T> {
    Parsed(T),
    Missing,
    /// It exists but does not parse as what it should be.
    Damaged,
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Read<T> {
    match std::fs::read(path) {
        Ok(text) => match serde_json::from_slice(&text) {
            Ok(v) => Read::Parsed(v),
            Err(_) => Read::Damaged,
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Read::Missing,
        // Unreadable (permissions, I/O): not ours to move.
        Err(_) => Read::Damaged,
    }
}

/// Move a damaged state file aside (`<file>.corrupt-<unix time>`, never
/// over an earlier one) and warn once, naming both. Called with the
/// file's lock held, so no writer is between the read and the move.
fn quarantine(path: &Path, consequence: &str) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut aside = path.with_file_name(format!("{name}.corrupt-{secs}"));
    let mut n = 1;
    while aside.exists() {
        aside = path.with_file_name(format!("{name}.corrupt-{secs}-{n}"));
        n += 1;
    }
    match std::fs::rename(path, &aside) {
        Ok(()) => crate::report::state_damaged(path, Some(&aside), consequence),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => crate::report::state_damaged(path, None, consequence),
    }
}

/// An exclusive lock on `path`, held until dropped, waiting at most
/// `wait` for another holder to let go (`Ok(None)`: still busy). Waits
/// are bounded everywhere: a stuck process holding a lock must never
/// stall the commands of every later invocation.
pub fn lock_within(path: &Path, wait: Duration) -> Result<Option<Flock<File>>, String> {
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_millis(1);
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    loop {
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(l) => return Ok(Some(l)),
            Err((f, nix::errno::Errno::EWOULDBLOCK)) => {
                let now = Instant::now();
                if now >= deadline {
                    return Ok(None);
                }
                std::thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(LOCK_POLL_MAX);
                file = f;
            }
            Err((_, e)) => return Err(format!("cannot lock {}: {e}", path.display())),
        }
    }
}

/// The longest pause between two tries of a busy lock.
const LOCK_POLL_MAX: Duration = Duration::from_millis(25);

/// How long the shim waits for a state or audit lock before it goes on
/// without that record.
pub const SHIM_LOCK_WAIT: Duration = Duration::from_millis(500);

/// How long the user's own commands (`automode on/off/reset …`) wait.
pub const USER_LOCK_WAIT: Duration = Duration::from_secs(5);

/// No wait at all: take the lock only if it is free now.
pub const NO_WAIT: Duration = Duration::ZERO;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_made_after_the_session_start_is_born_after_it() {
        // The precise clock runs up to a tick ahead of the birth-time
        // clock: read from it, this failed within a few tries.
        let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap_or_else(|e| panic!("{e}"));
        for i in 0..300 {
            let start = session_clock_ns();
            let f = dir.path().join(format!("f{i}"));
            std::fs::write(&f, b"x").unwrap_or_else(|e| panic!("{e}"));
            let Ok(born) = std::fs::metadata(&f).and_then(|m| m.created()) else {
                crate::testing::skip(
                    "birth times",
                    &format!("{} has no birth times", dir.path().display()),
                );
                return;
            };
            let born = born
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            assert!(born >= u128::from(start), "born {born} < start {start}");
        }
    }

    #[test]
    fn parallel_updates_lose_nothing() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = Store::new(dir.path().to_path_buf(), "s/1 x".into());
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..25 {
                        let done = store
                            .update(USER_LOCK_WAIT, |st| st.checked += 1)
                            .unwrap_or_else(|e| panic!("{e}"));
                        assert!(done.is_some());
                    }
                });
            }
        });
        assert_eq!(store.read().checked, 200);
        assert_eq!(store.read().session, "s/1 x");
    }

    #[test]
    fn a_busy_lock_defers_a_non_blocking_update_and_bounds_a_waiting_one() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = Store::new(dir.path().to_path_buf(), "busy".into());
        store
            .update(NO_WAIT, |st| st.checked = 1)
            .unwrap_or_else(|e| panic!("{e}"));
        let held = lock_within(&store.lock_path(), NO_WAIT)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("the lock is free"));
        let tried = store
            .update(NO_WAIT, |st| st.checked += 1)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(tried.is_none());
        let started = Instant::now();
        let waited = store
            .update(Duration::from_millis(100), |st| st.checked += 1)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(waited.is_none());
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert_eq!(store.read().checked, 1);
        drop(held);
        let tried = store
            .update(NO_WAIT, |st| st.checked += 1)
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

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_damaged_session_file_is_moved_aside_not_overwritten() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = Store::new(dir.path().to_path_buf(), "damaged".into());
        store
            .update(NO_WAIT, |st| st.enabled = Some(false))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(store.path(), b"{\"checked\": 3, oops").unwrap_or_else(|e| panic!("{e}"));
        // An unlocked read does not touch it.
        assert_eq!(store.read().checked, 0);
        assert!(store.path().exists());
        let after = store
            .update(NO_WAIT, |st| st.checked += 1)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(after.map(|s| (s.checked, s.enabled)), Some((1, None)));
        let names = names_in(&dir.path().join("sessions"));
        let kept: Vec<&String> = names
            .iter()
            .filter(|n| n.contains(".json.corrupt-"))
            .collect();
        assert_eq!(kept.len(), 1, "{names:?}");
        let text = std::fs::read(dir.path().join("sessions").join(kept[0]))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(text, b"{\"checked\": 3, oops");
    }

    #[test]
    fn a_damaged_global_switch_reads_as_on_and_is_kept() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        set_global(dir.path(), Some(false)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(global(dir.path()).enabled, Some(false));
        std::fs::write(dir.path().join("global.json"), b"\x00\x01")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(global(dir.path()).enabled, Some(true));
        assert_eq!(global(dir.path()).enabled, Some(true));
        let names = names_in(dir.path());
        assert_eq!(
            names
                .iter()
                .filter(|n| n.starts_with("global.json.corrupt-"))
                .count(),
            1,
            "{names:?}"
        );
    }
}
