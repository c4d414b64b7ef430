//! The project's watcher (`automode-checkpointd`): started after a
//! project's first checkpoint, it watches every directory the checkpoints
//! enter (inotify) and keeps the project's tree in memory, so a command's
//! checkpoint reads only the paths that changed since the last one instead
//! of walking the project. A command asks it over a socket in the store's
//! directory; the kernel queues an event before the system call that
//! caused it returns, so everything done before the question is in the
//! answer. When it cannot be sure (the event queue overflowed, a watch
//! could not be added) it walks the whole project, as a command without
//! it would. It ends after an idle while, or when its project is gone.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::io::{BufRead as _, BufReader, Write as _};
use std::os::fd::AsFd;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, WatchDescriptor};
use serde::{Deserialize, Serialize};

use super::store::Store;
use super::tree::{Key, Scope};
use super::{Label, Settings, Taken};
use crate::exit::Exit;

/// The watcher's name in `argv[0]`.
pub const ARGV0: &str = "automode-checkpointd";
/// It ends after this long without a question.
const IDLE: Duration = Duration::from_secs(2 * 3600);
/// How long a command waits for its answer.
const ANSWER_WAIT: Duration = Duration::from_secs(20);
/// More changed paths than this and a walk is as cheap.
const MAX_DIRTY: usize = 20_000;
/// The check walk: after this long without a question…
const CHECK_IDLE: Duration = Duration::from_secs(60);
/// …and at most this often.
const CHECK_EVERY: Duration = Duration::from_secs(300);

/// File systems whose changes may come from elsewhere (no events for
/// them): a project on one is walked by every checkpoint, no watcher.
const REMOTE_FS: &[(i64, &str)] = &[
    (0x6969, "NFS"),
    (0x517B, "SMB"),
    (0xFF53_4D42, "CIFS"),
    (0xFE53_4D42, "SMB2"),
    (0x6573_5546, "FUSE"),
    (0x0102_1997, "9P"),
    (0x00C3_6400, "Ceph"),
    (0x0BD0_0BD0, "Lustre"),
];

/// Written in the store's directory when the project cannot be watched.
pub const NO_WATCHER: &str = "watch.off";

fn socket(dir: &Path) -> PathBuf {
    dir.join("watch.sock")
}

#[derive(Debug, Serialize, Deserialize)]
struct Question {
    label: Label,
    max_file_bytes: u64,
    keep_hours: u64,
    max_bytes: u64,
}

#[derive(Debug, Serialize, Deserialize)]
enum Answer {
    Taken(Taken),
    Failed(String),
}

/// Ask the project's watcher for a checkpoint; None when none answers
/// (then the command takes it itself).
pub fn ask(dir: &Path, label: &Label, settings: &Settings) -> Option<Result<Taken, String>> {
    let mut stream = UnixStream::connect(socket(dir)).ok()?;
    let q = Question {
        label: label.clone(),
        max_file_bytes: settings.max_file_bytes,
        keep_hours: settings.keep_hours,
        max_bytes: settings.max_bytes,
    };
    let mut line = serde_json::to_vec(&q).ok()?;
    line.push(b'\n');
    stream.set_read_timeout(Some(ANSWER_WAIT)).ok()?;
    stream.write_all(&line).ok()?;
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).ok()?;
    match serde_json::from_str::<Answer>(&answer) {
        Ok(Answer::Taken(t)) => Some(Ok(t)),
        Ok(Answer::Failed(why)) => Some(Err(why)),
        // No answer (it ended meanwhile): the command takes it itself.
        Err(_) => None,
    }
}

/// Start the project's watcher, unless one runs (or is starting).
pub fn start(dir: &Path, root: &Path, max_file_bytes: u64) {
    if dir.join(NO_WATCHER).exists() {
        return;
    }
    let lock = dir.join("watch.lock");
    match crate::state::lock_within(&lock, Duration::ZERO) {
        Ok(Some(held)) => drop(held),
        _ => return,
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("watch.log"));
    let mut cmd = std::process::Command::new("/proc/self/exe");
    cmd.arg0(ARGV0)
        .arg(dir)
        .arg(root)
        .arg(max_file_bytes.to_string())
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
    if let Ok(f) = log {
        cmd.stderr(f);
    }
    // Not waited for: it outlives the command (reaped by init).
    let _ = cmd.spawn();
}

