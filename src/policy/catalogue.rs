//! The hard-deny catalogue: checks that deny whatever tier would
//! otherwise allow, each a row with an id and a reason. They look at the
//! analysis (every command however nested, every file effect with its
//! resolved path, every finding), so wrappers, nested shells, quoting and
//! path spellings are already undone when a check runs.

use std::path::{Path, PathBuf};

use super::Ctx;
use super::places::{self, Places};
use crate::shell::analysis::{Arg, CommandInfo, Effect, EffectKind, FindingKind, TargetKind};

/// One catalogue row.
#[derive(Debug)]
pub struct Check {
    pub id: &'static str,
    pub reason: &'static str,
    /// The evidence, when the check fires.
    pub check: fn(&Ctx<'_>) -> Option<String>,
}

/// The catalogue, in the order checks are tried.
pub const CATALOGUE: &[Check] = &[
    Check {
        id: "rm-root",
        reason: "deleting the root, a home directory or a top-level system directory destroys the system or the user's data",
        check: critical_delete,
    },
    Check {
        id: "disk-wipe",
        reason: "writing a block device or making a file system destroys a disk",
        check: disk_wipe,
    },
    Check {
        id: "system-permissions",
        reason: "changing permissions or owners of system or SSH files breaks the system or its security",
        check: system_permissions,
    },
    Check {
        id: "profile-write",
        reason: "shell profiles and rc files run in every future shell",
        check: profile_write,
    },
    Check {
        id: "ssh-access",
        reason: "SSH authorized keys, config and rc files grant access or run commands",
        check: ssh_write,
    },
    Check {
        id: "automode-tamper",
        reason: "automode's own configuration, state, binary and shims are not the agent's to change",
        check: automode_tamper,
    },
    Check {
        id: "harness-settings",
        reason: "a coding agent's settings, hooks and transcripts decide what the agent may do",
        check: harness_write,
    },
    Check {
        id: "tls-weakening",
        reason: "turning off TLS certificate checks lets anyone on the network change what is downloaded",
        check: tls_weakening,
    },
    Check {
        id: "persistence",
        reason: "scheduled jobs, services, login items and global git hooks keep running after the session",
        check: persistence,
    },
    Check {
        id: "protected-target",
        reason: "a program that may write (one the tables do not model exactly, an editor, inline code, an unknown program) is judged by the protected places it names, not by what automode knows of it",
        check: named_target,
    },
    Check {
        id: "automode-command",
        reason: "only the user may turn automode off, reset it, trust projects or approve commands",
        check: automode_command,
    },
    Check {
        id: "dynamic-execution",
        reason: "the program or script that would run is only known at run time, so it cannot be checked",
        check: dynamic_execution,
    },
    Check {
        id: "parse-state",
        reason: "the script changes how later text parses or which program a name runs",
        check: parse_state,
    },
    Check {
        id: "automode-variable",
        reason: "automode's own variables are not the agent's to set",
        check: automode_variable,
    },
    Check {
        id: "sandbox-widening",
        reason: "some paths are never granted to a command (/, the home itself, secrets, profiles, automode's and the harnesses' settings and state, /etc), and under sandbox.mode require the sandbox is never lifted",
        check: refused_widening,
    },
    Check {
        id: "dangerous-assignment",
        reason: "the variable makes programs run code the command line does not show",
        check: dangerous_assignment,
    },
    Check {
        id: "bulk-delete",
        reason: "deletion must name one visible literal target per call",
        check: bulk_delete,
    },
];

// ------------------------------------------------------------ helpers

fn mutating(kind: EffectKind) -> bool {
    !matches!(kind, EffectKind::Read)
}

/// Candidate paths an effect may touch: its resolutions (canonical,
/// lexical, after a failed `cd`), and for a glob the base plus every
/// sensitive name under it that the pattern matches.
fn candidates(places: &Places, e: &Effect) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in e
        .path
        .iter()
        .chain(e.lexical.iter())
        .chain(e.alternatives.iter())
    {
        if !out.contains(p) {
            out.push(p.clone());
        }
        // /proc/PID/root and /proc/PID/cwd lead back into the file system.
        if let Some(inner) = through_proc(p)
            && !out.contains(&inner)
        {
            out.push(inner);
        }
    }
    // A variable that resolved to a pattern (`${HOME}/*`): its parent with
    // the last component as the filter.
    let mut filter = e.filter.clone();
    if let Some((parent, name)) = dynamic_pattern(e) {
        out.push(parent);
        filter = Some(name);
    }
    if e.target == TargetKind::Glob || filter.is_some() {
        let pattern = filter.unwrap_or_else(|| "*".into());
        let bases = out.clone();
        for base in bases {
            for anchor in anchors(places, &base) {
                if let Ok(rel) = anchor.strip_prefix(&base)
                    && let Some(first) = rel.components().next()
                    && glob_match(&pattern, &first.as_os_str().to_string_lossy())
                {
                    let child = base.join(first);
                    if !out.contains(&child) {
                        out.push(child);
                    }
                }
            }
        }
    }
    out
}

/// A dynamic target whose value is a pattern (`${HOME}/*`): its parent
/// and the last component.
fn dynamic_pattern(e: &Effect) -> Option<(PathBuf, String)> {
    if e.target != TargetKind::Dynamic {
        return None;
    }
    let p = e.path.as_ref()?;
    let name = p.file_name()?.to_string_lossy().into_owned();
    if !name.contains(['*', '?', '[']) {
        return None;
    }
    Some((p.parent()?.to_path_buf(), name))
}

/// `/proc/1/root/etc` → `/etc` (`/proc/PID/root` is that process's root
/// directory, usually `/`).
fn through_proc(p: &Path) -> Option<PathBuf> {
    let mut comps = p.components();
    let (Some(std::path::Component::RootDir), Some(a), Some(_pid), Some(b)) =
        (comps.next(), comps.next(), comps.next(), comps.next())
    else {
        return None;
    };
    if a.as_os_str() != "proc" || b.as_os_str() != "root" {
        return None;
    }
    Some(Path::new("/").join(comps.as_path()))
}

/// Sensitive places at or under `base` (in the home it is in, or the
/// system roots under `/`).
fn anchors(places: &Places, base: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let homes: Vec<PathBuf> = match places.home_of(base) {
        Some(h) => vec![h],
        None => places
            .home
            .iter()
            .filter(|h| h.starts_with(base))
            .cloned()
            .collect(),
    };
    for h in homes {
        out.push(h.clone());
        for (f, _) in places::PROFILE_FILES {
            out.push(h.join(f));
        }
        for (f, _) in places::SSH_FILES {
            out.push(h.join(".ssh").join(f));
        }
        for (d, _) in places::HARNESS_DIRS {
            out.push(h.join(d));
        }
        for d in [
            ".config/automode",
            ".local/state/automode",
            ".local/share/automode",
            ".config/systemd",
            ".config/autostart",
            "Library/LaunchAgents",
            ".gitconfig",
            ".wgetrc",
            ".curlrc",
        ] {
            out.push(h.join(d));
        }
    }
    for own in [
        &places.automode_config,
        &places.automode_state,
        &places.automode_share,
        &places.automode_exe,
    ]
    .into_iter()
    .flatten()
    {
        out.push(own.clone());
    }
    if base == Path::new("/") {
        for (r, _) in places::SYSTEM_ROOTS {
            out.push(PathBuf::from(r));
        }
    }
    out.retain(|a| a.starts_with(base));
    out
}

