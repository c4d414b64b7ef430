//! A tool's own credentials, for that tool: which credential files a
//! known program reads when it runs as itself (`OWNED`), and the
//! package managers' settings files, which every command reads with
//! their secrets taken out (`SETTINGS`) unless `sandbox.credentials`
//! names the tool (an install runs the packages' own scripts in the same
//! command, and a token they can read is a token they can send).

use std::path::{Path, PathBuf};

/// One tool's credential files.
#[derive(Debug)]
pub struct Owned {
    /// The programs that own them (base names).
    pub programs: &'static [&'static str],
    /// Only for these subcommands (the first word after the program's
    /// own options); empty: any.
    pub subcommands: &'static [&'static str],
    /// The files (templates as in `sandbox.readDeny`).
    pub paths: &'static [&'static str],
    pub why: &'static str,
}

impl Owned {
    /// Its subcommands joined by `sep` (empty: any subcommand).
    fn subcommands_joined(&self, sep: &str) -> Option<String> {
        (!self.subcommands.is_empty()).then(|| self.subcommands.join(sep))
    }
}

/// Credential files a known program reads when it runs as itself: the
/// command was allowed, and every other program in it only reads or
/// steers the shell (nothing unknown, no script, no inline code), so
/// only the program the files belong to can read them.
pub const OWNED: &[Owned] = &[
    Owned {
        programs: &["gh"],
        subcommands: &[],
        paths: &["${XDG_CONFIG_HOME:-~/.config}/gh"],
        why: "the GitHub CLI's login (hosts.yml)",
    },
    Owned {
        programs: &["hub"],
        subcommands: &[],
        paths: &["${XDG_CONFIG_HOME:-~/.config}/hub"],
        why: "hub's GitHub login",
    },
    Owned {
        programs: &["glab"],
        subcommands: &[],
        paths: &["${XDG_CONFIG_HOME:-~/.config}/glab-cli"],
        why: "the GitLab CLI's login",
    },
    Owned {
        programs: &["kubectl", "kubectx", "kubens"],
        subcommands: &[],
        paths: &["~/.kube"],
        why: "the clusters' kubeconfig",
    },
    Owned {
        programs: &["aws"],
        subcommands: &[],
        paths: &["~/.aws"],
        why: "the AWS CLI's profiles and keys",
    },
    Owned {
        programs: &["gcloud", "gsutil", "bq"],
        subcommands: &[],
        paths: &["${XDG_CONFIG_HOME:-~/.config}/gcloud"],
        why: "the Google Cloud CLI's login",
    },
    Owned {
        programs: &["az"],
        subcommands: &[],
        paths: &["~/.azure"],
        why: "the Azure CLI's login",
    },
    Owned {
        programs: &["doctl"],
        subcommands: &[],
        paths: &["${XDG_CONFIG_HOME:-~/.config}/doctl"],
        why: "the DigitalOcean CLI's token",
    },
    Owned {
        programs: &["fly", "flyctl"],
        subcommands: &[],
        paths: &["~/.fly"],
        why: "the Fly.io CLI's token",
    },
    Owned {
        programs: &["git"],
        subcommands: &[
            "fetch",
            "pull",
            "push",
            "clone",
            "ls-remote",
            "remote",
            "submodule",
        ],
        paths: &[
            "~/.git-credentials",
            "${XDG_CONFIG_HOME:-~/.config}/git/credentials",
            "~/.netrc",
            "~/.ssh",
        ],
        why: "git's credential store, and the keys and known hosts ssh uses, for fetch and push",
    },
];

/// How a settings file is written (what `filter` takes out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `key=value` or `key: value` lines (npmrc, pip.conf, YAML,
    /// properties): lines whose key names a secret go, and passwords in
    /// URLs.
    Lines,
    /// Maven's settings.xml: `<servers>` and every password element go.
    MavenXml,
}