/// `automode-checkpointd DIR ROOT MAX_FILE_BYTES`.
pub fn main(args: &[OsString]) -> Exit {
    let [dir, root, max] = args else {
        return Exit::Usage;
    };
    let Some(max) = max.to_str().and_then(|m| m.parse::<u64>().ok()) else {
        return Exit::Usage;
    };
    let (dir, root) = (PathBuf::from(dir), PathBuf::from(root));
    let _ = nix::unistd::setsid();
    // One watcher per project: the lock is held for its life.
    let Ok(Some(_held)) = crate::state::lock_within(&dir.join("watch.lock"), Duration::ZERO) else {
        return Exit::Child(0);
    };
    match Watcher::new(&dir, &root, max) {
        Ok(mut w) => {
            w.serve();
            Exit::Child(0)
        }
        Err(why) => {
            eprintln!("automode-checkpointd: {}: {why}", root.display());
            Exit::Internal
        }
    }
}

struct Watcher {
    root: PathBuf,
    dir: PathBuf,
    inotify: Inotify,
    /// Each watched directory's key.
    wds: HashMap<WatchDescriptor, Key>,
    dirty: BTreeSet<Key>,
    /// Every path must be looked at next time (a queue overflow).
    all: bool,
    /// A directory could not be watched (out of watches): every
    /// checkpoint walks, for as long as this watcher lives.
    unwatched: bool,
    store: Store,
    listener: UnixListener,
    max_file_bytes: u64,
}

const MASK: AddWatchFlags = AddWatchFlags::from_bits_truncate(
    AddWatchFlags::IN_MODIFY.bits()
        | AddWatchFlags::IN_ATTRIB.bits()
        | AddWatchFlags::IN_CLOSE_WRITE.bits()
        | AddWatchFlags::IN_CREATE.bits()
        | AddWatchFlags::IN_DELETE.bits()
        | AddWatchFlags::IN_MOVED_FROM.bits()
        | AddWatchFlags::IN_MOVED_TO.bits()
        | AddWatchFlags::IN_DELETE_SELF.bits()
        | AddWatchFlags::IN_MOVE_SELF.bits()
        | AddWatchFlags::IN_ONLYDIR.bits()
        | AddWatchFlags::IN_DONT_FOLLOW.bits(),
);

