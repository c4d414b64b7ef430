//! What git already stores: the blob ids its index names (read from the
//! index file itself, no git process), and a blob's content when an undo
//! needs one back (`git cat-file`). A file whose content git holds is not
//! copied into the checkpoint store.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::tree::Id;

/// The repository directory of the worktree at `root` (`.git`, or where
/// a `.git` file points).
pub fn git_dir(root: &Path) -> Option<PathBuf> {
    let dot = root.join(".git");
    let meta = std::fs::symlink_metadata(&dot).ok()?;
    if meta.is_dir() {
        return Some(dot);
    }
    let text = std::fs::read_to_string(&dot).ok()?;
    let target = text.strip_prefix("gitdir:")?.trim();
    let p = Path::new(target);
    Some(if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    })
}

/// The blob ids in the index of the repository at `root` (none when
/// there is no repository or its index cannot be read).
pub fn index_ids(root: &Path) -> HashSet<Id> {
    git_dir(root)
        .and_then(|d| std::fs::read(d.join("index")).ok())
        .and_then(|bytes| parse_index(&bytes))
        .unwrap_or_default()
}

/// The blob ids of an index file (versions 2 to 4); gitlinks and
/// intent-to-add entries name no object and are left out.
pub fn parse_index(b: &[u8]) -> Option<HashSet<Id>> {
    if b.len() < 12 || &b[..4] != b"DIRC" {
        return None;
    }
    let version = u32::from_be_bytes(b[4..8].try_into().ok()?);
    let count = u32::from_be_bytes(b[8..12].try_into().ok()?) as usize;
    if !(2..=4).contains(&version) {
        return None;
    }
    let mut out = HashSet::with_capacity(count);
    let mut at = 12usize;
    for _ in 0..count {
        let fixed = b.get(at..at + 62)?;
        let mode = u32::from_be_bytes(fixed[24..28].try_into().ok()?);
        let mut id = [0u8; 20];
        id.copy_from_slice(&fixed[40..60]);
        let flags = u16::from_be_bytes(fixed[60..62].try_into().ok()?);
        let mut pos = at + 62;
        let mut intent_to_add = false;
        if flags & 0x4000 != 0 {
            let ext = u16::from_be_bytes(b.get(pos..pos + 2)?.try_into().ok()?);
            intent_to_add = ext & 0x2000 != 0;
            pos += 2;
        }
        if version == 4 {
            // A varint (bytes of the previous path to drop), then the rest.
            loop {
                let byte = *b.get(pos)?;
                pos += 1;
                if byte & 0x80 == 0 {
                    break;
                }
            }
            let nul = b.get(pos..)?.iter().position(|&c| c == 0)?;
            at = pos + nul + 1;
        } else {
            let nul = b.get(pos..)?.iter().position(|&c| c == 0)?;
            let len = pos - at + nul;
            at += (len + 8) & !7;
        }
        if mode & 0o170000 != 0o160000 && !intent_to_add {
            out.insert(Id(id));
        }
    }
    Some(out)
}

/// A blob's content from the repository at `root`.
pub fn blob(root: &Path, id: &Id) -> Result<Vec<u8>, String> {
    let dir = git_dir(root).ok_or_else(|| {
        format!(
            "{} is kept by git, and {} has no repository any more",
            id.hex(),
            root.display()
        )
    })?;
    let mut cmd = Command::new("git");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("GIT_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd
        .arg("--git-dir")
        .arg(&dir)
        .args(["cat-file", "blob", &id.hex()])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run git to read {}: {e}", id.hex()))?;
    if !out.status.success() {
        return Err(format!(
            "git no longer has the content {} (was it pruned?): {}",
            id.hex(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_that_is_not_one_names_nothing() {
        assert!(parse_index(b"").is_none());
        assert!(parse_index(b"DIRC\0\0\0\x09\0\0\0\x01").is_none());
        // One entry claimed, none there.
        assert!(parse_index(b"DIRC\0\0\0\x02\0\0\0\x01").is_none());
        assert_eq!(
            parse_index(b"DIRC\0\0\0\x02\0\0\0\0").map(|s| s.len()),
            Some(0)
        );
    }
}
