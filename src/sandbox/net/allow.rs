//! Which hosts a command's network reaches: the built-in allow-list (a
//! reason per row), `sandbox.network.allow`, and the hosts the user's own
//! tools are configured to use (a company mirror is the registry for its
//! users): pip's index, npm's registry, cargo's sources, `GOPROXY`, the
//! project's git remotes. Only the user's own files and environment are
//! read here, never a project's (`.npmrc`, `pip.conf` in the project
//! could point anywhere); a project's `.git/config` counts only as it
//! was before the session began (`project_remotes`): a command can write
//! one (a project without `.git` yet, a repository it made, `git remote
//! add`), and a remote it added would let the next command send the
//! project there.

use std::path::Path;

/// The built-in allow-list (`"$defaults"` in `sandbox.network.allow`):
/// the package registries' API and download hosts, and the forges. A host
/// without a port is reached on 443 and 80.
pub const DEFAULT_ALLOW: &[(&str, &str)] = &[
    ("registry.npmjs.org", "npm's registry (npm install, npx)"),
    ("registry.yarnpkg.com", "yarn's registry"),
    ("pypi.org", "PyPI's index (pip install)"),
    ("files.pythonhosted.org", "where pip downloads PyPI's files"),
    ("index.crates.io", "cargo's sparse index of crates.io"),
    ("static.crates.io", "where cargo downloads crates"),
    ("crates.io", "crates.io's API"),
    ("proxy.golang.org", "Go's module proxy (GOPROXY's default)"),
    (
        "sum.golang.org",
        "Go's checksum database (GOSUMDB's default)",
    ),
    ("rubygems.org", "RubyGems (gem, bundler)"),
    ("index.rubygems.org", "RubyGems' compact index (bundler)"),
    ("repo.maven.apache.org", "Maven Central"),
    ("repo1.maven.org", "Maven Central's other name"),
    ("github.com", "GitHub: git over HTTPS, releases"),
    ("github.com:22", "GitHub: git over SSH"),
    ("api.github.com", "GitHub's API (gh, go get)"),
    ("codeload.github.com", "GitHub's archive downloads"),
    (
        "objects.githubusercontent.com",
        "GitHub's release and LFS files",
    ),
    (
        "release-assets.githubusercontent.com",
        "GitHub's release files",
    ),
    ("raw.githubusercontent.com", "GitHub's raw files"),
    ("gitlab.com", "GitLab: git over HTTPS, its API"),
    ("gitlab.com:22", "GitLab: git over SSH"),
];

/// Ports a host entry without one is reached on.
pub const WEB_PORTS: &[u16] = &[443, 80];

/// One allow-list entry: an exact host or `*.domain` (a subdomain, at any
/// depth), and its ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Lower case, without the `*.`.
    pub host: String,
    pub wildcard: bool,
    pub ports: Vec<u16>,
    /// Where it comes from (built-in, a file, a tool's configuration).
    pub source: String,
}

impl Entry {
    /// Parse `host`, `*.domain`, either with `:port`; `None` for anything
    /// else (a URL, a bare `*`, a port out of range).
    pub fn parse(text: &str, source: &str) -> Option<Entry> {
        let t = text.trim();
        let (host, port) = match t.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => {
                (h, Some(p.parse::<u16>().ok().filter(|p| *p > 0)?))
            }
            Some(_) => return None,
            None => (t, None),
        };
        let (wildcard, host) = match host.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, host),
        };
        let valid = !host.is_empty()
            && host.len() <= 253
            && host.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            })
            // `*.com` would be a whole top-level domain.
            && (!wildcard || host.contains('.'));
        valid.then(|| Entry {
            host: host.to_ascii_lowercase(),
            wildcard,
            ports: port.map_or_else(|| WEB_PORTS.to_vec(), |p| vec![p]),
            source: source.to_string(),
        })
    }

    /// Does it allow `host:port`?
    pub fn allows(&self, host: &str, port: u16) -> bool {
        if !self.ports.contains(&port) {
            return false;
        }
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        if self.wildcard {
            host.len() > self.host.len()
                && host.ends_with(&self.host)
                && host.as_bytes()[host.len() - self.host.len() - 1] == b'.'
        } else {
            host == self.host
        }
    }
}

/// The allow-list a session's commands get.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    pub entries: Vec<Entry>,
}

impl AllowList {
    /// The entry that allows `host:port`, if one does.
    pub fn find(&self, host: &str, port: u16) -> Option<&Entry> {
        self.entries.iter().find(|e| e.allows(host, port))
    }

    /// Every port some entry names (the ports the filter listens on).
    pub fn ports(&self) -> Vec<u16> {
        let mut out: Vec<u16> = self.entries.iter().flat_map(|e| e.ports.clone()).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn push(&mut self, e: Entry) {
        if !self
            .entries
            .iter()
            .any(|x| x.host == e.host && x.wildcard == e.wildcard && x.ports == e.ports)
        {
            self.entries.push(e);
        }
    }
}

/// A variable's value in the user's environment.
pub type Lookup = dyn Fn(&str) -> Option<String>;

/// Where the user's tool configurations are.
#[derive(Clone, Default)]
pub struct ToolPlaces<'a> {
    pub home: Option<&'a Path>,
    /// The environment's value of a variable.
    pub var: Option<&'a Lookup>,
    /// The projects' git remotes as the session first read them
    /// (`project_remotes`): `(url, where)`.
    pub remotes: &'a [(String, String)],
}

