//! The workspace sandbox's policy: which paths a command may write and
//! read, which protected paths inside the project stay unwritable, which
//! environment variables it does not get, its file-size limit and its
//! network — for every command automode runs. Built-in lists are data
//! with a reason per entry.
//!
//! Input: the sandbox settings (`config`), the places (home, project,
//! automode's own directories), the environment, the verdict. Output: a
//! `Plan` (paths and settings), which `rules.rs` turns into a Landlock
//! ruleset and `exec` applies in the child right before `execve`. The
//! supervisor itself stays unconfined. Messages about the sandbox are in
//! `hint.rs`; the integrity check of protected paths in `protect.rs`.

pub mod cache;
pub mod credentials;
pub mod env;
pub mod gitconfig;
pub mod hint;
pub mod net;
pub mod protect;
pub mod rules;
pub mod seccomp;
pub mod views;
pub mod widen;

use std::path::{Path, PathBuf};

use serde::Serialize;

/// `sandbox.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Enforce where Landlock ABI ≥ 2 exists; else run unconfined with a
    /// warning (once per session), and nothing that depends on the
    /// sandbox applies.
    Auto,
    /// Refuse to run any command the sandbox cannot confine.
    Require,
    /// No sandbox.
    Off,
}

/// `sandbox.protectMode`: how protected paths inside the project stay
/// unwritable.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProtectMode {
    /// A read-only bind where a user namespace can be made, else restore.
    #[default]
    Auto,
    /// Always the read-only bind (a command is refused when no user
    /// namespace can be made).
    Mount,
    /// Snapshot before the command, restore and report after it.
    Restore,
}

/// `sandbox.network`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// The host's network, as the user's own programs have it (`"allow"`
    /// is the earlier name).
    #[serde(alias = "allow")]
    Open,
    /// The network wall (the default): the session's network namespace,
    /// where only the hosts on the allow-list (and loopback) are reached.
    #[default]
    Allowlist,
    /// A network namespace with loopback only.
    Deny,
}

/// The Landlock ABI this build is written and tested against; newer
/// kernels are used at this level (the crate's advice: pin a tested ABI).
pub const TESTED_ABI: u32 = 9;
/// Below this, automode does not enforce: ABI 1 refuses every rename
/// across directories (EXDEV), which breaks ordinary tools.
pub const MIN_ABI: u32 = 2;

/// Default `sandbox.maxFileBytes`: the largest file a command may write.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 << 30;

/// Default `sandbox.write`, besides the project (always granted).
pub const DEFAULT_WRITE: &[(&str, &str)] = &[
    ("/tmp", "temporary files"),
    (
        "$TMPDIR",
        "the temporary directory the harness gives its commands",
    ),
    (
        "/dev/shm",
        "shared memory (Python multiprocessing, browsers, test runners)",
    ),
];

/// Default `sandbox.caches`: where tools keep what they download. Granted
/// when they exist; a missing one is created first when the command runs
/// one of its tools (so the grant can apply). Never `~/.cargo` or
/// `~/.cache` whole: `~/.cargo/bin` and `~/.cache/pre-commit` hold code
/// that runs later outside any sandbox.
pub const DEFAULT_CACHES: &[(&str, &[&str], &str)] = &[
    (
        "${CARGO_HOME:-~/.cargo}/registry",
        &["cargo"],
        "cargo's registry index and downloaded crates",
    ),
    (
        "${CARGO_HOME:-~/.cargo}/git",
        &["cargo"],
        "cargo's git dependencies",
    ),
    (
        "${npm_config_cache:-~/.npm}",
        &["npm", "npx"],
        "npm's content cache and logs",
    ),
    (
        "${PIP_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/pip}",
        &["pip", "pip3", "python", "python3"],
        "pip's wheel and HTTP cache",
    ),
    (
        "${UV_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/uv}",
        &["uv", "uvx"],
        "uv's cache",
    ),
    (
        "${GOCACHE:-${XDG_CACHE_HOME:-~/.cache}/go-build}",
        &["go"],
        "go's build cache",
    ),
    (
        "${GOMODCACHE:-${GOPATH:-~/go}/pkg/mod}",
        &["go"],
        "go's module cache",
    ),
    (
        "${YARN_CACHE_FOLDER:-${XDG_CACHE_HOME:-~/.cache}/yarn}",
        &["yarn"],
        "yarn 1's cache",
    ),
    (
        "~/.yarn/berry/cache",
        &["yarn"],
        "yarn berry's global cache",
    ),
    (
        "${XDG_DATA_HOME:-~/.local/share}/pnpm/store",
        &["pnpm"],
        "pnpm's content-addressed store",
    ),
    (
        "${XDG_CACHE_HOME:-~/.cache}/pnpm",
        &["pnpm"],
        "pnpm's metadata cache",
    ),
    (
        "${GRADLE_USER_HOME:-~/.gradle}/caches",
        &["gradle", "gradlew"],
        "gradle's dependency cache",
    ),
    (
        "${GRADLE_USER_HOME:-~/.gradle}/wrapper",
        &["gradlew"],
        "gradle wrapper distributions",
    ),
    (
        "~/.m2/repository",
        &["mvn", "mvnw"],
        "maven's local repository",
    ),
];

