//! The filter's side of a command's `connect` and `listen` calls
//! (`exec::Connects`): every one a command of the session makes stops in
//! its seccomp filter, whose listener the command sent here, and waits
//! for this thread. A TCP or UDP connect of a socket the command made
//! inside is made here, from the host's side but on the command's own
//! socket (so inside the wall: the capture, the proxy and their refusals
//! as before), with the address read once from its memory; where the
//! destination is one the filter would let through anyway — a port of
//! the host's loopback the user listed, or a name the DNS stub gave out
//! that the allow-list has — the filter connects on the host's side and
//! puts that socket in place of the command's, so its bytes go straight
//! to the kernel, with no relay between (a 100 MiB download runs at the
//! speed of a direct one). A stream connect waits on a thread of its own,
//! never this one.
//!
//! Why a socket from the host's side cannot take the command anywhere
//! else: only connected sockets are handed in; any connect of a socket
//! not made inside that stops here (a disconnect too) fails, and so does
//! `listen`; one the seccomp filter leaves to the kernel by its length
//! can at most disconnect it (the kernel's `AF_UNSPEC`), after which it
//! connects nowhere and cannot listen;
//! the command makes no TCP connect itself (a Landlock layer that handles
//! TCP connects and allows none: what stands when a thread swaps the
//! descriptor and the address between this thread's look and the
//! kernel's); TCP Fast Open, the one way to connect from a send call, is
//! refused by the seccomp filter. Any other family (`AF_UNIX`) on a
//! socket made inside the kernel makes as the command asked, under the
//! command's own Landlock domain and mount namespace. If this thread ends
//! the filter ends: the listeners close and every later `connect` of the
//! commands fails (`ENOSYS`), and a command that cannot reach a filter
//! that takes connections does not run. Nothing is widened.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;
use std::time::Duration;

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::socket::{
    AddressFamily, SockFlag, SockType, SockaddrStorage, connect, getsockname, getsockopt,
    setsockopt, socket, sockopt,
};

use super::daemon::Filter;
use super::{dns, relay};
use crate::exec::{self, Resume, Stopped};

/// How long a connection on the host's side may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// The options of the command's socket the one handed in gets too, with
/// why: `(level, name, why)`. (Not the buffer sizes: the kernel reports
/// double what was set, and leaving them unset keeps its autotuning.)
const COPIED_OPTIONS: &[(i32, i32, &str)] = &[
    (
        libc::IPPROTO_TCP,
        libc::TCP_NODELAY,
        "small writes sent at once (interactive protocols)",
    ),
    (
        libc::SOL_SOCKET,
        libc::SO_KEEPALIVE,
        "keepalive probes on an idle connection",
    ),
    (
        libc::IPPROTO_TCP,
        libc::TCP_KEEPIDLE,
        "when keepalive starts",
    ),
    (
        libc::IPPROTO_TCP,
        libc::TCP_KEEPINTVL,
        "how often keepalive probes",
    ),
    (
        libc::IPPROTO_TCP,
        libc::TCP_KEEPCNT,
        "how many probes end the connection",
    ),
    (
        libc::IPPROTO_TCP,
        libc::TCP_USER_TIMEOUT,
        "how long unacknowledged data may wait",
    ),
    (
        libc::SOL_SOCKET,
        libc::SO_RCVTIMEO,
        "a blocking read's time limit",
    ),
    (
        libc::SOL_SOCKET,
        libc::SO_SNDTIMEO,
        "a blocking write's time limit",
    ),
    (
        libc::SOL_SOCKET,
        libc::SO_LINGER,
        "what closing does with unsent data",
    ),
    (
        libc::SOL_SOCKET,
        libc::SO_OOBINLINE,
        "urgent data read in line",
    ),
];

/// The abstract socket name a session's filter takes commands'
/// listeners at (the network namespace of the host: no command reaches
/// it from inside the wall).
pub fn socket_name(daemon_pid: i32, daemon_start: u64) -> String {
    format!("automode-netd-{daemon_pid}-{daemon_start}")
}

/// Listen at `name`.
pub fn bind(name: &str) -> std::io::Result<UnixListener> {
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    UnixListener::bind_addr(&addr)
}

/// Reach the filter listening at `name` (the command's child sends its
/// listener on it).
pub fn reach(name: &str) -> std::io::Result<UnixStream> {
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    UnixStream::connect_addr(&addr)
}

