//! What a path is, for the policy: a home root, a top-level system
//! directory, a shell profile, an SSH file, a secret, automode's own
//! files, an agent harness's settings, a regenerable build artifact, a
//! protected path. Each list is data with a reason.

use std::path::{Component, Path, PathBuf};

/// Top-level directories whose recursive deletion or re-permissioning
/// breaks the system.
pub const SYSTEM_ROOTS: &[(&str, &str)] = &[
    ("/bin", "system programs"),
    ("/boot", "kernel and boot loader"),
    ("/dev", "devices"),
    ("/etc", "system configuration"),
    ("/home", "every user's home"),
    ("/lib", "system libraries"),
    ("/lib32", "system libraries"),
    ("/lib64", "system libraries"),
    ("/libx32", "system libraries"),
    ("/lost+found", "file system recovery"),
    ("/media", "mount points"),
    ("/mnt", "mount points"),
    ("/opt", "system-wide software"),
    ("/proc", "kernel interface"),
    ("/root", "the root user's home"),
    ("/run", "runtime state"),
    ("/sbin", "system programs"),
    ("/snap", "snap packages"),
    ("/srv", "served data"),
    ("/sys", "kernel interface"),
    ("/usr", "system software"),
    ("/var", "system state and data"),
    ("/System", "macOS system"),
    ("/Library", "macOS system library"),
    ("/Applications", "macOS applications"),
    ("/Users", "every user's home (macOS)"),
    ("/private", "macOS system data"),
    ("/Volumes", "macOS mounts"),
];

/// Trees under which permission and owner changes are system changes.
pub const SYSTEM_TREES: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc",
    "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/System", "/Library", "/private",
];

/// Shell startup files (in a home directory), with the shell that reads
/// them.
pub const PROFILE_FILES: &[(&str, &str)] = &[
    (".bashrc", "bash"),
    (".bash_profile", "bash login shells"),
    (".bash_login", "bash login shells"),
    (".bash_logout", "bash"),
    (".bash_aliases", "bash (via .bashrc)"),
    (".profile", "sh and bash login shells"),
    (".zshrc", "zsh"),
    (".zshenv", "every zsh"),
    (".zprofile", "zsh login shells"),
    (".zlogin", "zsh login shells"),
    (".zlogout", "zsh"),
    (".kshrc", "ksh"),
    (".mkshrc", "mksh"),
    (".cshrc", "csh"),
    (".tcshrc", "tcsh"),
    (".login", "csh login shells"),
    (".inputrc", "readline"),
    (".config/fish/config.fish", "fish"),
    (".config/fish/conf.d", "fish"),
    (".config/fish/functions", "fish"),
];

/// System-wide shell startup files.
pub const SYSTEM_PROFILE_FILES: &[&str] = &[
    "/etc/profile",
    "/etc/profile.d",
    "/etc/bash.bashrc",
    "/etc/bashrc",
    "/etc/zsh",
    "/etc/zshenv",
    "/etc/zshrc",
    "/etc/zprofile",
    "/etc/environment",
    "/etc/bash_completion.d",
];

/// SSH files (in a home's `.ssh`) whose change grants access or runs code.
pub const SSH_FILES: &[(&str, &str)] = &[
    ("authorized_keys", "grants login"),
    ("authorized_keys2", "grants login"),
    ("config", "can run commands (ProxyCommand, LocalCommand)"),
    ("rc", "runs at every login"),
    ("environment", "sets login environment"),
];

/// Trees in a home that hold other people's published code (dependency
/// sources, toolchains): reading them recursively is routine (an agent
/// looks up how a library works), unlike the rest of the home.
pub const DEPENDENCY_SOURCES: &[(&str, &str)] = &[
    (".cargo/registry", "crate sources cargo downloaded"),
    (".cargo/git", "git dependencies cargo checked out"),
    (".rustup", "Rust toolchains and their library sources"),
    ("go/pkg/mod", "Go's module cache"),
    (".m2/repository", "Maven's local repository"),
    (".gradle/caches", "Gradle's dependency cache"),
    (".nvm/versions", "Node versions installed by nvm"),
    (".pyenv/versions", "Python versions installed by pyenv"),
    (".rbenv/versions", "Ruby versions installed by rbenv"),
    (".local/share/pnpm/store", "pnpm's package store"),
    (".cache/pip", "pip's download cache"),
    (".cache/go-build", "Go's build cache"),
];

