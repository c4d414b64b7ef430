//! The one judge for the shim, `automode check` and hook mode: a script
//! and where it runs → a verdict, classifier included.
//!
//! Input: the process `Context` and a `Request` (the script as submitted,
//! its directory, how it was submitted). Output: `Decided` (the verdict,
//! the text that was judged, the analysis, the classifier's note). It
//! loads configuration and reads session state (never writes it: see
//! `record.rs`) and runs nothing.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::config::{self, Config, ConfigError};
use crate::context::Context;
use crate::policy::places::Places;
use crate::policy::{self, Decision, Verdict};
use crate::state::{self, Store};
use crate::{approval, checkpoint, classifier, harness, report, sandbox, session, shell};

/// Consecutive classifier failures after which the verdict becomes `ask`
/// (the first two block).
const CLASSIFIER_FAILURES_BEFORE_ASK: u64 = 3;

/// How a script came to be judged: what differs between the shim,
/// `automode check` and hook mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The shim is about to run it. `login`: bash's `-l`; `noexec`:
    /// bash's `-n` (parse only, nothing runs).
    Shim { login: bool, noexec: bool },
    /// `automode check`: never runs; the classifier only with `classify`.
    Check { classify: bool },
    /// Claude Code's PreToolUse hook: Claude runs it if allowed.
    Hook,
}

/// One script to judge.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub origin: Origin,
    /// The script as submitted (a harness wrapper included).
    pub script: &'a str,
    pub cwd: &'a Path,
    pub positional: shell::Positional,
    /// The analysis' input bound (a `-c` word or a file).
    pub max_bytes: usize,
    pub dialect: shell::Dialect,
    /// The inherited environment is what the script will see (no login
    /// profile or `BASH_ENV` runs first).
    pub trust_env: bool,
    /// The command's stdin would be the shim's terminal.
    pub terminal: bool,
    /// Why the script bash would run cannot be analysed faithfully (its
    /// bytes, or its arguments, are not UTF-8): `script` is then only a
    /// lossy copy for messages, and the analysis is opaque.
    pub undecodable: Option<String>,
}

/// A verdict with how it was reached.
#[derive(Debug)]
pub struct Decided {
    pub verdict: Verdict,
    /// The text that was judged: the agent's command inside a recognised
    /// harness wrapper, else the script.
    pub judged: String,
    pub wrapped: Option<harness::Wrapped>,
    /// The analysis (none when no analysis was needed: `bash -n`, a
    /// harness's own setup call).
    pub analysis: Option<shell::Analysis>,
    pub decision_time: Duration,
    pub classifier: Option<ClassifierNote>,
    /// The sandbox the command gets (none in hook mode, which runs
    /// nothing).
    pub sandbox: Option<SandboxDecision>,
    /// The user's approval this verdict rests on (the shim uses it up
    /// before the command runs).
    pub approval: Option<approval::Ask>,
    /// What an approval for this command is bound to (the shim only).
    pub binding: Option<approval::Binding>,
    /// The user had approved the command's ask rule (it then met the
    /// classifier).
    pub rule_approved: bool,
    /// The ask waiting for the user (set by the shim).
    pub pending: Option<approval::Ask>,
}

/// How the command is confined.
#[derive(Debug)]
pub struct SandboxDecision {
    pub status: sandbox::Status,
    /// What it may write and read (when the sandbox is enforced).
    pub plan: Option<sandbox::Plan>,
    /// The plan as a Landlock ruleset (or why it could not be built).
    pub ruleset: Option<Result<std::os::fd::OwnedFd, String>>,
    /// The widening the script asked for.
    pub widening: Option<sandbox::widen::Widening>,
    /// `sandbox.mode` as configured, and where.
    pub mode: sandbox::Mode,
    pub mode_source: String,
    /// The user approved this one command's `AUTOMODE_SANDBOX=off`
    /// (who: the approval's channel).
    pub lifted: Option<String>,
    /// The session's network wall, joined for a command that runs under
    /// `sandbox.network: "allowlist"` (or why it could not be).
    pub wall: Option<Result<sandbox::net::Joined, String>>,
}

/// How a command runs: the one value the shim and `automode exec` act
/// on. There is no third way: a command runs confined by its plan, or
/// unconfined because the user chose so.
#[derive(Debug)]
pub enum Run<'a> {
    /// Under this plan, with its Landlock ruleset, and in the session's
    /// network wall when it is up (`sandbox.network: "allowlist"`).
    Confined {
        plan: &'a sandbox::Plan,
        ruleset: std::os::fd::OwnedFd,
        wall: Option<sandbox::net::Joined>,
    },
    /// With the user's own rights, for the user's reason.
    Unconfined(Unconfined),
}

/// The only reasons a command runs unconfined: each is the user's (or
/// the administrator's) own choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unconfined {
    /// `sandbox.mode: "off"`, set in this file.
    ModeOff { source: String },
    /// `sandbox.mode: "auto"`, and the kernel cannot enforce it (why).
    KernelCannot { why: String },
    /// The user approved this command's `AUTOMODE_SANDBOX=off` (how).
    Lifted { by: String },
}

/// Why a command cannot run as decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// `sandbox.mode: "require"` and the kernel cannot enforce it (why).
    Required(String),
    /// The sandbox could not be set up, or its state makes no sense.
    Failed(String),
}

impl Unconfined {
    /// For messages and the audit log.
    pub fn describe(&self) -> String {
        match self {
            Unconfined::ModeOff { source } => format!("sandbox.mode is \"off\" ({source})"),
            Unconfined::KernelCannot { why } => {
                format!("sandbox.mode is \"auto\" and the kernel cannot enforce it: {why}")
            }
            Unconfined::Lifted { by } => {
                format!("the user approved AUTOMODE_SANDBOX=off for this command ({by})")
            }
        }
    }
}

