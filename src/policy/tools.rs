//! What each known program is, for the allow tiers: something that only
//! steers the shell (neutral), a read-only tool, routine project work, or
//! something the classifier must judge (network, other users, clusters,
//! databases, package runners …). A table with a reason per entry;
//! programs with subcommands get a small function. File effects are not
//! judged here (the analysis records them and `mod.rs` checks them): a
//! class only says what the program does besides the files it names.

use std::path::Path;

use super::git;
use super::places::Places;
use crate::shell::analysis::CommandInfo;

/// What a command is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    /// Only steers the shell or runs another command the analysis sees
    /// (`cd`, `export`, `timeout`, `bash -c`, `xargs` …).
    Neutral,
    /// Reads and prints.
    ReadOnly,
    /// Project work that changes files only inside the working directory.
    Routine,
    /// The classifier must judge it: why.
    Review(String),
}

/// A command as the tables see it.
#[derive(Debug)]
pub struct Call<'a> {
    /// Basename of argv[0].
    pub name: &'a str,
    /// The arguments: literal text, or None.
    pub args: Vec<Option<&'a str>>,
    pub places: &'a Places,
    pub command: &'a CommandInfo,
    /// Its output goes into a pipe (to the next command).
    pub piped: bool,
}

impl Call<'_> {
    fn lit(&self, i: usize) -> Option<&str> {
        self.args.get(i).copied().flatten()
    }

    /// The arguments before a literal `--` (after it, they are the
    /// program's or file names).
    fn own_args(&self) -> &[Option<&str>] {
        let end = self
            .args
            .iter()
            .position(|a| *a == Some("--"))
            .unwrap_or(self.args.len());
        &self.args[..end]
    }

    /// Any argument equal to one of these (or `--x=…` for long ones).
    fn has(&self, options: &[&str]) -> bool {
        self.own_args().iter().flatten().any(|a| {
            options.iter().any(|o| {
                a == o
                    || (o.starts_with("--")
                        && a.strip_prefix(o).is_some_and(|r| r.starts_with('=')))
            })
        })
    }

    /// A short flag given alone or in a combined group (`-sSk`).
    fn short(&self, flag: char) -> bool {
        self.own_args().iter().flatten().any(|a| {
            a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && a[1..].contains(flag)
        })
    }

    /// The first operand (not an option).
    fn first_operand(&self) -> Option<&str> {
        self.args
            .iter()
            .flatten()
            .find(|a| !a.starts_with('-'))
            .copied()
    }

    /// Values of a path option (`-o X`, `-oX`, `--out X`, `--out=X`).
    fn option_values(&self, option: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.args.len() {
            match self.args[i] {
                Some(a) if a == option => {
                    match self.lit(i + 1) {
                        Some(v) => out.push(v.to_string()),
                        None => out.push(String::new()),
                    }
                    i += 1;
                }
                Some(a) if option.starts_with("--") && a.starts_with(&format!("{option}=")) => {
                    out.push(a[option.len() + 1..].to_string());
                }
                Some(a)
                    if option.len() == 2
                        && !option.starts_with("--")
                        && a.starts_with(option)
                        && a.len() > 2 =>
                {
                    out.push(a[2..].to_string());
                }
                _ => {}
            }
            i += 1;
        }
        out
    }

    /// Review unless every value of these path options is inside the
    /// working directory.
    fn outputs_inside(&self, options: &[&str]) -> Option<Class> {
        for o in options {
            for v in self.option_values(o) {
                if v.is_empty() || !inside(self.places, &v) {
                    return Some(Class::Review(format!(
                        "{} {o} {} writes outside the working directory",
                        self.name,
                        if v.is_empty() { "<dynamic>" } else { &v }
                    )));
                }
            }
        }
        None
    }

    /// Any argument (or inner command word) is dynamic.
    fn any_dynamic(&self) -> bool {
        self.args.iter().any(Option::is_none)
    }
}

/// Is this path (relative to the working directory) inside it?
pub fn inside(places: &Places, p: &str) -> bool {
    let p = p.strip_prefix("file:").unwrap_or(p);
    let abs = if let Some(rest) = p.strip_prefix("~/") {
        match &places.home {
            Some(h) => h.join(rest),
            None => return false,
        }
    } else {
        places.cwd.join(p)
    };
    let resolved = crate::shell::paths::resolve(Path::new("/"), &abs.to_string_lossy()).0;
    resolved.starts_with(&places.cwd)
}

fn review(why: &str) -> Class {
    Class::Review(why.to_string())
}

/// How a table row judges.
#[derive(Clone, Copy)]
enum Judge {
    Neutral,
    ReadOnly,
    Routine,
    Review,
    By(fn(&Call<'_>) -> Class),
}

struct Tool {
    names: &'static [&'static str],
    judge: Judge,
    reason: &'static str,
}

const fn tool(names: &'static [&'static str], judge: Judge, reason: &'static str) -> Tool {
    Tool {
        names,
        judge,
        reason,
    }
}

