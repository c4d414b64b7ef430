//! A `Plan` as a Landlock ruleset, built in the supervisor (it opens
//! paths and allocates) with the `landlock` crate; the child only applies
//! the ruleset's file descriptor right before `execve`.
//!
//! Landlock only grants: a right given on a directory holds for its whole
//! tree. A denied path inside a granted tree is carved out by granting
//! every sibling on the way down instead of the tree (`cover`), and a path
//! that must stay reachable inside a denied one (a PATH entry in another
//! home) is granted again on its own. Listing directories (`ReadDir`) is
//! granted everywhere: names stay visible, contents do not.

use std::collections::BTreeSet;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};
use nix::fcntl::{OFlag, open};
use nix::sys::stat::Mode;

use super::Plan;

/// The ABI whose rights automode asks for (best effort above the minimum).
const ASKED: ABI = ABI::V9;

/// What "read" means for a granted tree.
fn read_rights() -> BitFlags<AccessFs> {
    AccessFs::ReadFile | AccessFs::Execute
}

/// Every right, for write roots.
fn write_rights() -> BitFlags<AccessFs> {
    AccessFs::from_all(ASKED)
}

/// Read, write and truncate a device file (and its ioctls).
fn device_rights() -> BitFlags<AccessFs> {
    AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev
}

/// One grant: a path and its rights.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub path: PathBuf,
    pub rights: BitFlags<AccessFs>,
}

/// Grant `rights` on everything under `root` except the `exclude` trees,
/// where only the `keep` trees inside them get `rights` back. Existing
/// paths only (the caller canonicalised them).
pub fn cover(
    root: &Path,
    rights: BitFlags<AccessFs>,
    exclude: &[PathBuf],
    keep: &[PathBuf],
    out: &mut Vec<Grant>,
) {
    // The nearest ancestor-or-self among the excludes and keeps decides
    // whether `root` itself is inside a carved-out tree.
    let nearest_exclude = exclude
        .iter()
        .filter(|e| root.starts_with(e))
        .map(|e| e.components().count())
        .max();
    let nearest_keep = keep
        .iter()
        .filter(|k| root.starts_with(k))
        .map(|k| k.components().count())
        .max();
    let excluded = match (nearest_exclude, nearest_keep) {
        (Some(e), Some(k)) => e > k,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let below = |set: &[PathBuf]| set.iter().any(|p| p != root && p.starts_with(root));
    if excluded {
        // Only the keeps below it come back.
        if below(keep) {
            for child in children(root) {
                if keep.iter().any(|k| k.starts_with(&child)) {
                    cover(&child, rights, exclude, keep, out);
                }
            }
        }
        return;
    }
    if !below(exclude) {
        out.push(Grant {
            path: root.to_path_buf(),
            rights,
        });
        return;
    }
    for child in children(root) {
        cover(&child, rights, exclude, keep, out);
    }
}

/// The entries of a directory (sorted, so rules are deterministic).
fn children(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    out.sort();
    out
}

/// Every grant of a plan: reads of all but the denied paths, writes of
/// the write roots but their excluded parts, device files.
pub fn grants(plan: &Plan) -> Vec<Grant> {
    let mut out = Vec::new();
    // Listing everywhere (a grant on `/` covers every tree).
    out.push(Grant {
        path: PathBuf::from("/"),
        rights: AccessFs::ReadDir.into(),
    });
    // What a command may write it may read.
    let mut keep = plan.read_keep.clone();
    keep.extend(plan.write.iter().cloned());
    keep.extend(plan.extra_write.iter().map(|(p, _)| p.clone()));
    cover(
        Path::new("/"),
        read_rights(),
        &plan.read_deny,
        &keep,
        &mut out,
    );
    // `/dev`: ioctls on ttys and the like (ABI 5 confines them).
    out.push(Grant {
        path: PathBuf::from("/dev"),
        rights: AccessFs::IoctlDev.into(),
    });
    let mut roots: BTreeSet<PathBuf> = plan.write.iter().cloned().collect();
    roots.extend(plan.extra_write.iter().map(|(p, _)| p.clone()));
    for root in &roots {
        // A root granted on its own (a cache in a home) is writable even
        // inside an excluded tree; excluded trees inside it are carved out.
        cover(
            root,
            write_rights(),
            &plan.write_exclude,
            std::slice::from_ref(root),
            &mut out,
        );
    }
    for d in &plan.devices {
        out.push(Grant {
            path: d.clone(),
            rights: device_rights(),
        });
    }
    out
}

/// Build the ruleset; its file descriptor is what the child applies.
/// Fails when the kernel cannot enforce ABI 2 (the caller decides what
/// that means under the sandbox mode).
pub fn ruleset(plan: &Plan) -> Result<OwnedFd, String> {
    let err = |e: landlock::RulesetError| format!("cannot build the Landlock ruleset: {e}");
    let mut created = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V2))
        .map_err(err)?
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(ASKED))
        .map_err(err)?
        .scope(Scope::from_all(ABI::V6))
        .map_err(err)?
        .create()
        .map_err(err)?;
    for g in grants(plan) {
        let Some((fd, is_dir)) = open_path(&g.path) else {
            continue;
        };
        let rights = if is_dir {
            g.rights
        } else {
            g.rights & AccessFs::from_file(ASKED)
        };
        if rights.is_empty() {
            continue;
        }
        created = created
            .add_rule(PathBeneath::new(fd, rights))
            .map_err(|e| format!("cannot grant {}: {e}", g.path.display()))?;
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| "the kernel gave no Landlock ruleset".to_string())
}

/// Open a path for a rule (`O_PATH`, not following a final symlink: a
/// symlink's own inode grants nothing, its target is granted where it
/// lives), with whether it is a directory.
fn open_path(p: &Path) -> Option<(OwnedFd, bool)> {
    use nix::sys::stat::SFlag;
    let fd = open(
        p,
        OFlag::O_PATH | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW,
        Mode::empty(),
    )
    .ok()?;
    let st = nix::sys::stat::fstat(&fd).ok()?;
    let kind = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
    if kind == SFlag::S_IFLNK {
        return None;
    }
    Some((fd, kind == SFlag::S_IFDIR))
}
