//! Running an allowed command under supervision: its own session, stdin
//! `/dev/null`, a timeout with TERM(+CONT) → KILL escalation to the group
//! and every adopted orphan, one output budget over stdout + stderr, and
//! cancellation forwarded from our caller.
//!
//! Input: an `ExecPlan` (program, argv, environment, limits, workspace).
//! Output: an `Outcome` (how the leader ended, why we terminated it, bytes,
//! duration). It decides no policy and prints nothing; `report.rs` words
//! the diagnostics. The design follows reference/process-supervision.md §2.

mod children;
mod output;
mod unix;

use std::ffi::{CString, OsString};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{SigSet, SigmaskHow, Signal, sigprocmask};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::unistd::Pid;

pub use children::ChildStatus;
use children::Tree;
use output::{DstKind, Step, Stream};
pub use unix::{IDENTITY_SECTION, identity};
pub(crate) use unix::{
    Resume, Stopped, copy_socket_option, listen, seccomp_place_fd, seccomp_recv, seccomp_resume,
    seccomp_waiting, socket_netns, take_fd,
};

use crate::context::Workspace;

/// Grace between the termination signal and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(1);
/// After a normal exit, how long we wait for background holders of our
/// pipes to let go before closing them.
pub const SETTLE: Duration = Duration::from_secs(2);
/// While escalating, how often we look for newly adopted orphans.
const RESCAN_TICK: Duration = Duration::from_millis(20);
/// After SIGKILL, how long we wait for pipes held by escaped processes.
const KILL_DRAIN: Duration = Duration::from_millis(500);
/// After SIGKILL, when we give up even on the leader (D-state processes).
const KILL_HARD_CAP: Duration = Duration::from_secs(5);
/// Size we ask for our own pipes: bigger pipes mean fewer wake-ups and
/// splices per MiB; 256 KiB keeps well inside the per-user soft limit on
/// pipe pages (64 MiB) even with many shims running at once.
const PIPE_BYTES: i32 = 256 * 1024;

/// Process-wide preparation, first thing in `main`: make sure fds 0–2
/// are open so no pipe of ours lands on them.
pub fn prepare_process() {
    unix::ensure_standard_fds();
}

/// `secs` since the epoch as local time: `2026-12-02 03:04:05 +0100`
/// (the number itself when the time cannot be converted).
pub fn local_time_text(secs: u64) -> String {
    match i64::try_from(secs).ok().and_then(unix::local_time) {
        Some([y, mo, d, h, mi, s, off]) => {
            let sign = if off < 0 { '-' } else { '+' };
            let off = off.abs();
            format!(
                "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02} {sign}{:02}{:02}",
                off / 3600,
                off % 3600 / 60
            )
        }
        None => secs.to_string(),
    }
}

/// The running kernel's Landlock ABI, or the errno saying why there is
/// none.
pub fn landlock_abi() -> Result<u32, i32> {
    unix::landlock_abi()
}

/// A directory's entries and their `d_type` (`getdents64` on an open
/// directory).
pub fn dir_entries(
    dir: std::os::fd::BorrowedFd<'_>,
) -> std::io::Result<Vec<(std::ffi::CString, u8)>> {
    unix::dir_entries(dir)
}

/// Read at most `want` bytes from `fd`, appended to `buf` without zeroing
/// its new room first (0: the end of the stream).
pub fn read_spare(
    fd: std::os::fd::BorrowedFd<'_>,
    buf: &mut Vec<u8>,
    want: usize,
) -> nix::Result<usize> {
    unix::read_spare(fd, buf, want)
}

/// Add a path-beneath rule to a Landlock ruleset (the `landlock` crate
/// creates the ruleset; this adds rules without its per-rule `fstat`,
/// for the hundreds a command's ruleset can have).
pub fn landlock_add_path_rule(
    ruleset: std::os::fd::BorrowedFd<'_>,
    path: std::os::fd::BorrowedFd<'_>,
    access: u64,
) -> std::io::Result<()> {
    unix::landlock_add_path_rule(ruleset, path, access)
}

