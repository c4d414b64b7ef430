//! `automode exec [--timeout S] [--output-limit BYTES] -- PROGRAM ARGS…`:
//! run one program directly (no shell) under the same supervision as the
//! shim's commands.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::exit::Exit;
use crate::judge::{Judge, Run, Switches, Unconfined};
use crate::launch::{self, Launch};
use crate::limits::{LimitSource, Request};
use crate::report;

/// Programs `automode exec` refuses: shells and wrappers that would run
/// another command out of sight (the caller should pass that command).
const EXEC_WRAPPERS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "env", "sudo",
    "su", "doas", "nice", "ionice", "nohup", "time", "timeout", "stdbuf", "setsid", "xargs",
    "chroot", "unshare", "nsenter", "flock", "watch", "parallel", "script",
];

/// `automode exec`: one argv, no shell, same supervision.
pub(super) fn run(
    ctx: &Context,
    timeout: Option<String>,
    output_limit: Option<String>,
    argv: Vec<OsString>,
) -> Exit {
    let Some(program) = argv.first() else {
        return Exit::Usage;
    };
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if EXEC_WRAPPERS.contains(&name.as_str()) {
        report::exec_wrapper_refused(&name);
        return Exit::Usage;
    }
    let mut requests = crate::shim::environment_requests(ctx);
    if let Some(v) = timeout {
        requests.timeout.push(Request {
            value: v,
            source: LimitSource::Flag,
        });
    }
    if let Some(v) = output_limit {
        requests.output_limit.push(Request {
            value: v,
            source: LimitSource::Flag,
        });
    }
    let limits = match requests.resolve() {
        Ok(l) => l,
        Err(e) => {
            report::limit_error(&e);
            return Exit::Usage;
        }
    };
    let Some(cwd) = ctx.cwd().map(Path::to_path_buf) else {
        report::internal("cannot determine the working directory");
        return Exit::Internal;
    };
    let judge = match Judge::load(ctx, &cwd, Switches::SessionAndGlobal) {
        Ok(j) => j,
        Err(e) => {
            report::config_error(&e);
            return Exit::Blocked;
        }
    };
    let mut sandbox = judge.exec_sandbox(ctx, &cwd);
    let ruleset = sandbox.ruleset.take();
    let wall = sandbox.wall.take();
    let run = match sandbox.run(ruleset, wall) {
        Ok(run) => run,
        Err(refused) => {
            report::run_refused(&refused);
            return Exit::Blocked;
        }
    };
    if let Run::Unconfined(Unconfined::KernelCannot { why }) = &run {
        report::sandbox_unavailable_warning(why);
    }
    let Some(path) = resolve_program(ctx, program) else {
        report::program_not_found(&program.to_string_lossy());
        return Exit::NotFound;
    };
    launch::supervise(
        ctx,
        Launch {
            program: path,
            argv,
            limits,
            extra_env: &[],
            terminal_stdin: false,
            run,
            cwd: &cwd,
            command_id: "exec",
            asking: crate::sandbox::hint::Asking {
                places: &judge.places,
                reviewer: false,
                tmpdir: ctx
                    .var_str("TMPDIR")
                    .filter(|t| t.starts_with('/'))
                    .map(Path::new),
            },
        },
        &mut |_| {},
    )
    .0
}

/// PATH lookup as execvp does it, but only through absolute directories.
fn resolve_program(ctx: &Context, program: &OsStr) -> Option<PathBuf> {
    if program.as_bytes().contains(&b'/') {
        let p = Path::new(program);
        return Some(match ctx.cwd() {
            Some(cwd) if p.is_relative() => cwd.join(p),
            _ => p.to_path_buf(),
        });
    }
    let path_var = ctx.var("PATH")?;
    path_var
        .as_bytes()
        .split(|b| *b == b':')
        .filter(|d| d.first() == Some(&b'/'))
        .map(|d| Path::new(OsStr::from_bytes(d)).join(program))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}