/// Default `sandbox.readDeny`: secrets no command reads. Besides these,
/// automode's own configuration and state directories are always denied,
/// and `<other-homes>` stands for every home under `/home` and `/root`
/// that is not `$HOME`.
pub const DEFAULT_READ_DENY: &[(&str, &str)] = &[
    ("~/.ssh", "SSH keys"),
    ("~/.aws", "AWS credentials"),
    ("~/.gnupg", "GnuPG keys"),
    ("~/.netrc", "passwords for hosts"),
    ("~/.git-credentials", "git's stored passwords"),
    (
        "${XDG_CONFIG_HOME:-~/.config}/git/credentials",
        "git's stored passwords (XDG place)",
    ),
    ("${XDG_CONFIG_HOME:-~/.config}/gh", "GitHub CLI tokens"),
    ("${XDG_CONFIG_HOME:-~/.config}/hub", "hub tokens"),
    (
        "${XDG_CONFIG_HOME:-~/.config}/gcloud",
        "Google Cloud credentials",
    ),
    ("~/.azure", "Azure credentials"),
    ("~/.kube", "Kubernetes credentials"),
    ("~/.docker/config.json", "registry credentials"),
    (
        "~/.npmrc",
        "npm registry tokens (commands read it without them: credentials::SETTINGS)",
    ),
    ("~/.yarnrc.yml", "yarn registry tokens (likewise)"),
    (
        "${XDG_CONFIG_HOME:-~/.config}/pip/pip.conf",
        "pip index passwords in URLs (likewise)",
    ),
    ("~/.pip/pip.conf", "pip index passwords (likewise)"),
    ("~/.pypirc", "PyPI upload tokens"),
    (
        "${CARGO_HOME:-~/.cargo}/credentials.toml",
        "crates.io tokens",
    ),
    (
        "${CARGO_HOME:-~/.cargo}/credentials",
        "crates.io tokens (old name)",
    ),
    ("~/.password-store", "pass's password store"),
    (
        "${XDG_DATA_HOME:-~/.local/share}/keyrings",
        "the desktop keyring",
    ),
    ("~/.vault-token", "HashiCorp Vault token"),
    (
        "~/.terraform.d/credentials.tfrc.json",
        "Terraform Cloud tokens",
    ),
    ("~/.mozilla", "Firefox profiles (cookies, saved passwords)"),
    (
        "${XDG_CONFIG_HOME:-~/.config}/google-chrome",
        "Chrome profiles",
    ),
    (
        "${XDG_CONFIG_HOME:-~/.config}/chromium",
        "Chromium profiles",
    ),
    (
        "${XDG_CONFIG_HOME:-~/.config}/BraveSoftware",
        "Brave profiles",
    ),
    (
        "${XDG_CONFIG_HOME:-~/.config}/microsoft-edge",
        "Edge profiles",
    ),
    (
        "${CLAUDE_CONFIG_DIR:-~/.claude}/.credentials.json",
        "Claude Code's login",
    ),
    ("${CODEX_HOME:-~/.codex}/auth.json", "Codex's login"),
    ("~/.gemini/oauth_creds.json", "Gemini CLI's login"),
    ("~/.pi/agent/auth.json", "pi's logins"),
    (
        "${XDG_DATA_HOME:-~/.local/share}/opencode/auth.json",
        "opencode's logins",
    ),
    (
        "~/.bash_history",
        "shell history: commands typed with passwords and tokens",
    ),
    ("~/.zsh_history", "shell history"),
    ("~/.histfile", "shell history"),
    (
        "${XDG_DATA_HOME:-~/.local/share}/fish/fish_history",
        "fish's history",
    ),
    ("~/.python_history", "the Python prompt's history"),
    ("~/.node_repl_history", "the Node.js prompt's history"),
    (
        "~/.psql_history",
        "psql's history: queries and the data in them",
    ),
    ("~/.mysql_history", "mysql's history"),
    ("~/.sqlite_history", "sqlite's history"),
    ("~/.pgpass", "PostgreSQL passwords"),
    ("~/.my.cnf", "MySQL passwords"),
    ("~/.mylogin.cnf", "MySQL login paths"),
    ("~/.m2/settings.xml", "Maven repository passwords"),
    (
        "${GRADLE_USER_HOME:-~/.gradle}/gradle.properties",
        "Gradle repository passwords and signing keys",
    ),
    ("${XDG_CONFIG_HOME:-~/.config}/op", "the 1Password CLI"),
    ("~/.op", "the 1Password CLI (its older place)"),
    ("${XDG_CONFIG_HOME:-~/.config}/doctl", "DigitalOcean tokens"),
    ("~/.fly", "Fly.io tokens"),
    (
        "${XDG_DATA_HOME:-~/.local/share}/com.vercel.cli",
        "Vercel tokens",
    ),
    ("${XDG_CONFIG_HOME:-~/.config}/netlify", "Netlify tokens"),
    ("~/.netlify", "Netlify tokens (their older place)"),
    ("${XDG_CONFIG_HOME:-~/.config}/stripe", "Stripe keys"),
    (
        "${HF_HOME:-${XDG_CACHE_HOME:-~/.cache}/huggingface}/token",
        "the Hugging Face token",
    ),
    (
        "~/.huggingface/token",
        "the Hugging Face token (its older place)",
    ),
    (
        "${XDG_CONFIG_HOME:-~/.config}/glab-cli",
        "GitLab CLI tokens",
    ),
    (
        "${XDG_CONFIG_HOME:-~/.config}/hcloud",
        "Hetzner Cloud tokens",
    ),
    ("~/.oci", "Oracle Cloud keys"),
    ("~/.aliyun", "Alibaba Cloud keys"),
    ("~/.terraformrc", "Terraform credentials"),
    ("~/.kaggle/kaggle.json", "the Kaggle API key"),
    ("${XDG_CONFIG_HOME:-~/.config}/sops", "SOPS keys"),
    (
        "${XDG_CONFIG_HOME:-~/.config}/rclone",
        "rclone's remotes and their credentials",
    ),
    ("~/.s3cfg", "s3cmd credentials"),
    ("~/.boto", "boto credentials"),
    ("~/.cloudflared", "Cloudflare tunnel credentials"),
    (
        "${XDG_CONFIG_HOME:-~/.config}/.wrangler",
        "Cloudflare Wrangler tokens",
    ),
    ("~/.supabase", "the Supabase access token"),
    (OTHER_HOMES, "other users' homes"),
];

/// The `sandbox.readDeny` entry for every home but `$HOME`.
pub const OTHER_HOMES: &str = "<other-homes>";

/// Default `sandbox.protect`: paths inside the project that stay
/// unwritable although the project is writable (they choose what runs
/// later, outside any sandbox). `.git/hooks` and `.git/config` also hold
/// inside `.git/modules/*` and `.git/worktrees/*`.
pub const DEFAULT_PROTECT: &[(&str, &str)] = &[
    (".git/hooks", "git runs these on commit, checkout, push"),
    (
        ".git/config",
        "git runs programs it names (fsmonitor, hooksPath, filters, pager)",
    ),
    (
        ".git/config.worktree",
        "a worktree's own configuration, read like .git/config",
    ),
    (
        ".git/commondir",
        "where git finds the repository's config and hooks",
    ),
    (".git/gitdir", "where a linked worktree's repository is"),
    (
        ".git/info/attributes",
        "chooses the filters and diff drivers git runs",
    ),
    (
        ".envrc",
        "direnv runs it when the user enters the directory",
    ),
    (".husky", "the git hooks husky installs run from here"),
    (
        ".pre-commit-config.yaml",
        "pre-commit runs the hooks it names at every commit",
    ),
    (".automode", "automode's project configuration"),
    (".claude", "Claude Code's project settings and hooks"),
    (".codex", "Codex's project configuration"),
    (".gemini", "Gemini CLI's project settings"),
    (".pi", "pi's project settings"),
    (".mcp.json", "MCP servers the harness starts"),
    (".vscode", "tasks and settings the editor runs"),
    (".idea", "run configurations the IDE runs"),
];

/// Device files every command may write (and truncate: `> /dev/null`).
pub const DEVICES: &[(&str, &str)] = &[
    ("/dev/null", "discarded output"),
    ("/dev/zero", "zeros"),
    ("/dev/full", "a full disk, for tests"),
    ("/dev/tty", "the controlling terminal"),
    ("/dev/ptmx", "new pseudo-terminals"),
];

/// Pathname UNIX sockets every command may connect to where the kernel
/// confines them (Landlock ABI 9); besides these, only sockets in the
/// writable paths (the project, temp) are reachable.
pub const SOCKETS: &[(&str, &str)] = &[
    (
        "/run/systemd/resolve",
        "name resolution through systemd-resolved",
    ),
    ("/var/run/nscd", "the name service cache"),
    ("/run/nscd", "the name service cache"),
];

/// Directories every command may write whole: pseudo-terminals.
pub const DEVICE_DIRS: &[(&str, &str)] = &[("/dev/pts", "pseudo-terminals")];

/// What the harnesses' own setup calls (allowed by shape and parent) must
/// write, besides the usual grants.
pub const HARNESS_WRITES: &[(&str, &str, &str)] = &[(
    "claude-snapshot-builder",
    "${CLAUDE_CONFIG_DIR:-~/.claude}/shell-snapshots",
    "Claude Code writes its shell snapshot there",
)];

/// Where a path template is expanded: the home and the environment.
pub struct Expand<'a> {
    pub home: Option<&'a Path>,
    pub var: &'a dyn Fn(&str) -> Option<String>,
}

impl std::fmt::Debug for Expand<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expand").field("home", &self.home).finish()
    }
}

