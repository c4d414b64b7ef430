//! Which projects the user trusted (`automode trust`): a list of absolute
//! project roots in `trusted.json` in automode's config directory. Only a
//! trusted project's `.automode/local.json` is read.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file, inside the config directory.
pub const TRUST_FILE: &str = "trusted.json";

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFile {
    projects: Vec<PathBuf>,
}

fn read(dir: &Path) -> TrustFile {
    std::fs::read_to_string(dir.join(TRUST_FILE))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Is this project root trusted?
pub fn is_trusted(dir: &Path, root: &Path) -> bool {
    let canon = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    read(dir).projects.contains(&canon)
}

/// All trusted roots.
pub fn list(dir: &Path) -> Vec<PathBuf> {
    read(dir).projects
}

/// Add or remove a project root; returns the trust file's path.
pub fn set(dir: &Path, root: &Path, trusted: bool) -> Result<PathBuf, String> {
    let canon = std::fs::canonicalize(root)
        .map_err(|e| format!("cannot resolve {}: {e}", root.display()))?;
    let mut file = read(dir);
    file.projects.retain(|p| *p != canon);
    if trusted {
        file.projects.push(canon);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
    let path = dir.join(TRUST_FILE);
    crate::state::write_atomic(&path, format!("{text}\n").as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}