/// The table. Order does not matter; a name appears once.
const TOOLS: &[Tool] = &[
    // Shell builtins and wrappers whose inner command the analysis sees.
    tool(
        &[
            "cd",
            "pushd",
            "popd",
            "dirs",
            "export",
            "set",
            "unset",
            "local",
            "declare",
            "typeset",
            "readonly",
            "shift",
            "exit",
            "return",
            "true",
            "false",
            ":",
            "test",
            "[",
            "[[",
            "wait",
            "source",
            ".",
            "eval",
            "exec",
            "command",
            "builtin",
            "read",
            "getopts",
            "let",
            "umask",
            "ulimit",
            "break",
            "continue",
            "jobs",
            "disown",
            "bg",
            "fg",
            "hash",
            "shopt",
            "trap",
            "alias",
            "unalias",
            "mapfile",
            "readarray",
            "caller",
            "times",
            "enable",
            "logout",
        ],
        Judge::Neutral,
        "shell builtins: steer this shell; what they run or change is analysed",
    ),
    tool(
        &[
            "nohup", "nice", "ionice", "time", "timeout", "stdbuf", "setsid", "xargs", "flock",
            "watch", "parallel", "taskset", "unbuffer", "chronic", "ifne",
        ],
        Judge::Neutral,
        "wrappers: the command they run is analysed and judged on its own",
    ),
    tool(
        &["bash", "sh", "dash", "ash", "rbash", "posh", "busybox"],
        Judge::By(shell),
        "shells: the script they run is analysed",
    ),
    tool(
        &[
            "zsh", "ksh", "ksh93", "mksh", "pdksh", "yash", "fish", "csh", "tcsh",
        ],
        Judge::Review,
        "a shell whose grammar is not bash's",
    ),
    // Read-only tools.
    tool(
        &[
            "echo",
            "printf",
            "cat",
            "tac",
            "head",
            "tail",
            "less",
            "more",
            "most",
            "wc",
            "grep",
            "egrep",
            "fgrep",
            "zgrep",
            "zcat",
            "bzcat",
            "xzcat",
            "zless",
            "rg",
            "ag",
            "ack",
            "ls",
            "dir",
            "vdir",
            "stat",
            "file",
            "du",
            "df",
            "diff",
            "cmp",
            "comm",
            "uniq",
            "cut",
            "tr",
            "nl",
            "fold",
            "fmt",
            "column",
            "paste",
            "join",
            "expand",
            "unexpand",
            "rev",
            "od",
            "xxd",
            "hexdump",
            "strings",
            "base64",
            "base32",
            "basenc",
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "sum",
            "basename",
            "dirname",
            "realpath",
            "readlink",
            "pwd",
            "whoami",
            "id",
            "groups",
            "logname",
            "hostname",
            "uname",
            "arch",
            "nproc",
            "free",
            "uptime",
            "cal",
            "which",
            "type",
            "whereis",
            "locale",
            "tty",
            "seq",
            "sleep",
            "awk",
            "gawk",
            "mawk",
            "nawk",
            "jq",
            "gojq",
            "fx",
            "tree",
            "lsof",
            "ps",
            "pgrep",
            "pstree",
            "pidof",
            "top",
            "htop",
            "vmstat",
            "iostat",
            "lscpu",
            "lsblk",
            "lsusb",
            "lspci",
            "lsmod",
            "getconf",
            "man",
            "info",
            "apropos",
            "whatis",
            "journalctl",
            "dmesg",
            "w",
            "who",
            "last",
            "users",
            "getent",
            "numfmt",
            "factor",
            "expr",
            "bc",
            "dc",
            "yes",
            "shuf",
            "look",
            "tsort",
            "ldd",
            "nm",
            "objdump",
            "readelf",
            "size",
            "lipo",
            "otool",
            "file",
            "tokei",
            "cloc",
            "scc",
            "wc",
            "bat",
            "batcat",
            "fd",
            "fdfind",
            "exa",
            "eza",
            "lsd",
            "delta",
            "difftool",
            "colordiff",
            "hexyl",
            "glow",
            "mdcat",
            "dust",
            "duf",
            "procs",
            "btm",
            "ncdu",
            "sqlite3_analyzer",
            "locate",
            "mlocate",
            "plocate",
            "cksum",
            "history",
            "xmllint",
            "csvlook",
            "csvcut",
            "csvstat",
            "mediainfo",
            "exiftool",
            "identify",
            "pdfinfo",
            "pdftotext",
            "iconv",
            "dos2unix_check",
            "sha1",
            "md5",
            "shasum",
            "printenv",
            "env",
            "date",
            "find",
            "sed",
            "gsed",
            "sort",
            "tee",
            "uname",
        ],
        Judge::By(read_only),
        "read and print (options that write are judged by their file effects)",
    ),
    // Routine file work: the analysis records the files; mod.rs checks
    // they stay inside the working directory.
    tool(
        &[
            "cp", "mv", "mkdir", "touch", "ln", "install", "rmdir", "rm", "unlink", "chmod",
            "chown", "chgrp", "tar", "gtar", "bsdtar", "split", "csplit", "mktemp",
        ],
        Judge::Routine,
        "file utilities: their targets are checked to stay inside the working directory",
    ),
    tool(
        &[
            "unzip", "zip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd",
            "lz4", "7z", "7za", "pigz", "brotli",
        ],
        Judge::By(archiver),
        "archivers: their output must stay inside the working directory",
    ),
    tool(
        &["patch"],
        Judge::By(patch),
        "applies a diff to files in the working directory",
    ),
    tool(
        &["truncate", "shred", "wipe", "srm"],
        Judge::Review,
        "destroys file contents",
    ),
    tool(
        &["dd"],
        Judge::By(dd),
        "copies raw data; its output file is checked",
    ),
    tool(&["sync"], Judge::ReadOnly, "flushes file system buffers"),
    // Build, test, lint and format tools.
    tool(
        &["cargo"],
        Judge::By(cargo),
        "Rust builds, tests and dependency management",
    ),
    tool(
        &[
            "rustc",
            "gcc",
            "g++",
            "cc",
            "c++",
            "clang",
            "clang++",
            "javac",
            "kotlinc",
            "swiftc",
            "zig",
            "tcc",
            "ld",
            "as",
            "nasm",
            "ghc",
            "ocamlfind",
            "gfortran",
            "go-bindata",
            "protoc",
            "flatc",
            "thrift",
            "wasm-pack",
            "emcc",
        ],
        Judge::By(compiler),
        "compilers: their output file is checked",
    ),
    tool(
        &["npm", "pnpm", "yarn", "bun"],
        Judge::By(node_pm),
        "JavaScript package managers",
    ),
    tool(&["pip", "pip3"], Judge::By(pip), "Python package installer"),
    tool(
        &["python", "python2", "python3", "pypy", "pypy3"],
        Judge::By(python),
        "Python",
    ),
    tool(&["node", "nodejs"], Judge::By(node), "Node.js"),
    tool(&["deno"], Judge::By(deno), "Deno"),
    tool(&["go"], Judge::By(go), "Go builds, tests and modules"),
    tool(
        &["make", "gmake", "bmake", "ninja", "mk"],
        Judge::By(make),
        "runs the project's build rules",
    ),
    tool(
        &[
            "cmake",
            "meson",
            "scons",
            "bazel",
            "bazelisk",
            "buck",
            "buck2",
            "pants",
            "ctest",
            "autoreconf",
            "autoconf",
            "automake",
            "aclocal",
            "libtoolize",
            "configure",
        ],
        Judge::By(build_system),
        "build systems",
    ),
    tool(
        &[
            "mvn",
            "mvnw",
            "gradle",
            "gradlew",
            "ant",
            "sbt",
            "lein",
            "mill",
            "dotnet",
            "msbuild",
            "swift",
            "xcodebuild",
            "mix",
            "rebar3",
            "dune",
            "opam_build",
            "stack",
            "cabal",
            "nimble",
            "dub",
            "zef",
            "composer",
            "elixir",
            "erl",
        ],
        Judge::By(jvm_and_co),
        "builds and tests of other ecosystems",
    ),
    tool(
        &["bundle", "bundler"],
        Judge::By(bundle),
        "Ruby dependency manager",
    ),
    tool(&["rake", "rails"], Judge::By(rails), "Ruby tasks"),
    tool(
        &[
            "poetry",
            "uv",
            "pdm",
            "hatch",
            "pipenv",
            "rye",
            "conda",
            "mamba",
            "micromamba",
            "virtualenv",
            "pyenv",
        ],
        Judge::By(python_pm),
        "Python project managers",
    ),
    tool(
        &[
            "pytest",
            "py.test",
            "tox",
            "nox",
            "jest",
            "vitest",
            "mocha",
            "ava",
            "karma",
            "playwright",
            "cypress",
            "rspec",
            "phpunit",
            "pest",
            "bats",
            "shellspec",
            "nextest",
            "behave",
            "unittest",
            "ward",
            "hypothesis",
            "coverage",
            "nyc",
            "c8",
        ],
        Judge::Routine,
        "test runners run the project's tests",
    ),
    tool(
        &[
            "tsc",
            "eslint",
            "prettier",
            "black",
            "ruff",
            "isort",
            "flake8",
            "pylint",
            "mypy",
            "pyright",
            "pyflakes",
            "pycodestyle",
            "pydocstyle",
            "bandit",
            "autopep8",
            "yapf",
            "gofmt",
            "goimports",
            "golint",
            "golangci-lint",
            "staticcheck",
            "revive",
            "rustfmt",
            "clippy-driver",
            "clang-format",
            "clang-tidy",
            "cppcheck",
            "shellcheck",
            "shfmt",
            "stylelint",
            "biome",
            "rome",
            "dprint",
            "taplo",
            "yamllint",
            "markdownlint",
            "markdownlint-cli2",
            "hadolint",
            "actionlint",
            "tflint",
            "rubocop",
            "standardrb",
            "swiftlint",
            "swiftformat",
            "ktlint",
            "detekt",
            "checkstyle",
            "spotless",
            "buf",
            "sqlfluff",
            "djlint",
            "codespell",
            "typos",
            "vale",
            "editorconfig-checker",
            "commitlint",
            "lint-staged",
            "husky",
            "pre-commit",
            "tsx",
            "ts-node",
            "esbuild",
            "vite",
            "webpack",
            "rollup",
            "parcel",
            "turbo",
            "nx",
            "lerna",
            "babel",
            "swc",
            "next",
            "nuxt",
            "astro",
            "svelte-kit",
            "ng",
            "storybook",
            "sass",
            "lessc",
            "postcss",
            "tailwindcss",
            "uglifyjs",
            "terser",
            "mkdocs",
            "sphinx-build",
            "jekyll",
            "hugo",
            "zola",
            "mdbook",
            "doxygen",
            "javadoc",
            "rustdoc",
            "cargo-fmt",
            "wasm-bindgen",
            "maturin",
            "twine_check",
            "gem2nix",
        ],
        Judge::By(dev_tool),
        "linters, formatters, bundlers and generators work on the project's files",
    ),
    tool(
        &["docker", "podman", "nerdctl"],
        Judge::By(containers),
        "containers",
    ),
    tool(&["docker-compose"], Judge::By(compose), "containers"),
    tool(
        &[
            "kubectl",
            "oc",
            "k9s",
            "kubectx",
            "kubens",
            "minikube",
            "kind",
            "k3d",
            "kustomize",
        ],
        Judge::By(kubectl),
        "Kubernetes clusters",
    ),
    tool(&["helm"], Judge::By(helm), "Kubernetes releases"),
    tool(
        &["terraform", "tofu", "terragrunt"],
        Judge::By(terraform),
        "infrastructure",
    ),
    tool(
        &[
            "pulumi",
            "cdk",
            "sam",
            "serverless",
            "sls",
            "ansible",
            "ansible-playbook",
            "vagrant",
            "packer",
            "nomad",
            "consul",
            "vault",
            "flyctl",
            "fly",
            "heroku",
            "vercel",
            "netlify",
            "firebase",
            "wrangler",
            "doctl",
            "linode-cli",
            "eksctl",
            "gsutil",
            "bq",
            "az",
            "gcloud",
            "aws",
            "s3cmd",
            "rclone",
            "mc",
        ],
        Judge::Review,
        "cloud and infrastructure tools change or reach remote systems",
    ),
    tool(
        &["curl", "wget", "http", "https", "xh", "curlie", "aria2c"],
        Judge::By(fetch),
        "network transfer",
    ),
    tool(
        &[
            "ssh",
            "scp",
            "sftp",
            "rsync",
            "nc",
            "ncat",
            "netcat",
            "socat",
            "telnet",
            "ftp",
            "lftp",
            "tftp",
            "mosh",
            "rlogin",
            "rsh",
            "sshpass",
            "autossh",
            "ssh-copy-id",
            "ngrok",
            "cloudflared",
            "tailscale",
            "ping",
            "traceroute",
            "tracepath",
            "mtr",
            "dig",
            "nslookup",
            "host",
            "whois",
            "nmap",
            "masscan",
            "tcpdump",
            "tshark",
            "wireshark",
            "iperf",
            "iperf3",
            "openvpn",
            "wg",
            "wg-quick",
            "mail",
            "sendmail",
            "mutt",
            "smbclient",
            "gh",
            "glab",
            "hub",
            "tea",
            "git-lfs",
        ],
        Judge::By(network),
        "network tools reach other machines",
    ),
    tool(
        &[
            "psql",
            "mysql",
            "mariadb",
            "sqlite3",
            "sqlite",
            "mongo",
            "mongosh",
            "redis-cli",
            "dropdb",
            "createdb",
            "pg_dump",
            "pg_restore",
            "pg_dumpall",
            "mysqldump",
            "mysqladmin",
            "cqlsh",
            "clickhouse-client",
            "influx",
            "sqlcmd",
            "duckdb",
            "litecli",
            "pgcli",
            "mycli",
            "usql",
            "prisma",
            "sequelize",
            "knex",
            "alembic",
            "flyway",
            "liquibase",
            "diesel",
            "sqlx",
            "dbmate",
            "goose",
            "migrate",
            "atlas",
        ],
        Judge::By(database),
        "databases hold data that may not be recoverable",
    ),
    tool(
        &["npx", "bunx", "pnpx", "uvx", "pipx", "dlx"],
        Judge::Review,
        "ephemeral package runners download and run code",
    ),
    tool(
        &[
            "sudo",
            "doas",
            "su",
            "pkexec",
            "runuser",
            "sg",
            "newgrp",
            "chroot",
            "unshare",
            "nsenter",
            "machinectl",
            "systemd-run",
            "capsh",
            "setpriv",
        ],
        Judge::Review,
        "runs a command as another user or with other privileges",
    ),
    tool(
        &[
            "systemctl",
            "service",
            "launchctl",
            "rc-service",
            "initctl",
            "sv",
        ],
        Judge::By(services),
        "system services",
    ),
    tool(&["crontab"], Judge::By(crontab), "scheduled jobs"),
    tool(
        &["kill", "pkill", "killall", "xkill", "skill", "renice"],
        Judge::Review,
        "signals or re-prioritises other processes",
    ),
    tool(
        &[
            "shutdown",
            "reboot",
            "halt",
            "poweroff",
            "init",
            "telinit",
            "systemd-inhibit",
        ],
        Judge::Review,
        "stops or restarts the machine",
    ),
    tool(
        &[
            "apt",
            "apt-get",
            "aptitude",
            "dpkg",
            "dnf",
            "yum",
            "rpm",
            "zypper",
            "pacman",
            "yay",
            "paru",
            "apk",
            "emerge",
            "xbps-install",
            "nix-env",
            "nix",
            "brew",
            "port",
            "snap",
            "flatpak",
            "choco",
            "winget",
            "scoop",
            "mas",
            "softwareupdate",
            "gem",
            "cpan",
            "cpanm",
            "luarocks",
            "opam",
            "ghcup",
            "rustup",
            "sdk",
            "asdf",
            "mise",
            "nvm",
            "fnm",
            "volta",
            "n",
            "corepack",
        ],
        Judge::By(system_pm),
        "system and user-wide package managers install outside the project",
    ),
    tool(
        &[
            "mount",
            "umount",
            "losetup",
            "cryptsetup",
            "swapon",
            "swapoff",
            "sysctl",
            "modprobe",
            "insmod",
            "rmmod",
            "iptables",
            "ip6tables",
            "nft",
            "ufw",
            "firewall-cmd",
            "ip",
            "ifconfig",
            "route",
            "nmcli",
            "hostnamectl",
            "timedatectl",
            "localectl",
            "useradd",
            "userdel",
            "usermod",
            "groupadd",
            "groupdel",
            "passwd",
            "chpasswd",
            "chsh",
            "chfn",
            "visudo",
            "setfacl",
            "chattr",
            "setcap",
            "mknod",
            "mkswap",
            "fdisk",
            "sfdisk",
            "gdisk",
            "parted",
            "wipefs",
            "mkfs",
            "hdparm",
            "blkdiscard",
            "fsck",
            "e2fsck",
            "tune2fs",
            "resize2fs",
            "lvm",
            "mdadm",
            "zpool",
            "zfs",
            "btrfs",
            "debugfs",
            "auditctl",
            "setenforce",
            "aa-disable",
            "csrutil",
            "spctl",
            "tccutil",
            "defaults",
            "scutil",
            "networksetup",
            "pmset",
            "diskutil",
            "dscl",
            "kextload",
        ],
        Judge::Review,
        "changes the system outside the project",
    ),
    tool(
        &[
            "security",
            "gpg",
            "gpg2",
            "pass",
            "op",
            "bw",
            "lpass",
            "keepassxc-cli",
            "secret-tool",
            "keyctl",
            "age",
            "sops",
            "ssh-add",
            "ssh-agent",
        ],
        Judge::By(secrets),
        "keys, keychains and password stores",
    ),
    tool(
        &[
            "ssh-keygen",
            "openssl",
            "certutil",
            "keytool",
            "step",
            "mkcert",
            "cfssl",
        ],
        Judge::By(keys),
        "key and certificate tools: their output files are checked",
    ),
    tool(
        &[
            "open",
            "xdg-open",
            "gio",
            "start",
            "explorer.exe",
            "osascript",
            "xdotool",
            "pbcopy",
            "pbpaste",
            "xclip",
            "xsel",
            "wl-copy",
            "wl-paste",
            "notify-send",
            "say",
        ],
        Judge::Review,
        "reaches the desktop session",
    ),
    tool(
        &[
            "vim",
            "vi",
            "nvim",
            "view",
            "ex",
            "nano",
            "emacs",
            "emacsclient",
            "code",
            "subl",
            "gedit",
            "kate",
            "micro",
            "helix",
            "hx",
            "joe",
            "ed",
        ],
        Judge::Review,
        "editors are interactive (stdin is closed)",
    ),
    tool(&["automode"], Judge::By(automode), "automode's own command"),
    tool(&["fc"], Judge::Review, "re-runs commands from the history"),
    tool(
        &[
            "script", "expect", "screen", "tmux", "dtach", "abduco", "byobu",
        ],
        Judge::Review,
        "terminal multiplexers and recorders run commands out of sight",
    ),
    tool(
        &[
            "perl",
            "ruby",
            "php",
            "lua",
            "luajit",
            "Rscript",
            "R",
            "julia",
            "tclsh",
            "wish",
            "guile",
            "racket",
            "sbcl",
            "clisp",
            "scala",
            "groovy",
            "kotlin",
            "jshell",
            "irb",
            "pry",
            "iex",
            "erl_shell",
            "java",
            "dotnet-script",
            "powershell",
            "pwsh",
            "cscript",
            "wscript",
        ],
        Judge::By(interpreter),
        "interpreters: a program file inside the project is project code",
    ),
    tool(
        &[
            "strace",
            "ltrace",
            "gdb",
            "lldb",
            "valgrind",
            "perf",
            "rr",
            "heaptrack",
        ],
        Judge::Review,
        "debuggers and tracers can change the traced program",
    ),
];