impl Expand<'_> {
    /// Expand `~`, `$VAR` and `${VAR:-default}` (nested); a variable
    /// counts only when it holds an absolute path. `None`: the result is
    /// not an absolute path (an unset variable without a default, no
    /// home).
    pub fn path(&self, template: &str) -> Option<PathBuf> {
        let text = self.text(template)?;
        let p = PathBuf::from(text);
        p.is_absolute().then(|| lexical(&p))
    }

    fn text(&self, t: &str) -> Option<String> {
        if let Some(rest) = t.strip_prefix('~') {
            if rest.is_empty() || rest.starts_with('/') {
                let home = self.home?;
                return Some(format!("{}{}", home.display(), self.text(rest)?));
            }
            return Some(t.to_string());
        }
        let Some(at) = t.find('$') else {
            return Some(t.to_string());
        };
        let (head, tail) = t.split_at(at);
        let tail = &tail[1..];
        let (value, rest) = if let Some(inner) = tail.strip_prefix('{') {
            let end = matching_brace(inner)?;
            let body = &inner[..end];
            let rest = &inner[end + 1..];
            let (name, default) = match body.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (body, None),
            };
            let value = match (self.var_path(name), default) {
                (Some(v), _) => v,
                (None, Some(d)) => self.text(d)?,
                (None, None) => return None,
            };
            (value, rest)
        } else {
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            (self.var_path(&tail[..end])?, &tail[end..])
        };
        Some(format!("{head}{value}{}", self.text(rest)?))
    }

    fn var_path(&self, name: &str) -> Option<String> {
        (self.var)(name).filter(|v| v.starts_with('/'))
    }
}

/// A path template with every `${VAR:-default}` replaced by its default
/// (`None` when it has none of them, or one without a default).
fn defaults_only(t: &str) -> Option<String> {
    let at = t.find("${")?;
    let inner = &t[at + 2..];
    let end = matching_brace(inner)?;
    let (_, default) = inner[..end].split_once(":-")?;
    let rest = &inner[end + 1..];
    let rest = defaults_only(rest).unwrap_or_else(|| rest.to_string());
    let default = defaults_only(default).unwrap_or_else(|| default.to_string());
    Some(format!("{}{default}{rest}", &t[..at]))
}

/// The index of the `}` closing an already-opened `${`.
fn matching_brace(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Why the sandbox is not enforced for a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum Status {
    /// Landlock is enforced at this ABI.
    Enforced { abi: u32 },
    /// `sandbox.mode` is off.
    Off,
    /// The kernel cannot enforce it (why).
    Unavailable { why: String },
}

impl Status {
    pub fn enforced(&self) -> bool {
        matches!(self, Status::Enforced { .. })
    }
}

/// What the running kernel offers: the Landlock ABI (0: none) and why
/// there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    pub abi: u32,
    pub why_not: Option<String>,
}

impl Kernel {
    /// Ask the kernel (one syscall).
    pub fn probe() -> Kernel {
        match crate::exec::landlock_abi() {
            Ok(abi) => Kernel {
                abi,
                why_not: (abi < MIN_ABI).then(|| {
                    format!("the kernel's Landlock ABI is {abi}; automode needs at least {MIN_ABI}")
                }),
            },
            Err(errno) => Kernel {
                abi: 0,
                why_not: Some(match errno {
                    libc::EOPNOTSUPP => "Landlock is built into the kernel but not enabled (add landlock to the lsm= boot parameter)".to_string(),
                    libc::ENOSYS => "the kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK), or a seccomp filter hides it".to_string(),
                    e => format!("Landlock is unavailable: {}", std::io::Error::from_raw_os_error(e)),
                }),
            },
        }
    }

    /// The sandbox's status under `mode`.
    pub fn status(&self, mode: Mode) -> Status {
        match (mode, &self.why_not) {
            (Mode::Off, _) => Status::Off,
            (Mode::Auto | Mode::Require, None) => Status::Enforced {
                abi: self.abi.min(TESTED_ABI),
            },
            (Mode::Auto | Mode::Require, Some(why)) => Status::Unavailable { why: why.clone() },
        }
    }

    /// What this kernel's ABI leaves unconfined (for `automode status`).
    pub fn gaps(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (abi, what) in ABI_GAPS {
            if self.abi < *abi {
                out.push(*what);
            }
        }
        out
    }
}

/// What each Landlock ABI adds that automode uses, as what stays
/// unconfined below it.
pub const ABI_GAPS: &[(u32, &str)] = &[
    (3, "truncating files is not confined (ABI 3)"),
    (5, "ioctl on device files is not confined (ABI 5)"),
    (
        6,
        "signals and abstract UNIX sockets reach processes outside the sandbox (ABI 6)",
    ),
    (
        9,
        "Landlock does not confine connecting to pathname UNIX sockets (ABI 9): the mount namespace covers their usual places instead (below)",
    ),
];

/// What one command gets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Plan {
    /// Directories and files it may write whole (canonical, existing).
    pub write: Vec<PathBuf>,
    /// Never writable even inside a write root: the home itself,
    /// automode's own directories, the read-denied paths.
    pub write_exclude: Vec<PathBuf>,
    /// Paths it cannot read (existing ones).
    pub read_deny: Vec<PathBuf>,
    /// Paths that stay readable inside a read-denied one (PATH entries,
    /// the real shell, automode itself, the project).
    pub read_keep: Vec<PathBuf>,
    /// Device files it may write.
    pub devices: Vec<PathBuf>,
    /// Directories whose UNIX sockets it may connect to (ABI 9).
    pub sockets: Vec<PathBuf>,
    /// Protected paths inside the project that exist now (kept read-only).
    pub protect: Vec<PathBuf>,
    /// Protected paths that do not exist yet, whose parent does (a
    /// command must not create them).
    pub protect_missing: Vec<PathBuf>,
    /// Paths bound onto themselves (writable) in the mount namespace, so
    /// that they cannot be renamed, replaced or swapped for a symlink:
    /// the project's `.git`.
    pub pin: Vec<PathBuf>,
    /// Repository configurations a command of git alone may change:
    /// watched, and any change outside `gitconfig::GIT_WRITES` undone.
    pub judged_config: Vec<PathBuf>,
    pub protect_mode: ProtectMode,
    pub network: Network,
    /// Credential variables it does not get.
    pub withheld_env: Vec<String>,
    pub max_file_bytes: u64,
    /// Why the project root is not writable, when it is not.
    pub project_refused: Option<String>,
    /// Grants for this command only (a widening, an approved outside
    /// target), each with its reason.
    pub extra_write: Vec<(PathBuf, String)>,
    /// A user namespace can likely be made here (for read-only binds).
    pub user_namespaces: bool,
    /// Hosts this command may reach through the network wall beyond the
    /// allow-list (a reviewed command names them), with their ports.
    pub network_grants: Vec<(String, u16)>,
    /// `sandbox.network.hostPorts`.
    pub host_ports: Vec<u16>,
    /// The command gets a private mount namespace (in a user namespace):
    /// protected paths bound read-only, denied paths in `hide` covered,
    /// and (with `network` deny) its own network namespace.
    pub namespace: bool,
    /// Denied paths covered in the mount namespace (an empty read-only
    /// tmpfs over a directory, `/dev/null` over a file) instead of carved
    /// out of the Landlock read grants: one rule for all of `/` instead of
    /// one per sibling on the way down. Never a path with a kept one
    /// inside it.
    pub hide: Vec<PathBuf>,
    /// The kernel's Landlock ABI.
    pub abi: u32,
    /// Places replaced in the mount namespace (`views.rs`): `/tmp` and
    /// `$TMPDIR` by the session's own, the host's socket directories by
    /// empty ones.
    pub replace: Vec<views::Replace>,
    /// Host socket files covered by `/dev/null` (the Docker API …).
    pub cover_sockets: Vec<PathBuf>,
    /// The session's temporary directory (what `/tmp` is for the
    /// command), when `/tmp` is replaced.
    pub session_tmp: Option<PathBuf>,
    /// Credential files this command reads although they are denied to
    /// others (`credentials.rs`): a known program's own, run as itself,
    /// or what `sandbox.credentials` gives; with why.
    pub credentials: Vec<(PathBuf, String)>,
    /// Package managers' settings files shown with their secrets taken
    /// out (`credentials::SETTINGS`).
    pub settings: Vec<SettingsView>,
    /// `views::HOME_READ` resolved in this home when the plan was built
    /// (with the paths it consulted witnessed, so the cached plan holds
    /// them as long as they hold): what the home's view shows of it.
    pub home_rows: Vec<views::HomeRow>,
}

