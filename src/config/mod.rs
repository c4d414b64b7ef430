//! Configuration: JSON layers merged into one effective `Config` whose
//! every value remembers its source.
//!
//! Layers, in order: built-in defaults; the administrator's managed
//! policy (`MANAGED_PATH`, owned by root; its `locked` keys no later layer
//! changes); global
//! `$XDG_CONFIG_HOME/automode/config.json`; project-shared
//! `.automode/config.json` (only `permissions.deny`/`permissions.ask` are
//! taken, everything else is ignored with a diagnostic); project-local
//! `.automode/local.json` (only for projects the user trusted); inline
//! `AUTOMODE_SETTINGS_JSON`. A file that does not parse, or has an
//! unknown key, is an error that blocks (fail closed) and names the file,
//! line and key. Reads files; writes nothing (see `trust.rs`, `save_global`).

pub mod trust;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    BuiltIn,
    /// The administrator's `managed.json`.
    Managed(PathBuf),
    Global(PathBuf),
    ProjectShared(PathBuf),
    ProjectLocal(PathBuf),
    Inline,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::BuiltIn => f.write_str("built-in"),
            Source::Managed(p)
            | Source::Global(p)
            | Source::ProjectShared(p)
            | Source::ProjectLocal(p) => {
                write!(f, "{}", p.display())
            }
            Source::Inline => f.write_str("AUTOMODE_SETTINGS_JSON"),
        }
    }
}

/// A value and its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Sourced<T> {
    fn builtin(value: T) -> Sourced<T> {
        Sourced {
            value,
            source: Source::BuiltIn,
        }
    }
}

/// A layer's value, when it gives one, replaces the slot's (with the
/// layer as its source).
fn overlay<T>(slot: &mut Sourced<T>, value: Option<T>, source: &Source) {
    if let Some(value) = value {
        *slot = Sourced {
            value,
            source: source.clone(),
        };
    }
}

/// `overlay` for a setting that has no built-in value.
fn overlay_some<T>(slot: &mut Option<Sourced<T>>, value: Option<T>, source: &Source) {
    if let Some(value) = value {
        *slot = Some(Sourced {
            value,
            source: source.clone(),
        });
    }
}

/// A permission rule as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleEntry {
    pub pattern: String,
    pub source: Source,
}

/// The effective configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub enabled: Sourced<bool>,
    pub deny: Vec<RuleEntry>,
    pub ask: Vec<RuleEntry>,
    pub allow: Vec<RuleEntry>,
    pub allow_inside_working_directory: Sourced<bool>,
    pub denied_paths: Vec<Sourced<String>>,
    pub protected_paths: Vec<Sourced<String>>,
    pub classify_read_only_tools: Sourced<bool>,
    /// Prose rules for the classifier.
    pub classifier_allow: Vec<Sourced<String>>,
    pub classifier_soft_deny: Vec<Sourced<String>>,
    pub classifier_hard_deny: Vec<Sourced<String>>,
    pub classifier_environment: Vec<Sourced<String>>,
    pub timeout_seconds: Option<Sourced<f64>>,
    pub output_limit_bytes: Option<Sourced<u64>>,
    /// `autoMode.classifierModel`: `provider/model-id`.
    pub classifier_model: Option<Sourced<String>>,
    /// `autoMode.providers`: overrides of the built-in presets, or new
    /// providers, merged field by field across layers.
    pub providers: BTreeMap<String, (ProviderSettings, Source)>,
    pub classifier_timeout_ms: Sourced<u64>,
    pub classifier_reasoning_level: Option<Sourced<String>>,
    /// `autoMode.log.classifierIo`.
    pub log_classifier_io: Sourced<bool>,
    /// `autoMode.allowTerminalInput`: when the shim's stdin is a
    /// terminal, pass it to the command (and let an interactive shell
    /// start) instead of refusing programs that would read it.
    pub allow_terminal_input: Sourced<bool>,
    /// `sandbox.*`: only from the global file and AUTOMODE_SETTINGS_JSON.
    pub sandbox: SandboxConfig,
    /// `checkpoint.*`: from the same layers as the sandbox (a project
    /// never turns off its own checkpoints).
    pub checkpoint: CheckpointConfig,
    /// `autoMode.approvalTtlSeconds`: how long an ask waits for the user
    /// and an approval for the retry.
    pub approval_ttl_seconds: Sourced<u64>,
    /// `autoMode.askCommand`: a program (argv) asked about each pending
    /// ask; it answers `allow` or `deny`.
    pub ask_command: Option<Sourced<Vec<String>>>,
    /// `autoMode.askTimeoutSeconds`: how long `askCommand` or the
    /// terminal has to answer.
    pub ask_timeout_seconds: Sourced<u64>,
    /// `autoMode.askOnTerminal`: ask on the shim's controlling terminal.
    pub ask_on_terminal: Sourced<bool>,
    /// `autoMode.allowOff` (managed policy only): `automode off` works.
    pub allow_off: Sourced<bool>,
    /// Keys the managed policy locks (`locked`).
    pub locked: Vec<Sourced<String>>,
    /// Files read, for `automode config`.
    pub files: Vec<(PathBuf, FileStatus)>,
    /// Things the user should know (ignored keys, untrusted files).
    pub diagnostics: Vec<String>,
}

impl Config {
    /// The managed lock that covers `key` (dotted), itself or its
    /// section.
    pub fn lock_of(&self, key: &str) -> Option<&Sourced<String>> {
        self.locked
            .iter()
            .find(|l| key == l.value || key.starts_with(&format!("{}.", l.value)))
    }

    /// Why `automode off` and the on/off switches do not apply (the
    /// managed policy says so), if they do not.
    pub fn switch_locked(&self) -> Option<String> {
        if !self.allow_off.value {
            return Some(format!(
                "autoMode.allowOff is false in {}",
                self.allow_off.source
            ));
        }
        self.lock_of("autoMode.enabled")
            .map(|k| format!("{} locks autoMode.enabled", k.source))
    }
}

/// The sandbox's settings (`sandbox.*`), each with its source.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxConfig {
    pub mode: Sourced<crate::sandbox::Mode>,
    /// Write roots besides the project (templates: `~`, `$VAR`).
    pub write: Vec<Sourced<String>>,
    /// Tool caches, written where they exist.
    pub caches: Vec<Sourced<String>>,
    pub read_deny: Vec<Sourced<String>>,
    /// Paths relative to the project root that stay unwritable.
    pub protect: Vec<Sourced<String>>,
    pub protect_mode: Sourced<crate::sandbox::ProtectMode>,
    pub network: Sourced<crate::sandbox::Network>,
    /// `sandbox.network.allow`: hosts the network wall lets commands
    /// reach (`host`, `*.domain`, `:port`), the built-in list expanded
    /// where `$defaults` stands.
    pub network_allow: Vec<Sourced<String>>,
    /// `sandbox.network.hostPorts`: the host's loopback ports commands
    /// may reach through the wall.
    pub host_ports: Vec<Sourced<u16>>,
    /// Credential variables commands get anyway.
    pub pass_env: Vec<Sourced<String>>,
    pub max_file_bytes: Sourced<u64>,
    /// `sandbox.sockets.allow`: host UNIX sockets (or directories of
    /// them) commands may still reach where the sandbox covers the
    /// host's socket places.
    pub sockets_allow: Vec<Sourced<String>>,
    /// `sandbox.read`: what commands see of the home besides the built-in
    /// view (where the home is shown allow-listed).
    pub read: Vec<Sourced<String>>,
    /// `sandbox.credentials`: the tools (`credentials::SETTINGS` and
    /// `TOKENS` names) whose tokens the commands running them read.
    pub credentials: Vec<Sourced<String>>,
}