/// `*`, `?` and `[…]` glob matching of one name (a leading `*` does not
/// match a leading dot, as in bash).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    if pattern.contains("**") {
        return glob_match(&pattern.replace("**", "*"), name);
    }
    if name.starts_with('.')
        && !pattern.starts_with('.')
        && pattern != "*"
        && pattern.starts_with(['*', '?', '['])
    {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = name.chars().collect();
    // Iterative matcher with one star backtrack point.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, len)) = class_match(&p[pi..], s[si]) {
                        if matched {
                            pi += len;
                            si += 1;
                            continue;
                        }
                    } else if s[si] == '[' {
                        pi += 1;
                        si += 1;
                        continue;
                    }
                }
                c if c == s[si] => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// `[abc]`, `[!a-z]`: (matches, length of the class in the pattern).
fn class_match(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let start = i;
    let mut hit = false;
    while i < p.len() && (p[i] != ']' || i == start) {
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            if p[i] <= c && c <= p[i + 2] {
                hit = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                hit = true;
            }
            i += 1;
        }
    }
    if i >= p.len() {
        return None;
    }
    Some((hit != negate, i + 1))
}

/// The first mutating effect with a candidate the predicate flags.
fn find_mutation(
    ctx: &Ctx<'_>,
    pred: &dyn Fn(&Places, &Path, &Effect) -> Option<String>,
) -> Option<String> {
    for e in &ctx.analysis.effects {
        if !mutating(e.kind) || super::ln_target_inert(ctx, e) {
            continue;
        }
        for c in candidates(ctx.places, e) {
            if let Some(why) = pred(ctx.places, &c, e) {
                return Some(format!("{} {}: {why}", verb(e.kind), shown(e, &c)));
            }
            // A recursive change reaches what is under it.
            if e.recursive || matches!(e.kind, EffectKind::Delete) {
                for a in anchors(ctx.places, &c) {
                    if a != c
                        && let Some(why) = pred(ctx.places, &a, e)
                    {
                        return Some(format!(
                            "{} {} (which holds {}): {why}",
                            verb(e.kind),
                            shown(e, &c),
                            a.display()
                        ));
                    }
                }
            }
        }
    }
    None
}

fn verb(kind: EffectKind) -> &'static str {
    match kind {
        EffectKind::Read => "reads",
        EffectKind::Write => "writes",
        EffectKind::Append => "appends to",
        EffectKind::Create => "creates",
        EffectKind::Delete => "deletes",
        EffectKind::Permission => "changes permissions of",
        EffectKind::Owner => "changes the owner of",
    }
}

fn shown(e: &Effect, c: &Path) -> String {
    let s = c.display().to_string();
    if e.raw == s || e.raw.is_empty() {
        s
    } else {
        format!("{} ({s})", e.raw)
    }
}

fn args_of(c: &CommandInfo) -> Vec<Option<&str>> {
    c.argv.iter().skip(1).map(Arg::lit).collect()
}

/// The value of a variable set for a command or for the shell: from the
/// command's environment, else from the script's assignments.
fn env_values<'a>(ctx: &'a Ctx<'_>) -> Vec<(&'a str, Option<&'a str>, Option<usize>)> {
    let mut out = Vec::new();
    for (i, c) in ctx.analysis.commands.iter().enumerate() {
        for (n, v) in &c.env {
            out.push((n.as_str(), v.known(), Some(i)));
        }
    }
    for a in &ctx.analysis.assignments {
        out.push((a.name.as_str(), a.value.as_deref(), None));
    }
    out
}

// ------------------------------------------------------------ checks

fn critical(places: &Places, p: &Path) -> Option<String> {
    if let Some(why) = places.system_root(p) {
        return Some(format!("{} is {why}", p.display()));
    }
    if places.is_home_root(p) {
        return Some(format!("{} is a home directory", p.display()));
    }
    if let Some(h) = &places.home
        && h.starts_with(p)
    {
        return Some(format!("{} holds the home directory", p.display()));
    }
    if p.starts_with("/var/home") && p.components().count() <= 3 || p == Path::new("/Users") {
        return Some(format!("{} holds home directories", p.display()));
    }
    None
}

fn critical_delete(ctx: &Ctx<'_>) -> Option<String> {
    for e in &ctx.analysis.effects {
        if e.kind != EffectKind::Delete {
            continue;
        }
        // A filter that is not "everything" narrows a find/glob below its
        // base; the base itself goes only with a match-all pattern.
        let pattern = dynamic_pattern(e);
        let filter = e
            .filter
            .clone()
            .or_else(|| pattern.as_ref().map(|(_, n)| n.clone()));
        let match_all = filter
            .as_deref()
            .is_none_or(|f| f.chars().all(|c| c == '*'));
        for c in candidates(ctx.places, e) {
            let is_base = e.path.as_deref() == Some(c.as_path())
                || e.alternatives.contains(&c)
                || pattern.as_ref().is_some_and(|(parent, _)| *parent == c);
            if (e.target == TargetKind::Glob || filter.is_some()) && is_base && !match_all {
                continue;
            }
            if let Some(why) = critical(ctx.places, &c) {
                return Some(format!("deletes {}: {why}", shown(e, &c)));
            }
        }
    }
    None
}

fn disk_wipe(ctx: &Ctx<'_>) -> Option<String> {
    for c in &ctx.analysis.commands {
        let Some(name) = c.base_name() else { continue };
        if name.starts_with("mkfs") || matches!(name, "wipefs" | "blkdiscard" | "mkswap") {
            return Some(format!("{name} destroys what is on the device"));
        }
        if name == "dd"
            && let Some(of) = args_of(c)
                .into_iter()
                .flatten()
                .find_map(|a| a.strip_prefix("of="))
            && places::block_device(Path::new(of))
        {
            return Some(format!("dd writes the block device {of}"));
        }
    }
    find_mutation(ctx, &|_, p, _| {
        places::block_device(p).then(|| "a block device".to_string())
    })
}

fn profile_write(ctx: &Ctx<'_>) -> Option<String> {
    find_mutation(ctx, &|places, p, _| places.profile(p))
}

fn ssh_write(ctx: &Ctx<'_>) -> Option<String> {
    find_mutation(ctx, &|places, p, e| {
        let why = places.ssh(p)?;
        // Making ~/.ssh or listing its keys is not granting access.
        (e.kind != EffectKind::Create || p.file_name().is_some_and(|n| n != ".ssh")).then_some(why)
    })
}

fn automode_tamper(ctx: &Ctx<'_>) -> Option<String> {
    find_mutation(ctx, &|places, p, _| places.automode_own(p))
}

fn harness_write(ctx: &Ctx<'_>) -> Option<String> {
    find_mutation(ctx, &|places, p, _| places.harness(p))
}

