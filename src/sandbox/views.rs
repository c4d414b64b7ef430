//! What a command sees replaced in its mount namespace: the host's UNIX
//! sockets and temporary directories, and the home. Landlock below ABI 9
//! does not govern connecting to a socket
//! file, so in the command's mount namespace the places where the host's
//! sockets live are replaced: `/tmp` and `$TMPDIR` by the session's own
//! temporary directory (shared by its commands: `echo > /tmp/a` in one
//! and `cat /tmp/a` in the next), the user's runtime directory and the
//! container engines' sockets by empty ones. What the command needs
//! under a replaced place is bound back at its path: the project, the
//! write roots and kept reads, the sockets `sandbox.sockets.allow`
//! names, and `SSH_AUTH_SOCK` for a program that keeps the variable.
//!
//! The home is replaced the same way, by an empty directory with what
//! builds and tests need bound back: the project, the toolchains and tool
//! caches, the configuration in `HOME_READ`, and `sandbox.read`. Other
//! projects and everything else in the home are not there.

use std::path::{Path, PathBuf};

/// The host's socket places a command does not see (`$UID`: the user's
/// id), with why. Sockets elsewhere stay reachable (README says which).
pub const SOCKET_PLACES: &[(&str, &str)] = &[
    (
        "/run/user/$UID",
        "the user's runtime directory: the session bus (systemd-run --user runs what it is sent), ssh, gpg and keyring agents, podman's and pipewire's sockets",
    ),
    (
        "/run/docker.sock",
        "the Docker API: a container it starts has the host's files",
    ),
    ("/var/run/docker.sock", "the Docker API by its older path"),
    (
        "/run/podman",
        "podman's API socket: like Docker's, it starts containers",
    ),
    ("/run/containerd", "containerd's API"),
    (
        "/run/screen",
        "GNU screen's sessions: a session driven from here runs commands outside the sandbox",
    ),
];

/// The host's socket places a command behind the network wall does not
/// see besides (`sandbox.sockets.allow` brings one back), with why: a
/// name looked up through them leaves the machine as a DNS query, which
/// the wall exists to stop.
pub const WALL_SOCKET_PLACES: &[(&str, &str)] = &[
    (
        "/run/systemd/resolve",
        "systemd-resolved's lookups (glibc's nss-resolve): the host's resolver asks the world for any name",
    ),
    (
        "/run/nscd",
        "the name service cache: it resolves hosts for its callers",
    ),
    ("/var/run/nscd", "the name service cache by its older path"),
    (
        "/run/dbus/system_bus_socket",
        "the system bus: systemd-resolved resolves any name sent there (ResolveHostname), and other services fetch from the network",
    ),
    (
        "/var/run/dbus/system_bus_socket",
        "the system bus by its older path",
    ),
];

/// The host's socket places a command does not see besides when the
/// user is root (`sandbox.sockets.allow` brings one back), with why: the
/// sockets there check only that the caller is root, and a command is.
pub const ROOT_SOCKET_PLACES: &[(&str, &str)] = &[
    (
        "/run/systemd",
        "systemd's own sockets: its private manager socket starts a unit outside the sandbox for root, and its name and user lookups go around the wall",
    ),
    (
        "/run/dbus/system_bus_socket",
        "the system bus: systemd's manager there starts a transient unit outside the sandbox for root",
    ),
    (
        "/var/run/dbus/system_bus_socket",
        "the system bus by its older path",
    ),
];

/// The temporary places replaced by the session's own directory, with
/// why (`$TMPDIR` too, where it is elsewhere).
pub const TEMP_PLACES: &[(&str, &str)] = &[(
    "/tmp",
    "X11's, tmux's and ssh-agent's sockets, and scripts other programs run, live here",
)];