/// Where a connection the filter would let through goes on the host's
/// side.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outside {
    /// A port of the host's loopback the user listed.
    HostPort(SocketAddr),
    /// An allowed name the DNS stub gave an address of its own for.
    Name(String, u16),
}

/// Serve the commands' listeners until the process ends. `netns`: the
/// inode of the wall's network namespace (a socket made inside has it).
pub fn serve(filter: &Arc<Filter>, acceptor: &UnixListener, netns: u64) {
    let uid = nix::unistd::getuid().as_raw();
    // A listener and a connection or two per command still running:
    // as many descriptors as the system lets this process have.
    if let Ok((_, hard)) =
        nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
    {
        let _ =
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, hard, hard);
    }
    let mut conns: Vec<UnixStream> = Vec::new();
    let mut listeners: Vec<Arc<OwnedFd>> = Vec::new();
    loop {
        let ready: Vec<PollFlags> = {
            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(1 + conns.len() + listeners.len());
            fds.push(PollFd::new(acceptor.as_fd(), PollFlags::POLLIN));
            fds.extend(
                conns
                    .iter()
                    .map(|c| PollFd::new(c.as_fd(), PollFlags::POLLIN)),
            );
            fds.extend(
                listeners
                    .iter()
                    .map(|l| PollFd::new(l.as_fd(), PollFlags::POLLIN)),
            );
            match poll(&mut fds, PollTimeout::NONE) {
                Ok(_) => {}
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => {
                    // (More descriptors than poll takes: wait for some
                    // to go rather than spin.)
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
            }
            fds.iter()
                .map(|p| p.revents().unwrap_or(PollFlags::empty()))
                .collect()
        };
        let gone = PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL;
        let first_listener = 1 + conns.len();
        for i in (0..listeners.len()).rev() {
            let r = ready[first_listener + i];
            if r.contains(PollFlags::POLLIN) {
                if let Ok(call) = exec::seccomp_recv(listeners[i].as_fd()) {
                    handle(filter, &listeners[i], call, netns);
                }
            } else if r.intersects(gone) {
                // Every process of that command is gone.
                listeners.swap_remove(i);
            }
        }
        for i in (0..conns.len()).rev() {
            if ready[1 + i].is_empty() {
                continue;
            }
            let mut buf = [0u8; 8];
            match exec::recv_fds(conns[i].as_fd(), &mut buf) {
                Ok((0, _)) | Err(_) => {
                    conns.swap_remove(i);
                }
                Ok((_, fds)) => listeners.extend(fds.into_iter().map(Arc::new)),
            }
        }
        if ready[0].contains(PollFlags::POLLIN)
            && let Ok((c, _)) = acceptor.accept()
            && getsockopt(&c, sockopt::PeerCredentials).is_ok_and(|p| p.uid() == uid)
        {
            conns.push(c);
        }
    }
}