impl SandboxDecision {
    /// How the command runs, given its ruleset (taken out of `self.ruleset`
    /// by the caller, so the decision can still be recorded). Anything
    /// but an enforced plan with its ruleset, or one of the user's
    /// reasons to run unconfined, is an error: the command does not run.
    pub fn run(
        &self,
        ruleset: Option<Result<std::os::fd::OwnedFd, String>>,
        wall: Option<Result<sandbox::net::Joined, String>>,
    ) -> Result<Run<'_>, Refused> {
        use sandbox::{Mode, Status};
        let failed = |why: &str| Err(Refused::Failed(why.to_string()));
        if let Some(by) = &self.lifted {
            return match (self.mode, &self.plan) {
                (Mode::Require, _) => failed(
                    "AUTOMODE_SANDBOX=off cannot lift the sandbox: sandbox.mode is \"require\"",
                ),
                (_, Some(_)) => failed("the sandbox was lifted, yet a plan was built for it"),
                _ => Ok(Run::Unconfined(Unconfined::Lifted { by: by.clone() })),
            };
        }
        match (&self.status, self.mode) {
            (Status::Enforced { .. }, Mode::Auto | Mode::Require) => match (&self.plan, ruleset) {
                (Some(plan), Some(Ok(fd))) => {
                    let wall = match (plan.network, wall) {
                        (sandbox::Network::Allowlist, Some(Ok(j))) => Some(j),
                        // Where the wall cannot stand, `require` refuses;
                        // `auto` runs the command with the host's network
                        // (and the seccomp filter), as `status` says.
                        (sandbox::Network::Allowlist, Some(Err(why)))
                            if self.mode == Mode::Require =>
                        {
                            return Err(Refused::Failed(format!(
                                "sandbox.network is \"allowlist\" and sandbox.mode \"require\", but the network wall cannot be set up here: {why}"
                            )));
                        }
                        _ => None,
                    };
                    Ok(Run::Confined {
                        plan,
                        ruleset: fd,
                        wall,
                    })
                }
                (_, Some(Err(why))) => Err(Refused::Failed(why)),
                _ => failed(
                    "the sandbox is enforced here, but no ruleset was built for this command",
                ),
            },
            (Status::Off, Mode::Off) => Ok(Run::Unconfined(Unconfined::ModeOff {
                source: self.mode_source.clone(),
            })),
            (Status::Unavailable { why }, Mode::Auto) => {
                Ok(Run::Unconfined(Unconfined::KernelCannot {
                    why: why.clone(),
                }))
            }
            (Status::Unavailable { why }, Mode::Require) => Err(Refused::Required(why.clone())),
            (status, mode) => Err(Refused::Failed(format!(
                "the sandbox's state ({status:?}) does not agree with sandbox.mode {mode:?}"
            ))),
        }
    }

    /// What the decision record says is enforced: the plan's summary, or
    /// why the command runs unconfined (before the command starts; the
    /// outcome record says what the child applied).
    fn confinement_json(&self) -> serde_json::Value {
        if let Some(by) = &self.lifted {
            return serde_json::json!({"state": "unconfined", "because": Unconfined::Lifted { by: by.clone() }.describe()});
        }
        match (&self.status, &self.plan) {
            (sandbox::Status::Enforced { abi }, Some(p)) => serde_json::json!({
                "state": "confined",
                "abi": abi,
                "namespace": p.namespace,
                "network": p.network,
            }),
            (sandbox::Status::Off, _) => {
                serde_json::json!({"state": "unconfined", "because": Unconfined::ModeOff { source: self.mode_source.clone() }.describe()})
            }
            (sandbox::Status::Unavailable { why }, _) if self.mode == sandbox::Mode::Auto => {
                serde_json::json!({"state": "unconfined", "because": Unconfined::KernelCannot { why: why.clone() }.describe()})
            }
            _ => serde_json::json!({"state": "refused"}),
        }
    }

    /// The audit record's summary: what decides, not every path.
    pub fn to_audit_json(&self) -> serde_json::Value {
        serde_json::json!({
            "mode": self.mode,
            "status": self.status,
            "confinement": self.confinement_json(),
            "widening": self.widening.as_ref().map(sandbox::widen::Widening::describe),
            "grants": self.plan.as_ref().map(|p| p.extra_write.iter().map(|(w, why)| serde_json::json!({"path": w.display().to_string(), "why": why})).collect::<Vec<_>>()),
            "withheld_env": self.plan.as_ref().map(|p| &p.withheld_env),
            "network": self.plan.as_ref().map(|p| p.network),
            "network_grants": self.plan.as_ref().map(|p| p.network_grants.iter().map(|(h, port)| format!("{h}:{port}")).collect::<Vec<_>>()),
        })
    }

    /// For `automode check --json`.
    pub fn to_json(&self) -> serde_json::Value {
        let list =
            |v: &[PathBuf]| -> Vec<String> { v.iter().map(|p| p.display().to_string()).collect() };
        let mut value = serde_json::json!({
            "mode": self.mode,
            "status": self.status,
            "confinement": self.confinement_json(),
            "widening": self.widening.as_ref().map(sandbox::widen::Widening::describe),
        });
        if let (Some(obj), Some(p)) = (value.as_object_mut(), &self.plan) {
            obj.insert("write".into(), list(&p.write).into());
            obj.insert(
                "grants".into(),
                p.extra_write
                    .iter()
                    .map(
                        |(w, why)| serde_json::json!({"path": w.display().to_string(), "why": why}),
                    )
                    .collect::<Vec<_>>()
                    .into(),
            );
            obj.insert("write_exclude".into(), list(&p.write_exclude).into());
            obj.insert("read_deny".into(), list(&p.read_deny).into());
            obj.insert(
                "protect".into(),
                list(&[p.protect.clone(), p.protect_missing.clone()].concat()).into(),
            );
            obj.insert("protect_mode".into(), serde_json::json!(p.protect_mode));
            obj.insert("network".into(), serde_json::json!(p.network));
            obj.insert(
                "network_grants".into(),
                p.network_grants
                    .iter()
                    .map(|(h, port)| format!("{h}:{port}"))
                    .collect::<Vec<_>>()
                    .into(),
            );
            obj.insert("namespace".into(), p.namespace.into());
            obj.insert("hidden".into(), list(&p.hide).into());
            obj.insert(
                "replaced".into(),
                p.replace
                    .iter()
                    .map(|r| {
                        serde_json::json!({
                            "at": r.at.display().to_string(),
                            "with": r.with.display().to_string(),
                            "kept": list(&r.keep),
                            "why": r.why,
                        })
                    })
                    .collect::<Vec<_>>()
                    .into(),
            );
            obj.insert("covered_sockets".into(), list(&p.cover_sockets).into());
            obj.insert(
                "session_tmp".into(),
                p.session_tmp
                    .as_ref()
                    .map(|t| t.display().to_string())
                    .into(),
            );
            obj.insert("withheld_env".into(), p.withheld_env.clone().into());
            obj.insert(
                "credentials".into(),
                p.credentials
                    .iter()
                    .map(|(path, why)| serde_json::json!({"path": path.display().to_string(), "why": why}))
                    .collect::<Vec<_>>()
                    .into(),
            );
            obj.insert(
                "settings".into(),
                p.settings
                    .iter()
                    .map(|s| serde_json::json!({"at": s.at.display().to_string(), "copy": s.copy.display().to_string(), "variable": s.variable}))
                    .collect::<Vec<_>>()
                    .into(),
            );
            obj.insert("max_file_bytes".into(), p.max_file_bytes.into());
            obj.insert("project_refused".into(), p.project_refused.clone().into());
        }
        value
    }
}

/// What decides a command's sandbox.
#[derive(Debug)]
struct SandboxAsk<'a> {
    cwd: &'a Path,
    /// The verdict (none for `automode exec`, which has no policy).
    verdict: Option<&'a Verdict>,
    analysis: Option<&'a shell::Analysis>,
    widening: Option<sandbox::widen::Widening>,
    /// A harness's own setup call.
    harness_call: Option<&'static str>,
    /// It runs next (missing caches may be made).
    will_run: bool,
    /// The base plan, when it was built before the verdict.
    base: Option<(sandbox::OwnedInputs, sandbox::Prepared)>,
    /// The session's network wall, joined (or why not).
    wall: Option<Result<sandbox::net::Joined, String>>,
}

/// What the classifier did, for state and audit.
#[derive(Debug)]
pub struct ClassifierNote {
    /// `provider/model`, or why there is none.
    pub model: String,
    /// Where the model comes from (a file, the environment).
    pub model_source: String,
    /// It was taken from a key in the environment (not configured).
    pub from_environment: bool,
    pub failed: bool,
    pub attempts: Vec<classifier::Attempt>,
    pub estimated_tokens: Vec<u64>,
}

impl ClassifierNote {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "model": self.model,
            "model_source": self.model_source,
            "failed": self.failed,
            "stages": self.attempts,
            "estimated_prompt_tokens": self.estimated_tokens,
        })
    }
}

/// Which on/off switches apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switches {
    /// This session's switch, then the global one (the shim, hooks).
    SessionAndGlobal,
    /// Only the global one (`automode check`).
    Global,
}

/// What the policy needs besides the analysis: configuration, places,
/// this session's state and the on/off switch in force.
#[derive(Debug)]
pub struct Judge {
    pub config: Config,
    pub places: Places,
    pub store: Option<Store>,
    pub state_dir: Option<PathBuf>,
    pub enabled: (bool, String),
    /// The session file named by the caller (hook mode's `transcript_path`).
    pub transcript: Option<PathBuf>,
    /// What the kernel offers the sandbox.
    pub kernel: sandbox::Kernel,
    /// This session has been told that the sandbox is unavailable.
    pub sandbox_warned: bool,
    /// This session has been told which classifier its environment chose.
    pub classifier_announced: bool,
    /// This session has been told how to set up a classifier.
    pub classifier_advised: bool,
    /// When this session's first command was counted (ns): what was born
    /// after it is the session's to delete.
    pub session_start_ns: Option<u64>,
}

impl Judge {
    /// Load configuration and state for a decision in `cwd`.
    pub fn load(ctx: &Context, cwd: &Path, switches: Switches) -> Result<Judge, ConfigError> {
        let home = ctx.home().map(|h| policy::places::canon(&h));
        let xdg_config = ctx.var_str("XDG_CONFIG_HOME");
        let managed = config::managed_path(&|k| ctx.var_str(k).map(str::to_string));
        let config = config::load(&config::LoadInput {
            managed: Some(&managed),
            home: home.as_deref(),
            xdg_config_home: xdg_config,
            cwd: Some(cwd),
            inline: ctx.var_str("AUTOMODE_SETTINGS_JSON"),
        })?;
        let state_dir = state::state_dir(home.as_deref(), ctx.var_str("XDG_STATE_HOME"));
        let store = state_dir.clone().map(|d| {
            let var = |k: &str| ctx.var_str(k).map(str::to_string);
            Store::new(d, session::id(ctx.var_str("AUTOMODE_SESSION"), &var))
        });
        // Read for when the session began (its artifacts) whatever the
        // switches; its own on/off only where they say.
        let session = store.as_ref().map(Store::read);
        let session_switch = session
            .as_ref()
            .filter(|_| switches == Switches::SessionAndGlobal)
            .and_then(|s| s.enabled);
        let sandbox_warned = session.as_ref().is_some_and(|s| s.sandbox_warned);
        let classifier_announced = session.as_ref().is_some_and(|s| s.classifier_announced);
        let classifier_advised = session.as_ref().is_some_and(|s| s.classifier_advised);
        let session_start_ns = session.as_ref().and_then(|s| {
            s.first_at_ns
                .or_else(|| s.first_at.map(|t| (t + 1).saturating_mul(1_000_000_000)))
        });
        let global = state_dir.as_deref().and_then(|d| state::global(d).enabled);
        let enabled = match (session_switch, global) {
            _ if config.switch_locked().is_some() => {
                (config.enabled.value, config.enabled.source.to_string())
            }
            (Some(on), _) => (on, "automode on/off for this session".to_string()),
            (None, Some(on)) => (on, "automode on/off".to_string()),
            (None, None) => (config.enabled.value, config.enabled.source.to_string()),
        };
        let mut places = places(ctx, cwd, home.clone());
        // Where this command's checkpoint would be taken (the policy lets
        // deletions and overwrites it can give back run).
        if config.checkpoint.enabled.value && places.automode_state.is_some() {
            places.checkpoint =
                checkpoint::root_for(&places.cwd, &places)
                    .ok()
                    .map(|root| checkpoint::Coverage {
                        root,
                        max_file_bytes: config.checkpoint.max_file_bytes.value,
                    });
        }
        let kernel = if config.sandbox.mode.value == sandbox::Mode::Off {
            sandbox::Kernel {
                abi: 0,
                why_not: None,
            }
        } else {
            sandbox::Kernel::probe()
        };
        Ok(Judge {
            config,
            places,
            store,
            state_dir,
            enabled,
            transcript: None,
            kernel,
            sandbox_warned,
            classifier_announced,
            classifier_advised,
            session_start_ns,
        })
    }