/// The table, indexed by name once.
fn index() -> &'static std::collections::HashMap<&'static str, &'static Tool> {
    static INDEX: std::sync::OnceLock<std::collections::HashMap<&'static str, &'static Tool>> =
        std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut m = std::collections::HashMap::new();
        for t in TOOLS {
            for n in t.names {
                m.entry(*n).or_insert(t);
            }
        }
        m
    })
}

/// Judge one command.
pub fn classify(call: &Call<'_>) -> Class {
    // `--version` / `--help` alone on a known name prints and exits;
    // `--help` anywhere among a known program's own options does too.
    let known = index().contains_key(call.name) || call.name == "git";
    if known
        && ((call.args.len() == 1
            && matches!(
                call.lit(0),
                Some("--version" | "-V" | "--help" | "-h" | "version" | "help")
            ))
            || call.own_args().contains(&Some("--help")))
    {
        return Class::ReadOnly;
    }
    let Some(tool) = index().get(call.name) else {
        return unknown(call);
    };
    match tool.judge {
        Judge::Neutral => Class::Neutral,
        Judge::ReadOnly => Class::ReadOnly,
        Judge::Routine => Class::Routine,
        Judge::Review => Class::Review(format!("{}: {}", call.name, tool.reason)),
        Judge::By(f) => f(call),
    }
}