/// The checkpoint settings (`checkpoint.*`), each with its source.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointConfig {
    pub enabled: Sourced<bool>,
    pub max_file_bytes: Sourced<u64>,
    pub keep_hours: Sourced<u64>,
    pub max_bytes: Sourced<u64>,
}

impl CheckpointConfig {
    pub fn settings(&self) -> crate::checkpoint::Settings {
        crate::checkpoint::Settings {
            enabled: self.enabled.value,
            max_file_bytes: self.max_file_bytes.value,
            keep_hours: self.keep_hours.value,
            max_bytes: self.max_bytes.value,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileStatus {
    Read,
    Missing,
    IgnoredUntrusted,
}

/// A config file that blocks everything until fixed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        } else {
            write!(f, "{}: {}", self.file, self.message)
        }
    }
}

/// One layer file as written (every key optional; unknown keys refused).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Layer {
    #[serde(rename = "autoMode")]
    auto_mode: Option<AutoModeLayer>,
    permissions: Option<PermissionsLayer>,
    #[serde(rename = "allowInsideWorkingDirectory")]
    allow_inside_working_directory: Option<bool>,
    #[serde(rename = "deniedPaths")]
    denied_paths: Option<Vec<String>>,
    #[serde(rename = "protectedPaths")]
    protected_paths: Option<Vec<String>>,
    #[serde(rename = "classifyReadOnlyTools")]
    classify_read_only_tools: Option<bool>,
    #[serde(rename = "timeoutSeconds")]
    timeout_seconds: Option<Seconds>,
    #[serde(rename = "outputLimitBytes")]
    output_limit_bytes: Option<Bytes>,
    sandbox: Option<SandboxLayer>,
    checkpoint: Option<CheckpointLayer>,
    /// Managed policy only: keys no later layer may change.
    locked: Option<Vec<String>>,
    #[serde(rename = "$schema")]
    #[allow(dead_code)]
    schema: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SandboxLayer {
    mode: Option<crate::sandbox::Mode>,
    write: Option<Vec<String>>,
    caches: Option<Vec<String>>,
    read_deny: Option<Vec<String>>,
    protect: Option<Vec<String>>,
    protect_mode: Option<crate::sandbox::ProtectMode>,
    network: Option<NetworkLayer>,
    pass_env: Option<Vec<String>>,
    max_file_bytes: Option<Bytes64>,
    sockets: Option<SocketsSettings>,
    read: Option<Vec<String>>,
    credentials: Option<Vec<String>>,
}

/// `checkpoint`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CheckpointLayer {
    enabled: Option<bool>,
    max_file_bytes: Option<u64>,
    keep_hours: Option<u64>,
    max_bytes: Option<u64>,
}

/// `sandbox.sockets`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SocketsSettings {
    allow: Option<Vec<String>>,
}

/// `sandbox.network`: the mode alone, or an object with the mode, the
/// allow-list and the host ports.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum NetworkLayer {
    Mode(crate::sandbox::Network),
    Settings(NetworkSettings),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NetworkSettings {
    mode: Option<crate::sandbox::Network>,
    allow: Option<Vec<String>>,
    host_ports: Option<Vec<u16>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AutoModeLayer {
    enabled: Option<bool>,
    allow: Option<Vec<String>>,
    soft_deny: Option<Vec<String>>,
    hard_deny: Option<Vec<String>>,
    environment: Option<Vec<String>>,
    #[serde(rename = "classifierModel")]
    classifier_model: Option<String>,
    providers: Option<BTreeMap<String, ProviderSettings>>,
    #[serde(rename = "classifierTimeoutMs")]
    classifier_timeout_ms: Option<u64>,
    #[serde(rename = "classifierReasoningLevel")]
    classifier_reasoning_level: Option<String>,
    log: Option<LogLayer>,
    #[serde(rename = "allowTerminalInput")]
    allow_terminal_input: Option<bool>,
    #[serde(rename = "approvalTtlSeconds")]
    approval_ttl_seconds: Option<u64>,
    #[serde(rename = "askCommand")]
    ask_command: Option<AskCommand>,
    #[serde(rename = "askTimeoutSeconds")]
    ask_timeout_seconds: Option<u64>,
    #[serde(rename = "askOnTerminal")]
    ask_on_terminal: Option<bool>,
    /// Managed policy only.
    #[serde(rename = "allowOff")]
    allow_off: Option<bool>,
}

/// `autoMode.askCommand`: a program path, or a program and its arguments.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum AskCommand {
    Program(String),
    Argv(Vec<String>),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LogLayer {
    #[serde(rename = "classifierIo")]
    classifier_io: Option<bool>,
}

/// One provider's settings as written (every field optional: a preset
/// supplies the rest).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProviderSettings {
    /// `openai` or `anthropic`.
    pub format: Option<String>,
    pub base_url: Option<String>,
    /// The NAME of the environment variable that holds the key.
    pub api_key_env: Option<String>,
    pub headers: Option<BTreeMap<String, String>>,
    /// `max_tokens` or `max_completion_tokens`.
    pub max_tokens_field: Option<String>,
    /// `named`, `required` (a string, llama.cpp) or `none` (Ollama).
    pub tool_choice_style: Option<String>,
    pub extra_body_fast: Option<Value>,
    pub extra_body_detail: Option<Value>,
    pub context_window: Option<u64>,
    /// Send the tool definition in the fast stage too (cache sharing).
    pub tools_in_fast_stage: Option<bool>,
    /// Whether a key is required (local servers run without one).
    pub requires_key: Option<bool>,
}

impl ProviderSettings {
    /// `other`'s fields over `self`'s.
    pub fn overlay(&mut self, other: &ProviderSettings) {
        macro_rules! take {
            ($($f:ident),*) => {$(if other.$f.is_some() { self.$f.clone_from(&other.$f); })*};
        }
        take!(
            format,
            base_url,
            api_key_env,
            headers,
            max_tokens_field,
            tool_choice_style,
            extra_body_fast,
            extra_body_detail,
            context_window,
            tools_in_fast_stage,
            requires_key
        );
    }
}

/// Default per-stage classifier timeout.
pub const DEFAULT_CLASSIFIER_TIMEOUT_MS: u64 = 20_000;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PermissionsLayer {
    deny: Option<Vec<String>>,
    ask: Option<Vec<String>>,
    allow: Option<Vec<String>>,
}

