//! The network wall (`sandbox.network: "allowlist"`): every command of a
//! session runs in one user and network namespace the session shares,
//! where every address is local and lands on automode's filter, which
//! reaches only the hosts on the allow-list (and what the user or the
//! classifier approved for one command). One filter process per session
//! (`daemon.rs`) serves it from the host's side, with the namespace's
//! holder (`holder.rs`) making the sockets inside; the first command of a
//! session starts them, the later ones join (`join`). Their files are in
//! automode's state directory, which no command can read:
//! `net/<session>.json` (who they are), `.settings.json` (what the shim
//! last configured), `.refused.jsonl` (what the filter refused),
//! `.grants/` (one file per approved command), `.log` (their errors).

pub mod allow;
pub mod connects;
pub mod daemon;
pub mod dns;
pub mod holder;
pub mod netlink;
pub mod relay;

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Variables the user's tools read their registries from (the filter
/// adds those hosts to the allow-list).
pub const TOOL_VARS: &[&str] = &[
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "npm_config_registry",
    "NPM_CONFIG_REGISTRY",
    "GOPROXY",
    "XDG_CONFIG_HOME",
    "CARGO_HOME",
];

/// How long the first command of a session waits for the filter to come
/// up.
const START_WAIT: Duration = Duration::from_secs(5);

/// How long a session remembers that its wall could not be set up (its
/// commands do not try again meanwhile).
const UNAVAILABLE_FOR: Duration = Duration::from_secs(600);

/// The one-time fix where the system refuses user namespaces.
pub const USERNS_FIX: &str = "on Ubuntu 23.10 and later, allow them for automode with an AppArmor profile (README, \"The network wall\"), or set kernel.apparmor_restrict_unprivileged_userns=0; in a container, run it with a seccomp profile that allows unshare";

/// Can this system make the wall's namespaces? (Runs the holder's probe:
/// the real attempt, in a child.) `Err`: why not.
pub fn probe(exe: &Path) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let out = std::process::Command::new(exe)
        .arg0(daemon::HOLDER_ARGV0)
        .arg("--probe")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run the probe: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// What `automode status` and `doctor` say about the network: one line,
/// and whether it is a failure (`require` with the wall down) or a
/// warning (the wall down, or the network open).
pub fn describe(cfg: &crate::config::SandboxConfig, exe: Option<&Path>) -> (String, Level) {
    use crate::sandbox::{Mode, Network};
    let source = &cfg.network.source;
    match cfg.network.value {
        Network::Open => (
            format!(
                "network: open (sandbox.network \"open\" from {source}): commands reach the host's network"
            ),
            Level::Warn,
        ),
        Network::Deny => (
            format!("network: loopback only (sandbox.network \"deny\" from {source})"),
            Level::Ok,
        ),
        Network::Allowlist => {
            let probed = exe.map_or_else(
                || Err("automode cannot find its own executable".into()),
                probe,
            );
            match probed {
                Ok(()) => (
                    format!(
                        "network wall: in force (sandbox.network \"allowlist\" from {source}): commands reach {} allow-list entries and loopback{}; {}",
                        cfg.network_allow.len(),
                        if cfg.host_ports.is_empty() {
                            String::new()
                        } else {
                            format!(
                                ", and the host's loopback ports {}",
                                cfg.host_ports
                                    .iter()
                                    .map(|p| p.value.to_string())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        },
                        if crate::exec::landlock_abi().is_ok_and(|abi| abi >= 4) {
                            "every connection is made by the filter (allowed ones on the host's side, at full speed)"
                        } else {
                            "commands make their connections inside it (Landlock before ABI 4 cannot refuse them their own, so none is handed a socket from the host's side)"
                        }
                    ),
                    Level::Ok,
                ),
                Err(why) => {
                    let require = cfg.mode.value == Mode::Require;
                    (
                        format!(
                            "network wall: not in force: {why} (a user namespace is needed); {}. Fix: {USERNS_FIX}",
                            if require {
                                "sandbox.mode is \"require\", so every command is refused"
                            } else {
                                "commands reach the host's network (the seccomp filter still refuses raw, MPTCP and SCTP sockets and io_uring)"
                            }
                        ),
                        if require { Level::Fail } else { Level::Warn },
                    )
                }
            }
        }
    }
}

/// How bad a state is, for `doctor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Ok,
    Warn,
    Fail,
}

