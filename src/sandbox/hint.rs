//! After a confined command failed: did the sandbox likely refuse it?
//! The kernel's refusals read as ordinary errors (`Permission denied`,
//! `Read-only file system`, `Operation not permitted`, `Invalid
//! cross-device link`), worded by each tool its own way; automode reads
//! the end of the command's stderr, finds such an error with a path it
//! did not grant, and adds one line saying so and how to ask for it once.
//! Never certain: it says "likely". A hint only proposes what can
//! succeed: never a grant that is refused outright, never the grant the
//! command already had, never a review when auto mode is off.

use std::path::{Path, PathBuf};

use super::Plan;
use crate::policy::places::Places;

/// What decides whether a refused path can be asked for.
#[derive(Debug, Clone, Copy)]
pub struct Asking<'a> {
    pub places: &'a Places,
    /// Someone can review a widening (auto mode is on).
    pub reviewer: bool,
    /// `$TMPDIR`, when set to an absolute path.
    pub tmpdir: Option<&'a Path>,
}

/// Where no one reviews a widening.
const NO_REVIEWER: &str = "Nothing can widen the sandbox for this command (auto mode is off, or it ran through `automode exec`): the user runs it themselves.";

/// The temporary directories commands may write by default (besides
/// `$TMPDIR`): left out when the home lies inside them.
const TEMP_ROOTS: &[&str] = &["/tmp", "/dev/shm"];

/// How tools word the refusals the sandbox causes, with what they mean.
const REFUSALS: &[(&str, Kind)] = &[
    ("Permission denied", Kind::Denied),
    ("permission denied", Kind::Denied),
    ("EACCES", Kind::Denied),
    ("[Errno 13]", Kind::Denied),
    ("os error 13", Kind::Denied),
    ("Read-only file system", Kind::ReadOnly),
    ("EROFS", Kind::ReadOnly),
    ("[Errno 30]", Kind::ReadOnly),
    ("os error 30", Kind::ReadOnly),
    ("Operation not permitted", Kind::NotPermitted),
    ("EPERM", Kind::NotPermitted),
    ("[Errno 1]", Kind::NotPermitted),
    ("os error 1)", Kind::NotPermitted),
    ("Invalid cross-device link", Kind::CrossDevice),
    ("EXDEV", Kind::CrossDevice),
    ("[Errno 18]", Kind::CrossDevice),
    ("os error 18", Kind::CrossDevice),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Denied,
    ReadOnly,
    NotPermitted,
    CrossDevice,
}

/// How tools say the network is not there (with `sandbox.network` deny).
const NO_NETWORK: &[&str] = &[
    "Network is unreachable",
    "ENETUNREACH",
    "Temporary failure in name resolution",
    "EAI_AGAIN",
    "Could not resolve host",
    "Name or service not known",
    "getaddrinfo",
    "Failed to establish a new connection",
    "Could not resolve",
];