/// A program not in the table: a script of the project, or unknown.
fn unknown(call: &Call<'_>) -> Class {
    let name = call.command.name().unwrap_or(call.name);
    if name.contains('/') && inside(call.places, name) {
        // Project executables (`./scripts/build.sh`, `./gradlew`,
        // `./node_modules/.bin/eslint`): shell scripts among them were
        // read and analysed; anything else is the project's own program.
        return Class::Routine;
    }
    Class::Review(format!("{name} is not a program automode knows"))
}

fn shell(call: &Call<'_>) -> Class {
    if call.name == "busybox" && call.lit(0).is_some_and(|a| a != "sh" && a != "ash") {
        return review("busybox runs an applet automode does not judge");
    }
    // No `-c` and no script file: the shell reads commands from its
    // input, which here is inherited (a shell escape).
    let script_given = call.args.iter().any(|a| {
        a.is_none_or(|t| {
            !t.starts_with('-') || (t.len() > 1 && !t.starts_with("--") && t.contains('c'))
        })
    });
    if !script_given && call.command.stdin == crate::shell::analysis::Stdin::Inherited {
        return Class::Review(format!(
            "{} starts a shell that reads commands from its input",
            call.name
        ));
    }
    Class::Neutral
}

fn read_only(call: &Call<'_>) -> Class {
    match call.name {
        "date" if call.short('s') || call.has(&["--set"]) => review("date -s sets the clock"),
        "env" | "printenv" => {
            // Printing the whole environment shows tokens; a filter after
            // it (`env | grep LANG`) or a named variable does not.
            let named = call.name == "printenv" && call.first_operand().is_some();
            let runs = call.name == "env"
                && call
                    .args
                    .iter()
                    .any(|a| a.is_none_or(|t| !t.starts_with('-') && !t.contains('=')));
            if runs {
                Class::Neutral
            } else if named || call.piped {
                Class::ReadOnly
            } else {
                Class::Review(format!(
                    "{} prints every environment variable, which may hold tokens",
                    call.name
                ))
            }
        }
        "sed" | "gsed" if call.short('i') || call.has(&["--in-place"]) => Class::Routine,
        "sort" | "tee" | "tree" | "jq" | "xmllint" | "uniq" => Class::Routine,
        "find" if call.has(&["-delete", "-fprint", "-fprintf", "-fls", "-fprint0"]) => {
            Class::Routine
        }
        "man"
            if call.args.iter().flatten().any(|a| {
                a.starts_with("-H")
                    || a.starts_with("-P")
                    || a.starts_with("--html")
                    || a.starts_with("--pager")
                    || a.starts_with("-p")
                    || a.starts_with("--preprocessor")
                    || a.starts_with("-B")
                    || a.starts_with("--browser")
            }) =>
        {
            review("man with a pager, browser or preprocessor option runs that program")
        }
        "less" | "more"
            if call
                .args
                .iter()
                .flatten()
                .any(|a| a.starts_with('+') || a.starts_with("--lesskey")) =>
        {
            review("less commands can run programs")
        }
        _ => Class::ReadOnly,
    }
}

fn archiver(call: &Call<'_>) -> Class {
    call.outputs_inside(&["-d", "-o", "--output", "-O"])
        .unwrap_or(Class::Routine)
}

fn patch(call: &Call<'_>) -> Class {
    call.outputs_inside(&["-d", "--directory", "-o", "--output", "-B", "--prefix"])
        .unwrap_or(Class::Routine)
}

fn dd(call: &Call<'_>) -> Class {
    for a in call.args.iter().flatten() {
        if let Some(of) = a.strip_prefix("of=")
            && !inside(call.places, of)
            && !matches!(of, "/dev/null" | "/dev/stdout" | "/dev/stderr")
        {
            return Class::Review(format!("dd writes {of}"));
        }
    }
    if call.any_dynamic() {
        return review("dd with arguments that are not literal");
    }
    Class::Routine
}