    /// Judge one script: the local tiers, then (where the origin asks for
    /// it) the classifier for what they send to review.
    pub fn judge(&self, ctx: &Context, req: &Request<'_>) -> Decided {
        let started = Instant::now();
        let prepared = match req.origin {
            // A lossy copy is never matched against a harness's shapes.
            _ if req.undecodable.is_some() => Prepared {
                text: req.script.to_string(),
                wrapped: None,
                internal: None,
            },
            Origin::Shim { login, .. } => prepare(ctx, self, req.script, Some(login)),
            Origin::Check { .. } => prepare(ctx, self, req.script, None),
            Origin::Hook => Prepared {
                text: req.script.to_string(),
                wrapped: None,
                internal: None,
            },
        };
        let Prepared {
            text,
            wrapped,
            internal,
        } = prepared;
        let mut analysis = None;
        let mut classifier_note = None;
        let mut widening = None;
        let mut binding = None;
        let mut used = None;
        let mut refused_or_waiting = None;
        let mut rule_approved = false;
        // The sandbox's base plan first: the contained tier decides by
        // where it lets the command write.
        let will_run = matches!(req.origin, Origin::Shim { .. });
        let inputs = match req.origin {
            Origin::Hook => None,
            Origin::Shim { .. } | Origin::Check { .. } => self
                .kernel
                .status(self.config.sandbox.mode.value)
                .enforced()
                .then(|| self.sandbox_inputs(ctx, req.cwd)),
        };
        // The network wall: joined now for a command that runs (its filter
        // started if this is the session's first), predicted for `check`.
        // It needs only the settings and the kernel, so it comes before
        // the plan, and the steps every command behind it takes are taken
        // by a child made now, while the command is judged (`exec::Ahead`).
        let wall = match (&inputs, req.origin) {
            (Some(owned), Origin::Shim { .. })
                if self.config.sandbox.network.value == sandbox::Network::Allowlist =>
            {
                let userns = sandbox::user_namespaces_possible();
                let mut joined = self.join_wall(ctx, owned, userns);
                if let Ok(j) = &mut joined {
                    j.ahead = crate::launch::made_ahead(userns, self.kernel.abi, j);
                }
                crate::timing::mark("wall-joined");
                Some(joined)
            }
            _ => None,
        };
        let base = inputs.map(|owned| {
            let prepared = self.sandbox_plan(&owned, will_run);
            (owned, prepared)
        });
        let network_wall = match (&base, &wall) {
            (_, Some(w)) => w.is_ok(),
            (Some((_, p)), None) => {
                p.plan.network == sandbox::Network::Allowlist
                    && self.wall_predicted(p.plan.user_namespaces)
            }
            (None, None) => false,
        };
        let containment = base.as_ref().map(|(_, p)| policy::Containment {
            network_wall,
            write: p.plan.write.clone(),
            exclude: p.plan.write_exclude.clone(),
            protect: p
                .plan
                .protect
                .iter()
                .chain(&p.plan.protect_missing)
                .cloned()
                .collect(),
        });
        crate::timing::mark("analysis-began");
        let mut verdict = if let Origin::Shim { noexec: true, .. } = req.origin {
            // `bash -n`: bash parses and runs nothing.
            Verdict::new(
                Decision::Allow,
                policy::Tier::Analysis,
                "noexec",
                "built-in",
                "bash -n only parses the script; nothing runs",
            )
        } else if let Some(kind) = internal {
            Verdict::new(
                Decision::Allow,
                policy::Tier::Harness,
                kind,
                "built-in",
                "the harness's own setup call: top level, its parent process is the harness binary, and it has the builder's shape",
            )
        } else {
            let analysed = match (&req.undecodable, ctx.home()) {
                (Some(why), _) => shell::Analysis::opaque(why.clone()),
                (None, Some(h)) if h.to_str().is_none() => {
                    shell::Analysis::opaque("HOME is not valid UTF-8, so `~` cannot be placed")
                }
                (None, _) => shell::analyze(analysis_request(ctx, req, text.as_bytes())),
            };
            widening = self.widening(ctx, &analysed);
            let local_in = Local {
                terminal: req.terminal,
                widening: widening.as_ref(),
                contained: containment.as_ref(),
                approved_ask: false,
            };
            let mut local = self.decide(ctx, &analysed, &text, &local_in);
            // An ask, or a review, may already have the user's answer.
            if will_run && matches!(local.decision, Decision::Ask | Decision::Classify) {
                binding = self.binding(&text, req.cwd, &analysed);
                let now = ctx.unix_secs();
                let found = binding
                    .as_ref()
                    .zip(self.state_dir.as_ref())
                    .and_then(|(b, d)| approval::Book::new(d).find(b, now));
                match found {
                    Some(a) if a.state == approval::State::Approved => {
                        if a.accepts_rule && local.tier == policy::Tier::AskRule {
                            local = self.decide(
                                ctx,
                                &analysed,
                                &text,
                                &Local {
                                    approved_ask: true,
                                    ..local_in
                                },
                            );
                        }
                        used = Some(a);
                    }
                    // Refused: told so. Still pending: an ask rule asks
                    // again under the same code; a review is tried again
                    // (a classifier that failed may answer now).
                    Some(a)
                        if a.state == approval::State::Denied
                            || local.decision == Decision::Ask =>
                    {
                        refused_or_waiting = Some(a);
                    }
                    Some(_) | None => {}
                }
            }
            let classify = match req.origin {
                Origin::Shim { .. } | Origin::Hook => true,
                Origin::Check { classify } => classify,
            };
            let verdict = if let Some(a) = refused_or_waiting.take() {
                answered(local, &a)
            } else if (local.decision == Decision::Classify
                || (local.decision == Decision::Ask && local.rule == policy::SANDBOX_OFF))
                && let Some(a) = used.as_ref().filter(|a| a.review)
            {
                reviewed_by_user(local, a)
            } else if classify && local.decision == Decision::Classify {
                let approved = used.as_ref().is_some_and(|a| a.accepts_rule);
                let (v, note) = self.classify(ctx, &analysed, &text, req.cwd, local, approved);
                classifier_note = Some(note);
                v
            } else {
                local
            };
            rule_approved = used.as_ref().is_some_and(|a| a.accepts_rule);
            if verdict.decision != Decision::Allow {
                used = None;
            }
            analysis = Some(analysed);
            verdict
        };
        note_wrapper(&mut verdict, wrapped.as_ref());
        crate::timing::mark("verdict");
        let sandbox = match req.origin {
            Origin::Hook => None,
            Origin::Shim { .. } | Origin::Check { .. } => Some(self.sandbox_for(
                ctx,
                SandboxAsk {
                    cwd: req.cwd,
                    verdict: Some(&verdict),
                    analysis: analysis.as_ref(),
                    widening: widening.and_then(Result::ok),
                    harness_call: internal,
                    will_run,
                    base,
                    wall,
                },
            )),
        };
        Decided {
            verdict,
            judged: text,
            wrapped,
            analysis,
            decision_time: started.elapsed(),
            classifier: classifier_note,
            sandbox,
            approval: used,
            binding,
            rule_approved,
            pending: None,
        }
    }

    /// What an approval of `script` in `cwd` is bound to now.
    pub fn binding(
        &self,
        script: &str,
        cwd: &Path,
        analysis: &shell::Analysis,
    ) -> Option<approval::Binding> {
        let store = self.store.as_ref()?;
        let run = approval::files_run(analysis, cwd);
        approval::Binding::new(&store.session, script, cwd, &self.config, &run)
    }

    /// The sandbox's inputs for a command in `cwd`.
    fn sandbox_inputs(&self, ctx: &Context, cwd: &Path) -> sandbox::OwnedInputs {
        let var = |k: &str| ctx.var_str(k).map(str::to_string);
        let classifier_key = classifier::provider::choice(&self.config, &var)
            .spec()
            .is_some()
            .then(|| classifier::provider::resolve(&self.config, &var).ok())
            .flatten()
            .map(|p| p.key_env);
        // `deniedPaths` are secrets too: the sandbox keeps every command
        // out of them, for reading and writing, whatever names them.
        let mut settings = self.config.sandbox.clone();
        for d in &self.config.denied_paths {
            let value = if d.value == "~" || d.value.starts_with("~/") || d.value.starts_with('/') {
                d.value.clone()
            } else {
                cwd.join(&d.value).to_string_lossy().into_owned()
            };
            settings.read_deny.push(config::Sourced {
                value,
                source: d.source.clone(),
            });
        }
        sandbox_inputs(
            ctx,
            cwd,
            &settings,
            Places {
                cwd: cwd.to_path_buf(),
                ..self.places.clone()
            },
            classifier_key,
        )
    }

    /// The widening the script asks for, parsed (or why it is refused).
    fn widening(
        &self,
        ctx: &Context,
        a: &shell::Analysis,
    ) -> Option<Result<sandbox::widen::Widening, String>> {
        if a.limits.write.is_none() && a.limits.sandbox.is_none() {
            return None;
        }
        let deny = self
            .sandbox_inputs(ctx, &self.places.cwd)
            .with(sandbox::denied_reads);
        sandbox::widen::parse(
            a.limits.write.as_deref(),
            a.limits.sandbox.as_deref(),
            &self.places,
            &deny,
        )
    }