/// A package manager's settings file: every command reads it with the
/// secrets taken out; `name` in `sandbox.credentials` gives the commands
/// running one of `programs` the file whole.
#[derive(Debug)]
pub struct Settings {
    pub name: &'static str,
    pub programs: &'static [&'static str],
    /// The file (a template as in `sandbox.readDeny`).
    pub path: &'static str,
    pub format: Format,
    /// Where no mount namespace can be made: the variable that points
    /// the tool at the filtered copy instead.
    pub variable: Option<&'static str>,
    pub why: &'static str,
}

/// The package managers' settings files.
pub const SETTINGS: &[Settings] = &[
    Settings {
        name: "npm",
        programs: &["npm", "npx", "pnpm", "yarn"],
        path: "~/.npmrc",
        format: Format::Lines,
        variable: Some("NPM_CONFIG_USERCONFIG"),
        why: "the registry, scopes and proxy npm, pnpm and yarn 1 use; its _authToken lines are tokens",
    },
    Settings {
        name: "yarn",
        programs: &["yarn"],
        path: "~/.yarnrc.yml",
        format: Format::Lines,
        variable: None,
        why: "yarn's registry and scopes; npmAuthToken lines are tokens",
    },
    Settings {
        name: "pip",
        programs: &["pip", "pip3", "uv", "poetry", "pipenv", "python", "python3"],
        path: "${XDG_CONFIG_HOME:-~/.config}/pip/pip.conf",
        format: Format::Lines,
        variable: Some("PIP_CONFIG_FILE"),
        why: "pip's index and mirror; an index URL may carry a password",
    },
    Settings {
        name: "pip",
        programs: &["pip", "pip3", "uv", "poetry", "pipenv", "python", "python3"],
        path: "~/.pip/pip.conf",
        format: Format::Lines,
        variable: Some("PIP_CONFIG_FILE"),
        why: "pip's settings at their older place",
    },
    Settings {
        name: "maven",
        programs: &["mvn", "mvnw"],
        path: "~/.m2/settings.xml",
        format: Format::MavenXml,
        variable: None,
        why: "Maven's mirrors and profiles; <servers> holds passwords",
    },
    Settings {
        name: "gradle",
        programs: &["gradle", "gradlew"],
        path: "${GRADLE_USER_HOME:-~/.gradle}/gradle.properties",
        format: Format::Lines,
        variable: None,
        why: "Gradle's properties (proxy, JVM settings); repository passwords and signing keys are secrets",
    },
];

/// Credential files `sandbox.credentials` can give, besides `SETTINGS`
/// (files that hold nothing but tokens).
pub const TOKENS: &[(&str, &[&str], &str, &str)] = &[
    (
        "cargo",
        &["cargo"],
        "${CARGO_HOME:-~/.cargo}/credentials.toml",
        "crates.io and private registries' tokens",
    ),
    ("twine", &["twine"], "~/.pypirc", "PyPI upload tokens"),
];

/// The names `sandbox.credentials` takes.
pub fn names() -> Vec<&'static str> {
    let mut out: Vec<&str> = SETTINGS.iter().map(|s| s.name).collect();
    out.extend(TOKENS.iter().map(|(n, _, _, _)| *n));
    out.dedup();
    out
}

/// Words in a key that name a secret.
const SECRET_KEY_WORDS: &[&str] = &[
    "token",
    "password",
    "passwd",
    "_auth",
    "auth=",
    "auth:",
    "authident",
    "ident",
    "secret",
    "credential",
    "apikey",
    "api_key",
    "api-key",
    "key=",
    "key:",
    "key =",
    "key :",
    "privatekey",
    "private_key",
    "passphrase",
    "-----begin",
];

/// `text` with the secrets taken out.
pub fn filter(format: Format, text: &str) -> String {
    match format {
        Format::Lines => filter_lines(text),
        Format::MavenXml => filter_maven(text),
    }
}

