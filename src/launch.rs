//! Running a command automode allowed: the `ExecPlan` for it (its
//! environment, limits, stdin, and its confinement by the sandbox), the
//! integrity check of protected paths around it, supervision to the end,
//! the diagnostics that follow (the sandbox's hints among them), and the
//! `Exit` that reports how it ended. Used by the shim and by `automode
//! exec`; decides no policy.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::exec::{
    self, ChildStatus, Confinement, ExecError, ExecPlan, Namespace, Outcome, Termination,
};
use crate::exit::Exit;
use crate::judge::{Run, Unconfined};
use crate::limits::Limits;
use crate::report;
use crate::sandbox::protect::Snapshot;
use crate::sandbox::{self, Network, Plan, ProtectMode};

/// What to run and how.
#[derive(Debug)]
pub struct Launch<'a> {
    pub program: PathBuf,
    pub argv: Vec<OsString>,
    pub limits: Limits,
    /// Variables set (or replaced) on top of the inherited environment.
    pub extra_env: &'a [(String, String)],
    /// Give the command our stdin (a terminal the user lets through).
    pub terminal_stdin: bool,
    /// How it runs: confined by a plan and its Landlock ruleset (closed
    /// once the command has started), or unconfined for the user's
    /// reason.
    pub run: Run<'a>,
    /// Its working directory (for the sandbox's hints).
    pub cwd: &'a Path,
    /// What the sandbox's hints may propose.
    pub asking: sandbox::hint::Asking<'a>,
    /// The command's id (its audit records'; the network wall's token).
    pub command_id: &'a str,
}

/// When `supervise` hands control to the caller's bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// Just before a start is tried. `reachable`: the command's
    /// processes could signal this process (no PID namespace of their
    /// own), so what must be on record whatever they do is written now.
    BeforeStart { reachable: bool },
    /// The command is running (its `execve` done): bookkeeping here
    /// overlaps its start on another processor.
    Started,
}