/// A session's wall, as its files name it.
#[derive(Debug, Clone)]
pub struct Session {
    /// `<state>/net`.
    pub dir: PathBuf,
    /// The session's file stem.
    pub stem: String,
}

impl Session {
    pub fn new(state_dir: &Path, session: &str) -> Session {
        Session {
            dir: state_dir.join("net"),
            stem: crate::state::file_stem(session),
        }
    }

    fn file(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("{}{suffix}", self.stem))
    }

    /// Who serves the session (written by the filter once it is up).
    pub fn record_path(&self) -> PathBuf {
        self.file(".json")
    }
    pub fn settings_path(&self) -> PathBuf {
        self.file(".settings.json")
    }
    pub fn refused_path(&self) -> PathBuf {
        self.file(".refused.jsonl")
    }
    pub fn grants_dir(&self) -> PathBuf {
        self.file(".grants")
    }
    pub fn log_path(&self) -> PathBuf {
        self.file(".log")
    }
    fn lock_path(&self) -> PathBuf {
        self.file(".lock")
    }
    fn unavailable_path(&self) -> PathBuf {
        self.file(".unavailable")
    }

    /// Why the session's wall could not be set up, when that is recent.
    pub fn unavailable(&self) -> Option<String> {
        let path = self.unavailable_path();
        let age = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .ok()?
            .elapsed()
            .unwrap_or_default();
        (age < UNAVAILABLE_FOR)
            .then(|| std::fs::read_to_string(&path).ok())
            .flatten()
    }
}

/// What the shim configures for the session's filter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// `sandbox.network.allow`, expanded: `(entry, where it was set)`.
    pub allow: Vec<(String, String)>,
    /// `sandbox.network.hostPorts`.
    pub host_ports: Vec<u16>,
    /// The projects the session's commands ran in; a command adds its
    /// own, none is removed, so the file settles after each project's
    /// first command.
    pub projects: Vec<PathBuf>,
    /// When the session's first settings were written (ns since the
    /// epoch; kept from then on).
    #[serde(default)]
    pub since_ns: u64,
    /// The git remotes that join the allow-list, `(url, where)`: read
    /// once, when a project's first command comes, and only from a
    /// `.git/config` last changed before `since_ns`. A command can write
    /// a project's git configuration (a project without `.git` yet, a
    /// repository it made, a remote `git remote add` adds), so what
    /// changed during the session is not the user's.
    #[serde(default)]
    pub remotes: Vec<(String, String)>,
    pub home: Option<PathBuf>,
    /// The variables the user's tools read their registries from.
    pub vars: Vec<(String, String)>,
    /// The audit log's directory (refusals are recorded there).
    pub state_dir: PathBuf,
    /// The session's id, for the records.
    pub session: String,
}

/// Who serves a session's wall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub daemon_pid: i32,
    pub daemon_start: u64,
    pub holder_pid: i32,
    pub holder_start: u64,
    /// The proxy's port on loopback inside.
    pub proxy_port: u16,
    /// The ports the filter captures on every address.
    pub capture_ports: Vec<u16>,
    /// The build that serves it (a new build starts its own filter).
    pub build: String,
    /// The abstract socket the filter takes commands' `connect`
    /// listeners at (`connects.rs`; empty: it takes none).
    #[serde(default)]
    pub connects: String,
    /// The process the session ends with (the filter ends when it does):
    /// a record whose owner is gone is not joined, since its filter is
    /// about to end (0: none named).
    #[serde(default)]
    pub owner_pid: i32,
    #[serde(default)]
    pub owner_start: u64,
}

/// The running build's identity.
pub fn build_id() -> String {
    format!(
        "{}-{}",
        env!("CARGO_PKG_VERSION"),
        option_env!("AUTOMODE_COMMIT").unwrap_or("dev")
    )
}

/// Is the process `pid` the one that started at `start`?
fn alive(pid: i32, start: u64) -> bool {
    crate::nested::proc_stat(pid).is_some_and(|s| s.start_ticks == start)
}

impl Record {
    pub fn read(path: &Path) -> Option<Record> {
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    }

    /// The filter that wrote it still serves (this build's), and the
    /// session's owner still runs. (Whether the holder does is checked
    /// once its namespaces are open: `open`.)
    fn serving(&self) -> bool {
        self.build == build_id()
            && alive(self.daemon_pid, self.daemon_start)
            && (self.owner_pid <= 0 || alive(self.owner_pid, self.owner_start))
    }
}