/// The hint for a failed command's stderr tail, if the sandbox likely
/// refused it. `cwd`: where relative paths in messages are.
pub fn hint(stderr_tail: &[u8], plan: &Plan, cwd: &Path, asking: &Asking<'_>) -> Option<String> {
    let text = String::from_utf8_lossy(stderr_tail);
    if plan.network == super::Network::Deny && NO_NETWORK.iter().any(|n| text.contains(n)) {
        let ask = if asking.reviewer {
            "To ask for the network once, run: AUTOMODE_SANDBOX=off <the same command> (only the user can approve it)."
        } else {
            NO_REVIEWER
        };
        return Some(format!(
            "automode: this was likely refused by automode's sandbox: sandbox.network is \"deny\", so commands reach only loopback. {ask}"
        ));
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut cross_device = false;
    for (i, line) in lines.iter().enumerate() {
        let Some((at, kind)) = REFUSALS
            .iter()
            .filter_map(|(needle, k)| line.find(needle).map(|at| (at, *k)))
            .min_by_key(|(at, _)| *at)
        else {
            continue;
        };
        cross_device |= kind == Kind::CrossDevice;
        // The path is named right before the error (`bash: PATH: …`,
        // `cp: cannot create 'PATH': …`) or after it (Python's `…:
        // 'PATH'`, npm's `…, mkdir 'PATH'`), or (cargo: "failed to create
        // directory `…`" then "Caused by: Permission denied") on a line
        // before it.
        let found = paths_in(line, cwd);
        let after = found.iter().filter(|(pos, _)| *pos > at).map(|(_, p)| p);
        let before = found
            .iter()
            .rev()
            .filter(|(pos, _)| *pos < at)
            .map(|(_, p)| p);
        let earlier = lines[i.saturating_sub(3)..i]
            .iter()
            .rev()
            .flat_map(|l| paths_in(l, cwd).into_iter().rev().map(|(_, p)| p))
            .collect::<Vec<_>>();
        for p in after.chain(before).chain(earlier.iter()) {
            if let Some(h) = explain(p, plan, cwd, asking) {
                return Some(h);
            }
        }
    }
    if !cross_device && let Some(h) = replaced_place(&lines, plan, cwd, asking) {
        return Some(h);
    }
    cross_device.then(|| {
        let ask = if asking.reviewer {
            ", or ask for the target once with AUTOMODE_WRITE=<path> <the same command> (it will be reviewed)"
        } else {
            ""
        };
        format!("automode: this was likely refused by automode's sandbox: moving or linking a file between directories the sandbox grants differently is refused (\"Invalid cross-device link\"); copy the file instead{ask}.")
    })
}

/// How tools say a path is not there (or a socket not listening).
const NOT_THERE: &[&str] = &[
    "No such file or directory",
    "ENOENT",
    "[Errno 2]",
    "os error 2)",
    "Connection refused",
    "ECONNREFUSED",
    "[Errno 111]",
    "not a socket",
    "no server running",
];

/// A path not found under a place the sandbox replaced (`/tmp`, the
/// runtime directory): the hint saying whose it is for the command.
fn replaced_place(lines: &[&str], plan: &Plan, cwd: &Path, asking: &Asking<'_>) -> Option<String> {
    for line in lines {
        if !NOT_THERE.iter().any(|n| line.contains(n)) {
            continue;
        }
        // The absolute paths the line names, and the innermost replaced
        // place one of them lies in.
        let named: Vec<&Path> = line
            .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '‘' | '’'))
            .map(|w| w.trim_end_matches([':', ',', ';', ')']))
            .filter(|w| w.starts_with('/'))
            .map(Path::new)
            .collect();
        // A secret is out of sight for that reason first.
        if let Some(h) = named
            .iter()
            .filter(|p| plan.read_deny.iter().any(|d| p.starts_with(d)))
            .find_map(|p| explain(p, plan, cwd, asking))
        {
            return Some(h);
        }
        let found = plan
            .replace
            .iter()
            .filter(|r| named.iter().any(|p| p.starts_with(&r.at) && *p != r.at))
            .max_by_key(|r| r.at.components().count());
        if let Some(r) = found {
            let whose = if r.with.file_name().is_some_and(|n| n == "home") {
                format!(
                    "commands see of the home {} only the project, toolchains, tool caches and the configuration builds read; other files and projects there are out of sight. The user can add a path to sandbox.read, or run the command themselves.",
                    r.at.display()
                )
            } else if plan.session_tmp.as_ref() == Some(&r.with) {
                format!(
                    "{} is this session's own temporary directory for its commands (on the host: {}), not the host's: files and sockets other programs keep there are out of reach. A file the user put there must be copied into the project by the user; a socket the user wants reachable goes in sandbox.sockets.allow.",
                    r.at.display(),
                    r.with.display()
                )
            } else {
                format!(
                    "{} is empty for commands ({}); a socket the user wants reachable goes in sandbox.sockets.allow.",
                    r.at.display(),
                    r.why
                )
            };
            return Some(format!(
                "automode: this was likely refused by automode's sandbox: {whose}"
            ));
        }
    }
    None
}