/// Paths (relative to a home) whose contents are secrets.
pub const SECRET_PATHS: &[(&str, &str)] = &[
    (".ssh/id_", "SSH private keys"),
    (".ssh", "SSH keys and host configuration"),
    (".ssh/identity", "SSH private key"),
    (".aws", "cloud credentials"),
    (".azure", "cloud credentials"),
    (".config/gcloud", "cloud credentials"),
    (".kube/config", "cluster credentials"),
    (".docker/config.json", "registry credentials"),
    (".netrc", "passwords"),
    (".git-credentials", "git passwords"),
    (".npmrc", "registry tokens"),
    (".pypirc", "registry tokens"),
    (".gem/credentials", "registry tokens"),
    (".cargo/credentials", "registry tokens"),
    (".cargo/credentials.toml", "registry tokens"),
    (".config/gh/hosts.yml", "GitHub tokens"),
    (".config/hub", "GitHub tokens"),
    (".gnupg", "private keys"),
    (".password-store", "passwords"),
    (".vault-token", "tokens"),
    (".terraform.d/credentials.tfrc.json", "tokens"),
    (".local/share/keyrings", "keyrings"),
    ("Library/Keychains", "keychains"),
    (".bash_history", "shell history"),
    (".zsh_history", "shell history"),
    (".python_history", "history"),
    (".psql_history", "history"),
    (".mysql_history", "history"),
    (".bashrc", "shell profiles hold exported tokens"),
    (".zshrc", "shell profiles hold exported tokens"),
    (".profile", "shell profiles hold exported tokens"),
    (".bash_profile", "shell profiles hold exported tokens"),
    (".zshenv", "shell profiles hold exported tokens"),
    (".claude/.credentials.json", "Claude Code tokens"),
    (".composer/auth.json", "registry tokens"),
    (".config/composer/auth.json", "registry tokens"),
    (".config/configstore", "CLI tokens"),
    (".config/hub", "GitHub tokens"),
    (".claude.json", "Claude Code account data"),
    (".codex/auth.json", "Codex tokens"),
    (".config/rclone", "cloud storage tokens"),
    (".s3cfg", "cloud credentials"),
    (".boto", "cloud credentials"),
    (".m2/settings.xml", "registry passwords"),
    (".gradle/gradle.properties", "registry passwords"),
    (".pgpass", "database passwords"),
    (".my.cnf", "database passwords"),
    (".config/pip/pip.conf", "index credentials"),
    (".pip/pip.conf", "index credentials"),
    (".config/op", "password manager"),
    (".config/Bitwarden CLI", "password manager"),
    (".terraformrc", "tokens"),
    (".config/helm/repositories.yaml", "registry passwords"),
    (".local/share/pnpm/.npmrc", "registry tokens"),
    (".yarnrc.yml", "registry tokens"),
    (".config/gcloud", "cloud credentials"),
    (".oci", "cloud credentials"),
    (".git-credentials", "git passwords"),
    (".config/git/credentials", "git passwords"),
    (".mozilla", "browser profiles (cookies, passwords)"),
    (
        ".config/google-chrome",
        "browser profiles (cookies, passwords)",
    ),
    (".config/chromium", "browser profiles (cookies, passwords)"),
    (
        "Library/Application Support/Google/Chrome",
        "browser profiles",
    ),
    ("Library/Cookies", "cookies"),
];

/// System files that are secrets.
pub const SYSTEM_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/ssh/ssh_host_",
    "/run/secrets",
    "/var/run/secrets",
    "/etc/ssl/private",
    "/etc/kubernetes/admin.conf",
    "/etc/rancher",
    "/etc/gitlab-runner",
    "/etc/docker/key.json",
];