fn filter_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // A dropped line's value continued on the next (`\` at its end).
    let mut dropping = false;
    for line in text.lines() {
        let t = line.trim_start();
        if dropping {
            dropping = t.trim_end().ends_with('\\');
            continue;
        }
        // Only what settings are made of: blank lines, sections, `key =
        // value` / `key: value`, a YAML list item, an indented URL
        // continuing a value (pip's extra-index-url). A bare word may be
        // a token pasted in; a comment may be a token put aside.
        let comment = t.starts_with('#') || t.starts_with(';');
        let shaped = t.is_empty()
            || (t.starts_with('[') && t.trim_end().ends_with(']'))
            || t.contains('=')
            || t.contains(':')
            || t.starts_with("- ");
        // Any word of a secret anywhere in the line (a key, a nested
        // YAML map on one line, `-Dhttp.proxyPassword=` in a value).
        let lower = t.to_ascii_lowercase();
        let secret = SECRET_KEY_WORDS.iter().any(|w| lower.contains(w));
        if comment || !shaped || secret {
            dropping = !comment && t.trim_end().ends_with('\\');
            continue;
        }
        out.push_str(&strip_userinfo(line));
        out.push('\n');
    }
    out
}

/// Every `scheme://user:password@host` in `line` as `scheme://host`
/// (a user name alone may be a token: `https://TOKEN@pypi.example`).
fn strip_userinfo(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c == '/' || c.is_whitespace() || c == '"' || c == '\'')
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        out.push_str(
            authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host),
        );
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Maven's settings without `<servers>` and password elements.
fn filter_maven(text: &str) -> String {
    // Not Maven's settings: nothing of it is shown.
    if !text.contains("<settings") {
        return String::new();
    }
    let mut s = remove_elements(text, "servers");
    for tag in ["password", "passphrase", "privateKey", "httpHeaders"] {
        s = remove_elements(&s, tag);
    }
    // Then every line that still names a secret (`<gpg.passphrase>`,
    // `<sonar.token>`), and passwords in URLs.
    s.lines()
        .filter(|l| {
            let lower = l.to_ascii_lowercase();
            !SECRET_KEY_WORDS.iter().any(|w| lower.contains(w))
        })
        .map(|l| strip_userinfo(l) + "\n")
        .collect()
}

/// `text` without every `<tag …>…</tag>` (an unclosed one: to the end).
fn remove_elements(text: &str, tag: &str) -> String {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let Some(start) = find_tag(rest, &open) else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        // `<tag/>`: empty.
        let head_end = after.find('>').map_or(after.len(), |i| i + 1);
        if after[..head_end].ends_with("/>") {
            rest = &after[head_end..];
            continue;
        }
        match after.find(&close) {
            Some(end) => rest = &after[end + close.len()..],
            None => return out,
        }
    }
}

/// The start of `<tag` followed by `>`, `/` or whitespace (not
/// `<tagName`).
fn find_tag(text: &str, open: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(open) {
        let at = from + i;
        match text[at + open.len()..].chars().next() {
            Some(c) if c == '>' || c == '/' || c.is_whitespace() => return Some(at),
            None => return Some(at),
            _ => from = at + open.len(),
        }
    }
    None
}

/// A command as the credential rules see it: each program with its
/// first operand (git's subcommand) and whether it only reads or steers
/// the shell.
#[derive(Debug, Clone)]
pub struct Run<'a> {
    pub program: &'a str,
    pub subcommand: Option<&'a str>,
    /// Only reads and prints, or steers the shell (`cd`, `jq`, `head`).
    pub harmless: bool,
}

/// Does a row of `OWNED` name this program?
pub fn is_owner(program: &str) -> bool {
    OWNED.iter().any(|o| o.programs.contains(&program))
}