/// Send `data` with descriptors attached on a UNIX socket.
pub fn send_fds(
    sock: std::os::fd::BorrowedFd<'_>,
    data: &[u8],
    fds: &[std::os::fd::BorrowedFd<'_>],
) -> std::io::Result<()> {
    unix::send_fds(sock, data, fds)
}

/// Receive into `buf` with the descriptors attached (close-on-exec).
pub fn recv_fds(
    sock: std::os::fd::BorrowedFd<'_>,
    buf: &mut [u8],
) -> std::io::Result<(usize, Vec<OwnedFd>)> {
    unix::recv_fds(sock, buf)
}

/// Die by `sig`, as the child did (used by `Exit::terminate`).
pub fn die_by_signal(sig: i32) -> ! {
    unix::die_by_signal(sig)
}

/// Replace this process with `program argv…` (nested calls, `--version`).
/// Returns only on failure.
pub fn exec_replace(program: &std::path::Path, argv: &[OsString]) -> std::io::Error {
    let Ok(prog) = CString::new(program.as_os_str().as_bytes()) else {
        return std::io::ErrorKind::InvalidInput.into();
    };
    let mut c_argv = Vec::with_capacity(argv.len());
    for a in argv {
        match CString::new(a.as_bytes()) {
            Ok(c) => c_argv.push(c),
            Err(_) => return std::io::ErrorKind::InvalidInput.into(),
        }
    }
    unix::exec_replace(&prog, &c_argv)
}

/// What to run and under which limits.
#[derive(Debug)]
pub struct ExecPlan {
    /// Absolute path of the program.
    pub program: PathBuf,
    /// argv, argv[0] included.
    pub argv: Vec<OsString>,
    /// The child's whole environment.
    pub env: Vec<(OsString, OsString)>,
    /// Add the nested-call marker (`nested.rs`) to the environment.
    pub mark_nested: bool,
    pub timeout: Duration,
    pub output_limit: u64,
    pub grace: Duration,
    pub settle: Duration,
    /// Refuse to start if the working directory changed identity.
    pub workspace: Option<Workspace>,
    /// Give the command our stdin (a terminal the user lets through)
    /// instead of `/dev/null`.
    pub terminal_stdin: bool,
    /// How the child is confined (none: it runs with our rights).
    pub confinement: Option<Confinement>,
    /// Keep the last bytes of the command's stderr (for the sandbox's
    /// hint after a failure).
    pub keep_stderr_tail: bool,
}

/// The confinement the caller built for the child; applied in the child
/// right before `execve`, in this order: namespaces and read-only binds,
/// the file-size limit, `PR_SET_NO_NEW_PRIVS`, Landlock.
#[derive(Debug)]
pub struct Confinement {
    /// The Landlock ruleset (its descriptor is closed on exec).
    pub ruleset: Option<OwnedFd>,
    /// A private mount namespace in a new user namespace.
    pub namespace: Option<Namespace>,
    /// `RLIMIT_FSIZE`: the largest file the command may write.
    pub max_file_bytes: Option<u64>,
    /// A seccomp filter, installed after `no_new_privs`.
    pub seccomp: Option<&'static [libc::sock_filter]>,
    /// The session's user and network namespaces to join (the network
    /// wall) before any other step; a mount namespace is then made
    /// inside that user namespace.
    pub join: Option<Join>,
    /// The session's filter makes the command's TCP connections.
    pub connects: Option<Connects>,
    /// A child made ahead (`Ahead`) to start the command from.
    pub ahead: Option<Ahead>,
}

/// A child started before the verdict for a command of a session behind
/// the network wall, so that the steps every such command takes happen
/// while automode decides rather than after: it joins the session's user
/// and network namespaces, makes its own mount and PID namespaces, and
/// installs the seccomp filter that stops `connect` for the session's
/// filter (which gets its listener). `run` starts the command from it
/// where the command's confinement has these same steps (`connects`
/// taken from it); dropped unused, it ends. Nothing of the command runs
/// in it before the verdict.
#[derive(Debug)]
pub struct Ahead {
    child: unix::Ahead,
    connects: Connects,
    /// The namespaces it joins, open while it may still join them.
    _join: Join,
}

impl Ahead {
    /// Start it: `join` the session's namespaces, `connects` the
    /// connection to the session's filter and its Landlock layer,
    /// `seccomp` the filter stopping `connect`.
    pub fn start(
        join: &Join,
        seccomp: &'static [libc::sock_filter],
        connects: Connects,
    ) -> std::io::Result<Ahead> {
        let join = Join {
            user: join.user.try_clone()?,
            net: join.net.try_clone()?,
        };
        let child = unix::start_ahead(
            join.user.as_fd(),
            join.net.as_fd(),
            seccomp,
            connects.socket.as_fd(),
        )?;
        Ok(Ahead {
            child,
            connects,
            _join: join,
        })
    }

    /// The command's `connects`: the same connection and layer.
    pub fn connects(&self) -> std::io::Result<Connects> {
        Ok(Connects {
            socket: self.connects.socket.try_clone()?,
            ruleset: self.connects.ruleset.try_clone()?,
        })
    }
}

/// How the session's network filter makes a command's TCP connections:
/// every `connect` that may be an IP one stops for it (the seccomp filter, `Confinement::
/// seccomp`, returns `SECCOMP_RET_USER_NOTIF` for it and is installed
/// with a listener, which goes to the filter over `socket`) and a
/// Landlock layer (`ruleset`) refuses the command any TCP connect of its
/// own, so that every one is the filter's: a socket on the host's side it
/// hands in where the destination is allowed, else the command's own,
/// connected inside.
#[derive(Debug)]
pub struct Connects {
    pub socket: OwnedFd,
    pub ruleset: OwnedFd,
}

/// Namespaces the child joins: `/proc/<holder>/ns/user` and `…/net`,
/// opened by the supervisor.
#[derive(Debug)]
pub struct Join {
    pub user: OwnedFd,
    pub net: OwnedFd,
}

/// A private mount namespace: these paths bound read-only onto
/// themselves, those covered (an empty read-only tmpfs over a directory,
/// `/dev/null` over a file); with `network_off`, also a network namespace
/// with only loopback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    pub read_only: Vec<PathBuf>,
    /// Bound onto themselves (writable) first, so that they cannot be
    /// renamed, replaced or removed.
    pub pin: Vec<PathBuf>,
    pub hide: Vec<PathBuf>,
    /// Places replaced by another directory (before everything else),
    /// with the paths under them bound back first.
    pub replace: Vec<Replace>,
    /// `(source, target)`: files bound over others, before the covers (a
    /// settings file's filtered copy over the original).
    pub overlay: Vec<(PathBuf, PathBuf)>,
    pub network_off: bool,
    /// A PID namespace of the command's own (where it joins none).
    pub own_pids: bool,
}