/// Agent harness state and settings directories (relative to a home).
pub const HARNESS_DIRS: &[(&str, &str)] = &[
    (
        ".claude",
        "Claude Code settings, hooks, snapshots and transcripts",
    ),
    (".claude.json", "Claude Code settings"),
    (".codex", "Codex CLI settings, snapshots and transcripts"),
    (".pi", "pi settings and sessions"),
    (".gemini", "Gemini CLI settings"),
    (".config/opencode", "opencode settings"),
    (".local/share/opencode", "opencode state"),
    (".aider.conf.yml", "aider settings"),
    (".continue", "Continue settings"),
    (".cursor", "Cursor settings"),
];

/// Harness settings a project can hold (matched as the last components
/// of a path, anywhere): they choose the harness's shell, hooks and
/// permissions for the next session.
pub const PROJECT_HARNESS_FILES: &[(&str, &str)] = &[
    (
        ".claude/settings.json",
        "Claude Code project settings: hooks, env (CLAUDE_CODE_SHELL), permissions",
    ),
    (
        ".claude/settings.local.json",
        "Claude Code local project settings: hooks, env, permissions",
    ),
    (
        ".pi/settings.json",
        "pi project settings: shellPath, shellCommandPrefix",
    ),
    (
        ".gemini/settings.json",
        "Gemini CLI project settings: tools, hooks",
    ),
    (".codex/config.toml", "Codex project settings"),
    (
        "opencode.json",
        "opencode project config: shell, permissions",
    ),
    (
        "opencode.jsonc",
        "opencode project config: shell, permissions",
    ),
];

/// Files that, written with the wrong content, turn off TLS checks for a
/// tool (relative to a home).
pub const TLS_CONFIG_FILES: &[&str] = &[".wgetrc", ".curlrc"];

/// Regenerable build output: directory names (anywhere under the working
/// directory) and file patterns, with the tool that makes them.
pub const ARTIFACT_DIRS: &[(&str, &str)] = &[
    ("build", "build output"),
    ("dist", "build output"),
    ("target", "Rust/Maven build output"),
    ("out", "build output"),
    ("node_modules", "npm install"),
    ("bower_components", "bower install"),
    ("__pycache__", "Python bytecode"),
    (".pytest_cache", "pytest"),
    (".mypy_cache", "mypy"),
    (".ruff_cache", "ruff"),
    (".cache", "tool caches"),
    ("coverage", "coverage reports"),
    ("htmlcov", "coverage reports"),
    (".nyc_output", "coverage data"),
    (".tox", "tox environments"),
    (".nox", "nox environments"),
    (".next", "Next.js build"),
    (".nuxt", "Nuxt build"),
    (".svelte-kit", "SvelteKit build"),
    (".turbo", "Turborepo cache"),
    (".parcel-cache", "Parcel cache"),
    (".gradle", "Gradle cache"),
    (".angular", "Angular cache"),
    (".sass-cache", "Sass cache"),
    ("tmp", "scratch files"),
    ("temp", "scratch files"),
    (".tmp", "scratch files"),
    (".venv", "virtual environment"),
    ("venv", "virtual environment"),
    ("cmake-build-debug", "CMake build"),
    ("cmake-build-release", "CMake build"),
    (".eggs", "setuptools eggs"),
];

/// Regenerable file patterns.
pub const ARTIFACT_FILES: &[(&str, &str)] = &[
    ("*.o", "object files"),
    ("*.obj", "object files"),
    ("*.pyc", "Python bytecode"),
    ("*.pyo", "Python bytecode"),
    ("*.class", "Java bytecode"),
    ("*.tmp", "scratch files"),
    (".DS_Store", "Finder metadata"),
    ("Thumbs.db", "Explorer metadata"),
    (".coverage", "coverage data"),
    (".eslintcache", "ESLint cache"),
    ("*.tsbuildinfo", "TypeScript build info"),
    ("*.egg-info", "Python packaging metadata"),
    ("*.egg", "Python eggs"),
    ("*.log", "log files"),
];