/// Run under supervision and report how it ended, with what was
/// enforced for the command (for the audit's outcome record: what the
/// child reported it applied, or why it ran unconfined). `on` is told
/// each `Moment`; `BeforeStart` may come twice (a start retried
/// without the namespaces), `Started` comes at most once.
pub fn supervise(
    ctx: &Context,
    launch: Launch<'_>,
    on: &mut dyn FnMut(Moment),
) -> (Exit, Option<Outcome>, serde_json::Value) {
    let Launch {
        program,
        argv,
        limits,
        extra_env,
        terminal_stdin,
        run,
        cwd,
        asking,
        command_id,
    } = launch;
    let workspace = match &ctx.workspace {
        Ok(ws) => ws.clone(),
        Err(why) => {
            report::exec_error(&ExecError::WorkspaceChanged(why.clone()));
            return (Exit::Blocked, None, not_started());
        }
    };
    let mut env = ctx.env.clone();
    for (k, v) in extra_env {
        env.retain(|(name, _)| name != k.as_str());
        env.push((OsString::from(k), OsString::from(v)));
    }
    let (mut plan_now, mut ruleset, unconfined, mut wall) = match run {
        Run::Confined {
            plan,
            ruleset,
            wall,
        } => (Some(plan.clone()), Some(ruleset), None, wall),
        Run::Unconfined(why) => (None, None, Some(why), None),
    };
    // Inside the wall, tools that honour proxy variables reach the
    // filter by them (it answers a refusal in HTTP); the token names the
    // command (its grants, its refusals).
    // A grant is the command's while it starts (`sid` 0), then its
    // processes': it ends with the last one the command left (its PID
    // namespace's first process, or else its process session).
    let mut grant = None;
    if let Some(w) = &wall {
        if let (Some(p), Some(session)) = (&plan_now, &w.session)
            && !p.network_grants.is_empty()
        {
            let g = sandbox::net::Grant {
                hosts: p.network_grants.clone(),
                ..Default::default()
            };
            match g.write(session, command_id) {
                Ok(()) => grant = Some((g, session.clone())),
                Err(why) => report::say(&format!(
                    "note: the hosts this command was approved to reach are not granted: {why}"
                )),
            }
        }
        let proxy = format!(
            "http://automode:{command_id}@127.0.0.1:{}",
            w.record.proxy_port
        );
        for (k, v) in sandbox::net::proxy_env(&proxy) {
            env.retain(|(name, _)| name != k);
            env.push((OsString::from(k), OsString::from(v)));
        }
    }
    let started_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if let Some(p) = &plan_now {
        // A name that is not UTF-8 cannot be judged a credential or not:
        // a confined command does not get it.
        env.retain(|(name, _)| {
            name.to_str()
                .is_some_and(|n| !p.withheld_env.iter().any(|w| n == w.as_str()))
        });
    }
    loop {
        let confinement = match (&plan_now, ruleset.take()) {
            (Some(plan), Some(fd)) => match confinement(plan, fd, wall.as_mut()) {
                Ok(c) => Some(c),
                Err(why) => {
                    forget_grant(grant.as_ref(), command_id);
                    report::sandbox_failed(&why);
                    return (Exit::Blocked, None, not_started());
                }
            },
            _ => None,
        };
        let snapshot = match &plan_now {
            Some(plan) => Snapshot::take(&watched(plan)).judging(&plan.judged_config),
            None => Snapshot::default(),
        };
        let mut exec_plan = ExecPlan {
            program: program.clone(),
            argv: argv.clone(),
            env: env.clone(),
            mark_nested: true,
            timeout: limits.timeout,
            output_limit: limits.output_limit,
            grace: exec::GRACE,
            settle: exec::SETTLE,
            workspace: Some(workspace.clone()),
            terminal_stdin,
            confinement,
            keep_stderr_tail: plan_now.is_some(),
        };
        // Settings copies a mount namespace does not show, named by
        // their tool's variable instead.
        for (k, v) in plan_now.iter().flat_map(Plan::set_env) {
            exec_plan
                .env
                .retain(|(name, _)| name.as_os_str() != k.as_str());
            exec_plan.env.push((OsString::from(k), OsString::from(v)));
        }
        crate::timing::mark("confinement-ready");
        let own_pids = exec_plan
            .confinement
            .as_ref()
            .and_then(|c| c.namespace.as_ref())
            .is_some_and(|n| n.own_pids);
        on(Moment::BeforeStart {
            reachable: !own_pids,
        });
        let result = exec::run(&mut exec_plan, &mut |started| {
            crate::timing::mark("command-started");
            sandbox::rules::release_held();
            if let Some((g, session)) = grant.as_mut() {
                g.sid = started.leader;
                if started.first > 0 {
                    g.first_pid = started.first;
                    g.first_start =
                        crate::nested::proc_stat(started.first).map_or(u64::MAX, |s| s.start_ticks);
                }
                if let Err(why) = g.write(session, command_id) {
                    report::say(&format!(
                        "note: the approved hosts stay granted until the session's filter ends: {why}"
                    ));
                }
            }
            on(Moment::Started);
        });
        crate::timing::mark("command-ended");
        if let Some(p) = &plan_now {
            report_restored(&snapshot, p, &asking);
        }
        return match result {
            Ok(outcome) => {
                report::outcome(&outcome, limits.timeout, limits.output_limit);
                let exit = exit_of(&outcome);
                // What the sandbox likely refused: said now, and kept with
                // the session's denials (`automode denials`).
                let mut refused = Vec::new();
                if let Some(p) = &plan_now {
                    refused.extend(after_confined(&outcome, exit, p, cwd, &asking));
                }
                if let Some(w) = &wall
                    && exit.code() != 0
                {
                    refused.extend(report_refusals(w, started_at, command_id));
                    let listed = plan_now.as_ref().map_or(&[][..], |p| &p.host_ports[..]);
                    if let Some(h) = sandbox::hint::host_port(&outcome.stderr_tail, listed) {
                        report::raw(&format!("{h}\n"));
                        refused.push(h);
                    }
                }
                let mut enforced =
                    enforced(plan_now.as_ref(), unconfined.as_ref(), outcome.applied);
                if !refused.is_empty() {
                    enforced["refused"] = serde_json::json!(refused);
                }
                (exit, Some(outcome), enforced)
            }
            // No user namespace after all (a container, a restricting
            // AppArmor profile): nothing ran, so run it again with the
            // integrity check instead of the read-only binds, and every
            // secret carved out by Landlock instead of covered.
            Err(ExecError::Confine {
                namespace: true,
                step,
            }) if plan_now.as_ref().is_some_and(may_fall_back) => {
                report::sandbox_namespace_fallback(&step);
                let Some(plan) = plan_now.as_mut() else {
                    return (Exit::Internal, None, not_started());
                };
                plan.without_namespace();
                match sandbox::rules::Builder::new(plan, plan.abi) {
                    Ok(b) => ruleset = Some(b.finish()),
                    Err(why) => {
                        report::sandbox_failed(&why);
                        return (Exit::Blocked, None, not_started());
                    }
                }
                continue;
            }
            Err(err) => {
                forget_grant(grant.as_ref(), command_id);
                report::exec_error(&err);
                let exit = match err {
                    ExecError::NotFound(_) => Exit::NotFound,
                    ExecError::CannotExecute(..) => Exit::CannotInvoke,
                    ExecError::WorkspaceChanged(_) | ExecError::Confine { .. } => Exit::Blocked,
                    ExecError::Os(_) => Exit::Internal,
                };
                (exit, None, not_started())
            }
        };
    }
}