/// Behind the network wall, a failed connection to a port on loopback
/// that a service of the host listens on (and the user did not list):
/// the hint naming the port and the key.
pub fn host_port(stderr_tail: &[u8], listed: &[u16]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr_tail);
    let refused = [
        "refused",
        "ECONNREFUSED",
        "Errno 111",
        "Couldn't connect",
        "could not connect",
    ];
    if !refused.iter().any(|r| text.contains(r)) {
        return None;
    }
    let listening = host_listening();
    for name in ["127.0.0.1", "localhost", "[::1]", "::1"] {
        for (at, _) in text.match_indices(name) {
            // The port follows within a few characters: `:5432`, ` port
            // 5432`, `"), port 5432`.
            let rest: String = text[at + name.len()..].chars().take(16).collect();
            if rest.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
                continue;
            }
            let digits: String = rest
                .chars()
                .skip_while(|c| !c.is_ascii_digit())
                .take_while(char::is_ascii_digit)
                .collect();
            let Ok(port) = digits.parse::<u16>() else {
                continue;
            };
            if listening.contains(&port) && !listed.contains(&port) {
                return Some(format!(
                    "automode: this was likely refused by automode's network wall: port {port} on loopback is a service of the host's (a database, a daemon), which commands do not reach; the user can add {port} to sandbox.network.hostPorts to let them."
                ));
            }
        }
    }
    None
}

/// The TCP ports the host listens on, on loopback or every address.
fn host_listening() -> Vec<u16> {
    let mut out = Vec::new();
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Some(text) = crate::procfs::read(file) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.get(3) == Some(&"0A")
                && let Some(port) = f
                    .get(1)
                    .and_then(|a| a.rsplit_once(':'))
                    .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
            {
                out.push(port);
            }
        }
    }
    out
}

