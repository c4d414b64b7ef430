//! The pipeline, and the only module that sequences the others: dispatch
//! on argv[0], parse the invocation, get the script, resolve limits, find
//! the real shell, supervise, and turn the outcome into an `Exit`.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::cli::{self, Command};
use crate::config::{self, Config, ConfigError};
use crate::context::Context;
use crate::exec::{self, ChildStatus, ExecError, ExecPlan, Outcome, Termination};
use crate::exit::Exit;
use crate::invocation::{self, Invocation, Parsed, ShellKind, Source};
use crate::limits::{self, LimitSource, Limits, Request, Requests};
use crate::policy::places::Places;
use crate::policy::{self, Decision, Verdict};
use crate::state::{self, Store};
use crate::{admin, classifier, harness, nested, realshell, report, script, session, shell};

/// Consecutive classifier failures after which the verdict becomes `ask`
/// (the first two block).
const CLASSIFIER_FAILURES_BEFORE_ASK: u64 = 3;

/// Programs `automode exec` refuses: shells and wrappers that would run
/// another command out of sight (the caller should pass that command).
const EXEC_WRAPPERS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "env", "sudo",
    "su", "doas", "nice", "ionice", "nohup", "time", "timeout", "stdbuf", "setsid", "xargs",
    "chroot", "unshare", "nsenter", "flock", "watch", "parallel", "script",
];

/// Run automode for this process context.
pub fn run(ctx: Context) -> Exit {
    match invocation::shell_kind_of(&ctx.argv0) {
        Some(kind) => shim(&ctx, kind),
        None => automode_cli(&ctx),
    }
}