/// The `OWNED` rows a command's programs read as themselves. `allowed`:
/// the command was allowed by a tier that looked at it (not run because
/// the policy is off or because the sandbox contains it); `runs`: every
/// command of the script (`None`: not all could be placed).
pub fn owned_by<'a>(allowed: bool, runs: Option<&[Run<'a>]>) -> Vec<&'static Owned> {
    let Some(runs) = runs.filter(|r| allowed && !r.is_empty()) else {
        return Vec::new();
    };
    let owns = |row: &Owned, r: &Run<'_>| {
        row.programs.contains(&r.program)
            && (row.subcommands.is_empty()
                || r.subcommand.is_some_and(|s| row.subcommands.contains(&s)))
    };
    // Every program is an owner (of some row) or harmless.
    if !runs
        .iter()
        .all(|r| r.harmless || OWNED.iter().any(|row| owns(row, r)))
    {
        return Vec::new();
    }
    OWNED
        .iter()
        .filter(|row| runs.iter().any(|r| owns(row, r)))
        .collect()
}

/// The files `sandbox.credentials` gives a command running `programs`:
/// (the name, the template).
pub fn configured(names: &[String], programs: &[&str]) -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    for s in SETTINGS {
        if names.iter().any(|n| n == s.name) && s.programs.iter().any(|p| programs.contains(p)) {
            out.push((s.name, s.path));
        }
    }
    for (name, progs, path, _) in TOKENS {
        if names.iter().any(|n| n == name) && progs.iter().any(|p| programs.contains(p)) {
            out.push((*name, *path));
        }
    }
    out
}

/// Write the filtered copy of `original` at `copy` (when it differs
/// from what is there). `Ok(false)`: the original is missing or
/// unreadable (nothing to show).
pub fn write_copy(original: &Path, copy: &Path, format: Format) -> Result<bool, String> {
    let Ok(text) = std::fs::read(original) else {
        return Ok(false);
    };
    let filtered = filter(format, &String::from_utf8_lossy(&text));
    if std::fs::read(copy).is_ok_and(|old| old == filtered.as_bytes()) {
        return Ok(true);
    }
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", copy.display());
    if let Some(dir) = copy.parent() {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(fail)?;
    }
    let tmp = copy.with_extension("tmp");
    std::fs::write(&tmp, filtered)
        .and_then(|()| std::fs::rename(&tmp, copy))
        .map_err(fail)?;
    Ok(true)
}

/// Where a settings file's filtered copy lives in the session's
/// directory.
pub fn copy_path(session_dir: &Path, row: usize) -> PathBuf {
    session_dir
        .join("settings")
        .join(format!("{row}-{}", SETTINGS[row].name))
}

/// The part of a template that names the file (`~/.kube` → `/.kube`,
/// `${XDG_CONFIG_HOME:-~/.config}/gh` → `/gh`).
fn tail(template: &str) -> &str {
    let t = template.rsplit_once('}').map_or(template, |(_, t)| t);
    t.strip_prefix('~').unwrap_or(t)
}

fn names_path(template: &str, p: &Path) -> bool {
    let (tail, p) = (tail(template), p.to_string_lossy());
    p.ends_with(tail) || p.contains(&format!("{tail}/"))
}

/// For the hint on a refused read of `p`: whose credential file it is,
/// and how that tool reads it.
pub fn whose(p: &Path) -> Option<String> {
    if let Some(s) = SETTINGS.iter().find(|s| names_path(s.path, p)) {
        return Some(format!(
            "{} reads it with its secrets taken out; commands running {} get it whole only where sandbox.credentials names \"{}\" (a private registry's token)",
            s.programs[0],
            s.programs.join(", "),
            s.name
        ));
    }
    if let Some((name, progs, _, _)) = TOKENS.iter().find(|(_, _, path, _)| names_path(path, p)) {
        return Some(format!(
            "commands running {} get it only where sandbox.credentials names \"{name}\"",
            progs.join(", ")
        ));
    }
    OWNED
        .iter()
        .find(|o| o.paths.iter().any(|t| names_path(t, p)))
        .map(|o| {
            let sub = o
                .subcommands_joined("/")
                .map_or_else(String::new, |s| format!(" {s}"));
            format!(
                "it is {}'s own ({}): {}{sub} reads it when it runs as itself, in a command the policy allowed where every other program only reads (not a script, not inline code, not with auto mode off)",
                o.programs[0], o.why, o.programs[0]
            )
        })
}