/// A settings file the command reads as a filtered copy: bound over the
/// original in the mount namespace, else named by the tool's variable.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SettingsView {
    /// The copy (in the session's directory).
    pub copy: PathBuf,
    /// The original, where the command sees the copy.
    pub at: PathBuf,
    /// Without a mount namespace: the variable pointing the tool at the
    /// copy (none: the original stays denied).
    pub variable: Option<String>,
}

impl Plan {
    /// The denied paths Landlock must carve out (all, without a mount
    /// namespace).
    pub fn carved(&self) -> Vec<PathBuf> {
        if !self.namespace {
            return self.read_deny.clone();
        }
        self.read_deny
            .iter()
            .filter(|d| !self.hide.contains(d))
            .cloned()
            .collect()
    }

    /// Without the mount namespace (none could be made): everything is
    /// carved by Landlock and protected paths are checked after the
    /// command.
    pub fn without_namespace(&mut self) {
        self.namespace = false;
        self.hide.clear();
        self.pin.clear();
        self.replace.clear();
        self.cover_sockets.clear();
        self.session_tmp = None;
    }

    /// `p` lies in a write root of this command (its excluded parts
    /// aside).
    pub fn in_write_root(&self, p: &Path) -> bool {
        self.write
            .iter()
            .chain(self.extra_write.iter().map(|(w, _)| w))
            .any(|w| p.starts_with(w))
    }

    /// Let this command read `path` (a credential file of its own):
    /// out of the denied and covered sets. Returns whether it was denied.
    pub fn release(&mut self, path: &Path, why: &str) -> bool {
        let before = self.read_deny.len();
        self.read_deny.retain(|d| !d.starts_with(path));
        self.hide.retain(|d| !d.starts_with(path));
        let released = self.read_deny.len() != before;
        if released {
            self.credentials.push((path.to_path_buf(), why.to_string()));
        }
        released
    }

    /// The variables the command gets set (settings copies named by
    /// their tool's variable, where no mount namespace shows them).
    pub fn set_env(&self) -> Vec<(String, String)> {
        if self.namespace {
            return Vec::new();
        }
        self.settings
            .iter()
            .filter_map(|s| Some((s.variable.clone()?, s.copy.to_string_lossy().into_owned())))
            .collect()
    }
}

/// What building one command's sandbox reads from the process and the
/// configuration.
#[derive(Debug)]
pub struct Inputs<'a> {
    pub config: &'a crate::config::SandboxConfig,
    pub places: &'a crate::policy::places::Places,
    /// The project root (`config::project_root` of the working directory).
    pub project: &'a Path,
    pub expand: Expand<'a>,
    /// The names of the variables in the command's environment.
    pub env_names: Vec<&'a str>,
    /// Those whose values carry a credential (a URL with a password).
    pub env_credentials: Vec<&'a str>,
    /// `PATH`'s absolute directories, the real shell: they stay readable.
    pub keep: Vec<PathBuf>,
    /// The variable holding the classifier's key.
    pub classifier_key: Option<&'a str>,
}

/// `Inputs` owned, so that the base plan can be built on another thread
/// while the script is judged.
#[derive(Debug, Clone)]
pub struct OwnedInputs {
    pub config: crate::config::SandboxConfig,
    pub places: crate::policy::places::Places,
    pub project: PathBuf,
    /// The environment as text (names for withholding, values for path
    /// templates).
    pub env: Vec<(String, String)>,
    pub keep: Vec<PathBuf>,
    pub classifier_key: Option<String>,
}

impl OwnedInputs {
    /// A variable of the command's environment.
    pub fn var(&self, k: &str) -> Option<String> {
        self.env
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
    }

    /// Run `f` with these as `Inputs`.
    pub fn with<R>(&self, f: impl FnOnce(&Inputs<'_>) -> R) -> R {
        let var = |k: &str| {
            let v = self.var(k);
            cache::var(k, v.as_deref());
            v
        };
        let inputs = Inputs {
            config: &self.config,
            places: &self.places,
            project: &self.project,
            expand: Expand {
                home: self.places.home.as_deref(),
                var: &var,
            },
            env_names: self.env.iter().map(|(k, _)| k.as_str()).collect(),
            env_credentials: self
                .env
                .iter()
                .filter(|(_, v)| env::is_credential_value(v))
                .map(|(k, _)| k.as_str())
                .collect(),
            keep: self.keep.clone(),
            classifier_key: self.classifier_key.as_deref(),
        };
        f(&inputs)
    }
}

/// A base plan and its ruleset with the base grants already added.
#[derive(Debug)]
pub struct Prepared {
    pub plan: Plan,
    pub ruleset: Result<rules::Builder, String>,
}

/// Build the base plan and its ruleset (`abi`: the kernel's Landlock
/// ABI).
pub fn prepare(inp: &OwnedInputs, abi: u32) -> Prepared {
    let mut plan = inp.with(base_plan);
    plan.abi = abi;
    let ruleset = rules::Builder::new(&plan, abi);
    Prepared { plan, ruleset }
}

/// `prepare`, remembered in automode's state directory `state` between
/// commands (`cache.rs`): used while every path it was built from is
/// unchanged, built and stored again otherwise.
pub fn prepare_cached(inp: &OwnedInputs, abi: u32, state: &Path) -> Prepared {
    let store = cache_for(inp, abi, state);
    if let Some((plan, specs)) = store.load(&|k| inp.var(k)) {
        let ruleset = rules::Builder::from_specs(&specs, abi);
        return Prepared { plan, ruleset };
    }
    // What earlier lookups learnt was not witnessed: look again.
    forget_resolved();
    let prepared = store.build(|| {
        let p = prepare(inp, abi);
        let specs = p.ruleset.as_ref().ok().map(|b| b.added.clone());
        (p, specs)
    });
    forget_resolved();
    prepared
}

/// The cache entry for these inputs: keyed by everything the base plan
/// takes that is neither a path on disk nor a variable (both witnessed).
fn cache_for(inp: &OwnedInputs, abi: u32, state: &Path) -> cache::Cache {
    let key = cache::key(&[
        &abi,
        &user_namespaces_possible(),
        &nix::unistd::geteuid().as_raw(),
        &ConfigKey(&inp.config),
        &inp.places,
        &inp.project,
        &inp.keep,
        &inp.classifier_key,
    ]);
    cache::Cache::new(state, key)
}

/// The sandbox settings as the cache key takes them: a list that is still
/// the built-in one as `=` (the tables are part of the build, which the
/// key names), any other by its values; without their sources, which the
/// plan does not use. (The whole configuration's `Debug` text is ~4 KiB,
/// and hashing it was most of the key's cost.)
struct ConfigKey<'a>(&'a crate::config::SandboxConfig);

