//! `automode reset [--session ID]` (the user only): forget sessions (their
//! files are removed: counters, recent denials, their own switches), and
//! without `--session` the global switch too.

use std::path::Path;

use crate::state;

pub(super) fn run(state_dir: Option<&Path>, session: Option<String>) -> Result<String, String> {
    let dir = state_dir.ok_or("no state directory (HOME is not set)")?;
    let n = state::remove_sessions(dir, session.as_deref(), state::USER_LOCK_WAIT)?;
    if session.is_none() {
        state::set_global(dir, None)?;
    }
    Ok(format!(
        "reset {n} session(s){}\n",
        if session.is_none() {
            " and the global on/off switch"
        } else {
            ""
        }
    ))
}