    /// How `automode exec PROGRAM` is confined: as an unknown program
    /// (it has no policy verdict).
    pub fn exec_sandbox(&self, ctx: &Context, cwd: &Path) -> SandboxDecision {
        let enforced = self
            .kernel
            .status(self.config.sandbox.mode.value)
            .enforced();
        let base = enforced.then(|| self.sandbox_base(ctx, cwd, true));
        let wall = base.as_ref().and_then(|(owned, p)| {
            (p.plan.network == sandbox::Network::Allowlist)
                .then(|| self.join_wall(ctx, owned, p.plan.user_namespaces))
        });
        self.sandbox_for(
            ctx,
            SandboxAsk {
                cwd,
                verdict: None,
                analysis: None,
                widening: None,
                harness_call: None,
                will_run: true,
                base,
                wall,
            },
        )
    }

    /// The sandbox's inputs and base plan for a command in `cwd`.
    fn sandbox_base(
        &self,
        ctx: &Context,
        cwd: &Path,
        will_run: bool,
    ) -> (sandbox::OwnedInputs, sandbox::Prepared) {
        let owned = self.sandbox_inputs(ctx, cwd);
        let prepared = self.sandbox_plan(&owned, will_run);
        (owned, prepared)
    }

    /// The base plan for these inputs.
    fn sandbox_plan(&self, owned: &sandbox::OwnedInputs, will_run: bool) -> sandbox::Prepared {
        let prepared = match (&owned.places.automode_state, will_run) {
            // Only a command that runs may write the cache (`check`
            // changes nothing).
            (Some(state), true) => sandbox::prepare_cached(owned, self.kernel.abi, state),
            _ => sandbox::prepare(owned, self.kernel.abi),
        };
        crate::timing::mark("sandbox-plan");
        prepared
    }

    /// How a command with this verdict is confined.
    fn sandbox_for(&self, ctx: &Context, ask: SandboxAsk<'_>) -> SandboxDecision {
        let SandboxAsk {
            cwd,
            verdict,
            analysis,
            widening,
            harness_call,
            will_run,
            base,
            wall,
        } = ask;
        let mode = self.config.sandbox.mode.value;
        let mode_source = self.config.sandbox.mode.source.to_string();
        let approved = verdict.is_some_and(|v| {
            v.decision == Decision::Allow
                && matches!(v.tier, policy::Tier::Classifier | policy::Tier::AllowRule)
        });
        let status = self.kernel.status(mode);
        // Only the user lifts the sandbox, by approving this very command
        // (never the classifier, an allow rule or auto mode being off);
        // an `AUTOMODE_SANDBOX=off` not granted so runs confined.
        let lifted = verdict
            .filter(|v| {
                widening == Some(sandbox::widen::Widening::SandboxOff)
                    && status.enforced()
                    && mode != sandbox::Mode::Require
                    && v.decision == Decision::Allow
                    && v.rule == policy::USER_APPROVAL
            })
            .map(|v| v.source.clone());
        if lifted.is_some() || !status.enforced() {
            return SandboxDecision {
                status,
                plan: None,
                ruleset: None,
                widening,
                mode,
                mode_source,
                lifted,
                wall: None,
            };
        }
        let (owned, prepared) = match base {
            Some(b) => b,
            None => self.sandbox_base(ctx, cwd, will_run),
        };
        let sandbox::Prepared { mut plan, ruleset } = prepared;
        let programs: Vec<&str> = analysis
            .map(|a| a.commands.iter().filter_map(|c| c.base_name()).collect())
            .unwrap_or_default();
        let cmd = sandbox::ForCommand {
            programs,
            known_only: verdict
                .is_some_and(|v| matches!(v.tier, policy::Tier::ReadOnly | policy::Tier::Routine)),
            harness_call,
            will_run,
            git_only: analysis.is_some_and(|a| git_only(a, &self.places)),
            ..sandbox::ForCommand::default()
        };
        let mut roots = owned.with(|inputs| sandbox::complete(&mut plan, inputs, &cmd));
        if approved {
            // Protected paths the user approved writing (named by the
            // command or by `AUTOMODE_WRITE`).
            let mut granted: Vec<PathBuf> = Vec::new();
            if let Some(sandbox::widen::Widening::Write(paths)) = &widening {
                for p in paths {
                    if plan
                        .protect
                        .iter()
                        .chain(&plan.protect_missing)
                        .chain(&plan.pin)
                        .any(|x| p.starts_with(x) || x.starts_with(p))
                    {
                        granted.push(p.clone());
                    }
                    // A file that does not exist yet: the directory it is
                    // created in.
                    let grant = match p.parent() {
                        Some(dir) if !p.exists() => dir.to_path_buf(),
                        _ => p.clone(),
                    };
                    plan.extra_write.push((
                        grant,
                        format!("AUTOMODE_WRITE={}, approved for this command", p.display()),
                    ));
                }
            }
            if let Some(a) = analysis {
                let (outside, protected) = sandbox::approved_targets(&plan, a, &self.places);
                granted.extend(protected);
                plan.extra_write.extend(outside);
                let xdg = ctx
                    .var_str("XDG_CONFIG_HOME")
                    .filter(|p| p.starts_with('/'));
                if let Some((dir, why)) =
                    sandbox::global_git_config(a, self.places.home.as_deref(), xdg.map(Path::new))
                {
                    // The home is kept out of every other grant, not
                    // out of this one: git makes its lock file in the
                    // directory itself, which a grant carved around
                    // automode's state would not allow. (That state is
                    // covered by its own mount; and git config is all
                    // that runs.)
                    plan.write_exclude.retain(|x| !x.starts_with(&dir));
                    plan.extra_write.push((dir, why));
                }
            }
            let unprotected =
                |p: &PathBuf| granted.iter().any(|u| p.starts_with(u) || u.starts_with(p));
            plan.protect.retain(|p| !unprotected(p));
            plan.protect_missing.retain(|p| !unprotected(p));
            // `.git` stays pinned unless the approval covers all of it.
            plan.pin
                .retain(|p| !granted.iter().any(|u| p.starts_with(u)));
        }
        // The hosts a reviewed command names reach it through the wall,
        // for that command only (never from an allow tier by itself).
        let reviewed = verdict
            .is_some_and(|v| v.decision == Decision::Allow && v.tier == policy::Tier::Classifier);
        if reviewed
            && plan.network == sandbox::Network::Allowlist
            && let Some(a) = analysis
        {
            plan.network_grants = sandbox::net::named_hosts(a);
        }
        let session_dir = match (&self.store, &self.state_dir) {
            (Some(store), Some(dir)) => {
                Some(dir.join("tmp").join(state::file_stem(&store.session)))
            }
            _ => None,
        };
        let mut view_reads: Vec<PathBuf> = Vec::new();
        // A tool's own credentials, for that tool; the package managers'
        // settings without their secrets.
        // (Shown in the home's view: given files, settings files' places.)
        let shown = self.tool_credentials(
            &mut plan,
            &owned,
            analysis,
            verdict,
            session_dir.as_deref(),
            will_run,
        );
        // The host's sockets and temporary files, out of reach where a
        // mount namespace can be made.
        if plan.user_namespaces
            && let Some(session_dir) = &session_dir
        {
            let tmpdir = ctx
                .var_str("TMPDIR")
                .map(Path::new)
                .filter(|p| p.is_absolute());
            let ssh = ctx
                .var_str("SSH_AUTH_SOCK")
                .filter(|_| !plan.withheld_env.iter().any(|w| w == "SSH_AUTH_SOCK"))
                .map(Path::new);
            let expand = |list: &[config::Sourced<String>]| -> Vec<PathBuf> {
                owned.with(|inputs| {
                    list.iter()
                        .filter_map(|s| inputs.expand.path(&s.value))
                        .collect()
                })
            };
            let allow = expand(&self.config.sandbox.sockets_allow);
            let mut home_read = expand(&self.config.sandbox.read);
            home_read.extend(shown.iter().cloned());
            let home_read = Some(home_read);
            let carved = plan.carved();
            sandbox::views::apply(
                &mut plan,
                self.places.home.as_deref(),
                &sandbox::views::Inputs {
                    session_dir,
                    uid: nix::unistd::getuid().as_raw(),
                    tmpdir,
                    ssh_auth_sock: ssh,
                    allow,
                    home_read,
                },
            );
            if !plan.replace.is_empty() || !plan.cover_sockets.is_empty() {
                plan.namespace = true;
            }
            // What the home's view binds back is read where it is: Landlock
            // does not look at the home the view hides, so a rule on an
            // ancestor the ruleset carved would not reach it (a kept path
            // with a carved secret inside keeps the carve's own rules).
            let home = self.places.home.as_deref().and_then(sandbox::existing);
            for r in plan.replace.iter().filter(|r| Some(&r.at) == home.as_ref()) {
                view_reads.extend(
                    r.keep
                        .iter()
                        .filter(|k| !carved.iter().any(|c| c.starts_with(k)))
                        .cloned(),
                );
            }
            let tmp = sandbox::views::session_tmp(session_dir);
            if plan.replace.iter().any(|r| r.with == tmp) {
                plan.session_tmp = Some(tmp);
            }
        }
        // The session's temporary directory is writable where it stands in
        // for `/tmp` (Landlock does not look at the mount point it hides).
        let made = if will_run && plan.namespace {
            sandbox::views::prepare(&plan.replace)
        } else {
            Ok(())
        };
        roots.extend(plan.session_tmp.iter().filter(|p| p.is_dir()).cloned());
        roots.extend(plan.extra_write.iter().map(|(p, _)| p.clone()));
        // Released credentials and the settings copies are read where
        // the base ruleset carved them out.
        // (Never a settings file's original: its copy is what is read.)
        let reads: Vec<PathBuf> = plan
            .credentials
            .iter()
            .map(|(p, _)| p.clone())
            .chain(plan.settings.iter().map(|s| s.copy.clone()))
            .chain(view_reads)
            .collect();
        let ruleset = ruleset.and_then(|mut b| {
            made?;
            b.add_write_roots(&roots, &plan)?;
            b.add_reads(&reads)?;
            Ok(b.finish())
        });
        SandboxDecision {
            status,
            plan: Some(plan),
            ruleset: Some(ruleset),
            widening,
            mode,
            mode_source,
            lifted: None,
            wall,
        }
    }