/// A grant whose command never started is nobody's: removed.
fn forget_grant(grant: Option<&(sandbox::net::Grant, sandbox::net::Session)>, command_id: &str) {
    if let Some((_, session)) = grant {
        sandbox::net::Grant::remove(session, command_id);
    }
}

/// What the network wall refused while the command ran (its own through
/// the proxy, any other since it started), one line each.
fn report_refusals(wall: &sandbox::net::Joined, since: u64, command_id: &str) -> Vec<String> {
    let mut said = Vec::new();
    let Some(session) = wall.session.as_ref() else {
        return said;
    };
    let mut seen = Vec::new();
    for r in sandbox::net::refusals_since(session, since) {
        if r.command.as_deref().is_some_and(|c| c != command_id) {
            continue;
        }
        let key = (r.host.clone(), r.port);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        report::network_refused(&r);
        said.push(format!(
            "the network wall refused {}:{}: {}",
            r.host, r.port, r.why
        ));
    }
    said
}

/// The outcome record's `confinement` for a command that never started.
fn not_started() -> serde_json::Value {
    serde_json::json!({"state": "not-started"})
}

/// What was enforced for a command that ran: each part of its plan as
/// the child reported it applied (a part it did not report is `false`),
/// or the user's reason to run it unconfined.
fn enforced(
    plan: Option<&Plan>,
    unconfined: Option<&Unconfined>,
    applied: exec::Applied,
) -> serde_json::Value {
    match (plan, unconfined) {
        (Some(p), _) => serde_json::json!({
            "state": if applied.landlock() { "confined" } else { "unconfined" },
            "landlock_abi": applied.landlock().then_some(p.abi.min(sandbox::TESTED_ABI)),
            "no_new_privs": applied.no_new_privs(),
            "seccomp": applied.seccomp(),
            "max_file_bytes": applied.file_size_limit().then_some(p.max_file_bytes),
            "mount_namespace": applied.namespace(),
            "read_only": if applied.mounts() && p.protect_mode != ProtectMode::Restore { p.protect.len() } else { 0 },
            "covered": if applied.mounts() { p.hide.len() } else { 0 },
            "network": if applied.joined() { "wall" } else if applied.network_namespace() { "loopback only" } else { "host" },
            "connections": if applied.connects() { "made by the filter" } else { "the command's own" },
            "processes": if applied.pids() { "own" } else { "host" },
            "made_ahead": applied.ahead(),
            "capabilities": if applied.capabilities_dropped() { "dropped" } else { "none to drop" },
            "replaced": if applied.mounts() { p.replace.iter().map(|r| r.at.display().to_string()).collect::<Vec<_>>() } else { Vec::new() },
        }),
        (None, Some(why)) => serde_json::json!({"state": "unconfined", "because": why.describe()}),
        (None, None) => serde_json::json!({"state": "unconfined"}),
    }
}