/// The marker that keeps built-in list entries in a configured list.
pub const DEFAULTS_MARKER: &str = "$defaults";

/// Built-in protected paths (writes there never take an allow tier).
pub const DEFAULT_PROTECTED_PATHS: &[&str] = &[
    ".git",
    ".automode",
    ".hg",
    ".svn",
    ".vscode",
    ".idea",
    ".claude",
    ".codex",
    ".pi",
    ".gemini",
    ".cursor",
    ".husky",
    ".githooks",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".netrc",
    ".env",
    ".envrc",
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".mcp.json",
    ".github",
    ".gitlab-ci.yml",
    ".devcontainer",
    ".pre-commit-config.yaml",
    ".cursorrules",
    ".windsurfrules",
    ".continue",
    ".aider.conf.yml",
    ".opencode",
    "opencode.json",
];

/// Built-in classifier environment notes.
pub const DEFAULT_ENVIRONMENT: &[&str] = &[
    "Commands run through automode, a shell shim, in the user's working directory with stdin closed and a time limit.",
    "The working directory is the project the user asked the agent to work on; routine builds, tests and edits inside it are expected.",
];

/// Built-in allow exceptions for the classifier.
pub const DEFAULT_CLASSIFIER_ALLOW: &[&str] = &[
    "Reading public documentation or package metadata over the network (no credentials sent).",
    "Installing dependencies declared by the project into the project (not system-wide).",
];

/// Built-in soft-deny rules for the classifier.
pub const DEFAULT_SOFT_DENY: &[&str] = &[
    "Sending project files, secrets, credentials or environment contents to a network destination.",
    "Reading secrets or credentials (SSH keys, cloud credentials, tokens, .env files of other projects).",
    "Changing anything outside the project directory, or system-wide installs.",
    "Deleting files that existed before this session and are not regenerable build output.",
    "Force-pushing, deleting remote branches, or rewriting published history.",
    "Destroying data in databases, clusters, cloud accounts or containers.",
    "Running code downloaded from the network, or package runners that fetch and run code (npx, uvx, pipx run).",
    "Running commands as another user (sudo, su, doas).",
];

/// Built-in hard-deny rules for the classifier.
pub const DEFAULT_HARD_DENY: &[&str] = &[
    "Disabling or weakening security controls: TLS verification, automode itself, the agent's permission settings.",
    "Persistence: cron jobs, services, login items, shell profile changes, SSH authorized keys.",
    "Destroying the system, the home directory or the whole project.",
];

struct Paths {
    global: Option<PathBuf>,
    shared: Option<PathBuf>,
    local: Option<PathBuf>,
}

/// Where automode's configuration directory is.
pub fn config_dir(home: Option<&Path>, xdg_config_home: Option<&str>) -> Option<PathBuf> {
    match xdg_config_home {
        Some(x) if x.starts_with('/') => Some(PathBuf::from(x).join("automode")),
        _ => home.map(|h| h.join(".config/automode")),
    }
}

/// Default `autoMode.approvalTtlSeconds`.
pub const DEFAULT_APPROVAL_TTL_SECS: u64 = 600;
/// Default `autoMode.askTimeoutSeconds`.
pub const DEFAULT_ASK_TIMEOUT_SECS: u64 = 60;

/// The administrator's managed policy, fixed when automode is built
/// (`AUTOMODE_MANAGED_PATH` at build time changes it).
pub const MANAGED_PATH: &str = match option_env!("AUTOMODE_MANAGED_PATH") {
    Some(p) => p,
    None => "/etc/automode/managed.json",
};

/// Where the managed policy is read from. Debug builds (the test suite)
/// take `AUTOMODE_TEST_MANAGED_PATH` so that tests need not write
/// `/etc`; release builds, which `install/install.sh` makes, never read
/// the variable.
pub fn managed_path(var: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    #[cfg(debug_assertions)]
    if let Some(p) = var("AUTOMODE_TEST_MANAGED_PATH").filter(|p| p.starts_with('/')) {
        return PathBuf::from(p);
    }
    let _ = var;
    PathBuf::from(MANAGED_PATH)
}

/// Lists where a later entry can only tighten: under a lock, later layers
/// add to them instead of replacing them. Every other locked key keeps the
/// managed value.
const TIGHTENING_LISTS: &[(&str, &str)] = &[
    ("permissions.deny", "a deny rule only blocks more"),
    ("permissions.ask", "an ask rule only asks more"),
    ("deniedPaths", "a denied path only blocks more"),
    ("protectedPaths", "a protected path only blocks more"),
    (
        "autoMode.soft_deny",
        "a block rule for the classifier only blocks more",
    ),
    (
        "autoMode.hard_deny",
        "a block rule for the classifier only blocks more",
    ),
    ("sandbox.readDeny", "a hidden path only hides more"),
    ("sandbox.protect", "a protected path only protects more"),
];

/// The managed policy's locks.
#[derive(Debug, Clone)]
struct Locks {
    keys: Vec<String>,
    file: PathBuf,
}

impl Locks {
    /// `key` (dotted) is locked itself or inside a locked section.
    fn covers(&self, key: &str) -> bool {
        self.keys
            .iter()
            .any(|k| key == k || key.starts_with(&format!("{k}.")))
    }

    /// A locked list that later layers add to.
    fn appends(&self, key: &str) -> bool {
        self.covers(key) && TIGHTENING_LISTS.iter().any(|(k, _)| *k == key)
    }

    /// Drop from a later layer every locked value it may not change.
    fn strip(&self, v: &mut Value, prefix: &str, source: &Source, diags: &mut Vec<String>) {
        let Some(obj) = v.as_object_mut() else {
            return;
        };
        let keys: Vec<String> = obj.keys().cloned().collect();
        for k in keys {
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            if self.covers(&path) {
                if self.appends(&path) {
                    continue;
                }
                obj.remove(&k);
                diags.push(format!(
                    "{source}: {path} is ignored: {} locks it",
                    self.file.display()
                ));
            } else if self.keys.iter().any(|l| l.starts_with(&format!("{path}.")))
                && let Some(child) = obj.get_mut(&k)
            {
                self.strip(child, &path, source, diags);
            }
        }
    }
}

/// What loading needs from the process.
#[derive(Debug, Clone)]
pub struct LoadInput<'a> {
    /// The managed policy's path (`managed_path`); none: no managed layer.
    pub managed: Option<&'a Path>,
    pub home: Option<&'a Path>,
    pub xdg_config_home: Option<&'a str>,
    pub cwd: Option<&'a Path>,
    pub inline: Option<&'a str>,
}