    /// Give this command the credential files its programs own when they
    /// run as themselves, those `sandbox.credentials` names for the
    /// tools it runs, and the package managers' settings with their
    /// secrets taken out (`sandbox::credentials`). Returns the paths it
    /// now reads (for the home's view and the ruleset).
    fn tool_credentials(
        &self,
        plan: &mut sandbox::Plan,
        owned: &sandbox::OwnedInputs,
        analysis: Option<&shell::Analysis>,
        verdict: Option<&Verdict>,
        session_dir: Option<&Path>,
        will_run: bool,
    ) -> Vec<PathBuf> {
        use sandbox::credentials;
        // A program on PATH outside every place a command may write.
        let path = owned.var("PATH").unwrap_or_default();
        let trusted = |name: &str| {
            std::env::split_paths(&path)
                .filter(|d| d.is_absolute())
                .map(|d| d.join(name))
                .find(|p| p.is_file())
                .and_then(|p| sandbox::existing(&p))
                .is_some_and(|p| !plan.in_write_root(&p))
        };
        let runs = analysis.and_then(|a| credential_runs(a, &self.places, &trusted));
        // Allowed by a tier that looked at the command itself.
        let allowed = verdict.is_some_and(|v| {
            v.decision == Decision::Allow
                && !matches!(
                    v.tier,
                    policy::Tier::Disabled | policy::Tier::Contained | policy::Tier::Harness
                )
        });
        let rows = credentials::owned_by(allowed, runs.as_deref());
        let names: Vec<String> = self
            .config
            .sandbox
            .credentials
            .iter()
            .map(|c| c.value.clone())
            .collect();
        // (Only looked for when the user named a tool.)
        let programs: Vec<&str> = analysis
            .filter(|_| !names.is_empty())
            .map(|a| {
                a.commands
                    .iter()
                    .filter_map(|c| c.name())
                    .filter(|n| !n.contains('/') && trusted(n))
                    .collect()
            })
            .unwrap_or_default();
        let configured = credentials::configured(&names, &programs);
        // Every template this needs, expanded at once: the owned rows',
        // the configured ones', the settings files'.
        let templates: Vec<&str> = rows
            .iter()
            .flat_map(|r| r.paths.iter().copied())
            .chain(configured.iter().map(|(_, t)| *t))
            .chain(credentials::SETTINGS.iter().map(|s| s.path))
            .collect();
        let expanded: Vec<(&str, PathBuf)> = owned.with(|inputs| {
            templates
                .iter()
                .filter_map(|t| Some((*t, inputs.expand.path(t)?)))
                .filter(|(_, p)| sandbox::existing(p).is_some())
                .collect()
        });
        let existing = |template: &str| {
            expanded
                .iter()
                .find(|(t, _)| *t == template)
                .map(|(_, p)| p.clone())
        };
        let mut given: Vec<(PathBuf, String)> = Vec::new();
        for row in rows {
            for t in row.paths {
                if let Some(p) = existing(t) {
                    given.push((
                        p,
                        format!("{} runs as itself: {}", row.programs[0], row.why),
                    ));
                }
            }
        }
        // Nothing else in the command may name them (`cat ~/.aws/… | aws`).
        if let Some(a) = analysis
            && a.effects.iter().any(|e| {
                [&e.path, &e.lexical]
                    .into_iter()
                    .flatten()
                    .any(|p| given.iter().any(|(g, _)| p.starts_with(g)))
            })
        {
            given.clear();
        }
        for (name, t) in configured {
            if let Some(p) = existing(t) {
                given.push((p, format!("sandbox.credentials names {name}")));
            }
        }
        let mut shown = Vec::new();
        for (p, why) in given {
            // The denied set holds where a file really is (a link's target).
            let real = sandbox::existing(&p).unwrap_or_else(|| p.clone());
            if plan.release(&real, &why) {
                if real != p {
                    shown.push(p);
                }
                shown.push(real);
            }
        }
        // The settings files not given whole: a filtered copy each.
        let Some(dir) = session_dir else {
            return shown;
        };
        for (i, row) in credentials::SETTINGS.iter().enumerate() {
            // Where the file really is (a dotfiles symlink's target): what
            // the home's view binds back, and what the cover covers.
            let Some(at) = existing(row.path).and_then(|p| sandbox::existing(&p)) else {
                continue;
            };
            // Never a file a command could have linked it to: one in a
            // writable place, or another secret (the copy is made by us,
            // outside the sandbox).
            if shown.iter().any(|s| at.starts_with(s))
                || plan.in_write_root(&at)
                || plan.read_deny.iter().any(|d| at.starts_with(d) && *d != at)
            {
                continue;
            }
            let copy = credentials::copy_path(dir, i);
            let ready = if will_run {
                credentials::write_copy(&at, &copy, row.format)
            } else {
                Ok(true)
            };
            match ready {
                Ok(true) => {}
                Ok(false) => continue,
                Err(why) => {
                    crate::report::say(&format!(
                        "note: {} is not shown to this command: {why}",
                        at.display()
                    ));
                    continue;
                }
            }
            // Not covered: the copy is bound there instead.
            // The home's view shows it at its place, and a link to it too.
            shown.extend(existing(row.path).filter(|p| *p != at));
            plan.hide.retain(|h| *h != at);
            shown.push(at.clone());
            plan.settings.push(sandbox::SettingsView {
                copy,
                at,
                variable: row.variable.map(str::to_string),
            });
        }
        shown
    }

    /// Join the session's network wall (starting its filter for the
    /// session's first command). `userns`: a user namespace can likely be
    /// made here.
    fn join_wall(
        &self,
        ctx: &Context,
        owned: &sandbox::OwnedInputs,
        userns: bool,
    ) -> Result<sandbox::net::Joined, String> {
        if !userns {
            return Err(
                "this system refuses unprivileged user namespaces (an AppArmor policy, a sysctl or a container's seccomp profile), and the wall needs one".into(),
            );
        }
        let (Some(store), Some(state_dir)) = (&self.store, &self.state_dir) else {
            return Err("automode has no state directory for the session's network".into());
        };
        let exe = ctx
            .exe
            .clone()
            .ok_or("automode cannot find its own executable")?;
        let settings = sandbox::net::Settings {
            allow: self
                .config
                .sandbox
                .network_allow
                .iter()
                .map(|e| (e.value.clone(), e.source.to_string()))
                .collect(),
            host_ports: self
                .config
                .sandbox
                .host_ports
                .iter()
                .map(|p| p.value)
                .collect(),
            projects: vec![owned.project.clone()],
            // Kept or set, and read, when the settings are written.
            since_ns: 0,
            remotes: Vec::new(),
            home: self.places.home.clone(),
            vars: sandbox::net::TOOL_VARS
                .iter()
                .filter_map(|k| Some((k.to_string(), ctx.var_str(k)?.to_string())))
                .collect(),
            state_dir: state_dir.clone(),
            session: store.session.clone(),
        };
        let ppid = nix::unistd::getppid().as_raw();
        let owner = (
            ppid,
            crate::nested::proc_stat(ppid).map_or(0, |s| s.start_ticks),
        );
        let session = sandbox::net::Session::new(state_dir, &store.session);
        sandbox::net::join(&session, &settings, &exe, owner)
    }

    /// Would the wall be up for a command run now (for `automode check`,
    /// which starts nothing)? Where user namespaces can be made, a command
    /// joins the session's filter or starts it.
    fn wall_predicted(&self, userns: bool) -> bool {
        userns && self.state_dir.is_some()
    }