/// A command's way into the session's wall.
#[derive(Debug)]
pub struct Joined {
    pub join: crate::exec::Join,
    pub record: Record,
    /// Where its files are (its refusals).
    pub session: Option<Session>,
    /// A child made ahead for the command (`exec::Ahead`), started once
    /// the wall is joined.
    pub ahead: Option<crate::exec::Ahead>,
}

/// Join the session's wall, starting its filter first if it is not up.
/// `exe`: automode's own executable; `owner`: the process the session
/// ends with (pid and start time: the harness).
pub fn join(
    session: &Session,
    settings: &Settings,
    exe: &Path,
    owner: (i32, u64),
) -> Result<Joined, String> {
    if let Some(why) = session.unavailable() {
        return Err(why);
    }
    write_settings(session, settings)?;
    let found = |j: Joined| Joined {
        session: Some(session.clone()),
        ..j
    };
    if let Some(j) = Record::read(&session.record_path()).and_then(|r| open(&r)) {
        return Ok(found(j));
    }
    std::fs::create_dir_all(&session.dir)
        .map_err(|e| format!("cannot make {}: {e}", session.dir.display()))?;
    // One command starts it; the others wait for it.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(session.lock_path())
        .map_err(|e| format!("cannot open {}: {e}", session.lock_path().display()))?;
    let _held = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| format!("cannot lock the session's network: {e}"))?;
    if let Some(j) = Record::read(&session.record_path()).and_then(|r| open(&r)) {
        return Ok(found(j));
    }
    let remember = |why: String| {
        let _ = std::fs::write(session.unavailable_path(), &why);
        why
    };
    start(session, exe, owner).map_err(remember)?;
    let deadline = Instant::now() + START_WAIT;
    loop {
        if let Some(j) = Record::read(&session.record_path()).and_then(|r| open(&r)) {
            return Ok(found(j));
        }
        if let Some(why) = start_error(session) {
            return Err(remember(why));
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the session's network filter did not start within {} s (see {})",
                START_WAIT.as_secs(),
                session.log_path().display()
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Open the holder's namespaces, if the record's filter serves; the
/// holder is checked once they are open, so that its pid cannot have
/// been reused in between (each check reads a `/proc` file: most of
/// what joining costs).
fn open(r: &Record) -> Option<Joined> {
    if !r.serving() {
        return None;
    }
    let ns = |name: &str| -> Option<OwnedFd> {
        std::fs::File::open(format!("/proc/{}/ns/{name}", r.holder_pid))
            .ok()
            .map(OwnedFd::from)
    };
    let (user, net) = (ns("user")?, ns("net")?);
    alive(r.holder_pid, r.holder_start).then(|| Joined {
        join: crate::exec::Join { user, net },
        record: r.clone(),
        session: None,
        ahead: None,
    })
}

fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Write the settings when they changed (the filter rereads them): the
/// projects already there, their remotes and the session's start are
/// kept; a new project's remotes are read now.
fn write_settings(session: &Session, settings: &Settings) -> Result<(), String> {
    let path = session.settings_path();
    let old: Option<Settings> = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let mut merged = settings.clone();
    let known: &[PathBuf] = old.as_ref().map_or(&[], |o| &o.projects);
    merged.projects = known.to_vec();
    merged.since_ns = old
        .as_ref()
        .map(|o| o.since_ns)
        .filter(|t| *t > 0)
        .unwrap_or_else(now_ns);
    merged.remotes = old.as_ref().map(|o| o.remotes.clone()).unwrap_or_default();
    for p in &settings.projects {
        if !merged.projects.contains(p) {
            merged.projects.push(p.clone());
            merged
                .remotes
                .extend(allow::project_remotes(p, merged.since_ns));
        }
    }
    if old.as_ref() == Some(&merged) {
        return Ok(());
    }
    let text = serde_json::to_vec(&merged).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&session.dir)
        .map_err(|e| format!("cannot make {}: {e}", session.dir.display()))?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, &text)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The error the filter wrote while starting, if it gave up.
fn start_error(session: &Session) -> Option<String> {
    let text = std::fs::read_to_string(session.log_path()).ok()?;
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("automode-netd: cannot start: "))
        .map(str::to_string)
}