/// One stopped call: `connect`, or `listen`.
fn handle(f: &Arc<Filter>, listener: &Arc<OwnedFd>, call: Stopped, netns: u64) {
    let l = listener.as_fd();
    let resume = |how: Resume| {
        let _ = exec::seccomp_resume(l, call.id, how);
    };
    if call.nr == libc::SYS_listen as i32 {
        return resume(listen(call, l, netns));
    }
    if call.nr != libc::SYS_connect as i32 {
        return resume(Resume::Continue);
    }
    let [fd, ptr, len, ..] = call.args;
    // As the kernel: an address longer than any is invalid, one that
    // cannot be read a fault.
    let mut raw = [0u8; 128];
    let Some(want) = usize::try_from(len as u32)
        .ok()
        .filter(|n| (2..=raw.len()).contains(n))
    else {
        return resume(Resume::Error(libc::EINVAL));
    };
    if read_memory(call.pid, ptr, &mut raw[..want]) != Ok(want) {
        return resume(Resume::Error(libc::EFAULT));
    }
    let family = i32::from(u16::from_ne_bytes([raw[0], raw[1]]));
    let (sock, inside) = match take_socket(call, l, netns) {
        Ok(taken) => taken,
        Err(Some(how)) => return resume(how),
        Err(None) => return,
    };
    if !inside {
        // A socket handed in or one from outside the wall: never
        // connected, nor disconnected, from here.
        return resume(again(sock.as_fd()));
    }
    if family != libc::AF_INET && family != libc::AF_INET6 {
        // A local socket, a disconnect: the kernel makes it under the
        // command's own confinement.
        return resume(Resume::Continue);
    }
    let Some(dest) = socket_addr(&raw[..want]) else {
        return resume(Resume::Error(libc::EINVAL));
    };
    let kind = match getsockopt(&sock, sockopt::SockType) {
        Ok(k) => k,
        Err(e) => return resume(Resume::Error(e as i32)),
    };
    if kind != SockType::Stream {
        // A datagram socket's connect never waits.
        return resume(connect_inside(sock.as_fd(), dest));
    }
    // A stream connect may wait (the command can clear O_NONBLOCK on the
    // socket at any moment): on a thread of its own, never this one.
    let outside = unbound(sock.as_fd()).then(|| outside(f, dest)).flatten();
    let worker_listener = listener.clone();
    let spawned = std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn(move || {
            let l = worker_listener.as_fd();
            let opened = outside
                .as_ref()
                .map(|o| open_outside(o, sock.as_fd(), dest));
            let how = match (opened, &outside) {
                (Some(Ok(out)), _) => {
                    let cloexec = fd_cloexec(call.pid, fd as RawFd);
                    match exec::seccomp_place_fd(l, call.id, out.as_fd(), fd as RawFd, cloexec) {
                        Ok(()) => Resume::Value(0),
                        // The call was interrupted: nothing was replaced.
                        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return,
                        // (A descriptor limit the command lowered, say.)
                        Err(e) => Resume::Error(e.raw_os_error().unwrap_or(libc::EBADF)),
                    }
                }
                // A listed port of the host's loopback that refused: as
                // on the host.
                (Some(Err((_, Some(errno)))), Some(Outside::HostPort(_))) => Resume::Error(errno),
                // Not reached on the host's side: inside, as any other (the
                // filter then says why, in the client's protocol).
                _ => connect_inside(sock.as_fd(), dest),
            };
            let _ = exec::seccomp_resume(l, call.id, how);
        });
    if spawned.is_err() {
        resume(Resume::Error(libc::EAGAIN));
    }
}

/// A connect of a socket handed in, as the kernel answers one repeated:
/// the error its connecting ended with, `EALREADY` while it is still
/// connecting, else `EISCONN` (never connected from here).
fn again(sock: BorrowedFd<'_>) -> Resume {
    if let Ok(e) = getsockopt(&sock, sockopt::SocketError)
        && e != 0
    {
        return Resume::Error(e);
    }
    let mut fds = [PollFd::new(sock, PollFlags::POLLOUT)];
    let writable = poll(&mut fds, PollTimeout::ZERO).is_ok_and(|n| n > 0);
    if !writable && nix::sys::socket::getpeername::<SockaddrStorage>(sock.as_raw_fd()).is_err() {
        return Resume::Error(libc::EALREADY);
    }
    Resume::Error(libc::EISCONN)
}

/// The stack of a thread that makes one connection.
const WORKER_STACK: usize = 128 * 1024;

/// `listen`: made here on a socket made inside; refused on any other (a
/// socket handed in, disconnected and bound, would listen on the host's
/// network).
fn listen(call: Stopped, l: BorrowedFd<'_>, netns: u64) -> Resume {
    let backlog = call.args[1];
    let sock = match take_socket(call, l, netns) {
        Ok((sock, true)) => sock,
        Ok((_, false)) => return Resume::Error(libc::EPERM),
        Err(how) => return how.unwrap_or(Resume::Error(libc::EINTR)),
    };
    match exec::listen(sock.as_fd(), backlog as i32) {
        Ok(()) => Resume::Value(0),
        Err(e) => Resume::Error(e.raw_os_error().unwrap_or(libc::EINVAL)),
    }
}