fn cargo(call: &Call<'_>) -> Class {
    let sub = call
        .args
        .iter()
        .flatten()
        .find(|a| !a.starts_with('-') && !a.starts_with('+'))
        .copied()
        .unwrap_or("");
    if call.has(&["--config", "-Z"]) {
        return review("cargo --config / -Z changes how cargo runs");
    }
    if let Some(c) = call.outputs_inside(&[
        "--target-dir",
        "--manifest-path",
        "--out-dir",
        "--artifact-dir",
        "--path",
        "--root",
    ]) {
        return c;
    }
    match sub {
        "install" | "uninstall" => {
            review("cargo install writes outside the project (~/.cargo/bin)")
        }
        "publish" | "yank" | "login" | "logout" | "owner" => {
            review("cargo publishes or changes registry state")
        }
        "" | "build" | "b" | "check" | "c" | "test" | "t" | "run" | "r" | "clippy" | "fmt"
        | "doc" | "d" | "bench" | "clean" | "add" | "remove" | "rm" | "update" | "tree"
        | "metadata" | "fetch" | "generate-lockfile" | "new" | "init" | "vendor" | "fix"
        | "nextest" | "llvm-cov" | "tarpaulin" | "expand" | "search" | "version"
        | "verify-project" | "locate-project" | "pkgid" | "package" | "rustc" | "rustdoc"
        | "audit" | "deny" | "outdated" | "machete" | "udeps" | "hack" | "insta" | "watch"
        | "make" | "about" | "binstall_check" | "msrv" | "semver-checks" | "mutants" | "fuzz"
        | "criterion" | "help" | "info" | "report" | "sort" => Class::Routine,
        other => Class::Review(format!(
            "cargo {other} is not a cargo command automode knows"
        )),
    }
}

fn compiler(call: &Call<'_>) -> Class {
    call.outputs_inside(&["-o", "--out-dir", "-d", "--output", "--outdir", "--out"])
        .unwrap_or(Class::Routine)
}

fn node_pm(call: &Call<'_>) -> Class {
    if call.has(&["-g", "--global", "--location=global"]) {
        return Class::Review(format!("{} -g installs outside the project", call.name));
    }
    if let Some(c) = call.outputs_inside(&[
        "--prefix",
        "--cwd",
        "--dir",
        "-C",
        "--cache",
        "--modules-folder",
    ]) {
        return c;
    }
    let ops: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let sub = ops.first().copied().unwrap_or("");
    match (call.name, sub) {
        (_, "exec" | "x" | "dlx" | "create" | "init") if sub != "init" || ops.len() > 1 => {
            Class::Review(format!("{} {sub} downloads and runs a package", call.name))
        }
        (
            _,
            "publish" | "unpublish" | "deprecate" | "dist-tag" | "owner" | "access" | "login"
            | "logout" | "adduser" | "token" | "team" | "org" | "hook" | "star" | "profile",
        ) => Class::Review(format!("{} {sub} changes registry state", call.name)),
        (_, "config" | "set" | "c") => match ops.get(1).copied() {
            Some("get" | "list" | "ls") => Class::ReadOnly,
            _ if call.name == "yarn" && ops.get(1).is_none() => Class::ReadOnly,
            _ => Class::Review(format!("{} config changes user-wide settings", call.name)),
        },
        (_, "cache") => review("the package cache lives outside the project"),
        (_, "link") if ops.len() == 1 => review("link without a package installs globally"),
        (
            _,
            "view" | "info" | "v" | "show" | "search" | "s" | "ls" | "list" | "ll" | "la"
            | "outdated" | "why" | "explain" | "bin" | "root" | "prefix" | "help" | "docs" | "repo"
            | "bugs" | "doctor" | "ping" | "fund" | "query" | "licenses" | "whoami",
        ) => Class::ReadOnly,
        ("yarn", "") | ("bun", "") => Class::Routine,
        ("npm" | "pnpm", "") => Class::ReadOnly,
        _ => Class::Routine,
    }
}

fn pip(call: &Call<'_>) -> Class {
    pip_args(call, 0)
}

/// pip's arguments from `start` (after `python -m pip` too).
fn pip_args(call: &Call<'_>, start: usize) -> Class {
    let ops: Vec<&str> = call
        .args
        .iter()
        .skip(start)
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let sub = ops.first().copied().unwrap_or("");
    if call.has(&["--user"]) {
        return review("pip --user installs outside the project");
    }
    if let Some(c) = call.outputs_inside(&[
        "--target",
        "-t",
        "--prefix",
        "--root",
        "--src",
        "-d",
        "--dest",
        "-w",
        "--wheel-dir",
    ]) {
        return c;
    }
    match sub {
        "install" | "download" | "wheel" => Class::Routine,
        "list" | "show" | "freeze" | "check" | "search" | "index" | "hash" | "debug" | "help"
        | "inspect" => Class::ReadOnly,
        "config" => match ops.get(1).copied() {
            Some("list" | "get" | "debug") => Class::ReadOnly,
            _ => review("pip config changes user-wide settings"),
        },
        "uninstall" => review("pip uninstall removes installed packages"),
        "cache" => review("the pip cache lives outside the project"),
        "" => Class::ReadOnly,
        other => Class::Review(format!("pip {other} is not a pip command automode knows")),
    }
}

/// Python modules run with `-m`: what they are.
const PYTHON_MODULES: &[(&str, Judge, &str)] = &[
    ("pytest", Judge::Routine, "runs the project's tests"),
    ("unittest", Judge::Routine, "runs the project's tests"),
    ("doctest", Judge::Routine, "runs the project's doctests"),
    ("venv", Judge::Routine, "creates a virtual environment"),
    (
        "virtualenv",
        Judge::Routine,
        "creates a virtual environment",
    ),
    ("json.tool", Judge::ReadOnly, "pretty-prints JSON"),
    ("mypy", Judge::Routine, "type checker"),
    ("black", Judge::Routine, "formatter"),
    ("ruff", Judge::Routine, "linter"),
    ("isort", Judge::Routine, "formatter"),
    ("flake8", Judge::Routine, "linter"),
    ("pylint", Judge::Routine, "linter"),
    ("coverage", Judge::Routine, "test coverage"),
    ("build", Judge::Routine, "builds the project"),
    ("compileall", Judge::Routine, "compiles the project"),
    ("py_compile", Judge::Routine, "compiles files"),
    (
        "timeit",
        Judge::ReadOnly,
        "times a snippet given on the command line",
    ),
    ("tokenize", Judge::ReadOnly, "prints tokens"),
    ("pydoc", Judge::ReadOnly, "prints documentation"),
    ("site", Judge::ReadOnly, "prints paths"),
    ("sysconfig", Judge::ReadOnly, "prints configuration"),
    ("platform", Judge::ReadOnly, "prints the platform"),
    ("tabnanny", Judge::ReadOnly, "checks indentation"),
    ("pyflakes", Judge::Routine, "linter"),
    ("pip_audit", Judge::Routine, "audits dependencies"),
    ("maturin", Judge::Routine, "builds the project"),
    ("sphinx", Judge::Routine, "builds documentation"),
    ("mkdocs", Judge::Routine, "builds documentation"),
    ("nox", Judge::Routine, "runs the project's sessions"),
    ("tox", Judge::Routine, "runs the project's environments"),
    (
        "http.server",
        Judge::Review,
        "serves files over the network",
    ),
    ("smtpd", Judge::Review, "serves over the network"),
    (
        "ensurepip",
        Judge::Review,
        "installs pip outside the project",
    ),
];

fn python(call: &Call<'_>) -> Class {
    let mut i = 0;
    while let Some(a) = call.lit(i) {
        match a {
            "-m" => {
                let module = call.lit(i + 1).unwrap_or("");
                if module == "pip" {
                    return pip_args(call, i + 2);
                }
                return match PYTHON_MODULES.iter().find(|(m, ..)| *m == module) {
                    Some((_, Judge::ReadOnly, _)) => Class::ReadOnly,
                    Some((_, Judge::Routine, _)) => Class::Routine,
                    Some((_, _, why)) => Class::Review(format!("python -m {module} {why}")),
                    None => {
                        Class::Review(format!("python -m {module} is not a module automode knows"))
                    }
                };
            }
            // Inline code: the finding is judged (mod.rs).
            "-c" => return Class::Neutral,
            "-" => return Class::Neutral,
            "-V" | "--version" | "-h" | "--help" => return Class::ReadOnly,
            _ if a.starts_with('-') => i += 1,
            file => return program_file(call, file, "python"),
        }
    }
    if call.any_dynamic() {
        return review("python with arguments that are not literal");
    }
    // No program: reads it from stdin (judged by the analysis).
    Class::Neutral
}