impl std::fmt::Debug for ConfigKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fn list<'a>(
            f: &mut std::fmt::Formatter<'_>,
            name: &str,
            items: &[crate::config::Sourced<String>],
            builtin: impl Iterator<Item = &'a str>,
        ) -> std::fmt::Result {
            if items.iter().map(|i| i.value.as_str()).eq(builtin) {
                write!(f, "{name}=;")
            } else {
                write!(f, "{name}")?;
                f.debug_list()
                    .entries(items.iter().map(|i| &i.value))
                    .finish()?;
                write!(f, ";")
            }
        }
        // Every field named: a new setting cannot be left out of the key.
        let crate::config::SandboxConfig {
            mode,
            write,
            caches,
            read_deny,
            protect,
            protect_mode,
            network,
            network_allow,
            host_ports,
            pass_env,
            max_file_bytes,
            sockets_allow,
            read,
            credentials,
        } = self.0;
        list(f, "write", write, DEFAULT_WRITE.iter().map(|(p, _)| *p))?;
        list(
            f,
            "caches",
            caches,
            DEFAULT_CACHES.iter().map(|(p, _, _)| *p),
        )?;
        list(
            f,
            "readDeny",
            read_deny,
            DEFAULT_READ_DENY.iter().map(|(p, _)| *p),
        )?;
        list(
            f,
            "protect",
            protect,
            DEFAULT_PROTECT.iter().map(|(p, _)| *p),
        )?;
        list(f, "passEnv", pass_env, std::iter::empty())?;
        list(f, "socketsAllow", sockets_allow, std::iter::empty())?;
        list(f, "read", read, std::iter::empty())?;
        list(f, "credentials", credentials, std::iter::empty())?;
        list(
            f,
            "networkAllow",
            network_allow,
            net::allow::DEFAULT_ALLOW.iter().map(|(h, _)| *h),
        )?;
        write!(
            f,
            "hostPorts{:?};",
            host_ports.iter().map(|p| p.value).collect::<Vec<_>>()
        )?;
        write!(
            f,
            "mode{:?};protectMode{:?};network{:?};maxFileBytes{:?}",
            mode.value, protect_mode.value, network.value, max_file_bytes.value
        )
    }
}

/// What the verdict adds for this one command.
#[derive(Debug, Clone, Default)]
pub struct ForCommand<'a> {
    /// The programs the script runs (base names).
    pub programs: Vec<&'a str>,
    /// Every program is one automode knows, allowed as itself.
    pub known_only: bool,
    /// A harness's own setup call (`HARNESS_WRITES`).
    pub harness_call: Option<&'a str>,
    /// Paths granted to this command only, with why.
    pub extra_write: Vec<(PathBuf, String)>,
    /// Protected paths this command was approved to change.
    pub unprotect: Vec<PathBuf>,
    /// The command runs git and nothing else (`cd` aside): git may write
    /// its configuration for routine work, checked after.
    pub git_only: bool,
    /// It is about to run: missing caches its tools use may be created
    /// (never for `automode check`, which changes nothing).
    pub will_run: bool,
}

/// Variables naming tool homes the programs on PATH read from (they stay
/// readable when they lie in a denied tree, such as another home).
pub const TOOL_HOMES: &[&str] = &[
    "RUSTUP_HOME",
    "CARGO_HOME",
    "GOROOT",
    "GOPATH",
    "PYENV_ROOT",
    "NVM_DIR",
    "VOLTA_HOME",
    "JAVA_HOME",
    "SDKMAN_DIR",
];

/// The existing paths commands may not read: `sandbox.readDeny`
/// expanded, automode's own directories.
pub fn denied_reads(inp: &Inputs<'_>) -> Vec<PathBuf> {
    let places = inp.places;
    let home = places.home.as_deref().and_then(existing);
    let project = existing(inp.project).unwrap_or_else(|| inp.project.to_path_buf());
    let mut deny: Vec<PathBuf> = Vec::new();
    for d in &inp.config.read_deny {
        if d.value == OTHER_HOMES {
            deny.extend(other_homes(home.as_deref(), &project));
            continue;
        }
        if let Some(p) = inp.expand.path(&d.value).as_deref().and_then(existing) {
            deny.push(p);
        }
        // Also where the variable would point by default: a tool that
        // ignores it, or a script that looks there, finds it there.
        if let Some(p) = defaults_only(&d.value)
            .and_then(|t| inp.expand.path(&t))
            .as_deref()
            .and_then(existing)
        {
            deny.push(p);
        }
    }
    for own in [&places.automode_config, &places.automode_state]
        .into_iter()
        .flatten()
    {
        if let Some(p) = existing(own) {
            deny.push(p);
        }
    }
    deny.sort();
    deny.dedup();
    deny
}

/// For a command an allow rule or the classifier approved: the literal
/// targets it changes outside the writable set, each granted exactly (an
/// existing file it writes, else the directory the change happens in;
/// never a grant `widen::refusal` forbids, such as the home for a new
/// file in it), and the protected paths it changes (left writable for
/// it).
pub fn approved_targets(
    plan: &Plan,
    a: &crate::shell::analysis::Analysis,
    places: &crate::policy::places::Places,
) -> (Vec<(PathBuf, String)>, Vec<PathBuf>) {
    use crate::shell::analysis::{EffectKind, TargetKind};
    let writable = |p: &Path| {
        (plan.write.iter().any(|w| p.starts_with(w))
            && !plan.write_exclude.iter().any(|x| p.starts_with(x)))
            || plan.devices.iter().any(|d| d == p)
    };
    let mut outside = Vec::new();
    let mut protected = Vec::new();
    for e in &a.effects {
        if e.kind == EffectKind::Read || e.target != TargetKind::Literal {
            continue;
        }
        let Some(p) = e.lexical.as_ref().or(e.path.as_ref()) else {
            continue;
        };
        if plan
            .protect
            .iter()
            .chain(&plan.protect_missing)
            .any(|x| p.starts_with(x))
        {
            protected.push(p.clone());
            continue;
        }
        if writable(p) || plan.read_deny.iter().any(|d| p.starts_with(d)) {
            continue;
        }
        let in_place = matches!(e.kind, EffectKind::Write | EffectKind::Append)
            && std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
        let grant = if in_place {
            p.clone()
        } else {
            match p.parent() {
                Some(d) => d.to_path_buf(),
                None => continue,
            }
        };
        if widen::refusal(&grant, places, &plan.read_deny).is_some() {
            continue;
        }
        if !outside.iter().any(|(g, _): &(PathBuf, String)| *g == grant) {
            outside.push((
                grant,
                format!(
                    "{} {}, approved for this command",
                    verb(e.kind),
                    p.display()
                ),
            ));
        }
    }
    (outside, protected)
}

