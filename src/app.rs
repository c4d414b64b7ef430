//! Dispatch on argv[0]: invoked as `bash` or `sh`, the shim pipeline
//! (`shim.rs`); under any other name, the `automode` command line
//! (`cli/`). Nothing else happens here.

use crate::context::Context;
use crate::exit::Exit;
use crate::{cli, invocation, shim};

/// Run automode for this process context.
pub fn run(ctx: Context) -> Exit {
    let exit = match invocation::shell_kind_of(&ctx.argv0) {
        Some(kind) => shim::run(&ctx, kind),
        None => cli::run(&ctx),
    };
    // The process exits next (nothing to free).
    std::mem::forget(ctx);
    exit
}