/// Environment variables that turn off certificate checks, with the
/// values that do.
const TLS_VARIABLES: &[(&str, &str, &str)] = &[
    (
        "NODE_TLS_REJECT_UNAUTHORIZED",
        "0",
        "Node.js stops checking certificates",
    ),
    (
        "PYTHONHTTPSVERIFY",
        "0",
        "Python stops checking certificates",
    ),
    (
        "GIT_SSL_NO_VERIFY",
        "*",
        "git stops checking certificates (any value)",
    ),
    ("GOINSECURE", "*", "go fetches modules without TLS checks"),
    ("GONOSUMDB", "*", "go skips checksum verification"),
    ("GONOSUMCHECK", "*", "go skips checksum verification"),
    ("GOFLAGS", "-insecure", "go fetches without TLS checks"),
    (
        "PIP_TRUSTED_HOST",
        "*",
        "pip trusts hosts without TLS checks",
    ),
    (
        "UV_INSECURE_HOST",
        "*",
        "uv trusts hosts without TLS checks",
    ),
    ("PIP_CERT", "", "pip with an empty certificate bundle"),
    (
        "NPM_CONFIG_STRICT_SSL",
        "false",
        "npm stops checking certificates",
    ),
    (
        "YARN_ENABLE_STRICT_SSL",
        "false",
        "yarn stops checking certificates",
    ),
    (
        "YARN_STRICT_SSL",
        "false",
        "yarn stops checking certificates",
    ),
    (
        "CURL_CA_BUNDLE",
        "",
        "curl and requests with an empty certificate bundle",
    ),
    (
        "REQUESTS_CA_BUNDLE",
        "",
        "requests with an empty certificate bundle",
    ),
    (
        "AZURE_CLI_DISABLE_CONNECTION_VERIFICATION",
        "*",
        "az stops checking certificates",
    ),
    (
        "CARGO_HTTP_CHECK_REVOKE",
        "false",
        "cargo stops checking certificate revocation",
    ),
    (
        "HELM_INSECURE_SKIP_TLS_VERIFY",
        "*",
        "helm stops checking certificates",
    ),
    (
        "K8S_INSECURE_SKIP_TLS_VERIFY",
        "*",
        "kubectl stops checking certificates",
    ),
    (
        "DOCKER_TLS_VERIFY",
        "",
        "docker stops checking certificates",
    ),
];

fn falsy(v: &str) -> bool {
    matches!(
        v.to_ascii_lowercase().trim(),
        "false" | "no" | "off" | "0" | "n"
    )
}

/// Command-line switches that turn off certificate checks, by program.
const TLS_FLAGS: &[(&[&str], &[&str])] = &[
    (
        &["curl"],
        &["-k", "--insecure", "--proxy-insecure", "--doh-insecure"],
    ),
    (&["wget"], &["--no-check-certificate"]),
    (
        &[
            "kubectl", "oc", "helm", "kubeadm", "flux", "argocd", "istioctl", "vcluster",
        ],
        &["--insecure-skip-tls-verify", "--insecure"],
    ),
    (&["aws"], &["--no-verify-ssl"]),
    (
        &["pip", "pip3", "uv", "pipenv", "poetry", "pdm"],
        &["--trusted-host", "--allow-insecure-host"],
    ),
    (
        &["podman", "buildah", "skopeo", "crane", "oras", "regctl"],
        &[
            "--tls-verify=false",
            "--insecure",
            "--dest-tls-verify=false",
            "--src-tls-verify=false",
        ],
    ),
    (&["go"], &["-insecure"]),
    (
        &["npm", "pnpm", "yarn"],
        &["--strict-ssl=false", "--no-strict-ssl"],
    ),
    (&["http", "https", "xh"], &["--verify=no", "--verify=false"]),
    (&["git"], &["-c http.sslverify=false"]),
    (&["gcloud"], &["--no-verify-ssl"]),
    (&["conda", "mamba"], &["--insecure"]),
    (&["docker"], &["--insecure-registry"]),
    (&["az"], &["--insecure"]),
    (
        &["ansible", "ansible-playbook", "ansible-galaxy"],
        &["--ignore-certs", "-c"],
    ),
    (&["gem", "bundle"], &["--no-verify", "--ssl-verify-mode=0"]),
];

/// Config settings (`tool config set KEY VALUE`) that turn checks off.
fn tls_config_set(name: &str, args: &[&str]) -> Option<String> {
    let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
    let l: Vec<&str> = lower.iter().map(String::as_str).collect();
    let pair = |key_matches: &dyn Fn(&str) -> bool, value_bad: &dyn Fn(&str) -> bool| -> bool {
        l.windows(2).any(|w| key_matches(w[0]) && value_bad(w[1]))
            || l.iter().any(|a| {
                a.split_once('=')
                    .is_some_and(|(k, v)| key_matches(k) && value_bad(v))
            })
    };
    let hit = match name {
        "git" => {
            pair(&|k| k.ends_with("sslverify"), &falsy)
                || pair(&|k| k.ends_with("sslverify"), &|v| v.is_empty())
        }
        "npm" | "pnpm" | "yarn" => pair(
            &|k| k == "strict-ssl" || k == "strictssl" || k == "enablestrictssl",
            &falsy,
        ),
        "pip" | "pip3" => {
            l.iter()
                .any(|a| a.ends_with("trusted-host") || a.ends_with("trusted_host"))
                && l.iter().any(|a| *a == "config" || *a == "set")
        }
        "conda" | "mamba" | "micromamba" => {
            pair(&|k| k == "ssl_verify", &|v| falsy(v) || v.is_empty())
        }
        "composer" => {
            pair(&|k| k == "disable-tls", &|v| v == "true" || v == "1")
                || pair(&|k| k == "secure-http", &falsy)
        }
        "python" | "python3" => {
            l.contains(&"pip")
                && l.iter().any(|a| a.ends_with("trusted-host"))
                && l.contains(&"config")
        }
        "bundle" => pair(&|k| k.contains("ssl_verify_mode"), &|v| v == "0"),
        "poetry" => pair(&|k| k.ends_with(".cert"), &falsy),
        "cargo" => pair(&|k| k.contains("check-revoke"), &falsy),
        "kubectl" => l
            .iter()
            .any(|a| a.starts_with("--insecure-skip-tls-verify") && !a.ends_with("=false")),
        _ => false,
    };
    hit.then(|| format!("{name} {} turns off certificate checks", args.join(" ")))
}