/// An approved command made only of `git config --global` calls (every
/// word literal, no editor, no other file named, nothing redirected):
/// the directory git writes the user's configuration in, with its lock
/// file beside it — the home, the directory `~/.gitconfig` links into,
/// or `$XDG_CONFIG_HOME/git` when only that file exists. Granted for that
/// command alone (the home is otherwise never granted; here nothing but
/// git's own settings code runs in it).
pub fn global_git_config(
    a: &crate::shell::analysis::Analysis,
    home: Option<&Path>,
    xdg_config: Option<&Path>,
) -> Option<(PathBuf, String)> {
    use crate::shell::analysis::EffectKind;
    let home = home?;
    let only_config = !a.commands.is_empty()
        && a.commands.iter().all(|c| {
            let words: Option<Vec<&str>> = c.argv.iter().map(|w| w.lit()).collect();
            let Some(words) = words else { return false };
            c.base_name() == Some("git")
                && words.get(1) == Some(&"config")
                && words.contains(&"--global")
                && !words.iter().skip(2).any(|w| {
                    matches!(
                        *w,
                        "-e" | "--edit"
                            | "-f"
                            | "--file"
                            | "--blob"
                            | "--system"
                            | "--local"
                            | "--worktree"
                    ) || w.starts_with("--file=")
                        || w.starts_with("--blob=")
                })
        })
        && a.effects.iter().all(|e| e.kind == EffectKind::Read);
    if !only_config {
        return None;
    }
    let dot = home.join(".gitconfig");
    let xdg = xdg_config
        .map(Path::to_path_buf)
        .unwrap_or_else(|| home.join(".config"))
        .join("git/config");
    let file = if std::fs::symlink_metadata(&dot).is_ok() {
        std::fs::canonicalize(&dot).ok()?
    } else if xdg.is_file() {
        std::fs::canonicalize(&xdg).ok()?
    } else {
        existing(home)?.join(".gitconfig")
    };
    let dir = file.parent()?.to_path_buf();
    Some((
        dir,
        format!(
            "git config --global writes {} (and its lock beside it), approved for this command",
            file.display()
        ),
    ))
}

fn verb(k: crate::shell::analysis::EffectKind) -> &'static str {
    use crate::shell::analysis::EffectKind;
    match k {
        EffectKind::Read => "reads",
        EffectKind::Write => "writes",
        EffectKind::Append => "appends to",
        EffectKind::Create => "creates",
        EffectKind::Delete => "deletes",
        EffectKind::Permission => "changes the mode of",
        EffectKind::Owner => "changes the owner of",
    }
}

/// The part of a command's plan that does not depend on its verdict:
/// the project, configured roots, existing caches, devices, denied and
/// kept reads, exclusions, protected paths. (It can be built while the
/// script is judged; `complete` adds the command's own.)
pub fn base_plan(inp: &Inputs<'_>) -> Plan {
    let places = inp.places;
    let home = places.home.as_deref().and_then(existing);
    if let Some(h) = &home {
        resolve_home_by_listing(h);
    }
    let cfg = inp.config;
    let mut plan = Plan {
        protect_mode: cfg.protect_mode.value,
        network: cfg.network.value,
        max_file_bytes: cfg.max_file_bytes.value,
        user_namespaces: user_namespaces_possible(),
        host_ports: cfg.host_ports.iter().map(|p| p.value).collect(),
        ..Plan::default()
    };
    // Writes: the project (unless too wide), its linked git dirs, the
    // configured roots, tool caches that exist.
    let project = existing(inp.project).unwrap_or_else(|| inp.project.to_path_buf());
    let cwd = existing(&places.cwd).unwrap_or_else(|| places.cwd.clone());
    let (root, refused) = write_root(&project, &cwd, home.as_deref());
    plan.project_refused = refused;
    let gitdirs = root.as_deref().map(linked_git_dirs).unwrap_or_default();
    if let Some(r) = &root {
        plan.write.push(r.clone());
    }
    plan.write.extend(gitdirs.iter().cloned());
    for w in &cfg.write {
        if let Some(p) = inp.expand.path(&w.value).as_deref().and_then(existing)
            && !home.as_deref().is_some_and(|h| h.starts_with(&p))
        {
            plan.write.push(p);
        }
    }
    for c in &cfg.caches {
        if let Some(p) = inp.expand.path(&c.value).as_deref().and_then(existing) {
            plan.write.push(p);
        }
    }
    for (d, _) in DEVICE_DIRS {
        if let Some(p) = existing(Path::new(d)) {
            plan.write.push(p);
        }
    }
    // (A missing device is skipped when its rule cannot be opened.)
    plan.devices
        .extend(DEVICES.iter().map(|(d, _)| PathBuf::from(d)));
    // Reads: everything but the secrets, automode's own directories and
    // other homes; what must run stays readable.
    plan.read_deny = denied_reads(inp);
    let mut keep: Vec<PathBuf> = inp.keep.iter().filter_map(|k| existing(k)).collect();
    for p in [
        &places.automode_exe,
        &places.automode_shims,
        &places.automode_share,
    ]
    .into_iter()
    .flatten()
    {
        if let Some(p) = existing(p) {
            keep.push(p);
        }
    }
    keep.push(project.clone());
    keep.sort();
    keep.dedup();
    plan.read_keep = keep;
    // Never writable, even under a write root: the home itself (its caches
    // are granted on their own), automode's own directories, secrets.
    let mut exclude: Vec<PathBuf> = home.iter().cloned().collect();
    exclude.extend(plan.read_deny.iter().cloned());
    exclude.sort();
    exclude.dedup();
    plan.write_exclude = exclude;
    // Protected paths inside the project.
    if let Some(r) = &root {
        let mut entries: Vec<String> = cfg.protect.iter().map(|p| p.value.clone()).collect();
        // A hooks directory the repository names inside the project is
        // its hooks.
        if let Some(h) = hooks_path_inside(r) {
            entries.push(h);
        }
        let dot_git = r.join(".git");
        cache::exists(&dot_git);
        if std::fs::symlink_metadata(&dot_git).is_ok() {
            plan.pin.push(dot_git);
        }
        let mut dirs: std::collections::HashMap<PathBuf, bool> = std::collections::HashMap::new();
        for p in protect_paths(r, &entries, &gitdirs) {
            cache::exists(&p);
            if std::fs::symlink_metadata(&p).is_ok() {
                plan.protect.push(p);
            } else if let Some(parent) = p.parent()
                && *dirs
                    .entry(parent.to_path_buf())
                    .or_insert_with(|| existing(parent).is_some_and(|d| d.is_dir()))
            {
                plan.protect_missing.push(p);
            }
        }
    }
    plan.withheld_env = env::withheld(
        &inp.env_names,
        &inp.env_credentials,
        false,
        &[],
        &pass_env(cfg),
        inp.classifier_key,
    );
    let home_entries = RESOLVED.with(|c| c.borrow().home.as_ref().map_or(0, |(_, n)| n.len()));
    choose_namespace(&mut plan, home_entries);
    if let Some(h) = &home {
        plan.home_rows = views::home_rows(h);
    }
    plan
}

/// A home with more entries than this is covered in a mount namespace
/// rather than carved by Landlock (measured: `cargo bench --bench
/// sandbox`; a rule costs about 5 µs, the namespace about 200 µs).
const BIG_HOME_ENTRIES: usize = 40;

/// Whether the command gets a mount namespace, and what it covers there:
/// when there are protected paths to bind (and a user namespace can be
/// made), or the network is cut.
fn choose_namespace(plan: &mut Plan, home_entries: usize) {
    let binds = !plan.protect.is_empty()
        && match plan.protect_mode {
            ProtectMode::Auto => plan.user_namespaces,
            ProtectMode::Mount => true,
            ProtectMode::Restore => false,
        };
    // Carving the secrets out of a big home takes a rule per entry: in a
    // namespace they are covered instead (cheaper past a few dozen).
    let big_home = home_entries > BIG_HOME_ENTRIES
        && plan.user_namespaces
        && plan.protect_mode != ProtectMode::Restore;
    // Where a user namespace can be made every command gets one (the
    // home's view, the session's /tmp: views.rs): the secrets are then
    // covered there, never carved, because Landlock does not look at the
    // mount point a replaced place hides, and a carved ancestor of the
    // home would leave its view unreadable.
    plan.namespace = binds || big_home || plan.network == Network::Deny || plan.user_namespaces;
    if !plan.namespace {
        plan.pin.clear();
    }
    plan.hide.clear();
    if plan.namespace {
        // A denied path with a kept one inside stays carved by Landlock
        // (a cover would hide the kept one too).
        let keep = &plan.read_keep;
        plan.hide = plan
            .read_deny
            .iter()
            .filter(|d| !keep.iter().any(|k| k.starts_with(d)))
            .cloned()
            .collect();
    }
}

