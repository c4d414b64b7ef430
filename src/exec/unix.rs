//! The only `unsafe` code in automode: fork + execve of the supervised
//! child (and, right before `execve`, its confinement: namespaces and
//! read-only binds, the file-size limit, `PR_SET_NO_NEW_PRIVS` and
//! `landlock_restrict_self`), the raw syscalls the supervisor needs that
//! have no safe wrapper (signal dispositions, `splice`, `pwritev2`, the
//! Landlock ABI probe), and dying by a signal.
//!
//! Everything here is a thin wrapper with a `// SAFETY:` note; the policy
//! of what to call when lives in `exec/mod.rs`.
#![allow(unsafe_code)]

use std::ffi::{CString, c_char, c_int};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU32, Ordering};

/// Whether our caller had SIGPIPE ignored, read before Rust's runtime sets
/// it to SIG_IGN for every program.
static SIGPIPE_IGNORED_BY_CALLER: AtomicBool = AtomicBool::new(false);

extern "C" fn capture_sigpipe_disposition() {
    // SAFETY: sigaction with a null new action only reads the current
    // disposition into `old`, which is a valid, zeroed sigaction struct.
    // It runs from .init_array, single-threaded, before main.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0 {
            SIGPIPE_IGNORED_BY_CALLER.store(old.sa_sigaction == libc::SIG_IGN, Ordering::Relaxed);
        }
    }
    let mut ignored = 0u8;
    for (bit, sig) in LIBC_INTERNAL_SIGNALS.iter().enumerate() {
        if raw_signal_ignored(*sig) {
            ignored |= 1 << bit;
        }
    }
    INTERNAL_IGNORED_BY_CALLER.store(ignored, Ordering::Relaxed);
}

/// The signals glibc keeps for itself (SIGCANCEL, SIGSETXID): it gives
/// them handlers once a thread is started, and those would reach the
/// child as "default" where our caller had them ignored. The child puts
/// the caller's SIG_IGN back, with the raw syscall (glibc refuses these
/// numbers).
const LIBC_INTERNAL_SIGNALS: [c_int; 2] = [32, 33];

/// Bit i: `LIBC_INTERNAL_SIGNALS[i]` was ignored by our caller.
static INTERNAL_IGNORED_BY_CALLER: std::sync::atomic::AtomicU8 =
    std::sync::atomic::AtomicU8::new(0);

/// The kernel's `struct sigaction` (x86_64 and aarch64 both have
/// `sa_restorer`).
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: libc::c_ulong,
    restorer: usize,
    mask: u64,
}

/// Is `sig` ignored, asked of the kernel directly?
fn raw_signal_ignored(sig: c_int) -> bool {
    let mut old = KernelSigaction {
        handler: 0,
        flags: 0,
        restorer: 0,
        mask: 0,
    };
    // SAFETY: rt_sigaction with a null new action only writes the current
    // disposition into `old`, a valid struct of the kernel's layout; 8 is
    // the kernel's sigset size.
    let r = unsafe {
        libc::syscall(
            libc::SYS_rt_sigaction,
            sig,
            std::ptr::null::<KernelSigaction>(),
            &raw mut old,
            8usize,
        )
    };
    r == 0 && old.handler == libc::SIG_IGN
}

/// Runs `capture_sigpipe_disposition` before Rust's runtime touches SIGPIPE
/// (the uutils approach).
#[used]
#[unsafe(link_section = ".init_array")]
static CAPTURE_SIGPIPE: extern "C" fn() = capture_sigpipe_disposition;

/// Did our caller start us with SIGPIPE ignored?
pub(crate) fn caller_ignored_sigpipe() -> bool {
    SIGPIPE_IGNORED_BY_CALLER.load(Ordering::Relaxed)
}

/// Is `sig` currently ignored (SIG_IGN)?
pub(crate) fn signal_is_ignored(sig: c_int) -> bool {
    // SAFETY: a null new action makes sigaction a pure query into `old`.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Give SIGCHLD its default disposition: a caller that set it to SIG_IGN
/// would otherwise have our children reaped automatically, and we could
/// never read the leader's status.
pub(crate) fn reset_sigchld() {
    // SAFETY: setting one disposition to SIG_DFL has no preconditions.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
    }
}

/// Make sure fds 0, 1 and 2 are open, so that pipes we create later never
/// take those numbers (a closed stdout would otherwise receive our pipe).
pub(crate) fn ensure_standard_fds() {
    for fd in 0..3 {
        // SAFETY: F_GETFD on any integer is harmless; it only reports EBADF.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        if closed {
            // SAFETY: open with a static NUL-terminated path; the lowest free
            // descriptor is `fd` because lower ones are open. We keep it open
            // for the life of the process on purpose (not an OwnedFd).
            unsafe {
                libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            }
        }
    }
}

/// The standard descriptor `fd` (0, 1 or 2), borrowed for the process
/// lifetime. `ensure_standard_fds` has made sure it is open.
pub(crate) fn std_fd(fd: RawFd) -> BorrowedFd<'static> {
    debug_assert!((0..3).contains(&fd));
    // SAFETY: fds 0-2 stay open for the whole process (ensure_standard_fds
    // opened /dev/null on any that were closed, and we never close them).
    unsafe { BorrowedFd::borrow_raw(fd) }
}

/// Where to write the child's pid into its environment after fork: the
/// index of the env string and the byte offset of a run of placeholder
/// digits that the child overwrites with its own pid.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PidSlot {
    pub env_index: usize,
    pub offset: usize,
    pub width: usize,
}

/// The child's confinement, prepared before fork (every string and struct
/// ready, nothing left to allocate), applied in this order right before
/// `execve`.
#[derive(Debug)]
pub(crate) struct ChildConfinement<'a> {
    /// A new user + mount (+ network) namespace with these binds.
    pub namespace: Option<ChildNamespace<'a>>,
    /// `RLIMIT_FSIZE` (soft and hard).
    pub max_file_bytes: Option<u64>,
    /// The Landlock ruleset to restrict the child with (after
    /// `PR_SET_NO_NEW_PRIVS`).
    pub ruleset: Option<RawFd>,
    /// A seccomp filter (its instructions live as long as the process).
    pub seccomp: Option<libc::sock_fprog>,
    /// The user and network namespaces to join first.
    pub join: Option<(RawFd, RawFd)>,
    /// The session's filter makes the command's TCP connections.
    pub connects: Option<ChildConnects>,
}

/// How the session's filter makes a command's connections: the seccomp
/// filter stops every IP `connect` for it (installed with a listener, which
/// goes to the filter over `socket`), and a Landlock layer that handles
/// TCP connects and allows none keeps the command from making any
/// itself.
#[derive(Debug)]
pub(crate) struct ChildConnects {
    /// A UNIX socket connected to the session's filter.
    pub socket: RawFd,
    /// The Landlock ruleset that refuses every TCP connect.
    pub ruleset: RawFd,
}

/// A private mount namespace in a new user namespace.
#[derive(Debug)]
pub(crate) struct ChildNamespace<'a> {
    /// The working directory, entered again by its path once everything
    /// is mounted: the one inherited is the directory under the binds
    /// (a project under the home's view), where a relative path would
    /// miss them (`.git/hooks` bound read-only).
    pub cwd: &'a CString,
    /// `"<uid> <uid> 1"`, `"<gid> <gid> 1"`: the same ids inside.
    pub uid_map: &'a CString,
    pub gid_map: &'a CString,
    /// Paths bound read-only onto themselves, with the mount flags their
    /// mount already has (a user namespace may not clear them).
    pub read_only: &'a [(CString, libc::c_ulong)],
    /// Paths bound onto themselves, writable, before the read-only ones.
    pub pin: &'a [CString],
    /// Directories covered by an empty read-only tmpfs, and files by
    /// `/dev/null` (denied reads).
    pub hide_dirs: &'a [CString],
    pub hide_files: &'a [CString],
    /// `(source, target)`: paths bound into the replacing directories,
    /// then the replacing directories bound over the places they
    /// replace (both recursive, before the other mounts).
    pub keep: &'a [(CString, CString)],
    /// Kept mount points remounted read-only (with the flags their mount
    /// must keep), before the replacing directories are bound.
    pub keep_read_only: &'a [(CString, libc::c_ulong)],
    pub replace: &'a [(CString, CString)],
    /// `(source, target)`: files bound over others, before the covers.
    pub overlay: &'a [(CString, CString)],
    /// Also a new network namespace, with its loopback brought up.
    pub network_off: bool,
    /// Also a new PID namespace: the command's processes see only each
    /// other (`pid_init` is its first process).
    pub own_pids: bool,
}

/// Where confinement failed in the child, for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfineStage {
    UserNamespace,
    IdMap,
    Mounts,
    Loopback,
    FileSizeLimit,
    NoNewPrivs,
    Landlock,
    Seccomp,
    Join,
    Pids,
}

impl ConfineStage {
    const ALL: [ConfineStage; 10] = [
        ConfineStage::UserNamespace,
        ConfineStage::IdMap,
        ConfineStage::Mounts,
        ConfineStage::Loopback,
        ConfineStage::FileSizeLimit,
        ConfineStage::NoNewPrivs,
        ConfineStage::Landlock,
        ConfineStage::Seccomp,
        ConfineStage::Join,
        ConfineStage::Pids,
    ];

    fn code(self) -> i32 {
        self as i32 + 1
    }

