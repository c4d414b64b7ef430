//! The network namespace's own setup, in its holder process: loopback up,
//! and every address local (`ip route add local default dev lo table
//! local`, for IPv4 and IPv6), so that a connection to any address lands
//! on the filter's listeners (or is refused), never on a wire. Plain
//! rtnetlink messages on a netlink socket. Also the filter's question of
//! which TCP servers listen inside (`sock_diag`, on a socket the holder
//! made there: it walks only the listening sockets, where reading
//! `/proc/<pid>/net/tcp` walks every bucket of the host's connection
//! table, ~5 ms a read).

use std::os::fd::{AsFd, OwnedFd};

use nix::sys::socket::MsgFlags;
use nix::sys::socket::{
    AddressFamily, NetlinkAddr, SockFlag, SockProtocol, SockType, bind, recv, send, socket,
};

const RTM_NEWLINK: u16 = 16;
const RTM_NEWROUTE: u16 = 24;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLM_F_DUMP: u16 = 0x300;
const TCP_LISTEN: u32 = 10;
const NLM_F_REQUEST: u16 = 0x1;
const NLM_F_ACK: u16 = 0x4;
const NLM_F_EXCL: u16 = 0x200;
const NLM_F_CREATE: u16 = 0x400;
const RT_TABLE_LOCAL: u8 = 255;
const RTPROT_BOOT: u8 = 3;
const RT_SCOPE_HOST: u8 = 254;
const RTN_LOCAL: u8 = 2;
const RTA_OIF: u16 = 4;
/// The loopback interface is the first one of a new namespace.
const LO_INDEX: u32 = 1;

/// Bring `lo` up and make every IPv4 and IPv6 address local. IPv6 may be
/// off in the kernel: then only IPv4 is routed (IPv6 stays unreachable).
pub fn setup() -> Result<(), String> {
    let sock = socket(
        AddressFamily::Netlink,
        SockType::Raw,
        SockFlag::SOCK_CLOEXEC,
        SockProtocol::NetlinkRoute,
    )
    .map_err(|e| format!("netlink socket: {e}"))?;
    bind(sock.as_fd().as_raw_fd_compat(), &NetlinkAddr::new(0, 0))
        .map_err(|e| format!("netlink bind: {e}"))?;
    // ifinfomsg: family, pad, type, index, flags, change.
    let mut link = Vec::new();
    link.extend([libc::AF_UNSPEC as u8, 0]);
    link.extend(0u16.to_ne_bytes());
    link.extend((LO_INDEX as i32).to_ne_bytes());
    link.extend((libc::IFF_UP as u32).to_ne_bytes());
    link.extend((libc::IFF_UP as u32).to_ne_bytes());
    request(&sock, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, &link, 1)
        .map_err(|e| format!("bringing up loopback: {e}"))?;
    local_default(&sock, libc::AF_INET as u8, 2).map_err(|e| format!("the IPv4 route: {e}"))?;
    let _ = local_default(&sock, libc::AF_INET6 as u8, 3);
    Ok(())
}

/// A `sock_diag` socket in this process's network namespace (the holder
/// makes it inside and hands it to the filter).
pub fn diag_socket() -> Result<OwnedFd, String> {
    socket(
        AddressFamily::Netlink,
        SockType::Raw,
        SockFlag::SOCK_CLOEXEC,
        SockProtocol::NetlinkSockDiag,
    )
    .map_err(|e| format!("sock_diag socket: {e}"))
}

