//! A session's network filter (`automode-netd`): started by the session's
//! first command, it starts the namespace's holder, takes the sockets it
//! makes inside, and serves them from the host's side: the DNS stub
//! (`dns.rs`), the capture listeners and the proxy (`relay.rs`), the
//! servers commands start (forwarded to the host's loopback, so the user
//! reaches them at the same port) and the host ports the user listed
//! (forwarded in). It ends when its session's file no longer names it,
//! when the harness that owns the session is gone, or when the holder is
//! gone; its commands' connections then fail, never widen.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use super::allow::{self, AllowList};
use super::holder::{self, Handed, Request, Role};
use super::{Grant, Record, Refusal, Session, Settings, connects, dns, relay};
use crate::exit::Exit;

/// The filter's name in `argv[0]`.
pub const ARGV0: &str = "automode-netd";
/// The holder's name in `argv[0]`.
pub const HOLDER_ARGV0: &str = "automode-netns";
/// How often the filter looks at its session, its owner and the
/// listeners inside.
const TICK: Duration = Duration::from_millis(250);

/// `automode-netd [--detach] DIR STEM OWNER_PID OWNER_START`.
pub fn main(args: &[OsString]) -> Exit {
    let (detach, rest) = match args.first().and_then(|a| a.to_str()) {
        Some("--detach") => (true, &args[1..]),
        _ => (false, args),
    };
    let [dir, stem, owner_pid, owner_start] = rest else {
        return Exit::Usage;
    };
    let session = Session {
        dir: PathBuf::from(dir),
        stem: stem.to_string_lossy().into_owned(),
    };
    let owner = (
        owner_pid.to_str().and_then(|p| p.parse::<i32>().ok()),
        owner_start.to_str().and_then(|p| p.parse::<u64>().ok()),
    );
    if detach {
        return spawn_detached(&session, rest);
    }
    let _ = nix::unistd::setsid();
    match start(&session, owner) {
        Ok(filter) => {
            watch(&filter, owner);
            Exit::Child(0)
        }
        Err(why) => {
            eprintln!("automode-netd: cannot start: {why}");
            Exit::Internal
        }
    }
}

/// Start the real filter in its own process group, its errors to the
/// session's log, and return at once.
fn spawn_detached(session: &Session, args: &[OsString]) -> Exit {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(session.log_path());
    let mut cmd = std::process::Command::new("/proc/self/exe");
    cmd.arg0(ARGV0)
        .args(args)
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
    if let Ok(f) = log {
        cmd.stderr(f);
    }
    match cmd.spawn() {
        Ok(_) => Exit::Child(0),
        Err(_) => Exit::Internal,
    }
}

/// The filter's state, shared by its threads.
#[derive(Debug)]
pub struct Filter {
    pub session: Session,
    pub names: dns::Names,
    settings: RwLock<Loaded>,
    holder: Mutex<UnixStream>,
    pub holder_pid: i32,
    /// The ports the filter itself listens on inside (never forwarded).
    own_ports: HashSet<u16>,
    /// A `sock_diag` socket inside: which servers listen there.
    diag: Option<OwnedFd>,
}

/// The settings as last read, and the allow-list built from them.
#[derive(Debug)]
struct Loaded {
    settings: Settings,
    list: AllowList,
    /// The files the list was built from, with their times then.
    sources: Vec<(PathBuf, Option<SystemTime>)>,
    checked: Instant,
}

fn modified(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

impl Loaded {
    fn read(session: &Session) -> Result<Loaded, String> {
        let path = session.settings_path();
        let settings: Settings = std::fs::read(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))?;
        let vars = settings.vars.clone();
        let var = move |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let tools = allow::ToolPlaces {
            home: settings.home.as_deref(),
            var: Some(&var),
            remotes: &settings.remotes,
        };
        let list = allow::build(&settings.allow, &tools);
        let mut sources: Vec<(PathBuf, Option<SystemTime>)> = allow::tool_files(&tools)
            .into_iter()
            .map(|p| {
                let m = modified(&p);
                (p, m)
            })
            .collect();
        sources.push((path.clone(), modified(&path)));
        Ok(Loaded {
            settings,
            list,
            sources,
            checked: Instant::now(),
        })
    }

    fn stale(&self) -> bool {
        self.sources.iter().any(|(p, m)| modified(p) != *m)
    }
}

/// Why a connection may go out (its source), or why not.
pub type Decision = Result<String, String>;