/// Shim mode: `bash …` / `sh …`.
fn shim(ctx: &Context, kind: ShellKind) -> Exit {
    if nested::is_nested(ctx.var(nested::MARKER_VAR)) {
        return pass_through(ctx, kind);
    }
    let shell_name = ctx.argv0.to_string_lossy().into_owned();
    let inv = match invocation::parse(&ctx.argv0, ctx.args.iter().cloned()) {
        Ok(Parsed::Run(inv)) => *inv,
        Ok(Parsed::Informational) => return pass_through(ctx, kind),
        Ok(Parsed::ListOptions) => {
            report::list_options_unsupported();
            return Exit::Usage;
        }
        Err(err) => {
            report::usage_error(&err, &shell_name);
            return Exit::Child(err.exit_code());
        }
    };
    if inv.source == Source::Stdin && ctx.stdin_is_tty {
        // A human at a terminal, if the user's configuration says so.
        let allowed = ctx.cwd().is_some_and(|cwd| {
            PolicyEnv::load(ctx, cwd, true).is_ok_and(|e| e.config.allow_terminal_input.value)
        });
        if allowed {
            return pass_through(ctx, kind);
        }
        report::interactive_refused();
        return Exit::Usage;
    }

    let Some(cwd) = ctx.cwd().map(Path::to_path_buf) else {
        report::exec_error(&ExecError::WorkspaceChanged(
            ctx.workspace.clone().err().unwrap_or_default(),
        ));
        return Exit::Blocked;
    };
    let env = match PolicyEnv::load(ctx, &cwd, true) {
        Ok(env) => env,
        Err(e) => {
            report::config_error(&e);
            return Exit::Blocked;
        }
    };
    let mut requests = environment_requests(ctx);
    config_requests(&env.config, &mut requests);
    let early = match requests.resolve() {
        Ok(l) => l,
        Err(e) => {
            report::limit_error(&e);
            return Exit::Usage;
        }
    };
    let script_text = match read_script(ctx, &inv, early) {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let lead = script::leading_limits(&script_text);
    if let Some(v) = lead.timeout {
        requests.timeout.push(Request {
            value: v,
            source: LimitSource::Script,
        });
    }
    if let Some(v) = lead.output_limit {
        requests.output_limit.push(Request {
            value: v,
            source: LimitSource::Script,
        });
    }
    let limits = match requests.resolve() {
        Ok(l) => l,
        Err(e) => {
            report::limit_error(&e);
            return Exit::Usage;
        }
    };

    let decided_at = std::time::Instant::now();
    let mut classifier_note = None;
    let positional = shell::Positional {
        dollar0: inv
            .dollar0
            .as_ref()
            .unwrap_or(&inv.argv0)
            .to_string_lossy()
            .into_owned(),
        args: inv
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
    };
    let max_bytes = match inv.source {
        Source::Command(_) => shell::MAX_COMMAND_BYTES,
        Source::File(_) | Source::Stdin => shell::MAX_FILE_BYTES,
    };
    let dialect = match kind {
        ShellKind::Bash => shell::Dialect::Bash,
        ShellKind::Sh => shell::Dialect::Posix,
    };
    let trust_env = !inv.options.login;
    let original = String::from_utf8_lossy(&script_text).into_owned();
    // A harness wrapper: judge the agent's command inside it (the wrapper
    // itself runs unchanged).
    let (text, wrapped, internal) = prepare(ctx, &env, &original, inv.options.login);
    let request = analysis_request(
        ctx,
        text.as_bytes(),
        max_bytes,
        cwd.clone(),
        positional,
        trust_env,
        dialect,
    );
    let mut verdict = if inv.options.noexec() {
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
        let analysis = shell::analyze(request);
        let local = env.decide(ctx, &analysis, &text, ctx.stdin_is_tty);
        let verdict = if local.decision == Decision::Classify {
            let (v, note) = env.classify(ctx, &analysis, &text, &cwd, local);
            classifier_note = Some(note);
            v
        } else {
            local
        };
        // One analysis per process, which exits after the command: freeing
        // a large script's records would cost up to a sixth of its
        // analysis time, before the command starts.
        std::mem::forget(analysis);
        verdict
    };
    note_wrapper(&mut verdict, wrapped.as_ref());
    let decision_time = decided_at.elapsed();
    let decided = Decided {
        verdict,
        decision_time,
        classifier: classifier_note,
    };
    // The classifier can take seconds: the directory must still be the one
    // the command was submitted in.
    if let (Some(_), Ok(ws)) = (&decided.classifier, &ctx.workspace)
        && let Err(why) = ws.verify()
    {
        report::exec_error(&ExecError::WorkspaceChanged(why));
        env.record(ctx, &text, &cwd, &decided, None);
        return Exit::Blocked;
    }
    let verdict = &decided.verdict;
    if verdict.decision != Decision::Allow {
        report::blocked(verdict);
        env.record(ctx, &text, &cwd, &decided, None);
        return Exit::Blocked;
    }

    let shell = match realshell::locate(ctx) {
        Ok(s) => s,
        Err(e) => {
            report::real_shell_error(&e);
            return if e.is_missing() {
                Exit::NotFound
            } else {
                Exit::CannotInvoke
            };
        }
    };
    let mut argv = vec![ctx.argv0.clone()];
    argv.extend(inv.real_shell_args(OsStr::from_bytes(&script_text)));
    let terminal = ctx.stdin_is_tty && env.config.allow_terminal_input.value;
    let mut counted = false;
    let (exit, outcome) = supervise(
        ctx,
        shell.path,
        argv,
        limits,
        &verdict.exec_env,
        terminal,
        &mut || counted = env.record_state(ctx, &text, &decided, false),
    );
    if !counted {
        env.record_state(ctx, &text, &decided, true);
    }
    env.record_audit(ctx, &text, &cwd, &decided, Some((exit, outcome.as_ref())));
    exit
}

/// A verdict with how it was reached.
struct Decided {
    verdict: Verdict,
    decision_time: std::time::Duration,
    classifier: Option<ClassifierNote>,
}

/// What the classifier did, for state and audit.
struct ClassifierNote {
    /// `provider/model`, or why there is none.
    model: String,
    failed: bool,
    attempts: Vec<classifier::Attempt>,
    estimated_tokens: Vec<u64>,
}

impl ClassifierNote {
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "model": self.model,
            "failed": self.failed,
            "stages": self.attempts,
            "estimated_prompt_tokens": self.estimated_tokens,
        })
    }
}