    fn of(code: i32) -> Option<ConfineStage> {
        ConfineStage::ALL.into_iter().find(|s| s.code() == code)
    }
}

/// The confinement steps the child reports as done (bits of
/// `Applied`), each set only once its system calls succeeded.
pub(crate) mod applied {
    /// A new user and mount namespace, ids mapped, `/` made private.
    pub(crate) const NAMESPACE: u32 = 1;
    /// Every read-only bind and every cover mounted.
    pub(crate) const MOUNTS: u32 = 1 << 1;
    /// A new network namespace with loopback up.
    pub(crate) const NETWORK: u32 = 1 << 2;
    /// `RLIMIT_FSIZE` set.
    pub(crate) const FILE_SIZE: u32 = 1 << 3;
    /// `PR_SET_NO_NEW_PRIVS` set.
    pub(crate) const NO_NEW_PRIVS: u32 = 1 << 4;
    /// `landlock_restrict_self` succeeded.
    pub(crate) const LANDLOCK: u32 = 1 << 5;
    /// The seccomp filter installed.
    pub(crate) const SECCOMP: u32 = 1 << 6;
    /// The session's user and network namespaces joined.
    pub(crate) const JOINED: u32 = 1 << 7;
    /// In a PID namespace (the session's or its own), with its `/proc`.
    pub(crate) const PIDS: u32 = 1 << 8;
    /// Its connects stopped for the session's filter, which has the
    /// listener, and refused to the command itself by Landlock.
    pub(crate) const CONNECTS: u32 = 1 << 9;
    /// Started from a child made ahead (`Ahead`).
    pub(crate) const AHEAD: u32 = 1 << 10;
    /// Every capability but the kept ones dropped (`drop_capabilities`).
    pub(crate) const CAPABILITIES: u32 = 1 << 11;
}

/// What the child needs, prepared before fork so the child only makes raw
/// syscalls.
#[derive(Debug)]
pub(crate) struct SpawnRequest<'a> {
    pub program: &'a CString,
    pub argv: &'a [CString],
    pub env: Vec<Vec<u8>>,
    pub pid_slot: Option<PidSlot>,
    pub stdin: BorrowedFd<'a>,
    pub stdout: BorrowedFd<'a>,
    pub stderr: BorrowedFd<'a>,
    /// Restore SIGPIPE to SIG_DFL in the child (unless our caller ignored it).
    pub sigpipe_default: bool,
    pub confinement: ChildConfinement<'a>,
    /// A child made ahead to start the command from, where it fits.
    pub ahead: Option<&'a mut Ahead>,
}

/// Why the child could not be started.
#[derive(Debug)]
pub(crate) enum SpawnError {
    /// fork or pipe failed in the parent.
    Os(io::Error),
    /// execve failed in the child with this errno.
    Exec(i32),
    /// Confining the child failed at this stage with this errno; nothing
    /// ran.
    Confine(ConfineStage, i32),
}

/// Stack for the child between clone and execve: it makes a dozen raw
/// syscalls, so a few KiB would do.
const CHILD_STACK_BYTES: usize = 64 * 1024;

/// Start the child with the child in a new session, PDEATHSIG, the given
/// stdio, an empty signal mask, and SIGPIPE restored. Returns the child's
/// pid once execve has succeeded, which also guarantees that the child's
/// `setsid` has happened.
///
/// The child is made with `clone(CLONE_VM | CLONE_VFORK)`, as
/// `posix_spawn` does (which we cannot use: it has no PDEATHSIG and cannot
/// write the child's pid into its environment): it runs on its own small
/// stack in our address space, and we are suspended until it has called
/// execve or exited. Nothing is copied, where a `fork` of this process
/// copied its page tables and then took copy-on-write faults (~0.2 ms per
/// command). An execve error comes back through memory we share.
pub(crate) fn spawn(req: SpawnRequest<'_>) -> Result<Spawned, SpawnError> {
    let mut env = req.env;
    for entry in &mut env {
        entry.push(0);
    }
    let argv_ptrs: Vec<*const c_char> = req
        .argv
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let mut env_ptrs: Vec<*mut c_char> = env
        .iter_mut()
        .map(|e| e.as_mut_ptr().cast::<c_char>())
        .chain(std::iter::once(std::ptr::null_mut()))
        .collect();
    let pid_slot_ptr: Option<(*mut u8, usize)> = req.pid_slot.and_then(|slot| {
        let entry = env.get_mut(slot.env_index)?;
        if slot.offset + slot.width > entry.len() {
            return None;
        }
        Some((entry[slot.offset..].as_mut_ptr(), slot.width))
    });
    let exec_errno = AtomicI32::new(0);
    let confine_stage = AtomicI32::new(0);
    let applied = AtomicU32::new(0);
    let grandchild = AtomicI32::new(0);
    let first = AtomicI32::new(0);
    // Two stacks: the child's, and (in a PID namespace) the process it
    // starts the command in.
    let mut stack: Vec<std::mem::MaybeUninit<u8>> = Vec::with_capacity(2 * CHILD_STACK_BYTES);
    // The stacks grow down from their ends, 16-byte aligned as the ABI
    // wants.
    let aligned = |end: *mut std::mem::MaybeUninit<u8>| end.wrapping_sub(end.addr() % 16);
    let top = aligned(stack.as_mut_ptr().wrapping_add(2 * CHILD_STACK_BYTES));
    let pid_top = aligned(stack.as_mut_ptr().wrapping_add(CHILD_STACK_BYTES));
    let mut child = ChildFds {
        stdin: req.stdin.as_raw_fd(),
        stdout: req.stdout.as_raw_fd(),
        stderr: req.stderr.as_raw_fd(),
        exec_errno: &exec_errno,
        // SAFETY: getpid has no preconditions.
        parent: unsafe { libc::getpid() },
        sigpipe_default: req.sigpipe_default,
        program: req.program.as_ptr(),
        argv: argv_ptrs.as_ptr(),
        envp: env_ptrs.as_mut_ptr(),
        pid_slot: pid_slot_ptr,
        confine_stage: &confine_stage,
        applied: &applied,
        confinement: &req.confinement,
        loopback: loopback_request(),
        grandchild: &grandchild,
        first: &first,
        pid_stack: pid_top.cast(),
        init_stack: if req
            .confinement
            .namespace
            .as_ref()
            .is_some_and(|n| n.own_pids)
        {
            let leaked: &'static mut [std::mem::MaybeUninit<u8>] =
                Box::leak(Box::new_uninit_slice(INIT_STACK_BYTES));
            aligned(leaked.as_mut_ptr().wrapping_add(INIT_STACK_BYTES)).cast()
        } else {
            std::ptr::null_mut()
        },
        ahead: false,
    };
    // (The stacks are left uninitialised: the child writes its frames
    // before it reads them, and zeroing 64 KiB cost a page fault for each
    // of its 16 pages; the child touches one or two.)

    let ahead = req
        .ahead
        .filter(|a| a.fits(&req.confinement))
        .filter(|a| a.ready());
    if ahead.is_some() {
        crate::timing::mark("ahead-ready");
    }
    let mut from_ahead = None;
    if let Some(a) = ahead {
        // Hand the command to the child made ahead and wait until it has
        // started it (or failed), as CLONE_VFORK would.
        child.ahead = true;
        a.used = true;
        applied.store(applied::AHEAD, Ordering::SeqCst);
        a.shared
            .request
            .store((&raw mut child).cast(), Ordering::SeqCst);
        a.shared.go.store(AHEAD_GO, Ordering::SeqCst);
        futex_wake(&a.shared.go);
        let _ = reap(a.pid);
        let silent = grandchild.load(Ordering::SeqCst) == 0
            && exec_errno.load(Ordering::SeqCst) == 0
            && confine_stage.load(Ordering::SeqCst) == 0;
        if silent {
            // It ended without starting the command or saying why
            // (killed): nothing ran; start it the ordinary way.
            child.ahead = false;
            applied.store(0, Ordering::SeqCst);
        } else {
            from_ahead = Some((a.pid, true));
        }
    }
    let (pid, reaped) = if let Some(started) = from_ahead {
        started
    } else {
        // SAFETY: automode is single-threaded when it spawns (the
        // analysis thread has been joined). With CLONE_VFORK we stay
        // suspended until the child has called execve or exited, so
        // `child`, `stack`, the argv and env buffers and `exec_errno`
        // outlive every use the child makes of them; the child only makes
        // async-signal-safe syscalls on them.
        let pid = unsafe {
            libc::clone(
                child_entry,
                top.cast(),
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                (&raw mut child).cast(),
            )
        };
        if pid < 0 {
            return Err(SpawnError::Os(io::Error::last_os_error()));
        }
        (pid, false)
    };
    drop(stack);
    let errno = exec_errno.load(Ordering::SeqCst);
    let started = grandchild.load(Ordering::SeqCst);
    if started > 0 {
        // The child started the command in a PID namespace as our own
        // child (CLONE_PARENT) and exited: reap it; the command is the
        // one we supervise.
        if !reaped {
            let _ = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(pid), None);
        }
        if errno != 0 {
            let _ = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(started), None);
            if let Some(stage) = ConfineStage::of(confine_stage.load(Ordering::SeqCst)) {
                return Err(SpawnError::Confine(stage, errno));
            }
            return Err(SpawnError::Exec(errno));
        }
        return Ok(Spawned {
            pid: started,
            applied: applied.load(Ordering::SeqCst),
            first: first.load(Ordering::SeqCst),
        });
    }
    if errno != 0 {
        // Reap the failed child: it has already exited.
        if !reaped {
            let _ = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(pid), None);
        }
        if let Some(stage) = ConfineStage::of(confine_stage.load(Ordering::SeqCst)) {
            return Err(SpawnError::Confine(stage, errno));
        }
        return Err(SpawnError::Exec(errno));
    }
    Ok(Spawned {
        pid,
        applied: applied.load(Ordering::SeqCst),
        first: first.load(Ordering::SeqCst),
    })
}