/// Destructive management commands of project programs.
const DESTRUCTIVE_SUBCOMMANDS: &[&str] = &[
    "flush", "sqlflush", "reset_db", "dbshell", "drop", "db:drop", "db:reset", "destroy", "purge",
    "wipe",
];

/// `python app.py`, `node server.js`, `ruby x.rb`: the project's own
/// program (inside the working directory) is project code.
fn program_file(call: &Call<'_>, file: &str, lang: &str) -> Class {
    if !inside(call.places, file) {
        return Class::Review(format!(
            "{lang} runs {file}, which is outside the working directory"
        ));
    }
    if call
        .args
        .iter()
        .flatten()
        .any(|a| DESTRUCTIVE_SUBCOMMANDS.contains(a))
    {
        return Class::Review(format!(
            "{lang} {file} runs a destructive management command"
        ));
    }
    Class::Routine
}

fn node(call: &Call<'_>) -> Class {
    let mut i = 0;
    while let Some(a) = call.lit(i) {
        match a {
            "-e" | "--eval" | "-p" | "--print" | "-" => return Class::Neutral,
            "-v" | "--version" | "-h" | "--help" => return Class::ReadOnly,
            "-r" | "--require" | "--import" | "--loader" | "--experimental-loader" => {
                return review("node --require/--import loads code before the program");
            }
            _ if a.starts_with('-') => i += 1,
            file => return program_file(call, file, "node"),
        }
    }
    if call.any_dynamic() {
        return review("node with arguments that are not literal");
    }
    Class::Neutral
}

fn interpreter(call: &Call<'_>) -> Class {
    if call.name == "java" {
        return match call.option_values("-jar").first() {
            Some(jar) => program_file(call, jar, "java"),
            None => review("java runs classes automode does not judge"),
        };
    }
    match call.first_operand() {
        Some(file)
            if call
                .args
                .first()
                .copied()
                .flatten()
                .is_some_and(|a| !a.starts_with('-')) =>
        {
            program_file(call, file, call.name)
        }
        // Options first (`perl -e`, `ruby -e`): inline code is judged by
        // its finding; anything else the classifier sees.
        _ if call.args.is_empty() => Class::Neutral,
        _ if call
            .args
            .iter()
            .flatten()
            .any(|a| matches!(*a, "-e" | "-E" | "-r")) =>
        {
            Class::Neutral
        }
        _ => Class::Review(format!(
            "{} with options automode does not judge",
            call.name
        )),
    }
}

fn deno(call: &Call<'_>) -> Class {
    if call
        .args
        .iter()
        .flatten()
        .any(|a| a.contains("://") || a.starts_with("npm:") || a.starts_with("jsr:"))
    {
        return review("deno runs code from the network");
    }
    match call.first_operand() {
        Some("install" | "upgrade" | "uninstall" | "publish" | "compile") => {
            review("deno installs or publishes")
        }
        Some("eval" | "repl") => review("deno eval runs inline code"),
        _ => Class::Routine,
    }
}

fn go(call: &Call<'_>) -> Class {
    if let Some(c) = call.outputs_inside(&["-o", "-C", "-modfile", "-pkgdir"]) {
        return c;
    }
    match call.first_operand().unwrap_or("") {
        "install" => review("go install writes outside the project (GOBIN)"),
        "env" if call.has(&["-w", "-u"]) => review("go env -w changes user-wide settings"),
        "env" | "version" | "list" | "doc" | "help" => Class::ReadOnly,
        "build" | "test" | "vet" | "fmt" | "mod" | "run" | "generate" | "get" | "clean"
        | "work" | "fix" | "tool" | "bug_" => Class::Routine,
        other => Class::Review(format!("go {other} is not a go command automode knows")),
    }
}

fn make(call: &Call<'_>) -> Class {
    if call.has(&["--eval", "-E"])
        || call
            .own_args()
            .iter()
            .flatten()
            .any(|a| a.starts_with("--eval=") || (a.starts_with("-E") && a.len() > 2))
    {
        return review("make --eval runs inline make code");
    }
    if let Some(c) = call.outputs_inside(&["-C", "--directory", "-f", "--file", "--makefile"]) {
        return c;
    }
    let targets: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-') && !a.contains('='))
        .copied()
        .collect();
    if let Some(t) = targets.iter().find(|t| {
        matches!(
            **t,
            "install" | "uninstall" | "deploy" | "publish" | "release" | "push" | "upload"
        )
    }) {
        return Class::Review(format!("make {t} reaches beyond the project"));
    }
    Class::Routine
}

fn build_system(call: &Call<'_>) -> Class {
    if call.has(&["--install"]) || call.first_operand() == Some("install") {
        return Class::Review(format!("{} install writes outside the project", call.name));
    }
    call.outputs_inside(&["-B", "-S", "--build", "--prefix", "-C"])
        .unwrap_or(Class::Routine)
}

fn jvm_and_co(call: &Call<'_>) -> Class {
    let ops: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    if let Some(t) = ops.iter().find(|t| {
        matches!(
            **t,
            "deploy"
                | "publish"
                | "release"
                | "upload"
                | "publishToMavenCentral"
                | "nuget"
                | "push"
        )
    }) {
        return Class::Review(format!("{} {t} publishes", call.name));
    }
    if call.name == "composer" && ops.first() == Some(&"global") {
        return review("composer global installs outside the project");
    }
    if call.name == "composer" && ops.first() == Some(&"config") && ops.len() > 2 {
        return review("composer config changes settings");
    }
    if call.name == "dotnet"
        && matches!(ops.first(), Some(&"tool"))
        && call.has(&["-g", "--global"])
    {
        return review("dotnet tool -g installs outside the project");
    }
    Class::Routine
}

fn bundle(call: &Call<'_>) -> Class {
    match call.first_operand().unwrap_or("install") {
        "install" | "update" | "lock" | "check" | "list" | "show" | "outdated" | "info" | "add"
        | "remove" | "binstubs" | "clean" | "doctor" | "licenses" | "platform" | "init" => {
            if call.has(&["--system", "--path"]) {
                review("bundle installs outside the project")
            } else {
                Class::Routine
            }
        }
        // `bundle exec X`: the analysis does not see X as a command.
        "exec" => match call
            .args
            .iter()
            .flatten()
            .filter(|a| !a.starts_with('-'))
            .nth(1)
            .copied()
        {
            Some(
                "rspec" | "rake" | "rails" | "rubocop" | "standardrb" | "jekyll" | "pod"
                | "fastlane_test",
            ) => rails_like(call),
            _ => review("bundle exec runs a program automode does not judge"),
        },
        "config" => review("bundle config changes settings"),
        other => Class::Review(format!(
            "bundle {other} is not a bundler command automode knows"
        )),
    }
}

fn rails_like(call: &Call<'_>) -> Class {
    if call.args.iter().flatten().any(|a| {
        a.starts_with("db:drop")
            || a.starts_with("db:reset")
            || a.starts_with("db:schema:load")
            || a.starts_with("db:purge")
            || *a == "db:rollback"
            || a.starts_with("db:truncate")
    }) {
        return review("destroys database contents");
    }
    Class::Routine
}

fn rails(call: &Call<'_>) -> Class {
    match call.first_operand() {
        Some("server" | "s") => review("rails server listens on the network"),
        Some("console" | "c" | "dbconsole" | "db" | "runner" | "r") => {
            review("rails console/runner runs code automode does not see")
        }
        _ => rails_like(call),
    }
}