/// The socket a stopped call names (its first argument), taken from the
/// calling thread, and whether it was made inside the wall. `Err`: how
/// the call ends instead (`None`: it no longer waits, so what was read
/// of its memory may be another process's).
fn take_socket(
    call: Stopped,
    l: BorrowedFd<'_>,
    netns: u64,
) -> Result<(OwnedFd, bool), Option<Resume>> {
    let sock = exec::take_fd(call.pid as i32, call.args[0] as RawFd)
        .map_err(|e| Some(Resume::Error(e.raw_os_error().unwrap_or(libc::EBADF))))?;
    if !exec::seccomp_waiting(l, call.id) {
        return Err(None);
    }
    match exec::socket_netns(sock.as_fd()) {
        Ok(ns) => Ok((sock, ns == netns)),
        Err(e) if e.raw_os_error() == Some(libc::ENOTTY) => {
            Err(Some(Resume::Error(libc::ENOTSOCK)))
        }
        // Not ours to look at: the host's.
        Err(_) => Ok((sock, false)),
    }
}

/// Read `buf.len()` bytes at `addr` of thread `pid`'s memory.
fn read_memory(pid: u32, addr: u64, buf: &mut [u8]) -> nix::Result<usize> {
    let len = buf.len();
    nix::sys::uio::process_vm_readv(
        nix::unistd::Pid::from_raw(pid as i32),
        &mut [std::io::IoSliceMut::new(buf)],
        &[nix::sys::uio::RemoteIoVec {
            base: addr as usize,
            len,
        }],
    )
}

/// A `sockaddr_in` or `sockaddr_in6` as read.
fn socket_addr(raw: &[u8]) -> Option<SocketAddr> {
    let family = i32::from(u16::from_ne_bytes([*raw.first()?, *raw.get(1)?]));
    let port = u16::from_be_bytes([*raw.get(2)?, *raw.get(3)?]);
    if family == libc::AF_INET {
        let o: [u8; 4] = raw.get(4..8)?.try_into().ok()?;
        (raw.len() >= 16).then(|| SocketAddr::new(IpAddr::V4(Ipv4Addr::from(o)), port))
    } else if family == libc::AF_INET6 {
        let o: [u8; 16] = raw.get(8..24)?.try_into().ok()?;
        (raw.len() >= 24).then(|| SocketAddr::new(IpAddr::V6(Ipv6Addr::from(o)), port))
    } else {
        None
    }
}

/// Has the socket no local port yet (a command that bound one keeps its
/// own socket)?
fn unbound(sock: BorrowedFd<'_>) -> bool {
    getsockname::<SockaddrStorage>(sock.as_raw_fd()).is_ok_and(|a| {
        a.as_sockaddr_in().is_none_or(|v| v.port() == 0)
            && a.as_sockaddr_in6().is_none_or(|v| v.port() == 0)
    })
}

