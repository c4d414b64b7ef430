//! The filter's connections. A command's connection reaches the filter
//! one of two ways: through the proxy its environment names (`CONNECT
//! host:port`, or an absolute `http://` request: tools that honour
//! `HTTPS_PROXY`), or captured, made to an address the DNS stub gave (or
//! any other address: every one is local inside) on a port the filter
//! listens on. Either way the filter decides by host name and port
//! (`Filter::decide`), resolves an allowed name itself, refuses loopback,
//! private and link-local results (the filter sits on the host's network,
//! where those are the host's own services), and connects. A refusal
//! speaks the client's protocol where there is one: an HTTP 403 whose
//! body names the host and the key that would allow it. Also here: the
//! forwarding of servers inside to the host's loopback and of listed
//! host ports inside.

use std::io::{Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use super::daemon::{self, Filter};
use super::holder::Request;
use super::{Refusal, dns};

/// How long a connection to an allowed host may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest request head the proxy reads.
const MAX_HEAD: usize = 16 * 1024;

/// Accept captured connections.
pub fn serve_capture(filter: &Arc<Filter>, l: &TcpListener) {
    for conn in l.incoming() {
        let Ok(s) = conn else { continue };
        let f = filter.clone();
        std::thread::spawn(move || capture(&f, s));
    }
}

/// Accept proxy connections.
pub fn serve_proxy(filter: &Arc<Filter>, l: &TcpListener) {
    for conn in l.incoming() {
        let Ok(s) = conn else { continue };
        let f = filter.clone();
        std::thread::spawn(move || proxy(&f, s));
    }
}

/// A connection to an address inside: the name the DNS stub gave it, or
/// the address itself.
fn capture(f: &Filter, s: TcpStream) {
    let (Ok(dest), Ok(peer)) = (s.local_addr(), s.peer_addr()) else {
        return;
    };
    let host = match dest.ip() {
        IpAddr::V4(a) if dns::is_fake(a) => f.names.name_of(a),
        ip => Some(ip.to_string()),
    };
    let port = dest.port();
    let Some(host) = host else {
        refuse(
            f,
            &s,
            "(an address the filter never gave out)",
            port,
            "capture",
            None,
            Some((peer, dest)),
            "unknown address".into(),
        );
        return;
    };
    match f
        .decide(&host, port, None)
        .and_then(|_| connect_outside(&host, port))
    {
        Ok(out) => splice(s, out, &[]),
        Err(why) => refuse(f, &s, &host, port, "capture", None, Some((peer, dest)), why),
    }
}

/// A proxy request.
fn proxy(f: &Filter, mut s: TcpStream) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
    let Some((head, rest)) = read_head(&mut s) else {
        return;
    };
    let _ = s.set_read_timeout(None);
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (method, target) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    let headers: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
    let token = headers.iter().find_map(|h| {
        let (name, value) = h.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("proxy-authorization")
            .then(|| basic_password(value.trim()))
            .flatten()
    });
    let token = token.as_deref();
    if method.eq_ignore_ascii_case("CONNECT") {
        let Some((host, port)) = host_port(target, 443) else {
            let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
            return;
        };
        match f
            .decide(&host, port, token)
            .and_then(|_| connect_outside(&host, port))
        {
            Ok(out) => {
                if s.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .is_ok()
                {
                    splice(s, out, &rest);
                }
            }
            Err(why) => refuse(f, &s, &host, port, "proxy", token, None, why),
        }
        return;
    }
    // An absolute request: `GET http://host[:port]/path HTTP/1.1`.
    let Some(after) = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("HTTP://"))
    else {
        let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
        return;
    };
    let (authority, path) = match after.find('/') {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, "/"),
    };
    let Some((host, port)) = host_port(authority, 80) else {
        let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
        return;
    };
    match f
        .decide(&host, port, token)
        .and_then(|_| connect_outside(&host, port))
    {
        Ok(out) => {
            let version = parts.next().unwrap_or("HTTP/1.1");
            let mut head = format!("{method} {path} {version}\r\n");
            for h in headers {
                let name = h.split(':').next().unwrap_or_default().trim();
                if !name.to_ascii_lowercase().starts_with("proxy-") {
                    head.push_str(h);
                    head.push_str("\r\n");
                }
            }
            head.push_str("\r\n");
            let mut first = head.into_bytes();
            first.extend_from_slice(&rest);
            splice(s, out, &first);
        }
        Err(why) => refuse(f, &s, &host, port, "proxy", token, None, why),
    }
}