/// Where automode itself lives, and the directories the policy must know.
#[derive(Debug, Clone, Default)]
pub struct Places {
    pub home: Option<PathBuf>,
    /// The working directory (canonical).
    pub cwd: PathBuf,
    pub automode_config: Option<PathBuf>,
    pub automode_state: Option<PathBuf>,
    /// The automode binary (canonical).
    pub automode_exe: Option<PathBuf>,
    /// `<prefix>/share/automode` (shims, install record).
    pub automode_share: Option<PathBuf>,
    /// The directory of the `bash`/`sh` shims this process came through.
    pub automode_shims: Option<PathBuf>,
    /// `$CODEX_HOME` when set.
    pub codex_home: Option<PathBuf>,
    /// Where a checkpoint is taken before this command (none: checkpoints
    /// are off, or the directory is in no project they cover).
    pub checkpoint: Option<crate::checkpoint::Coverage>,
}

/// `a` is `b` or inside it.
pub fn within(a: &Path, b: &Path) -> bool {
    a.starts_with(b)
}

/// The canonical form of a home path from HOME (symlinks resolved).
pub fn canon(p: &Path) -> PathBuf {
    crate::shell::paths::resolve(Path::new("/"), &p.to_string_lossy()).0
}

impl Places {
    /// Every home root the policy knows: HOME, /root, /home/*, /var/home/*,
    /// /Users/*.
    pub fn is_home_root(&self, p: &Path) -> bool {
        if self.home.as_deref() == Some(p) {
            return true;
        }
        if p == Path::new("/root") {
            return true;
        }
        let comps: Vec<Component<'_>> = p.components().collect();
        match comps.as_slice() {
            [
                Component::RootDir,
                Component::Normal(a),
                Component::Normal(_),
            ] => *a == "home" || *a == "Users",
            [
                Component::RootDir,
                Component::Normal(a),
                Component::Normal(b),
                Component::Normal(_),
            ] => *a == "var" && *b == "home",
            _ => false,
        }
    }

    /// The home this path is in (HOME or another user's), if any.
    pub fn home_of(&self, p: &Path) -> Option<PathBuf> {
        if let Some(h) = &self.home
            && p.starts_with(h)
        {
            return Some(h.clone());
        }
        let mut acc = PathBuf::new();
        for c in p.components() {
            acc.push(c);
            if self.is_home_root(&acc) {
                return Some(acc);
            }
        }
        None
    }