fn tls_weakening(ctx: &Ctx<'_>) -> Option<String> {
    for (name, value, _) in env_values(ctx) {
        let upper = name.to_ascii_uppercase();
        if let Some((var, bad, why)) = TLS_VARIABLES.iter().find(|(v, ..)| *v == upper) {
            let fires = match value {
                None => true,
                Some(v) => match *bad {
                    "*" => !v.is_empty() || *var == "GIT_SSL_NO_VERIFY",
                    "" => v.is_empty(),
                    "0" => v.trim() == "0",
                    "false" => falsy(v),
                    flag => v.contains(flag),
                },
            };
            if fires {
                return Some(format!("{var}={}: {why}", value.unwrap_or("<dynamic>")));
            }
        }
    }
    for c in &ctx.analysis.commands {
        let Some(name) = c.base_name() else { continue };
        let args: Vec<&str> = c
            .argv
            .iter()
            .skip(1)
            .map(|a| a.lit().unwrap_or(""))
            .collect();
        for (names, flags) in TLS_FLAGS {
            if !names.contains(&name) {
                continue;
            }
            for a in &args {
                let lower = a.to_ascii_lowercase();
                let hit = flags.iter().any(|f| {
                    lower == *f
                        || (f.starts_with("--")
                            && !f.contains('=')
                            && lower.starts_with(&format!("{f}="))
                            && !lower.ends_with("=false"))
                        || (f.len() == 2
                            && f.starts_with('-')
                            && name == "curl"
                            && short_group_has(a, f.as_bytes()[1] as char, CURL_VALUE_FLAGS))
                });
                if hit && !(name == "ansible" && *a == "-c") {
                    return Some(format!("{name} {a} turns off certificate checks"));
                }
            }
        }
        if name == "git" {
            // `git -c http.sslVerify=false …`
            for w in args.windows(2) {
                if w[0] == "-c"
                    && let Some((k, v)) = w[1].split_once('=')
                    && k.to_ascii_lowercase().ends_with("sslverify")
                    && (falsy(v) || v.is_empty())
                {
                    return Some(format!("git -c {} turns off certificate checks", w[1]));
                }
            }
        }
        if name == "wget"
            && args.iter().any(|a| {
                a.to_ascii_lowercase()
                    .replace(' ', "")
                    .contains("check_certificate=off")
                    || a.to_ascii_lowercase().contains("check-certificate=off")
            })
        {
            return Some("wget -e check_certificate=off turns off certificate checks".into());
        }
        if let Some(why) = tls_config_set(name, &args) {
            return Some(why);
        }
        // `python -m pip install --trusted-host`
        if name.starts_with("python")
            && args.contains(&"pip")
            && args.iter().any(|a| a.starts_with("--trusted-host"))
        {
            return Some("pip --trusted-host turns off certificate checks".into());
        }
    }
    // Tool configuration files that can turn checks off.
    if let Some(hit) = find_mutation(ctx, &|places, p, _| places.tls_config(p)) {
        return Some(hit);
    }
    // Writing TLS-off settings into a tool's config file.
    for e in &ctx.analysis.effects {
        if !mutating(e.kind) {
            continue;
        }
        let Some(p) = &e.path else { continue };
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let config_file = matches!(
            name.as_str(),
            ".gitconfig"
                | ".npmrc"
                | ".yarnrc"
                | ".yarnrc.yml"
                | "pip.conf"
                | "pip.ini"
                | ".condarc"
                | "config"
                | "gitconfig"
                | ".pydistutils.cfg"
                | "config.toml"
                | "uv.toml"
                | ".bunfig.toml"
                | "bunfig.toml"
        );
        let source = e
            .command
            .and_then(|i| ctx.analysis.commands.get(i))
            .map(|c| c.source.to_ascii_lowercase())
            .unwrap_or_default();
        let squeezed: String = source
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '"' && *c != '\'')
            .collect();
        if config_file
            && [
                "sslverify=false",
                "sslverify=no",
                "sslverify=0",
                "strict-ssl=false",
                "strict_ssl=false",
                "trusted-host",
                "trusted_host",
                "ssl_verify:false",
                "ssl_verify=false",
                "check_certificate=off",
                "insecure",
                "allow-insecure-host",
                "enablestrictssl:false",
                "check-revoke=false",
            ]
            .iter()
            .any(|k| squeezed.contains(k))
        {
            return Some(format!(
                "writes certificate-check settings into {}",
                p.display()
            ));
        }
    }
    None
}

/// curl short options that take a value (the rest of a group is that
/// value, so `-ok` names the file `k`).
const CURL_VALUE_FLAGS: &str = "oXdHuAebcFTxwKmrCEYyzUtPQ";

/// Is `flag` in the short-option group `arg` (stopping at an option that
/// takes a value)?
fn short_group_has(arg: &str, flag: char, value_flags: &str) -> bool {
    let Some(group) = arg.strip_prefix('-') else {
        return false;
    };
    if group.starts_with('-') {
        return false;
    }
    for c in group.chars() {
        if c == flag {
            return true;
        }
        if value_flags.contains(c) {
            return false;
        }
    }
    false
}

/// Places whose change schedules or starts programs.
fn persistence_place(places: &Places, p: &Path) -> Option<String> {
    let s = p.to_string_lossy();
    for (prefix, what) in [
        ("/etc/cron", "system cron jobs"),
        ("/etc/anacrontab", "anacron jobs"),
        ("/var/spool/cron", "user cron tables"),
        ("/var/spool/anacron", "anacron jobs"),
        ("/etc/systemd", "systemd units"),
        ("/lib/systemd", "systemd units"),
        ("/usr/lib/systemd", "systemd units"),
        ("/etc/init.d", "init scripts"),
        ("/etc/init/", "upstart jobs"),
        ("/etc/rc.local", "boot script"),
        ("/etc/rc.d", "boot scripts"),
        ("/etc/xdg/autostart", "desktop autostart"),
        ("/Library/LaunchAgents", "launchd agents"),
        ("/Library/LaunchDaemons", "launchd daemons"),
        ("/System/Library/LaunchDaemons", "launchd daemons"),
        ("/etc/update-motd.d", "login scripts"),
        ("/etc/periodic", "periodic jobs"),
    ] {
        if s.starts_with(prefix) {
            return Some(format!("{} holds {what}", p.display()));
        }
    }
    if let Some(rel) = places.in_home(p) {
        for (d, what) in [
            (".config/systemd", "user systemd units"),
            (".local/share/systemd", "user systemd units"),
            (".config/autostart", "desktop autostart entries"),
            ("Library/LaunchAgents", "launchd agents"),
            (".config/upstart", "upstart jobs"),
            (".kde/Autostart", "desktop autostart"),
            (".config/plasma-workspace/env", "login scripts"),
            (".xprofile", "X login script"),
            (".xinitrc", "X login script"),
            (".xsession", "X login script"),
            (".githooks", "global git hooks"),
            (
                ".git-templates",
                "git templates (hooks for every new repository)",
            ),
            (".config/git/hooks", "global git hooks"),
        ] {
            if rel.starts_with(d) {
                return Some(format!("~/{d} holds {what}"));
            }
        }
    }
    // Hooks of another repository.
    if s.contains("/.git/hooks") && !places.inside_cwd(p) {
        return Some(format!("{} is another repository's hooks", p.display()));
    }
    None
}

fn persistence(ctx: &Ctx<'_>) -> Option<String> {
    for c in &ctx.analysis.commands {
        let Some(name) = c.base_name() else { continue };
        let args: Vec<&str> = c
            .argv
            .iter()
            .skip(1)
            .map(|a| a.lit().unwrap_or("\u{0}"))
            .collect();
        let ops: Vec<&str> = args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .copied()
            .collect();
        let hit = match name {
            "crontab" => {
                !(args.contains(&"-l")
                    && args
                        .iter()
                        .all(|a| matches!(*a, "-l" | "-u") || !a.starts_with('-') && *a != "\u{0}"))
            }
            "systemctl" => ops.iter().any(|o| {
                matches!(
                    *o,
                    "enable"
                        | "reenable"
                        | "link"
                        | "preset"
                        | "preset-all"
                        | "add-wants"
                        | "add-requires"
                        | "set-default"
                        | "edit"
                        | "revert"
                        | "unmask"
                )
            }),
            "launchctl" => ops.first().is_some_and(|o| {
                matches!(*o, "load" | "bootstrap" | "enable" | "submit" | "kickstart")
            }),
            "at" | "batch" => !args.iter().any(|a| matches!(*a, "-l" | "-d" | "-r" | "-c")),
            "update-rc.d" => !ops.contains(&"remove"),
            "chkconfig" => {
                ops.iter().any(|o| matches!(*o, "on" | "reset")) || args.contains(&"--add")
            }
            "rc-update" => ops.first() == Some(&"add"),
            "loginctl" => ops.first() == Some(&"enable-linger"),
            "schtasks" => true,
            "git" => {
                let global = args.iter().any(|a| matches!(*a, "--global" | "--system"));
                let reading = args.iter().any(|a| {
                    matches!(
                        *a,
                        "--get"
                            | "--get-all"
                            | "--list"
                            | "-l"
                            | "--unset"
                            | "--unset-all"
                            | "--get-regexp"
                    )
                });
                args.contains(&"config")
                    && global
                    && !reading
                    && args.iter().any(|a| {
                        a.eq_ignore_ascii_case("core.hooksPath")
                            || a.to_ascii_lowercase().starts_with("init.templatedir")
                    })
            }
            _ => false,
        };
        if hit {
            let line: Vec<String> = c
                .argv
                .iter()
                .map(|a| a.lit().map_or_else(|| a.raw.clone(), str::to_string))
                .collect();
            return Some(format!(
                "{} schedules or installs something that keeps running",
                line.join(" ")
            ));
        }
    }
    find_mutation(ctx, &|places, p, _| persistence_place(places, p))
}