/// Configuration limits join the requests (below environment and script).
fn config_requests(cfg: &Config, requests: &mut Requests) {
    if let Some(t) = &cfg.timeout_seconds {
        requests.timeout.push(Request {
            value: t.value.to_string(),
            source: LimitSource::Config,
        });
    }
    if let Some(b) = &cfg.output_limit_bytes {
        requests.output_limit.push(Request {
            value: b.value.to_string(),
            source: LimitSource::Config,
        });
    }
}

/// What the policy needs besides the analysis, and where verdicts are
/// recorded.
struct PolicyEnv {
    config: Config,
    places: Places,
    store: Option<Store>,
    state_dir: Option<PathBuf>,
    enabled: (bool, String),
    /// The session file named by the caller (hook mode's `transcript_path`).
    transcript: Option<PathBuf>,
}

impl PolicyEnv {
    /// Load configuration and state for a decision in `cwd`. `session`:
    /// whether this session's on/off switch applies (the shim), or only
    /// the global one (`automode check`).
    fn load(ctx: &Context, cwd: &Path, with_session: bool) -> Result<PolicyEnv, ConfigError> {
        let home = ctx.home().map(|h| policy::places::canon(&h));
        let xdg_config = ctx.var_str("XDG_CONFIG_HOME");
        let config = config::load(&config::LoadInput {
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
        let session_switch = match (&store, with_session) {
            (Some(s), true) => s.read().enabled,
            _ => None,
        };
        let global = state_dir.as_deref().and_then(|d| state::global(d).enabled);
        let enabled = match (session_switch, global) {
            (Some(on), _) => (on, "automode on/off for this session".to_string()),
            (None, Some(on)) => (on, "automode on/off".to_string()),
            (None, None) => (config.enabled.value, config.enabled.source.to_string()),
        };
        let exe = ctx
            .exe
            .as_deref()
            .and_then(|e| std::fs::canonicalize(e).ok());
        let share = exe
            .as_deref()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .map(|p| p.join("share/automode"))
            .filter(|p| p.exists());
        let places = Places {
            home,
            cwd: cwd.to_path_buf(),
            automode_config: config::config_dir(ctx.home().as_deref(), xdg_config),
            automode_state: state_dir.clone(),
            automode_share: share,
            automode_shims: shims_dir(ctx, exe.as_deref()),
            automode_exe: exe,
            codex_home: ctx
                .var_str("CODEX_HOME")
                .filter(|c| c.starts_with('/'))
                .map(PathBuf::from),
        };
        Ok(PolicyEnv {
            config,
            places,
            store,
            state_dir,
            enabled,
            transcript: None,
        })
    }

    /// Decide; `terminal`: the command's stdin would be this terminal.
    fn decide(
        &self,
        ctx: &Context,
        analysis: &shell::Analysis,
        script: &str,
        terminal: bool,
    ) -> Verdict {
        let git_config_count = ctx
            .var_str("GIT_CONFIG_COUNT")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        policy::decide(&policy::Ctx {
            analysis,
            script,
            places: &self.places,
            config: &self.config,
            enabled: self.enabled.clone(),
            env_path: ctx.var_str("PATH").unwrap_or(""),
            xdg_config_home: ctx.var_str("XDG_CONFIG_HOME"),
            git_config_count,
            closed_terminal: terminal && !self.config.allow_terminal_input.value,
        })
    }

    /// Use this session id (hook mode gets it in its input).
    fn set_session(&mut self, id: &str) {
        if let Some(dir) = &self.state_dir {
            let store = Store::new(dir.clone(), id.to_string());
            if let Some(on) = store.read().enabled {
                self.enabled = (on, "automode on/off for this session".to_string());
            }
            self.store = Some(store);
        }
    }

    /// The session's user-intent log (hook mode's UserPromptSubmit).
    fn intent_log(&self) -> Option<PathBuf> {
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
    ) -> (Verdict, ClassifierNote) {
        use classifier::Outcome;
        let var = |k: &str| ctx.var_str(k).map(str::to_string);
        let mut note = ClassifierNote {
            model: self
                .config
                .classifier_model
                .as_ref()
                .map_or_else(|| "(none)".to_string(), |m| m.value.clone()),
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
        (v, note)
    }

    /// Session counters and the audit line. Failing to record never
    /// changes the outcome (the command already ran or was refused); it
    /// is reported.
    fn record(
        &self,
        ctx: &Context,
        script: &str,
        cwd: &Path,
        decided: &Decided,
        ran: Option<(Exit, Option<&Outcome>)>,
    ) {
        self.record_state(ctx, script, decided, true);
        self.record_audit(ctx, script, cwd, decided, ran);
    }

    /// Count the verdict in the session state (it does not depend on how
    /// the command ends, so an allowed command's count is written while
    /// the command runs). Without `wait`, a lock held by another process
    /// means nothing is written and `false` comes back: the supervisor
    /// must never wait on a lock while its child runs unsupervised.
    fn record_state(&self, ctx: &Context, script: &str, decided: &Decided, wait: bool) -> bool {
        let verdict = &decided.verdict;
        let now = unix_seconds(ctx);
        let Some(store) = &self.store else {
            return true;
        };
        let change = |s: &mut state::SessionState| {
            if let Some(note) = &decided.classifier {
                state::count_classifier(s, note.failed);
            }
            state::count(
                s,
                now,
                state::Counted {
                    decision: verdict.decision.as_str(),
                    tier: verdict.tier.as_str(),
                    rule: &verdict.rule,
                    reason: &verdict.reason,
                    script,
                },
            );
        };
        let written = if wait {
            store.update(change).map(|_| true)
        } else {
            store.try_update(change).map(|s| s.is_some())
        };
        written.unwrap_or_else(|e| {
            report::state_error(&e);
            true
        })
    }

    /// One audit line joining the verdict and the outcome.
    fn record_audit(
        &self,
        ctx: &Context,
        script: &str,
        cwd: &Path,
        decided: &Decided,
        ran: Option<(Exit, Option<&Outcome>)>,
    ) {
        let verdict = &decided.verdict;
        let decision_time = decided.decision_time;
        let now = unix_seconds(ctx);
        let Some(dir) = &self.state_dir else { return };
        let outcome = ran.map(|(exit, o)| {
            serde_json::json!({
                "exit": exit.code(),
                "signal": o.and_then(|o| match o.status { Some(ChildStatus::Signaled(s)) => Some(s), _ => None }),
                "duration_ms": o.map(|o| o.duration.as_millis() as u64),
                "stdout_bytes": o.map(|o| o.stdout_bytes),
                "stderr_bytes": o.map(|o| o.stderr_bytes),
                "truncated": o.is_some_and(|o| o.termination == Some(Termination::OutputLimit)),
                "timed_out": o.is_some_and(|o| o.termination == Some(Termination::TimedOut)),
            })
        });
        let line = serde_json::json!({
            "at": now,
            "session": self.store.as_ref().map(|s| s.session.clone()),
            "cwd": cwd.to_string_lossy(),
            "script": state::audit::clip(script),
            "decision": verdict.decision,
            "tier": verdict.tier,
            "rule": verdict.rule,
            "source": verdict.source,
            "reason": verdict.reason,
            "decision_us": decision_time.as_micros() as u64,
                        "classifier": decided.classifier.as_ref().map(ClassifierNote::to_json),
            "ran": ran.is_some(),
            "outcome": outcome,
        });
        if let Err(e) = state::audit::append(dir, &line) {
            report::state_error(&e);
        }
    }
}

/// The invocation's start, in seconds since the epoch.
fn unix_seconds(ctx: &Context) -> u64 {
    ctx.now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
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

/// The script text: the `-c` word, or the file or stdin read (bounded).
fn read_script(ctx: &Context, inv: &Invocation, limits: Limits) -> Result<Vec<u8>, Exit> {
    let shell_name = ctx.argv0.to_string_lossy();
    let read = match &inv.source {
        Source::Command(text) => return Ok(text.as_bytes().to_vec()),
        Source::File(name) => script::read_file(name, ctx.var("PATH")),
        Source::Stdin => script::read_stdin(limits.timeout),
    };
    read.map_err(|err| {
        report::script_error(&err, &shell_name);
        match err {
            script::ScriptError::NotFound(_) => Exit::NotFound,
            script::ScriptError::IsDirectory(_)
            | script::ScriptError::PermissionDenied(_)
            | script::ScriptError::Binary(_)
            | script::ScriptError::Unreadable(..) => Exit::CannotInvoke,
            script::ScriptError::TooLarge(_) => Exit::Blocked,
            script::ScriptError::StdinTimedOut(_) => Exit::TimedOut,
        }
    })
}

/// `AUTOMODE_TIMEOUT` / `AUTOMODE_OUTPUT_LIMIT` from the harness.
fn environment_requests(ctx: &Context) -> Requests {
    let mut requests = Requests::default();
    if let Some(v) = ctx.var(limits::TIMEOUT_VAR) {
        requests.timeout.push(Request {
            value: v.to_string_lossy().into_owned(),
            source: LimitSource::Environment,
        });
    }
    if let Some(v) = ctx.var(limits::OUTPUT_LIMIT_VAR) {
        requests.output_limit.push(Request {
            value: v.to_string_lossy().into_owned(),
            source: LimitSource::Environment,
        });
    }
    requests
}

/// Nested calls and `--version`/`--help`: become the real shell at once.
fn pass_through(ctx: &Context, kind: ShellKind) -> Exit {
    let shell = match realshell::locate(ctx) {
        Ok(s) => s,
        Err(e) => {
            report::real_shell_error(&e);
            return if e.is_missing() {
                Exit::NotFound
            } else {
                Exit::CannotInvoke
            };
        }
    };
    let mut argv = vec![ctx.argv0.clone()];
    if kind == ShellKind::Sh {
        argv.push(OsString::from("--posix"));
    }
    argv.extend(ctx.args.iter().cloned());
    let err = exec::exec_replace(&shell.path, &argv);
    report::nested_exec_failed(&shell.path, &err);
    if err.kind() == std::io::ErrorKind::NotFound {
        Exit::NotFound
    } else {
        Exit::CannotInvoke
    }
}

/// Run under supervision and report how it ended.
fn supervise(
    ctx: &Context,
    program: PathBuf,
    argv: Vec<OsString>,
    limits: Limits,
    extra_env: &[(String, String)],
    terminal_stdin: bool,
    on_start: &mut dyn FnMut(),
) -> (Exit, Option<Outcome>) {
    let workspace = match &ctx.workspace {
        Ok(ws) => ws.clone(),
        Err(why) => {
            report::exec_error(&ExecError::WorkspaceChanged(why.clone()));
            return (Exit::Blocked, None);
        }
    };
    let mut env = ctx.env.clone();
    for (k, v) in extra_env {
        env.retain(|(name, _)| name != k.as_str());
        env.push((OsString::from(k), OsString::from(v)));
    }
    let plan = ExecPlan {
        program,
        argv,
        env,
        mark_nested: true,
        timeout: limits.timeout,
        output_limit: limits.output_limit,
        grace: exec::GRACE,
        settle: exec::SETTLE,
        workspace: Some(workspace),
        terminal_stdin,
    };
    match exec::run(&plan, on_start) {
        Ok(outcome) => {
            report::outcome(&outcome, limits.timeout, limits.output_limit);
            (exit_of(&outcome), Some(outcome))
        }
        Err(err) => {
            report::exec_error(&err);
            let exit = match err {
                ExecError::NotFound(_) => Exit::NotFound,
                ExecError::CannotExecute(..) => Exit::CannotInvoke,
                ExecError::WorkspaceChanged(_) => Exit::Blocked,
                ExecError::Os(_) => Exit::Internal,
            };
            (exit, None)
        }
    }
}

/// The exit status for a supervised run: our reason for ending it wins,
/// else the child's own status passes through.
pub fn exit_of(outcome: &Outcome) -> Exit {
    match outcome.termination {
        Some(Termination::TimedOut) => Exit::TimedOut,
        Some(Termination::OutputLimit) => Exit::OutputLimit,
        Some(Termination::Cancelled(sig)) => Exit::Signaled(sig),
        None => match outcome.status {
            Some(ChildStatus::Exited(code)) => Exit::Child(code),
            Some(ChildStatus::Signaled(sig)) => Exit::Signaled(sig),
            None => Exit::Internal,
        },
    }
}

/// `automode …`.
fn automode_cli(ctx: &Context) -> Exit {
    let command = match cli::parse(ctx.args.clone()) {
        Ok(c) => c,
        Err(e) => {
            report::say(&e.to_string());
            return Exit::Usage;
        }
    };
    match command {
        Command::Help => {
            print!("{}", cli::HELP);
            Exit::Child(0)
        }
        Command::Version => {
            println!("automode {}", env!("CARGO_PKG_VERSION"));
            Exit::Child(0)
        }
        Command::Exec {
            timeout,
            output_limit,
            argv,
        } => exec_command(ctx, timeout, output_limit, argv),
        Command::Check {
            json,
            classify,
            cwd,
            script,
            dollar0,
            args,
        } => check_command(ctx, json, classify, cwd, &script, dollar0, &args),
        Command::Hook { harness } => hook_command(ctx, &harness),
        other => {
            if other.changes_state()
                && let Some(pid) = session::shim_ancestor(ctx.exe.as_deref())
            {
                report::user_only_refused(pid);
                return Exit::Blocked;
            }
            admin::run(ctx, other)
        }
    }
}

/// The analysis request for a script run by the shim (or checked).
fn analysis_request(
    ctx: &Context,
    script: &[u8],
    max_bytes: usize,
    cwd: PathBuf,
    positional: shell::Positional,
    trust_env: bool,
    dialect: shell::Dialect,
) -> shell::Request {
    let env = ctx
        .env
        .iter()
        .filter_map(|(k, v)| Some((k.to_str()?.to_string(), v.to_str()?.to_string())))
        .collect();
    shell::Request {
        script: script.to_vec(),
        max_bytes,
        positional,
        cwd,
        home: ctx.home().map(|h| h.to_string_lossy().into_owned()),
        env,
        trust_env: trust_env && ctx.var("BASH_ENV").is_none_or(OsStr::is_empty),
        dialect,
        budget: shell::TIME_BUDGET,
    }
}

/// `automode check`: analyse and decide, print, never run.
fn check_command(
    ctx: &Context,
    json: bool,
    classify: bool,
    cwd: Option<OsString>,
    script: &OsStr,
    dollar0: Option<OsString>,
    args: &[OsString],
) -> Exit {
    let cwd = match cwd {
        Some(dir) => {
            let p = PathBuf::from(dir);
            let abs = match ctx.cwd() {
                Some(base) if p.is_relative() => base.join(p),
                _ => p,
            };
            shell::paths::resolve(Path::new("/"), &abs.to_string_lossy()).0
        }
        None => match ctx.cwd() {
            Some(c) => c.to_path_buf(),
            None => {
                report::internal("cannot determine the working directory; pass --cwd");
                return Exit::Internal;
            }
        },
    };
    let positional = shell::Positional {
        dollar0: dollar0.map_or_else(|| "bash".to_string(), |d| d.to_string_lossy().into_owned()),
        args: args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
    };
    let env = match PolicyEnv::load(ctx, &cwd, false) {
        Ok(env) => env,
        Err(e) => {
            report::config_error(&e);
            return Exit::Blocked;
        }
    };
    let original = script.to_string_lossy().into_owned();
    let (text, wrapped, _) = prepare(ctx, &env, &original, false);
    let request = analysis_request(
        ctx,
        text.as_bytes(),
        shell::MAX_COMMAND_BYTES,
        cwd.clone(),
        positional,
        true,
        shell::Dialect::Bash,
    );
    let analysis = shell::analyze(request);
    let mut verdict = env.decide(ctx, &analysis, &text, false);
    note_wrapper(&mut verdict, wrapped.as_ref());
    let mut note = None;
    if classify && verdict.decision == Decision::Classify {
        let (v, n) = env.classify(ctx, &analysis, &text, &cwd, verdict);
        verdict = v;
        note = Some(n);
    }
    if json {
        let mut value: serde_json::Value =
            serde_json::from_str(&report::check_json(&verdict, &analysis, &cwd))
                .unwrap_or_default();
        if let (Some(obj), Some(n)) = (value.as_object_mut(), &note) {
            obj.insert("classifier".into(), n.to_json());
        }
        if let (Some(obj), Some(w)) = (value.as_object_mut(), &wrapped) {
            obj.insert(
                "wrapper".into(),
                serde_json::json!({"harness": w.harness, "template": w.template, "payload": w.payload, "extra": w.extra, "snapshot": w.snapshot}),
            );
        }
        println!("{value}");
    } else {
        print!("{}", report::check_text(&verdict, &analysis, &cwd));
    }
    Exit::Child(0)
}

/// `automode exec`: one argv, no shell, same supervision.
fn exec_command(
    ctx: &Context,
    timeout: Option<String>,
    output_limit: Option<String>,
    argv: Vec<OsString>,
) -> Exit {
    let Some(program) = argv.first() else {
        return Exit::Usage;
    };
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if EXEC_WRAPPERS.contains(&name.as_str()) {
        report::exec_wrapper_refused(&name);
        return Exit::Usage;
    }
    let mut requests = environment_requests(ctx);
    if let Some(v) = timeout {
        requests.timeout.push(Request {
            value: v,
            source: LimitSource::Flag,
        });
    }
    if let Some(v) = output_limit {
        requests.output_limit.push(Request {
            value: v,
            source: LimitSource::Flag,
        });
    }
    let limits = match requests.resolve() {
        Ok(l) => l,
        Err(e) => {
            report::limit_error(&e);
            return Exit::Usage;
        }
    };
    let Some(path) = resolve_program(ctx, program) else {
        report::program_not_found(&program.to_string_lossy());
        return Exit::NotFound;
    };
    supervise(ctx, path, argv, limits, &[], false, &mut || {}).0
}

/// PATH lookup as execvp does it, but only through absolute directories.
fn resolve_program(ctx: &Context, program: &OsStr) -> Option<PathBuf> {
    if program.as_bytes().contains(&b'/') {
        let p = Path::new(program);
        return Some(match ctx.cwd() {
            Some(cwd) if p.is_relative() => cwd.join(p),
            _ => p.to_path_buf(),
        });
    }
    let path_var = ctx.var("PATH")?;
    path_var
        .as_bytes()
        .split(|b| *b == b':')
        .filter(|d| d.first() == Some(&b'/'))
        .map(|d| Path::new(OsStr::from_bytes(d)).join(program))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Where the harnesses keep their state, and the names of this shim.
fn harness_places(ctx: &Context, env: &PolicyEnv) -> harness::Places {
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

/// What to judge: a harness's own setup call (allowed by shape and
/// parent), the agent's command inside a recognised wrapper (aliases from
/// the snapshot resolved), or the script itself.
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

fn prepare(
    ctx: &Context,
    env: &PolicyEnv,
    original: &str,
    login: bool,
) -> (String, Option<harness::Wrapped>, Option<&'static str>) {
    let hplaces = harness_places(ctx, env);
    let internal = harness::builders::internal_call(original, login, parent_harness(ctx), &hplaces);
    if internal.is_some() {
        return (original.to_string(), None, internal);
    }
    let Some(w) = harness::recognize(original, &hplaces) else {
        return (original.to_string(), None, None);
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
    (text, Some(w), None)
}

/// Hook mode decides within this, before Claude Code's 60 s hook timeout.
const HOOK_DEADLINE: std::time::Duration = std::time::Duration::from_secs(55);

/// `automode hook claude-code`: decide on Claude Code's PreToolUse JSON
/// with the same engine as the shim, or record the user's prompt. Every
/// failure exits 2 (the only exit Claude Code treats as "block").
fn hook_command(ctx: &Context, harness: &str) -> Exit {
    use std::io::Read as _;
    let fail = |why: &str| {
        report::say(&format!("blocked: {why}"));
        Exit::Child(2)
    };
    if harness != "claude-code" {
        return fail(&format!("hook mode supports claude-code, not {harness:?}"));
    }
    // Claude Code runs the tool when a hook crashes or times out: a panic
    // and a decision slower than its 60 s hook timeout must come out as
    // exit 2 (block) instead.
    std::panic::set_hook(Box::new(|info| {
        report::say(&format!("blocked: automode failed internally: {info}"));
        std::process::exit(2);
    }));
    std::thread::spawn(|| {
        std::thread::sleep(HOOK_DEADLINE);
        report::say(&format!(
            "blocked: automode did not decide within {} s (Claude Code's hook timeout is 60 s)",
            HOOK_DEADLINE.as_secs()
        ));
        std::process::exit(2);
    });
    let mut input = String::new();
    if let Err(e) = std::io::stdin()
        .take(4 * 1024 * 1024)
        .read_to_string(&mut input)
    {
        return fail(&format!("cannot read the hook input: {e}"));
    }
    let request = match crate::hook::parse(&input) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let (command, cwd, session, transcript) = match request {
        crate::hook::Request::Other => return Exit::Child(0),
        crate::hook::Request::Prompt { prompt, session } => {
            // Remember the user's words for the classifier.
            let cwd = ctx
                .cwd()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("/"));
            if let Ok(mut env) = PolicyEnv::load(ctx, &cwd, true) {
                if let Some(s) = session {
                    env.set_session(&format!("claude-code-{s}"));
                }
                if let Some(log) = env.intent_log() {
                    let line = serde_json::json!({"role": "user", "content": prompt});
                    if let Err(e) = append_line(&log, &line.to_string()) {
                        report::state_error(&e);
                    }
                }
            }
            return Exit::Child(0);
        }
        crate::hook::Request::Bash {
            command,
            cwd,
            session,
            transcript,
        } => (command, cwd, session, transcript),
    };
    let cwd = match cwd
        .map(PathBuf::from)
        .filter(|c| c.is_absolute() && c.is_dir())
    {
        Some(c) => shell::paths::resolve(Path::new("/"), &c.to_string_lossy()).0,
        None => match ctx.cwd() {
            Some(c) => c.to_path_buf(),
            None => return fail("the hook input has no usable cwd"),
        },
    };
    let mut env = match PolicyEnv::load(ctx, &cwd, true) {
        Ok(env) => env,
        Err(e) => return fail(&format!("automode's configuration is invalid: {e}")),
    };
    if let Some(s) = session {
        env.set_session(&format!("claude-code-{s}"));
    }
    env.transcript = transcript.map(PathBuf::from).filter(|p| p.is_absolute());
    let started = std::time::Instant::now();
    let positional = shell::Positional {
        dollar0: "bash".into(),
        args: Vec::new(),
    };
    let request = analysis_request(
        ctx,
        command.as_bytes(),
        shell::MAX_COMMAND_BYTES,
        cwd.clone(),
        positional,
        true,
        shell::Dialect::Bash,
    );
    let analysis = shell::analyze(request);
    let local = env.decide(ctx, &analysis, &command, false);
    let (verdict, note) = if local.decision == Decision::Classify {
        let (v, n) = env.classify(ctx, &analysis, &command, &cwd, local);
        (v, Some(n))
    } else {
        (local, None)
    };
    let decided = Decided {
        verdict,
        decision_time: started.elapsed(),
        classifier: note,
    };
    env.record(ctx, &command, &cwd, &decided, None);
    let text = report::blocked_text(&decided.verdict);
    println!("{}", crate::hook::answer(&decided.verdict, &text));
    Exit::Child(0)
}

/// Append one line to a file (created with its directory).
fn append_line(path: &Path, line: &str) -> Result<(), String> {
    use std::io::Write as _;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    writeln!(f, "{line}").map_err(|e| format!("cannot write {}: {e}", path.display()))
}