/// A started command: its pid, the confinement steps its child reported
/// (`applied`), and its PID namespace's first process (0: none).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spawned {
    pub pid: libc::pid_t,
    pub applied: u32,
    pub first: libc::pid_t,
}

/// A child started before the verdict, while the supervisor goes on
/// deciding: it takes the confinement steps that are the same for every
/// command of the session (joining its user and network namespaces,
/// making its own mount and PID namespaces, `no_new_privs`, the seccomp
/// filter with its listener sent to the session's filter), then waits.
/// `spawn` hands it the command; dropped unused, it ends. It shares our
/// memory and our descriptors (`CLONE_VM | CLONE_FILES`) until it is
/// handed the command, then copies the descriptor table; while we run
/// beside it, it makes only bare system calls on its own stack and on
/// `AheadShared`, which is never freed.
pub(crate) struct Ahead {
    pid: libc::pid_t,
    shared: &'static AheadShared,
    /// `spawn` started the command from it (and reaped it).
    used: bool,
}

impl std::fmt::Debug for Ahead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ahead")
            .field("pid", &self.pid)
            .field("used", &self.used)
            .finish()
    }
}

/// What a child made ahead and the supervisor share.
struct AheadShared {
    /// `AHEAD_WAIT`, then `AHEAD_GO` (with `request` set) or `AHEAD_END`.
    go: AtomicU32,
    /// The `ChildFds` of the command, set before `AHEAD_GO`.
    request: AtomicPtr<libc::c_void>,
    /// `AHEAD_WORKING`, then `AHEAD_READY` or `AHEAD_FAILED`.
    ready: AtomicU32,
    parent: libc::pid_t,
    user: RawFd,
    net: RawFd,
    filter: libc::sock_fprog,
    /// Where the filter's listener goes (the session's filter).
    listener_to: RawFd,
}

const AHEAD_WAIT: u32 = 0;
const AHEAD_GO: u32 = 1;
const AHEAD_END: u32 = 2;
const AHEAD_WORKING: u32 = 0;
const AHEAD_READY: u32 = 1;
const AHEAD_FAILED: u32 = 2;

/// Start a child ahead (see `Ahead`). The descriptors must stay open
/// while the `Ahead` lives; `filter` is the seccomp program a command
/// would install, stopping `connect` for the filter at `listener_to`.
pub(crate) fn start_ahead(
    user: BorrowedFd<'_>,
    net: BorrowedFd<'_>,
    filter: &'static [libc::sock_filter],
    listener_to: BorrowedFd<'_>,
) -> io::Result<Ahead> {
    let len = u16::try_from(filter.len()).map_err(|_| io::Error::other("filter too long"))?;
    reset_sigchld();
    // Nothing in the session's namespaces may read our memory through the
    // child (it shares it).
    let _ = nix::sys::prctl::set_dumpable(false);
    let shared: &'static AheadShared = Box::leak(Box::new(AheadShared {
        go: AtomicU32::new(AHEAD_WAIT),
        request: AtomicPtr::new(std::ptr::null_mut()),
        ready: AtomicU32::new(AHEAD_WORKING),
        // SAFETY: getpid has no preconditions.
        parent: unsafe { libc::getpid() },
        user: user.as_raw_fd(),
        net: net.as_raw_fd(),
        filter: libc::sock_fprog {
            len,
            filter: filter.as_ptr().cast_mut(),
        },
        listener_to: listener_to.as_raw_fd(),
    }));
    // Its stack outlives this call (the child runs on it while we go on):
    // never freed, 64 KiB a command.
    let stack: &'static mut [std::mem::MaybeUninit<u8>] =
        Box::leak(Box::new_uninit_slice(CHILD_STACK_BYTES));
    let end = stack.as_mut_ptr().wrapping_add(CHILD_STACK_BYTES);
    let top = end.wrapping_sub(end.addr() % 16);
    // SAFETY: the child runs `ahead_entry` on its own stack and touches
    // only `shared` (leaked, atomics and plain values) with bare system
    // calls until we hand it a request and wait for it (`spawn`).
    let pid = unsafe {
        libc::clone(
            ahead_entry,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_FILES | libc::SIGCHLD,
            std::ptr::from_ref(shared).cast_mut().cast(),
        )
    };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Ahead {
        pid,
        shared,
        used: false,
    })
}

impl Ahead {
    /// Wait until its steps are done: true when all succeeded.
    fn ready(&self) -> bool {
        loop {
            let state = self.shared.ready.load(Ordering::SeqCst);
            if state != AHEAD_WORKING {
                return state == AHEAD_READY;
            }
            futex_wait(&self.shared.ready, AHEAD_WORKING);
        }
    }

    /// Can the command with this confinement start from it? Only one
    /// that joins the session's wall, has its own PID namespace and the
    /// same filter stopping `connect`.
    fn fits(&self, conf: &ChildConfinement<'_>) -> bool {
        conf.join.is_some()
            && conf.connects.is_some()
            && conf
                .namespace
                .as_ref()
                .is_some_and(|n| n.own_pids && !n.network_off)
            && conf.seccomp.is_some_and(|p| {
                p.len == self.shared.filter.len && std::ptr::eq(p.filter, self.shared.filter.filter)
            })
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        if self.used {
            return;
        }
        self.shared.go.store(AHEAD_END, Ordering::SeqCst);
        futex_wake(&self.shared.go);
        let _ = reap(self.pid);
    }
}

/// Wait for `pid` to end and reap it (through `EINTR`).
fn reap(pid: libc::pid_t) -> nix::Result<nix::sys::wait::WaitStatus> {
    loop {
        match nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(pid), None) {
            Err(nix::errno::Errno::EINTR) => {}
            other => return other,
        }
    }
}

/// Sleep while `word` holds `value` (or until woken).
fn futex_wait(word: &AtomicU32, value: u32) {
    // SAFETY: FUTEX_WAIT on a valid, aligned word of memory we share with
    // the child; a bare call, safe in the child too.
    unsafe {
        bare_syscall(
            libc::SYS_futex,
            word.as_ptr() as usize,
            libc::FUTEX_WAIT as usize,
            value as usize,
            0,
        );
    }
}

/// Wake whoever sleeps on `word`.
fn futex_wake(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE on a valid, aligned word; a bare call.
    unsafe {
        bare_syscall(
            libc::SYS_futex,
            word.as_ptr() as usize,
            libc::FUTEX_WAKE as usize,
            i32::MAX as usize,
            0,
        );
    }
}

/// Where a child made ahead starts, on its own stack.
extern "C" fn ahead_entry(arg: *mut libc::c_void) -> c_int {
    // SAFETY: `arg` is the leaked `AheadShared` `start_ahead` passed.
    let s = unsafe { &*arg.cast::<AheadShared>() };
    // SAFETY: bare system calls on `s` and our stack while the supervisor
    // runs on; after `AHEAD_GO` it waits for us (as with CLONE_VFORK) and
    // `request` points to its live `ChildFds`.
    unsafe {
        let ok = ahead_steps(s);
        s.ready.store(
            if ok { AHEAD_READY } else { AHEAD_FAILED },
            Ordering::SeqCst,
        );
        futex_wake(&s.ready);
        if !ok {
            bare_syscall(libc::SYS_exit, 0, 0, 0, 0);
        }
        let mut go = s.go.load(Ordering::SeqCst);
        while go == AHEAD_WAIT {
            futex_wait(&s.go, AHEAD_WAIT);
            go = s.go.load(Ordering::SeqCst);
        }
        if go != AHEAD_GO {
            bare_syscall(libc::SYS_exit, 0, 0, 0, 0);
        }
        let c = &*s.request.load(Ordering::SeqCst).cast::<ChildFds>();
        // From here on as a vfork child: the descriptors are ours alone.
        if libc::unshare(libc::CLONE_FILES) != 0 {
            child_fail(c.exec_errno);
        }
        child_streams(c);
        confine(c);
        unblock_and_exec(c)
    }
}