/// `with` bound over `at`, after each `(path, mount point inside with)`
/// of `keep` was bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replace {
    pub at: PathBuf,
    pub with: PathBuf,
    pub keep: Vec<(PathBuf, PathBuf)>,
    /// Mount points of `keep` remounted read-only.
    pub read_only: Vec<PathBuf>,
}

/// Why we ended the command ourselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    TimedOut,
    OutputLimit,
    /// Our caller sent us this signal.
    Cancelled(i32),
}

/// How a supervised run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The leader's end, `None` only if it never ended within the hard cap
    /// after SIGKILL.
    pub status: Option<ChildStatus>,
    /// Set when we terminated the group; it decides the exit code.
    pub termination: Option<Termination>,
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    pub duration: Duration,
    /// After a normal exit, something still held our pipes past the settle
    /// window, so we closed them.
    pub closed_held_pipes: bool,
    /// The signal we used before SIGKILL, and whether SIGKILL followed.
    pub escalated_to_kill: bool,
    /// The last bytes the command wrote to stderr (when asked for).
    pub stderr_tail: Vec<u8>,
    /// The confinement the child applied before `execve`, as it reported.
    pub applied: Applied,
}

/// The capabilities a confined command keeps (numbers as in
/// `linux/capability.h`), with why; every other one leaves its sets
/// before `execve`. Only root (the user root, or root
/// of the command's user namespace, where the user's id maps to 0) has
/// any to lose: there every capability over the namespaces would stay,
/// among them `CAP_NET_ADMIN` over the network the session's commands
/// share (a rule that turns another command's proxy traffic to a
/// listener of its own) and `CAP_SYS_RESOURCE` (the file-size limit
/// raised again).
pub const KEPT_CAPABILITIES: &[(u32, &str)] = &[
    (0, "CAP_CHOWN: root's tools give files they make an owner"),
    (
        1,
        "CAP_DAC_OVERRIDE: root reads and writes its own files whatever their mode (Landlock still decides where)",
    ),
    (
        2,
        "CAP_DAC_READ_SEARCH: the same for reading and searching directories",
    ),
    (
        3,
        "CAP_FOWNER: chmod and utime of files root's tools unpacked",
    ),
    (4, "CAP_FSETID: modes kept as tools set them"),
    (
        6,
        "CAP_SETGID: tools that drop to another group (Landlock stays)",
    ),
    (
        7,
        "CAP_SETUID: tools that drop to another user (Landlock stays)",
    ),
    (
        10,
        "CAP_NET_BIND_SERVICE: a dev server on port 80 or 443 inside the wall",
    ),
];

/// `KEPT_CAPABILITIES` as a mask.
pub(crate) const fn kept_capability_mask() -> u64 {
    let mut mask = 0u64;
    let mut i = 0;
    while i < KEPT_CAPABILITIES.len() {
        mask |= 1 << KEPT_CAPABILITIES[i].0;
        i += 1;
    }
    mask
}

/// The confinement steps the child reported done before `execve` (it
/// sets each only once its system calls succeeded; any failure ends the
/// child before the command runs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Applied(u32);

impl Applied {
    /// A user and mount namespace of its own.
    pub fn namespace(self) -> bool {
        self.0 & unix::applied::NAMESPACE != 0
    }
    /// Every read-only bind and cover of the namespace.
    pub fn mounts(self) -> bool {
        self.0 & unix::applied::MOUNTS != 0
    }
    /// A network namespace with only loopback.
    pub fn network_namespace(self) -> bool {
        self.0 & unix::applied::NETWORK != 0
    }
    /// The file-size limit.
    pub fn file_size_limit(self) -> bool {
        self.0 & unix::applied::FILE_SIZE != 0
    }
    /// `no_new_privs`.
    pub fn no_new_privs(self) -> bool {
        self.0 & unix::applied::NO_NEW_PRIVS != 0
    }
    /// The Landlock ruleset restricts the command.
    pub fn landlock(self) -> bool {
        self.0 & unix::applied::LANDLOCK != 0
    }
    /// The session's user and network namespaces were joined.
    pub fn joined(self) -> bool {
        self.0 & unix::applied::JOINED != 0
    }
    /// A PID namespace of its own, with its `/proc`.
    pub fn pids(self) -> bool {
        self.0 & unix::applied::PIDS != 0
    }
    /// The session's filter makes its TCP connections.
    pub fn connects(self) -> bool {
        self.0 & unix::applied::CONNECTS != 0
    }