impl Filter {
    /// May a command reach `host:port`? `token`: the command, when it
    /// came through the proxy (its grant counts too).
    pub fn decide(&self, host: &str, port: u16, token: Option<&str>) -> Decision {
        self.refresh();
        if let Ok(l) = self.settings.read()
            && let Some(e) = l.list.find(host, port)
        {
            return Ok(format!("on the allow-list ({})", e.source));
        }
        if let Some(t) = token
            && self.granted(t, host, port)
        {
            return Ok("approved for this command".into());
        }
        Err(format!(
            "{host}:{port} is not on the network allow-list (sandbox.network.allow)"
        ))
    }

    /// Reread the settings and the tools' files when they changed (at
    /// most a few times a second).
    fn refresh(&self) {
        // Looked at less than a tick ago: as it was (the time of the last
        // look moves only when a look is made, so frequent callers
        // cannot keep a change from being seen).
        if !self
            .settings
            .read()
            .is_ok_and(|l| l.checked.elapsed() > TICK)
        {
            return;
        }
        let stale = self.settings.read().is_ok_and(|l| l.stale());
        if !stale {
            if let Ok(mut l) = self.settings.write() {
                l.checked = Instant::now();
            }
            return;
        }
        match (Loaded::read(&self.session), self.settings.write()) {
            (Ok(fresh), Ok(mut l)) => *l = fresh,
            // Unreadable now: look again after the next tick.
            (Err(_), Ok(mut l)) => l.checked = Instant::now(),
            _ => {}
        }
    }

    /// Does the command `token` hold a grant for `host:port`, and is it
    /// still running: its process session has a member, and its PID
    /// namespace's first process (the same one: its start time) still
    /// lives? The second holds the session's id to the command's own
    /// processes: a pid that comes round again after they are gone finds
    /// the first process gone too (it ends at most two seconds after).
    fn granted(&self, token: &str, host: &str, port: u16) -> bool {
        let path = self
            .session
            .grants_dir()
            .join(format!("{}.json", crate::state::file_stem(token)));
        let Some(g) = std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Grant>(&b).ok())
        else {
            return false;
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        g.hosts.iter().any(|(h, p)| *p == port && *h == host)
            && (g.first_pid == 0
                || crate::nested::proc_stat(g.first_pid)
                    .is_some_and(|s| s.start_ticks == g.first_start))
            && (g.sid == 0 || session_lives(g.sid))
    }

    /// The host ports the user listed (as last configured).
    pub fn host_ports(&self) -> Vec<u16> {
        self.refresh();
        self.settings().2
    }

    /// The session's id and where its records go.
    fn settings(&self) -> (String, PathBuf, Vec<u16>) {
        self.settings.read().map_or_else(
            |_| (String::new(), PathBuf::new(), Vec::new()),
            |l| {
                (
                    l.settings.session.clone(),
                    l.settings.state_dir.clone(),
                    l.settings.host_ports.clone(),
                )
            },
        )
    }

    /// Record a refusal: the session's list (for the hint after the
    /// command) and the audit log.
    pub fn record(&self, r: &Refusal) {
        if let Ok(line) = serde_json::to_string(r)
            && let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.session.refused_path())
        {
            let _ = writeln!(f, "{line}");
        }
        let (session, state_dir, _) = self.settings();
        if !state_dir.as_os_str().is_empty() {
            let mut v = serde_json::to_value(r).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("event".into(), "network-refused".into());
                o.insert("session".into(), session.into());
            }
            let _ = crate::state::audit::append(&state_dir, &v);
        }
    }

    /// Ask the holder for sockets inside.
    pub fn ask(&self, req: &Request) -> Result<Vec<(Handed, OwnedFd)>, String> {
        let control = self
            .holder
            .lock()
            .map_err(|_| "the holder's lock is poisoned")?;
        let mut line = serde_json::to_vec(req).map_err(|e| e.to_string())?;
        line.push(b'\n');
        (&*control)
            .write_all(&line)
            .map_err(|e| format!("the namespace's holder is gone: {e}"))?;
        let (answer, fds) = holder::read_answer(&control)
            .map_err(|e| format!("the namespace's holder is gone: {e}"))?;
        if let Some(why) = answer.error {
            return Err(why);
        }
        Ok(answer.sockets.into_iter().zip(fds).collect())
    }
}

/// Is there a process in session `sid`?
fn session_lives(sid: i32) -> bool {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return false;
    };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .any(|pid| crate::nested::proc_stat(pid).is_some_and(|s| s.session == sid))
}