/// The steps a child made ahead takes before it waits, in bare system
/// calls; false at the first that fails (the supervisor then starts the
/// command the ordinary way, which reports it).
///
/// # Safety
/// Only in the child `start_ahead` made.
unsafe fn ahead_steps(s: &AheadShared) -> bool {
    // SAFETY: bare system calls on `s`'s values and static strings.
    unsafe {
        if own_session(s.parent) != 0
            || bare_syscall(
                libc::SYS_setns,
                s.user as usize,
                libc::CLONE_NEWUSER as usize,
                0,
                0,
            ) != 0
            || bare_syscall(
                libc::SYS_setns,
                s.net as usize,
                libc::CLONE_NEWNET as usize,
                0,
                0,
            ) != 0
            || bare_syscall(
                libc::SYS_unshare,
                (libc::CLONE_NEWNS | libc::CLONE_NEWPID) as usize,
                0,
                0,
                0,
            ) != 0
            || bare_syscall5(
                libc::SYS_mount,
                0,
                c"/".as_ptr() as usize,
                0,
                (libc::MS_REC | libc::MS_PRIVATE) as usize,
                0,
            ) != 0
            || bare_syscall5(
                libc::SYS_prctl,
                libc::PR_SET_NO_NEW_PRIVS as usize,
                1,
                0,
                0,
                0,
            ) != 0
        {
            return false;
        }
        // As `confine_process` installs it (SPEC_ALLOW: see there).
        let listener = bare_syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER as usize,
            (libc::SECCOMP_FILTER_FLAG_SPEC_ALLOW | libc::SECCOMP_FILTER_FLAG_NEW_LISTENER)
                as usize,
            (&raw const s.filter) as usize,
            0,
        );
        if listener < 0 {
            return false;
        }
        let sent = send_one_fd(s.listener_to, listener as c_int);
        bare_syscall(libc::SYS_close, listener as usize, 0, 0, 0);
        sent
    }
}

/// Where the cloned child starts, on its own stack.
extern "C" fn child_entry(arg: *mut libc::c_void) -> c_int {
    // SAFETY: `arg` is the `ChildFds` that `spawn` passed to clone and
    // keeps alive while it is suspended (CLONE_VFORK).
    unsafe { child_after_fork(&*arg.cast::<ChildFds>()) }
}

struct ChildFds<'a> {
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    /// Where the child puts execve's errno (0: it never returned).
    exec_errno: &'a AtomicI32,
    parent: libc::pid_t,
    sigpipe_default: bool,
    program: *const c_char,
    argv: *const *const c_char,
    envp: *mut *mut c_char,
    pid_slot: Option<(*mut u8, usize)>,
    /// Which confinement step failed (0: none).
    confine_stage: &'a AtomicI32,
    /// The confinement steps done (`applied::*` bits).
    applied: &'a AtomicU32,
    confinement: &'a ChildConfinement<'a>,
    /// `SIOCSIFFLAGS` for `lo`, prepared.
    loopback: libc::ifreq,
    /// The command's pid where the child started it in a PID namespace
    /// (0: the child is the command).
    grandchild: &'a AtomicI32,
    /// That namespace's first process's pid (0: none).
    first: &'a AtomicI32,
    /// The top of the stack for that process.
    pid_stack: *mut libc::c_void,
    /// The top of the stack of the PID namespace's first process (never
    /// freed: it outlives us while the command's processes run).
    init_stack: *mut libc::c_void,
    /// A child made ahead runs this: it has joined the session's
    /// namespaces, made its mount and PID namespaces, and installed the
    /// seccomp filter (with `no_new_privs`) already.
    ahead: bool,
}

/// The `ifreq` that brings `lo` up.
fn loopback_request() -> libc::ifreq {
    // SAFETY: ifreq is a plain C struct (a name array and a union of
    // plain fields); all-zero is a valid value.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (i, b) in b"lo".iter().enumerate() {
        req.ifr_name[i] = *b as c_char;
    }
    req.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_LOOPBACK | libc::IFF_RUNNING) as i16;
    req
}

/// The child between clone and execve. Never returns.
///
/// # Safety
/// Must only be called in a child cloned with CLONE_VM | CLONE_VFORK from
/// a single-threaded parent; all pointers must be valid and NUL-terminated
/// as execve needs.
unsafe fn child_after_fork(c: &ChildFds<'_>) -> ! {
    // SAFETY: each call below is an async-signal-safe syscall on valid
    // arguments; the caller guarantees the pointers. Signal dispositions
    // are the child's own (no CLONE_SIGHAND).
    unsafe {
        let started = own_session(c.parent);
        if started < 0 {
            c.exec_errno.store(-started as i32, Ordering::SeqCst);
            libc::_exit(127);
        }
        child_streams(c);
        confine(c);
        unblock_and_exec(c)
    }
}

/// The child's first steps, in bare system calls (a child made ahead
/// takes them while we run on): SIGSEGV and SIGBUS back to their default,
/// its own session, SIGKILL when `parent` ends. Returns 0 or `-errno`;
/// ends the child if the parent already ended.
///
/// # Safety
/// Only in a cloned child.
unsafe fn own_session(parent: libc::pid_t) -> isize {
    // SAFETY: system calls on our own stack values.
    unsafe {
        // Rust's runtime handles SIGSEGV/SIGBUS for stack overflows; in a
        // child sharing our memory, a fault must just end the child.
        let dfl = KernelSigaction {
            handler: libc::SIG_DFL,
            flags: 0,
            restorer: 0,
            mask: 0,
        };
        for sig in [libc::SIGSEGV, libc::SIGBUS] {
            bare_syscall(
                libc::SYS_rt_sigaction,
                sig as usize,
                (&raw const dfl) as usize,
                0,
                8,
            );
        }
        let sid = bare_syscall(libc::SYS_setsid, 0, 0, 0, 0);
        if sid < 0 {
            return sid;
        }
        bare_syscall(
            libc::SYS_prctl,
            libc::PR_SET_PDEATHSIG as usize,
            libc::SIGKILL as usize,
            0,
            0,
        );
        if bare_syscall(libc::SYS_getppid, 0, 0, 0, 0) != parent as isize {
            // Our parent died before PDEATHSIG was armed.
            bare_syscall(libc::SYS_exit, 125, 0, 0, 0);
        }
        0
    }
}

/// The child's pid where its environment wants it, its standard streams,
/// SIGPIPE and the C library's internal signals as our caller had them.
///
/// # Safety
/// Only in the cloned child, with its own descriptor table.
unsafe fn child_streams(c: &ChildFds<'_>) {
    // SAFETY: as for `child_after_fork`.
    unsafe {
        if let Some((ptr, width)) = c.pid_slot {
            write_decimal(ptr, width, libc::getpid());
        }
        for (from, to) in [(c.stdin, 0), (c.stdout, 1), (c.stderr, 2)] {
            if from == to {
                // dup2 to itself would keep FD_CLOEXEC; clear it instead.
                let flags = libc::fcntl(to, libc::F_GETFD);
                if flags < 0 || libc::fcntl(to, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                    child_fail(c.exec_errno);
                }
            } else if libc::dup2(from, to) < 0 {
                child_fail(c.exec_errno);
            }
        }
        if c.sigpipe_default {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
        let ignored = INTERNAL_IGNORED_BY_CALLER.load(Ordering::Relaxed);
        for (bit, sig) in LIBC_INTERNAL_SIGNALS.iter().enumerate() {
            if ignored & (1 << bit) != 0 {
                let ign = KernelSigaction {
                    handler: libc::SIG_IGN,
                    flags: 0,
                    restorer: 0,
                    mask: 0,
                };
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    *sig,
                    &raw const ign,
                    std::ptr::null_mut::<KernelSigaction>(),
                    8usize,
                );
            }
        }
    }
}

/// The last step of the child (or of the command's process in its PID
/// namespace): every signal unblocked, then `execve`; never returns.
///
/// # Safety
/// Only in the cloned child; `c` is valid.
unsafe fn unblock_and_exec(c: &ChildFds<'_>) -> ! {
    // SAFETY: plain syscalls on prepared, NUL-terminated values.
    unsafe {
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::execve(c.program, c.argv, c.envp.cast::<*const c_char>());
        child_fail(c.exec_errno)
    }
}