fn python_pm(call: &Call<'_>) -> Class {
    let ops: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let sub = ops.first().copied().unwrap_or("");
    let second = ops.get(1).copied().unwrap_or("");
    match (call.name, sub) {
        (_, "publish" | "upload") => {
            Class::Review(format!("{} publish uploads the package", call.name))
        }
        ("uv", "tool") | ("pdm" | "hatch" | "rye", "self" | "global") | ("poetry", "self") => {
            Class::Review(format!("{} {sub} installs outside the project", call.name))
        }
        ("uv", "python") if !matches!(second, "list" | "find" | "dir") => {
            review("uv python installs interpreters outside the project")
        }
        ("uv", "pip") => pip_args(
            call,
            call.args
                .iter()
                .position(|a| *a == Some("pip"))
                .map_or(0, |p| p + 1),
        ),
        ("uv", "run") | ("poetry" | "pdm" | "hatch" | "pipenv" | "rye", "run") => {
            run_inner(call, sub)
        }
        ("conda" | "mamba" | "micromamba", "config") => {
            review("conda config changes user-wide settings")
        }
        (
            "conda" | "mamba" | "micromamba",
            "install" | "create" | "remove" | "update" | "env" | "clean" | "activate"
            | "deactivate" | "run",
        ) => {
            if call.has(&["-p", "--prefix"]) && call.outputs_inside(&["-p", "--prefix"]).is_none() {
                Class::Routine
            } else {
                Class::Review(format!(
                    "{} {sub} changes environments outside the project",
                    call.name
                ))
            }
        }
        ("conda" | "mamba" | "micromamba", "list" | "info" | "search") => Class::ReadOnly,
        ("pyenv", "versions" | "version" | "which" | "root" | "prefix" | "local") => Class::Routine,
        ("pyenv", _) => review("pyenv changes interpreters outside the project"),
        ("poetry", "config") if ops.len() > 2 || call.has(&["--unset"]) => {
            review("poetry config changes settings")
        }
        (_, "shell") => Class::Review(format!("{} shell starts an interactive shell", call.name)),
        _ => Class::Routine,
    }
}

/// `uv run pytest`, `poetry run black .`: judge the program it runs.
fn run_inner(call: &Call<'_>, sub: &str) -> Class {
    let pos = call
        .args
        .iter()
        .position(|a| *a == Some(sub))
        .map_or(0, |p| p + 1);
    let mut rest = pos;
    while call.lit(rest).is_some_and(|a| a.starts_with('-')) {
        rest += 1;
    }
    let Some(program) = call.lit(rest) else {
        return Class::Review(format!(
            "{} {sub} runs a program that is not literal",
            call.name
        ));
    };
    let inner = Call {
        name: program.rsplit('/').next().unwrap_or(program),
        args: call.args[rest + 1..].to_vec(),
        places: call.places,
        command: call.command,
        piped: call.piped,
    };
    match classify(&inner) {
        Class::Neutral => Class::Review(format!(
            "{} {sub} {program}: a shell or wrapper automode does not follow here",
            call.name
        )),
        other => other,
    }
}

fn dev_tool(call: &Call<'_>) -> Class {
    // Formatters and fixers rewrite their operands: they must be inside.
    let writes = call.has(&[
        "-w",
        "--write",
        "--fix",
        "-i",
        "--in-place",
        "--inplace",
        "format",
        "fmt",
    ]) || matches!(
        call.name,
        "black"
            | "isort"
            | "rustfmt"
            | "autopep8"
            | "yapf"
            | "shfmt"
            | "clang-format"
            | "prettier"
            | "dprint"
            | "taplo"
            | "swiftformat"
            | "ktlint"
    );
    if writes {
        for a in call.args.iter().flatten().filter(|a| !a.starts_with('-')) {
            if (a.contains('/') || a.starts_with('.') || a.starts_with('~'))
                && !inside(call.places, a)
            {
                return Class::Review(format!(
                    "{} rewrites {a}, outside the working directory",
                    call.name
                ));
            }
        }
    }
    if let Some(c) = call.outputs_inside(&[
        "-o",
        "--out",
        "--outDir",
        "--out-dir",
        "--outdir",
        "--output",
        "-d",
        "--dist-dir",
        "--outFile",
        "--out-file",
        "--cache-dir",
        "--cache-location",
    ]) {
        return c;
    }
    if call.name == "pre-commit"
        && call
            .first_operand()
            .is_some_and(|s| matches!(s, "install-hooks" | "init-templatedir"))
    {
        return review("pre-commit installs hooks outside the project");
    }
    Class::Routine
}

fn containers(call: &Call<'_>) -> Class {
    let ops: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let sub = ops.first().copied().unwrap_or("");
    match sub {
        "ps" | "images" | "image"
            if matches!(
                ops.get(1).copied(),
                None | Some("ls" | "list" | "inspect" | "history")
            ) =>
        {
            Class::ReadOnly
        }
        "ps" | "images" | "version" | "info" | "inspect" | "logs" | "history" | "top" | "port"
        | "stats" | "diff" | "search" => Class::ReadOnly,
        "build" | "buildx" if !call.has(&["--push", "--output", "-o"]) => Class::Routine,
        "compose" => compose_sub(call, ops.get(1).copied().unwrap_or("")),
        _ => Class::Review(format!(
            "{} {sub} changes containers, images or volumes",
            call.name
        )),
    }
}

fn compose(call: &Call<'_>) -> Class {
    compose_sub(call, call.first_operand().unwrap_or(""))
}

fn compose_sub(call: &Call<'_>, sub: &str) -> Class {
    match sub {
        "ps" | "logs" | "config" | "ls" | "images" | "top" | "version" | "port" => Class::ReadOnly,
        "build" => Class::Routine,
        _ => Class::Review(format!("{} compose {sub} changes containers", call.name)),
    }
}

fn kubectl(call: &Call<'_>) -> Class {
    let ops: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    if ops.iter().any(|o| {
        o.starts_with("secret")
            || o.contains("/secret")
            || *o == "exec"
            || *o == "cp"
            || *o == "port-forward"
            || *o == "proxy"
    }) {
        return Class::Review(format!(
            "{} reads secrets or reaches into the cluster",
            call.name
        ));
    }
    match (
        ops.first().copied().unwrap_or(""),
        ops.get(1).copied().unwrap_or(""),
    ) {
        (
            "get" | "describe" | "logs" | "explain" | "version" | "api-resources" | "api-versions"
            | "top" | "cluster-info" | "diff" | "auth",
            _,
        ) => Class::ReadOnly,
        ("config", "view" | "get-contexts" | "current-context" | "get-clusters" | "get-users") => {
            Class::ReadOnly
        }
        (sub, _) => Class::Review(format!("{} {sub} changes cluster state", call.name)),
    }
}

fn helm(call: &Call<'_>) -> Class {
    let ops: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    match (
        ops.first().copied().unwrap_or(""),
        ops.get(1).copied().unwrap_or(""),
    ) {
        (
            "list" | "ls" | "status" | "get" | "show" | "inspect" | "template" | "lint" | "version"
            | "search" | "history" | "env" | "verify",
            _,
        ) => Class::ReadOnly,
        ("repo", "list" | "ls") | ("plugin", "list" | "ls") => Class::ReadOnly,
        ("dependency" | "dep", "list" | "build" | "update") => Class::Routine,
        (sub, _) => Class::Review(format!("helm {sub} changes releases or repositories")),
    }
}