/// Load and merge every layer.
pub fn load(input: &LoadInput<'_>) -> Result<Config, ConfigError> {
    let dir = config_dir(input.home, input.xdg_config_home);
    let project = input.cwd.and_then(project_root);
    let paths = Paths {
        global: dir.as_ref().map(|d| d.join("config.json")),
        shared: project.as_ref().map(|p| p.join(".automode/config.json")),
        local: project.as_ref().map(|p| p.join(".automode/local.json")),
    };
    let mut cfg = defaults();
    let mut locks = None;
    if let Some(m) = input.managed
        && let Some(layer) = read_managed(m, &mut cfg)?
    {
        let mut keys = layer.locked.clone().unwrap_or_default();
        // `allowOff: false` keeps auto mode on: no later layer may turn it
        // off through `autoMode.enabled` either.
        if layer
            .auto_mode
            .as_ref()
            .and_then(|a| a.allow_off)
            .is_some_and(|on| !on)
            && !keys
                .iter()
                .any(|k| k == "autoMode.enabled" || k == "autoMode")
        {
            keys.push("autoMode.enabled".into());
        }
        let source = Source::Managed(m.to_path_buf());
        cfg.locked = keys
            .iter()
            .map(|k| Sourced {
                value: k.clone(),
                source: source.clone(),
            })
            .collect();
        apply(&mut cfg, layer, source, LayerKind::Managed, None);
        locks = (!keys.is_empty()).then(|| Locks {
            keys,
            file: m.to_path_buf(),
        });
    }
    let locks = locks.as_ref();
    if let Some(p) = &paths.global
        && let Some(layer) = read_layer(p, &mut cfg, locks)?
    {
        apply(
            &mut cfg,
            layer,
            Source::Global(p.clone()),
            LayerKind::Full,
            locks,
        );
    }
    if let Some(p) = &paths.shared
        && let Some(layer) = read_layer(p, &mut cfg, locks)?
    {
        apply(
            &mut cfg,
            layer,
            Source::ProjectShared(p.clone()),
            LayerKind::Shared,
            locks,
        );
    }
    if let Some(p) = &paths.local {
        let trusted = match (&dir, &project) {
            (Some(d), Some(root)) => trust::is_trusted(d, root),
            _ => false,
        };
        if trusted {
            if let Some(layer) = read_layer(p, &mut cfg, locks)? {
                apply(
                    &mut cfg,
                    layer,
                    Source::ProjectLocal(p.clone()),
                    LayerKind::Local,
                    locks,
                );
            }
        } else if p.exists() {
            cfg.files.push((p.clone(), FileStatus::IgnoredUntrusted));
            cfg.diagnostics.push(format!(
                "{} is ignored: the project is not trusted (run `automode trust` in your own terminal to use it)",
                p.display()
            ));
        }
    }
    if let Some(text) = input.inline.filter(|t| !t.trim().is_empty()) {
        let mut layer = parse_layer("AUTOMODE_SETTINGS_JSON", text)?;
        if let Some(l) = locks {
            layer = locked_layer("AUTOMODE_SETTINGS_JSON", text, l, &Source::Inline, &mut cfg)?;
        }
        apply(&mut cfg, layer, Source::Inline, LayerKind::Full, locks);
    }
    Ok(cfg)
}

/// A rule of a shape automode does not understand is never dropped in
/// silence: a diagnostic names its file, line and text (a deny or ask
/// rule that does not parse still matches every command: fail closed).
/// For the views that show diagnostics (`config`, `doctor`), not for
/// every command.
pub fn rule_diagnostics(cfg: &mut Config, inline: Option<&str>) {
    let mut notes = Vec::new();
    for (list, entries, closed) in [
        ("deny", &cfg.deny, true),
        ("ask", &cfg.ask, true),
        ("allow", &cfg.allow, false),
    ] {
        for e in entries {
            let problem = match crate::policy::rules::parse(&e.pattern) {
                Err(why) => format!(
                    "is not understood ({why}); {}",
                    if closed {
                        "until it is fixed it matches every command (fail closed)"
                    } else {
                        "it never matches"
                    }
                ),
                Ok(r) => match r.kind {
                    crate::policy::rules::RuleKind::Other(tool) => format!(
                        "names the tool {tool:?}, which never runs through the shell: it never matches a command"
                    ),
                    _ => continue,
                },
            };
            let text = match &e.source {
                Source::Inline => inline.map(str::to_string),
                Source::Managed(p)
                | Source::Global(p)
                | Source::ProjectShared(p)
                | Source::ProjectLocal(p) => std::fs::read_to_string(p).ok(),
                Source::BuiltIn => None,
            };
            let line = text
                .as_deref()
                .and_then(|t| {
                    let quoted = serde_json::to_string(&e.pattern).ok()?;
                    t.find(&quoted).map(|at| t[..at].matches('\n').count() + 1)
                })
                .map_or_else(String::new, |l| format!(":{l}"));
            notes.push(format!(
                "{}{line}: permissions.{list} rule {:?} {problem}",
                e.source, e.pattern
            ));
        }
    }
    cfg.diagnostics.extend(notes);
}

/// The project root: the nearest ancestor of `cwd` with `.automode/`,
/// else with `.git`, else `cwd` itself.
///
/// Looked up once per directory per process (the configuration and the
/// sandbox both need it, a walk up is a dozen system calls, and a process
/// judges one command).
pub fn project_root(cwd: &Path) -> Option<PathBuf> {
    thread_local! {
        static FOUND: std::cell::RefCell<Option<(PathBuf, PathBuf)>> =
            const { std::cell::RefCell::new(None) };
    }
    if let Some(root) = FOUND.with_borrow(|f| {
        f.as_ref()
            .filter(|(dir, _)| dir == cwd)
            .map(|(_, root)| root.clone())
    }) {
        return Some(root);
    }
    let root = find_project_root(cwd);
    FOUND.set(Some((cwd.to_path_buf(), root.clone())));
    Some(root)
}

fn find_project_root(cwd: &Path) -> PathBuf {
    for marker in [".automode", ".git"] {
        let mut dir = Some(cwd);
        while let Some(d) = dir {
            if d.join(marker).exists() {
                return d.to_path_buf();
            }
            dir = d.parent();
        }
    }
    cwd.to_path_buf()
}

/// A built-in `(entry, reason)` table as a list setting.
fn pairs(items: &[(&str, &str)]) -> Vec<Sourced<String>> {
    items
        .iter()
        .map(|(p, _)| Sourced::builtin((*p).to_string()))
        .collect()
}