/// The namespace may be dropped when it cannot be made: protected paths
/// are then checked after the command (not with `protectMode: mount`, and
/// never for a cut network, which needs it).
fn may_fall_back(plan: &Plan) -> bool {
    plan.namespace && plan.protect_mode == ProtectMode::Auto && plan.network != Network::Deny
}

/// The paths the integrity check watches: every protected one without
/// binds, else only those that do not exist yet.
fn watched(plan: &Plan) -> Vec<PathBuf> {
    let mut out = if plan.namespace && plan.protect_mode != ProtectMode::Restore {
        plan.protect_missing.clone()
    } else {
        [plan.protect.clone(), plan.protect_missing.clone()].concat()
    };
    out.extend(plan.judged_config.iter().cloned());
    out
}

/// The session's filter makes the command's TCP connections where it
/// takes them and Landlock can refuse the command its own (ABI 4): a
/// connection to the filter for the child to send its listener on, and
/// the layer that refuses every TCP connect. None where the filter takes
/// none or the kernel cannot refuse them (the kernel then makes them,
/// inside the wall, and the filter hands no socket in). Where it takes
/// them but cannot be reached, the command does not run: sockets the
/// filter handed to the session's earlier commands may be passed to it,
/// and only the layer keeps such a socket from being connected elsewhere.
fn connects(abi: u32, wall: &sandbox::net::Joined) -> Result<Option<exec::Connects>, String> {
    if abi < 4 || wall.record.connects.is_empty() {
        return Ok(None);
    }
    let socket = sandbox::net::connects::reach(&wall.record.connects)
        .map_err(|e| format!("the session's network filter takes no connections ({e})"))?;
    let ruleset = sandbox::rules::no_tcp_connects()?;
    Ok(Some(exec::Connects {
        socket: socket.into(),
        ruleset,
    }))
}

/// A child made ahead (`exec::Ahead`) for a command behind this wall,
/// where the commands' confinement starts with its steps: user
/// namespaces can be made (every command then gets a mount namespace of
/// its own) and the kernel's Landlock handles TCP connects (the filter
/// stopping `connect`). None where they cannot, or where the child
/// cannot be made: the command is then confined the ordinary way, which
/// says why if it fails too. `confinement` checks the command's plan
/// again before it takes the child.
pub(crate) fn made_ahead(
    user_namespaces: bool,
    abi: u32,
    wall: &sandbox::net::Joined,
) -> Option<exec::Ahead> {
    if !user_namespaces {
        return None;
    }
    let connects = connects(abi, wall).ok()??;
    let seccomp = sandbox::seccomp::kernel_program_stopping_connect().ok()?;
    exec::Ahead::start(&wall.join, seccomp, connects).ok()
}

