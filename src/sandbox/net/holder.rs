//! The holder of a session's network namespace (`automode-netns`,
//! started by the session's filter, `daemon.rs`): it makes a user and
//! network namespace, brings loopback up, makes every address local
//! (`netlink.rs`), and hands the filter the sockets it serves from
//! inside — the DNS stub's, the capture listeners', the proxy's — over
//! its standard input, a UNIX socket. Then it makes sockets inside on
//! request (a connection to a server a command started, a listener for
//! a host port the user listed) until the filter closes the socket, and
//! exits: the namespace lives on only in the processes still in it.
//! Commands join its namespaces (`/proc/<pid>/ns/user`, `…/net`).

use std::io::{BufRead, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::netlink;
use crate::exit::Exit;

/// A socket handed to the filter, in the order of the descriptors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handed {
    pub role: Role,
    pub port: u16,
    pub v6: bool,
}

/// What a handed socket is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The DNS stub: UDP on every address's port 53.
    Dns,
    /// A capture listener: TCP on every address's port.
    Capture,
    /// The HTTP proxy on loopback.
    Proxy,
    /// A connection to a server inside (on request).
    Connection,
    /// A listener for a host port (on request).
    HostPort,
    /// A `sock_diag` socket: which servers listen inside.
    Diag,
}

/// What the filter asks of the holder after the start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Request {
    /// Connect to a server inside on loopback (`v6`: `::1`).
    Connect { port: u16, v6: bool },
    /// Listen on loopback inside (a host port).
    Listen { port: u16 },
}

/// The holder's answer: the sockets (descriptors attached, in order), or
/// why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub sockets: Vec<Handed>,
    pub error: Option<String>,
}

/// The holder's start: `automode-netns PORT,PORT,…` (the capture ports),
/// or `automode-netns --probe` (can a namespace be made here? exit 0, or
/// the reason on stderr and exit 1).
pub fn main(args: &[std::ffi::OsString]) -> Exit {
    if args.first().is_some_and(|a| a == "--probe") {
        return match namespaces() {
            Ok(()) => Exit::Child(0),
            Err(why) => {
                eprintln!("{why}");
                Exit::Child(1)
            }
        };
    }
    let ports: Vec<u16> = args
        .first()
        .and_then(|a| a.to_str())
        .map(|s| s.split(',').filter_map(|p| p.parse().ok()).collect())
        .unwrap_or_default();
    let control = match std::io::stdin().as_fd().try_clone_to_owned() {
        Ok(fd) => UnixStream::from(fd),
        Err(_) => return Exit::Usage,
    };
    match start(&ports) {
        Ok((handed, fds)) => {
            let borrowed: Vec<BorrowedFd<'_>> = fds.iter().map(AsFd::as_fd).collect();
            if reply(
                &control,
                &Answer {
                    sockets: handed,
                    error: None,
                },
                &borrowed,
            )
            .is_err()
            {
                return Exit::Internal;
            }
            drop(fds);
            serve(&control);
            Exit::Child(0)
        }
        Err(why) => {
            let _ = reply(
                &control,
                &Answer {
                    sockets: Vec::new(),
                    error: Some(why),
                },
                &[],
            );
            Exit::Internal
        }
    }
}

/// Make the user and network namespace (ids mapped, loopback up, every
/// address local).
fn namespaces() -> Result<(), String> {
    use nix::sched::{CloneFlags, unshare};
    let uid = nix::unistd::getuid().as_raw();
    let gid = nix::unistd::getgid().as_raw();
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET)
        .map_err(|e| format!("cannot make a user namespace with its own network: {e}"))?;
    for (file, text) in [
        ("/proc/self/setgroups", "deny".to_string()),
        ("/proc/self/uid_map", format!("{uid} {uid} 1")),
        ("/proc/self/gid_map", format!("{gid} {gid} 1")),
    ] {
        std::fs::write(file, text)
            .map_err(|e| format!("cannot map ids in a new user namespace ({file}: {e})"))?;
    }
    netlink::setup()
}

/// Make the namespaces and the sockets served from inside.
fn start(ports: &[u16]) -> Result<(Vec<Handed>, Vec<OwnedFd>), String> {
    namespaces()?;
    let mut handed = Vec::new();
    let mut fds: Vec<OwnedFd> = Vec::new();
    let any4 = |p| SocketAddr::from((Ipv4Addr::UNSPECIFIED, p));
    let any6 = |p| SocketAddr::from((Ipv6Addr::UNSPECIFIED, p));
    let dns4 = UdpSocket::bind(any4(53)).map_err(|e| format!("the DNS stub: {e}"))?;
    handed.push(Handed {
        role: Role::Dns,
        port: 53,
        v6: false,
    });
    fds.push(dns4.into());
    if let Ok(dns6) = v6_only_udp(any6(53)) {
        handed.push(Handed {
            role: Role::Dns,
            port: 53,
            v6: true,
        });
        fds.push(dns6);
    }
    for &port in ports {
        let l = TcpListener::bind(any4(port)).map_err(|e| format!("capture port {port}: {e}"))?;
        handed.push(Handed {
            role: Role::Capture,
            port,
            v6: false,
        });
        fds.push(l.into());
        if let Ok(l6) = v6_only_listener(any6(port)) {
            handed.push(Handed {
                role: Role::Capture,
                port,
                v6: true,
            });
            fds.push(l6);
        }
    }
    let proxy =
        TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| format!("the proxy: {e}"))?;
    let port = proxy.local_addr().map_err(|e| e.to_string())?.port();
    handed.push(Handed {
        role: Role::Proxy,
        port,
        v6: false,
    });
    fds.push(proxy.into());
    handed.push(Handed {
        role: Role::Diag,
        port: 0,
        v6: false,
    });
    fds.push(netlink::diag_socket()?);
    Ok((handed, fds))
}