/// Start the holder, take its sockets, serve them, and write the
/// session's record.
fn start(session: &Session, owner: (Option<i32>, Option<u64>)) -> Result<Arc<Filter>, String> {
    let loaded = Loaded::read(session)?;
    // Grants were for the commands of the filter before this one.
    let _ = std::fs::remove_dir_all(session.grants_dir());
    let ports = capture_ports(&loaded.list, &loaded.settings.host_ports);
    let (mine, theirs) = UnixStream::pair().map_err(|e| format!("socketpair: {e}"))?;
    let csv: Vec<String> = ports.iter().map(u16::to_string).collect();
    let child = std::process::Command::new("/proc/self/exe")
        .arg0(HOLDER_ARGV0)
        .arg(csv.join(","))
        .stdin(std::process::Stdio::from(OwnedFd::from(theirs)))
        .stdout(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the namespace's holder: {e}"))?;
    let holder_pid = child.id() as i32;
    // The holder lives as long as we do; it is reaped by whoever inherits
    // it after us.
    std::mem::forget(child);
    let (answer, fds) =
        holder::read_answer(&mine).map_err(|e| format!("the namespace's holder failed: {e}"))?;
    if let Some(why) = answer.error {
        return Err(why);
    }
    let host_ports = loaded.settings.host_ports.clone();
    let mut own_ports: HashSet<u16> = ports.iter().copied().collect();
    own_ports.extend(host_ports.iter().copied());
    let mut proxy_port = 0;
    let mut handed: Vec<(holder::Handed, OwnedFd)> = answer.sockets.into_iter().zip(fds).collect();
    let diag = handed
        .iter()
        .position(|(h, _)| h.role == Role::Diag)
        .map(|i| handed.remove(i).1);
    for (h, _) in &handed {
        if h.role == Role::Proxy {
            proxy_port = h.port;
            own_ports.insert(h.port);
        }
    }
    let filter = Arc::new(Filter {
        session: session.clone(),
        names: dns::Names::default(),
        settings: RwLock::new(loaded),
        holder: Mutex::new(mine),
        holder_pid,
        own_ports,
        diag,
    });
    for (h, fd) in handed {
        let f = filter.clone();
        match h.role {
            Role::Dns => {
                let sock = UdpSocket::from(fd);
                std::thread::spawn(move || serve_dns(&f, &sock, h.v6));
            }
            Role::Capture => {
                let l = TcpListener::from(fd);
                std::thread::spawn(move || relay::serve_capture(&f, &l));
            }
            Role::Proxy => {
                let l = TcpListener::from(fd);
                std::thread::spawn(move || relay::serve_proxy(&f, &l));
            }
            Role::Connection | Role::HostPort | Role::Diag => {}
        }
    }
    for port in host_ports {
        match filter.ask(&Request::Listen { port }) {
            Ok(listeners) => {
                for (_, fd) in listeners {
                    let f = filter.clone();
                    let l = TcpListener::from(fd);
                    std::thread::spawn(move || relay::serve_host_port(&f, &l, port));
                }
            }
            Err(why) => eprintln!("automode-netd: host port {port}: {why}"),
        }
    }
    let daemon_start = crate::nested::own_start_ticks().unwrap_or_default();
    // Commands send the listener of their connect calls here (none where
    // the name cannot be taken: their connections are then the kernel's,
    // inside).
    let connects_name = connects::socket_name(std::process::id() as i32, daemon_start);
    let netns = std::fs::metadata(format!("/proc/{holder_pid}/ns/net"))
        .map(|m| std::os::unix::fs::MetadataExt::ino(&m));
    let connects_name = match (connects::bind(&connects_name), netns) {
        (Ok(acceptor), Ok(netns)) => {
            let f = filter.clone();
            std::thread::spawn(move || {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    connects::serve(&f, &acceptor, netns);
                }));
                // Its commands' connections can no longer be made: they
                // fail, and the session's next command starts a filter
                // again.
                eprintln!("automode-netd: the connections' thread ended; the filter ends");
                std::process::exit(70);
            });
            connects_name
        }
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("automode-netd: commands' connections stay inside: {e}");
            String::new()
        }
    };
    let record = Record {
        daemon_pid: std::process::id() as i32,
        daemon_start,
        holder_pid,
        holder_start: wait_start_ticks(holder_pid),
        proxy_port,
        capture_ports: ports,
        build: super::build_id(),
        connects: connects_name,
        // As `watch` reads it: an owner is named by both or not at all.
        owner_pid: owner.0.filter(|_| owner.1.is_some()).unwrap_or(0),
        owner_start: owner.1.unwrap_or(0),
    };
    let path = session.record_path();
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(
        &tmp,
        serde_json::to_vec(&record).map_err(|e| e.to_string())?,
    )
    .and_then(|()| std::fs::rename(&tmp, &path))
    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(filter)
}