/// Confine the child, last thing before `execve`: namespaces and binds
/// (they need the privileges Landlock then takes away), the file-size
/// limit, no new privileges, Landlock. Any failure ends the child before
/// anything ran, with the stage reported.
///
/// # Safety
/// Only in the cloned child; `c` and everything it points to is valid.
unsafe fn confine(c: &ChildFds<'_>) {
    let fail = |stage: ConfineStage| -> ! {
        c.confine_stage.store(stage.code(), Ordering::SeqCst);
        // SAFETY: in the cloned child.
        unsafe { child_fail(c.exec_errno) }
    };
    let conf = c.confinement;
    let done = |step: u32| {
        c.applied.fetch_or(step, Ordering::SeqCst);
    };
    // SAFETY: raw syscalls on prepared, NUL-terminated strings and
    // plain structs; nothing allocates or takes a lock.
    unsafe {
        if c.ahead {
            done(applied::JOINED | applied::NAMESPACE);
        } else if let Some((user, net)) = conf.join {
            if libc::setns(user, libc::CLONE_NEWUSER) != 0
                || libc::setns(net, libc::CLONE_NEWNET) != 0
            {
                fail(ConfineStage::Join);
            }
            done(applied::JOINED);
        }
        if let Some(ns) = &conf.namespace {
            // Joined: the user namespace is the session's (ids mapped);
            // only the mount namespace is the command's own.
            let mut flags = match (conf.join.is_some(), ns.network_off) {
                (true, _) => libc::CLONE_NEWNS,
                (false, false) => libc::CLONE_NEWUSER | libc::CLONE_NEWNS,
                (false, true) => libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET,
            };
            if ns.own_pids {
                flags |= libc::CLONE_NEWPID;
            }
            if !c.ahead {
                if libc::unshare(flags) != 0 {
                    fail(ConfineStage::UserNamespace);
                }
                if conf.join.is_none()
                    && (!write_all(c"/proc/self/setgroups", b"deny")
                        || !write_all(c"/proc/self/uid_map", ns.uid_map.as_bytes())
                        || !write_all(c"/proc/self/gid_map", ns.gid_map.as_bytes()))
                {
                    fail(ConfineStage::IdMap);
                }
                if libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) != 0
                {
                    fail(ConfineStage::Mounts);
                }
            }
            done(applied::NAMESPACE);
            let bind = |from: &CString, to: &CString| {
                libc::mount(
                    from.as_ptr(),
                    to.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ) == 0
            };
            for (from, to) in ns.keep {
                if !bind(from, to) {
                    fail(ConfineStage::Mounts);
                }
            }
            for (to, kept) in ns.keep_read_only {
                if libc::mount(
                    std::ptr::null(),
                    to.as_ptr(),
                    std::ptr::null(),
                    libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | kept,
                    std::ptr::null(),
                ) != 0
                {
                    fail(ConfineStage::Mounts);
                }
            }
            for (from, to) in ns.replace {
                if !bind(from, to) {
                    fail(ConfineStage::Mounts);
                }
            }
            for path in ns.pin {
                if libc::mount(
                    path.as_ptr(),
                    path.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ) != 0
                {
                    fail(ConfineStage::Mounts);
                }
            }
            for (path, kept) in ns.read_only {
                if libc::mount(
                    path.as_ptr(),
                    path.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ) != 0
                    || libc::mount(
                        std::ptr::null(),
                        path.as_ptr(),
                        std::ptr::null(),
                        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | kept,
                        std::ptr::null(),
                    ) != 0
                {
                    fail(ConfineStage::Mounts);
                }
            }
            // Before the covers: a copy's source may lie in a covered
            // directory (automode's own state).
            for (from, to) in ns.overlay {
                if libc::mount(
                    from.as_ptr(),
                    to.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                ) != 0
                {
                    fail(ConfineStage::Mounts);
                }
            }
            for dir in ns.hide_dirs {
                if libc::mount(
                    c"none".as_ptr(),
                    dir.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    c"size=4k,nr_inodes=2,mode=0".as_ptr().cast(),
                ) != 0
                {
                    fail(ConfineStage::Mounts);
                }
            }
            for file in ns.hide_files {
                if libc::mount(
                    c"/dev/null".as_ptr(),
                    file.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                ) != 0
                {
                    fail(ConfineStage::Mounts);
                }
            }
            if libc::chdir(ns.cwd.as_ptr()) != 0 {
                fail(ConfineStage::Mounts);
            }
            done(applied::MOUNTS);
            if ns.network_off && conf.join.is_none() {
                let sock = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
                if sock < 0 || libc::ioctl(sock, libc::SIOCSIFFLAGS, &c.loopback) != 0 {
                    fail(ConfineStage::Loopback);
                }
                libc::close(sock);
                done(applied::NETWORK);
            }
            // In the PID namespace: its first process (pid 1, which
            // reaps and outlives the command while anything it started
            // runs), then the command, both as our parent's children so
            // that it supervises them itself.
            if ns.own_pids {
                let init = libc::clone(
                    pid_init,
                    c.init_stack,
                    libc::CLONE_VM | libc::CLONE_PARENT | libc::SIGCHLD,
                    std::ptr::null_mut(),
                );
                if init < 0 {
                    fail(ConfineStage::Pids);
                }
                c.first.store(init, Ordering::SeqCst);
                let pid = libc::clone(
                    command_in_pid_namespace,
                    c.pid_stack,
                    libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PARENT | libc::SIGCHLD,
                    std::ptr::from_ref(c).cast_mut().cast(),
                );
                if pid < 0 {
                    fail(ConfineStage::Pids);
                }
                // It has called execve or exited (CLONE_VFORK): its
                // errors are in the memory we share.
                c.grandchild.store(pid, Ordering::SeqCst);
                libc::_exit(0);
            }
        }
        confine_process(c);
    }
}

/// The command's process in a PID namespace, on its own stack: its
/// `/proc`, its own session (the supervisor signals it as the group),
/// then the rest of the confinement and `execve`. Never returns.
extern "C" fn command_in_pid_namespace(arg: *mut libc::c_void) -> c_int {
    // SAFETY: `arg` is the `ChildFds` the child passed to clone; the
    // supervisor keeps it alive while suspended (CLONE_VFORK, twice).
    let c = unsafe { &*arg.cast::<ChildFds>() };
    // SAFETY: raw syscalls on static strings and the shared, prepared
    // state, in a child sharing our memory.
    unsafe {
        if libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        ) != 0
        {
            c.confine_stage
                .store(ConfineStage::Pids.code(), Ordering::SeqCst);
            child_fail(c.exec_errno);
        }
        // Landlock reads its rules on the way up from a file and skips the
        // mount point this /proc hides: its root gets its own read rule
        // (READ_FILE | READ_DIR; the kernel's packed path-beneath
        // attribute), as the host's /proc had.
        if let Some(ruleset) = c.confinement.ruleset {
            let dir = libc::open(c"/proc".as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
            if dir >= 0 {
                #[repr(C, packed)]
                struct PathBeneathAttr {
                    allowed_access: u64,
                    parent_fd: i32,
                }
                let attr = PathBeneathAttr {
                    allowed_access: (1 << 2) | (1 << 3),
                    parent_fd: dir,
                };
                libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset,
                    1 as libc::c_int,
                    &raw const attr,
                    0 as libc::c_uint,
                );
                libc::close(dir);
            }
        }
        c.applied.fetch_or(applied::PIDS, Ordering::SeqCst);
        if libc::setsid() < 0 {
            child_fail(c.exec_errno);
        }
        // The parent is outside the namespace: no getppid check (it
        // reads 0); the child checked before starting us.
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
        if let Some((ptr, width)) = c.pid_slot {
            write_decimal(ptr, width, libc::getpid());
        }
        confine_process(c);
        unblock_and_exec(c)
    }
}

/// The confinement of the command's own process, after the namespaces:
/// the file-size limit, no new privileges, seccomp, Landlock.
///
/// # Safety
/// Only in the cloned child (or the process it started); `c` is valid.
unsafe fn confine_process(c: &ChildFds<'_>) {
    let fail = |stage: ConfineStage| -> ! {
        c.confine_stage.store(stage.code(), Ordering::SeqCst);
        // SAFETY: in the cloned child.
        unsafe { child_fail(c.exec_errno) }
    };
    let conf = c.confinement;
    let done = |step: u32| {
        c.applied.fetch_or(step, Ordering::SeqCst);
    };
    // SAFETY: raw syscalls on prepared values; nothing allocates.
    unsafe {
        if drop_capabilities() {
            done(applied::CAPABILITIES);
        }
        if let Some(max) = conf.max_file_bytes {
            let lim = libc::rlimit {
                rlim_cur: max,
                rlim_max: max,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                fail(ConfineStage::FileSizeLimit);
            }
            done(applied::FILE_SIZE);
        }
        if c.ahead {
            // Made ahead: `no_new_privs` and the filter, with its listener
            // sent, are ours already (inherited from the child).
            done(applied::NO_NEW_PRIVS | applied::SECCOMP);
        } else if conf.ruleset.is_some() || conf.seccomp.is_some() {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) != 0 {
                fail(ConfineStage::NoNewPrivs);
            }
            done(applied::NO_NEW_PRIVS);
        }
        if let Some(prog) = conf.seccomp.as_ref().filter(|_| !c.ahead) {
            // SPEC_ALLOW: without it the kernel forces the Speculative
            // Store Bypass mitigation on the filtered process (it guards a
            // process against code in its own address space, such as a
            // JIT's; a command is a process of its own), which cost about
            // 0.2 ms a command here and slows interpreters throughout;
            // crun and runc set it by default for the same reason. With
            // `connects`, the filter stops `connect` for the session's
            // filter: installed with a listener, sent there.
            let mut flags = libc::SECCOMP_FILTER_FLAG_SPEC_ALLOW;
            if conf.connects.is_some() {
                flags |= libc::SECCOMP_FILTER_FLAG_NEW_LISTENER;
            }
            let listener = libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                flags as libc::c_uint,
                prog as *const libc::sock_fprog,
            );
            if listener < 0 {
                fail(ConfineStage::Seccomp);
            }
            if let Some(connects) = &conf.connects {
                let sent = send_one_fd(connects.socket, listener as c_int);
                libc::close(listener as c_int);
                if !sent {
                    fail(ConfineStage::Seccomp);
                }
            }
            done(applied::SECCOMP);
        }
        if let Some(fd) = conf.ruleset {
            if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0 as libc::c_uint) != 0 {
                fail(ConfineStage::Landlock);
            }
            done(applied::LANDLOCK);
        }
        if let Some(connects) = &conf.connects {
            if libc::syscall(
                libc::SYS_landlock_restrict_self,
                connects.ruleset,
                0 as libc::c_uint,
            ) != 0
            {
                fail(ConfineStage::Landlock);
            }
            done(applied::CONNECTS);
        }
    }
}