/// A UDP socket on an IPv6 address only (the IPv4 one has its own).
fn v6_only_udp(addr: SocketAddr) -> std::io::Result<OwnedFd> {
    use nix::sys::socket::{SockFlag, SockType, SockaddrIn6, bind, setsockopt, socket, sockopt};
    let s = socket(
        nix::sys::socket::AddressFamily::Inet6,
        SockType::Datagram,
        SockFlag::SOCK_CLOEXEC,
        None,
    )?;
    setsockopt(&s, sockopt::Ipv6V6Only, &true)?;
    let SocketAddr::V6(a) = addr else {
        return Err(std::io::ErrorKind::InvalidInput.into());
    };
    bind(std::os::fd::AsRawFd::as_raw_fd(&s), &SockaddrIn6::from(a))?;
    Ok(s)
}

/// A TCP listener on an IPv6 address only.
fn v6_only_listener(addr: SocketAddr) -> std::io::Result<OwnedFd> {
    use nix::sys::socket::{
        Backlog, SockFlag, SockType, SockaddrIn6, bind, listen, setsockopt, socket, sockopt,
    };
    let s = socket(
        nix::sys::socket::AddressFamily::Inet6,
        SockType::Stream,
        SockFlag::SOCK_CLOEXEC,
        None,
    )?;
    setsockopt(&s, sockopt::Ipv6V6Only, &true)?;
    setsockopt(&s, sockopt::ReuseAddr, &true)?;
    let SocketAddr::V6(a) = addr else {
        return Err(std::io::ErrorKind::InvalidInput.into());
    };
    bind(std::os::fd::AsRawFd::as_raw_fd(&s), &SockaddrIn6::from(a))?;
    listen(&s, Backlog::new(128).map_err(std::io::Error::from)?)?;
    Ok(s)
}

/// Answer the filter's requests until it closes the socket.
fn serve(control: &UnixStream) {
    let Ok(read) = control.try_clone() else {
        return;
    };
    for line in std::io::BufReader::new(read).lines() {
        let Ok(line) = line else { return };
        let answer = match serde_json::from_str::<Request>(&line) {
            Ok(Request::Connect { port, v6 }) => {
                let addr: SocketAddr = if v6 {
                    (Ipv6Addr::LOCALHOST, port).into()
                } else {
                    (Ipv4Addr::LOCALHOST, port).into()
                };
                TcpStream::connect_timeout(&addr, Duration::from_secs(5))
                    .map(|s| {
                        vec![(
                            Handed {
                                role: Role::Connection,
                                port,
                                v6,
                            },
                            OwnedFd::from(s),
                        )]
                    })
                    .map_err(|e| format!("connect to {addr} inside: {e}"))
            }
            Ok(Request::Listen { port }) => TcpListener::bind((Ipv4Addr::LOCALHOST, port))
                .map(|l| {
                    let mut out = vec![(
                        Handed {
                            role: Role::HostPort,
                            port,
                            v6: false,
                        },
                        OwnedFd::from(l),
                    )];
                    if let Ok(l6) = v6_only_listener((Ipv6Addr::LOCALHOST, port).into()) {
                        out.push((
                            Handed {
                                role: Role::HostPort,
                                port,
                                v6: true,
                            },
                            l6,
                        ));
                    }
                    out
                })
                .map_err(|e| format!("listen on {port} inside: {e}")),
            Err(e) => Err(format!("a request automode does not know: {e}")),
        };
        let sent = match answer {
            Ok(items) => {
                let (handed, fds): (Vec<Handed>, Vec<OwnedFd>) = items.into_iter().unzip();
                let borrowed: Vec<BorrowedFd<'_>> = fds.iter().map(AsFd::as_fd).collect();
                reply(
                    control,
                    &Answer {
                        sockets: handed,
                        error: None,
                    },
                    &borrowed,
                )
            }
            Err(why) => reply(
                control,
                &Answer {
                    sockets: Vec::new(),
                    error: Some(why),
                },
                &[],
            ),
        };
        if sent.is_err() {
            return;
        }
    }
}

/// One answer: a JSON line, the descriptors attached to it.
fn reply(control: &UnixStream, answer: &Answer, fds: &[BorrowedFd<'_>]) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(answer).map_err(std::io::Error::other)?;
    line.push(b'\n');
    if fds.is_empty() {
        return (&*control).write_all(&line);
    }
    crate::exec::send_fds(control.as_fd(), &line, fds)
}

/// Read one answer (a line, and the descriptors that came with it).
pub fn read_answer(control: &UnixStream) -> std::io::Result<(Answer, Vec<OwnedFd>)> {
    let mut bytes = Vec::new();
    let mut fds = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let (n, got) = crate::exec::recv_fds(control.as_fd(), &mut buf)?;
        fds.extend(got);
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        bytes.extend_from_slice(&buf[..n]);
        if bytes.ends_with(b"\n") {
            break;
        }
    }
    let answer: Answer = serde_json::from_slice(&bytes).map_err(std::io::Error::other)?;
    Ok((answer, fds))
}