    /// The seccomp filter is installed.
    pub fn seccomp(self) -> bool {
        self.0 & unix::applied::SECCOMP != 0
    }
    /// Started from a child made ahead (`Ahead`).
    pub fn ahead(self) -> bool {
        self.0 & unix::applied::AHEAD != 0
    }
    /// Every capability but `KEPT_CAPABILITIES` gone.
    pub fn capabilities_dropped(self) -> bool {
        self.0 & unix::applied::CAPABILITIES != 0
    }
    /// Nothing was applied.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// Why the command could not be started.
#[derive(Debug)]
pub enum ExecError {
    /// The program does not exist (exit 127).
    NotFound(PathBuf),
    /// The program exists but execve failed (exit 126).
    CannotExecute(PathBuf, std::io::Error),
    /// The working directory no longer names the captured directory.
    WorkspaceChanged(String),
    /// An OS error in the supervisor before the child ran.
    Os(String),
    /// The child could not be confined (nothing ran): which step, and
    /// whether it was the namespace (where another way may work).
    Confine { step: String, namespace: bool },
}

/// Phases of the run, as in process-supervision.md §2.5.
#[derive(Debug, Clone, Copy)]
enum Phase {
    Running,
    Settling { until: Instant },
    Terminating { until: Instant },
    Killing { since: Instant },
}

/// A command that has started.
#[derive(Debug, Clone, Copy)]
pub struct Started {
    /// Its pid (its process session's id: it leads the session).
    pub leader: i32,
    /// Its PID namespace's first process, which lives while any process
    /// of the command does (0: no PID namespace of its own).
    pub first: i32,
}

/// Run the plan and supervise it to the end. `on_start` is called once the
/// child is running (work that can overlap with the child's start-up).
pub fn run(plan: &mut ExecPlan, on_start: &mut dyn FnMut(Started)) -> Result<Outcome, ExecError> {
    let started = Instant::now();
    let os = |what: &str, e: nix::errno::Errno| ExecError::Os(format!("{what}: {e}"));

    // Signals: handle INT/TERM/HUP/QUIT unless our caller ignored them;
    // SIGCHLD always. Block them before fork so none is lost.
    let mut handled = SigSet::empty();
    for sig in [
        Signal::SIGINT,
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGQUIT,
    ] {
        if !unix::signal_is_ignored(sig as i32) {
            handled.add(sig);
        }
    }
    let mut mask = handled;
    mask.add(Signal::SIGCHLD);
    unix::reset_sigchld();
    let mut before = SigSet::empty();
    sigprocmask(SigmaskHow::SIG_BLOCK, Some(&mask), Some(&mut before))
        .map_err(|e| os("sigprocmask", e))?;
    // Once supervision ends (or fails), the caller's mask is back: a
    // cancellation that arrives while the outcome is recorded is
    // honoured at once, never swallowed by a blocked mask.
    let _restore = MaskRestore(before);
    let sigfd = SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
        .map_err(|e| os("signalfd", e))?;
    nix::sys::prctl::set_child_subreaper(true).map_err(|e| os("PR_SET_CHILD_SUBREAPER", e))?;

    // Pipes. When our stdout and stderr are the same file, the child gets
    // one pipe for both, which keeps their interleaving exact.
    let stdout_fd = unix::std_fd(1);
    let stderr_fd = unix::std_fd(2);
    let (out_kind, out_id) = DstKind::of(stdout_fd);
    let (err_kind, err_id) = DstKind::of(stderr_fd);
    let merged = match (out_id, err_id) {
        (Some(a), Some(b)) => a == b && (!a.2 || same_offset(stdout_fd, stderr_fd)),
        _ => false,
    };
    let (out_r, out_w) = child_pipe().map_err(|e| os("pipe", e))?;
    let err_pipe = if merged {
        None
    } else {
        Some(child_pipe().map_err(|e| os("pipe", e))?)
    };
    let devnull = unix::open_dev_null().map_err(|e| ExecError::Os(format!("/dev/null: {e}")))?;

    // The program, argv and environment as C strings, before fork.
    let program = CString::new(plan.program.as_os_str().as_bytes())
        .map_err(|_| ExecError::Os("program path contains NUL".into()))?;
    let argv: Vec<CString> = plan
        .argv
        .iter()
        .map(|a| CString::new(a.as_bytes()))
        .collect::<Result<_, _>>()
        .map_err(|_| ExecError::Os("an argument contains NUL".into()))?;
    let mut env: Vec<Vec<u8>> = plan
        .env
        .iter()
        .filter(|(k, _)| !crate::nested::is_marker_name(k.as_bytes()))
        .map(|(k, v)| {
            let mut e = k.as_bytes().to_vec();
            e.push(b'=');
            e.extend_from_slice(v.as_bytes());
            e
        })
        .filter(|e| !e.contains(&0))
        .collect();
    let mut pid_slot = None;
    if plan.mark_nested
        && let Some((entry, offset)) = crate::nested::marker_template(plan.confinement.is_some())
    {
        pid_slot = Some(unix::PidSlot {
            env_index: env.len(),
            offset,
            width: crate::nested::SID_WIDTH,
        });
        env.push(entry.into_bytes());
    }

    if let Some(ws) = &plan.workspace {
        ws.verify().map_err(ExecError::WorkspaceChanged)?;
    }
    let prepared = plan.confinement.as_ref().map(PreparedNamespace::of);
    let prepared = match prepared {
        Some(Err(e)) => return Err(e),
        Some(Ok(p)) => Some(p),
        None => None,
    };
    let child_confinement = unix::ChildConfinement {
        namespace: prepared
            .as_ref()
            .and_then(|p| p.namespace.as_ref())
            .map(|n| unix::ChildNamespace {
                cwd: &n.cwd,
                uid_map: &n.uid_map,
                gid_map: &n.gid_map,
                read_only: &n.read_only,
                pin: &n.pin,
                hide_dirs: &n.hide_dirs,
                hide_files: &n.hide_files,
                keep: &n.keep,
                keep_read_only: &n.keep_read_only,
                replace: &n.replace,
                overlay: &n.overlay,
                network_off: n.network_off,
                own_pids: n.own_pids,
            }),
        max_file_bytes: plan.confinement.as_ref().and_then(|c| c.max_file_bytes),
        join: plan
            .confinement
            .as_ref()
            .and_then(|c| c.join.as_ref())
            .map(|j| {
                use std::os::fd::AsRawFd;
                (j.user.as_raw_fd(), j.net.as_raw_fd())
            }),
        seccomp: plan
            .confinement
            .as_ref()
            .and_then(|c| c.seccomp)
            .map(|f| libc::sock_fprog {
                len: f.len() as u16,
                filter: f.as_ptr().cast_mut(),
            }),
        ruleset: plan
            .confinement
            .as_ref()
            .and_then(|c| c.ruleset.as_ref())
            .map(std::os::fd::AsRawFd::as_raw_fd),
        connects: plan
            .confinement
            .as_ref()
            .and_then(|c| c.connects.as_ref())
            .map(|c| {
                use std::os::fd::AsRawFd;
                unix::ChildConnects {
                    socket: c.socket.as_raw_fd(),
                    ruleset: c.ruleset.as_raw_fd(),
                }
            }),
    };
    if plan.confinement.is_some() {
        // Nothing inside may read our memory or environment via /proc.
        unix::set_undumpable();
    }

    let (err_r, err_w) = match err_pipe {
        Some((r, w)) => (Some(r), Some(w)),
        None => (None, None),
    };
    let stdin = std::io::stdin();
    let mut ahead = plan.confinement.as_mut().and_then(|c| c.ahead.take());
    let spawned = unix::spawn(unix::SpawnRequest {
        program: &program,
        argv: &argv,
        env,
        pid_slot,
        stdin: if plan.terminal_stdin {
            stdin.as_fd()
        } else {
            devnull.as_fd()
        },
        stdout: out_w.as_fd(),
        stderr: err_w.as_ref().map_or(out_w.as_fd(), |w| w.as_fd()),
        sigpipe_default: !unix::caller_ignored_sigpipe(),
        confinement: child_confinement,
        ahead: ahead.as_mut().map(|a| &mut a.child),
    });
    drop(ahead);
    drop(out_w);
    drop(err_w);
    drop(devnull);
    let (leader, applied, first) = match spawned {
        Ok(s) => (Pid::from_raw(s.pid), Applied(s.applied), s.first),
        Err(unix::SpawnError::Exec(errno)) => {
            let err = std::io::Error::from_raw_os_error(errno);
            return Err(if errno == libc::ENOENT {
                ExecError::NotFound(plan.program.clone())
            } else {
                ExecError::CannotExecute(plan.program.clone(), err)
            });
        }
        Err(unix::SpawnError::Os(e)) => return Err(ExecError::Os(format!("fork: {e}"))),
        Err(unix::SpawnError::Confine(stage, errno)) => {
            let err = std::io::Error::from_raw_os_error(errno);
            let (what, namespace) = match stage {
                unix::ConfineStage::UserNamespace => ("creating a user namespace", true),
                unix::ConfineStage::IdMap => ("mapping ids in the user namespace", true),
                unix::ConfineStage::Mounts => (
                    "binding protected paths read-only and covering secrets",
                    true,
                ),
                unix::ConfineStage::Loopback => {
                    ("bringing up loopback in the network namespace", true)
                }
                unix::ConfineStage::FileSizeLimit => ("setting the file-size limit", false),
                unix::ConfineStage::NoNewPrivs => ("setting no_new_privs", false),
                unix::ConfineStage::Landlock => ("applying the Landlock ruleset", false),
                unix::ConfineStage::Seccomp => ("installing the seccomp filter", false),
                unix::ConfineStage::Join => ("joining the session's network namespace", false),
                unix::ConfineStage::Pids => ("making the PID namespace and its /proc", true),
            };
            return Err(ExecError::Confine {
                step: format!("{what}: {err}"),
                namespace,
            });
        }
    };
    // The child holds its Landlock domain now: the ruleset is closed
    // while it starts, not at our exit after it.
    drop(plan.confinement.as_mut().and_then(|c| c.ruleset.take()));
    on_start(Started {
        leader: leader.as_raw(),
        first,
    });
    let plan: &ExecPlan = plan;

    let mut streams = vec![Stream::new(out_r, stdout_fd, out_kind)];
    if let Some(r) = err_r {
        streams.push(Stream::new(r, stderr_fd, err_kind));
    }
    if plan.keep_stderr_tail
        && let Some(s) = streams.last_mut()
    {
        // The stderr stream (or the one stream both share).
        s.keep_tail();
    }
    let mut sup = Supervisor {
        tree: Tree::new(leader),
        streams,
        budget: plan.output_limit,
        phase: Phase::Running,
        termination: None,
        deadline: started + plan.timeout,
        plan,
        closed_held_pipes: false,
        escalated_to_kill: false,
        term_signal: Signal::SIGTERM,
    };
    sup.run_loop(&sigfd);
    let status = sup.tree.leader_status;
    sup.tree.reap_all();
    let stdout_bytes = sup.streams.first().map_or(0, |s| s.bytes);
    let stderr_bytes = sup.streams.get(1).map_or(0, |s| s.bytes);
    let stderr_tail = sup
        .streams
        .last_mut()
        .map(Stream::take_tail)
        .unwrap_or_default();
    Ok(Outcome {
        status,
        termination: sup.termination,
        stdout_bytes,
        stderr_bytes,
        duration: started.elapsed(),
        closed_held_pipes: sup.closed_held_pipes,
        escalated_to_kill: sup.escalated_to_kill,
        stderr_tail,
        applied,
    })
}

/// The namespace part of a confinement as the child needs it: strings
/// and flags ready before fork.
struct PreparedNamespace {
    namespace: Option<ReadyNamespace>,
}

struct ReadyNamespace {
    cwd: CString,
    uid_map: CString,
    gid_map: CString,
    read_only: Vec<(CString, libc::c_ulong)>,
    pin: Vec<CString>,
    hide_dirs: Vec<CString>,
    hide_files: Vec<CString>,
    /// `(source, target)` binds: the kept paths, then the replacements.
    keep: Vec<(CString, CString)>,
    keep_read_only: Vec<(CString, libc::c_ulong)>,
    replace: Vec<(CString, CString)>,
    overlay: Vec<(CString, CString)>,
    network_off: bool,
    own_pids: bool,
}

impl PreparedNamespace {
    fn of(c: &Confinement) -> Result<PreparedNamespace, ExecError> {
        let Some(ns) = &c.namespace else {
            return Ok(PreparedNamespace { namespace: None });
        };
        let bad = |what: &str| ExecError::Os(format!("{what} contains NUL"));
        let uid = nix::unistd::geteuid().as_raw();
        let gid = nix::unistd::getegid().as_raw();
        let mut pin = Vec::with_capacity(ns.pin.len());
        for p in &ns.pin {
            pin.push(CString::new(p.as_os_str().as_bytes()).map_err(|_| bad("a pinned path"))?);
        }
        let mut read_only = Vec::with_capacity(ns.read_only.len());
        for p in &ns.read_only {
            let c = CString::new(p.as_os_str().as_bytes()).map_err(|_| bad("a protected path"))?;
            read_only.push((c, kept_mount_flags(p)));
        }
        let c = |p: &std::path::Path| {
            CString::new(p.as_os_str().as_bytes()).map_err(|_| bad("a replaced place"))
        };
        let (mut keep, mut replace) = (Vec::new(), Vec::new());
        let mut keep_read_only = Vec::new();
        for r in &ns.replace {
            for (from, to) in &r.keep {
                keep.push((c(from)?, c(to)?));
                if r.read_only.contains(to) {
                    keep_read_only.push((c(to)?, kept_mount_flags(from)));
                }
            }
            replace.push((c(&r.with)?, c(&r.at)?));
        }
        let mut overlay = Vec::with_capacity(ns.overlay.len());
        for (from, to) in &ns.overlay {
            overlay.push((c(from)?, c(to)?));
        }
        let (mut hide_dirs, mut hide_files) = (Vec::new(), Vec::new());
        for p in &ns.hide {
            let c = CString::new(p.as_os_str().as_bytes()).map_err(|_| bad("a denied path"))?;
            if p.is_dir() {
                hide_dirs.push(c);
            } else {
                hide_files.push(c);
            }
        }
        Ok(PreparedNamespace {
            namespace: Some(ReadyNamespace {
                cwd: std::env::current_dir()
                    .map_err(|e| ExecError::Os(format!("the working directory: {e}")))
                    .and_then(|d| {
                        CString::new(d.as_os_str().as_bytes())
                            .map_err(|_| bad("the working directory"))
                    })?,
                uid_map: CString::new(format!("{uid} {uid} 1")).map_err(|_| bad("uid_map"))?,
                gid_map: CString::new(format!("{gid} {gid} 1")).map_err(|_| bad("gid_map"))?,
                read_only,
                pin,
                hide_dirs,
                hide_files,
                keep,
                keep_read_only,
                replace,
                overlay,
                network_off: ns.network_off,
                own_pids: ns.own_pids,
            }),
        })
    }
}

/// The flags of the mount a path is on that a read-only remount in a user
/// namespace must keep (the kernel refuses to clear them there).
fn kept_mount_flags(p: &std::path::Path) -> libc::c_ulong {
    use nix::sys::statvfs::FsFlags;
    let Ok(st) = nix::sys::statvfs::statvfs(p) else {
        return 0;
    };
    let f = st.flags();
    let mut out: libc::c_ulong = 0;
    for (fs, ms) in [
        (FsFlags::ST_NOSUID, libc::MS_NOSUID),
        (FsFlags::ST_NODEV, libc::MS_NODEV),
        (FsFlags::ST_NOEXEC, libc::MS_NOEXEC),
        (FsFlags::ST_NOATIME, libc::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, libc::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if f.contains(fs) {
            out |= ms;
        }
    }
    out
}

/// Puts a signal mask back when dropped.
struct MaskRestore(SigSet);

impl Drop for MaskRestore {
    fn drop(&mut self) {
        let _ = sigprocmask(SigmaskHow::SIG_SETMASK, Some(&self.0), None);
    }
}

/// A pipe for the child: both ends close-on-exec (dup2 into 0–2 clears
/// it), our read end non-blocking and enlarged.
fn child_pipe() -> Result<(OwnedFd, OwnedFd), nix::errno::Errno> {
    let (r, w) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    fcntl(&r, FcntlArg::F_SETFL(OFlag::O_NONBLOCK))?;
    let _ = fcntl(&r, FcntlArg::F_SETPIPE_SZ(PIPE_BYTES));
    Ok((r, w))
}

/// For a regular file open on both fd 1 and fd 2: are they at the same
/// offset (one open file description dup'd, as `>f 2>&1` makes)?
fn same_offset(a: std::os::fd::BorrowedFd<'_>, b: std::os::fd::BorrowedFd<'_>) -> bool {
    use nix::unistd::{Whence, lseek};
    match (lseek(a, 0, Whence::SeekCur), lseek(b, 0, Whence::SeekCur)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

struct Supervisor<'p> {
    tree: Tree,
    streams: Vec<Stream>,
    budget: u64,
    phase: Phase,
    termination: Option<Termination>,
    deadline: Instant,
    plan: &'p ExecPlan,
    closed_held_pipes: bool,
    escalated_to_kill: bool,
    /// The signal sent when termination started (TERM, or the caller's).
    term_signal: Signal,
}

impl Supervisor<'_> {
    fn run_loop(&mut self, sigfd: &SignalFd) {
        loop {
            let now = Instant::now();
            if self.advance(now) {
                break;
            }
            let wait = self.poll_timeout(now);
            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(3);
            fds.push(PollFd::new(sigfd.as_fd(), PollFlags::POLLIN));
            let mut owners = Vec::with_capacity(2);
            for (i, s) in self.streams.iter().enumerate() {
                if let Some(fd) = s.poll_fd() {
                    fds.push(fd);
                    owners.push(i);
                }
            }
            let timeout = PollTimeout::try_from(wait).unwrap_or(PollTimeout::MAX);
            let ready = nix::poll::poll(&mut fds, timeout);
            let signal_ready =
                matches!(ready, Ok(n) if n > 0) && fds[0].revents().is_some_and(|r| !r.is_empty());
            let stream_ready: Vec<usize> = fds[1..]
                .iter()
                .zip(&owners)
                .filter(|(fd, _)| fd.revents().is_some_and(|r| !r.is_empty()))
                .map(|(_, i)| *i)
                .collect();
            drop(fds);
            if signal_ready {
                self.drain_signals(sigfd);
            }
            for i in stream_ready {
                self.pump(i);
            }
        }
        // Done: move what is already buffered, then close everything.
        for s in &mut self.streams {
            if s.final_drain(&mut self.budget) && self.termination.is_none() {
                self.termination = Some(Termination::OutputLimit);
            }
            s.drop_pending();
        }
    }

    /// Read every pending signal: SIGCHLD updates the tree, the others
    /// cancel.
    fn drain_signals(&mut self, sigfd: &SignalFd) {
        while let Ok(Some(info)) = sigfd.read_signal() {
            let signo = info.ssi_signo as i32;
            if signo == libc::SIGCHLD {
                self.tree.poll_leader();
                // Reap adopted orphans as they exit.
                let _ = self.tree.adopted();
            } else {
                self.cancel(signo);
            }
        }
    }

    fn cancel(&mut self, signo: i32) {
        match self.phase {
            Phase::Running | Phase::Settling { .. } => {
                let sig = Signal::try_from(signo).unwrap_or(Signal::SIGTERM);
                self.start_termination(Termination::Cancelled(signo), sig);
            }
            // A second signal while terminating: no more grace.
            Phase::Terminating { .. } => self.start_killing(),
            Phase::Killing { .. } => {}
        }
    }

    fn start_termination(&mut self, why: Termination, sig: Signal) {
        if self.termination.is_none() {
            self.termination = Some(why);
        }
        if why == Termination::OutputLimit {
            for s in &mut self.streams {
                s.close_source();
            }
        }
        self.tree.signal_all(sig, true);
        self.term_signal = sig;
        self.phase = Phase::Terminating {
            until: Instant::now() + self.plan.grace,
        };
    }

    fn start_killing(&mut self) {
        self.escalated_to_kill = true;
        self.tree.signal_all(Signal::SIGKILL, true);
        self.phase = Phase::Killing {
            since: Instant::now(),
        };
    }

    fn pump(&mut self, i: usize) {
        let Some(stream) = self.streams.get_mut(i) else {
            return;
        };
        match stream.pump(&mut self.budget) {
            Step::Overflow => {
                if matches!(self.phase, Phase::Running | Phase::Settling { .. }) {
                    self.start_termination(Termination::OutputLimit, Signal::SIGTERM);
                } else {
                    for s in &mut self.streams {
                        s.close_source();
                    }
                    if self.termination.is_none() {
                        self.termination = Some(Termination::OutputLimit);
                    }
                }
            }
            Step::DestinationBroken => {
                // Our reader is gone: close our end so the child gets
                // SIGPIPE on its next write, as it would writing directly.
                stream.drop_pending();
                stream.close_source();
            }
            Step::Moved(_) | Step::SourceEmpty | Step::DestinationFull | Step::Eof => {}
        }
    }

    fn streams_done(&self) -> bool {
        self.streams.iter().all(|s| !s.is_active())
    }

    /// Apply deadlines and state changes. Returns true when done.
    fn advance(&mut self, now: Instant) -> bool {
        self.tree.poll_leader();
        match self.phase {
            Phase::Running => {
                if self.tree.leader_status.is_some() {
                    if self.streams_done() {
                        return true;
                    }
                    let left = self.deadline.saturating_duration_since(now);
                    self.phase = Phase::Settling {
                        until: now + self.plan.settle.min(left),
                    };
                    return false;
                }
                if now >= self.deadline {
                    self.start_termination(Termination::TimedOut, Signal::SIGTERM);
                }
                false
            }
            Phase::Settling { until } => {
                if self.streams_done() {
                    return true;
                }
                if now >= until {
                    self.closed_held_pipes = self.streams.iter().any(Stream::source_open);
                    return true;
                }
                false
            }
            Phase::Terminating { until } => {
                let sig = self.term_signal;
                self.tree.signal_all(sig, false);
                if self.tree.leader_status.is_some() && self.tree.adopted().is_empty() {
                    return true;
                }
                if now >= until {
                    self.start_killing();
                }
                false
            }
            Phase::Killing { since } => {
                self.tree.signal_all(Signal::SIGKILL, true);
                if self.tree.leader_status.is_some()
                    && (self.streams.iter().all(|s| !s.source_open()) || now >= since + KILL_DRAIN)
                {
                    return true;
                }
                now >= since + KILL_HARD_CAP
            }
        }
    }

    fn poll_timeout(&self, now: Instant) -> Duration {
        let until = match self.phase {
            Phase::Running => {
                if self.tree.leader_status.is_some() {
                    now
                } else {
                    self.deadline
                }
            }
            Phase::Settling { until } => until,
            Phase::Terminating { until } => until.min(now + RESCAN_TICK),
            Phase::Killing { .. } => now + RESCAN_TICK,
        };
        // Round up so we never wake a hair early and spin.
        until.saturating_duration_since(now) + Duration::from_micros(500)
    }
}