/// What a command sees of the home (relative to it) besides the project,
/// the write roots and `PATH`, with why. Read-only unless a write root.
pub const HOME_READ: &[(&str, &str)] = &[
    (
        ".gitconfig",
        "git's user settings (name, aliases, url rewrites)",
    ),
    (".config/git", "git's user settings, XDG place"),
    (
        ".gitignore_global",
        "the global ignore file many users name",
    ),
    (".bashrc", "bash reads it (read-only)"),
    (".bash_profile", "login bash reads it (read-only)"),
    (".profile", "login shells read it (read-only)"),
    (".zshrc", "zsh reads it (read-only)"),
    (".zshenv", "zsh reads it (read-only)"),
    (".inputrc", "readline's settings"),
    (".editorconfig", "editors and formatters read it"),
    (".rustup", "Rust toolchains"),
    (".cargo/bin", "cargo-installed programs"),
    (
        ".cargo/config.toml",
        "cargo's settings (sources, mirrors; tokens are in credentials.toml)",
    ),
    (".cargo/config", "cargo's settings, older name"),
    (".nvm", "Node.js versions"),
    (".volta", "Node.js toolchains"),
    (".fnm", "Node.js versions"),
    (".bun", "the Bun runtime"),
    (".deno", "the Deno runtime"),
    (".pyenv", "Python versions"),
    (".local/bin", "user-installed programs"),
    (".local/lib", "user-installed Python packages"),
    (".local/share/pnpm", "pnpm's store and programs"),
    (".local/share/mise", "mise's toolchains"),
    (".asdf", "asdf's toolchains"),
    (".config/pip", "pip's settings (index, mirror)"),
    (".pip", "pip's settings, older place"),
    (".config/uv", "uv's settings"),
    (".condarc", "conda's channels"),
    (".gradle/init.d", "Gradle init scripts (no credentials)"),
    (".sdkman", "JDKs and JVM tools"),
    ("go", "Go's default GOPATH: modules and installed programs"),
    (".gem", "user-installed Ruby gems"),
    (".rbenv", "Ruby versions"),
    (".terminfo", "terminal descriptions"),
];

/// One place replaced in the command's mount namespace.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Replace {
    /// The host's path the command sees replaced.
    pub at: PathBuf,
    /// The directory it sees there instead (the session's own).
    pub with: PathBuf,
    /// Paths under `at` bound back at their place (outermost only).
    pub keep: Vec<PathBuf>,
    /// Symbolic links under `at` made again in `with` (a dotfile that
    /// links into a dotfiles repository: its target is kept): `(link,
    /// target as the link reads)`.
    #[serde(default)]
    pub links: Vec<(PathBuf, PathBuf)>,
    /// Kept paths bound read-only: neither a write root nor holding one
    /// (the replacing directory may be writable, as the session's /tmp
    /// is, and Landlock would grant writing through it).
    #[serde(default)]
    pub read_only: Vec<PathBuf>,
    pub why: String,
}

impl Replace {
    /// Where a kept path is bound inside `with` (its mount point).
    pub fn mount_point(&self, kept: &Path) -> Option<PathBuf> {
        kept.strip_prefix(&self.at)
            .ok()
            .map(|rel| self.with.join(rel))
    }
}

/// What the replacements are made from.
#[derive(Debug, Clone)]
pub struct Inputs<'a> {
    /// The session's directory (`<state>/tmp/<session>`).
    pub session_dir: &'a Path,
    pub uid: u32,
    /// `$TMPDIR` when absolute.
    pub tmpdir: Option<&'a Path>,
    /// `SSH_AUTH_SOCK`, when the command keeps it.
    pub ssh_auth_sock: Option<&'a Path>,
    /// `sandbox.sockets.allow`, expanded.
    pub allow: Vec<PathBuf>,
    /// The home shown allow-listed (`HOME_READ` and `sandbox.read`, these
    /// expanded): `None` leaves it as it is.
    pub home_read: Option<Vec<PathBuf>>,
}

/// The session's temporary directory (what `/tmp` is for its commands).
pub fn session_tmp(session_dir: &Path) -> PathBuf {
    session_dir.join("tmp")
}