/// A command that may write and names a catalogue target in any of its
/// words, literal or resolved, inside option values (`-oFILE`,
/// `--out=FILE`, `of=FILE`) or inside code (`open('~/.bashrc', 'a')`).
/// Programs whose file effects the analysis records exactly are judged by
/// those effects (the checks above); programs that only read or name
/// files, and wrappers (their inner command is judged itself), are not
/// writers.
fn named_target(ctx: &Ctx<'_>) -> Option<String> {
    let a = ctx.analysis;
    for (i, c) in a.commands.iter().enumerate() {
        let Some(name) = c.base_name() else { continue };
        if super::MODELED.contains(&name) || super::NAMES_ONLY.contains(&name) {
            continue;
        }
        let class = super::tools::judge(&super::call_of(a, i, name, ctx.places, ctx.network_allow));
        if matches!(
            class,
            super::tools::Class::Neutral | super::tools::Class::ReadOnly
        ) && !a
            .findings
            .iter()
            .any(|f| f.command == Some(i) && f.kind == FindingKind::InlineCode)
        {
            continue;
        }
        let base = c.cwd.first().unwrap_or(&ctx.places.cwd);
        // A word only known at run time as written (`-o$HOME/.ssh` where
        // the environment is not trusted).
        let mut texts: Vec<&str> = c
            .argv
            .iter()
            .skip(1)
            .map(|w| w.known().unwrap_or(&w.raw))
            .collect();
        if let crate::shell::analysis::Stdin::Inline { text: Some(t) } = &c.stdin {
            texts.push(t);
        }
        for text in texts {
            for p in named_paths(ctx.places, base, text) {
                if let Some(why) = target_place(ctx.places, &p) {
                    return Some(format!(
                        "{name} may write, and names {}: {why}",
                        p.display()
                    ));
                }
            }
        }
    }
    None
}

/// The catalogue's protected places: profiles, SSH files, automode's own
/// files, the harnesses' settings, places that start programs later.
fn target_place(places: &Places, p: &Path) -> Option<String> {
    places
        .profile(p)
        .or_else(|| places.ssh(p))
        .or_else(|| places.automode_own(p))
        .or_else(|| places.harness(p))
        .or_else(|| persistence_place(places, p))
}

/// The paths a word (or a piece of code) may name: each token, and the
/// value of an option glued to it (`-o/x`, `--out=/x`, `of=/x`); `~/…`,
/// `$HOME/…` and `${HOME}/…` in the home; a token `/.name` (code that
/// joins the home and a name) also as `~/.name`.
fn named_paths(places: &Places, base: &Path, text: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let split = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\'' | '"'
                    | '('
                    | ')'
                    | ','
                    | ';'
                    | '<'
                    | '>'
                    | '|'
                    | '&'
                    | '`'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '+'
            )
    };
    let home = places.home.as_deref();
    // `${HOME}` would be split at its braces: name it first.
    let text = text.replace("${HOME}", "$HOME");
    for token in text.split(split).filter(|t| !t.is_empty()) {
        let mut forms = vec![token];
        if let Some((_, v)) = token.split_once('=') {
            forms.push(v);
        }
        if token.starts_with('-') && !token.starts_with("--") {
            // `-Xvalue`: the value after the option letter (a letter may
            // take several bytes).
            let mut value = token.chars();
            value.nth(1);
            if !value.as_str().is_empty() {
                forms.push(value.as_str());
            }
        }
        for f in forms {
            let f = f.strip_prefix("file:").unwrap_or(f);
            let abs = if let Some(rest) = f.strip_prefix("~/").or_else(|| f.strip_prefix("$HOME/"))
            {
                match home {
                    Some(h) => h.join(rest),
                    None => continue,
                }
            } else if f == "~" || f == "$HOME" {
                match home {
                    Some(h) => h.to_path_buf(),
                    None => continue,
                }
            } else if f.contains('/') || f.starts_with('.') {
                if f.starts_with('/')
                    && f[1..].starts_with('.')
                    && !f[1..].contains('/')
                    && let Some(h) = home
                {
                    out.push(h.join(&f[1..]));
                }
                base.join(f)
            } else {
                continue;
            };
            out.push(crate::shell::paths::resolve(Path::new("/"), &abs.to_string_lossy()).0);
        }
    }
    out
}

fn system_permissions(ctx: &Ctx<'_>) -> Option<String> {
    for e in &ctx.analysis.effects {
        if !matches!(e.kind, EffectKind::Permission | EffectKind::Owner) {
            continue;
        }
        for c in candidates(ctx.places, e) {
            let system = ctx.places.in_system_tree(&c)
                && ctx.places.home_of(&c).is_none()
                && !ctx.places.inside_cwd(&c);
            let ssh = ctx.places.in_ssh_dir(&c);
            // `chmod -R` on a home reaches its .ssh.
            let reaches_ssh = e.recursive && ctx.places.is_home_root(&c);
            if system || ssh || reaches_ssh || (c == Path::new("/")) {
                return Some(format!("{} {}", verb(e.kind), shown(e, &c)));
            }
        }
    }
    None
}

/// automode subcommands an agent may run (they change nothing).
const AUTOMODE_READ_ONLY: &[&str] = &[
    "status",
    "config",
    "defaults",
    "denials",
    "log",
    "check",
    "guidance",
    "help",
    "--help",
    "-h",
    "--version",
    "-V",
    "version",
];

fn automode_command(ctx: &Ctx<'_>) -> Option<String> {
    for c in &ctx.analysis.commands {
        let Some(name) = c.name() else { continue };
        let base = name.rsplit('/').next().unwrap_or(name);
        let is_automode =
            base == "automode"
                || ctx.places.automode_exe.as_deref().is_some_and(|exe| {
                    crate::shell::paths::resolve(&ctx.places.cwd, name).0 == exe
                });
        if !is_automode {
            continue;
        }
        let sub = c.argv.get(1).map(|a| a.lit().unwrap_or("<dynamic>"));
        match sub {
            Some("config") if c.argv.get(2).is_some_and(|a| a.lit() != Some("--json")) => {
                return Some("automode config with arguments".into());
            }
            None => {}
            Some("model") if c.argv.len() == 2 => {}
            Some(s) if AUTOMODE_READ_ONLY.contains(&s) => {}
            Some(s) => {
                return Some(format!(
                    "automode {s} changes automode's state or runs commands outside the policy"
                ));
            }
        }
    }
    None
}

fn dynamic_execution(ctx: &Ctx<'_>) -> Option<String> {
    ctx.analysis
        .findings
        .iter()
        .find(|f| {
            matches!(
                f.kind,
                FindingKind::DynamicExecutable
                    | FindingKind::DynamicShell
                    | FindingKind::InlineExec
            )
        })
        .map(|f| f.detail.clone())
}