    /// Decide with the local tiers.
    fn decide(
        &self,
        ctx: &Context,
        analysis: &shell::Analysis,
        script: &str,
        local: &Local<'_>,
    ) -> Verdict {
        let Local {
            terminal,
            widening,
            contained,
            approved_ask,
        } = *local;
        let git_config_count = ctx
            .var_str("GIT_CONFIG_COUNT")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let recovery = policy::recover::Recovery::new(self.session_start_ns);
        // The configured allow-list (the session's filter also adds the
        // user's tool mirrors; a host only they name goes to review).
        let entries: Vec<(String, String)> = self
            .config
            .sandbox
            .network_allow
            .iter()
            .map(|e| (e.value.clone(), String::new()))
            .collect();
        let network_allow =
            sandbox::net::allow::build(&entries, &sandbox::net::allow::ToolPlaces::default());
        policy::decide(&policy::Ctx {
            network_allow: Some(&network_allow),
            analysis,
            script,
            places: &self.places,
            config: &self.config,
            enabled: self.enabled.clone(),
            env_path: ctx.var_str("PATH").unwrap_or(""),
            xdg_config_home: ctx.var_str("XDG_CONFIG_HOME"),
            git_config_count,
            closed_terminal: terminal && !self.config.allow_terminal_input.value,
            widening,
            sandbox_required: self.config.sandbox.mode.value == sandbox::Mode::Require,
            contained,
            recovery: &recovery,
            approved_ask,
        })
    }

    /// Take the checkpoint before an allowed command that may change the
    /// project (not a read-only one, not a harness's own setup call):
    /// the shim before it runs the command, the hook before the harness
    /// does. When none can be taken, the command is judged again as if
    /// checkpoints were off (what only a checkpoint made safe then waits),
    /// and the agent is told.
    pub fn with_checkpoint(
        &mut self,
        ctx: &Context,
        decided: Decided,
        req: &Request<'_>,
    ) -> Decided {
        match self.checkpoint(ctx, &decided, req.script, req.cwd) {
            Ok(()) => decided,
            Err(why) => {
                self.places.checkpoint = None;
                let again = self.judge(ctx, req);
                report::no_checkpoint(&why, again.verdict.decision == Decision::Allow);
                again
            }
        }
    }

    fn checkpoint(
        &self,
        ctx: &Context,
        decided: &Decided,
        script: &str,
        cwd: &Path,
    ) -> Result<(), String> {
        let (Some(cov), Some(state_dir)) = (&self.places.checkpoint, &self.state_dir) else {
            return Ok(());
        };
        if decided.verdict.decision != Decision::Allow
            || matches!(
                decided.verdict.tier,
                policy::Tier::ReadOnly | policy::Tier::Harness
            )
        {
            return Ok(());
        }
        let label = checkpoint::Label {
            session: self
                .store
                .as_ref()
                .map(|s| s.session.clone())
                .unwrap_or_default(),
            command: script.chars().take(2000).collect(),
            cwd: cwd.display().to_string(),
            time: ctx.unix_secs(),
        };
        let watch = ctx.var_str("AUTOMODE_CHECKPOINT_WATCH") != Some("0");
        checkpoint::take(
            state_dir,
            &cov.root,
            &self.config.checkpoint.settings(),
            &label,
            watch,
        )
        .map(|_| ())
    }

    /// Use this session id (hook mode gets it in its input).
    pub fn set_session(&mut self, id: &str) {
        if let Some(dir) = &self.state_dir {
            let store = Store::new(dir.clone(), id.to_string());
            let st = store.read();
            if let Some(on) = st.enabled.filter(|_| self.config.switch_locked().is_none()) {
                self.enabled = (on, "automode on/off for this session".to_string());
            }
            self.session_start_ns = st.first_at_ns;
            self.store = Some(store);
        }
    }

    /// The session's user-intent log (hook mode's UserPromptSubmit).
    pub fn intent_log(&self) -> Option<PathBuf> {
        let store = self.store.as_ref()?;
        Some(
            store
                .dir
                .join("intent")
                .join(format!("{}.jsonl", state::file_stem(&store.session))),
        )
    }

    /// Ask the classifier about a `classify` verdict; turn its answer
    /// (or its failure) into the final verdict.
    fn classify(
        &self,
        ctx: &Context,
        analysis: &shell::Analysis,
        script: &str,
        cwd: &Path,
        local: Verdict,
        approved: bool,
    ) -> (Verdict, ClassifierNote) {
        use classifier::Outcome;
        let var = |k: &str| ctx.var_str(k).map(str::to_string);
        let chosen = classifier::provider::choice(&self.config, &var);
        let mut note = ClassifierNote {
            model: chosen.spec().unwrap_or("(none)").to_string(),
            model_source: chosen.source(),
            from_environment: matches!(
                chosen,
                classifier::provider::Choice::FromEnvironment { .. }
            ),
            failed: false,
            attempts: Vec::new(),
            estimated_tokens: Vec::new(),
        };
        let outcome = match classifier::provider::resolve(&self.config, &var) {
            Err(why) => Outcome::Failed(why),
            Ok(provider) => {
                let home = self.places.home.clone();
                let transcript_places = classifier::transcript::Places {
                    explicit: self
                        .transcript
                        .as_ref()
                        .and_then(|p| p.to_str())
                        .or(ctx.var_str("AUTOMODE_TRANSCRIPT")),
                    home: home.as_deref(),
                    cwd,
                    claude_config_dir: ctx.var_str("CLAUDE_CONFIG_DIR").map(Path::new),
                    codex_home: self.places.codex_home.as_deref(),
                    claude_session: ctx.var_str("CLAUDE_CODE_SESSION_ID"),
                    codex_thread: ctx.var_str("CODEX_THREAD_ID"),
                };
                let mut entries = classifier::transcript::find(&transcript_places)
                    .map(|p| classifier::transcript::load(&p))
                    .unwrap_or_default();
                // What the user typed, as the UserPromptSubmit hook recorded it.
                if let Some(log) = self.intent_log() {
                    for e in classifier::transcript::load(&log) {
                        if !entries.contains(&e) {
                            entries.push(e);
                        }
                    }
                }
                let transcript = classifier::transcript::render(
                    &entries,
                    classifier::transcript::USER_BUDGET,
                    classifier::transcript::TOOL_BUDGET,
                );
                let prompt = classifier::prompt::Prompt {
                    system: classifier::prompt::system(&self.config),
                    context: classifier::prompt::context(
                        &classifier::prompt::instructions(cwd),
                        &transcript,
                    ),
                    action: classifier::prompt::action(script, cwd, analysis, &local.reason),
                };
                let io_log = self
                    .config
                    .log_classifier_io
                    .value
                    .then(|| {
                        self.state_dir
                            .as_ref()
                            .map(|d| d.join("classifier-io.jsonl"))
                    })
                    .flatten();
                let review = classifier::review(&provider, &prompt, io_log.as_deref());
                note.attempts = review.attempts;
                note.estimated_tokens = review.estimated_tokens;
                review.outcome
            }
        };
        let source = note.model.clone();
        let mut v = match outcome {
            Outcome::Allowed { decision: None } => Verdict::new(
                Decision::Allow,
                policy::Tier::Classifier,
                "classifier:fast",
                source,
                format!(
                    "the classifier's fast stage allowed it (sent for review because {})",
                    local.reason
                ),
            ),
            Outcome::Allowed { decision: Some(d) } => Verdict::new(
                Decision::Allow,
                policy::Tier::Classifier,
                format!("classifier:{}", d.tier),
                source,
                format!("the classifier allowed it: {}", d.reason),
            ),
            Outcome::Blocked(d) => Verdict::new(
                Decision::Deny,
                policy::Tier::Classifier,
                format!("classifier:{}", d.tier),
                source,
                format!(
                    "the classifier blocked it: {} (it was sent for review because {})",
                    d.reason, local.reason
                ),
            ),
            Outcome::Failed(why) if chosen.unavailable() => {
                note.failed = true;
                no_classifier(&chosen, &why, &local.reason, approved)
            }
            Outcome::Failed(why) => {
                note.failed = true;
                let before = self
                    .store
                    .as_ref()
                    .map_or(0, |s| s.read().consecutive_classifier_failures);
                if before + 1 >= CLASSIFIER_FAILURES_BEFORE_ASK {
                    Verdict::new(
                        Decision::Ask,
                        policy::Tier::Classifier,
                        "classifier-failure",
                        source,
                        format!(
                            "the classifier failed {} times in a row, so the user must decide (last failure: {why})",
                            before + 1
                        ),
                    )
                } else {
                    Verdict::new(
                        Decision::Deny,
                        policy::Tier::Classifier,
                        "classifier-failure",
                        source,
                        format!("classifier failure, not a judgement: {why}"),
                    )
                }
            }
        };
        let mut trace = local.trace;
        if let Some(last) = trace.last_mut() {
            last.outcome = format!("{}: {}", v.decision, v.reason);
        }
        v.trace = trace;
        // Never after the classifier's own block: that was a judgement.
        if v.decision == Decision::Ask || v.rule == "classifier-failure" {
            v.suggest = local.suggest;
        }
        (v, note)
    }
}

/// The local tiers' inputs besides the script.
#[derive(Debug, Clone, Copy)]
struct Local<'a> {
    /// The command's stdin would be the shim's terminal.
    terminal: bool,
    widening: Option<&'a Result<sandbox::widen::Widening, String>>,
    contained: Option<&'a policy::Containment>,
    approved_ask: bool,
}