/// Why the sandbox refuses `p`, as the hint line; `None` when `p` is one
/// it grants (the error was something else).
fn explain(p: &Path, plan: &Plan, cwd: &Path, asking: &Asking<'_>) -> Option<String> {
    let shown = p.display();
    if plan.read_deny.iter().any(|d| p.starts_with(d))
        && !plan.read_keep.iter().any(|k| p.starts_with(k))
    {
        if let Some(whose) = super::credentials::whose(p) {
            return Some(format!(
                "automode: this was likely refused by automode's sandbox: '{shown}' is among the secrets the sandbox keeps every command out of, for reading and writing (sandbox.readDeny), but one: {whose}. Otherwise the user runs the command themselves."
            ));
        }
        return Some(format!(
            "automode: this was likely refused by automode's sandbox: '{shown}' is among the secrets the sandbox keeps every command out of, for reading and writing (sandbox.readDeny). If the user wants it used, they run that command themselves."
        ));
    }
    if plan
        .protect
        .iter()
        .chain(&plan.protect_missing)
        .any(|d| p.starts_with(d))
    {
        let tail = if asking.reviewer
            && super::widen::refusal(p, asking.places, &plan.read_deny).is_none()
        {
            format!(
                "If the user's task needs it changed, run: AUTOMODE_WRITE={shown} <the same command> (it will be reviewed)."
            )
        } else {
            "Ask the user to change it.".to_string()
        };
        return Some(format!(
            "automode: this was likely refused by automode's sandbox: '{shown}' is protected inside the project (sandbox.protect: it chooses what runs later, outside the sandbox). {tail}"
        ));
    }
    // A file granted to this command on its own that still failed: the
    // tool replaces it (a lock or temporary file beside it, then a
    // rename), which needs the directory.
    if plan.extra_write.iter().any(|(w, _)| w == p)
        && std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
    {
        let dir = p.parent().unwrap_or(Path::new("/"));
        let tail = match super::widen::refusal(dir, asking.places, &plan.read_deny) {
            None if asking.reviewer => format!(
                "To ask for its directory once, run: AUTOMODE_WRITE={} <the same command> (it will be reviewed).",
                dir.display()
            ),
            None => NO_REVIEWER.to_string(),
            Some(why) => format!(
                "That directory is never granted to a command ({why}): the user must run this command themselves."
            ),
        };
        return Some(format!(
            "automode: this was likely refused by automode's sandbox: '{shown}' was granted to this command, but the tool replaces the file (it makes a lock or temporary file beside it and renames it), which needs its directory {} writable. {tail}",
            dir.display()
        ));
    }
    let writable = plan.in_write_root(p) && !plan.write_exclude.iter().any(|x| p.starts_with(x))
        || plan.devices.iter().any(|d| p == d);
    if writable {
        return None;
    }
    // What `AUTOMODE_WRITE=p` would grant: `p`, or the directory a new
    // file is made in.
    let grant = if std::fs::symlink_metadata(p).is_ok() {
        p
    } else {
        p.parent().unwrap_or(Path::new("/"))
    };
    let refused = super::widen::refusal(grant, asking.places, &plan.read_deny);
    let home = asking.places.home.as_deref();
    let temp = TEMP_ROOTS
        .iter()
        .map(Path::new)
        .chain(asking.tmpdir)
        .find(|t| {
            grant.starts_with(t) && home.is_some_and(|h| h.starts_with(t) && !p.starts_with(h))
        });
    if let (Some(t), Some(h)) = (temp, home) {
        return Some(format!(
            "automode: this was likely refused by automode's sandbox: '{shown}' is in {}, which the sandbox cannot make writable because the home directory ({}) lies inside it. Write temporary files inside the project instead; for a tool that uses TMPDIR: mkdir -p {tmp} && TMPDIR={tmp} <the same command>. (`automode doctor` explains; moving TMPDIR or the home out of {} fixes it for good.)",
            t.display(),
            h.display(),
            t.display(),
            tmp = crate::shell::quote(&cwd.join(".tmp").to_string_lossy()),
        ));
    }
    let tail = match refused {
        Some(why) => format!(
            "It is never granted to a command ({why}): if the user wants it changed, they run that command themselves."
        ),
        None if asking.reviewer => format!(
            "To ask for it once, run: AUTOMODE_WRITE={shown} <the same command> (it will be reviewed)."
        ),
        None => NO_REVIEWER.to_string(),
    };
    Some(format!(
        "automode: this was likely refused by automode's sandbox: '{shown}' is outside the writable paths (project, temp, tool caches). {tail}"
    ))
}

/// Paths a message line names, with where they start: quoted (`'…'`,
/// `"…"`, `` `…` ``), or a word that starts with `/` or `.` and ends at
/// a colon.
fn paths_in(line: &str, cwd: &Path) -> Vec<(usize, PathBuf)> {
    let mut out = Vec::new();
    for (open, close) in [('\'', '\''), ('"', '"'), ('`', '`'), ('‘', '’')] {
        let mut from = 0;
        while let Some(a) = line[from..].find(open) {
            let start = from + a + open.len_utf8();
            let Some(b) = line[start..].find(close) else {
                break;
            };
            let inner = &line[start..start + b];
            if looks_like_path(inner) {
                out.push((start, resolve(inner, cwd)));
            }
            from = start + b + close.len_utf8();
        }
    }
    let mut pos = 0;
    for word in line.split(' ') {
        let w = word
            .trim_end_matches([':', ',', ';', ')'])
            .trim_start_matches('(');
        if (w.starts_with('/') || w.starts_with('.')) && looks_like_path(w) {
            out.push((pos, resolve(w, cwd)));
        }
        pos += word.len() + 1;
    }
    out.sort_by_key(|(p, _)| *p);
    out
}

fn looks_like_path(s: &str) -> bool {
    !s.is_empty()
        && !s.contains(char::is_whitespace)
        && (s.starts_with('/') || s.starts_with('.') || s.contains('/'))
        && s.len() < 4096
}