/// Start the filter, detached (`automode-netd --detach DIR STEM`: it
/// starts the real one in a new session and exits, so the filter is
/// never this process's child).
fn start(session: &Session, exe: &Path, owner: (i32, u64)) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let _ = std::fs::remove_file(session.log_path());
    let status = std::process::Command::new(exe)
        .arg0(daemon::ARGV0)
        .arg("--detach")
        .arg(&session.dir)
        .arg(&session.stem)
        .arg(owner.0.to_string())
        .arg(owner.1.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("cannot start the session's network filter: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "the session's network filter did not start ({status}; see {})",
            session.log_path().display()
        ))
    }
}

/// A command's grant: hosts it may reach beyond the allow-list (the user
/// or the classifier approved it, and it names them). Valid while the
/// command's process session lives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub hosts: Vec<(String, u16)>,
    /// The command's session id (its leader's pid), once it started; 0
    /// while it starts.
    pub sid: i32,
    /// Its PID namespace's first process, pid and start time (ticks
    /// since boot), once it started: it lives while any process of the
    /// command does (and up to two seconds after), and a pid used again
    /// has another start time. 0: none.
    #[serde(default)]
    pub first_pid: i32,
    #[serde(default)]
    pub first_start: u64,
}

impl Grant {
    fn path(session: &Session, token: &str) -> PathBuf {
        session
            .grants_dir()
            .join(format!("{}.json", crate::state::file_stem(token)))
    }

    /// Remove the grant under `token` (a command that never started).
    pub fn remove(session: &Session, token: &str) {
        let _ = std::fs::remove_file(Self::path(session, token));
    }

    /// Write it under `token` (the command's audit id).
    pub fn write(&self, session: &Session, token: &str) -> Result<(), String> {
        let dir = session.grants_dir();
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let path = Self::path(session, token);
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_vec(self).map_err(|e| e.to_string())?)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

/// The environment a command inside the wall gets: the filter's proxy
/// (its URL carries the command's token), loopback left direct.
pub fn proxy_env(proxy: &str) -> Vec<(&'static str, String)> {
    let direct = "localhost,127.0.0.1,::1".to_string();
    vec![
        ("HTTP_PROXY", proxy.to_string()),
        ("HTTPS_PROXY", proxy.to_string()),
        ("http_proxy", proxy.to_string()),
        ("https_proxy", proxy.to_string()),
        ("NO_PROXY", direct.clone()),
        ("no_proxy", direct),
    ]
}

/// The hosts a command names literally, with their ports: URLs in its
/// words (`https://api.example.com/…`, `git push https://…`), and
/// `user@host:path` for the programs that take it (git, ssh, scp,
/// rsync). What a reviewed command may reach beyond the allow-list.
pub fn named_hosts(a: &crate::shell::Analysis) -> Vec<(String, u16)> {
    let mut out: Vec<(String, u16)> = Vec::new();
    for c in &a.commands {
        let scp_like = c
            .base_name()
            .is_some_and(|n| matches!(n, "git" | "ssh" | "scp" | "rsync" | "sftp"));
        for w in c.argv.iter().skip(1) {
            let Some(text) = w.lit() else { continue };
            let url_like =
                text.contains("://") || (scp_like && text.contains('@') && !text.starts_with('-'));
            let found = if url_like {
                allow::url_host(text)
            } else if c.base_name() == Some("ssh") && !text.starts_with('-') && text.contains('.') {
                allow::url_host(&format!("ssh://{text}"))
            } else {
                None
            };
            if let Some(h) = found
                && !out.contains(&h)
            {
                out.push(h);
            }
        }
    }
    out
}

/// One refusal, as the filter records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub at: u64,
    pub host: String,
    pub port: u16,
    /// `proxy`, `capture` (a connection to an address), `host-port`.
    pub via: String,
    /// The command (its audit id), when it came through the proxy.
    pub command: Option<String>,
    /// The process that connected, when it could be found.
    pub pid: Option<i32>,
    pub process: Option<String>,
    pub why: String,
}

/// The refusals recorded since `since` (seconds since the epoch).
pub fn refusals_since(session: &Session, since: u64) -> Vec<Refusal> {
    let Ok(text) = std::fs::read_to_string(session.refused_path()) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Refusal>(l).ok())
        .filter(|r| r.at >= since)
        .collect()
}