impl std::fmt::Debug for ToolPlaces<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolPlaces")
            .field("home", &self.home)
            .field("remotes", &self.remotes)
            .finish()
    }
}

/// The session's allow-list: the configured entries (`"$defaults"`
/// expanded by the configuration) and the hosts the user's tools use.
pub fn build(configured: &[(String, String)], tools: &ToolPlaces<'_>) -> AllowList {
    let mut list = AllowList::default();
    for (text, source) in configured {
        if let Some(e) = Entry::parse(text, source) {
            list.push(e);
        }
    }
    for (url, source) in tool_urls(tools) {
        if let Some((host, port)) = url_host(&url) {
            list.push(Entry {
                host,
                wildcard: false,
                ports: vec![port],
                source,
            });
        }
    }
    list
}

/// The files `tool_urls` reads (their changes make the list stale).
pub fn tool_files(tools: &ToolPlaces<'_>) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let var = |k: &str| tools.var.and_then(|v| v(k)).filter(|v| v.starts_with('/'));
    if let Some(home) = tools.home {
        let config = var("XDG_CONFIG_HOME").map_or_else(|| home.join(".config"), Into::into);
        out.push(config.join("pip/pip.conf"));
        out.push(home.join(".pip/pip.conf"));
        out.push(home.join(".npmrc"));
        let cargo = var("CARGO_HOME").map_or_else(|| home.join(".cargo"), Into::into);
        out.push(cargo.join("config.toml"));
        out.push(cargo.join("config"));
        out.push(config.join("go/env"));
    }
    out.push("/etc/pip.conf".into());
    out.push("/etc/npmrc".into());
    out
}

/// The remote URLs in `project`'s `.git/config`, `(url, the file)`, if
/// the file last changed (its status, which no command can set back)
/// before `since_ns`; none otherwise.
pub fn project_remotes(project: &Path, since_ns: u64) -> Vec<(String, String)> {
    use std::os::unix::fs::MetadataExt;
    let file = project.join(".git/config");
    let Ok(meta) = std::fs::metadata(&file) else {
        return Vec::new();
    };
    let changed = (meta.ctime() as i128) * 1_000_000_000 + meta.ctime_nsec() as i128;
    if changed >= since_ns as i128 {
        return Vec::new();
    }
    let Ok(text) = std::fs::read_to_string(&file) else {
        return Vec::new();
    };
    let name = file.display().to_string();
    config_values(&text, |key| key == "url")
        .into_iter()
        .map(|u| (u, name.clone()))
        .collect()
}

/// The values of the `key = value` lines whose key `wanted` takes, each
/// split at spaces, commas and `|`.
fn config_values(text: &str, wanted: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((key, value)) = line.trim().split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        if wanted(&key) {
            let value = value.trim().trim_matches('"');
            out.extend(value.split([' ', ',', '|']).map(str::to_string));
        }
    }
    out
}

/// `(url, where it was configured)` for every registry or remote the
/// user's tools are set to use.
fn tool_urls(tools: &ToolPlaces<'_>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let var = |k: &str| tools.var.and_then(|v| v(k));
    for k in [
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "npm_config_registry",
        "NPM_CONFIG_REGISTRY",
        "GOPROXY",
    ] {
        if let Some(v) = var(k) {
            for u in v.split([' ', ',', '|']) {
                out.push((u.to_string(), format!("${k}")));
            }
        }
    }
    for file in tool_files(tools) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let name = file.display().to_string();
        let registry = |key: &str| {
            key == "index-url"
                || key == "extra-index-url"
                || key == "registry"
                || key.ends_with(":registry")
                || key == "index"
                || key == "goproxy"
        };
        out.extend(
            config_values(&text, registry)
                .into_iter()
                .map(|u| (u, name.clone())),
        );
    }
    out.extend(tools.remotes.iter().cloned());
    out
}

