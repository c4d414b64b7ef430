//! Entry point: capture the process context, run the pipeline, exit the way
//! the child did.

fn main() {
    let ctx = automode::context::Context::capture();
    automode::app::run(ctx).terminate()
}
