//! Which agent session an invocation belongs to, and whether an agent's
//! shim invocation is among this process's ancestors (so user-only
//! commands can refuse to run from inside an agent's command).

use std::path::Path;

use crate::nested::proc_stat;

/// The session id: `AUTOMODE_SESSION` when the harness sets it, else the
/// harness's own session id (`CLAUDE_CODE_SESSION_ID`, `CODEX_THREAD_ID`),
/// else the parent process (pid and start time: a harness session is one
/// long-lived process that starts every shell).
pub fn id(explicit: Option<&str>, var: &dyn Fn(&str) -> Option<String>) -> String {
    if let Some(s) = explicit.map(str::trim).filter(|s| !s.is_empty()) {
        return s.to_string();
    }
    for (name, prefix) in [
        ("CLAUDE_CODE_SESSION_ID", "claude-code"),
        ("CODEX_THREAD_ID", "codex"),
    ] {
        if let Some(v) = var(name).filter(|v| !v.trim().is_empty()) {
            return format!("{prefix}-{}", v.trim());
        }
    }
    let ppid = nix::unistd::getppid().as_raw();
    let start = proc_stat(ppid).map_or(0, |s| s.start_ticks);
    format!("ppid-{ppid}-{start}")
}

/// The variables harnesses set in the shells they start, and which
/// harness each names (reference/harnesses.md). For showing sessions
/// only: an agent's command could set them, so nothing trusts them.
const HARNESS_MARKERS: &[(&str, &str)] = &[
    // Claude Code sets CLAUDECODE=1 (and CLAUDE_CODE_SESSION_ID).
    ("CLAUDECODE", "claude-code"),
    ("CLAUDE_CODE_SESSION_ID", "claude-code"),
    // Codex sets CODEX_THREAD_ID and CODEX_CI=1.
    ("CODEX_THREAD_ID", "codex"),
    // pi sets PI_CODING_AGENT=true.
    ("PI_CODING_AGENT", "pi"),
    // Gemini CLI sets GEMINI_CLI=1.
    ("GEMINI_CLI", "gemini"),
    // opencode sets OPENCODE=1.
    ("OPENCODE", "opencode"),
];

/// The harness whose shell this is, from its environment markers.
pub fn harness(var: &dyn Fn(&str) -> Option<String>) -> Option<&'static str> {
    HARNESS_MARKERS
        .iter()
        .find(|(name, _)| var(name).is_some_and(|v| !v.trim().is_empty()))
        .map(|(_, h)| *h)
}

/// A session id short enough to show: the harness's own id cut to 8
/// characters, or `pid N` for a session named after its parent process.
pub fn short_id(id: &str) -> String {
    if let Some(rest) = id.strip_prefix("ppid-") {
        let pid = rest.split('-').next().unwrap_or(rest);
        return format!("pid {pid}");
    }
    let rest = ["claude-code-", "codex-"]
        .iter()
        .find_map(|p| id.strip_prefix(p))
        .unwrap_or(id);
    rest.chars().take(8).collect()
}

/// The first ancestor that is an automode shim invocation (the automode
/// binary running as `bash` or `sh`), if any. The parent chain is read
/// from /proc, so no environment variable can fake or hide it.
pub fn shim_ancestor(own_exe: Option<&Path>) -> Option<i32> {
    let own = own_exe.and_then(|p| std::fs::canonicalize(p).ok());
    let mut pid = nix::unistd::getppid().as_raw();
    let mut hops = 0;
    while pid > 1 && hops < 256 {
        if is_shim_process(pid, own.as_deref()) {
            return Some(pid);
        }
        pid = proc_stat(pid)?.ppid;
        hops += 1;
    }
    // In a sandboxed command's PID namespace the supervisor is outside;
    // the namespace's first process is automode's (a copy of the shim):
    // the shim is an ancestor.
    (crate::nested::in_child_pid_namespace() && is_shim_process(1, own.as_deref())).then_some(1)
}

fn is_shim_process(pid: i32, own: Option<&Path>) -> bool {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let argv0 = cmdline.split(|b| *b == 0).next().unwrap_or(&[]);
    let base = argv0.rsplit(|b| *b == b'/').next().unwrap_or(argv0);
    let base = base.strip_prefix(b"-").unwrap_or(base);
    if base != b"bash" && base != b"sh" {
        return false;
    }
    match std::fs::read_link(format!("/proc/{pid}/exe")) {
        Ok(e) => own.is_some_and(|o| e == o) || crate::realshell::is_automode_binary(&e),
        // An unreadable executable (another user's process) could be a
        // shim: refuse rather than guess.
        Err(_) => true,
    }
}