fn pass_env(cfg: &crate::config::SandboxConfig) -> Vec<String> {
    cfg.pass_env.iter().map(|p| p.value.clone()).collect()
}

/// Complete a base plan for one command; returns the write roots it
/// added (a missing cache made for the command's tool, a harness's own
/// directory), which the ruleset must grant too.
pub fn complete(plan: &mut Plan, inp: &Inputs<'_>, cmd: &ForCommand<'_>) -> Vec<PathBuf> {
    let mut added = Vec::new();
    if cmd.will_run {
        for c in &inp.config.caches {
            let tools = DEFAULT_CACHES
                .iter()
                .find(|(t, _, _)| *t == c.value)
                .map_or(&[][..], |(_, tools, _)| *tools);
            if !tools.iter().any(|t| cmd.programs.contains(t)) {
                continue;
            }
            let Some(p) = inp.expand.path(&c.value) else {
                continue;
            };
            if std::fs::symlink_metadata(&p).is_err() {
                // Made so that the grant can apply (an empty directory in
                // the tool's usual place).
                let _ = std::fs::create_dir_all(&p);
                forget_resolved();
                added.extend(existing(&p));
            }
        }
    }
    if let Some(kind) = cmd.harness_call {
        for (k, template, _) in HARNESS_WRITES {
            if *k == kind
                && let Some(p) = inp.expand.path(template)
            {
                if cmd.will_run {
                    let _ = std::fs::create_dir_all(&p);
                    forget_resolved();
                }
                added.extend(existing(&p));
            }
        }
    }
    plan.write.extend(added.iter().cloned());
    plan.extra_write.extend(cmd.extra_write.iter().cloned());
    let unprotected = |p: &PathBuf| {
        cmd.unprotect
            .iter()
            .any(|u| p.starts_with(u) || u.starts_with(p))
    };
    plan.protect.retain(|p| !unprotected(p));
    plan.protect_missing.retain(|p| !unprotected(p));
    if cmd.git_only {
        let (judged, kept) = std::mem::take(&mut plan.protect)
            .into_iter()
            .partition(|p| is_git_config(p));
        plan.protect = kept;
        plan.judged_config = judged;
    }
    // Kept paths of the command (write roots are readable) are never
    // covered.
    let roots: Vec<PathBuf> = plan
        .write
        .iter()
        .cloned()
        .chain(plan.extra_write.iter().map(|(p, _)| p.clone()))
        .collect();
    plan.hide
        .retain(|d| !roots.iter().any(|r| r.starts_with(d)));
    plan.withheld_env = env::withheld(
        &inp.env_names,
        &inp.env_credentials,
        cmd.known_only,
        &cmd.programs,
        &pass_env(inp.config),
        inp.classifier_key,
    );
    added
}

/// Build the plan for one command at once.
pub fn plan(inp: &Inputs<'_>, cmd: &ForCommand<'_>) -> Plan {
    let mut plan = base_plan(inp);
    complete(&mut plan, inp, cmd);
    plan
}

/// The configured write roots the sandbox leaves out because the home
/// lies inside them (`/tmp` when the home is under it: a grant there
/// would reach the home), each with the warning `automode doctor` and
/// `automode status` give.
pub fn roots_holding_home(
    cfg: &crate::config::SandboxConfig,
    home: &Path,
    var: &dyn Fn(&str) -> Option<String>,
) -> Vec<(PathBuf, String)> {
    let expand = Expand {
        home: Some(home),
        var,
    };
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    for w in &cfg.write {
        let Some(root) = expand.path(&w.value).as_deref().and_then(existing) else {
            continue;
        };
        if home.starts_with(&root) && !out.iter().any(|(r, _)| *r == root) {
            let r = root.display();
            out.push((
                root.clone(),
                format!(
                    "the home directory {} lies under {r}, so the sandbox cannot let commands write {r} itself (a grant there would reach the home): tools that make files directly in {r} (mktemp, test runners' temporary directories) fail. Set TMPDIR to a directory outside the home that does not contain it (for example /var/tmp/$USER, made first), or move the home out of {r}",
                    home.display()
                ),
            ));
        }
    }
    out
}

/// Can this process make a user namespace? (An unprivileged user may be
/// stopped by a sysctl or an AppArmor policy; the attempt in the child is
/// the real test, this only avoids a doomed one.)
pub fn user_namespaces_possible() -> bool {
    // Read once a process (three files of /proc/sys, asked twice a
    // command).
    static POSSIBLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *POSSIBLE.get_or_init(user_namespaces_sysctls)
}

fn user_namespaces_sysctls() -> bool {
    let read = |p: &str| crate::procfs::read(p).map(|s| s.trim().to_string());
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return false;
    }
    let root = nix::unistd::geteuid().is_root();
    if !root {
        if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
            return false;
        }
        if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
            return false;
        }
    }
    true
}