/// The tables, for `automode defaults`.
pub fn describe() -> Vec<String> {
    let mut out: Vec<String> = OWNED
        .iter()
        .map(|o| {
            let subs = o
                .subcommands_joined(", ")
                .map_or_else(String::new, |s| format!(" ({s})"));
            format!(
                "{}{subs} reads {} as itself ({})",
                o.programs.join(" "),
                o.paths.join(" "),
                o.why
            )
        })
        .collect();
    out.extend(SETTINGS.iter().map(|s| {
        format!(
            "{} is read with its secrets taken out; sandbox.credentials \"{}\" gives {} it whole ({})",
            s.path,
            s.name,
            s.programs.join(" "),
            s.why
        )
    }));
    out.extend(TOKENS.iter().map(|(n, progs, path, why)| {
        format!(
            "{path}: sandbox.credentials \"{n}\" gives it to {} ({why})",
            progs.join(" ")
        )
    }));
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn settings_keep_the_registry_and_lose_the_tokens() {
        let npmrc = "registry=https://npm.corp.example/\n\
                     //npm.corp.example/:_authToken=npm_XYZZY1\n\
                     _auth = dXNlcjpTRUNSRVQy\n\
                     @corp:registry=https://npm.corp.example/\n\
                     proxy=http://bob:XYZZY3@proxy.corp:3128/\n\
                     ; comment with token word stays\n";
        let out = filter(Format::Lines, npmrc);
        assert!(
            out.contains("registry=https://npm.corp.example/\n"),
            "{out}"
        );
        assert!(out.contains("@corp:registry=https://npm.corp.example/"));
        assert!(out.contains("proxy=http://proxy.corp:3128/"), "{out}");
        assert!(!out.contains("XYZZY"), "{out}");
        assert!(!out.contains("dXNlcjpTRUNSRVQy"), "{out}");
        let pip = "[global]\nindex-url = https://u:XYZZY4@pypi.corp/simple\ntimeout = 30\n";
        let out = filter(Format::Lines, pip);
        assert!(
            out.contains("index-url = https://pypi.corp/simple"),
            "{out}"
        );
        assert!(
            out.contains("timeout = 30") && !out.contains("XYZZY"),
            "{out}"
        );
        let yarn = "npmRegistryServer: \"https://npm.corp\"\nnpmScopes:\n  corp:\n    npmAuthToken: XYZZY5\n    npmRegistryServer: https://npm.corp\n";
        let out = filter(Format::Lines, yarn);
        assert!(
            out.contains("npmRegistryServer: \"https://npm.corp\""),
            "{out}"
        );
        assert!(out.contains("  corp:") && !out.contains("XYZZY"), "{out}");
        let gradle = "org.gradle.jvmargs=-Xmx2g\nossrhPassword=XYZZY6\nsigning.secretKeyRingFile=/k\nsystemProp.http.proxyHost=proxy\n";
        let out = filter(Format::Lines, gradle);
        assert!(
            out.contains("jvmargs") && out.contains("proxyHost"),
            "{out}"
        );
        assert!(!out.contains("XYZZY6") && !out.contains("/k"), "{out}");
        // A bare word (a token pasted in) goes; a continued URL stays.
        let out = filter(
            Format::Lines,
            "[global]\nnpm_bareXYZZY11\nextra-index-url =\n    https://a:XYZZY12@x/simple\n",
        );
        assert!(!out.contains("XYZZY"), "{out}");
        assert!(out.contains("    https://x/simple"), "{out}");
    }

    #[test]
    fn tokens_in_other_shapes_go_too() {
        for text in [
            "npmAuthIdent: \"user:XYZZY\"\n",
            "gpr.key=ghp_XYZZY\n",
            "signingInMemoryKey=XYZZY\n",
            "# //host/:_authToken=npm_XYZZY\n",
            "extra-index-url = https://XYZZY@pypi.fury.io/me/\n",
            "npmScopes: {corp: {npmAuthToken: XYZZY}}\n",
            "org.gradle.jvmargs=-Dhttp.proxyPassword=XYZZY\n",
            "ossrhPassword=abc\\\n  XYZZY\n",
        ] {
            let out = filter(Format::Lines, text);
            assert!(!out.contains("XYZZY"), "{text:?} gave {out:?}");
        }
        let xml = "<settings><profiles><profile><properties>\n<gpg.passphrase>XYZZY</gpg.passphrase>\n<url>https://u:XYZZY@repo</url>\n</properties></profile></profiles></settings>\n";
        assert!(!filter(Format::MavenXml, xml).contains("XYZZY"));
    }

    #[test]
    fn maven_settings_lose_servers_and_passwords() {
        let xml = "<settings>\n<mirrors><mirror><url>https://repo.corp/maven</url></mirror></mirrors>\n\
                   <servers>\n<server><id>corp</id><password>XYZZY7</password></server>\n</servers>\n\
                   <proxies><proxy><host>p</host><password>XYZZY8</password></proxy></proxies>\n\
                   <serversX>kept</serversX>\n</settings>\n";
        let out = filter(Format::MavenXml, xml);
        assert!(out.contains("https://repo.corp/maven"), "{out}");
        assert!(
            out.contains("<host>p</host>") && out.contains("<serversX>kept"),
            "{out}"
        );
        assert!(!out.contains("XYZZY"), "{out}");
        // Unclosed: everything after it goes.
        let out = filter(Format::MavenXml, "<settings><servers><server>XYZZY9");
        assert_eq!(out, "<settings>\n");
        // Not settings at all: nothing.
        assert_eq!(filter(Format::MavenXml, "XYZZY10\n"), "");
    }

    #[test]
    fn a_program_reads_its_own_files_only_when_nothing_else_runs_code() {
        let run = |program, subcommand, harmless| Run {
            program,
            subcommand,
            harmless,
        };
        let names = |rows: Vec<&Owned>| -> Vec<&str> { rows.iter().map(|r| r.why).collect() };
        // gh alone, or piped into jq.
        let gh = [run("gh", Some("pr"), false), run("jq", None, true)];
        assert_eq!(names(owned_by(true, Some(&gh))), [OWNED[0].why]);
        // Not without a verdict that looked at it.
        assert!(owned_by(false, Some(&gh)).is_empty());
        // A project script beside it: nothing.
        let mixed = [run("gh", Some("pr"), false), run("python3", None, false)];
        assert!(owned_by(true, Some(&mixed)).is_empty());
        assert!(owned_by(true, None).is_empty());
        // git: only its remote work.
        let push = [run("git", Some("push"), false)];
        assert_eq!(owned_by(true, Some(&push)).len(), 1);
        let commit = [run("git", Some("commit"), false)];
        assert!(owned_by(true, Some(&commit)).is_empty());
    }

    #[test]
    fn the_hint_names_the_owner() {
        let gh = whose(Path::new("/h/.config/gh/hosts.yml")).unwrap();
        assert!(gh.contains("gh's own"), "{gh}");
        let npm = whose(Path::new("/h/.npmrc")).unwrap();
        assert!(npm.contains("sandbox.credentials names \"npm\""), "{npm}");
        assert!(
            whose(Path::new("/h/.ssh/id_ed25519"))
                .unwrap()
                .contains("git")
        );
        assert!(whose(Path::new("/h/.gnupg/x")).is_none());
    }

    #[test]
    fn credentials_config_names_rows() {
        let given = configured(&["npm".to_string()], &["npm", "node"]);
        assert_eq!(given, [("npm", "~/.npmrc")]);
        assert!(configured(&["npm".to_string()], &["python3"]).is_empty());
        assert!(names().contains(&"cargo") && names().contains(&"maven"));
    }
}