/// Drop every capability but `KEPT_CAPABILITIES` from the effective,
/// permitted and inheritable sets, and clear the ambient set. Under
/// `no_new_privs` (always set with a confinement) `execve` grants no
/// capability beyond the permitted set, root's and a file's included, so
/// the command and everything it starts keep no others; the bounding
/// set is left as it is (dropping from it took 40 system calls, about
/// 0.04 ms a command here). True once the sets hold no other.
///
/// # Safety
/// Only raw syscalls on stack values; callable in the cloned child.
unsafe fn drop_capabilities() -> bool {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    let kept = super::kept_capability_mask();
    // SAFETY: prctl and capget/capset on stack structs of the kernel's
    // layout (version 3: two 32-bit words per set).
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        );
        let mut header = Header {
            version: VERSION_3,
            pid: 0,
        };
        let mut data = [Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capget, &raw mut header, data.as_mut_ptr()) != 0 {
            return false;
        }
        for (i, d) in data.iter_mut().enumerate() {
            let word = (kept >> (32 * i)) as u32;
            d.effective &= word;
            d.permitted &= word;
            d.inheritable &= word;
        }
        libc::syscall(libc::SYS_capset, &raw mut header, data.as_ptr()) == 0
    }
}

/// Send one descriptor (`SCM_RIGHTS`, one byte of data) on a connected
/// UNIX socket, with nothing but the stack and bare system calls:
/// callable in the cloned child and in one made ahead.
///
/// # Safety
/// Only raw syscalls on plain structs; callable in the cloned child.
unsafe fn send_one_fd(sock: RawFd, fd: RawFd) -> bool {
    /// A control message with one descriptor: `CMSG_SPACE(4)` bytes, the
    /// descriptor where `CMSG_DATA` points (right after the header).
    #[repr(C)]
    struct OneFd {
        hdr: libc::cmsghdr,
        fd: c_int,
        pad: c_int,
    }
    // SAFETY: plain C structs, valid all-zero; every pointer set below
    // points into this frame and outlives the sendmsg call.
    unsafe {
        let mut control: OneFd = std::mem::zeroed();
        control.hdr.cmsg_len =
            (std::mem::size_of::<libc::cmsghdr>() + std::mem::size_of::<c_int>()) as _;
        control.hdr.cmsg_level = libc::SOL_SOCKET;
        control.hdr.cmsg_type = libc::SCM_RIGHTS;
        control.fd = fd;
        let byte = 0u8;
        let mut iov = libc::iovec {
            iov_base: (&raw const byte).cast_mut().cast(),
            iov_len: 1,
        };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &raw mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = (&raw mut control).cast();
        msg.msg_controllen = std::mem::size_of::<OneFd>() as _;
        // Bare: a child made ahead sends its listener while we run on
        // (it must not write our `errno`).
        bare_syscall(
            libc::SYS_sendmsg,
            sock as usize,
            (&raw const msg) as usize,
            libc::MSG_NOSIGNAL as usize,
            0,
        ) == 1
    }
}

/// Write `bytes` to `path` in one write (the child's /proc files).
///
/// # Safety
/// Only raw syscalls; callable in the cloned child.
unsafe fn write_all(path: &std::ffi::CStr, bytes: &[u8]) -> bool {
    // SAFETY: a valid NUL-terminated path and a valid buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        n == bytes.len() as isize
    }
}

/// A directory's entries read with `getdents64` on an open directory
/// (one or two system calls; `fdopendir` would add four): `(name,
/// d_type)`, without `.` and `..`.
pub(crate) fn dir_entries(dir: BorrowedFd<'_>) -> io::Result<Vec<(CString, u8)>> {
    const BUF_BYTES: usize = 32 * 1024;
    let mut out = Vec::new();
    // Not zeroed: the kernel fills what it returns, and only that is read.
    let mut buf: Vec<u8> = Vec::with_capacity(BUF_BYTES);
    loop {
        // SAFETY: `buf` owns BUF_BYTES writable bytes for the kernel to
        // fill with linux_dirent64 records; `dir` is an open directory.
        let n = unsafe {
            libc::syscall(
                libc::SYS_getdents64,
                dir.as_raw_fd(),
                buf.as_mut_ptr(),
                BUF_BYTES,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        if n == 0 {
            return Ok(out);
        }
        let n = (n as usize).min(BUF_BYTES);
        // SAFETY: the kernel initialised the first `n` bytes.
        unsafe { buf.set_len(n) };
        let mut at = 0;
        // linux_dirent64: u64 ino, i64 off, u16 reclen, u8 type, name\0.
        while at + 19 < n {
            let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
            if reclen == 0 || at + reclen > n {
                break;
            }
            let kind = buf[at + 18];
            let name = &buf[at + 19..at + reclen];
            let len = name.iter().position(|b| *b == 0).unwrap_or(name.len());
            let name = &name[..len];
            if name != b"."
                && name != b".."
                && let Ok(c) = CString::new(name)
            {
                out.push((c, kind));
            }
            at += reclen;
        }
    }
}

/// `read(2)` of at most `want` bytes into `buf`'s spare capacity (grown
/// to hold them), appending what came: the memory is not zeroed first, so
/// a read that brings little (or only the end of the stream) touches
/// little of it. Returns the byte count (0 at the end of the stream).
pub(crate) fn read_spare(fd: BorrowedFd<'_>, buf: &mut Vec<u8>, want: usize) -> nix::Result<usize> {
    buf.reserve(want);
    let spare = buf.spare_capacity_mut();
    let want = want.min(spare.len());
    // SAFETY: `spare` is `want` or more writable bytes that `buf` owns;
    // the kernel writes at most `want` of them and returns how many.
    let n = unsafe { libc::read(fd.as_raw_fd(), spare.as_mut_ptr().cast(), want) };
    if n < 0 {
        return Err(nix::errno::Errno::last());
    }
    let n = n as usize;
    // SAFETY: the kernel initialised the first `n` spare bytes (n <= want).
    unsafe { buf.set_len(buf.len() + n) };
    Ok(n)
}

/// `landlock_add_rule(ruleset, LANDLOCK_RULE_PATH_BENEATH, {access, fd})`:
/// grant `access` (Landlock's access bits, already narrowed to what the
/// ruleset handles and what the file's type allows) beneath `path`.
pub(crate) fn landlock_add_path_rule(
    ruleset: BorrowedFd<'_>,
    path: BorrowedFd<'_>,
    access: u64,
) -> io::Result<()> {
    /// The kernel's `struct landlock_path_beneath_attr` (packed).
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: path.as_raw_fd(),
    };
    // SAFETY: both fds are valid for the call; `attr` is a valid,
    // initialised struct of the kernel's layout that outlives the call;
    // flags must be 0. LANDLOCK_RULE_PATH_BENEATH is 1.
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            1 as libc::c_int,
            &raw const attr,
            0 as libc::c_uint,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The running kernel's Landlock ABI, or the errno that says why there
/// is none (`ENOSYS`, `EOPNOTSUPP`).
pub(crate) fn landlock_abi() -> Result<u32, i32> {
    // SAFETY: landlock_create_ruleset with a null attribute, size 0 and
    // the VERSION flag only returns the ABI; it creates nothing.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    if v < 0 {
        Err(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::ENOSYS))
    } else {
        Ok(u32::try_from(v).unwrap_or(0))
    }
}

/// Make this process undumpable: nothing can read its memory or its
/// environment through `/proc` or ptrace it (the supervisor, before it
/// starts a confined child). Root passes the dumpable check (it has
/// CAP_SYS_PTRACE), so the environment the kernel shows in
/// `/proc/<pid>/environ` is also blanked: automode has its own copy
/// (`Context`), and libc's `environ` is emptied first so nothing reads
/// the blanked strings as variables.
pub(crate) fn set_undumpable() {
    let _ = nix::sys::prctl::set_dumpable(false);
    let Some((start, end)) = environment_area() else {
        return;
    };
    // SAFETY: `environ` is libc's pointer to the environment array; we
    // are single-threaded here (no getenv/setenv can race), and pointing
    // it at a static array holding only the terminating null makes it a
    // valid, empty environment.
    unsafe {
        static mut EMPTY: [*mut c_char; 1] = [std::ptr::null_mut()];
        environ = (&raw mut EMPTY).cast();
    }
    // SAFETY: [start, end) is the area the kernel reports (from
    // /proc/self/stat) as holding this process's initial environment
    // strings, in its initial stack: mapped, writable, and after the line
    // above referenced by nothing (Rust never borrows it: `Context`
    // copied the variables). Only zero bytes are written, within it.
    unsafe {
        std::ptr::write_bytes(start as *mut u8, 0, end - start);
    }
}

unsafe extern "C" {
    static mut environ: *mut *mut c_char;
}

/// `env_start` and `env_end` of this process (fields 50 and 51 of
/// /proc/self/stat).
fn environment_area() -> Option<(usize, usize)> {
    let stat = crate::nested::own_stat_text()?;
    let after = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let start: usize = fields.get(47)?.parse().ok()?;
    let end: usize = fields.get(48)?.parse().ok()?;
    (start > 0 && end > start && end - start < (1 << 24)).then_some((start, end))
}

/// Report errno to the suspended parent (shared memory) and exit.
///
/// # Safety
/// Only in the cloned child.
unsafe fn child_fail(slot: &AtomicI32) -> ! {
    // SAFETY: reading errno and _exit are async-signal-safe.
    unsafe {
        // A failure with errno 0 must still read as a failure.
        let errno = (*libc::__errno_location()).max(1);
        slot.store(errno, Ordering::SeqCst);
        libc::_exit(127)
    }
}

