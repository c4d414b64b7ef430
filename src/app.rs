//! Dispatch on argv[0]: invoked as `bash` or `sh`, the shim pipeline
//! (`shim.rs`); as `automode-netd` or `automode-netns`, a session's
//! network filter or its namespace's holder (`sandbox/net/`, started by
//! the shim, never by a user); as `automode-checkpointd`, a project's
//! checkpoint watcher (`checkpoint/watch.rs`); under any other name, the `automode`
//! command line (`cli/`). Nothing else happens here.

use crate::context::Context;
use crate::exit::Exit;
use crate::{checkpoint, cli, invocation, sandbox, shim, timing};

/// Run automode for this process context.
pub fn run(ctx: Context) -> Exit {
    let name = std::path::Path::new(&ctx.argv0)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let exit = match invocation::shell_kind_of(&ctx.argv0) {
        Some(kind) => {
            timing::begin(ctx.var("AUTOMODE_TIMING").is_some_and(|v| !v.is_empty()));
            let exit = shim::run(&ctx, kind);
            timing::report();
            exit
        }
        None if name == sandbox::net::daemon::ARGV0 => sandbox::net::daemon::main(&ctx.args),
        None if name == sandbox::net::daemon::HOLDER_ARGV0 => sandbox::net::holder::main(&ctx.args),
        None if name == checkpoint::watch::ARGV0 => checkpoint::watch::main(&ctx.args),
        None => cli::run(&ctx),
    };
    // The process exits next (nothing to free).
    std::mem::forget(ctx);
    exit
}
