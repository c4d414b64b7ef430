//! Resolving a file target to the path the kernel would use: relative to
//! the working directory, symlinks followed for the part that exists,
//! `.`/`..`/`//` handled as the kernel does (after symlinks, not before).

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed before giving up (the kernel's limit is 40).
const MAX_SYMLINKS: usize = 40;

/// Resolve `target` against `cwd`: (following the last component,
/// not following it).
pub fn resolve(cwd: &Path, target: &str) -> (PathBuf, PathBuf) {
    let joined = if target.starts_with('/') {
        PathBuf::from(target)
    } else {
        cwd.join(target)
    };
    let full = canonical(&joined, true);
    let lexical = canonical(&joined, false);
    (full, lexical)
}

/// The directory a glob pattern searches: the part before the first
/// component with a glob character, resolved.
pub fn glob_base(cwd: &Path, pattern: &str) -> PathBuf {
    let first_glob = pattern.find(['*', '?', '[']).unwrap_or(pattern.len());
    let cut = pattern[..first_glob].rfind('/').map_or(0, |k| k + 1);
    let dir = &pattern[..cut];
    let base = if dir.is_empty() {
        cwd.to_path_buf()
    } else if dir.starts_with('/') {
        PathBuf::from(dir)
    } else {
        cwd.join(dir)
    };
    canonical(&base, true)
}

/// Walk the components, following symlinks while the path exists; once a
/// component is missing, the rest is taken lexically.
fn canonical(path: &Path, follow_last: bool) -> PathBuf {
    let mut pending: Vec<OsString> = path
        .components()
        .rev()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    let mut out = PathBuf::from("/");
    let mut exists = true;
    let mut links = 0;
    while let Some(name) = pending.pop() {
        if name == ".." {
            out.pop();
            continue;
        }
        let next = out.join(&name);
        let is_last = pending.is_empty();
        if exists && (!is_last || follow_last) {
            match std::fs::symlink_metadata(&next) {
                Ok(meta) if meta.file_type().is_symlink() && links < MAX_SYMLINKS => {
                    links += 1;
                    if let Ok(target) = std::fs::read_link(&next) {
                        if target.is_absolute() {
                            out = PathBuf::from("/");
                        }
                        for c in target.components().rev() {
                            match c {
                                Component::Normal(n) => pending.push(n.to_os_string()),
                                Component::ParentDir => pending.push(OsString::from("..")),
                                Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
                            }
                        }
                        continue;
                    }
                    out = next;
                }
                Ok(_) => out = next,
                Err(_) => {
                    exists = false;
                    out = next;
                }
            }
        } else {
            out = next;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_dots_slashes_and_symlinks() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = std::fs::canonicalize(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir(root.join("real")).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(root.join("real"), root.join("link"))
            .unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink("/etc", root.join("etclink")).unwrap_or_else(|e| panic!("{e}"));
        let (p, _) = resolve(&root, "link/x");
        assert_eq!(p, root.join("real/x"));
        let (p, _) = resolve(&root, ".//real/./../real/y");
        assert_eq!(p, root.join("real/y"));
        let (p, l) = resolve(&root, "etclink");
        assert_eq!(p, PathBuf::from("/etc"));
        assert_eq!(l, root.join("etclink"));
        let (p, _) = resolve(&root, "etclink/../tmp");
        assert_eq!(p, PathBuf::from("/tmp"));
        let (p, _) = resolve(&root, "//etc///passwd");
        assert_eq!(p, PathBuf::from("/etc/passwd"));
        let (p, _) = resolve(&root, "missing/../../x");
        assert_eq!(p, root.parent().unwrap_or(&root).join("x"));
        assert_eq!(glob_base(&root, "/etc/*.conf"), PathBuf::from("/etc"));
        assert_eq!(glob_base(&root, "/*"), PathBuf::from("/"));
        assert_eq!(glob_base(&root, "*.o"), root.clone());
        assert_eq!(glob_base(&root, "link/*/x"), root.join("real"));
    }
}