/// `(port, IPv6)` of every TCP socket listening on loopback or on every
/// address in the namespace of `sock` (a `diag_socket`).
pub fn listening(sock: &OwnedFd) -> Result<Vec<(u16, bool)>, String> {
    let mut out = Vec::new();
    for (family, v6) in [(libc::AF_INET as u8, false), (libc::AF_INET6 as u8, true)] {
        // inet_diag_req_v2: family, protocol, extensions, pad, states,
        // then the socket id (48 bytes: any).
        let mut req = vec![family, libc::IPPROTO_TCP as u8, 0, 0];
        req.extend((1u32 << TCP_LISTEN).to_ne_bytes());
        req.extend([0u8; 48]);
        let len = 16 + req.len();
        let mut msg = Vec::with_capacity(len);
        msg.extend((len as u32).to_ne_bytes());
        msg.extend(SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        msg.extend((NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
        msg.extend(1u32.to_ne_bytes());
        msg.extend(0u32.to_ne_bytes());
        msg.extend(req);
        send(sock.as_fd().as_raw_fd_compat(), &msg, MsgFlags::empty())
            .map_err(|e| e.to_string())?;
        let mut buf = vec![0u8; 32 * 1024];
        'dump: loop {
            let n = recv(sock.as_fd().as_raw_fd_compat(), &mut buf, MsgFlags::empty())
                .map_err(|e| e.to_string())?;
            let mut at = 0;
            while at + 16 <= n {
                let word =
                    |o: usize| u32::from_ne_bytes([buf[o], buf[o + 1], buf[o + 2], buf[o + 3]]);
                let msg_len = word(at) as usize;
                let kind = u16::from_ne_bytes([buf[at + 4], buf[at + 5]]);
                if msg_len < 16 || at + msg_len > n {
                    return Err("a malformed answer".into());
                }
                match kind {
                    NLMSG_DONE => break 'dump,
                    NLMSG_ERROR => {
                        let code = word(at + 16) as i32;
                        return Err(std::io::Error::from_raw_os_error(-code).to_string());
                    }
                    SOCK_DIAG_BY_FAMILY => {
                        if let Some(found) = listener(&buf[at + 16..at + msg_len], v6) {
                            out.push(found);
                        }
                    }
                    _ => {}
                }
                at += (msg_len + 3) & !3;
            }
            if n == 0 {
                break;
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// One `inet_diag_msg`: its port when it listens on loopback or every
/// address. (family, state, timer, retransmits, then the id: source
/// port and destination port big-endian, source address 16 bytes.)
fn listener(msg: &[u8], v6: bool) -> Option<(u16, bool)> {
    let id = msg.get(4..28)?;
    let port = u16::from_be_bytes([id[0], id[1]]);
    let addr = &id[4..20];
    let wanted = if v6 {
        let a = std::net::Ipv6Addr::from(<[u8; 16]>::try_from(addr).ok()?);
        a.is_unspecified() || a.is_loopback()
    } else {
        let a = std::net::Ipv4Addr::new(addr[0], addr[1], addr[2], addr[3]);
        a.is_unspecified() || a.is_loopback()
    };
    wanted.then_some((port, v6))
}

/// `local default dev lo table local` for one family.
fn local_default(sock: &OwnedFd, family: u8, seq: u32) -> Result<(), String> {
    // rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type,
    // flags; then RTA_OIF.
    let mut route = vec![
        family,
        0,
        0,
        0,
        RT_TABLE_LOCAL,
        RTPROT_BOOT,
        RT_SCOPE_HOST,
        RTN_LOCAL,
    ];
    route.extend(0u32.to_ne_bytes());
    route.extend(8u16.to_ne_bytes());
    route.extend(RTA_OIF.to_ne_bytes());
    route.extend(LO_INDEX.to_ne_bytes());
    request(
        sock,
        RTM_NEWROUTE,
        NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
        &route,
        seq,
    )
}

/// Send one request and read its acknowledgement.
fn request(sock: &OwnedFd, kind: u16, flags: u16, body: &[u8], seq: u32) -> Result<(), String> {
    let len = 16 + body.len();
    let mut msg = Vec::with_capacity(len);
    msg.extend((len as u32).to_ne_bytes());
    msg.extend(kind.to_ne_bytes());
    msg.extend(flags.to_ne_bytes());
    msg.extend(seq.to_ne_bytes());
    msg.extend(0u32.to_ne_bytes());
    msg.extend(body);
    send(sock.as_fd().as_raw_fd_compat(), &msg, MsgFlags::empty()).map_err(|e| e.to_string())?;
    let mut buf = [0u8; 1024];
    let n = recv(sock.as_fd().as_raw_fd_compat(), &mut buf, MsgFlags::empty())
        .map_err(|e| e.to_string())?;
    if n < 20 {
        return Err("a short answer".into());
    }
    let kind = u16::from_ne_bytes([buf[4], buf[5]]);
    if kind != NLMSG_ERROR {
        return Err(format!("an answer of type {kind}"));
    }
    let code = i32::from_ne_bytes([buf[16], buf[17], buf[18], buf[19]]);
    if code == 0 {
        Ok(())
    } else {
        Err(std::io::Error::from_raw_os_error(-code).to_string())
    }
}

/// nix takes raw descriptors for these calls.
trait RawCompat {
    fn as_raw_fd_compat(&self) -> std::os::fd::RawFd;
}

impl RawCompat for std::os::fd::BorrowedFd<'_> {
    fn as_raw_fd_compat(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self.as_raw_fd()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn sock_diag_finds_a_loopback_listener_and_not_a_closed_one() {
        let sock = diag_socket().unwrap();
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert!(listening(&sock).unwrap().contains(&(port, false)));
        if let Ok(l6) = std::net::TcpListener::bind("[::1]:0") {
            let p6 = l6.local_addr().unwrap().port();
            assert!(listening(&sock).unwrap().contains(&(p6, true)));
        }
        // A connected (not listening) socket is not a server.
        let c = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let client_port = c.local_addr().unwrap().port();
        drop(l);
        let now = listening(&sock).unwrap();
        assert!(!now.contains(&(port, false)));
        assert!(!now.contains(&(client_port, false)));
    }
}