fn defaults() -> Config {
    let list = |items: &[&str]| {
        items
            .iter()
            .map(|s| Sourced::builtin((*s).to_string()))
            .collect()
    };
    Config {
        enabled: Sourced::builtin(true),
        deny: Vec::new(),
        ask: Vec::new(),
        allow: Vec::new(),
        allow_inside_working_directory: Sourced::builtin(false),
        denied_paths: Vec::new(),
        protected_paths: list(DEFAULT_PROTECTED_PATHS),
        classify_read_only_tools: Sourced::builtin(false),
        classifier_allow: list(DEFAULT_CLASSIFIER_ALLOW),
        classifier_soft_deny: list(DEFAULT_SOFT_DENY),
        classifier_hard_deny: list(DEFAULT_HARD_DENY),
        classifier_environment: list(DEFAULT_ENVIRONMENT),
        timeout_seconds: None,
        output_limit_bytes: None,
        classifier_model: None,
        providers: BTreeMap::new(),
        classifier_timeout_ms: Sourced::builtin(DEFAULT_CLASSIFIER_TIMEOUT_MS),
        classifier_reasoning_level: None,
        log_classifier_io: Sourced::builtin(false),
        allow_terminal_input: Sourced::builtin(false),
        checkpoint: CheckpointConfig {
            enabled: Sourced::builtin(true),
            max_file_bytes: Sourced::builtin(crate::checkpoint::DEFAULT_MAX_FILE_BYTES),
            keep_hours: Sourced::builtin(crate::checkpoint::DEFAULT_KEEP_HOURS),
            max_bytes: Sourced::builtin(crate::checkpoint::DEFAULT_MAX_BYTES),
        },
        sandbox: SandboxConfig {
            mode: Sourced::builtin(crate::sandbox::Mode::Auto),
            write: pairs(crate::sandbox::DEFAULT_WRITE),
            caches: crate::sandbox::DEFAULT_CACHES
                .iter()
                .map(|(p, _, _)| Sourced::builtin((*p).to_string()))
                .collect(),
            read_deny: pairs(crate::sandbox::DEFAULT_READ_DENY),
            protect: pairs(crate::sandbox::DEFAULT_PROTECT),
            protect_mode: Sourced::builtin(crate::sandbox::ProtectMode::Auto),
            network: Sourced::builtin(crate::sandbox::Network::Allowlist),
            network_allow: pairs(crate::sandbox::net::allow::DEFAULT_ALLOW),
            host_ports: Vec::new(),
            pass_env: Vec::new(),
            sockets_allow: Vec::new(),
            read: Vec::new(),
            credentials: Vec::new(),
            max_file_bytes: Sourced::builtin(crate::sandbox::DEFAULT_MAX_FILE_BYTES),
        },
        approval_ttl_seconds: Sourced::builtin(DEFAULT_APPROVAL_TTL_SECS),
        ask_command: None,
        ask_timeout_seconds: Sourced::builtin(DEFAULT_ASK_TIMEOUT_SECS),
        ask_on_terminal: Sourced::builtin(false),
        allow_off: Sourced::builtin(true),
        locked: Vec::new(),
        files: Vec::new(),
        diagnostics: Vec::new(),
    }
}

/// The managed policy: absent is fine; present, it must be root's and
/// writable by nobody else, or every command is blocked until it is.
fn read_managed(path: &Path, cfg: &mut Config) -> Result<Option<Layer>, ConfigError> {
    use std::os::unix::fs::MetadataExt;
    let refuse = |message: String| ConfigError {
        file: path.display().to_string(),
        line: 0,
        column: 0,
        message,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            cfg.files.push((path.to_path_buf(), FileStatus::Missing));
            return Ok(None);
        }
        Err(e) => return Err(refuse(format!("cannot read the managed policy: {e}"))),
    };
    let dir = path.parent().unwrap_or(Path::new("/"));
    for (what, p, m) in [
        ("the managed policy", path, Some(meta)),
        ("its directory", dir, std::fs::metadata(dir).ok()),
    ] {
        let Some(m) = m else {
            return Err(refuse(format!("cannot inspect {what} {}", p.display())));
        };
        if m.uid() != 0 {
            return Err(refuse(format!(
                "{what} {} is owned by uid {}, not root, so it is refused (an administrator must `chown root {}`)",
                p.display(),
                m.uid(),
                p.display()
            )));
        }
        if m.mode() & 0o022 != 0 {
            return Err(refuse(format!(
                "{what} {} is writable by others (mode {:o}), so it is refused (an administrator must `chmod go-w {}`)",
                p.display(),
                m.mode() & 0o7777,
                p.display()
            )));
        }
    }
    read_layer(path, cfg, None)
}

fn read_layer(
    path: &Path,
    cfg: &mut Config,
    locks: Option<&Locks>,
) -> Result<Option<Layer>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            cfg.files.push((path.to_path_buf(), FileStatus::Read));
            let name = path.display().to_string();
            let layer = parse_layer(&name, &text)?;
            match locks {
                Some(l) => {
                    let source = Source::Global(path.to_path_buf());
                    locked_layer(&name, &text, l, &source, cfg).map(Some)
                }
                None => Ok(Some(layer)),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            cfg.files.push((path.to_path_buf(), FileStatus::Missing));
            Ok(None)
        }
        Err(e) => Err(ConfigError {
            file: path.display().to_string(),
            line: 0,
            column: 0,
            message: format!("cannot read: {e}"),
        }),
    }
}

/// A later layer (already checked by `parse_layer`) without the values
/// the managed policy locks.
fn locked_layer(
    name: &str,
    text: &str,
    locks: &Locks,
    source: &Source,
    cfg: &mut Config,
) -> Result<Layer, ConfigError> {
    let fail = |e: serde_json::Error| ConfigError {
        file: name.to_string(),
        line: 0,
        column: 0,
        message: e.to_string(),
    };
    let mut v: Value = serde_json::from_str(text).map_err(fail)?;
    locks.strip(&mut v, "", source, &mut cfg.diagnostics);
    serde_json::from_value(v).map_err(fail)
}

/// The keys a managed policy can lock: every key automode reads.
const LOCKABLE: &[&str] = &[
    "autoMode",
    "autoMode.enabled",
    "autoMode.allow",
    "autoMode.soft_deny",
    "autoMode.hard_deny",
    "autoMode.environment",
    "autoMode.classifierModel",
    "autoMode.providers",
    "autoMode.classifierTimeoutMs",
    "autoMode.classifierReasoningLevel",
    "autoMode.log",
    "autoMode.allowTerminalInput",
    "autoMode.approvalTtlSeconds",
    "autoMode.askCommand",
    "autoMode.askTimeoutSeconds",
    "autoMode.askOnTerminal",
    "permissions",
    "permissions.deny",
    "permissions.ask",
    "permissions.allow",
    "allowInsideWorkingDirectory",
    "deniedPaths",
    "protectedPaths",
    "classifyReadOnlyTools",
    "timeoutSeconds",
    "outputLimitBytes",
    "sandbox",
    "sandbox.mode",
    "sandbox.write",
    "sandbox.caches",
    "sandbox.readDeny",
    "sandbox.protect",
    "sandbox.protectMode",
    "sandbox.network",
    "sandbox.passEnv",
    "sandbox.maxFileBytes",
    "sandbox.credentials",
    "checkpoint",
    "checkpoint.enabled",
    "checkpoint.maxFileBytes",
    "checkpoint.keepHours",
    "checkpoint.maxBytes",
];