/// Write `value` as zero-padded decimal into `width` bytes at `ptr`.
///
/// # Safety
/// `ptr..ptr+width` must be writable.
unsafe fn write_decimal(ptr: *mut u8, width: usize, value: libc::pid_t) {
    let mut v = value.unsigned_abs();
    let mut i = width;
    while i > 0 {
        i -= 1;
        // SAFETY: i < width, inside the caller's buffer.
        unsafe { *ptr.add(i) = b'0' + (v % 10) as u8 };
        v /= 10;
    }
}

/// `splice(2)` from a pipe to a pipe, never blocking on either side.
pub(crate) fn splice_nonblocking(
    from: BorrowedFd<'_>,
    to: BorrowedFd<'_>,
    len: usize,
) -> io::Result<usize> {
    // SAFETY: both fds are valid for the call; null offsets are required
    // for pipes.
    let n = unsafe {
        libc::splice(
            from.as_raw_fd(),
            std::ptr::null_mut(),
            to.as_raw_fd(),
            std::ptr::null_mut(),
            len,
            libc::SPLICE_F_NONBLOCK | libc::SPLICE_F_MOVE,
        )
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// `pwritev2(…, RWF_NOWAIT)`: write without blocking even when the file
/// description itself is blocking (pipes and sockets on Linux ≥ 4.14+).
pub(crate) fn write_nowait(to: BorrowedFd<'_>, buf: &[u8]) -> io::Result<usize> {
    let iov = libc::iovec {
        iov_base: buf.as_ptr() as *mut libc::c_void,
        iov_len: buf.len(),
    };
    // SAFETY: one valid iovec over `buf`; offset -1 means "current position".
    let n = unsafe { libc::pwritev2(to.as_raw_fd(), &iov, 1, -1, libc::RWF_NOWAIT) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Open `/dev/null` read-only with O_CLOEXEC.
pub(crate) fn open_dev_null() -> io::Result<OwnedFd> {
    // SAFETY: static NUL-terminated path; on success we own the new fd.
    let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Die by `sig` the way the child did: default disposition, no core dump,
/// unblocked, raised. Falls back to exit(128+sig).
pub(crate) fn die_by_signal(sig: c_int) -> ! {
    let _ = nix::sys::prctl::set_dumpable(false);
    let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, 0);
    // SAFETY: resetting one disposition to SIG_DFL, unblocking it and
    // raising it are plain syscalls on a valid signal number.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
    std::process::exit(128 + sig)
}

/// Replace this process with `program` (used for nested calls and
/// `--version`): no supervision, no policy. Returns only on failure.
pub(crate) fn exec_replace(program: &CString, argv: &[CString]) -> io::Error {
    let argv_ptrs: Vec<*const c_char> = argv
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    // Give the new program the dispositions a shell expects.
    if !caller_ignored_sigpipe() {
        // SAFETY: restoring SIGPIPE's default disposition.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    // SAFETY: program and argv are valid NUL-terminated strings and a
    // null-terminated pointer array; environ is the process environment.
    unsafe {
        libc::execv(program.as_ptr(), argv_ptrs.as_ptr());
    }
    io::Error::last_os_error()
}

/// Name of the ELF section that marks a file as an automode binary, so
/// that real-shell resolution never picks a copy of automode (which would
/// recurse). A section survives `strip` and is found by reading the
/// section headers, without reading the whole file.
pub const IDENTITY_SECTION: &str = ".automode_id";

/// The marker itself; referenced from `identity()` so the linker keeps it.
#[used]
#[unsafe(link_section = ".automode_id")]
static IDENTITY: [u8; 16] = *b"automode-shim-v1";

/// Our identity bytes (keeps the section alive through --gc-sections).
pub fn identity() -> &'static [u8] {
    std::hint::black_box(&IDENTITY)
}

/// `secs` since the epoch in local time: year, month, day, hour, minute,
/// second and the offset from UTC in seconds (`TZ`, else
/// `/etc/localtime`).
pub(crate) fn local_time(secs: i64) -> Option<[i64; 7]> {
    let t: libc::time_t = secs;
    // SAFETY: `tm` is a plain C struct; all-zero is a valid value of it
    // (its one pointer, `tm_zone`, null).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: localtime_r reads TZ and the zone files into libc's own
    // state once and writes only the `tm` it is given.
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    if r.is_null() {
        return None;
    }
    Some([
        i64::from(tm.tm_year) + 1900,
        i64::from(tm.tm_mon) + 1,
        i64::from(tm.tm_mday),
        i64::from(tm.tm_hour),
        i64::from(tm.tm_min),
        i64::from(tm.tm_sec),
        tm.tm_gmtoff,
    ])
}

/// Send `data` with descriptors attached (`SCM_RIGHTS`) on a UNIX
/// socket (the network wall's holder hands its sockets over this way).
pub(crate) fn send_fds(
    sock: BorrowedFd<'_>,
    data: &[u8],
    fds: &[BorrowedFd<'_>],
) -> io::Result<()> {
    let raw: Vec<RawFd> = fds.iter().map(AsRawFd::as_raw_fd).collect();
    let fd_bytes = std::mem::size_of_val(raw.as_slice());
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(fd_bytes as u32) } as usize;
    let mut control = vec![0u8; space.max(1)];
    let mut iov = libc::iovec {
        iov_base: data.as_ptr().cast_mut().cast(),
        iov_len: data.len(),
    };
    // SAFETY: msghdr is a plain C struct; all-zero is valid, and every
    // pointer set below outlives the sendmsg call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &raw mut iov;
    msg.msg_iovlen = 1;
    if !raw.is_empty() {
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space;
        // SAFETY: the control buffer is CMSG_SPACE(fd_bytes) long, so the
        // first header and its data fit; the data is copied in bounds.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&raw const msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(fd_bytes as u32) as usize;
            std::ptr::copy_nonoverlapping(
                raw.as_ptr().cast::<u8>(),
                libc::CMSG_DATA(cmsg),
                fd_bytes,
            );
        }
    }
    // SAFETY: a valid socket and a message whose buffers are live.
    let n = unsafe { libc::sendmsg(sock.as_raw_fd(), &raw const msg, libc::MSG_NOSIGNAL) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    if n as usize != data.len() {
        return Err(io::Error::other("short send"));
    }
    Ok(())
}

/// Receive into `buf` with any descriptors attached (close-on-exec);
/// returns the bytes read (0: the other end closed) and the descriptors.
pub(crate) fn recv_fds(sock: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<(usize, Vec<OwnedFd>)> {
    const MAX_FDS: usize = 16;
    // SAFETY: CMSG_SPACE only computes a size.
    let space =
        unsafe { libc::CMSG_SPACE((MAX_FDS * std::mem::size_of::<RawFd>()) as u32) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: as in send_fds.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &raw mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space;
    // SAFETY: a valid socket and live buffers of the stated sizes.
    let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &raw mut msg, libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut fds = Vec::new();
    // SAFETY: the kernel filled the control buffer; the CMSG macros walk
    // it within msg_controllen, and each SCM_RIGHTS descriptor is new
    // and ours alone, so owning it is sound.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&raw const msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg);
                let len = (*cmsg).cmsg_len as usize - (data as usize - cmsg as usize);
                for i in 0..len / std::mem::size_of::<RawFd>() {
                    let fd = std::ptr::read_unaligned(data.cast::<RawFd>().add(i));
                    fds.push(OwnedFd::from_raw_fd(fd));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&raw const msg, cmsg);
        }
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        return Err(io::Error::other("descriptors were cut off"));
    }
    Ok((n as usize, fds))
}

/// Stack of a PID namespace's first process (a loop of system calls).
const INIT_STACK_BYTES: usize = 16 * 1024;

/// A system call made without the C library: it shares our memory
/// (`CLONE_VM`) while we run on, so it must not write `errno` (ours).
/// Returns the result or `-errno`.
///
/// # Safety
/// As for the system call `nr` with these arguments.
#[cfg(target_arch = "x86_64")]
unsafe fn bare_syscall5(
    nr: libc::c_long,
    a: usize,
    b: usize,
    c: usize,
    d: usize,
    e: usize,
) -> isize {
    let ret: isize;
    // SAFETY: the Linux x86-64 system call convention; the kernel
    // clobbers rcx and r11.
    unsafe {
        std::arch::asm!(
            "syscall",
            inlateout("rax") nr as isize => ret,
            in("rdi") a,
            in("rsi") b,
            in("rdx") c,
            in("r10") d,
            in("r8") e,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    ret
}

/// As above, for aarch64.
///
/// # Safety
/// As for the system call `nr` with these arguments.
#[cfg(target_arch = "aarch64")]
unsafe fn bare_syscall5(
    nr: libc::c_long,
    a: usize,
    b: usize,
    c: usize,
    d: usize,
    e: usize,
) -> isize {
    let ret: isize;
    // SAFETY: the Linux aarch64 system call convention.
    unsafe {
        std::arch::asm!(
            "svc 0",
            in("x8") nr,
            inlateout("x0") a as isize => ret,
            in("x1") b,
            in("x2") c,
            in("x3") d,
            in("x4") e,
            options(nostack),
        );
    }
    ret
}

/// `bare_syscall5` with four arguments (the fifth register zero).
///
/// # Safety
/// As for the system call `nr` with these arguments.
unsafe fn bare_syscall(nr: libc::c_long, a: usize, b: usize, c: usize, d: usize) -> isize {
    // SAFETY: the caller's.
    unsafe { bare_syscall5(nr, a, b, c, d, 0) }
}

/// Pid 1 of a command's PID namespace, on its own stack in our memory:
/// it reaps what is orphaned there, passes a termination signal the
/// supervisor sends it to every process of the namespace, and exits once
/// none is left (the kernel ends the namespace with it), or after two
/// seconds if the command never started. Only bare system calls: it
/// runs beside the supervisor, sharing its memory, and outlives it while
/// the command's background processes run.
extern "C" fn pid_init(_: *mut libc::c_void) -> c_int {
    const FORWARDED: [c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];
    let bit = |s: c_int| 1u64 << (s - 1);
    let waited: u64 = FORWARDED.iter().map(|s| bit(*s)).sum::<u64>() | bit(libc::SIGCHLD);
    // SAFETY: system calls on our own stack values; nothing else is
    // touched.
    unsafe {
        bare_syscall(libc::SYS_close_range, 0, u32::MAX as usize, 0, 0);
        // Its name in `ps` (its command line is the shim's: our memory).
        bare_syscall(
            libc::SYS_prctl,
            libc::PR_SET_NAME as usize,
            c"automode-pid1".as_ptr() as usize,
            0,
            0,
        );
        // Blocked signals reach a namespace's pid 1 (it has no handlers).
        let set = waited;
        bare_syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_BLOCK as usize,
            (&raw const set) as usize,
            0,
            8,
        );
        let mut seen = false;
        let mut idle_rounds = 0u32;
        loop {
            while bare_syscall(libc::SYS_wait4, usize::MAX, 0, libc::WNOHANG as usize, 0) > 0 {}
            // Signal 0 to every process of the namespace but us: ESRCH
            // when there is none.
            let any = bare_syscall(libc::SYS_kill, usize::MAX, 0, 0, 0);
            if any == 0 {
                seen = true;
            } else if any == -(libc::ESRCH as isize) {
                idle_rounds += 1;
                if seen || idle_rounds > 20 {
                    bare_syscall(libc::SYS_exit, 0, 0, 0, 0);
                }
            }
            let wait = libc::timespec {
                tv_sec: 0,
                tv_nsec: 100_000_000,
            };
            let sig = bare_syscall(
                libc::SYS_rt_sigtimedwait,
                (&raw const set) as usize,
                0,
                (&raw const wait) as usize,
                8,
            );
            if FORWARDED.iter().any(|s| *s as isize == sig) {
                bare_syscall(libc::SYS_kill, usize::MAX, sig as usize, 0, 0);
            }
        }
    }
}

/// A system call a confined command made and its seccomp filter stopped
/// for the session's network filter (`SECCOMP_RET_USER_NOTIF`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stopped {
    /// The notification's id (valid while the call waits).
    pub id: u64,
    /// The calling thread, as this process's PID namespace numbers it.
    pub pid: u32,
    pub nr: i32,
    pub args: [u64; 6],
}

/// How a stopped call ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resume {
    /// The kernel makes the call as the command asked.
    Continue,
    /// The call returns this value.
    Value(i64),
    /// The call fails with this errno.
    Error(i32),
}

/// Wait for the next stopped call on a seccomp listener.
pub(crate) fn seccomp_recv(listener: BorrowedFd<'_>) -> io::Result<Stopped> {
    // SAFETY: seccomp_notif is a plain C struct; the kernel wants it
    // zeroed and fills it.
    let mut n: libc::seccomp_notif = unsafe { std::mem::zeroed() };
    // SAFETY: the kernel fills a live struct of the ioctl's type.
    unsafe {
        seccomp_ioctl(
            listener,
            libc::SECCOMP_IOCTL_NOTIF_RECV,
            (&raw mut n).cast(),
        )
    }?;
    Ok(Stopped {
        id: n.id,
        pid: n.pid,
        nr: n.data.nr,
        args: n.data.args,
    })
}

/// End a stopped call.
pub(crate) fn seccomp_resume(listener: BorrowedFd<'_>, id: u64, how: Resume) -> io::Result<()> {
    let (val, error, flags) = match how {
        Resume::Continue => (0, 0, libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32),
        Resume::Value(v) => (v, 0, 0),
        Resume::Error(e) => (0, -e.abs(), 0),
    };
    let resp = libc::seccomp_notif_resp {
        id,
        val,
        error,
        flags,
    };
    // SAFETY: the kernel reads a live struct of the ioctl's type.
    unsafe {
        seccomp_ioctl(
            listener,
            libc::SECCOMP_IOCTL_NOTIF_SEND,
            (&raw const resp).cast_mut().cast(),
        )
    }
}

/// Is the stopped call still waiting (its thread not gone, its id not
/// reused)? Asked after reading its memory.
pub(crate) fn seccomp_waiting(listener: BorrowedFd<'_>, id: u64) -> bool {
    // SAFETY: the kernel reads a live u64.
    unsafe {
        seccomp_ioctl(
            listener,
            libc::SECCOMP_IOCTL_NOTIF_ID_VALID,
            (&raw const id).cast_mut().cast(),
        )
    }
    .is_ok()
}

/// Put `fd` into the stopped thread's table at number `at`, replacing
/// what was there (`SECCOMP_ADDFD_FLAG_SETFD`).
pub(crate) fn seccomp_place_fd(
    listener: BorrowedFd<'_>,
    id: u64,
    fd: BorrowedFd<'_>,
    at: RawFd,
    cloexec: bool,
) -> io::Result<()> {
    let add = libc::seccomp_notif_addfd {
        id,
        flags: libc::SECCOMP_ADDFD_FLAG_SETFD as u32,
        srcfd: fd.as_raw_fd() as u32,
        newfd: at as u32,
        newfd_flags: if cloexec { libc::O_CLOEXEC as u32 } else { 0 },
    };
    // SAFETY: the kernel reads a live struct of the ioctl's type.
    unsafe {
        seccomp_ioctl(
            listener,
            libc::SECCOMP_IOCTL_NOTIF_ADDFD,
            (&raw const add).cast_mut().cast(),
        )
    }
}

/// One `SECCOMP_IOCTL_NOTIF_*` request on a listener.
///
/// # Safety
/// `arg` points to a live value of the type `request` names.
unsafe fn seccomp_ioctl(
    listener: BorrowedFd<'_>,
    request: libc::Ioctl,
    arg: *mut libc::c_void,
) -> io::Result<()> {
    // SAFETY: a valid descriptor; the caller vouches for `arg`.
    if unsafe { libc::ioctl(listener.as_raw_fd(), request, arg) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A copy of thread `tid`'s descriptor `fd` (`pidfd_getfd`: the same
/// open file, so the same socket).
pub(crate) fn take_fd(tid: i32, fd: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags; it returns a new
    // descriptor we own or -1.
    let mut pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, tid, libc::PIDFD_THREAD) };
    if pidfd < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
        // Before Linux 6.9 (no PIDFD_THREAD): the thread group's leader,
        // whose descriptor table its threads share.
        let tgid = crate::procfs::read(format!("/proc/{tid}/status"))
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("Tgid:"))
                    .and_then(|v| v.trim().parse::<i32>().ok())
            })
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ESRCH))?;
        // SAFETY: as above.
        pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, tgid, 0 as libc::c_uint) };
    }
    if pidfd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just returned to us.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as RawFd) };
    // SAFETY: pidfd_getfd on our pidfd; returns a new descriptor we own.
    let got = unsafe {
        libc::syscall(
            libc::SYS_pidfd_getfd,
            pidfd.as_raw_fd(),
            fd,
            0 as libc::c_uint,
        )
    };
    if got < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just returned to us.
    Ok(unsafe { OwnedFd::from_raw_fd(got as RawFd) })
}