fn terraform(call: &Call<'_>) -> Class {
    match call.first_operand().unwrap_or("") {
        "plan" | "validate" | "show" | "version" | "providers" | "output" | "graph" | "console"
        | "fmt" | "init" | "get" | "test" | "modules" | "metadata" => {
            if call.first_operand() == Some("init") && call.has(&["-upgrade"]) {
                return Class::Routine;
            }
            Class::Routine
        }
        "state"
            if matches!(
                call.args
                    .iter()
                    .flatten()
                    .filter(|a| !a.starts_with('-'))
                    .nth(1)
                    .copied(),
                Some("list" | "show" | "pull")
            ) =>
        {
            Class::ReadOnly
        }
        other => Class::Review(format!("{} {other} changes infrastructure", call.name)),
    }
}

/// Is this URL on the loopback interface?
fn loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = if let Some(h) = host.strip_prefix('[') {
        h.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host == "0.0.0.0"
}

fn fetch(call: &Call<'_>) -> Class {
    let urls: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let sends = call.has(&[
        "-d",
        "--data",
        "--data-raw",
        "--data-binary",
        "--data-urlencode",
        "--json",
        "-F",
        "--form",
        "-T",
        "--upload-file",
        "--post-file",
        "--post-data",
        "--body-file",
        "--body-data",
        "-K",
        "--config",
        "-X",
        "--request",
        "--method",
    ]) || call
        .args
        .iter()
        .flatten()
        .any(|a| a.starts_with("-d") && a.len() > 2 && !a.starts_with("--"));
    if !call.any_dynamic()
        && !urls.is_empty()
        && urls
            .iter()
            .all(|u| loopback(u) || !u.contains('.') && !u.contains(':'))
        && urls.iter().any(|u| loopback(u))
        && !sends
    {
        return Class::ReadOnly;
    }
    Class::Review(format!("{} transfers data over the network", call.name))
}

fn network(call: &Call<'_>) -> Class {
    if call.name == "rsync"
        && !call
            .args
            .iter()
            .flatten()
            .any(|a| !a.starts_with('-') && (a.contains(':') || a.contains("::")))
    {
        return Class::Routine;
    }
    if matches!(call.name, "gh" | "glab") {
        let ops: Vec<&str> = call
            .args
            .iter()
            .flatten()
            .filter(|a| !a.starts_with('-'))
            .copied()
            .collect();
        if matches!(
            (ops.first().copied(), ops.get(1).copied()),
            (
                Some("pr" | "issue" | "run" | "repo" | "release" | "workflow"),
                Some("view" | "list" | "status" | "diff" | "checks")
            ) | (Some("status"), _)
        ) {
            return Class::Review(format!(
                "{} reads from the network with the user's token",
                call.name
            ));
        }
    }
    Class::Review(format!("{}: network tools reach other machines", call.name))
}

fn database(call: &Call<'_>) -> Class {
    Class::Review(format!(
        "{}: databases hold data that may not be recoverable",
        call.name
    ))
}

fn services(call: &Call<'_>) -> Class {
    let ops: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let read = match call.name {
        "systemctl" => matches!(
            ops.first().copied(),
            None | Some(
                "status"
                    | "show"
                    | "list-units"
                    | "list-unit-files"
                    | "list-timers"
                    | "list-sockets"
                    | "list-dependencies"
                    | "is-active"
                    | "is-enabled"
                    | "is-failed"
                    | "cat"
                    | "help"
                    | "get-default"
            )
        ),
        "launchctl" => matches!(
            ops.first().copied(),
            Some("list" | "print" | "print-disabled" | "blame" | "version" | "help")
        ),
        "service" => ops.get(1).is_some_and(|s| *s == "status") || call.has(&["--status-all"]),
        _ => false,
    };
    if read {
        Class::ReadOnly
    } else {
        Class::Review(format!("{} changes system services", call.name))
    }
}

fn crontab(call: &Call<'_>) -> Class {
    if call
        .args
        .iter()
        .all(|a| matches!(a, Some("-l") | Some("-u")) || a.is_some_and(|x| !x.starts_with('-')))
        && call.has(&["-l"])
    {
        Class::ReadOnly
    } else {
        review("crontab changes scheduled jobs")
    }
}

fn system_pm(call: &Call<'_>) -> Class {
    let ops: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let read = matches!(
        ops.first().copied(),
        Some(
            "list"
                | "search"
                | "show"
                | "info"
                | "policy"
                | "madison"
                | "depends"
                | "rdepends"
                | "outdated"
                | "leaves"
                | "deps"
                | "uses"
                | "desc"
                | "home"
                | "config"
                | "doctor"
                | "current"
                | "which"
                | "ls"
                | "ls-remote"
        )
    ) || (call.name == "dpkg"
        && call.has(&[
            "-l",
            "-L",
            "-s",
            "-S",
            "--list",
            "--status",
            "--search",
            "--listfiles",
        ]))
        || (call.name == "rpm" && call.short('q'));
    if read && !(ops.first() == Some(&"config") && ops.len() > 1) {
        Class::ReadOnly
    } else {
        Class::Review(format!(
            "{}: installs or changes software outside the project",
            call.name
        ))
    }
}

fn secrets(call: &Call<'_>) -> Class {
    if call.name.starts_with("gpg")
        && call.has(&[
            "--verify",
            "--list-keys",
            "-k",
            "--fingerprint",
            "--list-packets",
        ])
        && !call.has(&["--export-secret-keys", "--export-secret-subkeys"])
    {
        return Class::ReadOnly;
    }
    Class::Review(format!("{}: reads or changes keys and secrets", call.name))
}

fn keys(call: &Call<'_>) -> Class {
    match call.name {
        "ssh-keygen" => {
            if call.has(&["-l", "-y", "-F", "-H", "-R", "-B", "-L", "-Q"]) {
                return Class::ReadOnly;
            }
            match call.option_values("-f").first() {
                Some(f) if inside(call.places, f) => Class::Routine,
                _ => review("ssh-keygen writes a key outside the working directory"),
            }
        }
        "openssl" => {
            if let Some(c) = call.outputs_inside(&["-out", "-keyout", "-outform_file"]) {
                return c;
            }
            match call.first_operand() {
                Some("s_client" | "s_server" | "ocsp" | "s_time") => {
                    review("openssl connects over the network")
                }
                _ => Class::Routine,
            }
        }
        _ => Class::Review(format!("{}: key and certificate stores", call.name)),
    }
}

/// `automode` inside an agent's command: only the read-only subcommands
/// (the state-changing ones are denied by the catalogue).
fn automode(call: &Call<'_>) -> Class {
    match call.first_operand() {
        Some(
            "status" | "config" | "defaults" | "denials" | "log" | "check" | "guidance" | "help",
        )
        | None => Class::ReadOnly,
        Some(other) => Class::Review(format!("automode {other}")),
    }
}

/// git: see `git.rs`.
pub fn git_class(call: &Call<'_>) -> Class {
    git::classify(call.name, &call.args, call.places)
}

/// The class of one command, with git handled by its own module.
pub fn judge(call: &Call<'_>) -> Class {
    if call.name == "git" && call.own_args().contains(&Some("--help")) {
        return Class::ReadOnly;
    }
    if call.name == "git" {
        return git_class(call);
    }
    classify(call)
}

/// The names the table knows (for tests and `automode defaults`).
pub fn known_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = index().keys().copied().collect();
    v.sort_unstable();
    v
}

/// One line per table row, for `automode defaults`.
pub fn describe() -> Vec<String> {
    TOOLS
        .iter()
        .map(|t| {
            let kind = match t.judge {
                Judge::Neutral => "neutral",
                Judge::ReadOnly => "read-only",
                Judge::Routine => "routine",
                Judge::Review => "classifier",
                Judge::By(_) => "by arguments",
            };
            let mut names = t
                .names
                .iter()
                .take(8)
                .copied()
                .collect::<Vec<_>>()
                .join(" ");
            if t.names.len() > 8 {
                names.push_str(&format!(" … ({} names)", t.names.len()));
            }
            format!("{kind:12} {names}: {}", t.reason)
        })
        .collect()
}
