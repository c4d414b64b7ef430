//! The supervisor's view of its process tree: the leader's status without
//! reaping it, adopted orphans (we are a child subreaper), and signalling
//! all of them without ever touching our caller.

use std::collections::BTreeSet;

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid, waitpid};
use nix::unistd::{Pid, getpgrp};

/// How the leader ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildStatus {
    Exited(i32),
    Signaled(i32),
}

/// The leader (pid = pgid = sid) and the orphans we adopted.
#[derive(Debug)]
pub(crate) struct Tree {
    leader: Pid,
    own_pgrp: Pid,
    pub(crate) leader_status: Option<ChildStatus>,
    /// Pids already sent the current escalation signal.
    signalled: BTreeSet<i32>,
    reaped_leader: bool,
}

impl Tree {
    pub(crate) fn new(leader: Pid) -> Tree {
        Tree {
            leader,
            own_pgrp: getpgrp(),
            leader_status: None,
            signalled: BTreeSet::new(),
            reaped_leader: false,
        }
    }

    /// Look at the leader without reaping it: the zombie keeps its pid,
    /// which is also the group and session id we signal, from being reused.
    pub(crate) fn poll_leader(&mut self) {
        if self.leader_status.is_some() {
            return;
        }
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
        match waitid(Id::Pid(self.leader), flags) {
            Ok(WaitStatus::Exited(_, code)) => self.leader_status = Some(ChildStatus::Exited(code)),
            Ok(WaitStatus::Signaled(_, sig, _)) => {
                self.leader_status = Some(ChildStatus::Signaled(sig as i32));
            }
            _ => {}
        }
    }

    /// Our direct children other than the leader (adopted orphans),
    /// reaping those that already exited. Returns the live ones.
    pub(crate) fn adopted(&self) -> Vec<Pid> {
        let mut live = Vec::new();
        for pid in direct_children() {
            if pid == self.leader {
                continue;
            }
            match waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => live.push(pid),
                Ok(_) | Err(Errno::ECHILD) => {}
                Err(_) => live.push(pid),
            }
        }
        live
    }

    /// Send `sig` (and SIGCONT, so stopped processes see it) to the
    /// leader's group and to every adopted process not yet signalled at
    /// this level. `fresh` restarts the "already signalled" set.
    pub(crate) fn signal_all(&mut self, sig: Signal, fresh: bool) {
        if fresh {
            self.signalled.clear();
            self.signal_group(sig);
        }
        for pid in self.adopted() {
            // Members of the leader's group already got the group signal.
            let in_group = nix::unistd::getpgid(Some(pid)) == Ok(self.leader);
            if self.signalled.insert(pid.as_raw()) && !(in_group && fresh) {
                self.signal_one(pid, sig);
            }
        }
    }

    fn signal_group(&self, sig: Signal) {
        let pgid = self.leader;
        // Never signal our caller: the group must be the child's own.
        if pgid.as_raw() <= 1 || pgid == self.own_pgrp {
            return;
        }
        let _ = killpg(pgid, sig);
        if sig != Signal::SIGKILL {
            let _ = killpg(pgid, Signal::SIGCONT);
        }
    }

    fn signal_one(&self, pid: Pid, sig: Signal) {
        if pid.as_raw() <= 1 || pid == self.own_pgrp {
            return;
        }
        let _ = kill(pid, sig);
        if sig != Signal::SIGKILL {
            let _ = kill(pid, Signal::SIGCONT);
        }
    }

    /// Reap the leader (first time it is reaped: nothing we signal later
    /// can hit a reused pid) and any zombie orphans.
    pub(crate) fn reap_all(&mut self) {
        if self.leader_status.is_some() && !self.reaped_leader {
            let _ = waitpid(self.leader, None);
            self.reaped_leader = true;
        }
        loop {
            match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) | Err(_) => break,
                Ok(_) => {}
            }
        }
    }
}

/// Our direct children, from /proc/self/task/<tid>/children (we are single
/// threaded, so the main task sees them all), else a scan of /proc.
fn direct_children() -> Vec<Pid> {
    let me = std::process::id();
    let path = format!("/proc/self/task/{me}/children");
    if let Some(text) = crate::procfs::read(&path) {
        return text
            .split_whitespace()
            .filter_map(|w| w.parse::<i32>().ok())
            .map(Pid::from_raw)
            .collect();
    }
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if let Some(stat) = crate::nested::proc_stat(pid)
            && stat.ppid == me as i32
        {
            out.push(Pid::from_raw(pid));
        }
    }
    out
}