fn parse_state(ctx: &Ctx<'_>) -> Option<String> {
    ctx.analysis
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::ParseStateChange)
        .map(|f| f.detail.clone())
}

fn refused_widening(ctx: &Ctx<'_>) -> Option<String> {
    match ctx.widening? {
        Err(why) => Some(why.clone()),
        Ok(crate::sandbox::widen::Widening::SandboxOff) if ctx.sandbox_required => Some(
            "AUTOMODE_SANDBOX=off asks to run outside the sandbox, and sandbox.mode is require"
                .into(),
        ),
        Ok(_) => None,
    }
}

fn automode_variable(ctx: &Ctx<'_>) -> Option<String> {
    ctx.analysis
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::AutomodeAssignment)
        .map(|f| f.detail.clone())
}

/// Values of dangerous variables that are harmless: pagers and editors
/// that only display, identity and tracing settings.
/// Variables the analysis does not mark but that make a tool run or load
/// a program, library or configuration the script chooses.
const EXTRA_EXEC_VARS: &[(&str, &str)] = &[
    ("RUSTC_WRAPPER", "cargo runs it around rustc"),
    ("RUSTC_WORKSPACE_WRAPPER", "cargo runs it around rustc"),
    ("RUSTC", "cargo runs it as the compiler"),
    ("RUSTDOC", "cargo runs it"),
    ("CARGO_BUILD_RUSTC_WRAPPER", "cargo runs it"),
    (
        "CARGO_HOME",
        "cargo reads its configuration (with runners and wrappers) there",
    ),
    ("CC", "build tools run it"),
    ("CXX", "build tools run it"),
    ("LD", "build tools run it"),
    ("AR", "build tools run it"),
    ("AS", "build tools run it"),
    ("CPP", "build tools run it"),
    ("MAKEFLAGS", "make reads options (--eval) from it"),
    ("MAKEFILES", "make reads these makefiles first"),
    ("GOFLAGS", "go reads flags (-toolexec, -exec) from it"),
    ("GOENV", "go reads its settings from this file"),
    ("JAVA_TOOL_OPTIONS", "every JVM loads agents from it"),
    ("_JAVA_OPTIONS", "every JVM reads options from it"),
    ("JDK_JAVA_OPTIONS", "java reads options from it"),
    ("MAVEN_OPTS", "maven's JVM reads options from it"),
    ("GRADLE_OPTS", "gradle's JVM reads options from it"),
    ("DOTNET_STARTUP_HOOKS", ".NET loads these assemblies first"),
    ("RUBYLIB", "ruby loads libraries from it"),
    ("NODE_PATH", "node loads modules from it"),
    ("PYTHONHOME", "python loads its standard library from it"),
    ("PYTHONUSERBASE", "python loads user site packages from it"),
    ("PERL5DB", "perl runs it as the debugger"),
    ("PERLLIB", "perl loads modules from it"),
    ("LUA_INIT", "lua runs it at start"),
    ("LUA_PATH", "lua loads modules from it"),
    ("R_PROFILE", "R runs it at start"),
    ("R_PROFILE_USER", "R runs it at start"),
    ("BUNDLE_GEMFILE", "bundler loads this Gemfile (Ruby code)"),
    ("HISTFILE", "history writes to it"),
    ("KUBECONFIG", "kubectl runs credential plugins named in it"),
    (
        "DOCKER_CONFIG",
        "docker runs credential helpers named in it",
    ),
    ("NPM_CONFIG_SCRIPT_SHELL", "npm runs scripts with it"),
    ("NPM_CONFIG_NODE_OPTIONS", "npm passes node options from it"),
    ("NPM_CONFIG_USERCONFIG", "npm reads its settings from it"),
    ("NPM_CONFIG_GLOBALCONFIG", "npm reads its settings from it"),
    ("YARN_RC_FILENAME", "yarn reads its settings from it"),
    ("BROWSER", "programs run it"),
    (
        "BASH_CMDS",
        "the command hash table: a name runs another program",
    ),
    ("BASH_ALIASES", "defines aliases"),
    ("BASHOPTS", "sets shell options"),
    (
        "TMPDIR",
        "programs write temporary files (and scripts) there",
    ),
    ("RUSTFLAGS", "rustc reads flags (linker, plugins) from it"),
    (
        "CARGO_ENCODED_RUSTFLAGS",
        "rustc reads flags (linker, plugins) from it",
    ),
    ("RUSTDOCFLAGS", "rustdoc reads flags from it"),
    ("CFLAGS", "compilers read flags (-wrapper, plugins) from it"),
    ("CXXFLAGS", "compilers read flags from it"),
    ("CPPFLAGS", "compilers read flags from it"),
    ("LDFLAGS", "linkers read flags (plugins) from it"),
    ("GCONV_PATH", "glibc loads conversion modules from it"),
    ("LESSHISTFILE", "less writes its history there"),
    (
        "TF_CLI_CONFIG_FILE",
        "terraform loads provider settings from it",
    ),
    ("TF_PLUGIN_CACHE_DIR", "terraform loads providers from it"),
    ("MYPYPATH", "mypy loads plugins and stubs from it"),
    ("JAVA_HOME", "java tools run the JVM found there"),
];

/// Prefixes of such variables (upper-cased names).
const EXTRA_EXEC_PREFIXES: &[(&str, &str)] = &[
    (
        "CARGO_TARGET_",
        "cargo runs runners and linkers named in them",
    ),
    ("GIT_TRACE", "git writes traces to the file it names"),
];

/// Variables that send traffic elsewhere, trust other certificates, or
/// make programs read their configuration from elsewhere: the classifier
/// judges them.
pub const REVIEW_VARS: &[(&str, &str)] = &[
    (
        "HOME",
        "programs read their configuration from the new home",
    ),
    (
        "XDG_CONFIG_HOME",
        "programs read their configuration from there",
    ),
    ("XDG_DATA_HOME", "programs read their data from there"),
    ("HTTP_PROXY", "sends web traffic through a proxy"),
    ("HTTPS_PROXY", "sends web traffic through a proxy"),
    ("ALL_PROXY", "sends traffic through a proxy"),
    ("NO_PROXY", "changes which traffic the proxy sees"),
    ("DOCKER_HOST", "talks to another docker daemon"),
    ("REQUESTS_CA_BUNDLE", "trusts other certificates"),
    ("CURL_CA_BUNDLE", "trusts other certificates"),
    ("NODE_EXTRA_CA_CERTS", "trusts other certificates"),
    ("SSL_CERT_FILE", "trusts other certificates"),
    ("SSL_CERT_DIR", "trusts other certificates"),
    ("SSLKEYLOGFILE", "writes TLS session keys to a file"),
    ("PIP_INDEX_URL", "installs from another index"),
    ("PIP_EXTRA_INDEX_URL", "installs from another index"),
    ("PIP_CONFIG_FILE", "pip reads its settings from there"),
    ("UV_INDEX_URL", "installs from another index"),
    ("UV_DEFAULT_INDEX", "installs from another index"),
    ("UV_EXTRA_INDEX_URL", "installs from another index"),
    ("GOPROXY", "fetches modules from another proxy"),
    ("NPM_CONFIG_REGISTRY", "installs from another registry"),
    ("YARN_NPM_REGISTRY_SERVER", "installs from another registry"),
    (
        "CARGO_REGISTRIES_CRATES_IO_PROTOCOL",
        "changes where crates come from",
    ),
];