/// `.`, `..` and `//` taken out, without looking at the file system.
fn lexical(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// What this thread learnt about paths: resolutions, and the listing of
/// the home (the plan asks about dozens of names in it: one `getdents`
/// instead of an `lstat` each).
#[derive(Default)]
struct Resolved {
    paths: std::collections::HashMap<PathBuf, Option<PathBuf>>,
    /// The home's entries: name → is a symlink.
    home: Option<(PathBuf, std::collections::HashMap<std::ffi::OsString, bool>)>,
}

thread_local! {
    static RESOLVED: std::cell::RefCell<Resolved> = std::cell::RefCell::new(Resolved::default());
}

/// The canonical form of an existing path (symlinks resolved), or `None`
/// when it does not exist. Each directory on the way is looked at once
/// per thread; a missing one answers for everything below it.
pub fn existing(p: &Path) -> Option<PathBuf> {
    let p = lexical(p);
    RESOLVED.with(|cache| resolve_cached(&mut cache.borrow_mut(), &p))
}

/// Answer names in `home` from one listing of it.
fn list_home(cache: &mut Resolved, home: &Path) {
    if cache.home.as_ref().is_some_and(|(h, _)| h == home) {
        return;
    }
    cache::listed(home);
    let names = std::fs::read_dir(home)
        .map(|rd| {
            rd.flatten()
                .map(|e| {
                    let link = e.file_type().is_ok_and(|t| t.is_symlink());
                    (e.file_name(), link)
                })
                .collect()
        })
        .unwrap_or_default();
    cache.home = Some((home.to_path_buf(), names));
}

/// Forget what `existing` learnt (after directories were made).
pub fn forget_resolved() {
    RESOLVED.with(|cache| *cache.borrow_mut() = Resolved::default());
}

/// Use the home's listing for names in it (the caller passes the home).
pub fn resolve_home_by_listing(home: &Path) {
    RESOLVED.with(|cache| list_home(&mut cache.borrow_mut(), home));
}

fn resolve_cached(cache: &mut Resolved, p: &Path) -> Option<PathBuf> {
    let (Some(parent), Some(name)) = (p.parent(), p.file_name()) else {
        return Some(p.to_path_buf());
    };
    if let Some(known) = cache.paths.get(p) {
        return known.clone();
    }
    let found = resolve_cached(cache, parent).and_then(|dir| {
        let candidate = dir.join(name);
        let listed = cache
            .home
            .as_ref()
            .filter(|(h, _)| *h == dir)
            .map(|(_, names)| names.get(name).copied());
        let kind = match listed {
            Some(Some(link)) => Some(link),
            Some(None) => None,
            None => {
                cache::exists(&candidate);
                std::fs::symlink_metadata(&candidate)
                    .ok()
                    .map(|m| m.file_type().is_symlink())
            }
        };
        match kind {
            Some(true) => follow_link(cache, &dir, &candidate, 0),
            Some(false) => Some(candidate),
            None => None,
        }
    });
    cache.paths.insert(p.to_path_buf(), found.clone());
    found
}

/// Where the symlink `link` (in the canonical directory `dir`) leads,
/// resolved a component at a time through `resolve_cached` (so every
/// path on the way is looked at, and witnessed, like any other);
/// `depth`: links followed so far (40, as the kernel: a loop is `None`).
fn follow_link(cache: &mut Resolved, dir: &Path, link: &Path, depth: u32) -> Option<PathBuf> {
    use std::path::Component;
    if depth >= 40 {
        return None;
    }
    let target = std::fs::read_link(link).ok()?;
    let mut at = if target.is_absolute() {
        PathBuf::from("/")
    } else {
        dir.to_path_buf()
    };
    for c in target.components() {
        match c {
            Component::Normal(n) => {
                let next = at.join(n);
                at = match cache.paths.get(&next) {
                    Some(known) => known.clone()?,
                    None => {
                        cache::exists(&next);
                        let meta = std::fs::symlink_metadata(&next).ok()?;
                        let found = if meta.file_type().is_symlink() {
                            follow_link(cache, &at, &next, depth + 1)
                        } else {
                            Some(next.clone())
                        };
                        cache.paths.insert(next, found.clone());
                        found?
                    }
                };
            }
            // `at` is canonical: its parent is the physical one.
            Component::ParentDir => {
                at.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    Some(at)
}

/// The project root for writes: refused when it is `/`, the home or an
/// ancestor of the home (an agent started there would get the whole
/// home); then the working directory, refused the same way.
pub fn write_root(
    project: &Path,
    cwd: &Path,
    home: Option<&Path>,
) -> (Option<PathBuf>, Option<String>) {
    let too_wide = |p: &Path| p == Path::new("/") || home.is_some_and(|h| h.starts_with(p));
    if !too_wide(project) {
        return (Some(project.to_path_buf()), None);
    }
    if !too_wide(cwd) {
        return (
            Some(cwd.to_path_buf()),
            Some(format!(
                "the project root {} is / or contains the home directory: only the working directory is writable",
                project.display()
            )),
        );
    }
    (
        None,
        Some(format!(
            "the working directory {} is / or contains the home directory: it is not writable (only temporary directories and tool caches are)",
            cwd.display()
        )),
    )
}

/// A repository's `config` (the project's, a submodule's or a linked
/// worktree's, all under a `.git`).
fn is_git_config(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n == "config")
        && p.ancestors()
            .skip(1)
            .any(|a| a.file_name().is_some_and(|n| n == ".git"))
}

/// `core.hooksPath` of the project's repository, when it names a place
/// inside the project: relative to the project root (read from
/// `.git/config`, witnessed for the plan's cache).
fn hooks_path_inside(root: &Path) -> Option<String> {
    let config = existing(&root.join(".git/config"))?;
    let text = read_witnessed(&config)?;
    let mut in_core = false;
    let mut found = None;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_core = t
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .eq_ignore_ascii_case("core");
            continue;
        }
        if in_core
            && let Some((k, v)) = t.split_once('=')
            && k.trim().eq_ignore_ascii_case("hookspath")
        {
            found = Some(v.trim().trim_matches('"').to_string());
        }
    }
    let value = found?;
    let path = if Path::new(&value).is_absolute() {
        PathBuf::from(&value)
    } else {
        root.join(&value)
    };
    let rel = lexical(&path).strip_prefix(root).ok()?.to_path_buf();
    (!rel.as_os_str().is_empty()).then(|| rel.display().to_string())
}

/// The git directories a linked worktree or submodule keeps outside it:
/// `(its own gitdir, the shared dir's parts commits write)`.
pub fn linked_git_dirs(root: &Path) -> Vec<PathBuf> {
    let Some(text) = existing(&root.join(".git")).and_then(|p| read_witnessed(&p)) else {
        return Vec::new();
    };
    let Some(target) = text.lines().find_map(|l| l.strip_prefix("gitdir:")) else {
        return Vec::new();
    };
    let target = target.trim();
    let gitdir = if Path::new(target).is_absolute() {
        PathBuf::from(target)
    } else {
        root.join(target)
    };
    let Some(gitdir) = existing(&gitdir) else {
        return Vec::new();
    };
    let mut out = vec![gitdir.clone()];
    // A linked worktree names the shared repository in `commondir`.
    if let Some(common) = existing(&gitdir.join("commondir")).and_then(|p| read_witnessed(&p)) {
        let common = common.trim();
        let common = if Path::new(common).is_absolute() {
            PathBuf::from(common)
        } else {
            gitdir.join(common)
        };
        if let Some(common) = existing(&common) {
            for part in ["objects", "refs", "logs", "packed-refs"] {
                if let Some(p) = existing(&common.join(part)) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The text of the regular file at the canonical path `p` (witnessed
/// before it is read; a directory is no text).
fn read_witnessed(p: &Path) -> Option<String> {
    if !std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()) {
        return None;
    }
    cache::listed(p);
    std::fs::read_to_string(p).ok()
}

/// Expand the `.git/hooks` and `.git/config` entries into the submodules'
/// and linked worktrees' own (`.git/modules/*/…`, `.git/worktrees/*/…`).
pub fn protect_paths(root: &Path, entries: &[String], gitdirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut inner: Option<Vec<(PathBuf, bool)>> = None;
    for e in entries {
        let rel = e.trim_start_matches("./");
        out.push(root.join(rel));
        if let Some(inside) = rel.strip_prefix(".git/") {
            // Submodules' and worktrees' gitdirs (read once).
            let dirs = inner.get_or_insert_with(|| {
                let mut dirs = Vec::new();
                for sub in ["modules", "worktrees"] {
                    for d in dirs_in(&root.join(".git").join(sub)) {
                        if sub == "modules" {
                            // Nested submodules.
                            dirs.extend(dirs_in(&d.join("modules")).into_iter().map(|n| (n, true)));
                        }
                        dirs.push((d, sub == "modules"));
                    }
                }
                dirs
            });
            for (d, _) in dirs.iter() {
                out.push(d.join(inside));
            }
            // A linked worktree's or submodule's own gitdir, outside the
            // project but writable: its config (and hooks) stay protected.
            if let Some(own) = gitdirs.first() {
                out.push(own.join(inside));
                if inside == "config" {
                    out.push(own.join("config.worktree"));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn dirs_in(dir: &Path) -> Vec<PathBuf> {
    cache::listed(dir);
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// Every home under `/home` and `/root` but `home` (and any that holds
/// the project: it stays readable).
pub fn other_homes(home: Option<&Path>, project: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut consider = |p: PathBuf| {
        let Some(c) = existing(&p) else { return };
        if home.is_some_and(|h| h == c || h.starts_with(&c)) || project.starts_with(&c) {
            return;
        }
        out.push(c);
    };
    consider(PathBuf::from("/root"));
    cache::listed(Path::new("/home"));
    if let Ok(rd) = std::fs::read_dir("/home") {
        for e in rd.flatten() {
            consider(e.path());
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests;