/// `host:port` (or `[v6]:port`), the port defaulting to `default`.
fn host_port(text: &str, default: u16) -> Option<(String, u16)> {
    let text = text.rsplit_once('@').map_or(text, |(_, h)| h);
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (h, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None => default,
        };
        (h.to_string(), port)
    } else {
        match text.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), p.parse().ok()?),
            None => (text.to_string(), default),
        }
    };
    (!host.is_empty()).then(|| (host.to_ascii_lowercase(), port))
}

/// Read a request head (to the blank line) and what came after it.
fn read_head(s: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = s.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(at + 4);
            return Some((String::from_utf8_lossy(&buf[..at]).into_owned(), rest));
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
    }
}

/// The password of `Basic base64(user:password)`.
fn basic_password(value: &str) -> Option<String> {
    let encoded = value
        .strip_prefix("Basic ")
        .or_else(|| value.strip_prefix("basic "))?;
    let decoded = base64_decode(encoded.trim())?;
    let text = String::from_utf8(decoded).ok()?;
    text.split_once(':').map(|(_, p)| p.to_string())
}

/// Standard base64 (padding optional); `None` on any other byte.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in text.bytes().filter(|b| *b != b'=') {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Addresses that are the host's own or its network's, never a
/// destination for a command (and never one of the filter's own).
pub fn inside_host(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => {
            let o = a.octets();
            a.is_loopback()
                || a.is_private()
                || a.is_link_local()
                || a.is_unspecified()
                || a.is_broadcast()
                || a.is_multicast()
                // Shared address space (carrier NAT), often a host's.
                || (o[0] == 100 && (64..128).contains(&o[1]))
                || dns::is_fake(a)
        }
        IpAddr::V6(a) => {
            if let Some(v4) = a.to_ipv4_mapped() {
                return inside_host(IpAddr::V4(v4));
            }
            let first = a.segments()[0];
            a.is_loopback()
                || a.is_unspecified()
                || a.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
        }
    }
}

