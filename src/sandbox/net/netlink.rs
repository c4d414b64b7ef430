//! The network namespace's own setup, in its holder process: loopback up,
//! and every address local (`ip route add local default dev lo table
//! local`, for IPv4 and IPv6), so that a connection to any address lands
//! on the filter's listeners (or is refused), never on a wire. Plain
//! rtnetlink messages on a netlink socket.

use std::os::fd::{AsFd, OwnedFd};

use nix::sys::socket::MsgFlags;
use nix::sys::socket::{
    AddressFamily, NetlinkAddr, SockFlag, SockProtocol, SockType, bind, recv, send, socket,
};

const RTM_NEWLINK: u16 = 16;
const RTM_NEWROUTE: u16 = 24;
const NLMSG_ERROR: u16 = 2;
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