/// Why assigning this variable makes a program run code it names.
pub fn exec_var(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    crate::shell::walk::dangerous_var(name)
        .or_else(|| {
            EXTRA_EXEC_VARS
                .iter()
                .find(|(n, _)| *n == upper)
                .map(|(_, w)| *w)
        })
        .or_else(|| {
            EXTRA_EXEC_PREFIXES
                .iter()
                .find(|(p, _)| upper.starts_with(p))
                .map(|(_, w)| *w)
        })
}

/// Why assigning this variable needs review, if it does.
pub fn review_var(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    REVIEW_VARS
        .iter()
        .find(|(n, _)| *n == upper)
        .map(|(_, w)| *w)
        .or_else(|| {
            [
                "NPM_CONFIG_",
                "PIP_",
                "YARN_",
                "PNPM_",
                "UV_",
                "POETRY_",
                "BUNDLE_",
                "GEM_",
                "CARGO_REGISTRIES_",
                "CARGO_HTTP_",
                "CARGO_NET_",
            ]
            .iter()
            .any(|p| upper.starts_with(p))
            .then_some("changes where a package manager installs from or to")
        })
}

/// Values of dangerous variables that are harmless: pagers and editors
/// that only display, identity and tracing settings.
pub(super) fn harmless_value(ctx: &Ctx<'_>, name: &str, value: Option<&str>) -> bool {
    let Some(v) = value else { return false };
    let inside_list = |v: &str| {
        v.split(':')
            .all(|p| p.is_empty() || super::tools::inside(ctx.places, p))
    };
    match name {
        "PAGER" | "GIT_PAGER" | "MANPAGER" | "SYSTEMD_PAGER" | "BAT_PAGER" => {
            crate::shell::commands::HARMLESS_PAGERS.contains(&v)
        }
        "EDITOR" | "VISUAL" | "GIT_EDITOR" | "GIT_SEQUENCE_EDITOR" => matches!(
            v,
            "true" | ":" | "cat" | "vim" | "vi" | "nvim" | "nano" | "emacs" | "code --wait"
        ),
        "GIT_AUTHOR_NAME"
        | "GIT_AUTHOR_EMAIL"
        | "GIT_AUTHOR_DATE"
        | "GIT_COMMITTER_NAME"
        | "GIT_COMMITTER_EMAIL"
        | "GIT_COMMITTER_DATE"
        | "GIT_TERMINAL_PROMPT"
        | "GIT_CURL_VERBOSE"
        | "GIT_FLUSH"
        | "GIT_OPTIONAL_LOCKS"
        | "GIT_CONFIG_NOSYSTEM"
        | "GIT_MERGE_AUTOEDIT"
        | "GIT_ADVICE"
        | "GIT_LFS_SKIP_SMUDGE"
        | "GIT_DISCOVERY_ACROSS_FILESYSTEM" => true,
        // Traces to stderr (a number or a boolean), never to a file.
        _ if name.starts_with("GIT_TRACE") => {
            matches!(v, "0" | "1" | "2" | "true" | "false" | "")
        }
        "GIT_DIR" | "GIT_WORK_TREE" | "GIT_INDEX_FILE" | "GIT_OBJECT_DIRECTORY" => {
            super::tools::inside(ctx.places, v)
        }
        "NODE_OPTIONS" => v.split_whitespace().all(|o| {
            o.starts_with("--max-old-space-size")
                || o.starts_with("--max-semi-space-size")
                || o == "--enable-source-maps"
                || o == "--trace-warnings"
                || o == "--no-warnings"
                || o == "--no-deprecation"
                || o.starts_with("--stack-size")
                || o.starts_with("--unhandled-rejections")
        }),
        "PYTHONPATH" | "LD_LIBRARY_PATH" | "NODE_PATH" | "RUBYLIB" | "PERLLIB" => inside_list(v),
        "PATH" => path_value_ok(ctx, v),
        // Literal separators only split expansions, which the analysis
        // already treats as dynamic.
        "IFS" => true,
        "PS1" | "PS0" | "PS4" => {
            !v.contains("$(") && !v.contains('`') && !v.contains("${!") && !v.contains('@')
        }
        "TMPDIR" => super::tools::inside(ctx.places, v) || v.starts_with("/tmp"),
        "RUSTFLAGS"
        | "CARGO_ENCODED_RUSTFLAGS"
        | "RUSTDOCFLAGS"
        | "CFLAGS"
        | "CXXFLAGS"
        | "CPPFLAGS"
        | "LDFLAGS" => ![
            "linker",
            "wrapper",
            "plugin",
            "-B",
            "specs",
            "ld-path",
            "fuse-ld=/",
            "-Z",
            "sysroot",
        ]
        .iter()
        .any(|bad| v.contains(bad)),
        "LESSHISTFILE" => v == "-" || v == "/dev/null",
        "HISTFILE" => v == "/dev/null" || v.is_empty(),
        "CC" | "CXX" | "LD" | "AR" | "AS" | "CPP" => matches!(
            v,
            "gcc"
                | "g++"
                | "clang"
                | "clang++"
                | "cc"
                | "c++"
                | "ld"
                | "ar"
                | "as"
                | "cpp"
                | "musl-gcc"
                | "zig cc"
        ),
        _ => false,
    }
}

/// A PATH as written, when its value is not known here: the PATH the
/// command started with (`$PATH`) and directories inside the project
/// (`$PWD/.venv/bin`, `./node_modules/.bin` spelled absolute), nothing
/// else (`PATH="$PWD/.venv/bin:$PATH" pytest`).
pub fn path_raw_ok(ctx: &Ctx<'_>, raw: &str) -> bool {
    list_raw_inside(ctx, raw, "PATH") || {
        let t = raw
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .unwrap_or(raw);
        !t.contains('$') && t.split(':').all(|d| path_value_ok(ctx, d))
    }
}

/// A path list as written (`$PWD/src:$PYTHONPATH`): directories inside
/// the project, and the variable's own value as the command started
/// (`$NAME`), nothing else.
pub(super) fn list_raw_inside(ctx: &Ctx<'_>, raw: &str, name: &str) -> bool {
    let t = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    if t.contains(['`', '\'', '"', '\\']) || t.contains("$(") {
        return false;
    }
    let own = [format!("${name}"), format!("${{{name}}}")];
    !t.is_empty()
        && t.split(':').all(|d| {
            if own.iter().any(|o| o == d) {
                return true;
            }
            let rest = d.strip_prefix("${PWD}").or_else(|| d.strip_prefix("$PWD"));
            let dir = match rest {
                Some(r) if r.is_empty() || r.starts_with('/') => {
                    format!("{}{r}", ctx.places.cwd.display())
                }
                Some(_) => return false,
                None if d.contains('$') => return false,
                None => d.to_string(),
            };
            let resolved = crate::shell::paths::resolve(&ctx.places.cwd, &dir).0;
            dir.starts_with('/') && super::tools::inside(ctx.places, &resolved.to_string_lossy())
        })
}