impl Watcher {
    fn new(dir: &Path, root: &Path, max_file_bytes: u64) -> Result<Watcher, String> {
        if let Ok(fs) = nix::sys::statfs::statfs(root) {
            let kind = i64::from(fs.filesystem_type().0 as u32);
            if let Some((_, name)) = REMOTE_FS.iter().find(|(t, _)| *t == kind) {
                let why = format!(
                    "the project is on {name}, whose changes send no events here: checkpoints walk it"
                );
                // No watcher is started for it again.
                let _ = std::fs::write(dir.join(NO_WATCHER), &why);
                return Err(why);
            }
        }
        let inotify = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC)
            .map_err(|e| format!("inotify: {e}"))?;
        let store = Store::open(dir, root, super::LOCK_WAIT)?;
        let mut w = Watcher {
            root: root.to_path_buf(),
            dir: dir.to_path_buf(),
            inotify,
            wds: HashMap::new(),
            dirty: BTreeSet::new(),
            all: false,
            unwatched: false,
            store,
            listener: bind(dir)?,
            max_file_bytes,
        };
        // Watches first, then the walk: nothing changed in between is
        // missed. The walk's result waits for the next checkpoint.
        w.watch_tree(&Key::default());
        w.store.walk_ahead(max_file_bytes)?;
        w.store.unlock();
        Ok(w)
    }

    /// Watch `key` and every directory inside it the checkpoints enter.
    fn watch_tree(&mut self, key: &Key) {
        let mut stack = vec![key.clone()];
        while let Some(k) = stack.pop() {
            let path = if k.0.is_empty() {
                self.root.clone()
            } else {
                self.root.join(k.path())
            };
            match self.inotify.add_watch(&path, MASK) {
                Ok(wd) => {
                    self.wds.insert(wd, k.clone());
                }
                Err(nix::errno::Errno::ENOENT | nix::errno::Errno::ENOTDIR) => continue,
                // Out of watches: every checkpoint walks.
                Err(e) => {
                    if !self.unwatched {
                        eprintln!(
                            "automode-checkpointd: {}: cannot watch {} ({e}): every checkpoint walks",
                            self.root.display(),
                            path.display()
                        );
                    }
                    self.unwatched = true;
                    continue;
                }
            }
            let Ok(entries) = std::fs::read_dir(&path) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name();
                if e.file_type().is_ok_and(|t| t.is_dir()) && super::excluded_dir(&name).is_none() {
                    stack.push(k.join(&name));
                }
            }
        }
    }

    /// Take in the queued events: the paths they name become dirty, new
    /// directories are watched at once.
    fn drain(&mut self) {
        loop {
            let events = match self.inotify.read_events() {
                Ok(ev) => ev,
                Err(nix::errno::Errno::EAGAIN) => return,
                Err(_) => {
                    self.all = true;
                    return;
                }
            };
            if events.is_empty() {
                return;
            }
            for ev in events {
                if ev.mask.contains(AddWatchFlags::IN_Q_OVERFLOW) {
                    self.all = true;
                    continue;
                }
                if ev.mask.contains(AddWatchFlags::IN_IGNORED) {
                    self.wds.remove(&ev.wd);
                    continue;
                }
                let Some(dir) = self.wds.get(&ev.wd).cloned() else {
                    continue;
                };
                let key = match &ev.name {
                    Some(n) => dir.join(n),
                    None => dir.clone(),
                };
                if ev.mask.contains(AddWatchFlags::IN_ISDIR)
                    && ev
                        .mask
                        .intersects(AddWatchFlags::IN_CREATE | AddWatchFlags::IN_MOVED_TO)
                    && let Some(n) = &ev.name
                    && super::excluded_dir(n).is_none()
                {
                    self.watch_tree(&key);
                }
                self.dirty.insert(key);
            }
            if self.dirty.len() > MAX_DIRTY {
                self.all = true;
                self.dirty.clear();
            }
        }
    }

    fn serve(&mut self) {
        let mut last = Instant::now();
        let mut walked = Instant::now();
        // (Shorter for tests: `AUTOMODE_CHECKPOINT_CHECK_SECS`.)
        let (check_idle, check_every) = std::env::var("AUTOMODE_CHECKPOINT_CHECK_SECS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map_or((CHECK_IDLE, CHECK_EVERY), |s| {
                (Duration::from_secs(s), Duration::from_secs(s))
            });
        loop {
            // Now and then, while idle, a walk of the whole project checks
            // what the events said (a write through a mapping, a file
            // system that sends none): the next checkpoint holds it.
            if last.elapsed() > check_idle && walked.elapsed() > check_every {
                walked = Instant::now();
                if self.store.walk_ahead(self.max_file_bytes).is_err() {
                    self.all = true;
                }
            }
            if last.elapsed() > IDLE || !self.root.is_dir() || !self.dir.is_dir() {
                let _ = std::fs::remove_file(socket(&self.dir));
                return;
            }
            let (inotify_ready, client_ready) = {
                let mut fds = [
                    PollFd::new(self.inotify.as_fd(), PollFlags::POLLIN),
                    PollFd::new(self.listener.as_fd(), PollFlags::POLLIN),
                ];
                let wait = check_idle.min(Duration::from_secs(60)).as_millis().max(100);
                let wait = PollTimeout::try_from(wait).unwrap_or(PollTimeout::MAX);
                if poll(&mut fds, wait).is_err() {
                    continue;
                }
                let ready = |f: &PollFd<'_>| f.revents().is_some_and(|r| !r.is_empty());
                (ready(&fds[0]), ready(&fds[1]))
            };
            if inotify_ready {
                self.drain();
            }
            if client_ready && let Ok((stream, _)) = self.listener.accept() {
                last = Instant::now();
                self.answer(stream);
            }
        }
    }

    fn answer(&mut self, stream: UnixStream) {
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let mut line = String::new();
        let mut reader = BufReader::new(&stream);
        if reader.read_line(&mut line).is_err() {
            return;
        }
        let Ok(q) = serde_json::from_str::<Question>(&line) else {
            return;
        };
        let settings = Settings {
            enabled: true,
            max_file_bytes: q.max_file_bytes,
            keep_hours: q.keep_hours,
            max_bytes: q.max_bytes,
        };
        let answer = match self.checkpoint(&q.label, &settings) {
            Ok(t) => Answer::Taken(t),
            Err(why) => Answer::Failed(why),
        };
        let mut out = serde_json::to_vec(&answer).unwrap_or_default();
        out.push(b'\n');
        let _ = (&stream).write_all(&out);
    }

    fn checkpoint(&mut self, label: &Label, settings: &Settings) -> Result<Taken, String> {
        // Everything done before the question is queued by now.
        self.drain();
        self.store.relock(super::LOCK_WAIT)?;
        let result = (|| {
            self.store.refresh()?;
            let scope = if self.all || self.unwatched {
                Scope::All
            } else {
                Scope::Paths(self.dirty.iter().cloned().collect())
            };
            self.store.checkpoint(&scope, label, settings)
        })();
        if result.is_ok() {
            self.dirty.clear();
            self.all = false;
        }
        self.store.unlock();
        result
    }
}

/// The socket, made fresh (a dead watcher's is removed), for this user
/// only.
fn bind(dir: &Path) -> Result<UnixListener, String> {
    let path = socket(dir);
    let _ = std::fs::remove_file(&path);
    let l = UnixListener::bind(&path)
        .map_err(|e| format!("cannot listen on {}: {e}", path.display()))?;
    let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
    Ok(l)
}