/// The holder's start time (it is running: it answered).
fn wait_start_ticks(pid: i32) -> u64 {
    crate::nested::proc_stat(pid).map_or(0, |s| s.start_ticks)
}

/// The ports the filter listens on at every address: every port an
/// allow-list entry names.
fn capture_ports(list: &AllowList, host_ports: &[u16]) -> Vec<u16> {
    let mut p = list.ports();
    for w in allow::WEB_PORTS {
        if !p.contains(w) {
            p.push(*w);
        }
    }
    // A listed host port is the host's service on loopback (a registry a
    // tool's settings name, say): its relay listens there instead.
    p.retain(|x| !host_ports.contains(x));
    p.sort_unstable();
    p
}

/// Serve until the session is over; meanwhile forward the servers that
/// commands start inside to the host's loopback.
fn watch(filter: &Arc<Filter>, owner: (Option<i32>, Option<u64>)) {
    let me = std::process::id() as i32;
    let mut forwarded: HashMap<(u16, bool), TcpListener> = HashMap::new();
    loop {
        std::thread::sleep(TICK);
        let ours = Record::read(&filter.session.record_path()).is_some_and(|r| r.daemon_pid == me);
        let owner_lives = match owner {
            (Some(pid), Some(start)) => super::alive(pid, start),
            _ => true,
        };
        let holder_lives = crate::nested::proc_stat(filter.holder_pid).is_some();
        if !ours || !owner_lives || !holder_lives {
            std::process::exit(0);
        }
        forward_servers(filter, &mut forwarded);
    }
}

/// Listening sockets inside on loopback or every address: forward each
/// port from the host's loopback (when the host's port is free), stop
/// when the server does.
fn forward_servers(filter: &Arc<Filter>, forwarded: &mut HashMap<(u16, bool), TcpListener>) {
    let inside = match filter.diag.as_ref().map(super::netlink::listening) {
        Some(Ok(found)) => found,
        _ => listening_inside(filter.holder_pid),
    };
    let wanted: HashSet<(u16, bool)> = inside
        .into_iter()
        .filter(|(port, _)| !filter.own_ports.contains(port))
        .collect();
    forwarded.retain(|key, l| {
        let keep = wanted.contains(key);
        if !keep {
            let _ = nix::sys::socket::shutdown(l.as_raw_fd(), nix::sys::socket::Shutdown::Both);
        }
        keep
    });
    for key in wanted {
        if forwarded.contains_key(&key) {
            continue;
        }
        let (port, v6) = key;
        // A host service on the port's other loopback address: forwarding
        // this one would put the command's server where the host's
        // clients of that service may go first (`localhost` is `::1` for
        // many), to read what they send it.
        if !forwarded.contains_key(&(port, !v6)) && host_loopback_taken(port, !v6) {
            continue;
        }
        let Ok(l) = TcpListener::bind(loopback(port, v6)) else {
            continue;
        };
        if let Ok(copy) = l.try_clone() {
            let f = filter.clone();
            std::thread::spawn(move || relay::serve_forward(&f, &copy, port, v6));
            forwarded.insert(key, l);
        }
    }
}

fn loopback(port: u16, v6: bool) -> SocketAddr {
    if v6 {
        (std::net::Ipv6Addr::LOCALHOST, port).into()
    } else {
        (Ipv4Addr::LOCALHOST, port).into()
    }
}

/// Does something on the host hold `port` on its loopback address of
/// that family (bound there or on every address)?
fn host_loopback_taken(port: u16, v6: bool) -> bool {
    matches!(
        TcpListener::bind(loopback(port, v6)),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse
    )
}

