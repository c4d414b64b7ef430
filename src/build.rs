//! Build script: the commit automode is built from, for `--version`
//! (none outside a git checkout), and a digest of the sources, which
//! names the build in the sandbox cache's key.

use std::path::Path;
use std::process::Command;

/// FNV-1a over every file under `dir` (sorted, with its path): a change
/// to any source (a built-in table among them) gives another digest. Not
/// a defence against anyone: the inputs are our own sources.
fn digest(dir: &Path, h: &mut u64) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            digest(&p, h);
        } else if let Ok(bytes) = std::fs::read(&p) {
            for b in p.to_string_lossy().bytes().chain(bytes) {
                *h = (*h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.lock");
    let mut h = 0xcbf2_9ce4_8422_2325_u64;
    digest(Path::new("src"), &mut h);
    if let Ok(lock) = std::fs::read("Cargo.lock") {
        for b in lock {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=AUTOMODE_SOURCE_DIGEST={h:016x}");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    if let Some(c) = commit {
        let dirty = Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=no"])
            .output()
            .ok()
            .is_some_and(|o| !o.stdout.is_empty());
        let suffix = if dirty { "+changes" } else { "" };
        println!("cargo:rustc-env=AUTOMODE_COMMIT=commit {c}{suffix}");
    }
}
