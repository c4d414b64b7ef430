//! Is this shim invocation nested inside a command that a live automode
//! supervisor already allowed and is running?
//!
//! The supervisor puts `AUTOMODE_SUPERVISOR_<pid>=<sid>:<pid>:<start>` in
//! the child's environment: the child's session id (the child writes its
//! own pid there after fork; `setsid` makes it the session id), and the
//! supervisor's pid and start time. A shim is nested when one such marker
//! parses, its own session id equals `<sid>`, and process `<pid>` is still
//! alive with start time `<start>`.
//!
//! The name carries the supervisor's pid so that a stale marker cannot
//! hide the live one: Codex snapshots every exported variable of a login
//! shell (itself run under automode) and its wrapper re-exports them all
//! before `exec <shim> -c <command>`; with one fixed name the snapshot's
//! old marker overwrote the current one and the agent's command was
//! judged twice. Every marker is checked, and any valid one counts.
//!
//! Why an agent cannot use the marker to skip the analysis of its own
//! command: the agent never controls the environment of a top-level
//! invocation (the harness starts the shim), only the script text, and the
//! script is analysed before anything in it runs. To pass the check, a
//! process must be *in the supervised session*: sessions can only be
//! created (`setsid`), never joined, so only descendants of the supervised
//! child are in it, and the supervisor's pid + start time cannot be forged
//! for a dead or different process. A copied marker in a new session
//! (`setsid`, a daemon, a later harness call) fails the session check and
//! gets full policy. Everything that does pass was started by a command the
//! outer analysis already judged: literal nested shells were looked into,
//! and dynamic ones (`sh -c "$X"`, `curl | sh`) were refused there.

use std::ffi::OsStr;

/// The environment variable carrying the marker, and the prefix of every
/// marker variable (`AUTOMODE_SUPERVISOR_<pid>`).
pub const MARKER_VAR: &str = "AUTOMODE_SUPERVISOR";

/// Is `name` a marker variable (this version's or an older one's)?
pub fn is_marker_name(name: &[u8]) -> bool {
    name.strip_prefix(MARKER_VAR.as_bytes())
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(b"_"))
}

/// Width of the zero-padded session-id field the child fills in.
pub const SID_WIDTH: usize = 10;

/// The fields of /proc/<pid>/stat that we need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    pub ppid: i32,
    pub session: i32,
    /// Start time in clock ticks since boot.
    pub start_ticks: u64,
}

/// Parse /proc/<pid>/stat (the command name may contain spaces and
/// parentheses, so fields are counted after the last ')').
pub fn proc_stat(pid: i32) -> Option<ProcStat> {
    let text = crate::procfs::read(format!("/proc/{pid}/stat"))?;
    parse_stat(&text)
}

/// This process's /proc/self/stat, read once (its start time and memory
/// layout do not change; the marker, the audit record and the supervisor
/// all need it).
pub fn own_stat_text() -> Option<&'static str> {
    static TEXT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| crate::procfs::read("/proc/self/stat"))
        .as_deref()
}

/// This process's start time in clock ticks since boot.
pub fn own_start_ticks() -> Option<u64> {
    own_stat_text().and_then(parse_stat).map(|s| s.start_ticks)
}

fn parse_stat(text: &str) -> Option<ProcStat> {
    let after = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // after ')': state(3) ppid(4) pgrp(5) session(6) … starttime(22)
    Some(ProcStat {
        ppid: fields.get(1)?.parse().ok()?,
        session: fields.get(3)?.parse().ok()?,
        start_ticks: fields.get(19)?.parse().ok()?,
    })
}

/// The marker value for a child of this process, with a zero-filled
/// session-id field for the child to overwrite; and the byte offset of
/// that field within `NAME=value`. `sandboxed`: the child runs in
/// automode's sandbox (the value ends in `:sandboxed`).
pub fn marker_template(sandboxed: bool) -> Option<(String, usize)> {
    let me = std::process::id() as i32;
    let start = own_start_ticks()?;
    let flag = if sandboxed { SANDBOXED_FLAG } else { "" };
    let value = format!("{}:{me}:{start}{flag}", "0".repeat(SID_WIDTH));
    let name = format!("{MARKER_VAR}_{me}");
    let offset = name.len() + 1;
    Some((format!("{name}={value}"), offset))
}