/// Values serde cannot check alone (ranges, the ask program, locks).
fn check_values(name: &str, layer: &Layer) -> Result<(), ConfigError> {
    let fail = |message: String| ConfigError {
        file: name.to_string(),
        line: 0,
        column: 0,
        message,
    };
    if let Some(a) = &layer.auto_mode {
        if let Some(t) = a.approval_ttl_seconds
            && !(1..=86_400).contains(&t)
        {
            return Err(fail(format!(
                "autoMode.approvalTtlSeconds must be from 1 to 86400 seconds, got {t}"
            )));
        }
        if let Some(t) = a.ask_timeout_seconds
            && !(1..=3_600).contains(&t)
        {
            return Err(fail(format!(
                "autoMode.askTimeoutSeconds must be from 1 to 3600 seconds, got {t}"
            )));
        }
        let program = match &a.ask_command {
            Some(AskCommand::Program(p)) => Some(p.as_str()),
            Some(AskCommand::Argv(v)) => Some(v.first().map_or("", String::as_str)),
            None => None,
        };
        if let Some(p) = program
            && !p.starts_with('/')
        {
            return Err(fail(format!(
                "autoMode.askCommand must start with an absolute program path, got {p:?}"
            )));
        }
    }
    if let Some(c) = &layer.checkpoint {
        if let Some(v) = c.max_file_bytes
            && v == 0
        {
            return Err(fail(
                "checkpoint.maxFileBytes must be at least 1 byte".into(),
            ));
        }
        if let Some(v) = c.keep_hours
            && !(1..=8_760).contains(&v)
        {
            return Err(fail(format!(
                "checkpoint.keepHours must be from 1 to 8760 hours, got {v}"
            )));
        }
        if let Some(v) = c.max_bytes
            && v < 1 << 20
        {
            return Err(fail(format!(
                "checkpoint.maxBytes must be at least 1048576 (1 MiB), got {v}"
            )));
        }
    }
    let names = crate::sandbox::credentials::names();
    for n in layer
        .sandbox
        .iter()
        .flat_map(|s| s.credentials.iter().flatten())
    {
        if !names.contains(&n.as_str()) {
            return Err(fail(format!(
                "sandbox.credentials: {n:?} is not a tool automode gives credentials to (one of: {})",
                names.join(", ")
            )));
        }
    }
    for key in layer.locked.iter().flatten() {
        if !LOCKABLE.contains(&key.as_str()) {
            return Err(fail(format!(
                "locked: {key:?} is not a key automode reads (for example \"sandbox.mode\" or \"permissions.deny\")"
            )));
        }
    }
    Ok(())
}

/// Parse one layer: syntax first (with line and column), then keys.
fn parse_layer(name: &str, text: &str) -> Result<Layer, ConfigError> {
    let layer = parse_layer_keys(name, text)?;
    check_values(name, &layer)?;
    Ok(layer)
}

fn parse_layer_keys(name: &str, text: &str) -> Result<Layer, ConfigError> {
    let err = |e: serde_json::Error| ConfigError {
        file: name.to_string(),
        line: e.line(),
        column: e.column(),
        message: e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or("")
            .to_string(),
    };
    let value: Value = serde_json::from_str(text).map_err(err)?;
    if !value.is_object() {
        return Err(ConfigError {
            file: name.to_string(),
            line: 1,
            column: 1,
            message: "the configuration must be a JSON object".into(),
        });
    }
    serde_json::from_str::<Layer>(text).map_err(|e| {
        let mut ce = err(e);
        ce.message = in_user_terms(&ce.message);
        // serde reports the position after the offending key; say which.
        if let Some(key) = ce.message.strip_prefix("unknown field `") {
            let key = key.split('`').next().unwrap_or("");
            ce.message = format!(
                "unknown key `{key}` (see `automode config` and docs/configuration.md for the keys automode reads)"
            );
        }
        ce
    })
}

/// `timeoutSeconds`: a number of seconds the command limit accepts
/// (more than 0, at most 7200, at most 3 decimals), checked while the
/// file is read so that a bad value is a configuration error with its
/// file and line, like every other.
#[derive(Debug, Clone, Copy)]
struct Seconds(f64);

/// `outputLimitBytes`: a whole number of bytes the output limit accepts.
#[derive(Debug, Clone, Copy)]
struct Bytes(u64);

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Seconds;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of seconds")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Seconds, E> {
                match crate::limits::parse_timeout(&v.to_string()) {
                    Some(_) => Ok(Seconds(v)),
                    None => Err(E::custom(format!(
                        "timeoutSeconds must be more than 0 and at most {} seconds (up to 3 decimal places), got {v}",
                        crate::limits::MAX_TIMEOUT_SECS
                    ))),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Seconds, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Seconds, E> {
                self.visit_f64(v as f64)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number of bytes")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Bytes, E> {
                match crate::limits::parse_output_limit(&v.to_string()) {
                    Some(n) => Ok(Bytes(n)),
                    None => Err(E::custom(format!(
                        "outputLimitBytes must be from 1 to {} bytes, got {v}",
                        crate::limits::MAX_OUTPUT_LIMIT_BYTES
                    ))),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Bytes, E> {
                Err(E::custom(format!(
                    "outputLimitBytes must be from 1 to {} bytes, got {v}",
                    crate::limits::MAX_OUTPUT_LIMIT_BYTES
                )))
            }
        }
        d.deserialize_any(V)
    }
}

/// `sandbox.maxFileBytes`: a whole number of bytes, at least 1 MiB (a
/// smaller limit breaks ordinary tools).
#[derive(Debug, Clone, Copy)]
struct Bytes64(u64);