/// Replace the host's temporary and socket places in `plan` (which must
/// get a mount namespace): fills `plan.replace` and `plan.cover_sockets`.
/// A place holding the home is left as it is (the home is not bound into
/// a writable tree).
pub fn apply(plan: &mut super::Plan, home: Option<&Path>, inp: &Inputs<'_>) {
    apply_with(
        plan,
        home,
        inp,
        SOCKET_PLACES,
        WALL_SOCKET_PLACES,
        ROOT_SOCKET_PLACES,
    );
}

/// `apply` with the socket places given (a test's own).
fn apply_with(
    plan: &mut super::Plan,
    home: Option<&Path>,
    inp: &Inputs<'_>,
    socket_places: &[(&str, &'static str)],
    wall_places: &[(&str, &'static str)],
    root_places: &[(&str, &'static str)],
) {
    // Each directory on the way looked at once, the home's names from
    // one listing of it (this runs before every command).
    let canonical = |p: &Path| super::existing(p);
    // What a command may write (or connect to) where it is.
    let mut writable: Vec<PathBuf> = plan
        .write
        .iter()
        .chain(plan.extra_write.iter().map(|(p, _)| p))
        .cloned()
        .collect();
    writable.extend(inp.allow.iter().filter_map(|p| canonical(p)));
    writable.extend(inp.ssh_auth_sock.and_then(canonical));
    // What must stay visible where it is.
    let mut needed: Vec<PathBuf> = plan
        .write
        .iter()
        .chain(plan.read_keep.iter())
        .chain(plan.extra_write.iter().map(|(p, _)| p))
        .cloned()
        .collect();
    needed.extend(inp.allow.iter().filter_map(|p| canonical(p)));
    if let Some(s) = inp.ssh_auth_sock.and_then(canonical) {
        needed.push(s);
    }
    let mut places: Vec<(PathBuf, PathBuf, &'static str)> = Vec::new();
    for (at, why) in TEMP_PLACES {
        if let Some(at) = canonical(Path::new(at)) {
            places.push((at, session_tmp(inp.session_dir), why));
        }
    }
    if let Some(t) = inp.tmpdir.and_then(canonical)
        && !places.iter().any(|(at, _, _)| t.starts_with(at))
        && t != Path::new("/")
    {
        places.push((
            t,
            session_tmp(inp.session_dir),
            "$TMPDIR: other programs keep sockets and scripts here too",
        ));
    }
    let mut n = 0;
    let walled = plan.network == super::Network::Allowlist;
    let wall_places = wall_places.iter().filter(|_| walled);
    let root_places = root_places.iter().filter(|_| inp.uid == 0);
    for (template, why) in socket_places.iter().chain(root_places).chain(wall_places) {
        let path = template.replace("$UID", &inp.uid.to_string());
        let Some(at) = canonical(Path::new(&path)) else {
            continue;
        };
        if places.iter().any(|(p, _, _)| at.starts_with(p))
            || plan.cover_sockets.contains(&at)
            || needed.iter().any(|k| at.starts_with(k))
        {
            continue;
        }
        if at.is_dir() {
            n += 1;
            places.push((at, inp.session_dir.join(format!("cover-{n}")), why));
        } else {
            plan.cover_sockets.push(at);
        }
    }
    // The home, last: its view keeps what the places above do not cover.
    let home = home.and_then(canonical);
    let mut links: Vec<(PathBuf, PathBuf)> = Vec::new();
    if let (Some(h), Some(extra)) = (&home, &inp.home_read)
        && !places.iter().any(|(p, _, _)| h.starts_with(p))
    {
        // `HOME_READ` as the plan found it (a plan built for this
        // home), then what this command is shown besides.
        let mut rows: Vec<HomeRow> = plan
            .home_rows
            .iter()
            .filter(|r| r.named.starts_with(h))
            .cloned()
            .collect();
        rows.extend(extra.iter().filter_map(|p| HomeRow::of(h, p.clone())));
        for row in rows {
            // A link in the home itself is made again in the view.
            if let Some(to) = row.link {
                links.push((row.named, to));
            }
            needed.push(row.target);
        }
        places.push((
            h.clone(),
            inp.session_dir.join("home"),
            "the home: other projects and files no build needs stay out of sight",
        ));
    }
    // A place an approved command was granted itself stays as it is.
    let granted: Vec<&PathBuf> = plan.extra_write.iter().map(|(p, _)| p).collect();
    for (at, with, why) in places {
        if (home.as_ref() != Some(&at) && home.as_ref().is_some_and(|h| h.starts_with(&at)))
            || needed.iter().any(|k| at.starts_with(k) && *k != at)
            || granted.contains(&&at)
        {
            continue;
        }
        let mut keep: Vec<PathBuf> = needed
            .iter()
            .filter(|k| k.starts_with(&at) && **k != at)
            .cloned()
            .collect();
        keep.sort();
        keep.dedup();
        let outermost: Vec<PathBuf> = keep
            .iter()
            .filter(|k| !keep.iter().any(|o| o != *k && k.starts_with(o)))
            .cloned()
            .collect();
        let made: Vec<(PathBuf, PathBuf)> = links
            .iter()
            .filter(|(l, _)| l.starts_with(&at) && !outermost.iter().any(|k| l.starts_with(k)))
            .cloned()
            .collect();
        // (A write root this place replaces, `/tmp` itself, does not make
        // what is kept inside it writable.)
        let read_only: Vec<PathBuf> = outermost
            .iter()
            .filter(|k| {
                !writable
                    .iter()
                    .filter(|w| !at.starts_with(w))
                    .any(|w| k.starts_with(w) || w.starts_with(k))
            })
            .cloned()
            .collect();
        plan.replace.push(Replace {
            at,
            with,
            keep: outermost,
            links: made,
            read_only,
            why: why.to_string(),
        });
    }
    // What the replacements took out of sight needs no cover.
    let replace = &plan.replace;
    plan.hide.retain(|d| {
        !replace
            .iter()
            .any(|r| d.starts_with(&r.at) && !r.keep.iter().any(|k| d.starts_with(k)))
    });
}

/// A path the home's view shows, where it really is, and, for a link in
/// the home, what the link says (made again in the view).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HomeRow {
    pub named: PathBuf,
    pub target: PathBuf,
    pub link: Option<PathBuf>,
}

impl HomeRow {
    /// `p` as the view shows it (`None`: it does not exist); `home`
    /// canonical.
    fn of(home: &Path, p: PathBuf) -> Option<HomeRow> {
        let target = super::existing(&p)?;
        let link = if p.starts_with(home) && p != target {
            std::fs::read_link(&p).ok()
        } else {
            None
        };
        Some(HomeRow {
            named: p,
            target,
            link,
        })
    }
}

/// Every `HOME_READ` row that exists in `home` (canonical).
pub fn home_rows(home: &Path) -> Vec<HomeRow> {
    HOME_READ
        .iter()
        .filter_map(|(rel, _)| HomeRow::of(home, home.join(rel)))
        .collect()
}

/// Make what the replacements need on the host: the session's
/// directories (private) and a mount point for each kept path.
pub fn prepare(replace: &[Replace]) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    for r in replace {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&r.with)
            .map_err(|e| format!("cannot make {}: {e}", r.with.display()))?;
        for k in &r.keep {
            let Some(point) = r.mount_point(k) else {
                continue;
            };
            let made = if k.is_dir() {
                std::fs::create_dir_all(&point)
            } else {
                point
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| {
                        std::fs::OpenOptions::new()
                            .create(true)
                            .truncate(false)
                            .write(true)
                            .open(&point)
                            .map(drop)
                    })
            };
            made.map_err(|e| format!("cannot make {}: {e}", point.display()))?;
        }
        for (link, to) in &r.links {
            let Some(at) = r.mount_point(link) else {
                continue;
            };
            if std::fs::read_link(&at).is_ok_and(|t| t == *to) {
                continue;
            }
            let _ = std::fs::remove_file(&at);
            at.parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::os::unix::fs::symlink(to, &at))
                .map_err(|e| format!("cannot make {}: {e}", at.display()))?;
        }
    }
    Ok(())
}

/// The line `automode status` and `doctor` give: are the host's sockets
/// and `/tmp` out of reach, where the sessions' `/tmp` are, and what
/// stays reachable.
pub fn describe(userns: bool, state_dir: Option<&Path>) -> (String, bool) {
    if !userns {
        return (
            "host sockets, /tmp and other processes: NOT covered (no user namespace can be made here): commands see the host's /tmp, reach every UNIX socket the user can (ssh-agent, tmux, the session bus, Docker) and read other processes' command lines".to_string(),
            false,
        );
    }
    let place = state_dir.map_or_else(String::new, |d| {
        format!(
            " (kept in {}, named under each session below)",
            session_tmp(&d.join("tmp").join("<session>")).display()
        )
    });
    let covered: Vec<&str> = SOCKET_PLACES.iter().map(|(p, _)| *p).collect();
    (
        format!(
            "host sockets and /tmp: covered: a session's commands share their own /tmp and $TMPDIR{place}; {} are empty for them; behind the network wall, the name services' sockets and the system bus too (a name looked up there leaves the machine), and for root /run/systemd and the system bus always (systemd starts units for root there); sockets elsewhere (a database's under /var/run) and sandbox.sockets.allow stay reachable. Other processes: invisible (each command has a PID namespace of its own)",
            covered.join(", ")
        ),
        true,
    )
}

/// The line on the home for `automode status` and `doctor`: which mode
/// is in force.
pub fn describe_home(userns: bool) -> String {
    if userns {
        "home: allow-listed: commands see the project, toolchains, tool caches and the configuration builds read (HOME_READ in src/sandbox/views.rs, and sandbox.read); other projects and files in the home are out of sight".to_string()
    } else {
        "home: deny-listed (no user namespace can be made here): commands read the whole home but the secrets of the read-deny table".to_string()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Behind the network wall the name services' sockets are covered
    /// too; with the network open they stay, and a socket the user
    /// allows stays either way. Root's places are covered for root.
    #[test]
    fn name_service_sockets_are_covered_behind_the_wall_and_roots_for_root() {
        // Not under /tmp: that is replaced whole.
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let root = dir.path().canonicalize().unwrap();
        let resolver = root.join("resolve.sock");
        let kept = root.join("kept.sock");
        let manager = root.join("manager.sock");
        for f in [&resolver, &kept, &manager] {
            std::fs::write(f, "").unwrap();
        }
        let (r, k) = (resolver.display().to_string(), kept.display().to_string());
        let m = manager.display().to_string();
        let wall: [(&str, &'static str); 2] = [(&r, "a resolver"), (&k, "allowed back")];
        let session = root.join("session");
        let covered = |network: super::super::Network, uid: u32| {
            let mut plan = super::super::Plan {
                network,
                ..Default::default()
            };
            let inp = Inputs {
                session_dir: &session,
                uid,
                tmpdir: None,
                ssh_auth_sock: None,
                allow: vec![kept.clone()],
                home_read: None,
            };
            apply_with(&mut plan, None, &inp, &[], &wall, &[(&m, "root's")]);
            plan.cover_sockets
        };
        assert_eq!(
            covered(super::super::Network::Allowlist, 12345),
            vec![resolver.clone()]
        );
        assert!(covered(super::super::Network::Open, 12345).is_empty());
        // Root's places are covered for root, wall or not.
        assert_eq!(
            covered(super::super::Network::Open, 0),
            vec![manager.clone()]
        );
    }
}
