//! A `Plan` as a Landlock ruleset, built in the supervisor (it opens
//! paths and allocates); the child only applies the ruleset's file
//! descriptor right before `execve`. The `landlock` crate creates the
//! ruleset (which rights and scopes, best effort above ABI 2); rules are
//! added with the raw syscall (`exec::landlock_add_path_rule`), because
//! the crate `fstat`s every rule and a command's ruleset has dozens.
//!
//! Landlock only grants: a right given on a directory holds for its whole
//! tree. A denied path inside a granted tree is carved out by granting
//! every sibling on the way down instead of the tree (`cover`), and a path
//! that must stay reachable inside a denied one (a PATH entry in another
//! home) is granted again on its own. Listing directories (`ReadDir`) is
//! granted everywhere: names stay visible, contents do not.
//!
//! This runs before every command, so it is written for its system calls:
//! a directory is read once, its entries' types come from `getdents`, and
//! each entry is opened relative to its directory.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};
use nix::dir::Type;
use nix::fcntl::{OFlag, open, openat};
use nix::sys::stat::Mode;

use super::Plan;
use super::cache::GrantSpec;

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

/// One grant: a path (open, when `cover` opened it already), its rights,
/// and whether it is a directory.
#[derive(Debug)]
pub struct Grant {
    pub path: PathBuf,
    pub rights: BitFlags<AccessFs>,
    pub is_dir: Option<bool>,
    fd: Option<OwnedFd>,
}

impl Grant {
    fn new(path: PathBuf, rights: BitFlags<AccessFs>, is_dir: Option<bool>) -> Grant {
        Grant {
            path,
            rights,
            is_dir,
            fd: None,
        }
    }
}

/// `p` is `root` or inside it (byte comparison at a `/` boundary).
fn under(p: &Path, root: &Path) -> bool {
    let (p, r) = (p.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    p.starts_with(r) && (p.len() == r.len() || r.ends_with(b"/") || p[r.len()] == b'/')
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
    // The nearest strict ancestor among the excludes and keeps decides
    // the state `root` inherits (the deeper one wins).
    let depth = |p: &Path| p.as_os_str().len();
    let nearest = |set: &[PathBuf]| {
        set.iter()
            .filter(|p| p.as_path() != root && under(root, p))
            .map(|p| depth(p))
            .max()
    };
    let inherited = match (nearest(exclude), nearest(keep)) {
        (Some(e), Some(k)) => Some(e > k),
        (Some(_), None) => Some(true),
        (None, Some(_)) => Some(false),
        (None, None) => None,
    };
    let ex: Vec<&Path> = exclude
        .iter()
        .map(PathBuf::as_path)
        .filter(|e| under(e, root))
        .collect();
    let kp: Vec<&Path> = keep
        .iter()
        .map(PathBuf::as_path)
        .filter(|k| under(k, root))
        .collect();
    let node = Node {
        path: root.to_path_buf(),
        is_dir: None,
        parent: None,
    };
    cover_in(&node, inherited, rights, &ex, &kp, out);
}

/// A path being covered, and how to open it.
struct Node<'a> {
    path: PathBuf,
    is_dir: Option<bool>,
    /// Its directory, open (children are opened relative to it).
    parent: Option<BorrowedFd<'a>>,
}

impl Node<'_> {
    /// Open it with `flags` (relative to its directory when known).
    fn open(&self, flags: OFlag) -> Option<OwnedFd> {
        let flags = flags | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW;
        match (self.parent, self.path.file_name()) {
            (Some(dir), Some(name)) => openat(dir, name, flags, Mode::empty()).ok(),
            _ => open(&self.path, flags, Mode::empty()).ok(),
        }
    }

    fn grant(&self, rights: BitFlags<AccessFs>) -> Grant {
        Grant {
            path: self.path.clone(),
            rights,
            is_dir: self.is_dir,
            fd: self.open(OFlag::O_PATH),
        }
    }
}