    /// `p` relative to the home it is in.
    pub fn in_home<'a>(&self, p: &'a Path) -> Option<&'a Path> {
        let home = self.home_of(p)?;
        p.strip_prefix(&home).ok().map(|r| {
            // Keep the borrow on `p`.
            let skip = p.components().count() - r.components().count();
            let mut it = p.components();
            for _ in 0..skip {
                it.next();
            }
            it.as_path()
        })
    }

    /// Why a recursive read of `p` (outside the working directory) may
    /// gather other projects' files, `.env` files and keys: a directory
    /// above the project, a part of a home other than dependency sources,
    /// or another git repository.
    pub fn foreign_tree(&self, p: &Path) -> Option<String> {
        if self.cwd.starts_with(p) {
            return Some(format!(
                "{} holds the project and what lies beside it",
                p.display()
            ));
        }
        if let Some(rel) = self.in_home(p) {
            let dependency = DEPENDENCY_SOURCES.iter().any(|(d, _)| rel.starts_with(d));
            if !dependency {
                return Some(format!("{} is in a home, outside the project", p.display()));
            }
            return None;
        }
        // Another repository: `.git` in `p` or above it, in a tree that
        // does not also hold the project (a monorepo's sibling is fine).
        let repo = p.ancestors().find(|a| a.join(".git").exists())?;
        (!self.cwd.starts_with(repo))
            .then(|| format!("{} is in another project ({})", p.display(), repo.display()))
    }

    /// A top-level system directory (or `/`)?
    pub fn system_root(&self, p: &Path) -> Option<&'static str> {
        if p == Path::new("/") {
            return Some("the root of the file system");
        }
        SYSTEM_ROOTS
            .iter()
            .find(|(r, _)| p == Path::new(r))
            .map(|(_, why)| *why)
    }

    /// Under a system tree (and not in a home: `/root/x` is user data).
    pub fn in_system_tree(&self, p: &Path) -> bool {
        if self.home_of(p).is_some_and(|h| h != p) {
            return false;
        }
        p == Path::new("/") || SYSTEM_TREES.iter().any(|t| p.starts_with(t))
    }

    /// A shell startup file?
    pub fn profile(&self, p: &Path) -> Option<String> {
        if SYSTEM_PROFILE_FILES.iter().any(|f| p.starts_with(f)) {
            return Some(format!("{} is read by every login shell", p.display()));
        }
        let rel = self.in_home(p)?;
        PROFILE_FILES
            .iter()
            .find(|(f, _)| rel.starts_with(f))
            .map(|(f, who)| format!("~/{f} is run by {who}"))
    }

    /// An SSH file that grants access or runs code, or the .ssh directory.
    pub fn ssh(&self, p: &Path) -> Option<String> {
        if p.starts_with("/etc/ssh") {
            return Some("the SSH server configuration".into());
        }
        let rel = self.in_home(p)?;
        let mut comps = rel.components();
        if comps.next() != Some(Component::Normal(".ssh".as_ref())) {
            return None;
        }
        match comps.next() {
            None => Some("the ~/.ssh directory".into()),
            Some(Component::Normal(name)) => SSH_FILES
                .iter()
                .find(|(f, _)| name == *f)
                .map(|(f, why)| format!("~/.ssh/{f} {why}")),
            _ => None,
        }
    }

    /// Anything under ~/.ssh (for permission changes).
    pub fn in_ssh_dir(&self, p: &Path) -> bool {
        p.starts_with("/etc/ssh") || self.in_home(p).is_some_and(|r| r.starts_with(".ssh"))
    }

    /// A secret (credentials, keys, history)?
    pub fn secret(&self, p: &Path) -> Option<String> {
        if SYSTEM_SECRETS
            .iter()
            .any(|s| p.to_string_lossy().starts_with(s))
        {
            return Some(format!("{} holds secrets", p.display()));
        }
        let s = p.to_string_lossy();
        // A process's environment, memory, or its view of the file system
        // (`/proc/self/cwd/..` is the command's own directory).
        if let Some(rest) = s.strip_prefix("/proc/") {
            let mut parts = rest.split('/');
            let pid = parts.next().unwrap_or("");
            let what = parts.next().unwrap_or("");
            if (pid == "self" || pid == "thread-self" || pid.bytes().all(|b| b.is_ascii_digit()))
                && matches!(
                    what,
                    "environ" | "mem" | "cwd" | "root" | "fd" | "map_files" | "auxv" | "task"
                )
            {
                return Some(format!(
                    "{} reaches into a process (environment, memory or files)",
                    p.display()
                ));
            }
        }
        if s.ends_with(".pub") {
            return None;
        }
        if let Some(rel) = self.in_home(p) {
            let r = rel.to_string_lossy();
            if let Some((prefix, why)) = SECRET_PATHS.iter().find(|(prefix, _)| {
                r == *prefix
                    || r.starts_with(&format!("{prefix}/"))
                    || (prefix.ends_with('_') && r.starts_with(prefix))
            }) {
                return Some(format!("~/{prefix} holds {why}"));
            }
        }
        // A .env file outside the project.
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if (name == ".env" || name.starts_with(".env.")) && !within(p, &self.cwd) {
            return Some(format!(
                "{} is another project's environment file",
                p.display()
            ));
        }
        None
    }

    /// A secret at or under `p` (for recursive reads: `grep -r x ~/.ssh`,
    /// `tar czf k.tgz ~/.aws`).
    pub fn secret_under(&self, p: &Path) -> Option<String> {
        if let Some(why) = self.secret(p) {
            return Some(why);
        }
        let homes: Vec<PathBuf> = match self.home_of(p) {
            Some(h) => vec![h],
            None => self
                .home
                .iter()
                .filter(|h| h.starts_with(p))
                .cloned()
                .collect(),
        };
        for h in homes {
            for (rel, why) in SECRET_PATHS {
                let rel = rel.trim_end_matches('_');
                let full = h.join(rel);
                if full.starts_with(p) || (rel.ends_with("/id") && h.join(".ssh").starts_with(p)) {
                    return Some(format!("{} holds {why}", full.display()));
                }
            }
        }
        if Path::new("/etc/shadow").starts_with(p) && p != Path::new("/") {
            return Some(format!("{} holds password hashes", p.display()));
        }
        None
    }

    /// automode's own files: config, state, binary, shims, install record.
    pub fn automode_own(&self, p: &Path) -> Option<String> {
        let checks = [
            (&self.automode_config, "automode's configuration"),
            (&self.automode_state, "automode's state and audit log"),
            (&self.automode_exe, "the automode binary"),
            (&self.automode_share, "automode's shims and install record"),
            (&self.automode_shims, "automode's shims directory"),
        ];
        for (place, what) in checks {
            if let Some(dir) = place
                && (within(p, dir)
                    || (p.parent().is_some() && within(dir, p) && p != Path::new("/")))
            {
                return Some(format!("{} is {what}", p.display()));
            }
        }
        // The administrator's managed policy (and its directory).
        let managed = Path::new(crate::config::MANAGED_PATH);
        let managed_dir = managed.parent().filter(|d| *d != Path::new("/"));
        if within(p, managed)
            || managed_dir.is_some_and(|d| within(p, d) || (within(d, p) && p != Path::new("/")))
        {
            return Some(format!(
                "{} is the administrator's managed automode policy",
                p.display()
            ));
        }
        // The usual locations, whatever XDG says.
        if let Some(rel) = self.in_home(p) {
            for known in [
                ".config/automode",
                ".local/state/automode",
                ".local/share/automode",
                ".local/bin/automode",
            ] {
                if rel.starts_with(known) {
                    return Some(format!("~/{known} belongs to automode"));
                }
            }
        }
        None
    }

    /// A coding agent's settings, hooks or transcripts.
    pub fn harness(&self, p: &Path) -> Option<String> {
        if let Some(codex) = &self.codex_home
            && within(p, codex)
        {
            return Some("$CODEX_HOME holds Codex settings and transcripts".into());
        }
        if let Some((f, why)) = PROJECT_HARNESS_FILES.iter().find(|(f, _)| p.ends_with(f)) {
            return Some(format!("{f}: {why}"));
        }
        let rel = self.in_home(p)?;
        HARNESS_DIRS
            .iter()
            .find(|(d, _)| rel.starts_with(d))
            .map(|(d, why)| format!("~/{d}: {why}"))
    }

    /// A tool configuration file that can turn off TLS checks.
    pub fn tls_config(&self, p: &Path) -> Option<String> {
        if p == Path::new("/etc/wgetrc") {
            return Some("/etc/wgetrc configures wget certificate checks".into());
        }
        let rel = self.in_home(p)?;
        TLS_CONFIG_FILES
            .iter()
            .find(|f| rel == Path::new(f))
            .map(|f| format!("~/{f} configures certificate checks"))
    }

    /// Inside the working directory?
    pub fn inside_cwd(&self, p: &Path) -> bool {
        within(p, &self.cwd)
    }

    /// A place this command's checkpoint holds (inside the project, in
    /// no directory checkpoints leave out).
    pub fn checkpointed(&self, p: &Path) -> bool {
        self.checkpoint.as_ref().is_some_and(|c| c.holds_place(p))
    }

    /// Inside the project this command's checkpoint covers (what a
    /// script moves there from inside the project, the checkpoint holds
    /// where it was).
    pub fn in_checkpointed_project(&self, p: &Path) -> bool {
        self.checkpoint
            .as_ref()
            .is_some_and(|c| p.starts_with(&c.root) && p != c.root)
    }

    /// A regenerable build artifact inside the working directory: some
    /// component below the working directory is an artifact directory, or
    /// the name matches an artifact file pattern.
    pub fn artifact(&self, p: &Path) -> Option<&'static str> {
        let rel = p.strip_prefix(&self.cwd).ok()?;
        for c in rel.components() {
            if let Component::Normal(n) = c
                && let Some((_, why)) = ARTIFACT_DIRS.iter().find(|(d, _)| n == *d)
            {
                return Some(why);
            }
        }
        let name = p.file_name()?.to_string_lossy();
        artifact_name(&name)
    }
}

