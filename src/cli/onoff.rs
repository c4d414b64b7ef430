//! `automode on|off [--session ID]` (the user only): the global switch,
//! or one session's. A managed policy can refuse `off`.

use std::path::Path;

use crate::context::Context;
use crate::state::{self, Store};

pub(super) fn run(
    ctx: &Context,
    state_dir: Option<&Path>,
    on: bool,
    session: Option<String>,
) -> Result<String, String> {
    if !on && let Some(why) = super::load_config(ctx)?.switch_locked() {
        return Err(format!(
            "automode off is refused: the administrator's managed policy keeps auto mode on ({why})"
        ));
    }
    let dir = state_dir.ok_or("no state directory (HOME is not set)")?;
    let word = if on { "on" } else { "off" };
    match session {
        Some(id) => {
            let store = Store::new(dir.to_path_buf(), id.clone());
            store
                .update(state::USER_LOCK_WAIT, |s| s.enabled = Some(on))?
                .ok_or_else(|| state::busy(&store.path().with_extension("lock")))?;
            Ok(format!("auto mode is {word} for session {id}\n"))
        }
        None => {
            state::set_global(dir, Some(on))?;
            Ok(format!(
                "auto mode is {word} (every session without its own switch)\n"
            ))
        }
    }
}