/// The marker's ending when the supervised command is sandboxed.
const SANDBOXED_FLAG: &str = ":sandboxed";

/// Not nested, but a descendant of a command that a live supervisor runs
/// in its sandbox (it started a new session: `setsid`, a daemon): from
/// in there automode cannot read its own configuration, so it cannot
/// judge. (A forged marker can only make this refuse more.)
pub fn in_sandbox_elsewhere<'a>(env: impl IntoIterator<Item = (&'a OsStr, &'a OsStr)>) -> bool {
    env.into_iter()
        .filter(|(k, _)| is_marker_name(k.as_encoded_bytes()))
        .filter_map(|(_, v)| v.to_str())
        .filter_map(|v| v.strip_suffix(SANDBOXED_FLAG))
        .any(|v| {
            let mut parts = v.split(':').skip(1);
            let (Some(Ok(pid)), Some(Ok(start))) = (
                parts.next().map(str::parse::<i32>),
                parts.next().map(str::parse::<u64>),
            ) else {
                return false;
            };
            pid > 1
                && match proc_stat(pid) {
                    Some(s) => s.start_ticks == start,
                    // In the command's PID namespace the supervisor is
                    // outside, out of sight.
                    None => in_child_pid_namespace(),
                }
        })
}

/// Decide from the environment whether we run inside a live supervision:
/// any marker variable that names our session and a live supervisor.
pub fn is_nested<'a>(env: impl IntoIterator<Item = (&'a OsStr, &'a OsStr)>) -> bool {
    let Ok(my_sid) = nix::unistd::getsid(None) else {
        return false;
    };
    env.into_iter()
        .filter(|(k, _)| is_marker_name(k.as_encoded_bytes()))
        .filter_map(|(_, v)| v.to_str())
        .any(|value| marker_matches(value, my_sid.as_raw(), proc_stat, in_child_pid_namespace))
}

/// Is this process in a PID namespace below the first? (The first has a
/// fixed inode number, `PROC_PID_INIT_INO`; a `/proc` mounted in the
/// namespace shows only its own pids, so `NSpid` cannot tell.)
pub fn in_child_pid_namespace() -> bool {
    use std::os::unix::fs::MetadataExt;
    const PROC_PID_INIT_INO: u64 = 0xEFFF_FFFC;
    std::fs::metadata("/proc/self/ns/pid").is_ok_and(|m| m.ino() != PROC_PID_INIT_INO)
}