/// Does a file name (or a name pattern like `*.o`) denote an artifact?
pub fn artifact_name(name: &str) -> Option<&'static str> {
    if let Some((_, why)) = ARTIFACT_DIRS.iter().find(|(d, _)| name == *d) {
        return Some(why);
    }
    ARTIFACT_FILES.iter().find_map(|(pat, why)| {
        let hit = match pat.strip_prefix('*') {
            Some(suffix) => {
                name.ends_with(suffix) && (name.starts_with('*') || name.len() > suffix.len())
            }
            None => name == *pat,
        };
        hit.then_some(*why)
    })
}

/// A block device (writing it destroys a file system).
pub fn block_device(p: &Path) -> bool {
    let s = p.to_string_lossy();
    [
        "/dev/sd",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/nvme",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/md",
        "/dev/dm-",
        "/dev/mapper/",
        "/dev/loop",
    ]
    .iter()
    .any(|d| s.starts_with(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places {
            home: Some(PathBuf::from("/home/dev")),
            cwd: PathBuf::from("/home/dev/project"),
            ..Places::default()
        }
    }

    #[test]
    fn knows_homes_and_system_roots() {
        let p = places();
        for h in [
            "/home/dev",
            "/home/other",
            "/root",
            "/var/home/u",
            "/Users/u",
        ] {
            assert!(p.is_home_root(Path::new(h)), "{h}");
        }
        for not in ["/home", "/home/dev/x", "/var/home", "/"] {
            assert!(!p.is_home_root(Path::new(not)), "{not}");
        }
        assert!(p.system_root(Path::new("/etc")).is_some());
        assert!(p.system_root(Path::new("/etc/nginx")).is_none());
        assert!(p.system_root(Path::new("/")).is_some());
    }

    #[test]
    fn knows_profiles_ssh_secrets_and_artifacts() {
        let p = places();
        assert!(p.profile(Path::new("/home/dev/.bashrc")).is_some());
        assert!(p.profile(Path::new("/root/.zshrc")).is_some());
        assert!(
            p.profile(Path::new("/home/dev/project/dotfiles/.bashrc"))
                .is_none()
        );
        assert!(p.profile(Path::new("/home/dev/.bashrc.bak")).is_none());
        assert!(p.ssh(Path::new("/root/.ssh/authorized_keys")).is_some());
        assert!(p.ssh(Path::new("/home/dev/.ssh/known_hosts")).is_none());
        assert!(p.secret(Path::new("/home/dev/.ssh/id_ed25519")).is_some());
        assert!(p.secret(Path::new("/home/dev/.aws/credentials")).is_some());
        assert!(p.secret(Path::new("/home/dev/other/.env")).is_some());
        assert!(p.secret(Path::new("/home/dev/project/.env")).is_none());
        assert!(p.secret(Path::new("/home/dev/.gitconfig")).is_none());
        assert!(p.artifact(Path::new("/home/dev/project/build")).is_some());
        assert!(
            p.artifact(Path::new("/home/dev/project/build/etc"))
                .is_some()
        );
        assert!(p.artifact(Path::new("/home/dev/project/a.o")).is_some());
        assert!(p.artifact(Path::new("/home/dev/project/src")).is_none());
        assert!(p.artifact(Path::new("/home/dev/build")).is_none());
        assert_eq!(artifact_name("*.o"), Some("object files"));
        assert_eq!(artifact_name("__pycache__"), Some("Python bytecode"));
        assert_eq!(artifact_name("*.bak"), None);
    }
}
