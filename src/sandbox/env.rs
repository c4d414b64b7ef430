//! Credential variables in the harness's environment, and which of them
//! a command does not get. Landlock does not touch the environment: an
//! API key in it reaches whatever runs, so unknown programs, project
//! scripts and inline code run without them; a known program allowed as
//! itself keeps the ones it uses (git's remote commands keep the ssh
//! agent, a package manager its registry token); `sandbox.passEnv` names
//! those every command keeps.

/// Name endings that mark a credential.
const SECRET_SUFFIXES: &[(&str, &str)] = &[
    (
        "_API_KEY",
        "API keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, …)",
    ),
    ("_APIKEY", "API keys"),
    (
        "_TOKEN",
        "tokens (GITHUB_TOKEN, NPM_TOKEN, AWS_SESSION_TOKEN, …)",
    ),
    ("_SECRET", "secrets (CLIENT_SECRET, …)"),
    ("_SECRET_KEY", "secret keys"),
    ("_PASSWORD", "passwords"),
    ("_PASSWD", "passwords"),
    ("_DSN", "connection strings (SENTRY_DSN, DATABASE_DSN, …)"),
    ("_PRIVATE_KEY", "private keys"),
    ("_ACCESS_KEY", "cloud access keys"),
    ("_ACCESS_KEY_ID", "cloud access key ids"),
    ("_CLIENT_SECRET", "OAuth client secrets"),
];

/// Parts of a name that mark a credential wherever they stand.
const SECRET_PARTS: &[(&str, &str)] = &[
    ("PASSWORD", "passwords (PGPASSWORD, …)"),
    ("PASSWD", "passwords"),
];

/// Exact names that hold credentials without such an ending.
const SECRET_NAMES: &[(&str, &str)] = &[
    ("AWS_ACCESS_KEY_ID", "AWS credentials"),
    ("AWS_SECRET_ACCESS_KEY", "AWS credentials"),
    ("SSH_AUTH_SOCK", "the ssh agent: every key it holds"),
    ("GPG_AGENT_INFO", "the GnuPG agent"),
    ("GOOGLE_APPLICATION_CREDENTIALS", "a Google Cloud key file"),
    ("AZURE_CLIENT_SECRET", "Azure credentials"),
    ("DOCKER_AUTH_CONFIG", "registry credentials"),
    ("VAULT_TOKEN", "a Vault token"),
    ("MYSQL_PWD", "the MySQL client's password"),
    ("PGPASS", "a PostgreSQL password"),
    ("OP_SESSION", "a 1Password CLI session"),
    ("ARM_CLIENT_SECRET", "Azure (Terraform) credentials"),
    ("DIGITALOCEAN_ACCESS_TOKEN", "DigitalOcean credentials"),
    ("HF_TOKEN", "the Hugging Face token"),
    (
        "KUBECONFIG_DATA",
        "a Kubernetes configuration with its credentials",
    ),
];

/// The credentials known programs use when they run as themselves:
/// `(programs, variables (a trailing `*` matches a prefix), why)`.
const USERS: &[(&[&str], &[&str], &str)] = &[
    (
        &["git", "ssh", "scp", "sftp", "rsync"],
        &["SSH_AUTH_SOCK"],
        "authenticate to remotes with the ssh agent",
    ),
    (
        &["npm", "npx", "pnpm", "yarn"],
        &["NPM_TOKEN", "NODE_AUTH_TOKEN"],
        "private registries",
    ),
    (
        &["cargo"],
        &["CARGO_REGISTRY_TOKEN", "CARGO_REGISTRIES_*"],
        "private registries",
    ),
    (&["gh"], &["GH_TOKEN", "GITHUB_TOKEN"], "the GitHub API"),
    (&["glab"], &["GITLAB_TOKEN"], "the GitLab API"),
    (
        &["pip", "pip3", "uv", "poetry", "twine"],
        &["PIP_*", "UV_*", "POETRY_*", "TWINE_*"],
        "private indexes",
    ),
    (&["aws"], &["AWS_*"], "the AWS API"),
    (
        &["gcloud", "gsutil"],
        &["GOOGLE_*", "CLOUDSDK_*"],
        "Google Cloud",
    ),
    (&["az"], &["AZURE_*"], "Azure"),
    (
        &[
            "psql",
            "pg_dump",
            "pg_restore",
            "pg_dumpall",
            "createdb",
            "dropdb",
        ],
        &["PGPASSWORD", "PGPASS", "DATABASE_URL"],
        "the PostgreSQL server",
    ),
    (&["mysql", "mysqldump"], &["MYSQL_PWD"], "the MySQL server"),
];