/// Connect to an allowed host from the host's side: resolved here, never
/// to the host's own or private addresses.
pub fn connect_outside(host: &str, port: u16) -> Result<TcpStream, String> {
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("{host} does not resolve: {e}"))?
        .collect();
    let usable: Vec<SocketAddr> = addrs
        .iter()
        .copied()
        .filter(|a| !inside_host(a.ip()))
        .collect();
    if usable.is_empty() {
        return Err(format!(
            "{host} resolves only to loopback, private or link-local addresses ({}), which commands never reach through the filter",
            addrs
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut last = String::new();
    for a in usable {
        match TcpStream::connect_timeout(&a, CONNECT_TIMEOUT) {
            Ok(s) => return Ok(s),
            Err(e) => last = format!("cannot connect to {host} ({a}): {e}"),
        }
    }
    Err(last)
}

/// Refuse a connection: recorded, and told in HTTP where the client
/// speaks it (the proxy, port 80).
#[allow(clippy::too_many_arguments)]
fn refuse(
    f: &Filter,
    s: &TcpStream,
    host: &str,
    port: u16,
    via: &str,
    command: Option<&str>,
    ends: Option<(SocketAddr, SocketAddr)>,
    why: String,
) {
    let process = ends.and_then(|(client, dest)| daemon::process_of(f.holder_pid, client, dest));
    f.record(&Refusal {
        at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        host: host.to_string(),
        port,
        via: via.to_string(),
        command: command.map(str::to_string),
        pid: process.as_ref().map(|(p, _)| *p),
        process: process.map(|(_, n)| n),
        why: why.clone(),
    });
    if via == "proxy" || port == 80 {
        let body = format!(
            "automode: {why}. The network wall lets commands reach only the hosts on the allow-list; the user can add {host} (or {host}:{port}) to sandbox.network.allow, or approve a command that names it.\n"
        );
        let reply = format!(
            "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\nX-Automode: refused\r\n\r\n{body}",
            body.len()
        );
        let mut w = s;
        let _ = w.write_all(reply.as_bytes());
    }
    let _ = s.shutdown(Shutdown::Both);
}

/// Forward connections to a server inside (the host's loopback port
/// stands for it).
pub fn serve_forward(filter: &Arc<Filter>, l: &TcpListener, port: u16, v6: bool) {
    for conn in l.incoming() {
        let Ok(s) = conn else { return };
        let f = filter.clone();
        std::thread::spawn(move || {
            if let Ok(mut socks) = f.ask(&Request::Connect { port, v6 })
                && let Some((_, fd)) = socks.pop()
            {
                splice(s, TcpStream::from(fd), &[]);
            }
        });
    }
}

/// Forward connections made inside to a listed port of the host's
/// loopback.
pub fn serve_host_port(filter: &Arc<Filter>, l: &TcpListener, port: u16) {
    for conn in l.incoming() {
        let Ok(s) = conn else { continue };
        let _ = filter;
        std::thread::spawn(move || {
            if let Ok(out) = daemon::connect_host_port(port) {
                splice(s, out, &[]);
            }
        });
    }
}

/// Copy both ways until both ends are done; `first` goes to `b` first.
pub fn splice(a: TcpStream, b: TcpStream, first: &[u8]) {
    let _ = a.set_nodelay(true);
    let _ = b.set_nodelay(true);
    let (Ok(a2), Ok(b2)) = (a.try_clone(), b.try_clone()) else {
        return;
    };
    let mut b_w = &b;
    if !first.is_empty() && b_w.write_all(first).is_err() {
        return;
    }
    let back = std::thread::spawn(move || copy(b2, a2));
    copy(a, b);
    let _ = back.join();
}

/// Copy `from` to `to` until the end, then end `to`'s writing side: in
/// the kernel (`splice` through a pipe, no copy into this process), or
/// through a buffer where the kernel cannot.
fn copy(mut from: TcpStream, mut to: TcpStream) {
    if !spliced(&from, &to) {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

/// How much one `splice` moves at most.
const SPLICE_BYTES: usize = 1 << 20;

/// Move everything from `from` to `to` with `splice`; `false` when the
/// kernel refused before anything moved (then copy the usual way).
fn spliced(from: &TcpStream, to: &TcpStream) -> bool {
    use nix::fcntl::{OFlag, SpliceFFlags, splice};
    let Ok((r, w)) = nix::unistd::pipe2(OFlag::O_CLOEXEC) else {
        return false;
    };
    let _ = nix::fcntl::fcntl(&w, nix::fcntl::FcntlArg::F_SETPIPE_SZ(SPLICE_BYTES as i32));
    // (Not SPLICE_F_MORE: on a socket it corks what is sent, and a
    // request's last bytes would wait for more that never comes.)
    let flags = SpliceFFlags::SPLICE_F_MOVE;
    let mut moved_any = false;
    loop {
        let n = match splice(from, None, &w, None, SPLICE_BYTES, flags) {
            Ok(0) => return true,
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return moved_any,
        };
        moved_any = true;
        let mut left = n;
        while left > 0 {
            match splice(&r, None, to, None, left, flags) {
                Ok(0) => return true,
                Ok(m) => left -= m,
                Err(nix::errno::Errno::EINTR) => {}
                Err(_) => return true,
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_hosts_own_and_private_addresses_are_never_reached() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.1.1",
            "0.0.0.0",
            "100.64.0.1",
            "198.18.0.5",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(inside_host(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "93.184.216.34",
            "140.82.112.3",
            "2606:4700::1111",
            "198.51.100.7",
        ] {
            assert!(!inside_host(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn proxy_words_are_read_as_clients_write_them() {
        assert_eq!(
            host_port("github.com:443", 80),
            Some(("github.com".into(), 443))
        );
        assert_eq!(
            host_port("Example.org", 80),
            Some(("example.org".into(), 80))
        );
        assert_eq!(
            host_port("[2001:db8::1]:8443", 443),
            Some(("2001:db8::1".into(), 8443))
        );
        assert_eq!(host_port("u:p@h.test:81", 80), Some(("h.test".into(), 81)));
        assert_eq!(host_port(":80", 80), None);
        // "automode:TOKEN"
        assert_eq!(
            basic_password("Basic YXV0b21vZGU6VE9LRU4="),
            Some("TOKEN".into())
        );
        assert_eq!(base64_decode("YQ"), Some(b"a".to_vec()));
        assert_eq!(base64_decode("*"), None);
    }
}
