//! Shared test harness: a hermetic environment (temp HOME, XDG dirs,
//! working directory, a shims directory linking `bash`/`sh` to the real
//! automode binary) and helpers for processes, markers and timing.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod llm;

use std::ffi::OsStr;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// The automode binary under test.
pub fn automode_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_automode"))
}

/// The real bash the tests compare against.
pub fn real_bash() -> &'static str {
    if Path::new("/usr/bin/bash").exists() {
        "/usr/bin/bash"
    } else {
        "/bin/bash"
    }
}

/// A temp tree: `home/`, `work/` (the cwd), `state/`, `config/`, and
/// `shims/{bash,sh}` → the automode binary.
pub struct Env {
    pub dir: TempDir,
    pub home: PathBuf,
    pub work: PathBuf,
    pub shims: PathBuf,
    pub extra_env: Vec<(String, String)>,
    pub path: String,
}

impl Env {
    pub fn new() -> Env {
        // Not under /tmp: the sandbox lets commands write /tmp, and a
        // home inside a writable tree must be carved out of it (tested on
        // its own); a real home is not under /tmp.
        let base = ["/var/tmp"]
            .into_iter()
            .map(Path::new)
            .find(|d| d.is_dir() && tempfile::tempdir_in(d).is_ok())
            .map_or_else(std::env::temp_dir, Path::to_path_buf);
        let dir = tempfile::Builder::new()
            .prefix("automode-test-")
            .tempdir_in(base)
            .unwrap();
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        let shims = dir.path().join("shims");
        for d in [&home, &work, &shims] {
            std::fs::create_dir_all(d).unwrap();
        }
        for d in ["config", "state", "cache", "data"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        for name in ["bash", "sh"] {
            symlink(automode_bin(), shims.join(name)).unwrap();
        }
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", shims.display());
        Env {
            dir,
            home,
            work,
            shims,
            extra_env: Vec::new(),
            path,
        }
    }

    /// An environment where auto mode is off (policy skipped, supervision
    /// kept): for tests of supervision itself, whose scripts (signals,
    /// traps, terminals) the policy would rightly send to review.
    pub fn supervision_only() -> Env {
        Env::new().with_env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"autoMode": {"enabled": false}}"#,
        )
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Add an environment variable for every command built from here.
    pub fn with_env(mut self, k: &str, v: &str) -> Env {
        self.extra_env.push((k.into(), v.into()));
        self
    }

    /// A command with the hermetic environment and cwd.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .env("PATH", &self.path)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.root().join("config"))
            .env("XDG_STATE_HOME", self.root().join("state"))
            .env("XDG_CACHE_HOME", self.root().join("cache"))
            .env("XDG_DATA_HOME", self.root().join("data"))
            .env("LANG", "C.UTF-8")
            .current_dir(&self.work)
            .stdin(Stdio::null());
        for (k, v) in &self.extra_env {
            c.env(k, v);
        }
        c
    }

    /// The shim invoked as `bash` by its path in the shims dir.
    pub fn bash(&self) -> Command {
        self.command(self.shims.join("bash"))
    }

    /// The shim invoked as `sh`.
    pub fn sh(&self) -> Command {
        self.command(self.shims.join("sh"))
    }

    /// `bash -c SCRIPT`.
    pub fn script(&self, script: &str) -> Command {
        let mut c = self.bash();
        c.arg("-c").arg(script);
        c
    }

    /// `automode ARGS…`.
    pub fn automode(&self) -> Command {
        self.command(automode_bin())
    }

    /// A plain shell (the real bash) with the same environment, for
    /// pipelines around the shim.
    pub fn real(&self, script: &str) -> Command {
        let mut c = self.command(real_bash());
        c.arg("-c").arg(script);
        c
    }
}

/// Output of a finished command, with its duration.
pub struct Run {
    pub out: Output,
    pub elapsed: Duration,
}