/// Does this value carry a credential? A URL with a password in it
/// (`postgres://user:pass@host/db`, `redis://:pass@host`).
pub fn is_credential_value(value: &str) -> bool {
    let Some((_, rest)) = value.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':') && !userinfo.ends_with(':'))
}

/// Does this variable hold a credential?
pub fn is_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAMES.iter().any(|(n, _)| *n == name)
        || SECRET_SUFFIXES
            .iter()
            .any(|(s, _)| name.len() > s.len() && name.ends_with(s))
        || SECRET_PARTS.iter().any(|(p, _)| upper.contains(p))
}

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// The credential variables of `names` a command does not get.
/// `valued`: the names whose values carry a credential (a URL with a
/// password); `known_only`: every program in the script is one automode
/// knows and allowed as itself (then the ones they use stay); `programs`:
/// their names; `pass`: `sandbox.passEnv`; `classifier_key`: the variable
/// holding the classifier's key (never passed unless `pass` names it).
pub fn withheld(
    names: &[&str],
    valued: &[&str],
    known_only: bool,
    programs: &[&str],
    pass: &[String],
    classifier_key: Option<&str>,
) -> Vec<String> {
    let mut out: Vec<String> = names
        .iter()
        .filter(|n| is_credential(n) || valued.contains(n) || classifier_key == Some(**n))
        .filter(|n| !pass.iter().any(|p| matches(p, n)))
        .filter(|n| {
            classifier_key == Some(**n)
                || !known_only
                || !USERS.iter().any(|(progs, vars, _)| {
                    vars.iter().any(|v| matches(v, n)) && programs.iter().any(|p| progs.contains(p))
                })
        })
        .map(|n| (*n).to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The table of credential users, for `automode defaults`.
pub fn describe() -> Vec<String> {
    let mut out: Vec<String> = SECRET_SUFFIXES
        .iter()
        .map(|(s, why)| format!("*{s}  ({why})"))
        .collect();
    out.extend(
        SECRET_PARTS
            .iter()
            .map(|(p, why)| format!("*{p}*  ({why})")),
    );
    out.extend(SECRET_NAMES.iter().map(|(n, why)| format!("{n}  ({why})")));
    out.push("any variable whose value is a URL with a password in it (postgres://u:p@…)".into());
    out.extend(USERS.iter().map(|(progs, vars, why)| {
        format!(
            "kept for {} when they run as themselves: {} ({why})",
            progs.join(" "),
            vars.join(" ")
        )
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_withheld_from_unknown_programs_and_kept_by_their_users() {
        let env = [
            "OPENAI_API_KEY",
            "SSH_AUTH_SOCK",
            "PATH",
            "GH_TOKEN",
            "HOME",
        ];
        assert_eq!(
            withheld(&env, &[], false, &["./run.sh"], &[], None),
            ["GH_TOKEN", "OPENAI_API_KEY", "SSH_AUTH_SOCK"]
        );
        // git push keeps the agent; nothing else.
        assert_eq!(
            withheld(&env, &[], true, &["git"], &[], None),
            ["GH_TOKEN", "OPENAI_API_KEY"]
        );
        // passEnv keeps it for everyone.
        assert_eq!(
            withheld(&env, &[], false, &["python3"], &["GH_TOKEN".into()], None),
            ["OPENAI_API_KEY", "SSH_AUTH_SOCK"]
        );
        // The classifier's key, whatever its name.
        assert_eq!(
            withheld(
                &["MOCK_KEY", "PATH"],
                &[],
                true,
                &["ls"],
                &[],
                Some("MOCK_KEY")
            ),
            ["MOCK_KEY"]
        );
        // Passwords by name, connection strings, keys, URLs with a password.
        for name in [
            "PGPASSWORD",
            "DB_PASSWORD_FILE_CONTENT",
            "SENTRY_DSN",
            "GITHUB_APP_PRIVATE_KEY",
            "MYSQL_PWD",
        ] {
            assert!(is_credential(name), "{name}");
        }
        assert!(is_credential_value(
            "postgres://app:s3cret@db.internal:5432/app"
        ));
        assert!(is_credential_value("redis://:s3cret@cache:6379"));
        assert!(!is_credential_value("postgres://db.internal/app"));
        assert!(!is_credential_value("https://user@github.com/x"));
        assert_eq!(
            withheld(
                &["DATABASE_URL", "PATH"],
                &["DATABASE_URL"],
                false,
                &["python3"],
                &[],
                None
            ),
            ["DATABASE_URL"]
        );
        // psql keeps its password when it runs as itself.
        assert!(withheld(&["PGPASSWORD"], &[], true, &["psql"], &[], None).is_empty());
        assert!(!is_credential("PATH") && !is_credential("_TOKEN"));
        assert!(is_credential("AWS_SECRET_ACCESS_KEY") && is_credential("NPM_TOKEN"));
    }
}