/// Where a connection to `dest` would go on the host's side, if the
/// filter would let it through: a listed port of loopback, or an allowed
/// name the DNS stub gave `dest` for.
fn outside(f: &Filter, dest: SocketAddr) -> Option<Outside> {
    let ip = match dest.ip() {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    let port = dest.port();
    let listed = || f.host_ports().contains(&port);
    match ip {
        IpAddr::V4(a) if a.is_loopback() && listed() => {
            let host = match dest {
                SocketAddr::V4(_) => SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
                SocketAddr::V6(_) => SocketAddr::from((Ipv4Addr::LOCALHOST.to_ipv6_mapped(), port)),
            };
            Some(Outside::HostPort(host))
        }
        IpAddr::V6(a) if a.is_loopback() && listed() => Some(Outside::HostPort(dest)),
        IpAddr::V4(a) if dns::is_fake(a) => {
            let name = f.names.name_of(a)?;
            f.decide(&name, port, None).ok()?;
            Some(Outside::Name(name, port))
        }
        _ => None,
    }
}

/// Connect on the host's side, a socket of the command's socket's family
/// with its options: each address in turn until one connects. `Err`: why
/// not, and the last connect's errno.
fn open_outside(
    to: &Outside,
    theirs: BorrowedFd<'_>,
    dest: SocketAddr,
) -> Result<OwnedFd, (String, Option<i32>)> {
    let v6 = dest.is_ipv6();
    let addrs: Vec<SocketAddr> = match to {
        Outside::HostPort(a) => vec![*a],
        Outside::Name(host, port) => (host.as_str(), *port)
            .to_socket_addrs()
            .map_err(|e| (format!("{host} does not resolve: {e}"), None))?
            .filter(|a| !relay::inside_host(a.ip()))
            .filter_map(|a| match (a, v6) {
                (SocketAddr::V4(_), false) | (SocketAddr::V6(_), true) => Some(a),
                (SocketAddr::V4(v4), true) => {
                    Some(SocketAddr::from((v4.ip().to_ipv6_mapped(), v4.port())))
                }
                (SocketAddr::V6(_), false) => None,
            })
            .collect(),
    };
    let mut last = (String::from("no address"), None);
    for a in addrs {
        match connect_outside(a, theirs) {
            Ok(s) => return Ok(s),
            Err(e) => last = (format!("{a}: {e}"), Some(e as i32)),
        }
    }
    Err(last)
}

/// One connection on the host's side, made (waited for: only a connected
/// socket is handed in), then given the command's socket's options and
/// blocking mode.
fn connect_outside(a: SocketAddr, theirs: BorrowedFd<'_>) -> nix::Result<OwnedFd> {
    let family = if a.is_ipv6() {
        AddressFamily::Inet6
    } else {
        AddressFamily::Inet
    };
    let s = socket(family, SockType::Stream, SockFlag::SOCK_CLOEXEC, None)?;
    setsockopt(
        &s,
        sockopt::SendTimeout,
        &nix::sys::time::TimeVal::new(CONNECT_TIMEOUT.as_secs() as i64, 0),
    )?;
    connect(s.as_raw_fd(), &SockaddrStorage::from(a))?;
    // (After the connect: the command's own send time limit, usually
    // none, replaces the connect's.)
    for (level, name, _) in COPIED_OPTIONS {
        let _ = exec::copy_socket_option(theirs, s.as_fd(), *level, *name);
    }
    let flags = nix::fcntl::fcntl(theirs, nix::fcntl::FcntlArg::F_GETFL)?;
    let nonblock = nix::fcntl::OFlag::from_bits_truncate(flags) & nix::fcntl::OFlag::O_NONBLOCK;
    let own = nix::fcntl::OFlag::from_bits_truncate(nix::fcntl::fcntl(
        &s,
        nix::fcntl::FcntlArg::F_GETFL,
    )?);
    nix::fcntl::fcntl(&s, nix::fcntl::FcntlArg::F_SETFL(own | nonblock))?;
    Ok(s)
}

/// Connect the command's own socket inside, to the address as read.
fn connect_inside(sock: BorrowedFd<'_>, dest: SocketAddr) -> Resume {
    match connect(sock.as_raw_fd(), &SockaddrStorage::from(dest)) {
        Ok(()) => Resume::Value(0),
        Err(e) => Resume::Error(e as i32),
    }
}

/// Is thread `pid`'s descriptor `fd` close-on-exec (its `fdinfo`)?
fn fd_cloexec(pid: u32, fd: RawFd) -> bool {
    crate::procfs::read(format!("/proc/{pid}/fdinfo/{fd}")).is_some_and(|t| {
        t.lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            .is_some_and(|fl| fl & libc::O_CLOEXEC as u32 != 0)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A `sockaddr_in` / `sockaddr_in6` as a C program lays it out.
    fn laid_out(a: SocketAddr) -> Vec<u8> {
        let mut raw = Vec::new();
        match a {
            SocketAddr::V4(v) => {
                raw.extend((libc::AF_INET as u16).to_ne_bytes());
                raw.extend(v.port().to_be_bytes());
                raw.extend(v.ip().octets());
                raw.extend([0u8; 8]);
            }
            SocketAddr::V6(v) => {
                raw.extend((libc::AF_INET6 as u16).to_ne_bytes());
                raw.extend(v.port().to_be_bytes());
                raw.extend([0u8; 4]);
                raw.extend(v.ip().octets());
                raw.extend([0u8; 4]);
            }
        }
        raw
    }

    #[test]
    fn socket_addresses_are_read_as_the_kernel_lays_them_out() {
        for text in [
            "127.0.0.1:8080",
            "198.18.0.7:443",
            "[::1]:5432",
            "[::ffff:198.18.0.7]:443",
        ] {
            let a: SocketAddr = text.parse().unwrap();
            assert_eq!(socket_addr(&laid_out(a)), Some(a), "{text}");
        }
        let v4 = laid_out("127.0.0.1:1".parse().unwrap());
        assert_eq!(socket_addr(&v4[..15]), None, "shorter than sockaddr_in");
        assert_eq!(socket_addr(&[1, 0, 0, 0]), None, "not an IP family");
    }
}