/// The inode of the network namespace a socket was made in
/// (`SIOCGSKNS`; refused where we hold no `CAP_NET_ADMIN` over it, as
/// for the host's own namespace).
pub(crate) fn socket_netns(sock: BorrowedFd<'_>) -> io::Result<u64> {
    // SAFETY: SIOCGSKNS takes no argument and returns a new descriptor.
    let ns = unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCGSKNS as _) };
    if ns < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just returned to us.
    let ns = unsafe { OwnedFd::from_raw_fd(ns) };
    Ok(nix::sys::stat::fstat(&ns)?.st_ino)
}

/// Copy one socket option (at most 32 bytes of value) from one socket to
/// another.
pub(crate) fn copy_socket_option(
    from: BorrowedFd<'_>,
    to: BorrowedFd<'_>,
    level: c_int,
    name: c_int,
) -> io::Result<()> {
    let mut buf = [0u8; 32];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: a valid socket and a buffer of `len` bytes.
    let rc = unsafe {
        libc::getsockopt(
            from.as_raw_fd(),
            level,
            name,
            buf.as_mut_ptr().cast(),
            &raw mut len,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a valid socket and the `len` bytes the kernel gave.
    let rc = unsafe { libc::setsockopt(to.as_raw_fd(), level, name, buf.as_ptr().cast(), len) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `listen(2)` on a socket (the session's filter makes a command's own).
pub(crate) fn listen(sock: BorrowedFd<'_>, backlog: c_int) -> io::Result<()> {
    // SAFETY: a valid descriptor; the kernel checks the rest.
    if unsafe { libc::listen(sock.as_raw_fd(), backlog) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