/// The check itself, with our session id and the process lookup passed
/// in: the marker names our session (never session 0 or 1, which are not
/// a supervised child's) and a supervisor that is alive with the recorded
/// start time. A sandboxed command runs in a PID namespace of automode's,
/// where the supervisor outside cannot be seen: there the leader of our
/// session (which the command's process made itself, pid 1 in a
/// namespace of its own) must be alive instead.
fn marker_matches(
    value: &str,
    my_sid: i32,
    stat: impl Fn(i32) -> Option<ProcStat>,
    in_pid_namespace: impl Fn() -> bool,
) -> bool {
    let sandboxed = value.ends_with(SANDBOXED_FLAG);
    let value = value.strip_suffix(SANDBOXED_FLAG).unwrap_or(value);
    let mut parts = value.split(':');
    let (Some(sid), Some(pid), Some(start), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Ok(sid), Ok(pid), Ok(start)) =
        (sid.parse::<i32>(), pid.parse::<i32>(), start.parse::<u64>())
    else {
        return false;
    };
    if sid < 1 || pid <= 1 || my_sid != sid {
        return false;
    }
    if sid > 1 && matches!(stat(pid), Some(found) if found.start_ticks == start) {
        return true;
    }
    sandboxed
        && stat(pid).is_none()
        && in_pid_namespace()
        && matches!(stat(sid), Some(leader) if leader.session == sid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_awkward_command_names() {
        let line = "1234 (a b) c)) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 200 18446744073709551615";
        let st = parse_stat(line);
        assert_eq!(
            st,
            Some(ProcStat {
                ppid: 1,
                session: 1234,
                start_ticks: 98765
            })
        );
    }

    fn one(value: &str) -> bool {
        is_nested([(OsStr::new(MARKER_VAR), OsStr::new(value))])
    }

    #[test]
    fn marker_names_carry_the_prefix() {
        assert!(is_marker_name(b"AUTOMODE_SUPERVISOR"));
        assert!(is_marker_name(b"AUTOMODE_SUPERVISOR_123"));
        assert!(!is_marker_name(b"AUTOMODE_SUPERVISORX"));
        assert!(!is_marker_name(b"AUTOMODE_SESSION"));
    }

    #[test]
    fn rejects_malformed_or_foreign_markers() {
        assert!(!is_nested(std::iter::empty()));
        assert!(!one(""));
        assert!(!one("1:2"));
        assert!(!one("x:y:z"));
        assert!(!one("1:1:1"));
        // Our own pid and start time, but a session that is not ours.
        let me = std::process::id() as i32;
        let start = proc_stat(me).map(|s| s.start_ticks).unwrap_or(0);
        let other_sid = nix::unistd::getsid(None).map(|p| p.as_raw()).unwrap_or(0) + 1;
        let marker = format!("{other_sid}:{me}:{start}");
        assert!(!one(&marker));
    }

    #[test]
    fn accepts_a_marker_for_our_session_and_a_live_supervisor() {
        // The test runner's own session may be 0 or 1 (containers, CI), so
        // the session id is passed in; the real path is covered end to end
        // by the nested-shell integration tests.
        let alive = |pid: i32| {
            (pid == 4321).then_some(ProcStat {
                ppid: 1,
                session: 77,
                start_ticks: 5000,
            })
        };
        let host = || false;
        assert!(marker_matches("77:4321:5000", 77, alive, host));
        assert!(marker_matches("77:4321:5000:sandboxed", 77, alive, host));
        assert!(!marker_matches("77:4321:5000:other", 77, alive, host));
        // A wrong start time means a dead or different supervisor.
        assert!(!marker_matches("77:4321:5001", 77, alive, host));
        // Another session, or a supervisor that is gone.
        assert!(!marker_matches("78:4321:5000", 77, alive, host));
        assert!(!marker_matches("77:4322:5000", 77, alive, host));
        // Session 0 / 1 never count, even when they are ours.
        assert!(!marker_matches("1:4321:5000", 1, alive, host));
        assert!(!marker_matches("0:4321:5000", 0, alive, host));
    }

    #[test]
    fn in_a_pid_namespace_the_session_leader_stands_for_the_supervisor() {
        // Inside: the supervisor (4321 outside) is not seen; our session's
        // leader is pid 2 (the session's namespace) or 1 (the command's).
        let inside = |pid: i32| {
            (pid == 2 || pid == 1).then_some(ProcStat {
                ppid: 0,
                session: pid,
                start_ticks: 10,
            })
        };
        let ns = || true;
        assert!(marker_matches("2:4321:5000:sandboxed", 2, inside, ns));
        assert!(marker_matches("1:4321:5000:sandboxed", 1, inside, ns));
        // Only for a sandboxed command, only in a PID namespace, only
        // with a live leader of our own session.
        assert!(!marker_matches("2:4321:5000", 2, inside, ns));
        assert!(!marker_matches("2:4321:5000:sandboxed", 2, inside, || {
            false
        }));
        assert!(!marker_matches("3:4321:5000:sandboxed", 3, inside, ns));
        assert!(!marker_matches("2:4321:5000:sandboxed", 1, inside, ns));
        // A supervisor that is seen must be the recorded one.
        let seen = |pid: i32| {
            inside(pid).or((pid == 4321).then_some(ProcStat {
                ppid: 1,
                session: 9,
                start_ticks: 1,
            }))
        };
        assert!(!marker_matches("2:4321:5000:sandboxed", 2, seen, ns));
    }

    #[test]
    fn reads_the_live_supervisor_from_proc() {
        let me = std::process::id() as i32;
        let start = proc_stat(me).map(|s| s.start_ticks);
        assert!(start.is_some_and(|t| t > 0));
        let sid = 4242;
        let marker = format!("{sid}:{me}:{}", start.unwrap_or(0));
        assert!(marker_matches(&marker, sid, proc_stat, || false));
    }
}