/// The host and port a registry or remote URL names: `https://h/…`,
/// `http://h:8080/…`, `sparse+https://…`, `ssh://git@h:2222/…`,
/// `git@h:org/repo`. `None` for anything else (`direct`, `off`, paths).
pub fn url_host(url: &str) -> Option<(String, u16)> {
    let url = url.trim();
    let url = url
        .strip_prefix("sparse+")
        .or_else(|| url.strip_prefix("registry+"))
        .or_else(|| url.strip_prefix("git+"))
        .unwrap_or(url);
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => {
            // scp-like `user@host:path`.
            let (user_host, path) = url.split_once(':')?;
            if path.starts_with("//") || user_host.contains('/') {
                return None;
            }
            let host = user_host.rsplit_once('@').map_or(user_host, |(_, h)| h);
            return Entry::parse(host, "").map(|e| (e.host, 22));
        }
    };
    let default = match scheme.as_str() {
        "https" => 443,
        "http" => 80,
        "ssh" | "git+ssh" => 22,
        "git" => 9418,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.contains(']') || h.ends_with(']') => (h, p.parse().ok()?),
        _ => (authority, default),
    };
    let e = Entry::parse(host, "")?;
    (!e.wildcard).then_some((e.host, port))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn entries_match_hosts_and_ports_exactly() {
        let e = Entry::parse("github.com", "t").unwrap();
        assert!(e.allows("github.com", 443) && e.allows("GitHub.com.", 80));
        assert!(!e.allows("github.com", 22));
        assert!(!e.allows("evilgithub.com", 443) && !e.allows("x.github.com", 443));
        let w = Entry::parse("*.example.org:8443", "t").unwrap();
        assert!(w.allows("a.b.example.org", 8443));
        assert!(!w.allows("example.org", 8443) && !w.allows("badexample.org", 8443));
        assert!(!w.allows("a.example.org", 443));
        for bad in [
            "*",
            "*.com",
            "https://x.org",
            "x.org:0",
            "x.org:99999",
            "a..b",
            "",
            "1:2:3",
        ] {
            assert_eq!(Entry::parse(bad, "t"), None, "{bad}");
        }
    }

    #[test]
    fn registry_and_remote_urls_name_their_host() {
        for (url, want) in [
            (
                "https://pypi.example.com/simple",
                Some(("pypi.example.com", 443)),
            ),
            (
                "http://mirror.local:8080/npm/",
                Some(("mirror.local", 8080)),
            ),
            (
                "sparse+https://crates.corp.net/index/",
                Some(("crates.corp.net", 443)),
            ),
            (
                "ssh://git@git.corp.net:2222/a/b.git",
                Some(("git.corp.net", 2222)),
            ),
            ("git@github.com:org/repo.git", Some(("github.com", 22))),
            (
                "https://user:token@gitlab.corp.net/a.git",
                Some(("gitlab.corp.net", 443)),
            ),
            ("direct", None),
            ("off", None),
            ("/srv/git/repo.git", None),
            ("file:///srv/x", None),
        ] {
            assert_eq!(
                url_host(url),
                want.map(|(h, p)| (h.to_string(), p)),
                "{url}"
            );
        }
    }

    #[test]
    fn the_users_tools_add_their_hosts_and_a_project_file_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("proj");
        for d in [home.join(".config/pip"), project.join(".git")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(
            home.join(".config/pip/pip.conf"),
            "[global]\nindex-url = https://pypi.corp.example/simple\n",
        )
        .unwrap();
        std::fs::write(
            home.join(".npmrc"),
            "registry=https://npm.corp.example/\n//npm.corp.example/:_authToken=x\n",
        )
        .unwrap();
        std::fs::write(
            project.join(".git/config"),
            "[remote \"origin\"]\n\turl = git@git.corp.example:team/app.git\n",
        )
        .unwrap();
        // A project's own .npmrc is not the user's configuration.
        std::fs::write(project.join(".npmrc"), "registry=https://evil.example/\n").unwrap();
        let var =
            |k: &str| (k == "GOPROXY").then(|| "https://goproxy.corp.example,direct".to_string());
        let list = build(
            &[("api.example.com".into(), "config".into())],
            &ToolPlaces {
                home: Some(&home),
                var: Some(&var),
                remotes: &project_remotes(&project, u64::MAX),
            },
        );
        for (host, port) in [
            ("pypi.corp.example", 443),
            ("npm.corp.example", 443),
            ("git.corp.example", 22),
            ("goproxy.corp.example", 443),
        ] {
            assert!(list.find(host, port).is_some(), "{host}:{port}: {list:?}");
        }
        assert!(list.find("evil.example", 443).is_none());
    }

    /// A project's remotes count as its `.git/config` was before the
    /// session began: one written since (by a command: `git remote add`,
    /// a repository it made) adds nothing.
    #[test]
    fn a_git_config_changed_since_the_session_began_adds_no_host() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        std::fs::create_dir(project.join(".git")).unwrap();
        std::fs::write(
            project.join(".git/config"),
            "[remote \"origin\"]\n\turl = https://git.corp.example/a.git\n",
        )
        .unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let before = project_remotes(project, now + 1_000_000_000);
        assert_eq!(before.len(), 1, "{before:?}");
        assert_eq!(before[0].0, "https://git.corp.example/a.git");
        assert!(project_remotes(project, now - 1_000_000_000).is_empty());
        // Set back in time, the file still changed now: its status says so.
        let old = std::fs::File::options()
            .write(true)
            .open(project.join(".git/config"))
            .unwrap();
        old.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000))
            .unwrap();
        assert!(project_remotes(project, now - 1_000_000_000).is_empty());
        assert!(project_remotes(&project.join("none"), u64::MAX).is_empty());
    }

    #[test]
    fn the_built_in_list_parses() {
        for (text, _) in DEFAULT_ALLOW {
            assert!(Entry::parse(text, "built-in").is_some(), "{text}");
        }
    }
}
