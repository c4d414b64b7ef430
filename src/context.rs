//! One-time capture of everything automode reads from its process: argv,
//! the environment, the working directory's identity, whether stdin is a
//! terminal, the clock. Later stages read this value, never `std::env`.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

/// The working directory as captured at start: its path and the identity
/// (device, inode) of the directory it named then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    pub path: PathBuf,
    pub dev: u64,
    pub ino: u64,
}

impl Workspace {
    /// Capture the current directory.
    pub fn capture() -> Result<Workspace, String> {
        let path = std::env::current_dir()
            .map_err(|e| format!("cannot determine the working directory: {e}"))?;
        let here = std::fs::metadata(".")
            .map_err(|e| format!("cannot stat the working directory: {e}"))?;
        Ok(Workspace {
            path,
            dev: here.dev(),
            ino: here.ino(),
        })
    }

    /// The identity of the directory at `path` now.
    pub fn of(path: &Path) -> Result<Workspace, String> {
        let meta =
            std::fs::metadata(path).map_err(|e| format!("cannot stat {}: {e}", path.display()))?;
        Ok(Workspace {
            path: path.to_path_buf(),
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }

    /// Does the captured path still name the captured directory?
    pub fn verify(&self) -> Result<(), String> {
        match std::fs::metadata(&self.path) {
            Ok(meta) if meta.dev() == self.dev && meta.ino() == self.ino => Ok(()),
            Ok(_) => Err(format!(
                "the working directory {} now names a different directory than when the command was submitted",
                self.path.display()
            )),
            Err(e) => Err(format!(
                "the working directory {} is gone ({e})",
                self.path.display()
            )),
        }
    }
}

/// Everything captured from the process at start.
#[derive(Debug, Clone)]
pub struct Context {
    pub argv0: OsString,
    pub args: Vec<OsString>,
    /// The environment in its original order.
    pub env: Vec<(OsString, OsString)>,
    pub workspace: Result<Workspace, String>,
    pub stdin_is_tty: bool,
    /// Our own executable (/proc/self/exe), if readable.
    pub exe: Option<PathBuf>,
    pub started: Instant,
    pub now: SystemTime,
}

impl Context {
    /// Capture the real process context.
    pub fn capture() -> Context {
        crate::exec::prepare_process();
        let mut args = std::env::args_os();
        let argv0 = args.next().unwrap_or_else(|| OsString::from("automode"));
        Context {
            argv0,
            args: args.collect(),
            env: std::env::vars_os().collect(),
            workspace: Workspace::capture(),
            stdin_is_tty: nix::unistd::isatty(std::io::stdin()).unwrap_or(false),
            exe: std::fs::read_link("/proc/self/exe").ok(),
            started: Instant::now(),
            now: SystemTime::now(),
        }
    }

    /// An environment variable, as the process received it.
    pub fn var(&self, name: &str) -> Option<&OsStr> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// An environment variable as UTF-8 text, if set and valid.
    pub fn var_str(&self, name: &str) -> Option<&str> {
        self.var(name).and_then(OsStr::to_str)
    }

    /// Our own executable with every link resolved.
    pub fn exe_canonical(&self) -> Option<PathBuf> {
        self.exe
            .as_deref()
            .and_then(|e| std::fs::canonicalize(e).ok())
    }

    /// The home directory: `$HOME`, else the passwd entry.
    pub fn home(&self) -> Option<PathBuf> {
        match self.var("HOME") {
            Some(h) if !h.is_empty() => Some(PathBuf::from(h)),
            _ => dirs::home_dir(),
        }
    }

    /// `now` in whole seconds since the epoch.
    pub fn unix_secs(&self) -> u64 {
        self.now
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }

    /// The working directory path, if it could be captured.
    pub fn cwd(&self) -> Option<&Path> {
        self.workspace.as_ref().ok().map(|w| w.path.as_path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_a_directory_replaced_under_the_same_path() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let dir = root.path().join("project");
        std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
        let ws = Workspace::of(&dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ws.verify(), Ok(()));
        std::fs::rename(&dir, root.path().join("moved")).unwrap_or_else(|e| panic!("{e}"));
        assert!(ws.verify().is_err(), "gone");
        std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
        let err = ws.verify().err().unwrap_or_default();
        assert!(err.contains("different directory"), "{err}");
    }
}