/// `cover` below a known state: `excluded_above` is `Some(true)` inside
/// an excluded tree, `Some(false)` inside a kept one; `ex` and `kp` hold
/// only the paths under the node.
fn cover_in(
    node: &Node<'_>,
    excluded_above: Option<bool>,
    rights: BitFlags<AccessFs>,
    ex: &[&Path],
    kp: &[&Path],
    out: &mut Vec<Grant>,
) {
    let root = node.path.as_path();
    let state = if kp.contains(&root) {
        Some(false)
    } else if ex.contains(&root) {
        Some(true)
    } else {
        excluded_above
    };
    let ex_below: Vec<&Path> = ex.iter().copied().filter(|e| *e != root).collect();
    let kp_below: Vec<&Path> = kp.iter().copied().filter(|k| *k != root).collect();
    let excluded = state == Some(true);
    if excluded && kp_below.is_empty() {
        return;
    }
    if !excluded && ex_below.is_empty() {
        out.push(node.grant(rights));
        return;
    }
    if node.is_dir == Some(false) {
        return;
    }
    super::cache::listed(root);
    let Some(dir_fd) = node.open(OFlag::O_RDONLY | OFlag::O_DIRECTORY) else {
        return;
    };
    for (name, is_dir) in entries(&dir_fd) {
        let child = Node {
            path: root.join(std::ffi::OsStr::from_bytes(name.to_bytes())),
            is_dir: Some(is_dir),
            parent: Some(dir_fd.as_fd()),
        };
        let sub_ex: Vec<&Path> = ex_below
            .iter()
            .copied()
            .filter(|e| under(e, &child.path))
            .collect();
        let sub_kp: Vec<&Path> = kp_below
            .iter()
            .copied()
            .filter(|k| under(k, &child.path))
            .collect();
        if excluded && sub_kp.is_empty() {
            continue;
        }
        if !excluded && sub_ex.is_empty() && sub_kp.is_empty() {
            out.push(child.grant(rights));
            continue;
        }
        cover_in(&child, state, rights, &sub_ex, &sub_kp, out);
    }
}

/// A directory's entries with whether each is a directory, sorted (so
/// rules are deterministic). Symlinks are left out: a symlink's own inode
/// grants nothing; its target is granted where it lives.
fn entries(dir: &OwnedFd) -> Vec<(std::ffi::CString, bool)> {
    let Ok(raw) = crate::exec::dir_entries(dir.as_fd()) else {
        return Vec::new();
    };
    let mut out: Vec<(std::ffi::CString, bool)> = raw
        .into_iter()
        .filter_map(|(name, kind)| {
            let kind = match kind {
                libc::DT_DIR => Type::Directory,
                libc::DT_LNK => Type::Symlink,
                libc::DT_UNKNOWN => {
                    let st = nix::sys::stat::fstatat(
                        dir,
                        name.as_c_str(),
                        nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
                    )
                    .ok()?;
                    let k = nix::sys::stat::SFlag::from_bits_truncate(st.st_mode)
                        & nix::sys::stat::SFlag::S_IFMT;
                    if k == nix::sys::stat::SFlag::S_IFDIR {
                        Type::Directory
                    } else if k == nix::sys::stat::SFlag::S_IFLNK {
                        Type::Symlink
                    } else {
                        Type::File
                    }
                }
                _ => Type::File,
            };
            (kind != Type::Symlink).then_some((name, kind == Type::Directory))
        })
        .collect();
    out.sort();
    out
}

/// Every grant of a plan: reads of all but the denied paths, writes of
/// the write roots but their excluded parts, device files.
pub fn grants(plan: &Plan) -> Vec<Grant> {
    let mut out = Vec::new();
    // Listing everywhere (a grant on `/` covers every tree).
    out.push(Grant::new(
        PathBuf::from("/"),
        AccessFs::ReadDir.into(),
        Some(true),
    ));
    // What a command may write it may read.
    let mut keep = plan.read_keep.clone();
    keep.extend(plan.write.iter().cloned());
    keep.extend(plan.settings.iter().map(|s| s.copy.clone()));
    keep.extend(plan.extra_write.iter().map(|(p, _)| p.clone()));
    cover(
        Path::new("/"),
        read_rights(),
        &plan.carved(),
        &keep,
        &mut out,
    );
    // `/dev`: ioctls on ttys and the like (ABI 5 confines them).
    out.push(Grant::new(
        PathBuf::from("/dev"),
        AccessFs::IoctlDev.into(),
        Some(true),
    ));
    let mut roots: Vec<&PathBuf> = plan
        .write
        .iter()
        .chain(plan.extra_write.iter().map(|(p, _)| p))
        .collect();
    roots.sort();
    roots.dedup();
    for root in roots {
        write_grants(root, plan, &mut out);
    }
    for d in &plan.devices {
        out.push(Grant::new(d.clone(), device_rights(), Some(false)));
    }
    for d in &plan.sockets {
        out.push(Grant::new(
            d.clone(),
            AccessFs::ResolveUnix.into(),
            Some(true),
        ));
    }
    out
}

