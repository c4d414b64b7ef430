//! Finding the real bash: from the install record, else from PATH, else
//! `/usr/bin/bash`, `/bin/bash` — never automode itself (same file, a copy,
//! or another automode build), whatever PATH, symlinks or copies say.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::context::Context;

/// The install record, relative to the automode executable's directory.
pub const INSTALL_RECORD: &str = "../share/automode/real-shell";
/// Where bash usually is when PATH does not help.
const FALLBACKS: &[&str] = &["/usr/bin/bash", "/bin/bash"];

/// The real shell and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealShell {
    pub path: PathBuf,
    pub from_record: bool,
}

/// Why a candidate cannot be the real shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    NotAbsolute,
    Missing(String),
    NotAFile,
    NotExecutable,
    IsAutomode,
    IsCopyOfAutomode,
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::NotAbsolute => f.write_str("not an absolute path"),
            Unusable::Missing(why) => f.write_str(why),
            Unusable::NotAFile => f.write_str("not a regular file"),
            Unusable::NotExecutable => f.write_str("not executable"),
            Unusable::IsAutomode => f.write_str("it is automode itself"),
            Unusable::IsCopyOfAutomode => f.write_str("it is a copy of automode"),
        }
    }
}

/// Why no real shell could be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RealShellError {
    /// The install record names something unusable.
    BadRecord {
        record: PathBuf,
        shell: PathBuf,
        why: Unusable,
    },
    /// Nothing on PATH or in the fallbacks.
    NotFound,
}

impl RealShellError {
    /// 127 when there is no shell file at all, 126 when there is one we
    /// cannot (or must not) execute, as bash reports programs.
    pub fn is_missing(&self) -> bool {
        match self {
            RealShellError::BadRecord { why, .. } => {
                matches!(why, Unusable::Missing(_) | Unusable::NotAbsolute)
            }
            RealShellError::NotFound => true,
        }
    }
}

/// Locate the real bash for this process.
pub fn locate(ctx: &Context) -> Result<RealShell, RealShellError> {
    let own = ctx.exe.as_deref();
    if let Some(exe) = own
        && let Some(dir) = exe.parent()
    {
        let record = dir.join(INSTALL_RECORD);
        if let Ok(text) = std::fs::read_to_string(&record) {
            let shell = PathBuf::from(text.trim_end_matches('\n'));
            return match unusable(&shell, own) {
                None => Ok(RealShell {
                    path: shell,
                    from_record: true,
                }),
                Some(why) => Err(RealShellError::BadRecord { record, shell, why }),
            };
        }
    }
    let from_path = ctx.var("PATH").into_iter().flat_map(|p| {
        p.as_bytes()
            .split(|b| *b == b':')
            // Relative entries (including the empty one, meaning ".") are
            // skipped: a `bash` planted in the project must never become
            // the real shell.
            .filter(|d| d.first() == Some(&b'/'))
            .map(|d| Path::new(OsStr::from_bytes(d)).join("bash"))
            .collect::<Vec<_>>()
    });
    from_path
        .chain(FALLBACKS.iter().map(PathBuf::from))
        .find(|c| unusable(c, own).is_none())
        .map(|path| RealShell {
            path,
            from_record: false,
        })
        .ok_or(RealShellError::NotFound)
}

/// Why `candidate` cannot be the real shell, or None if it can.
pub fn unusable(candidate: &Path, own_exe: Option<&Path>) -> Option<Unusable> {
    if !candidate.is_absolute() {
        return Some(Unusable::NotAbsolute);
    }
    let meta = match std::fs::metadata(candidate) {
        Ok(m) => m,
        Err(e) => return Some(Unusable::Missing(e.to_string())),
    };
    if !meta.is_file() {
        return Some(Unusable::NotAFile);
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Some(Unusable::NotExecutable);
    }
    if let Some(own) = own_exe
        && let Ok(own_meta) = std::fs::metadata(own)
        && own_meta.dev() == meta.dev()
        && own_meta.ino() == meta.ino()
    {
        return Some(Unusable::IsAutomode);
    }
    if is_automode_binary(candidate) {
        return Some(Unusable::IsCopyOfAutomode);
    }
    None
}

/// Does this ELF file carry automode's identity section?
pub fn is_automode_binary(path: &Path) -> bool {
    // Touch our own marker so the linker keeps the section we look for.
    if crate::exec::identity().is_empty() {
        return false;
    }
    elf_section_names(path).is_some_and(|names| {
        names
            .split(|b| *b == 0)
            .any(|n| n == crate::exec::IDENTITY_SECTION.as_bytes())
    })
}

/// The section-name string table of a 64-bit little-endian ELF file.
fn elf_section_names(path: &Path) -> Option<Vec<u8>> {
    let mut f = File::open(path).ok()?;
    let mut hdr = [0u8; 64];
    f.read_exact(&mut hdr).ok()?;
    if &hdr[..4] != b"\x7fELF" || hdr[4] != 2 || hdr[5] != 1 {
        return None;
    }
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let u64_at = |b: &[u8], o: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[o..o + 8]);
        u64::from_le_bytes(a)
    };
    let shoff = u64_at(&hdr, 0x28);
    let shentsize = usize::from(u16_at(&hdr, 0x3a));
    let shnum = usize::from(u16_at(&hdr, 0x3c));
    let shstrndx = usize::from(u16_at(&hdr, 0x3e));
    if shentsize < 64 || shstrndx >= shnum || shnum > 4096 {
        return None;
    }
    let mut sh = vec![0u8; shentsize];
    f.seek(SeekFrom::Start(shoff + (shstrndx * shentsize) as u64))
        .ok()?;
    f.read_exact(&mut sh).ok()?;
    let str_off = u64_at(&sh, 0x18);
    let str_size = u64_at(&sh, 0x20);
    if str_size > 1 << 20 {
        return None;
    }
    let mut names = vec![0u8; usize::try_from(str_size).ok()?];
    f.seek(SeekFrom::Start(str_off)).ok()?;
    f.read_exact(&mut names).ok()?;
    Some(names)
}