/// A review with no classifier to ask: the user is the reviewer (an ask
/// they can approve), unless they already approved the command's ask rule
/// and turned the classifier off on purpose: then that approval stands.
fn no_classifier(
    chosen: &classifier::provider::Choice,
    why: &str,
    sent_because: &str,
    approved: bool,
) -> Verdict {
    use classifier::provider::Choice;
    if approved && matches!(chosen, Choice::Off { .. }) {
        return Verdict::new(
            Decision::Allow,
            policy::Tier::Classifier,
            policy::USER_APPROVAL,
            "automode approve",
            format!("the user approved it, and {why}, so the approval stands alone"),
        );
    }
    let source = match chosen {
        Choice::Off { source } => format!("autoMode.classifierModel \"none\" in {source}"),
        _ => "built-in".to_string(),
    };
    Verdict::new(
        Decision::Ask,
        policy::Tier::Classifier,
        "no-classifier",
        source,
        if approved {
            format!(
                "the user approved its permissions.ask rule, and an approved ask still needs review, but {why}; the user can review it too"
            )
        } else if why.contains("autoMode.classifierModel is not set") {
            // The usual case, said short (the set-up advice comes once a
            // session, and from `automode doctor`).
            format!("it needs review ({sent_because}), and no classifier is configured")
        } else {
            format!("it needs review ({sent_because}), but {why}; the user can review it")
        },
    )
}

/// The user already answered this ask, or has not yet.
fn answered(local: Verdict, ask: &approval::Ask) -> Verdict {
    let mut v = match ask.state {
        approval::State::Denied => Verdict::new(
            Decision::Deny,
            local.tier,
            "user-refused",
            ask.decided_by
                .clone()
                .unwrap_or_else(|| "automode approve".into()),
            format!(
                "the user refused this command ({}; it needed approval because {})",
                ask.code,
                ask.why.trim_end_matches('.')
            ),
        ),
        approval::State::Pending | approval::State::Approved => Verdict::new(
            Decision::Ask,
            local.tier,
            ask.rule.clone(),
            local.source.clone(),
            ask.why.clone(),
        ),
    };
    v.trace = local.trace;
    v
}

/// A review the user made by approving the ask.
fn reviewed_by_user(local: Verdict, ask: &approval::Ask) -> Verdict {
    let mut v = Verdict::new(
        Decision::Allow,
        policy::Tier::Classifier,
        policy::USER_APPROVAL,
        ask.decided_by
            .clone()
            .unwrap_or_else(|| "automode approve".into()),
        format!(
            "the user approved it as its reviewer ({}; it needed review because {})",
            ask.code,
            local.reason.trim_end_matches('.')
        ),
    );
    v.trace = local.trace;
    v
}

/// The sandbox's inputs, owned (they go to another thread).
fn sandbox_inputs(
    ctx: &Context,
    cwd: &Path,
    settings: &config::SandboxConfig,
    places: Places,
    classifier_key: Option<String>,
) -> sandbox::OwnedInputs {
    let mut keep: Vec<PathBuf> = ctx
        .var("PATH")
        .map(|p| {
            p.as_bytes()
                .split(|b| *b == b':')
                .filter(|d| d.first() == Some(&b'/'))
                .map(|d| PathBuf::from(OsStr::from_bytes(d)))
                .collect()
        })
        .unwrap_or_default();
    // Tool homes the programs on PATH need to read.
    for name in sandbox::TOOL_HOMES {
        if let Some(v) = ctx.var_str(name).filter(|v| v.starts_with('/')) {
            keep.push(PathBuf::from(v));
        }
    }
    keep.push(cwd.to_path_buf());
    sandbox::OwnedInputs {
        config: settings.clone(),
        places,
        project: config::project_root(cwd).unwrap_or_else(|| cwd.to_path_buf()),
        // Every name is seen (a credential with a value that is not
        // UTF-8 is still withheld); a value that is not UTF-8 is no path.
        env: ctx
            .env
            .iter()
            .filter_map(|(k, v)| {
                let value = v.to_str().unwrap_or(shell::UNDECODABLE_VALUE);
                Some((k.to_str()?.to_string(), value.to_string()))
            })
            .collect(),
        keep,
        classifier_key,
    }
}

/// Where automode and the harnesses' files are, for a command in `cwd`
/// (`home`: the home, canonical).
fn places(ctx: &Context, cwd: &Path, home: Option<PathBuf>) -> Places {
    let xdg_config = ctx.var_str("XDG_CONFIG_HOME");
    let exe = ctx.exe_canonical();
    let share = exe
        .as_deref()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(|p| p.join("share/automode"))
        .filter(|p| p.exists());
    Places {
        automode_config: config::config_dir(ctx.home().as_deref(), xdg_config),
        automode_state: state::state_dir(home.as_deref(), ctx.var_str("XDG_STATE_HOME")),
        home,
        cwd: cwd.to_path_buf(),
        automode_share: share,
        automode_shims: shims_dir(ctx, exe.as_deref()),
        automode_exe: exe,
        codex_home: ctx
            .var_str("CODEX_HOME")
            .filter(|c| c.starts_with('/'))
            .map(PathBuf::from),
        checkpoint: None,
    }
}

/// The directory of the `bash` shim this process came through.
fn shims_dir(ctx: &Context, exe: Option<&Path>) -> Option<PathBuf> {
    let exe = exe?;
    let argv0 = Path::new(&ctx.argv0);
    if argv0.components().count() > 1 {
        return std::fs::canonicalize(argv0.parent()?).ok();
    }
    let path = ctx.var("PATH")?;
    path.as_bytes()
        .split(|b| *b == b':')
        .filter(|d| d.first() == Some(&b'/'))
        .map(|d| Path::new(OsStr::from_bytes(d)).to_path_buf())
        .find(|d| std::fs::canonicalize(d.join("bash")).is_ok_and(|p| p == exe))
}

/// Why a script bash runs cannot be analysed as it is: bytes that are not
/// UTF-8 in it, or in `$0` and the arguments after it.
pub fn undecodable(
    script: &[u8],
    dollar0: Option<&OsStr>,
    args: &[std::ffi::OsString],
) -> Option<String> {
    if let Err(e) = std::str::from_utf8(script) {
        let at = e.valid_up_to();
        return Some(format!(
            "the script is not valid UTF-8 (byte {:#04x} at offset {at}): bash would run bytes the analysis cannot read; write such bytes with printf escapes",
            script.get(at).copied().unwrap_or_default()
        ));
    }
    let first = usize::from(dollar0.is_none());
    let words = dollar0
        .into_iter()
        .chain(args.iter().map(|a| a.as_os_str()));
    for (n, a) in words.enumerate() {
        if a.to_str().is_none() {
            return Some(format!(
                "the script's argument ${} is not valid UTF-8: the analysis cannot place what bash would do with it",
                n + first
            ));
        }
    }
    None
}

/// The analysis request for a script.
fn analysis_request(ctx: &Context, req: &Request<'_>, text: &[u8]) -> shell::Request {
    let env = ctx
        .env
        .iter()
        .filter_map(|(k, v)| {
            let value = v.to_str().unwrap_or(shell::UNDECODABLE_VALUE);
            Some((k.to_str()?.to_string(), value.to_string()))
        })
        .collect();
    shell::Request {
        script: text.to_vec(),
        max_bytes: req.max_bytes,
        positional: req.positional.clone(),
        cwd: req.cwd.to_path_buf(),
        home: ctx.home().and_then(|h| h.to_str().map(str::to_string)),
        env,
        trust_env: req.trust_env && ctx.var("BASH_ENV").is_none_or(OsStr::is_empty),
        dialect: req.dialect,
        budget: shell::TIME_BUDGET,
    }
}

/// Where the harnesses keep their state, and the names of this shim.
fn harness_places(ctx: &Context, env: &Judge) -> harness::Places {
    let home = env.places.home.clone();
    let claude_dir = ctx
        .var_str("CLAUDE_CONFIG_DIR")
        .filter(|d| d.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".claude")));
    let codex_home = env
        .places
        .codex_home
        .clone()
        .or_else(|| home.as_ref().map(|h| h.join(".codex")));
    let mut shims = Vec::new();
    let argv0 = Path::new(&ctx.argv0);
    if argv0.is_absolute() {
        shims.push(argv0.to_path_buf());
    }
    if let Some(exe) = &env.places.automode_exe {
        shims.push(exe.clone());
    }
    if let Some(dir) = &env.places.automode_shims {
        shims.push(dir.join("bash"));
        shims.push(dir.join("sh"));
    }
    // pi's configured prefix, only when pi is the caller.
    let pi_prefix = ctx.var_str("PI_CODING_AGENT").and_then(|_| {
        let settings = home.as_ref()?.join(".pi/agent/settings.json");
        let text = std::fs::read_to_string(settings).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        v["shellCommandPrefix"].as_str().map(str::to_string)
    });
    harness::Places {
        home,
        claude_dir,
        codex_home,
        shims,
        pi_prefix,
        tmpdir: ctx
            .var_str("TMPDIR")
            .filter(|t| t.starts_with('/'))
            .map(PathBuf::from),
    }
}

/// The harness binary that is this process's parent, if any.
fn parent_harness(ctx: &Context) -> Option<&'static str> {
    let ppid = nix::unistd::getppid().as_raw();
    let exe = std::fs::read_link(format!("/proc/{ppid}/exe")).ok()?;
    harness::builders::harness_of(&exe, ctx.var_str("CLAUDE_CODE_EXECPATH"))
}

/// Put the harness wrapper the command came in first in the verdict's
/// trace.
fn note_wrapper(verdict: &mut Verdict, wrapped: Option<&harness::Wrapped>) {
    if let Some(w) = wrapped {
        verdict.trace.insert(
            0,
            policy::Step {
                tier: policy::Tier::Harness,
                outcome: format!(
                    "{} wrapper ({}): judging the agent's command inside it",
                    w.harness, w.template
                ),
            },
        );
    }
}