/// The child's confinement for a plan, its ruleset and the session's
/// wall (or why it cannot be built: the command must not run).
fn confinement(
    plan: &Plan,
    ruleset: OwnedFd,
    mut wall: Option<&mut sandbox::net::Joined>,
) -> Result<Confinement, String> {
    // A child made ahead for the session's commands serves one whose
    // confinement starts with its steps (its own namespaces inside the
    // wall's, the filter stopping `connect`): it has the connection to
    // the session's filter.
    let ahead = wall
        .as_mut()
        .and_then(|w| w.ahead.take())
        .filter(|_| plan.namespace && plan.network == Network::Allowlist);
    let wall = wall.as_deref();
    // Where the network is confined, the ways around a network namespace
    // and Landlock (raw, MPTCP, SCTP, packet sockets, io_uring) are shut
    // (with `allowlist` also where the wall could not be set up).
    // Where the session's filter makes the connections, the same filter
    // also stops every IP `connect` for it.
    let connects = match (wall, &ahead) {
        (Some(_), Some(a)) => Some(
            a.connects()
                .map_err(|e| format!("the session's network filter: {e}"))?,
        ),
        (Some(w), None) => connects(plan.abi, w)?,
        (None, _) => None,
    };
    let seccomp = match (plan.network, &connects) {
        (Network::Open, _) => None,
        (_, Some(_)) => Some(sandbox::seccomp::kernel_program_stopping_connect()?),
        (Network::Deny | Network::Allowlist, None) => Some(sandbox::seccomp::kernel_program()?),
    };
    let join = match wall {
        Some(w) => Some(exec::Join {
            user: w
                .join
                .user
                .try_clone()
                .map_err(|e| format!("the wall's namespace: {e}"))?,
            net: w
                .join
                .net
                .try_clone()
                .map_err(|e| format!("the wall's namespace: {e}"))?,
        }),
        None => None,
    };
    Ok(Confinement {
        connects,
        ruleset: Some(ruleset),
        namespace: plan.namespace.then(|| Namespace {
            read_only: if plan.protect_mode == ProtectMode::Restore {
                Vec::new()
            } else {
                plan.protect.clone()
            },
            hide: plan
                .hide
                .iter()
                .chain(&plan.cover_sockets)
                .cloned()
                .collect(),
            pin: plan.pin.clone(),
            replace: plan
                .replace
                .iter()
                .map(|r| exec::Replace {
                    at: r.at.clone(),
                    with: r.with.clone(),
                    keep: r
                        .keep
                        .iter()
                        .filter_map(|k| Some((k.clone(), r.mount_point(k)?)))
                        .collect(),
                    read_only: r
                        .read_only
                        .iter()
                        .filter_map(|k| r.mount_point(k))
                        .collect(),
                })
                .collect(),
            overlay: plan
                .settings
                .iter()
                .map(|v| (v.copy.clone(), v.at.clone()))
                .collect(),
            network_off: plan.network == Network::Deny,
            own_pids: true,
        }),
        max_file_bytes: Some(plan.max_file_bytes),
        seccomp,
        join,
        ahead,
    })
}

/// Undo and report what the command changed in protected paths.
fn report_restored(snapshot: &Snapshot, plan: &Plan, asking: &sandbox::hint::Asking<'_>) {
    if snapshot.is_empty() {
        return;
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let root = plan.write.first().map_or(Path::new("/"), PathBuf::as_path);
    let changes = snapshot.restore(stamp);
    for change in &changes {
        report::say(&sandbox::protect::describe(change, root));
    }
    // How the agent asks for them, where someone reviews it.
    let paths: Vec<String> = changes
        .iter()
        .filter(|c| sandbox::widen::refusal(&c.path, asking.places, &plan.read_deny).is_none())
        .map(|c| c.path.display().to_string())
        .collect();
    if asking.reviewer && !paths.is_empty() {
        report::say(&format!(
            "if the user's task needs these changed, run: AUTOMODE_WRITE={} <the same command> (it will be reviewed)",
            paths.join(":")
        ));
    }
}

/// After a confined command: a file-size kill, a likely refusal (also
/// returned), the credentials it did not get.
fn after_confined(
    outcome: &Outcome,
    exit: Exit,
    plan: &Plan,
    cwd: &Path,
    asking: &sandbox::hint::Asking<'_>,
) -> Option<String> {
    // The command itself, or (its shell reporting 128+N) a program it ran.
    if outcome.status == Some(ChildStatus::Signaled(libc::SIGXFSZ))
        || outcome.status == Some(ChildStatus::Exited(128 + libc::SIGXFSZ))
    {
        report::file_too_large(plan.max_file_bytes);
    }
    if exit.code() == 0 {
        return None;
    }
    let hint = sandbox::hint::hint(&outcome.stderr_tail, plan, cwd, asking);
    if let Some(h) = &hint {
        report::raw(&format!("{h}\n"));
    }
    if !plan.withheld_env.is_empty() {
        report::withheld_env(&plan.withheld_env);
    }
    hint
}

/// The exit status for a supervised run: our reason for ending it wins,
/// else the child's own status passes through.
pub fn exit_of(outcome: &Outcome) -> Exit {
    match outcome.termination {
        Some(Termination::TimedOut) => Exit::TimedOut,
        Some(Termination::OutputLimit) => Exit::OutputLimit,
        Some(Termination::Cancelled(sig)) => Exit::Signaled(sig),
        None => match outcome.status {
            Some(ChildStatus::Exited(code)) => Exit::Child(code),
            Some(ChildStatus::Signaled(sig)) => Exit::Signaled(sig),
            None => Exit::Internal,
        },
    }
}
