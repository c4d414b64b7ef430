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
use crate::shell::commands::NameIndex;

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
    /// A program (or subcommand, or module) automode does not know: the
    /// classifier judges it, or the contained tier runs it in the sandbox.
    Unknown(String),
    /// Its only risk is reaching the network (why): contained work where
    /// the network wall is up for the command, the classifier's elsewhere.
    Network(String),
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
    /// The network allow-list (the configured entries), to tell a host
    /// the wall lets through.
    pub network: Option<&'a crate::sandbox::net::allow::AllowList>,
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

    /// Any argument equal to one of these (or `--x=…`, or a unique prefix
    /// of a long option, as getopt_long accepts, or a short option with
    /// its value attached: `-oFILE`).
    fn has(&self, options: &[&str]) -> bool {
        self.own_args().iter().flatten().any(|a| {
            options.iter().any(|o| {
                a == o
                    || (o.starts_with("--")
                        && (a.strip_prefix(o).is_some_and(|r| r.starts_with('='))
                            || option_matches(a, o)))
                    || (o.len() == 2
                        && o.starts_with('-')
                        && *o != "--"
                        && a.len() > 2
                        && a.starts_with('-')
                        && !a.starts_with("--")
                        && (a.starts_with(o) || a[1..].contains(&o[1..])))
            })
        })
    }

    /// A short flag given alone or in a group, read the way getopt reads
    /// a group: letter by letter until one that takes a value (in
    /// `takes_value`), whose value is the rest (`-lf key` has `-l`;
    /// `-f/tmp/lkey` has no `-l`). For flags that make a command only
    /// read, where `has`'s any-letter match would over-allow.
    fn flag(&self, flag: char, takes_value: &str) -> bool {
        self.own_args().iter().flatten().any(|a| {
            let Some(group) = a.strip_prefix('-').filter(|g| !g.starts_with('-')) else {
                return false;
            };
            for c in group.chars() {
                if c == flag {
                    return true;
                }
                if takes_value.contains(c) {
                    break;
                }
            }
            false
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
    /// Its only risk is the network: contained behind the wall.
    Network,
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
            "watch", "taskset", "unbuffer",
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
    tool(
        &[
            "parallel",
            "chronic",
            "ifne",
            "dc",
            "exiftool",
            "identify",
            "convert",
            "magick",
            "mogrify",
            "fx",
            "ldd",
            "sqlite3_analyzer",
            "difftool",
            "entr",
            "inotifywait",
            "nodemon",
            "watchexec",
        ],
        Judge::Review,
        "runs commands or code from its arguments in ways automode does not follow",
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
            "yes",
            "shuf",
            "look",
            "tsort",
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
            "colordiff",
            "hexyl",
            "glow",
            "mdcat",
            "dust",
            "duf",
            "procs",
            "btm",
            "ncdu",
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
            "pdfinfo",
            "iconv",
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
            "cp",
            "mv",
            "mkdir",
            "touch",
            "ln",
            "install",
            "rmdir",
            "rm",
            "unlink",
            "chmod",
            "chown",
            "chgrp",
            "tar",
            "gtar",
            "bsdtar",
            "split",
            "csplit",
            "mktemp",
            "mkfifo",
            "pdftotext",
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
    tool(
        &["compgen"],
        Judge::ReadOnly,
        "bash builtin listing completions (the policy reviews -e, -v: variables)",
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
            "railway",
            "render",
            "sst",
            "amplify",
            "eas",
            "expo",
            "neonctl",
            "planetscale",
            "pscale",
            "turso",
            "convex",
            "appwrite",
            "koyeb",
            "northflank",
            "dokku",
            "kamal",
            "ngrok",
            "cloudflared",
            "tailscale",
            "argocd",
            "flux",
            "helmfile",
            "skaffold",
            "tilt",
            "okteto",
            "devspace",
            "garden",
            "oci",
            "ibmcloud",
            "hcloud",
            "scw",
            "aliyun",
            "civo",
            "vultr-cli",
            "exoscale",
            "spin",
            "kubeseal",
            "sops",
        ],
        Judge::Review,
        "cloud and infrastructure tools change or reach remote systems",
    ),
    tool(
        &["supabase"],
        Judge::By(supabase),
        "local development stack, or a remote project (deploys, pushes, secrets)",
    ),
    tool(
        &["act"],
        Judge::By(act),
        "runs GitHub Actions workflows in containers (listing them only reads)",
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
        &["npx", "bunx", "pnpx"],
        Judge::By(package_runner),
        "ephemeral package runners download and run code (a package the project has installed runs from node_modules)",
    ),
    tool(
        &["uvx", "pipx", "dlx"],
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
            "sudoedit",
            "run0",
            "gosu",
            "su-exec",
            "setuidgid",
            "chpst",
            "pfexec",
            "dzdo",
            "ksu",
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

/// The table by name.
static BY_NAME: NameIndex<Tool> = NameIndex::new(TOOLS, |t| t.names);

/// Options that make an otherwise routine or read-only program run
/// another program, load code, reach the network or change the system:
/// (tools, options, why). Long options also match by unique prefix.
const EXEC_OPTIONS: &[(&[&str], &[&str], &str)] = &[
    (
        &["tar", "gtar", "bsdtar"],
        &[
            "--checkpoint-action",
            "--use-compress-program",
            "-I",
            "--to-command",
            "--info-script",
            "--new-volume-script",
            "-F",
            "--rsh-command",
            "--rmt-command",
            "--remove-files",
            "--force-local",
        ],
        "tar runs a program or removes files",
    ),
    (&["split"], &["--filter"], "split --filter runs a command"),
    (
        &["zip"],
        &["-T", "-TT", "--unzip-command", "-m", "--move"],
        "zip runs a test command or removes the originals",
    ),
    (&["7z", "7za"], &["-sdel"], "7z -sdel deletes the originals"),
    (
        &["rsync"],
        &[
            "-e",
            "--rsh",
            "--rsync-path",
            "--delete",
            "--remove-source-files",
            "--del",
            "--delete-after",
            "--delete-before",
            "--delete-during",
            "--delete-excluded",
        ],
        "rsync runs a remote shell or deletes files",
    ),
    (
        &["gcc", "g++", "cc", "c++", "clang", "clang++", "tcc", "emcc"],
        &[
            "-wrapper",
            "-fplugin",
            "-specs",
            "-B",
            "--sysroot",
            "-fplugin-arg",
        ],
        "the compiler runs or loads a program named by an option",
    ),
    (
        &["go"],
        &["-exec", "-toolexec", "-vettool", "-overlay"],
        "go runs a program named by an option",
    ),
    (
        &["make", "gmake", "bmake"],
        &["--eval", "-E"],
        "make --eval runs inline make code",
    ),
    (
        &["cmake"],
        &["-E", "--build-and-test"],
        "cmake -E runs file and process commands",
    ),
    (
        &["node", "nodejs"],
        &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
            "--inspect",
            "--inspect-brk",
            "--inspect-port",
            "--experimental-policy",
            "--openssl-config",
            "--env-file",
        ],
        "node loads code or opens a debugger port",
    ),
    (
        &["rake"],
        &[
            "-e",
            "--execute",
            "-p",
            "--execute-print",
            "-E",
            "--execute-continue",
            "-r",
            "--require",
        ],
        "rake runs inline Ruby",
    ),
    (
        &["erl", "elixir", "iex", "mix", "escript"],
        &["-eval", "-e", "--eval", "-s", "-run", "-r"],
        "runs inline code",
    ),
    (
        &["mvn", "mvnw", "./mvnw", "gradle", "gradlew", "./gradlew"],
        &["-I", "--init-script", "-Dexec.executable", "-Dexec.args"],
        "the build runs a script or program named by an option",
    ),
    (
        &["cargo"],
        &["--config", "-Z"],
        "cargo --config / -Z changes how cargo runs",
    ),
    (
        &["pip", "pip3"],
        &[
            "--cert",
            "--client-cert",
            "--proxy",
            "--config-settings",
            "--global-option",
            "--install-option",
        ],
        "pip trusts other certificates or proxies, or runs build options",
    ),
    (
        &["npm", "pnpm", "yarn", "bun"],
        &[
            "--userconfig",
            "--globalconfig",
            "--script-shell",
            "--node-options",
            "--proxy",
            "--https-proxy",
        ],
        "the package manager uses another config, shell or proxy",
    ),
    (
        &["sort"],
        &["--compress-program"],
        "sort --compress-program runs a program",
    ),
    (
        &["kubectl", "oc", "helm"],
        &[
            "--kubeconfig",
            "--server",
            "-s",
            "--token",
            "--as",
            "--as-group",
            "--username",
            "--password",
            "--kube-apiserver",
            "--kube-token",
        ],
        "talks to another cluster or as another user",
    ),
    (
        &["terraform", "tofu"],
        &["-plugin-dir", "-from-module"],
        "loads providers or modules from elsewhere",
    ),
    (
        &["docker", "podman"],
        &["-H", "--host", "--config", "--context"],
        "talks to another daemon or reads other credentials",
    ),
];

/// Judge one command./// Judge one command.
pub fn classify(call: &Call<'_>) -> Class {
    // `--version` / `--help` alone on a known name prints and exits;
    // `--help` anywhere among a known program's own options does too.
    let known = BY_NAME.get(call.name).is_some() || call.name == "git";
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
    for (tools, options, why) in EXEC_OPTIONS {
        if tools.contains(&call.name)
            && call.own_args().iter().flatten().any(|a| {
                options
                    .iter()
                    .any(|o| option_matches(a, o) || (o.starts_with("-D") && a.starts_with(o)))
            })
        {
            return Class::Review(format!("{}: {why}", call.name));
        }
    }
    // `tar -cf host:/x`: a remote archive over rsh.
    if matches!(call.name, "tar" | "gtar")
        && call.own_args().iter().flatten().any(|a| {
            !a.starts_with('-')
                && a.split_once(':').is_some_and(|(host, _)| {
                    !host.is_empty() && !host.contains('/') && !host.contains('=')
                })
        })
    {
        return review("tar reads or writes an archive on another host");
    }
    if let Some(why) = supply_chain(call) {
        return Class::Review(why);
    }
    let Some(tool) = BY_NAME.get(call.name) else {
        return unknown(call);
    };
    match tool.judge {
        Judge::Neutral => Class::Neutral,
        Judge::ReadOnly => Class::ReadOnly,
        Judge::Routine => Class::Routine,
        Judge::Review => Class::Review(format!("{}: {}", call.name, tool.reason)),
        Judge::Network => Class::Network(format!("{}: {}", call.name, tool.reason)),
        Judge::By(f) => f(call),
    }
}

/// Package managers the supply-chain check covers, with the subcommands
/// whose operands are packages to install or run.
const PACKAGE_MANAGERS: &[(&[&str], &[&str])] = &[
    (&["pip", "pip3"], &["install", "download", "wheel"]),
    (&["uv"], &["add", "install", "run", "sync"]),
    (
        &["poetry", "pdm", "pipenv", "rye", "hatch"],
        &["add", "install"],
    ),
    (&["pipx"], &["install", "inject", "run"]),
    (
        &["npm", "pnpm", "yarn", "bun"],
        &["install", "i", "add", "update", "up", "upgrade"],
    ),
    (&["deno"], &["add", "install", "run"]),
    (&["cargo"], &["add", "install"]),
    (&["go"], &["get", "install", "run"]),
    (&["gem"], &["install"]),
    (&["composer"], &["require", "install", "update"]),
    (&["bundle"], &["add", "install"]),
];

/// Options that say where packages come from (another index, registry
/// or repository than the manager's default and the project's manifest):
/// for these managers, with their value attached, after `=` or apart.
const SOURCE_OPTIONS: &[(&[&str], &[&str], &str)] = &[
    (
        &["pip", "pip3", "uv"],
        &[
            "-i",
            "--index-url",
            "--extra-index-url",
            "--index",
            "--default-index",
            "-f",
            "--find-links",
            "--trusted-host",
        ],
        "fetches from another package index",
    ),
    (
        &["poetry", "pdm", "pipenv", "rye", "hatch", "pipx"],
        &[
            "--index-url",
            "--extra-index-url",
            "--pypi-mirror",
            "--pip-args",
        ],
        "fetches from another package index",
    ),
    (
        &["npm", "pnpm", "yarn", "bun"],
        &["--registry"],
        "fetches from another registry",
    ),
    (
        &["cargo"],
        &["--git", "--registry", "--index"],
        "fetches from a git repository or another registry",
    ),
    (
        &["gem", "bundle"],
        &["--source", "--git", "--github", "--clear-sources"],
        "fetches from another source or a git repository",
    ),
    (
        &["composer"],
        &["--repository", "--repository-url"],
        "fetches from another repository",
    ),
    (
        &["uv"],
        &["--with", "--with-requirements", "--with-editable"],
        "runs with packages fetched for this run only",
    ),
    (
        &["pip", "pip3", "uv"],
        &["--break-system-packages", "--system"],
        "installs into the system's Python",
    ),
];

/// Where a word says code comes from, if it names a URL or a git source.
fn remote_source(word: &str) -> bool {
    word.contains("://")
        || [
            "git+",
            "git@",
            "git:",
            "github:",
            "gitlab:",
            "bitbucket:",
            "gist:",
            "hg+",
            "svn+",
            "bzr+",
        ]
        .iter()
        .any(|p| word.starts_with(p))
}

/// One supply-chain check for every package manager: code from a URL or a
/// git source, a path outside the project, another index or registry, a
/// module run at a version (`go run m@latest`), or the system's Python,
/// is the classifier's to judge; installs from the project's own
/// manifests and lock files, and from the default registry, stay local.
fn supply_chain(call: &Call<'_>) -> Option<String> {
    // `python -m pip …` is pip.
    let (name, args) = match call.name {
        n if n.starts_with("python") || n.starts_with("pypy") => {
            let m = call.args.iter().position(|a| *a == Some("-m"))?;
            (call.lit(m + 1)?, &call.args[m + 2..])
        }
        n => (n, &call.args[..]),
    };
    let (_, installs) = PACKAGE_MANAGERS.iter().find(|(n, _)| n.contains(&name))?;
    let end = args
        .iter()
        .position(|a| *a == Some("--"))
        .unwrap_or(args.len());
    let own = &args[..end];
    for (names, options, why) in SOURCE_OPTIONS {
        if names.contains(&name)
            && let Some(o) = own.iter().flatten().find_map(|a| {
                options.iter().find(|o| {
                    option_matches(a, o)
                        || (o.len() == 2 && a.starts_with(*o) && !a.starts_with("--"))
                })
            })
        {
            return Some(format!("{name} {o} {why}"));
        }
    }
    let ops: Vec<Option<&str>> = own
        .iter()
        .filter(|a| a.is_none_or(|a| !a.starts_with('-')))
        .copied()
        .collect();
    // `uv pip install`: the subcommand is the second word.
    let sub_at = usize::from(name == "uv" && ops.first() == Some(&Some("pip")));
    let sub = ops.get(sub_at).copied().flatten().unwrap_or("");
    if !installs.contains(&sub) {
        return None;
    }
    for a in own.iter().skip_while(|a| **a != Some(sub)).skip(1) {
        let Some(a) = a else {
            return Some(format!(
                "{name} {sub} names a package only known at run time"
            ));
        };
        let value = a
            .strip_prefix("--")
            .and_then(|r| r.split_once('='))
            .map_or(*a, |(_, v)| v);
        if remote_source(value) {
            return Some(format!(
                "{name} {sub} fetches code from {value}, a URL or git source"
            ));
        }
        let path = value.strip_prefix("file:").unwrap_or(value);
        // A runner's later words are its program's arguments.
        if sub != "run" && path.starts_with(['/', '.', '~']) && !inside(call.places, path) {
            return Some(format!(
                "{name} {sub} installs from {path}, outside the project"
            ));
        }
        if name == "go" && sub == "run" && !a.starts_with('-') && a.contains('@') {
            return Some(format!("go run {a} fetches and runs a module at a version"));
        }
        // `npm install owner/repo` is a GitHub repository.
        if matches!(name, "npm" | "pnpm" | "yarn" | "bun")
            && !a.starts_with(['@', '.', '/', '-'])
            && a.matches('/').count() == 1
            && !a.ends_with(".tgz")
        {
            return Some(format!(
                "{name} {sub} {a} installs from a GitHub repository"
            ));
        }
    }
    None
}

/// A program not in the table: a script of the project, or unknown.
fn unknown(call: &Call<'_>) -> Class {
    let name = call.command.name().unwrap_or(call.name);
    if name.contains('/') && inside(call.places, name) {
        if let Some(original) = copy_of_system_program(&call.places.cwd.join(name)) {
            return Class::Review(format!("{name} is a copy of {original}"));
        }
        // Project executables (`./scripts/build.sh`, `./gradlew`,
        // `./node_modules/.bin/eslint`): shell scripts among them were
        // read and analysed; anything else is the project's own program.
        return Class::Routine;
    }
    Class::Unknown(format!("{name} is not a program automode knows"))
}

/// Programs whose copy inside a project would run unjudged.
const COPY_CHECKED: &[&str] = &[
    "bash", "sh", "dash", "zsh", "ksh", "busybox", "python3", "python", "perl", "ruby", "node",
    "php", "lua", "rm", "dd", "find", "xargs", "env", "sudo", "su", "curl", "wget", "nc", "ncat",
    "socat", "ssh", "scp", "git", "tar", "rsync", "chmod", "chown", "cp", "mv", "tee", "sed",
    "awk",
];

/// Is this executable a byte-for-byte copy of a system program?
fn copy_of_system_program(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    let mut head = [0u8; 4];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    if &head != b"\x7fELF" {
        return None;
    }
    let ours = std::fs::read(path).ok();
    for dir in ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"] {
        for name in COPY_CHECKED {
            let candidate = Path::new(dir).join(name);
            let Ok(m) = std::fs::metadata(&candidate) else {
                continue;
            };
            if m.len() != meta.len() {
                continue;
            }
            if ours
                .as_deref()
                .is_some_and(|o| std::fs::read(&candidate).is_ok_and(|c| c == o))
            {
                return Some(candidate.display().to_string());
            }
        }
    }
    None
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

/// Options of read-only tools that run programs, write files or change
/// the system: (tools, options, why). Long options also match by a
/// unique prefix (`--compress-prog`), as getopt_long accepts.
pub(super) const RISKY_OPTIONS: &[(&[&str], &[&str], &str)] = &[
    (
        &["sort"],
        &["--compress-program"],
        "sort --compress-program runs a program",
    ),
    (
        &["rg"],
        &["--pre", "--pre-glob"],
        "rg --pre runs a program on every file",
    ),
    (
        &["fd", "fdfind"],
        &["-x", "-X", "--exec", "--exec-batch"],
        "fd -x runs a command per match",
    ),
    (
        &["less", "more", "most"],
        &[
            "-o",
            "-O",
            "--log-file",
            "--LOG-FILE",
            "--lesskey-file",
            "--lesskey-src",
        ],
        "less writes a log file or loads key bindings",
    ),
    (
        &["man"],
        &[
            "-H",
            "-P",
            "-p",
            "-B",
            "-C",
            "-l",
            "--html",
            "--pager",
            "--preprocessor",
            "--browser",
            "--config-file",
            "--local-file",
        ],
        "man options run a pager, browser or preprocessor",
    ),
    (
        &["info"],
        &["-o", "--output", "--dribble", "--restore", "--init-file"],
        "info writes or replays files",
    ),
    (
        &["bat", "batcat", "delta"],
        &["--pager", "--paging"],
        "the pager option runs a program",
    ),
    (
        &["journalctl"],
        &[
            "--vacuum-size",
            "--vacuum-time",
            "--vacuum-files",
            "--rotate",
            "--flush",
            "--sync",
            "--relinquish-var",
            "--smart-relinquish-var",
            "--update-catalog",
            "--setup-keys",
        ],
        "journalctl changes the journal",
    ),
    (
        &["dmesg"],
        &[
            "-c",
            "-C",
            "-D",
            "-E",
            "-n",
            "--clear",
            "--read-clear",
            "--console-off",
            "--console-on",
            "--console-level",
        ],
        "dmesg changes the kernel log",
    ),
    (
        &["hostname"],
        &["-F", "-b", "--file", "--boot"],
        "hostname sets the host name",
    ),
    (
        &["history"],
        &["-c", "-d", "-a", "-n", "-r", "-w", "-p", "-s"],
        "history changes or writes the history file",
    ),
    (
        &["iconv", "shuf", "xmllint", "tree"],
        &["-o", "--output"],
        "the output option writes a file",
    ),
    (
        &["jq", "gojq"],
        &["-L", "--rawfile", "--slurpfile", "--from-file", "-f"],
        "jq loads modules or files named by options",
    ),
    (
        &["file"],
        &["-C", "--compile", "-m", "--magic-file"],
        "file compiles or loads magic files",
    ),
    (
        &["locate", "mlocate", "plocate"],
        &["-d", "--database"],
        "locate reads another database",
    ),
    (
        &["awk", "gawk", "mawk", "nawk"],
        &[
            "-f",
            "-i",
            "-E",
            "-l",
            "--file",
            "--include",
            "--exec",
            "--load",
        ],
        "awk loads program files or libraries",
    ),
    (&["xxd"], &["-r", "--revert"], "xxd -r writes binary data"),
    (
        &["ncdu"],
        &["-o", "-f"],
        "ncdu writes or reads an export file",
    ),
    (
        &["ps"],
        &["e", "-E"],
        "ps e shows every process's environment",
    ),
];

/// Does `arg` give this option (exactly, joined with a value, or as a
/// unique long-option prefix)?
pub fn option_matches(arg: &str, option: &str) -> bool {
    if arg == option {
        return true;
    }
    if let Some(long) = option.strip_prefix("--") {
        let Some(given) = arg.strip_prefix("--") else {
            return false;
        };
        let name = given.split('=').next().unwrap_or(given);
        // An abbreviation stops inside a word (`--use-compress-prog`); a
        // prefix ending where the option has a dash is another option
        // (`--build` is not `--build-and-test`).
        return name.len() >= 3
            && long.starts_with(name)
            && (long.len() == name.len() || long.as_bytes()[name.len()] != b'-');
    }
    if option.starts_with('-') && option.len() > 2 {
        // Single-dash long options (`-vettool=x`, `-exec`).
        return arg.strip_prefix(option).is_some_and(|r| r.starts_with('='));
    }
    if option.starts_with('-') && option.len() == 2 {
        // `-oFILE`, or the flag inside a group (`-so`).
        return arg.starts_with(option)
            || (arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(&option[1..]));
    }
    // BSD-style option letters without a dash (`ps eww`).
    !arg.starts_with('-')
        && arg.len() <= 6
        && arg.chars().all(|c| c.is_ascii_alphabetic())
        && arg.contains(option)
}

fn read_only(call: &Call<'_>) -> Class {
    for (tools, options, why) in RISKY_OPTIONS {
        if tools.contains(&call.name) {
            let first_only = matches!(call.name, "ps");
            // (`ps`'s dashless BSD letters count only as its first word;
            // its dashed options anywhere.)
            let hit = call.own_args().iter().enumerate().any(|(i, a)| {
                a.is_some_and(|a| {
                    options.iter().any(|o| {
                        option_matches(a, o) && (!first_only || i == 0 || o.starts_with('-'))
                    })
                })
            });
            if hit {
                return Class::Review(format!("{}: {why}", call.name));
            }
        }
    }
    match call.name {
        "date" if call.short('s') || call.has(&["--set"]) => review("date -s sets the clock"),
        "hostname" if call.first_operand().is_some() => review("hostname NAME sets the host name"),
        "getent"
            if call
                .args
                .iter()
                .flatten()
                .any(|a| matches!(*a, "shadow" | "gshadow")) =>
        {
            review("getent shadow prints password hashes")
        }
        "getent"
            if call
                .args
                .iter()
                .flatten()
                .any(|a| matches!(*a, "hosts" | "ahosts" | "ahostsv4" | "ahostsv6"))
                && call.args.len() > 1 =>
        {
            review("getent hosts NAME sends a DNS query (names can carry data)")
        }
        "jq" | "gojq"
            if call
                .args
                .iter()
                .flatten()
                .any(|a| a.contains("$ENV") || a.contains("env.") || *a == "env") =>
        {
            review("jq reads the environment, which may hold tokens")
        }
        "awk" | "gawk" | "mawk" | "nawk"
            if call.args.iter().flatten().any(|a| {
                a.contains("getline")
                    || a.contains("ENVIRON")
                    || a.contains("system")
                    || a.contains('@')
                    || (a.contains('#') && (a.contains('|') || a.contains('>')))
            }) =>
        {
            review("awk reads files, runs commands or hides code the analysis does not see")
        }
        // The analysis reads sed's `e` and `w`; a bracket expression with
        // the delimiter in it can hide them, so such scripts go to review.
        "sed" | "gsed"
            if call.args.iter().flatten().any(|a| {
                a.contains('[')
                    && (a.contains("/e")
                        || a.contains("e;")
                        || a.contains("e}")
                        || a.ends_with('e')
                        || a.contains(" w ")
                        || a.contains("/w"))
            }) =>
        {
            review("sed script with a bracket expression and an e or w command")
        }
        "printenv"
            if call
                .args
                .iter()
                .flatten()
                .any(|a| super::policy_secret_name(a)) =>
        {
            review("printenv prints a variable that looks like a secret")
        }
        "glow" | "mdcat" | "xmllint" | "mediainfo" | "bat" | "batcat"
            if call.args.iter().flatten().any(|a| a.contains("://")) =>
        {
            Class::Review(format!("{} fetches a URL", call.name))
        }
        "env" | "printenv" => {
            // Printing the whole environment shows tokens, and a filter
            // after it (`env | grep -i key`) keeps exactly those; a named
            // variable that does not look like a secret does not.
            let named = call.name == "printenv" && call.first_operand().is_some();
            let runs = call.name == "env"
                && call
                    .args
                    .iter()
                    .any(|a| a.is_none_or(|t| !t.starts_with('-') && !t.contains('=')));
            if runs {
                Class::Neutral
            } else if named {
                Class::ReadOnly
            } else {
                Class::Review(format!(
                    "{} prints every environment variable, which may hold tokens",
                    call.name
                ))
            }
        }
        "sed" | "gsed" if call.short('i') || call.has(&["--in-place"]) => Class::Routine,
        "sort" | "uniq" | "xxd" => Class::Routine,
        "tee" => Class::Routine,
        "iconv" | "shuf" | "xmllint" | "tree" if call.has(&["-o", "--output"]) => call
            .outputs_inside(&["-o", "--output"])
            .unwrap_or(Class::Routine),
        "find" if call.has(&["-delete", "-fprint", "-fprintf", "-fls", "-fprint0"]) => {
            Class::Routine
        }
        "less" | "more" if call.args.iter().flatten().any(|a| a.starts_with('+')) => {
            review("less commands can run programs")
        }
        _ => Class::ReadOnly,
    }
}

/// `supabase`: the local stack and code generation are project work;
/// anything that reaches the hosted project is reviewed.
fn supabase(call: &Call<'_>) -> Class {
    let ops: Vec<&str> = call
        .own_args()
        .iter()
        .map(|a| a.unwrap_or("\u{0}"))
        .filter(|a| !a.starts_with('-'))
        .collect();
    let linked = call.has(&["--linked", "--project-ref", "--db-url"]);
    match ops.as_slice() {
        [] | ["help", ..] | ["status"] | ["start"] | ["stop"] | ["init"] | ["bootstrap"] => {
            Class::Routine
        }
        ["gen", ..]
        | ["migration", "new" | "list" | "squash" | "up", ..]
        | ["test", ..]
        | ["db", "diff" | "lint" | "reset" | "start" | "dump", ..]
        | ["functions", "new" | "serve", ..]
        | ["seed", ..]
            if !linked =>
        {
            Class::Routine
        }
        _ => Class::Review(format!(
            "supabase {} may change the hosted project",
            ops.first().copied().unwrap_or("")
        )),
    }
}

/// `act`: listing workflows reads; running them starts containers.
fn act(call: &Call<'_>) -> Class {
    // (`act`'s one-letter options that take a value.)
    let values = "CPWabcdeijpsw";
    if call.has(&["--list", "--graph", "--version", "--help"])
        || ['l', 'g', 'h'].iter().any(|f| call.flag(*f, values))
    {
        Class::ReadOnly
    } else {
        review("act runs workflows in containers")
    }
}

fn archiver(call: &Call<'_>) -> Class {
    if let Some(c) = call.outputs_inside(&["-d", "-o", "--output", "-O"]) {
        return c;
    }
    // Compressors replace their operands in place (unless writing to
    // stdout or keeping them); zip and 7z write the archive named first.
    let in_place = matches!(
        call.name,
        "gzip"
            | "gunzip"
            | "bzip2"
            | "bunzip2"
            | "xz"
            | "unxz"
            | "zstd"
            | "unzstd"
            | "lz4"
            | "pigz"
            | "brotli"
    ) && !call.has(&[
        "-c",
        "--stdout",
        "--to-stdout",
        "-k",
        "--keep",
        "-t",
        "--test",
        "-l",
        "--list",
    ]) && !call.short('c')
        && !call.short('k');
    let writes_first = matches!(call.name, "zip" | "7z" | "7za");
    for (n, a) in call
        .own_args()
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .enumerate()
    {
        if (in_place || (writes_first && n == usize::from(call.name != "zip")))
            && !inside(call.places, a)
        {
            return Class::Review(format!(
                "{} changes {a}, outside the working directory",
                call.name
            ));
        }
        let decompress = matches!(call.name, "gunzip" | "bunzip2" | "unxz" | "unzstd")
            || call.has(&["-d", "--decompress"]);
        if in_place && !decompress {
            let path = crate::shell::paths::resolve(&call.places.cwd, a).0;
            if path.exists() && call.places.artifact(&path).is_none() {
                return Class::Review(format!("{} replaces {a} with a compressed file", call.name));
            }
        }
    }
    if call.any_dynamic() && (in_place || writes_first) {
        return Class::Review(format!(
            "{} with operands only known at run time",
            call.name
        ));
    }
    Class::Routine
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
        "watch" | "script" => review("cargo watch runs shell commands from its options"),
        "publish" | "yank" | "login" | "logout" | "owner" => {
            review("cargo publishes or changes registry state")
        }
        "" | "build" | "b" | "check" | "c" | "test" | "t" | "run" | "r" | "clippy" | "fmt"
        | "doc" | "d" | "bench" | "clean" | "add" | "remove" | "rm" | "update" | "tree"
        | "metadata" | "fetch" | "generate-lockfile" | "new" | "init" | "vendor" | "fix"
        | "nextest" | "llvm-cov" | "tarpaulin" | "expand" | "search" | "version"
        | "verify-project" | "locate-project" | "pkgid" | "package" | "rustc" | "rustdoc"
        | "audit" | "deny" | "outdated" | "machete" | "udeps" | "hack" | "insta" | "make"
        | "about" | "binstall_check" | "msrv" | "semver-checks" | "mutants" | "fuzz"
        | "criterion" | "help" | "info" | "report" | "sort" => Class::Routine,
        other => Class::Unknown(format!(
            "cargo {other} is not a cargo command automode knows"
        )),
    }
}

fn compiler(call: &Call<'_>) -> Class {
    if let Some(out) = call.own_args().iter().flatten().find_map(|a| {
        a.split_once('=')
            .filter(|(k, _)| k.starts_with("--") && k.ends_with("_out"))
            .map(|(_, v)| v)
    }) && !inside(call.places, out)
    {
        return Class::Review(format!(
            "{} writes into {out}, outside the working directory",
            call.name
        ));
    }
    call.outputs_inside(&[
        "-o",
        "--out-dir",
        "-d",
        "--output",
        "--outdir",
        "--out",
        "-MF",
        "-MJ",
        "--dependency-file",
    ])
    .unwrap_or(Class::Routine)
}

fn node_pm(call: &Call<'_>) -> Class {
    let global_location = call
        .args
        .windows(2)
        .any(|w| w[0] == Some("--location") && w[1] == Some("global"));
    if call.has(&["-g", "--global", "--location=global"]) || global_location {
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
        (_, "explore" | "node" | "global" | "shell" | "edit" | "rebuild" | "patch-commit") => {
            Class::Review(format!(
                "{} {sub} runs commands or changes packages outside the project",
                call.name
            ))
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
        other => Class::Unknown(format!("pip {other} is not a pip command automode knows")),
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
        Judge::Review,
        "runs the Python code given on the command line",
    ),
    ("tokenize", Judge::ReadOnly, "prints tokens"),
    ("cProfile", Judge::Review, "runs a program"),
    ("pdb", Judge::Review, "runs a program under the debugger"),
    ("trace", Judge::Review, "runs a program"),
    ("runpy", Judge::Review, "runs a module"),
    ("code", Judge::Review, "runs an interactive interpreter"),
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
        Judge::Network,
        "serves files over the network (behind the wall: to the session and the user's loopback)",
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
                if module == "json.tool"
                    && let Some(out) = call
                        .args
                        .iter()
                        .skip(i + 2)
                        .flatten()
                        .filter(|a| !a.starts_with('-'))
                        .nth(1)
                {
                    return if inside(call.places, out) {
                        Class::Routine
                    } else {
                        Class::Review(format!(
                            "python -m json.tool writes {out}, outside the working directory"
                        ))
                    };
                }
                return match PYTHON_MODULES.iter().find(|(m, ..)| *m == module) {
                    Some((_, Judge::ReadOnly, _)) => Class::ReadOnly,
                    Some((_, Judge::Routine, _)) => Class::Routine,
                    Some((_, Judge::Network, why)) => {
                        Class::Network(format!("python -m {module} {why}"))
                    }
                    Some((_, _, why)) => Class::Review(format!("python -m {module} {why}")),
                    None => {
                        Class::Unknown(format!("python -m {module} is not a module automode knows"))
                    }
                };
            }
            // Inline code: the finding is judged (mod.rs).
            "-c" => return Class::Neutral,
            "-" => return Class::Neutral,
            "-V" | "--version" | "-h" | "--help" => return Class::ReadOnly,
            // Options that take a value.
            "-W" | "-X" | "--check-hash-based-pycs" => i += 2,
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

/// A bundle of one-letter options ending in the inline-code one
/// (`perl -ne`, `-lne`, `-pe`, `-ane`; `ruby -ne`): the code is the next
/// word, judged like `-e`'s. Only line-loop, split and print options
/// may come with it (not `-i`, which edits files in place).
fn inline_bundle(a: &str) -> bool {
    a.len() > 2
        && a.starts_with('-')
        && !a.starts_with("--")
        && a.ends_with(['e', 'E'])
        && a[1..]
            .chars()
            .all(|c| matches!(c, 'l' | 'n' | 'a' | 'p' | 'w' | 's' | 'e' | 'E'))
}

fn interpreter(call: &Call<'_>) -> Class {
    if call.name == "java" {
        if let [Some("-version" | "--version" | "-showversion" | "--show-version")] = call.args[..]
        {
            return Class::ReadOnly;
        }
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
        // its finding, for the languages the analysis reads; anything else
        // the classifier sees.
        _ if call.args.is_empty() => Class::Neutral,
        _ if matches!(
            call.name,
            "perl" | "ruby" | "php" | "lua" | "luajit" | "Rscript"
        ) && call
            .args
            .iter()
            .flatten()
            .any(|a| matches!(*a, "-e" | "-E" | "-r") || inline_bundle(a)) =>
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
        _ if call
            .own_args()
            .iter()
            .flatten()
            .any(|a| a.contains("extld") || a.contains("-toolexec") || a.contains("-exec")) =>
        {
            review("go runs a program named in its flags")
        }
        "install" => review("go install writes outside the project (GOBIN)"),
        "env" if call.has(&["-w", "-u"]) => review("go env -w changes user-wide settings"),
        "env" | "version" | "list" | "doc" | "help" => Class::ReadOnly,
        "build" | "test" | "vet" | "fmt" | "mod" | "run" | "generate" | "get" | "clean"
        | "work" | "fix" | "tool" | "bug_" => Class::Routine,
        other => Class::Unknown(format!("go {other} is not a go command automode knows")),
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
    // Command-line variables can run code (`X:=$(shell …)`) or replace
    // the shell make runs recipes with.
    if let Some(v) = call.own_args().iter().flatten().find(|a| {
        a.contains('=')
            && !a.starts_with('-')
            && (a.contains("$(") || a.contains("${") || a.contains('`') || {
                let name = a.split(['=', ':', '+', '?']).next().unwrap_or("");
                matches!(
                    name,
                    "SHELL"
                        | ".SHELLFLAGS"
                        | "MAKEFLAGS"
                        | "MAKEFILES"
                        | "MAKE"
                        | "CC"
                        | "CXX"
                        | "LD"
                        | "AR"
                        | "AS"
                )
            })
    }) {
        return Class::Review(format!("make {v} sets a variable that runs code"));
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
    if let Some(t) = ops.iter().find(|t| {
        matches!(**t, "exec" | "eval" | "shell" | "console" | "repl")
            || t.starts_with("exec:")
            || t.starts_with("antrun:")
            || t.starts_with("groovy:")
    }) {
        return Class::Review(format!(
            "{} {t} runs a program or code automode does not see",
            call.name
        ));
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
        "exec"
            if !call.args.iter().flatten().any(|a| {
                matches!(
                    *a,
                    "rspec" | "rake" | "rails" | "rubocop" | "standardrb" | "jekyll"
                )
            }) =>
        {
            review("bundle exec runs a program automode does not judge")
        }
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
        other => Class::Unknown(format!(
            "bundle {other} is not a bundler command automode knows"
        )),
    }
}

fn rails_like(call: &Call<'_>) -> Class {
    if call.args.iter().flatten().any(|a| {
        matches!(
            *a,
            "-e" | "--execute"
                | "-p"
                | "--execute-print"
                | "-E"
                | "--execute-continue"
                | "runner"
                | "console"
                | "dbconsole"
                | "-r"
                | "--require"
        ) || a.starts_with("--execute")
    }) {
        return review("runs inline Ruby or a console");
    }
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
        _ if shell_switch(call.name, sub) => Class::Routine,
        ("conda" | "mamba" | "micromamba", "config") => {
            review("conda config changes user-wide settings")
        }
        (
            "conda" | "mamba" | "micromamba",
            "install" | "create" | "remove" | "update" | "env" | "clean" | "run",
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
        network: call.network,
    };
    // The analysis does not see the inner program's arguments as a
    // command: only test runners, linters and formatters are judged here.
    if !RUN_INNER_PROGRAMS.contains(&inner.name) {
        return Class::Review(format!(
            "{} {sub} {program}: automode does not follow this program here",
            call.name
        ));
    }
    match classify(&inner) {
        Class::Neutral => Class::Review(format!(
            "{} {sub} {program}: a shell or wrapper automode does not follow here",
            call.name
        )),
        other => other,
    }
}

/// Programs `uv run`, `poetry run` … may run without review.
const RUN_INNER_PROGRAMS: &[&str] = &[
    "pytest",
    "py.test",
    "black",
    "ruff",
    "isort",
    "flake8",
    "pylint",
    "mypy",
    "pyright",
    "coverage",
    "tox",
    "nox",
    "sphinx-build",
    "mkdocs",
    "pre-commit",
    "python",
    "python3",
    "maturin",
];

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
        "build" | "buildx"
            if !call.has(&["--push", "--output", "-o", "--secret", "--ssh"])
                && !call
                    .args
                    .iter()
                    .flatten()
                    .any(|a| a.contains("://") || a.starts_with("git@")) =>
        {
            Class::Routine
        }
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
        ("config", "view") if call.has(&["--raw", "--flatten"]) => {
            review("kubectl config view --raw prints cluster credentials")
        }
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
        "output" | "console" => Class::Review(format!(
            "terraform {} prints values that are often secrets",
            call.first_operand().unwrap_or("")
        )),
        "plan" | "validate" | "show" | "version" | "providers" | "graph" | "fmt" | "init"
        | "get" | "test" | "modules" | "metadata" => {
            let out: Vec<String> = call
                .own_args()
                .iter()
                .flatten()
                .filter_map(|a| a.strip_prefix("-out=").map(str::to_string))
                .chain(call.option_values("-out"))
                .collect();
            match out.iter().find(|o| !inside(call.places, o)) {
                Some(o) => Class::Review(format!(
                    "terraform writes {o}, outside the working directory"
                )),
                None => Class::Routine,
            }
        }
        "state" if call.args.iter().flatten().any(|a| *a == "pull") => {
            review("terraform state pull prints the state, which holds secrets")
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

/// Is this URL an http(s) URL on the loopback interface?
fn loopback(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
        return false;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return false;
    }
    let host = if let Some(h) = authority.strip_prefix('[') {
        h.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    let ipv4_loopback = {
        let octets: Vec<&str> = host.split('.').collect();
        octets.len() == 4
            && octets[0] == "127"
            && octets
                .iter()
                .all(|o| !o.is_empty() && o.len() <= 3 && o.bytes().all(|b| b.is_ascii_digit()))
    };
    host.eq_ignore_ascii_case("localhost") || host == "::1" || ipv4_loopback
}

/// curl/wget options that only shape how a loopback GET is made or shown.
const FETCH_SAFE_OPTIONS: &[&str] = &[
    "-s",
    "-S",
    "-f",
    "-i",
    "-I",
    "-v",
    "-q",
    "-sS",
    "-fsS",
    "-fs",
    "-sf",
    "-Ss",
    "-sSf",
    "-si",
    "--silent",
    "--show-error",
    "--fail",
    "--fail-with-body",
    "--include",
    "--head",
    "--verbose",
    "--compressed",
    "--no-progress-meter",
    "--quiet",
    "-O-",
    "-qO-",
    "-qO",
    "-O",
    "-o",
    "--output",
    "-w",
    "--write-out",
    "-m",
    "--max-time",
    "--connect-timeout",
    "-H",
    "--header",
    "-X",
    "--request",
    "--retry",
];

/// Options of the fetch tools (outside the safe table) that take a
/// value: its word is no URL.
const FETCH_VALUE_OPTIONS: &[&str] = &[
    "-d",
    "--data",
    "--data-raw",
    "--data-binary",
    "--data-urlencode",
    "--data-ascii",
    "--json",
    "-F",
    "--form",
    "--form-string",
    "-T",
    "--upload-file",
    "-u",
    "--user",
    "-e",
    "--referer",
    "-A",
    "--user-agent",
    "-b",
    "--cookie",
    "-c",
    "--cookie-jar",
    "-x",
    "--proxy",
    "--resolve",
    "--connect-to",
    "-K",
    "--config",
    "--cacert",
    "--cert",
    "--key",
    "-E",
    "-r",
    "--range",
    "-U",
    "--proxy-user",
    "--post-data",
    "--post-file",
    "--body-data",
    "--body-file",
    "--method",
];

fn fetch(call: &Call<'_>) -> Class {
    if call.any_dynamic() {
        return Class::Review(format!(
            "{} with arguments only known at run time",
            call.name
        ));
    }
    let mut urls = Vec::new();
    // A request that may change something where it goes (a method but
    // GET or HEAD, data, an upload, an option not in the table).
    let mut changes: Option<String> = None;
    // Bundled short options as the tool's getopt reads them: `-sI` is
    // `-s -I`; a letter that takes a value takes the rest (`-ofile`).
    let words = fetch_words(call);
    let word = |i: usize| words.get(i).map(String::as_str);
    let mut i = 0;
    while let Some(a) = word(i) {
        if a.starts_with('-') && a.len() > 1 {
            let (name, inline_value) = match a.split_once('=') {
                Some((n, _)) if n.starts_with("--") => (n, true),
                _ => (a, false),
            };
            if !FETCH_SAFE_OPTIONS.contains(&name) {
                changes.get_or_insert_with(|| {
                    format!("{} {a}: transfers data over the network", call.name)
                });
                // Its value is no URL.
                i += if FETCH_VALUE_OPTIONS.contains(&name) && !inline_value {
                    2
                } else {
                    1
                };
                continue;
            }
            let takes_value = matches!(
                name,
                "-o" | "--output"
                    | "-O"
                    | "-qO"
                    | "-w"
                    | "--write-out"
                    | "-m"
                    | "--max-time"
                    | "--connect-timeout"
                    | "-H"
                    | "--header"
                    | "-X"
                    | "--request"
                    | "--retry"
            );
            if matches!(name, "-X" | "--request")
                && !word(i + 1).is_some_and(|m| {
                    m.eq_ignore_ascii_case("GET") || m.eq_ignore_ascii_case("HEAD")
                })
            {
                changes.get_or_insert_with(|| {
                    format!("{} sends a request that is not GET", call.name)
                });
            }
            if takes_value && !inline_value {
                i += 1;
            }
        } else {
            urls.push(a);
        }
        i += 1;
    }
    let all_loopback = !urls.is_empty() && urls.iter().all(|u| loopback(u));
    if all_loopback && changes.is_none() {
        return call
            .outputs_inside(&["-o", "--output", "-O"])
            .unwrap_or(Class::ReadOnly);
    }
    // Behind the wall, loopback is the session's own servers: any
    // request to them is contained; a request to an allow-listed host
    // is, if it only reads.
    if all_loopback {
        return Class::Network(format!(
            "{} sends a request to a server on loopback",
            call.name
        ));
    }
    if let Some(why) = changes {
        return Class::Review(why);
    }
    if !urls.is_empty() && urls.iter().all(|u| allow_listed(call, u)) {
        return Class::Network(format!("{} reads from an allow-listed host", call.name));
    }
    Class::Review(format!("{} transfers data over the network", call.name))
}

/// The fetch tool's words with bundled short options split (`-sSI` →
/// `-s -S -I`; `-sofile` → `-s -o file`): a letter that takes a value
/// ends the bundle, the rest is its value.
fn fetch_words(call: &Call<'_>) -> Vec<String> {
    let takes_value = |c: char| {
        let short = format!("-{c}");
        matches!(c, 'o' | 'w' | 'm' | 'H' | 'X')
            || (call.name != "curl" && c == 'O')
            || FETCH_VALUE_OPTIONS.contains(&short.as_str())
    };
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(a) = call.lit(i) {
        i += 1;
        let bundle = a.len() > 2
            && a.starts_with('-')
            && !a.starts_with("--")
            && !FETCH_SAFE_OPTIONS.contains(&a)
            && a[1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic());
        if !bundle {
            out.push(a.to_string());
            continue;
        }
        let letters: Vec<char> = a[1..].chars().collect();
        for (k, c) in letters.iter().enumerate() {
            out.push(format!("-{c}"));
            if takes_value(*c) {
                let rest: String = letters[k + 1..].iter().collect();
                if !rest.is_empty() {
                    out.push(rest);
                }
                break;
            }
        }
    }
    out
}

/// Is the URL's host (and port) on the network allow-list?
fn allow_listed(call: &Call<'_>, url: &str) -> bool {
    let Some(list) = call.network else {
        return false;
    };
    let with_scheme = if url.contains("://") {
        url.to_string()
    } else {
        format!("https://{url}")
    };
    crate::sandbox::net::allow::url_host(&with_scheme)
        .is_some_and(|(h, p)| list.find(&h, p).is_some())
}

/// `npx NAME …`: a package the project has installed (its
/// `node_modules/.bin/NAME`, in the working directory or above it up to
/// the project) runs from there, and may only look at the registry;
/// anything else downloads code.
fn package_runner(call: &Call<'_>) -> Class {
    let review = || {
        Class::Review(format!(
            "{}: ephemeral package runners download and run code",
            call.name
        ))
    };
    let mut words = call.args.iter();
    let name = loop {
        match words.next() {
            Some(Some(w)) if w.starts_with('-') => {
                // `-p PKG`, `--package`, `-c CMD`, `--call`: other code.
                if matches!(*w, "-p" | "--package" | "-c" | "--call") || w.starts_with("--package=")
                {
                    return review();
                }
            }
            Some(Some(w)) => break *w,
            _ => return review(),
        }
    };
    if name.contains('@') || name.contains('/') {
        return review();
    }
    let installed = call
        .places
        .cwd
        .ancestors()
        .take(8)
        .any(|d| d.join("node_modules/.bin").join(name).is_file());
    if installed {
        Class::Network(format!(
            "{} runs {name}, which the project has installed (npx may still ask the registry)",
            call.name
        ))
    } else {
        review()
    }
}

/// Programs that only open a connection and move bytes: contained behind
/// the wall when they name loopback or an allow-listed host.
const SOCKET_CLIENTS: &[&str] = &["nc", "ncat", "netcat", "socat", "telnet"];

fn network(call: &Call<'_>) -> Class {
    if SOCKET_CLIENTS.contains(&call.name) && !call.any_dynamic() {
        let words: Vec<&str> = call.args.iter().flatten().copied().collect();
        let listens = words.iter().any(|w| {
            matches!(*w, "-l" | "-lk" | "-kl" | "--listen")
                || w.starts_with("TCP-LISTEN")
                || w.starts_with("tcp-l")
        });
        let hosts: Vec<&str> = words
            .iter()
            .filter(|w| !w.starts_with('-'))
            .copied()
            .collect();
        let host = hosts
            .first()
            .map(|h| h.trim_start_matches("TCP:").trim_start_matches("tcp:"));
        let port = hosts
            .get(1)
            .and_then(|p| p.parse::<u16>().ok())
            .or_else(|| {
                host.and_then(|h| h.rsplit_once(':'))
                    .and_then(|(_, p)| p.parse().ok())
            });
        let host = host.map(|h| h.rsplit_once(':').map_or(h, |(h, _)| h));
        let local = host.is_some_and(|h| matches!(h, "localhost" | "127.0.0.1" | "::1" | "[::1]"));
        let listed = host
            .zip(port)
            .zip(call.network)
            .is_some_and(|((h, p), l)| l.find(h, p).is_some());
        if listens || local || listed {
            return Class::Network(format!(
                "{} connects to {}",
                call.name,
                if listens {
                    "whoever connects to it on loopback"
                } else if local {
                    "a server on loopback"
                } else {
                    "an allow-listed host"
                }
            ));
        }
    }
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
        // Reading the forge with the user's own login (it reaches it
        // through the wall, the tool's own credentials only: the side
        // doors' table): read-only work. Not `--web` (a browser), not
        // anything that prints the token.
        let opens_browser = call
            .args
            .iter()
            .flatten()
            .any(|a| matches!(*a, "--web" | "-w" | "--show-token" | "-t"));
        if !opens_browser
            && !call.any_dynamic()
            && matches!(
                (ops.first().copied(), ops.get(1).copied()),
                (
                    Some(
                        "pr" | "mr"
                            | "issue"
                            | "run"
                            | "ci"
                            | "repo"
                            | "release"
                            | "workflow"
                            | "label"
                    ),
                    Some("view" | "list" | "status" | "diff" | "checks")
                ) | (Some("status"), _)
                    | (
                        Some("search"),
                        Some("repos" | "issues" | "prs" | "code" | "commits")
                    )
            )
        {
            return Class::ReadOnly;
        }
    }
    Class::Review(format!("{}: network tools reach other machines", call.name))
}

fn database(call: &Call<'_>) -> Class {
    if call.name == "sqlite3" && sqlite_reads_only(call) {
        return Class::ReadOnly;
    }
    Class::Review(format!(
        "{}: databases hold data that may not be recoverable",
        call.name
    ))
}

/// `sqlite3 DB SQL…` whose every statement only reads (`SELECT`,
/// `EXPLAIN`, `PRAGMA name` without a value, a few dot commands that only
/// print), on `:memory:` or a file inside the project, or `-readonly`;
/// never a function that reaches files or loads code.
fn sqlite_reads_only(call: &Call<'_>) -> bool {
    if call.any_dynamic() {
        return false;
    }
    let words: Vec<&str> = call.args.iter().flatten().copied().collect();
    let (opts, rest): (Vec<&str>, Vec<&str>) = words.iter().partition(|w| w.starts_with('-'));
    if !opts.iter().all(|o| {
        matches!(
            *o,
            "-readonly"
                | "-header"
                | "-noheader"
                | "-csv"
                | "-json"
                | "-line"
                | "-list"
                | "-column"
                | "-box"
                | "-table"
                | "-markdown"
                | "-batch"
                | "-bail"
        )
    }) {
        return false;
    }
    let [db, sql @ ..] = rest.as_slice() else {
        return false;
    };
    if sql.is_empty() {
        // Statements from stdin: not seen here.
        return false;
    }
    if *db != ":memory:" && !inside(call.places, db) {
        return false;
    }
    sql.iter().all(|text| {
        let lower = text.to_ascii_lowercase();
        if [
            "load_extension",
            "readfile",
            "writefile",
            "edit(",
            "fts3_tokenizer",
            "attach",
        ]
        .iter()
        .any(|bad| lower.contains(bad))
        {
            return false;
        }
        lower
            .split(';')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .all(|st| {
                let first = st.split_whitespace().next().unwrap_or("");
                match first {
                    "select" | "explain" | "values" => true,
                    "pragma" => !st.contains('='),
                    ".tables" | ".schema" | ".indexes" | ".databases" | ".show" | ".headers"
                    | ".mode" | ".dbinfo" => true,
                    _ => false,
                }
            })
    })
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

/// Subcommands that only switch what the command's own shell uses (its
/// `PATH` or one variable), with why: that shell ends with the command,
/// so nothing outside it changes. Installing what is not there stays
/// with the package managers' rules (`nvm install`, `sdk install`).
const SHELL_SWITCHES: &[(&str, &str, &str)] = &[
    (
        "nvm",
        "use",
        "puts an installed Node first on the shell's PATH",
    ),
    ("nvm", "deactivate", "takes nvm's Node off the shell's PATH"),
    ("pyenv", "shell", "sets PYENV_VERSION in the shell"),
    (
        "asdf",
        "shell",
        "sets the tool's ASDF_*_VERSION in the shell",
    ),
    (
        "sdk",
        "use",
        "puts an installed SDK version first on the shell's PATH",
    ),
    (
        "conda",
        "activate",
        "puts an environment first on the shell's PATH",
    ),
    (
        "conda",
        "deactivate",
        "takes the environment off the shell's PATH",
    ),
    (
        "mamba",
        "activate",
        "puts an environment first on the shell's PATH",
    ),
    (
        "mamba",
        "deactivate",
        "takes the environment off the shell's PATH",
    ),
    (
        "micromamba",
        "activate",
        "puts an environment first on the shell's PATH",
    ),
    (
        "micromamba",
        "deactivate",
        "takes the environment off the shell's PATH",
    ),
];

/// Does `name sub` only switch what the command's own shell uses?
fn shell_switch(name: &str, sub: &str) -> bool {
    SHELL_SWITCHES
        .iter()
        .any(|(n, s, _)| *n == name && *s == sub)
}

fn system_pm(call: &Call<'_>) -> Class {
    let ops: Vec<&str> = call
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    if ops.first().is_some_and(|sub| shell_switch(call.name, sub)) {
        return Class::Routine;
    }
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
            // Fingerprints, public keys, certificates, KRL queries and
            // known_hosts look-ups only read (`-H` hashes known_hosts in
            // place and `-R` removes from it: those write).
            let values = "DEFGIJKMNOPRSTVYZabCfjmnrstwz";
            if ['l', 'y', 'F', 'B', 'L', 'Q']
                .iter()
                .any(|f| call.flag(*f, values))
            {
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
    let mut v: Vec<&str> = BY_NAME.index().keys().copied().collect();
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
                Judge::Network => "contained behind the network wall",
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_tool_table_finds_each_name_by_scan_and_by_index() {
        crate::shell::commands::assert_scan_agrees_with_index(&super::BY_NAME);
    }
}
