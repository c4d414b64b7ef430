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
    canonical_pair(&joined)
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
    canonical_pair(&base).0
}

/// Walk the components, following symlinks while the path exists; once a
/// component is missing, the rest is taken lexically. Two results: the last
/// component followed if it is a symlink, and not. Both walks take the same
/// steps (and system calls) up to the last component, so they are one walk
/// that notes where the second would have stopped.
fn canonical_pair(path: &Path) -> (PathBuf, PathBuf) {
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
    // Where the walk that does not follow the last component ends.
    let mut lexical = None;
    while let Some(name) = pending.pop() {
        if name == ".." {
            out.pop();
            continue;
        }
        // `out` becomes the next path in place (no copy per component); a
        // symlink puts it back to the parent.
        out.push(&name);
        if pending.is_empty() && lexical.is_none() {
            lexical = Some(out.clone());
        }
        if exists {
            match std::fs::symlink_metadata(&out) {
                Ok(meta) if meta.file_type().is_symlink() && links < MAX_SYMLINKS => {
                    links += 1;
                    if let Ok(target) = std::fs::read_link(&out) {
                        out.pop();
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
                }
                Ok(_) => {}
                Err(_) => exists = false,
            }
        }
    }
    let lexical = lexical.unwrap_or_else(|| out.clone());
    (out, lexical)
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