/// The grants for one write root: it whole, but its excluded parts (a
/// root granted on its own, like a cache in a home, is writable even
/// inside an excluded tree).
fn write_grants(root: &Path, plan: &Plan, out: &mut Vec<Grant>) {
    cover(
        root,
        write_rights(),
        &plan.write_exclude,
        &[root.to_path_buf()],
        out,
    );
}

/// A ruleset being built: the base grants first, the command's own added
/// later.
#[derive(Debug)]
pub struct Builder {
    ruleset: OwnedFd,
    /// The rights the ruleset handles on this kernel (a rule may grant no
    /// others).
    handled: BitFlags<AccessFs>,
    /// The rules added so far (for the cache).
    pub added: Vec<GrantSpec>,
    /// The paths' descriptors, closed once the command has started
    /// (`release_held`): closing them is a system call each.
    held: Vec<OwnedFd>,
}

thread_local! {
    static HELD: std::cell::RefCell<Vec<OwnedFd>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Close the descriptors the finished rulesets held (called once the
/// command is running, while it starts on the other core).
pub fn release_held() {
    HELD.with(|h| h.borrow_mut().clear());
}

/// A Landlock ruleset that handles TCP connects and allows none: the
/// layer under which a command makes no TCP connection itself (the
/// session's filter makes them, `exec::Connects`). Needs ABI 4. (Every
/// layer refuses moving a file between directories unless it handles
/// `REFER` and grants it: this one grants it everywhere, and leaves the
/// files to the first layer.)
pub fn no_tcp_connects() -> Result<OwnedFd, String> {
    let err = |e: landlock::RulesetError| format!("cannot build the Landlock network layer: {e}");
    let root = landlock::PathFd::new("/").map_err(|e| format!("cannot open /: {e}"))?;
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(landlock::AccessNet::ConnectTcp)
        .map_err(err)?
        .handle_access(AccessFs::Refer)
        .map_err(err)?
        .create()
        .map_err(err)?
        .add_rule(landlock::PathBeneath::new(root, AccessFs::Refer))
        .map_err(err)?;
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| "the kernel gave no Landlock ruleset".to_string())
}

impl Builder {
    /// Create the ruleset and add every grant of `plan`. Fails when the
    /// kernel cannot enforce ABI 2 (the caller decides what that means
    /// under the sandbox mode). `abi`: the kernel's Landlock ABI.
    pub fn new(plan: &Plan, abi: u32) -> Result<Builder, String> {
        let mut b = Builder::empty(abi)?;
        b.add(grants(plan))?;
        Ok(b)
    }

    /// Create the ruleset and add rules as remembered (`cache`): each
    /// path opened again, relative to its directory (each directory
    /// opened once). A path gone since is skipped (less access).
    pub fn from_specs(specs: &[GrantSpec], abi: u32) -> Result<Builder, String> {
        let mut b = Builder::empty(abi)?;
        let flags = OFlag::O_PATH | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW;
        // The directories opened so far (a carved directory's siblings
        // come in several runs: `/` before and after the homes carved
        // below it); `None`: it could not be opened.
        let mut dirs: Vec<(&Path, Option<OwnedFd>)> = Vec::new();
        for s in specs {
            let fd = match (s.path.parent(), s.path.file_name()) {
                (Some(parent), Some(name)) => {
                    let at = match dirs.iter().position(|(d, _)| *d == parent) {
                        Some(at) => at,
                        None => {
                            let fd = open(parent, flags | OFlag::O_DIRECTORY, Mode::empty()).ok();
                            dirs.push((parent, fd));
                            dirs.len() - 1
                        }
                    };
                    match &dirs[at].1 {
                        Some(d) => openat(d, name, flags, Mode::empty()),
                        None => continue,
                    }
                }
                _ => open(&s.path, flags, Mode::empty()),
            };
            let Ok(fd) = fd else { continue };
            let rights = BitFlags::<AccessFs>::from_bits_truncate(s.rights) & b.handled;
            b.rule(&s.path, fd, rights, s.is_dir)?;
        }
        // Closed with the rules' own, once the command has started.
        b.held.extend(dirs.into_iter().filter_map(|(_, fd)| fd));
        Ok(b)
    }

    fn empty(abi: u32) -> Result<Builder, String> {
        let err = |e: landlock::RulesetError| format!("cannot build the Landlock ruleset: {e}");
        let created = Ruleset::default()
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
        let fd: Option<OwnedFd> = created.into();
        let ruleset = fd.ok_or("the kernel gave no Landlock ruleset")?;
        Ok(Builder {
            ruleset,
            handled: AccessFs::from_all(ABI::from(abi.min(9) as i32)),
            added: Vec::new(),
            held: Vec::new(),
        })
    }

    /// Grant writing these roots too (a cache made for this command, a
    /// harness's own directory, an approved target).
    pub fn add_write_roots(&mut self, roots: &[PathBuf], plan: &Plan) -> Result<(), String> {
        let mut out = Vec::new();
        for r in roots {
            write_grants(r, plan, &mut out);
            // And reading them, wherever they are.
            out.push(Grant::new(r.clone(), read_rights(), None));
        }
        self.add(out)
    }

    /// Grant reading these paths too (a credential file given to this
    /// command, a settings copy), wherever they are.
    pub fn add_reads(&mut self, paths: &[PathBuf]) -> Result<(), String> {
        self.add(
            paths
                .iter()
                .map(|p| Grant::new(p.clone(), read_rights(), None))
                .collect(),
        )
    }

    fn add(&mut self, grants: Vec<Grant>) -> Result<(), String> {
        for g in grants {
            if (g.rights & self.handled).is_empty() {
                continue;
            }
            let fd = match g.fd {
                Some(fd) => fd,
                None => match open(
                    &g.path,
                    OFlag::O_PATH | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW,
                    Mode::empty(),
                ) {
                    Ok(fd) => fd,
                    Err(_) => continue,
                },
            };
            let is_dir = match g.is_dir {
                Some(d) => d,
                None => {
                    let Ok(st) = nix::sys::stat::fstat(&fd) else {
                        continue;
                    };
                    let kind = nix::sys::stat::SFlag::from_bits_truncate(st.st_mode)
                        & nix::sys::stat::SFlag::S_IFMT;
                    if kind == nix::sys::stat::SFlag::S_IFLNK {
                        continue;
                    }
                    kind == nix::sys::stat::SFlag::S_IFDIR
                }
            };
            self.rule(&g.path, fd, g.rights & self.handled, is_dir)?;
        }
        Ok(())
    }

    /// Add one rule (rights a file cannot have are dropped for a file).
    fn rule(
        &mut self,
        path: &Path,
        fd: OwnedFd,
        mut rights: BitFlags<AccessFs>,
        is_dir: bool,
    ) -> Result<(), String> {
        if !is_dir {
            rights &= AccessFs::from_file(ASKED);
        }
        if rights.is_empty() {
            return Ok(());
        }
        crate::exec::landlock_add_path_rule(self.ruleset.as_fd(), fd.as_fd(), rights.bits())
            .map_err(|e| format!("cannot grant {}: {e}", path.display()))?;
        self.held.push(fd);
        self.added.push(GrantSpec {
            path: path.to_path_buf(),
            rights: rights.bits(),
            is_dir,
        });
        Ok(())
    }

    /// The ruleset's descriptor, for the child.
    pub fn finish(self) -> OwnedFd {
        HELD.with(|h| h.borrow_mut().extend(self.held));
        self.ruleset
    }
}