impl<'de> Deserialize<'de> for Bytes64 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Bytes64;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number of bytes")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Bytes64, E> {
                if v < 1 << 20 {
                    return Err(E::custom(format!(
                        "sandbox.maxFileBytes must be at least 1048576 (1 MiB), got {v}"
                    )));
                }
                Ok(Bytes64(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Bytes64, E> {
                match u64::try_from(v) {
                    Ok(u) => self.visit_u64(u),
                    Err(_) => Err(E::custom(format!(
                        "sandbox.maxFileBytes must be at least 1048576 (1 MiB), got {v}"
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// serde's type errors in the user's terms: `invalid type: string "300",
/// expected a number of seconds` → `expected a number of seconds, got the
/// string "300"`.
fn in_user_terms(message: &str) -> String {
    if message.starts_with("data did not match any variant of untagged enum NetworkLayer") {
        return "sandbox.network must be \"allowlist\", \"open\" or \"deny\", or an object with \"mode\", \"allow\" (hosts: \"host\", \"*.domain\", with an optional \":port\") and \"hostPorts\" (port numbers)".to_string();
    }
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "));
    let Some((got, expected)) = rest.and_then(|r| r.split_once(", expected ")) else {
        return message.to_string();
    };
    let expected = match expected {
        "a boolean" => "true or false",
        "f64" => "a number",
        "u64" | "u32" => "a whole number",
        "a string" => "a string in double quotes",
        "a sequence" => "a list (a JSON array)",
        e if e.starts_with("struct ") || e == "a map" => "an object",
        e => e,
    };
    let unquote = |s: &str| s.trim_matches('`').to_string();
    let got = if let Some(v) = got.strip_prefix("string ") {
        format!("the string {v}")
    } else if let Some(v) = got
        .strip_prefix("integer ")
        .or_else(|| got.strip_prefix("floating point "))
    {
        format!("the number {}", unquote(v))
    } else if let Some(v) = got.strip_prefix("boolean ") {
        unquote(v)
    } else {
        match got {
            "sequence" => "a list".to_string(),
            "map" => "an object".to_string(),
            other => other.to_string(),
        }
    };
    format!("expected {expected}, got {got}")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LayerKind {
    /// The administrator's managed policy: everything, plus `locked` and
    /// `autoMode.allowOff`.
    Managed,
    Full,
    /// Project-shared: may only add deny and ask rules.
    Shared,
    /// Project-local (trusted): everything except where the classifier
    /// is and how it is reached (an agent can write the project).
    Local,
}

/// Merge a list setting: replaces the current list unless it contains
/// `$defaults`, which keeps the built-in entries at that place.
/// `merge_list`, or under a lock (`append`) add to the list instead.
fn merge_list_locked(
    current: &mut Vec<Sourced<String>>,
    given: Vec<String>,
    source: &Source,
    append: bool,
) {
    if append {
        for item in given {
            if item != DEFAULTS_MARKER && !current.iter().any(|c| c.value == item) {
                current.push(Sourced {
                    value: item,
                    source: source.clone(),
                });
            }
        }
        return;
    }
    let builtins: Vec<Sourced<String>> = current
        .iter()
        .filter(|s| s.source == Source::BuiltIn)
        .cloned()
        .collect();
    let mut out = Vec::new();
    for item in given {
        if item == DEFAULTS_MARKER {
            out.extend(builtins.iter().cloned());
        } else {
            out.push(Sourced {
                value: item,
                source: source.clone(),
            });
        }
    }
    *current = out;
}

fn apply(cfg: &mut Config, layer: Layer, source: Source, kind: LayerKind, locks: Option<&Locks>) {
    let appends = |key: &str| locks.is_some_and(|l| l.appends(key));
    let Layer {
        auto_mode,
        permissions,
        allow_inside_working_directory,
        denied_paths,
        protected_paths,
        classify_read_only_tools,
        timeout_seconds,
        output_limit_bytes,
        sandbox,
        checkpoint,
        locked,
        schema: _,
    } = layer;
    let mut managed_only = Vec::new();
    if locked.is_some() && kind != LayerKind::Managed {
        managed_only.push("locked");
    }
    let rules = |list: Vec<String>| -> Vec<RuleEntry> {
        list.into_iter()
            .map(|pattern| RuleEntry {
                pattern,
                source: source.clone(),
            })
            .collect()
    };
    if let Some(PermissionsLayer { deny, ask, allow }) = permissions {
        // Deny and ask accumulate across layers; allow too, but never from
        // the shared project file.
        if let Some(d) = deny {
            cfg.deny.extend(rules(d));
        }
        if let Some(a) = ask {
            cfg.ask.extend(rules(a));
        }
        if let Some(a) = allow {
            if kind == LayerKind::Shared {
                cfg.diagnostics.push(format!(
                    "{source}: permissions.allow is ignored in the shared project file (it can only add deny and ask rules)"
                ));
            } else {
                cfg.allow.extend(rules(a));
            }
        }
    }
    let mut ignored = Vec::new();
    let mut ignored_local = Vec::new();
    let mut set = |name: &str, present: bool| {
        if present && kind == LayerKind::Shared {
            ignored.push(name.to_string());
        }
        present && kind != LayerKind::Shared
    };
    if let Some(AutoModeLayer {
        enabled,
        allow,
        soft_deny,
        hard_deny,
        environment,
        classifier_model,
        providers,
        classifier_timeout_ms,
        classifier_reasoning_level,
        log,
        allow_terminal_input,
        approval_ttl_seconds,
        ask_command,
        ask_timeout_seconds,
        ask_on_terminal,
        allow_off,
    }) = auto_mode
    {
        if let Some(v) = allow_off {
            if kind == LayerKind::Managed {
                cfg.allow_off = Sourced {
                    value: v,
                    source: source.clone(),
                };
            } else {
                managed_only.push("autoMode.allowOff");
            }
        }
        // Where the classifier is and how it is reached: only from the
        // global file and the harness's inline settings.
        let classifier_keys = [
            ("autoMode.classifierModel", classifier_model.is_some()),
            ("autoMode.providers", providers.is_some()),
            (
                "autoMode.classifierTimeoutMs",
                classifier_timeout_ms.is_some(),
            ),
            (
                "autoMode.classifierReasoningLevel",
                classifier_reasoning_level.is_some(),
            ),
            ("autoMode.log", log.is_some()),
            (
                "autoMode.allowTerminalInput",
                allow_terminal_input.is_some(),
            ),
            (
                "autoMode.approvalTtlSeconds",
                approval_ttl_seconds.is_some(),
            ),
            ("autoMode.askCommand", ask_command.is_some()),
            ("autoMode.askTimeoutSeconds", ask_timeout_seconds.is_some()),
            ("autoMode.askOnTerminal", ask_on_terminal.is_some()),
        ];
        let classifier_ok = matches!(kind, LayerKind::Full | LayerKind::Managed);
        for (name, present) in classifier_keys {
            if present && kind == LayerKind::Shared {
                set(name, true);
            } else if present && kind == LayerKind::Local {
                ignored_local.push(name.to_string());
            }
        }
        if classifier_ok {
            overlay_some(&mut cfg.classifier_model, classifier_model, &source);
            for (name, settings) in providers.unwrap_or_default() {
                let entry = cfg
                    .providers
                    .entry(name)
                    .or_insert_with(|| (ProviderSettings::default(), source.clone()));
                entry.0.overlay(&settings);
                entry.1 = source.clone();
            }
            overlay(
                &mut cfg.classifier_timeout_ms,
                classifier_timeout_ms,
                &source,
            );
            overlay_some(
                &mut cfg.classifier_reasoning_level,
                classifier_reasoning_level,
                &source,
            );
            overlay(
                &mut cfg.log_classifier_io,
                log.and_then(|l| l.classifier_io),
                &source,
            );
            overlay(&mut cfg.allow_terminal_input, allow_terminal_input, &source);
            overlay(&mut cfg.approval_ttl_seconds, approval_ttl_seconds, &source);
            let ask_argv = ask_command.map(|v| match v {
                AskCommand::Program(p) => vec![p],
                AskCommand::Argv(a) => a,
            });
            overlay_some(&mut cfg.ask_command, ask_argv, &source);
            overlay(&mut cfg.ask_timeout_seconds, ask_timeout_seconds, &source);
            overlay(&mut cfg.ask_on_terminal, ask_on_terminal, &source);
        }
        if set("autoMode.enabled", enabled.is_some())
            && let Some(v) = enabled
        {
            cfg.enabled = Sourced {
                value: v,
                source: source.clone(),
            };
        }
        if set("autoMode.allow", allow.is_some())
            && let Some(v) = allow
        {
            merge_list_locked(
                &mut cfg.classifier_allow,
                v,
                &source,
                appends("autoMode.allow"),
            );
        }
        if set("autoMode.soft_deny", soft_deny.is_some())
            && let Some(v) = soft_deny
        {
            merge_list_locked(
                &mut cfg.classifier_soft_deny,
                v,
                &source,
                appends("autoMode.soft_deny"),
            );
        }
        if set("autoMode.hard_deny", hard_deny.is_some())
            && let Some(v) = hard_deny
        {
            merge_list_locked(
                &mut cfg.classifier_hard_deny,
                v,
                &source,
                appends("autoMode.hard_deny"),
            );
        }
        if set("autoMode.environment", environment.is_some())
            && let Some(v) = environment
        {
            merge_list_locked(
                &mut cfg.classifier_environment,
                v,
                &source,
                appends("autoMode.environment"),
            );
        }
    }
    if set(
        "allowInsideWorkingDirectory",
        allow_inside_working_directory.is_some(),
    ) && let Some(v) = allow_inside_working_directory
    {
        cfg.allow_inside_working_directory = Sourced {
            value: v,
            source: source.clone(),
        };
    }
    if set("deniedPaths", denied_paths.is_some())
        && let Some(v) = denied_paths
    {
        cfg.denied_paths.extend(v.into_iter().map(|p| Sourced {
            value: p,
            source: source.clone(),
        }));
    }
    if set("protectedPaths", protected_paths.is_some())
        && let Some(v) = protected_paths
    {
        merge_list_locked(
            &mut cfg.protected_paths,
            v,
            &source,
            appends("protectedPaths"),
        );
    }
    if set("classifyReadOnlyTools", classify_read_only_tools.is_some())
        && let Some(v) = classify_read_only_tools
    {
        cfg.classify_read_only_tools = Sourced {
            value: v,
            source: source.clone(),
        };
    }
    if set("timeoutSeconds", timeout_seconds.is_some())
        && let Some(Seconds(v)) = timeout_seconds
    {
        cfg.timeout_seconds = Some(Sourced {
            value: v,
            source: source.clone(),
        });
    }
    if set("outputLimitBytes", output_limit_bytes.is_some())
        && let Some(Bytes(v)) = output_limit_bytes
    {
        cfg.output_limit_bytes = Some(Sourced {
            value: v,
            source: source.clone(),
        });
    }
    if let Some(sb) = sandbox {
        // A project must never widen its own sandbox.
        if matches!(kind, LayerKind::Full | LayerKind::Managed) {
            apply_sandbox(&mut cfg.sandbox, sb, &source, &appends);
        } else if kind == LayerKind::Local {
            ignored_local.push("sandbox".to_string());
        } else {
            ignored.push("sandbox".to_string());
        }
    }
    if let Some(cp) = checkpoint {
        if matches!(kind, LayerKind::Full | LayerKind::Managed) {
            let c = &mut cfg.checkpoint;
            overlay(&mut c.enabled, cp.enabled, &source);
            overlay(&mut c.max_file_bytes, cp.max_file_bytes, &source);
            overlay(&mut c.keep_hours, cp.keep_hours, &source);
            overlay(&mut c.max_bytes, cp.max_bytes, &source);
        } else if kind == LayerKind::Local {
            ignored_local.push("checkpoint".to_string());
        } else {
            ignored.push("checkpoint".to_string());
        }
    }
    if !managed_only.is_empty() {
        cfg.diagnostics.push(format!(
            "{source}: ignored {} (only the administrator's managed policy {MANAGED_PATH} sets them)",
            managed_only.join(", ")
        ));
    }
    if !ignored_local.is_empty() {
        cfg.diagnostics.push(format!(
            "{source}: ignored {} (where the classifier is, how it is reached, and the sandbox come only from the global configuration and AUTOMODE_SETTINGS_JSON)",
            ignored_local.join(", ")
        ));
    }
    if !ignored.is_empty() {
        cfg.diagnostics.push(format!(
            "{source}: ignored {} (the shared project file can only add permissions.deny and permissions.ask)",
            ignored.join(", ")
        ));
    }
}

fn apply_sandbox(
    cfg: &mut SandboxConfig,
    layer: SandboxLayer,
    source: &Source,
    appends: &dyn Fn(&str) -> bool,
) {
    let SandboxLayer {
        mode,
        write,
        caches,
        read_deny,
        protect,
        protect_mode,
        network,
        pass_env,
        max_file_bytes,
        sockets,
        read,
        credentials,
    } = layer;
    overlay(&mut cfg.mode, mode, source);
    for (key, list, given) in [
        ("sandbox.write", &mut cfg.write, write),
        ("sandbox.caches", &mut cfg.caches, caches),
        ("sandbox.readDeny", &mut cfg.read_deny, read_deny),
        ("sandbox.protect", &mut cfg.protect, protect),
        ("sandbox.passEnv", &mut cfg.pass_env, pass_env),
        ("sandbox.read", &mut cfg.read, read),
        ("sandbox.credentials", &mut cfg.credentials, credentials),
    ] {
        if let Some(v) = given {
            merge_list_locked(list, v, source, appends(key));
        }
    }
    overlay(&mut cfg.protect_mode, protect_mode, source);
    match network {
        Some(NetworkLayer::Mode(m)) => overlay(&mut cfg.network, Some(m), source),
        Some(NetworkLayer::Settings(NetworkSettings {
            mode,
            allow,
            host_ports,
        })) => {
            overlay(&mut cfg.network, mode, source);
            if let Some(v) = allow {
                merge_list_locked(&mut cfg.network_allow, v, source, false);
            }
            if let Some(ports) = host_ports {
                cfg.host_ports = ports
                    .into_iter()
                    .map(|value| Sourced {
                        value,
                        source: source.clone(),
                    })
                    .collect();
            }
        }
        None => {}
    }
    overlay(&mut cfg.max_file_bytes, max_file_bytes.map(|b| b.0), source);
    if let Some(v) = sockets.and_then(|s| s.allow) {
        merge_list_locked(
            &mut cfg.sockets_allow,
            v,
            source,
            appends("sandbox.sockets.allow"),
        );
    }
}

/// Set `autoMode.classifierModel`-style keys in the global file (user
/// commands). Keeps the rest of the file, writes atomically.
pub fn save_global_value(dir: &Path, pointer: &[&str], value: Value) -> Result<PathBuf, String> {
    let path = dir.join("config.json");
    let mut root: Value = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| format!("{} does not parse: {e}", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Object(Default::default()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut node = &mut root;
    for (i, key) in pointer.iter().enumerate() {
        let Some(obj) = node.as_object_mut() else {
            return Err(format!("{} is not an object at {key}", path.display()));
        };
        if i + 1 == pointer.len() {
            obj.insert((*key).to_string(), value);
            break;
        }
        node = obj
            .entry((*key).to_string())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    let text = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?;
    crate::state::write_atomic(&path, format!("{text}\n").as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests;