/// What to judge, from the script as submitted.
struct Prepared {
    text: String,
    wrapped: Option<harness::Wrapped>,
    /// A harness's own setup call (allowed by shape and parent).
    internal: Option<&'static str>,
}

/// What to judge: a harness's own setup call (allowed by shape and
/// parent; only looked for when `login` is given, i.e. the shim is about
/// to run it), the agent's command inside a recognised wrapper (aliases
/// from the snapshot resolved), or the script itself.
fn prepare(ctx: &Context, env: &Judge, original: &str, login: Option<bool>) -> Prepared {
    let hplaces = harness_places(ctx, env);
    let internal = login.and_then(|login| {
        harness::builders::internal_call(original, login, parent_harness(ctx), &hplaces)
    });
    if internal.is_some() {
        return Prepared {
            text: original.to_string(),
            wrapped: None,
            internal,
        };
    }
    let Some(w) = harness::recognize(original, &hplaces) else {
        return Prepared {
            text: original.to_string(),
            wrapped: None,
            internal: None,
        };
    };
    let text = match (&w.snapshot, w.harness) {
        (Some(snap), "claude-code") => match harness::snapshot::read(snap) {
            Some(s) => harness::aliases::resolve(&w.judged(), &s),
            // No snapshot: `source … || true` fails quietly, nothing is
            // defined.
            None if !snap.exists() => w.judged(),
            // Unreadable snapshot: the names it might define are unknown.
            None => format!("{}\n{}", harness::aliases::UNKNOWN_BODY, w.judged()),
        },
        _ => w.judged(),
    };
    Prepared {
        text,
        wrapped: Some(w),
        internal: None,
    }
}

/// Shell commands that run nothing and write nothing by themselves (a
/// redirection of theirs is an effect, checked apart).
const GIT_COMPANIONS: &[&str] = &[
    "cd", "echo", "printf", "true", "false", "pwd", "test", "[", ":",
];

/// The script runs git, and besides it only `GIT_COMPANIONS` and programs
/// the tables know only read, none of them writing a file: git may then
/// write its own configuration (checked after the command).
/// The script's commands as the credential rules see them: each
/// program, its subcommand, and whether it only reads or steers the
/// shell. `None` when one cannot be placed (opaque, or a program only
/// known at run time).
fn credential_runs<'a>(
    a: &'a shell::analysis::Analysis,
    places: &'a Places,
    trusted: &dyn Fn(&str) -> bool,
) -> Option<Vec<sandbox::credentials::Run<'a>>> {
    if a.opaque.is_some() {
        return None;
    }
    a.commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let name = c.base_name()?;
            let class = policy::tools::judge(&policy::call_of(a, i, name, places, None));
            let args: Vec<Option<&str>> = c.argv.iter().skip(1).map(|w| w.known()).collect();
            let subcommand = if name == "git" {
                policy::git::subcommand(&args)
            } else {
                args.iter().flatten().find(|w| !w.starts_with('-')).copied()
            };
            // An owner only by its bare name, found on PATH outside every
            // writable place (`./bin/git` is a script with git's name),
            // run directly, and without an option that points it at
            // other configuration or a repository elsewhere (`git -C sub`,
            // `kubectl --kubeconfig=./kc`, where code the agent wrote runs).
            let elsewhere = args.iter().any(|w| {
                w.is_none_or(|w| {
                    w.contains("config")
                        || matches!(w, "-C" | "-c" | "--git-dir" | "--work-tree" | "--exec-path")
                        || w.starts_with("--git-dir=")
                        || w.starts_with("--work-tree=")
                        || w.starts_with("--exec-path=")
                        || (name == "git" && w.starts_with("-C"))
                })
            });
            // (The PATH search last: only for a program the table names.)
            let owner = c.name() == Some(name)
                && c.via.is_empty()
                && !elsewhere
                && sandbox::credentials::is_owner(name)
                && trusted(name);
            Some(sandbox::credentials::Run {
                program: if owner { name } else { "" },
                subcommand,
                // Reads and prints, or a shell builtin that runs nothing
                // (not `xargs`, `eval`, `bash -c`: they run other code).
                harmless: matches!(class, policy::tools::Class::ReadOnly)
                    || (matches!(class, policy::tools::Class::Neutral)
                        && matches!(
                            name,
                            "cd" | "echo"
                                | "printf"
                                | "true"
                                | "false"
                                | "test"
                                | "["
                                | ":"
                                | "pwd"
                        )),
            })
        })
        .collect()
}

fn git_only(a: &shell::analysis::Analysis, places: &Places) -> bool {
    let is_git = |i: usize| a.commands.get(i).is_some_and(|c| c.name() == Some("git"));
    // A program the tables know only reads (`git log | head`): it writes
    // no file, so git's own configuration stays git's to write.
    let reads_only = |i: usize, name: &str| {
        policy::tools::judge(&policy::call_of(a, i, name, places, None))
            == policy::tools::Class::ReadOnly
    };
    a.opaque.is_none()
        && a.commands.iter().any(|c| c.name() == Some("git"))
        && a.commands.iter().enumerate().all(|(i, c)| {
            c.via.is_empty()
                && c.name().is_some_and(|n| {
                    n == "git"
                        || GIT_COMPANIONS.contains(&n)
                        || (!n.contains('/') && reads_only(i, n))
                })
        })
        && a.effects
            .iter()
            .all(|e| e.kind == shell::analysis::EffectKind::Read || e.command.is_some_and(is_git))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use sandbox::{Mode, Status};

    fn decision(status: Status, mode: Mode, plan: bool, lifted: bool) -> SandboxDecision {
        SandboxDecision {
            status,
            plan: plan.then(sandbox::Plan::default),
            ruleset: None,
            widening: None,
            mode,
            mode_source: "test".into(),
            lifted: lifted.then(|| "automode approve".to_string()),
            wall: None,
        }
    }

    fn fd() -> std::os::fd::OwnedFd {
        std::fs::File::open("/dev/null").unwrap().into()
    }

    #[test]
    fn only_a_trusted_program_by_its_bare_name_owns_credentials() {
        let places = Places {
            cwd: PathBuf::from("/tmp"),
            ..Places::default()
        };
        let owners = |script: &str, trusted: bool| -> Vec<String> {
            let a = shell::analyze_unguarded(script);
            let runs = credential_runs(&a, &places, &|_| trusted).unwrap_or_default();
            sandbox::credentials::owned_by(true, Some(&runs))
                .iter()
                .map(|r| r.programs[0].to_string())
                .collect()
        };
        assert_eq!(owners("gh pr view 1 | head -n 3", true), ["gh"]);
        assert_eq!(owners("git fetch origin", true), ["git"]);
        // A script with the tool's name, or one found in a writable place.
        assert!(owners("./bin/git fetch", true).is_empty());
        assert!(owners("gh pr view 1", false).is_empty());
        // Pointed elsewhere, or beside code that runs.
        assert!(owners("git -C sub fetch", true).is_empty());
        assert!(owners("kubectl --kubeconfig=./kc get pods", true).is_empty());
        assert!(owners("gh pr list; python3 -c 'print(1)'", true).is_empty());
        assert!(owners("gh pr list | xargs echo", true).is_empty());
    }

    #[test]
    fn a_command_runs_confined_or_unconfined_only_for_the_users_reasons() {
        let enforced = || Status::Enforced { abi: 7 };
        let no = |why: &str| Status::Unavailable { why: why.into() };
        // Enforced: only with a plan and its ruleset.
        let d = decision(enforced(), Mode::Auto, true, false);
        assert!(matches!(
            d.run(Some(Ok(fd())), None),
            Ok(Run::Confined { .. })
        ));
        assert!(matches!(d.run(None, None), Err(Refused::Failed(_))));
        assert!(matches!(
            d.run(Some(Err("no".into())), None),
            Err(Refused::Failed(_))
        ));
        let d = decision(enforced(), Mode::Require, false, false);
        assert!(matches!(
            d.run(Some(Ok(fd())), None),
            Err(Refused::Failed(_))
        ));
        // The user's reasons.
        let d = decision(Status::Off, Mode::Off, false, false);
        assert!(matches!(
            d.run(None, None),
            Ok(Run::Unconfined(Unconfined::ModeOff { .. }))
        ));
        let d = decision(no("old kernel"), Mode::Auto, false, false);
        assert!(matches!(
            d.run(None, None),
            Ok(Run::Unconfined(Unconfined::KernelCannot { .. }))
        ));
        let d = decision(enforced(), Mode::Auto, false, true);
        assert!(matches!(
            d.run(None, None),
            Ok(Run::Unconfined(Unconfined::Lifted { .. }))
        ));
        // Anything else refuses.
        let d = decision(no("old kernel"), Mode::Require, false, false);
        assert!(matches!(d.run(None, None), Err(Refused::Required(_))));
        let d = decision(enforced(), Mode::Require, false, true);
        assert!(matches!(d.run(None, None), Err(Refused::Failed(_))));
        let d = decision(Status::Off, Mode::Auto, false, false);
        assert!(matches!(d.run(None, None), Err(Refused::Failed(_))));
        let d = decision(enforced(), Mode::Auto, true, true);
        assert!(matches!(
            d.run(Some(Ok(fd())), None),
            Err(Refused::Failed(_))
        ));
    }
}