impl Run {
    pub fn code(&self) -> Option<i32> {
        self.out.status.code()
    }
    pub fn signal(&self) -> Option<i32> {
        use std::os::unix::process::ExitStatusExt;
        self.out.status.signal()
    }
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
    pub fn secs(&self) -> f64 {
        self.elapsed.as_secs_f64()
    }
}

/// Run to completion (with a hang guard) and time it.
pub fn run(cmd: &mut Command) -> Run {
    let start = Instant::now();
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    // A binary copied by another test thread can be briefly busy
    // (ETXTBSY: a concurrent fork still holds the writer's descriptor).
    let mut tries = 0;
    let child = loop {
        match cmd.spawn() {
            Ok(c) => break c,
            Err(e) if e.raw_os_error() == Some(26) && tries < 50 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("spawn: {e}"),
        }
    };
    let out = wait_with_guard(child, Duration::from_secs(60));
    Run {
        out,
        elapsed: start.elapsed(),
    }
}

/// Wait for output, killing the child if it outlives `guard` (a hang
/// guard only: it kills the direct child, not its group).
pub fn wait_with_guard(child: std::process::Child, guard: Duration) -> Output {
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    std::thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < guard {
            if flag.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    });
    let out = child.wait_with_output().unwrap();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    out
}

/// Is a process whose command line contains `marker` alive?
pub fn alive(marker: &str) -> bool {
    // Not the first process of a command's PID namespace: it is a copy of
    // the shim (its command line is the shim's), not the program.
    pids_matching(marker).any(|pid| {
        std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .is_ok_and(|c| c.trim() != "automode-pid1")
    })
}

fn pids_matching(marker: &str) -> impl Iterator<Item = i32> + '_ {
    let me = std::process::id() as i32;
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(move |pid| *pid != me)
        .filter(move |pid| {
            let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
                return false;
            };
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // Zombies have exited already.
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, r)| r.split_whitespace().next())
                .unwrap_or("");
            state != "Z"
                && contains_marker(
                    &String::from_utf8_lossy(&cmdline).replace('\0', " "),
                    marker,
                )
        })
}

/// `marker` occurs in `text` not followed by another digit or dot (so
/// "sleep 33.2" does not match "sleep 33.21").
fn contains_marker(text: &str, marker: &str) -> bool {
    text.match_indices(marker).any(|(i, _)| {
        !text[i + marker.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
    })
}

/// Kill every process whose command line contains `marker`.
pub fn kill_all(marker: &str) {
    for pid in pids_matching(marker).collect::<Vec<_>>() {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Kills every process whose command line holds the marker when dropped
/// (a server a test's command left running).
pub struct KillOnDrop(pub String);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        kill_all(&self.0);
    }
}

/// Wait a little, then report whether the marker is alive; always cleans up.
pub fn survives(marker: &str) -> bool {
    std::thread::sleep(Duration::from_millis(200));
    let alive = alive(marker);
    kill_all(marker);
    alive
}

/// Kills marker processes when dropped (cleanup on test failure).
pub struct Reaper(pub Vec<&'static str>);

impl Drop for Reaper {
    fn drop(&mut self) {
        for m in &self.0 {
            kill_all(m);
        }
    }
}

/// Is Landlock (ABI ≥ 2) there to test? Without it a sandbox test fails
/// under `CI=true` (CI machines have it) and is skipped elsewhere, saying
/// why.
pub fn landlock_or_skip(test: &str) -> bool {
    match automode::exec::landlock_abi() {
        Ok(abi) if abi >= 2 => true,
        other => skip(test, &format!("Landlock is not available here ({other:?})")),
    }
}

/// A tool the test needs, on the test's own PATH (under `CI=true` its
/// absence fails the test; elsewhere the test is skipped, saying so).
pub fn tool_or_skip(test: &str, name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        skip(test, &format!("{name} is not installed"));
    }
    found
}

pub use automode::testing::skip;

/// Path of a helper script shipped with the tests.
pub fn helper(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/helpers")
        .join(name)
}

/// Kills a process the test started when dropped (by its pid).
pub struct Kill(pub i32);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.0),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}