/// A PATH made of directories that already were on PATH, directories
/// inside the working directory, and the usual tool directories.
pub fn path_value_ok(ctx: &Ctx<'_>, v: &str) -> bool {
    let original: Vec<&str> = ctx.env_path.split(':').collect();
    v.split(':').all(|d| {
        !d.is_empty()
            && (original.contains(&d)
                || (d.starts_with('/') && super::tools::inside(ctx.places, d))
                || ctx.places.home.as_ref().is_some_and(|h| {
                    [
                        ".cargo/bin",
                        ".local/bin",
                        "go/bin",
                        ".bun/bin",
                        ".deno/bin",
                        ".npm-global/bin",
                        ".yarn/bin",
                        "bin",
                    ]
                    .iter()
                    .any(|t| Path::new(d) == h.join(t))
                })
                || matches!(
                    d,
                    "/usr/local/bin"
                        | "/usr/bin"
                        | "/bin"
                        | "/usr/sbin"
                        | "/sbin"
                        | "/usr/local/go/bin"
                        | "/opt/homebrew/bin"
                        | "/usr/local/sbin"
                ))
    })
}

/// `NAME="$SAVED"` where the script only ever saved NAME's own value in
/// SAVED (`SAVED="${NAME:-}"`, a virtual environment's `activate` and
/// `deactivate`): NAME is set back to what it was, not to something new.
fn restored(ctx: &Ctx<'_>, a: &crate::shell::analysis::Assignment) -> bool {
    // `export NAME` (no value): the value is the one set before, judged
    // where it was set.
    if let Some(c) = a.command.and_then(|i| ctx.analysis.commands.get(i))
        && c.base_name()
            .is_some_and(|n| matches!(n, "export" | "readonly" | "declare" | "typeset" | "local"))
        && c.argv
            .iter()
            .skip(1)
            .any(|w| w.lit() == Some(a.name.as_str()))
    {
        return true;
    }
    // A prompt with plain text put before it (the venv's name): nothing
    // in the text is expanded.
    if matches!(a.name.as_str(), "PS1" | "PS2" | "PS4") && a.prefixed.is_some() {
        return true;
    }
    let Some(saved) = a.from.as_deref() else {
        return false;
    };
    if saved == a.name {
        return true;
    }
    let mut saves = ctx
        .analysis
        .assignments
        .iter()
        .filter(|b| b.name == saved)
        .peekable();
    saves.peek().is_some() && saves.all(|b| b.from.as_deref() == Some(a.name.as_str()))
}

/// Builtins that run no program and read no dangerous variable.
pub const INERT_BUILTINS: &[&str] = &[
    "export", "readonly", "local", "declare", "typeset", "unset", "true", "false", ":", "return",
    "exit", "shift", "echo", "printf", "test", "[", "[[",
];

fn dangerous_assignment(ctx: &Ctx<'_>) -> Option<String> {
    let commands = ctx.analysis.commands.len();
    for (i, c) in ctx.analysis.commands.iter().enumerate() {
        for (n, v) in &c.env {
            // PATH is judged by the allow tiers (mod.rs).
            // Set from inside the project: what it loads, the sandbox
            // confines like any project code.
            if n != "PATH"
                && exec_var(n).is_some()
                && !harmless_value(ctx, n, v.known())
                && !list_raw_inside(ctx, &v.raw, n)
            {
                return Some(format!(
                    "{n}={} for {}",
                    v.raw,
                    c.source.lines().next().unwrap_or("")
                ));
            }
        }
        let _ = i;
    }
    for a in &ctx.analysis.assignments {
        let Some(why) = exec_var(&a.name) else {
            continue;
        };
        // PATH only chooses among programs on disk: the allow tiers
        // check it (mod.rs) and send what they cannot place to review.
        if a.name == "PATH" {
            continue;
        }
        // Set at the end of the script (or before builtins that run
        // nothing), it reaches nothing.
        let later = (a.before..commands).any(|i| {
            Some(i) != a.command
                && !ctx.analysis.commands[i]
                    .base_name()
                    .is_some_and(|n| INERT_BUILTINS.contains(&n))
        });
        // Set from inside the project (`export LD_LIBRARY_PATH=$PWD/lib`):
        // what it loads, the sandbox confines like any project code.
        let inside = a
            .raw
            .as_deref()
            .is_some_and(|r| list_raw_inside(ctx, r, &a.name));
        if later
            && !harmless_value(ctx, &a.name, a.value.as_deref())
            && !restored(ctx, a)
            && !inside
        {
            return Some(format!(
                "{}={} before later commands: {why}",
                a.name,
                a.value.as_deref().unwrap_or("<dynamic>")
            ));
        }
    }
    ctx.analysis
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::DangerousAssignment && f.detail.starts_with("export -f"))
        .map(|f| f.detail.clone())
}

/// Deletions must be one visible literal target per call, unless every
/// target is a regenerable artifact inside the working directory or kept
/// by the checkpoint before the command. The message says why `automode
/// undo` could not make it safe.
fn bulk_delete(ctx: &Ctx<'_>) -> Option<String> {
    bulk_delete_detail(ctx).map(|d| {
        let why = match (&ctx.places.checkpoint, ctx.recovery.not_kept()) {
            (None, _) => "no checkpoint is taken here (checkpoint.enabled is off, or this is not a project), so automode undo could not bring them back".to_string(),
            (Some(_), Some(why)) => why,
            (Some(_), None) => "not all of it is in what automode undo keeps".to_string(),
        };
        format!("{d}; {why}")
    })
}

fn bulk_delete_detail(ctx: &Ctx<'_>) -> Option<String> {
    let deletes: Vec<&Effect> = ctx
        .analysis
        .effects
        .iter()
        .filter(|e| e.kind == EffectKind::Delete)
        .collect();
    for e in &deletes {
        if super::artifact_effect(ctx, e)
            || super::rename_source(ctx, e)
            || super::recoverable(ctx, e)
        {
            continue;
        }
        // find DIR -name PAT -delete / -exec rm {}: judged by the
        // classifier (the filter is visible), unless it is outside.
        if e.filter.is_some() && (e.target != TargetKind::Glob || e.raw == "{}") {
            continue;
        }
        match e.target {
            TargetKind::Glob => return Some(format!("deletes the glob {}", e.raw)),
            TargetKind::Dynamic => {
                return Some(format!(
                    "deletes {}, whose value is only known at run time",
                    e.raw
                ));
            }
            _ => {}
        }
        if e.count > 1 {
            let names: Vec<&str> = deletes
                .iter()
                .filter(|d| d.command == e.command)
                .map(|d| d.raw.as_str())
                .collect();
            return Some(format!(
                "deletes {} targets in one call ({})",
                e.count,
                names.join(" ")
            ));
        }
    }
    // Deletion inside inline interpreter code with a computed target.
    for f in &ctx.analysis.findings {
        if f.kind != FindingKind::InlineCode {
            continue;
        }
        let (lang, code) = super::inline::split_detail(&f.detail);
        if super::inline::deletions(lang, code)
            .iter()
            .any(|d| d.target.is_none())
        {
            return Some(format!("{lang} code deletes a path computed at run time"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_like_bash() {
        assert!(glob_match("*", "etc"));
        // Conservative: `*` may reach dot names (dotglob).
        assert!(glob_match("*", ".ssh"));
        assert!(glob_match(".*", ".ssh"));
        assert!(!glob_match("*.o", ".ssh"));
        assert!(glob_match("e*", "etc"));
        assert!(glob_match("[a-f]tc", "etc"));
        assert!(!glob_match("[!e]tc", "etc"));
        assert!(glob_match("**", "anything"));
        assert!(glob_match("?sh", "ssh"));
    }

    #[test]
    fn curl_short_groups() {
        assert!(short_group_has("-skl", 'k', CURL_VALUE_FLAGS));
        assert!(!short_group_has("-ok", 'k', CURL_VALUE_FLAGS));
        assert!(!short_group_has("--insecure", 'k', CURL_VALUE_FLAGS));
    }
}
