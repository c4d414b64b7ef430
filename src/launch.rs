//! Running a command automode allowed: the `ExecPlan` for it (its
//! environment, limits, stdin), supervision to the end, the diagnostics
//! that follow, and the `Exit` that reports how it ended. Used by the shim
//! and by `automode exec`; decides no policy.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::context::Context;
use crate::exec::{self, ChildStatus, ExecError, ExecPlan, Outcome, Termination};
use crate::exit::Exit;
use crate::limits::Limits;
use crate::report;

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
}

/// Run under supervision and report how it ended. `on_start` runs once
/// the command is running (bookkeeping that can overlap its start).
pub fn supervise(
    ctx: &Context,
    launch: Launch<'_>,
    on_start: &mut dyn FnMut(),
) -> (Exit, Option<Outcome>) {
    let Launch {
        program,
        argv,
        limits,
        extra_env,
        terminal_stdin,
    } = launch;
    let workspace = match &ctx.workspace {
        Ok(ws) => ws.clone(),
        Err(why) => {
            report::exec_error(&ExecError::WorkspaceChanged(why.clone()));
            return (Exit::Blocked, None);
        }
    };
    let mut env = ctx.env.clone();
    for (k, v) in extra_env {
        env.retain(|(name, _)| name != k.as_str());
        env.push((OsString::from(k), OsString::from(v)));
    }
    let plan = ExecPlan {
        program,
        argv,
        env,
        mark_nested: true,
        timeout: limits.timeout,
        output_limit: limits.output_limit,
        grace: exec::GRACE,
        settle: exec::SETTLE,
        workspace: Some(workspace),
        terminal_stdin,
    };
    match exec::run(&plan, on_start) {
        Ok(outcome) => {
            report::outcome(&outcome, limits.timeout, limits.output_limit);
            (exit_of(&outcome), Some(outcome))
        }
        Err(err) => {
            report::exec_error(&err);
            let exit = match err {
                ExecError::NotFound(_) => Exit::NotFound,
                ExecError::CannotExecute(..) => Exit::CannotInvoke,
                ExecError::WorkspaceChanged(_) => Exit::Blocked,
                ExecError::Os(_) => Exit::Internal,
            };
            (exit, None)
        }
    }
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