/// `(port, IPv6)` of every TCP socket listening inside on loopback or
/// every address (`/proc/<holder>/net/tcp` and `tcp6`): where the
/// `sock_diag` socket failed.
fn listening_inside(holder: i32) -> Vec<(u16, bool)> {
    let mut out = Vec::new();
    for (file, v6) in [("tcp", false), ("tcp6", true)] {
        let Some(text) = crate::procfs::read(format!("/proc/{holder}/net/{file}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.get(3) != Some(&"0A") {
                continue;
            }
            let Some((addr, port)) = f.get(1).and_then(|a| a.split_once(':')) else {
                continue;
            };
            let Ok(port) = u16::from_str_radix(port, 16) else {
                continue;
            };
            let loopback_or_any = if v6 {
                addr == "00000000000000000000000000000000"
                    || addr == "00000000000000000000000001000000"
            } else {
                u32::from_str_radix(addr, 16).is_ok_and(|a| {
                    let ip = Ipv4Addr::from(a.to_le_bytes());
                    ip.is_unspecified() || ip.is_loopback()
                })
            };
            if loopback_or_any {
                out.push((port, v6));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Answer DNS queries on one of the stub's sockets, from the address each
/// query was sent to (so the client takes the answer).
fn serve_dns(filter: &Filter, sock: &UdpSocket, v6: bool) {
    use nix::sys::socket::{
        ControlMessage, ControlMessageOwned, MsgFlags, SockaddrStorage, recvmsg, sendmsg,
        setsockopt, sockopt,
    };
    let ok = if v6 {
        setsockopt(&sock.as_fd(), sockopt::Ipv6RecvPacketInfo, &true)
    } else {
        setsockopt(&sock.as_fd(), sockopt::Ipv4PacketInfo, &true)
    };
    if ok.is_err() {
        return;
    }
    let mut buf = [0u8; 1500];
    loop {
        let mut cmsg = nix::cmsg_space!(libc::in6_pktinfo);
        let mut iov = [std::io::IoSliceMut::new(&mut buf)];
        let Ok(msg) = recvmsg::<SockaddrStorage>(
            sock.as_raw_fd(),
            &mut iov,
            Some(&mut cmsg),
            MsgFlags::empty(),
        ) else {
            continue;
        };
        let (n, from) = (msg.bytes, msg.address);
        let mut info4 = None;
        let mut info6 = None;
        if let Ok(cmsgs) = msg.cmsgs() {
            for c in cmsgs {
                match c {
                    ControlMessageOwned::Ipv4PacketInfo(mut i) => {
                        i.ipi_spec_dst = i.ipi_addr;
                        i.ipi_ifindex = 0;
                        info4 = Some(i);
                    }
                    ControlMessageOwned::Ipv6PacketInfo(mut i) => {
                        i.ipi6_ifindex = 0;
                        info6 = Some(i);
                    }
                    _ => {}
                }
            }
        }
        let Some(from) = from else { continue };
        let Some(q) = dns::parse(&buf[..n]) else {
            continue;
        };
        let answer = dns::answer(&q, filter.names.address(&q.name));
        let iov = [std::io::IoSlice::new(&answer)];
        let cmsgs: Vec<ControlMessage<'_>> = match (&info4, &info6) {
            (Some(i), _) => vec![ControlMessage::Ipv4PacketInfo(i)],
            (_, Some(i)) => vec![ControlMessage::Ipv6PacketInfo(i)],
            _ => Vec::new(),
        };
        let _ = sendmsg(
            sock.as_raw_fd(),
            &iov,
            &cmsgs,
            MsgFlags::empty(),
            Some(&from),
        );
    }
}

/// Find the process inside that owns the client end of a connection
/// (`client` connected to `dest`): its pid and name.
pub fn process_of(holder: i32, client: SocketAddr, dest: SocketAddr) -> Option<(i32, String)> {
    let hex = |a: SocketAddr| -> String {
        match a {
            SocketAddr::V4(v) => format!(
                "{:08X}:{:04X}",
                u32::from_le_bytes(v.ip().octets()),
                v.port()
            ),
            SocketAddr::V6(v) => {
                let o = v.ip().octets();
                let words: String = o
                    .chunks(4)
                    .map(|c| format!("{:08X}", u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                    .collect();
                format!("{words}:{:04X}", v.port())
            }
        }
    };
    let file = if client.is_ipv4() { "tcp" } else { "tcp6" };
    let text = crate::procfs::read(format!("/proc/{holder}/net/{file}"))?;
    let (want_local, want_remote) = (hex(client), hex(dest));
    let inode = text.lines().skip(1).find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.get(1) == Some(&want_local.as_str()) && f.get(2) == Some(&want_remote.as_str()))
            .then(|| f.get(9).map(|s| (*s).to_string()))
            .flatten()
    })?;
    let target = format!("socket:[{inode}]");
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        // The filter holds a command's socket while it connects it.
        if pid == std::process::id() as i32 {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(e.path().join("fd")) else {
            continue;
        };
        if fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == target.as_str()))
        {
            let name = crate::procfs::read(format!("/proc/{pid}/comm"))
                .map(|s| s.trim().to_string())
                .unwrap_or_default();
            return Some((pid, name));
        }
    }
    None
}

/// A connection the host's side made to a forwarded or listed port.
pub fn connect_host_port(port: u16) -> std::io::Result<TcpStream> {
    TcpStream::connect_timeout(&(Ipv4Addr::LOCALHOST, port).into(), Duration::from_secs(5))
}
