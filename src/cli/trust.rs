//! `automode trust|untrust [DIR]` (the user only): whether a project's
//! `.automode/local.json` is read.

use std::path::{Path, PathBuf};

use crate::config;
use crate::context::Context;

pub(super) fn run(
    ctx: &Context,
    config_dir: Option<&Path>,
    trusted: bool,
    dir: Option<PathBuf>,
) -> Result<String, String> {
    let config_dir = config_dir.ok_or("no configuration directory (HOME is not set)")?;
    let base = match dir {
        Some(d) if d.is_absolute() => d,
        Some(d) => ctx
            .cwd()
            .ok_or("cannot determine the working directory")?
            .join(d),
        None => ctx
            .cwd()
            .ok_or("cannot determine the working directory")?
            .to_path_buf(),
    };
    if !base.is_dir() {
        return Err(format!("{} is not a directory", base.display()));
    }
    let root = config::project_root(&base).unwrap_or(base);
    let file = config::trust::set(config_dir, &root, trusted)?;
    Ok(format!(
        "{} {}: its .automode/local.json is {} (recorded in {})\n",
        if trusted {
            "trusted"
        } else {
            "no longer trusted"
        },
        root.display(),
        if trusted { "read" } else { "ignored" },
        file.display()
    ))
}