fn resolve(s: &str, cwd: &Path) -> PathBuf {
    crate::shell::paths::resolve(cwd, s).0
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            write: vec![PathBuf::from("/p"), PathBuf::from("/tmp")],
            read_deny: vec![PathBuf::from("/h/.ssh"), PathBuf::from("/h/.gnupg")],
            protect: vec![
                PathBuf::from("/p/.git/hooks"),
                PathBuf::from("/p/.git/config"),
            ],
            devices: vec![PathBuf::from("/dev/null")],
            ..Plan::default()
        }
    }

    fn places(home: &str) -> Places {
        Places {
            home: Some(PathBuf::from(home)),
            cwd: PathBuf::from("/p"),
            ..Places::default()
        }
    }

    fn h(stderr: &str) -> Option<String> {
        // The paths the tests name are not under this home.
        let places = places("/home/nobody");
        let asking = Asking {
            places: &places,
            reviewer: true,
            tmpdir: None,
        };
        hint(stderr.as_bytes(), &plan(), Path::new("/p"), &asking)
    }

    #[test]
    fn finds_the_refused_path_in_each_tools_words() {
        for (stderr, path) in [
            ("bash: /srv/.bashrc: Permission denied\n", "/srv/.bashrc"),
            (
                "/opt/shims/bash: line 1: /srv/.profile: Permission denied\n",
                "/srv/.profile",
            ),
            (
                "touch: cannot touch '/srv/x': Permission denied\n",
                "/srv/x",
            ),
            (
                "Traceback (most recent call last):\n  File \"<string>\", line 1\nPermissionError: [Errno 13] Permission denied: '/srv/.bashrc'\n",
                "/srv/.bashrc",
            ),
            (
                "npm ERR! code EACCES\nnpm ERR! Error: EACCES: permission denied, mkdir '/srv/.npm'\n",
                "/srv/.npm",
            ),
            (
                "error: failed to create directory `/srv/.cargo/registry/cache`\n\nCaused by:\n  Permission denied (os error 13)\n",
                "/srv/.cargo/registry/cache",
            ),
            (
                "cp: cannot create regular file '/srv/bin/app': Permission denied\n",
                "/srv/bin/app",
            ),
        ] {
            let got = h(stderr).unwrap_or_else(|| panic!("no hint for {stderr:?}"));
            assert!(
                got.contains(&format!("'{path}' is outside the writable paths")),
                "{got}"
            );
            assert!(got.contains(&format!("AUTOMODE_WRITE={path} ")), "{got}");
            assert!(got.contains("likely"), "{got}");
        }
    }

    #[test]
    fn says_which_kind_of_refusal() {
        let got = h("cat: /h/.gnupg/pubring.kbx: Permission denied\n").unwrap_or_default();
        assert!(got.contains("among the secrets"), "{got}");
        // A tool's own credentials: who reads them, and how.
        let got = h("cat: /h/.ssh/id_ed25519: Permission denied\n").unwrap_or_default();
        assert!(
            got.contains("among the secrets") && got.contains("git's own"),
            "{got}"
        );
        let got = h("error: could not lock config file .git/config: Read-only file system\n")
            .unwrap_or_default();
        assert!(got.contains("'/p/.git/config' is protected"), "{got}");
        let got = h("/s/bash: line 1: .git/hooks/pre-commit: Read-only file system\n")
            .unwrap_or_default();
        assert!(
            got.contains("'/p/.git/hooks/pre-commit' is protected"),
            "{got}"
        );
        let got =
            h("mv: cannot move 'a' to '/h/b': Invalid cross-device link\n").unwrap_or_default();
        assert!(got.contains("outside the writable paths"), "{got}");
    }

    #[test]
    fn a_network_failure_under_network_deny_says_so() {
        let mut p = plan();
        let err = "curl: (6) Could not resolve host: example.com\n";
        let places = places("/h");
        let asking = Asking {
            places: &places,
            reviewer: true,
            tmpdir: None,
        };
        assert_eq!(hint(err.as_bytes(), &p, Path::new("/p"), &asking), None);
        p.network = super::super::Network::Deny;
        let got = hint(err.as_bytes(), &p, Path::new("/p"), &asking).unwrap_or_default();
        assert!(got.contains("sandbox.network is \"deny\""), "{got}");
    }

    #[test]
    fn no_hint_for_granted_paths_or_other_errors() {
        assert_eq!(h("rm: cannot remove '/p/x': Permission denied\n"), None);
        assert_eq!(h("error: linker failed\n"), None);
        assert_eq!(h("tee: /dev/null: Permission denied\n"), None);
    }

    #[test]
    fn a_hint_never_proposes_a_grant_that_is_refused_or_already_had() {
        // The home under /tmp: /tmp is not writable, and asking for it
        // would be refused; the hint says what works instead.
        let tmp_home = places("/tmp/ci/home");
        let a = Asking {
            places: &tmp_home,
            reviewer: true,
            tmpdir: None,
        };
        let mut plan = plan();
        plan.write = vec![PathBuf::from("/p")];
        let got = hint(
            b"mktemp: failed to create file via template '/tmp/tmp.XXXXXXXXXX': Permission denied\n",
            &plan,
            Path::new("/p"),
            &a,
        )
        .unwrap_or_default();
        assert!(!got.contains("AUTOMODE_WRITE"), "{got}");
        assert!(
            got.contains("home directory (/tmp/ci/home) lies inside it"),
            "{got}"
        );
        assert!(got.contains("TMPDIR="), "{got}");
        // Never granted: /etc, a profile.
        let home = places("/h");
        let a = Asking {
            places: &home,
            reviewer: true,
            tmpdir: None,
        };
        for err in [
            "tee: /etc/hosts: Permission denied\n",
            "bash: /h/.bashrc: Permission denied\n",
        ] {
            let got = hint(err.as_bytes(), &plan, Path::new("/p"), &a).unwrap_or_default();
            assert!(!got.contains("AUTOMODE_WRITE"), "{got}");
            assert!(got.contains("never granted"), "{got}");
        }
        // Auto mode off: nothing to review.
        let off = Asking {
            places: &home,
            reviewer: false,
            tmpdir: None,
        };
        let got = hint(
            b"touch: cannot touch '/srv/x': Permission denied\n",
            &plan,
            Path::new("/p"),
            &off,
        )
        .unwrap_or_default();
        assert!(!got.contains("AUTOMODE_WRITE"), "{got}");
        assert!(got.contains("the user runs it themselves"), "{got}");
    }

    #[test]
    fn a_granted_file_the_tool_replaces_names_its_directory_or_the_user() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("h");
        let other = dir.path().join("srv");
        for d in [&home, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        let config = home.join(".gitconfig");
        let data = other.join("data.json");
        for f in [&config, &data] {
            std::fs::write(f, "x").unwrap();
        }
        let places = places(&home.display().to_string());
        let a = Asking {
            places: &places,
            reviewer: true,
            tmpdir: None,
        };
        let mut plan = plan();
        plan.extra_write = vec![
            (config.clone(), "approved".into()),
            (data.clone(), "approved".into()),
        ];
        let err = format!(
            "error: could not lock config file {}: Permission denied\n",
            config.display()
        );
        let got = hint(err.as_bytes(), &plan, Path::new("/p"), &a).unwrap_or_default();
        assert!(got.contains("was granted to this command"), "{got}");
        assert!(
            got.contains("the user must run this command themselves"),
            "{got}"
        );
        assert!(!got.contains("AUTOMODE_WRITE"), "{got}");
        let err = format!(
            "sed: couldn't open temporary file {}/sedAb12: Permission denied\nsed: {}: Permission denied\n",
            other.display(),
            data.display()
        );
        let got = hint(err.as_bytes(), &plan, Path::new("/p"), &a).unwrap_or_default();
        assert!(
            got.contains(&format!("AUTOMODE_WRITE={} ", other.display())),
            "{got}"
        );
    }
}
