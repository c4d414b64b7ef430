//! The shim pipeline, top to bottom, for automode invoked as `bash` or
//! `sh`: invocation → script → judge (an ask waits for the user) →
//! sandbox → record the decision →
//! run → record the outcome. Each stage is one step below; what a stage needs
//! lives in its own module (`invocation`, `script`, `judge`, `record`,
//! `launch`), and this file only sequences them.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::config::Config;
use crate::context::Context;
use crate::exec::{self, ExecError};
use crate::exit::Exit;
use crate::invocation::{self, Invocation, Parsed, ShellKind, Source};
use crate::judge::{self, Judge, Origin, Run, Switches, Unconfined};
use crate::launch::{self, Launch};
use crate::limits::{self, LimitSource, Limits, Request, Requests};
use crate::policy::Decision;
use crate::timing;
use crate::{approval, nested, realshell, report, sandbox, script, shell, state};

/// Shim mode: `bash …` / `sh …`.
pub fn run(ctx: &Context, kind: ShellKind) -> Exit {
    // 1. The invocation: a nested call inside a command already judged
    //    becomes the real shell at once; so do `--version` and `--help`.
    let env = || ctx.env.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str()));
    if nested::is_nested(env()) {
        return pass_through(ctx, kind);
    }
    if nested::in_sandbox_elsewhere(env()) {
        report::new_session_in_sandbox();
        return Exit::Blocked;
    }
    let inv = match invocation::parse(&ctx.argv0, ctx.args.iter().cloned()) {
        Ok(Parsed::Run(inv)) => *inv,
        Ok(Parsed::Informational) => return pass_through(ctx, kind),
        Ok(Parsed::ListOptions) => {
            report::list_options_unsupported();
            return Exit::Usage;
        }
        Err(err) => {
            report::usage_error(&err, &ctx.argv0.to_string_lossy());
            return Exit::Child(err.exit_code());
        }
    };
    if inv.source == Source::Stdin && ctx.stdin_is_tty {
        return interactive(ctx, kind);
    }

    // 2. Where it runs, and under which configuration.
    let Some(cwd) = ctx.cwd().map(Path::to_path_buf) else {
        report::exec_error(&ExecError::WorkspaceChanged(
            ctx.workspace.clone().err().unwrap_or_default(),
        ));
        return Exit::Blocked;
    };
    timing::mark("started");
    let mut judge = match Judge::load(ctx, &cwd, Switches::SessionAndGlobal) {
        Ok(j) => j,
        Err(e) => {
            report::config_error(&e);
            return Exit::Blocked;
        }
    };

    // 3. The script, and the limits it runs under.
    let (script_text, limits) = match script_and_limits(ctx, &inv, &judge.config) {
        Ok(s) => s,
        Err(exit) => return exit,
    };

    // 4. The verdict. An ask waits for the user under a code; the
    //    optional channels (an ask command, the terminal) may answer it at
    //    once, and then the command is judged again with that answer.
    //    The analysis reads the exact bytes bash will run: a script or an
    //    argument that is not UTF-8 is opaque (the text is then only a
    //    lossy copy for messages).
    let original = String::from_utf8_lossy(&script_text).into_owned();
    let mut request = judge_request(&inv, kind, &original, &cwd, ctx);
    request.undecodable = judge::undecodable(&script_text, inv.dollar0.as_deref(), &inv.args);
    timing::mark("loaded");
    let mut decided = judge.judge(ctx, &request);
    timing::mark("judged");
    // Twice at most: an approved ask rule may then need a review.
    for _ in 0..2 {
        if decided.verdict.decision != Decision::Ask {
            break;
        }
        match approval::ask_user(ctx, &judge, &decided) {
            Some(approval::Asked::Answered) => decided = judge.judge(ctx, &request),
            Some(approval::Asked::Waiting(ask)) => {
                decided.pending = Some(*ask);
                break;
            }
            None => break,
        }
    }
    // 4b. The checkpoint: before a command that may change the project,
    //     its files are kept (`automode undo`). When that fails, the
    //     command is judged again as if no checkpoint were taken (what
    //     only a checkpoint made safe then waits), and never runs
    //     unchecked without a word.
    let mut decided = judge.with_checkpoint(ctx, decided, &request);
    // One analysis per process, which exits after the command: freeing a
    // large script's records would cost up to a sixth of its analysis
    // time, before the command starts.
    std::mem::forget(decided.analysis.take());
    let mut rec = judge.recorder(ctx, &cwd);
    rec.set_command(&original);
    if let Some(note) = decided.classifier.as_ref()
        && note.from_environment
        && !judge.classifier_announced
    {
        report::classifier_from_environment(&note.model, &note.model_source);
        rec.classifier_announced();
    }
    // The classifier can take seconds: the directory must still be the
    // one the command was submitted in.
    if let (Some(_), Ok(ws)) = (&decided.classifier, &ctx.workspace)
        && let Err(why) = ws.verify()
    {
        report::exec_error(&ExecError::WorkspaceChanged(why));
        rec.no_run(&decided);
        return Exit::Blocked;
    }
    if decided.verdict.decision != Decision::Allow {
        match &decided.pending {
            Some(ask) => {
                // The classifier set-up advice: once a session.
                let advise = !judge.classifier_advised;
                if report::blocked_ask(&decided.verdict, ask, advise) {
                    rec.classifier_advised();
                }
            }
            None => report::blocked(&decided.verdict),
        }
        rec.no_run(&decided);
        return Exit::Blocked;
    }
    // An approval runs one command once: used up before it starts.
    if let Err(why) = approval::use_up(ctx, &judge, &decided) {
        report::approval_used(&why);
        rec.no_run(&decided);
        return Exit::Blocked;
    }
    let shell = match realshell::locate(ctx) {
        Ok(s) => s,
        Err(e) => {
            report::real_shell_error(&e);
            rec.no_run(&decided);
            return if e.is_missing() {
                Exit::NotFound
            } else {
                Exit::CannotInvoke
            };
        }
    };

    // 5. The sandbox it runs in: confined by its plan, or unconfined
    //    only for one of the user's own reasons; anything else refuses.
    let ruleset = decided.sandbox.as_mut().and_then(|s| s.ruleset.take());
    let wall = decided.sandbox.as_mut().and_then(|s| s.wall.take());
    let run = match decided.sandbox.as_ref().map(|s| s.run(ruleset, wall)) {
        Some(Ok(run)) => run,
        Some(Err(refused)) => {
            report::run_refused(&refused);
            rec.no_run(&decided);
            return Exit::Blocked;
        }
        None => {
            report::sandbox_failed("no sandbox was decided for this command");
            rec.no_run(&decided);
            return Exit::Blocked;
        }
    };
    if let Run::Unconfined(Unconfined::KernelCannot { why }) = &run
        && !judge.sandbox_warned
    {
        report::sandbox_unavailable_warning(why);
        rec.sandbox_warned();
    }

    // 6. Run it. The decision record is written before the start where
    //    the command's processes could kill this one (no PID namespace
    //    of their own: `kill -9 $PPID` must not erase it), otherwise once
    //    it has started, while its process starts on another processor;
    //    a command that never started gets it after. The session's count
    //    is written once it has started (never waiting on a lock while
    //    the child runs).
    let mut argv = vec![ctx.argv0.clone()];
    argv.extend(inv.real_shell_args(OsStr::from_bytes(&script_text)));
    let mut counted = false;
    let mut recorded = false;
    let (exit, outcome, enforced) = launch::supervise(
        ctx,
        Launch {
            program: shell.path,
            argv,
            limits,
            extra_env: &decided.verdict.exec_env,
            terminal_stdin: ctx.stdin_is_tty && judge.config.allow_terminal_input.value,
            run,
            cwd: &cwd,
            command_id: rec.id(),
            asking: sandbox::hint::Asking {
                places: &judge.places,
                reviewer: judge.enabled.0,
                tmpdir: ctx
                    .var_str("TMPDIR")
                    .filter(|t| t.starts_with('/'))
                    .map(Path::new),
            },
        },
        &mut |moment| {
            let now = moment != launch::Moment::BeforeStart { reachable: false };
            if now && !recorded {
                rec.decision(&decided, true);
                recorded = true;
                timing::mark("recorded");
            }
            if moment == launch::Moment::Started {
                counted = rec.count(&decided, state::NO_WAIT);
            }
        },
    );

    // 7. The outcome record (and the decision and the count, if they
    //    were not written at the start).
    if !recorded {
        rec.decision(&decided, true);
    }
    if !counted {
        rec.count(&decided, state::SHIM_LOCK_WAIT);
    }
    rec.outcome(exit, outcome.as_ref(), &enforced);
    // The process exits next: freeing the configuration, the verdict and
    // the plan one allocation at a time would only delay the exit status.
    std::mem::forget(rec);
    std::mem::forget(decided);
    std::mem::forget(judge);
    exit
}

/// A script on a terminal's stdin: an interactive shell. Started for a
/// person (a login program, sshd, a terminal or multiplexer is the
/// parent: `person.rs`), it is the real shell, with a notice; otherwise
/// only if the user's configuration says so.
fn interactive(ctx: &Context, kind: ShellKind) -> Exit {
    if let Some((parent, why)) = crate::person::person_parent() {
        report::person_shell(&parent, why);
        return pass_through(ctx, kind);
    }
    let allowed = ctx.cwd().is_some_and(|cwd| {
        Judge::load(ctx, cwd, Switches::SessionAndGlobal)
            .is_ok_and(|j| j.config.allow_terminal_input.value)
    });
    if allowed {
        return pass_through(ctx, kind);
    }
    report::interactive_refused();
    Exit::Usage
}

/// The script (the `-c` word, a file or stdin, bounded) and the limits
/// that apply to it: the harness's environment, then configuration, then
/// the script's own leading `AUTOMODE_TIMEOUT=` / `AUTOMODE_OUTPUT_LIMIT=`.
fn script_and_limits(
    ctx: &Context,
    inv: &Invocation,
    config: &Config,
) -> Result<(Vec<u8>, Limits), Exit> {
    let mut requests = environment_requests(ctx);
    config_requests(config, &mut requests);
    let early = requests.resolve().map_err(|e| {
        report::limit_error(&e);
        Exit::Usage
    })?;
    let text = read_script(ctx, inv, early)?;
    let lead = script::leading_limits(&text);
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
    let mut limits = requests.resolve().map_err(|e| {
        report::limit_error(&e);
        Exit::Usage
    })?;
    locked_caps(config, &mut limits);
    Ok((text, limits))
}

/// A limit the managed policy locks is a ceiling: the harness and the
/// script may only ask for less.
fn locked_caps(config: &Config, limits: &mut Limits) {
    if config.lock_of("timeoutSeconds").is_some()
        && let Some(t) = &config.timeout_seconds
    {
        let cap = std::time::Duration::from_secs_f64(t.value);
        if limits.timeout > cap {
            limits.timeout = cap;
            limits.timeout_source = LimitSource::Config;
        }
    }
    if config.lock_of("outputLimitBytes").is_some()
        && let Some(b) = &config.output_limit_bytes
        && limits.output_limit > b.value
    {
        limits.output_limit = b.value;
        limits.output_limit_source = LimitSource::Config;
    }
}

/// What the judge needs to know about this invocation.
fn judge_request<'a>(
    inv: &Invocation,
    kind: ShellKind,
    script: &'a str,
    cwd: &'a Path,
    ctx: &Context,
) -> judge::Request<'a> {
    judge::Request {
        origin: Origin::Shim {
            login: inv.options.login,
            noexec: inv.options.noexec(),
        },
        script,
        cwd,
        positional: shell::Positional {
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
        },
        max_bytes: match inv.source {
            Source::Command(_) => shell::MAX_COMMAND_BYTES,
            Source::File(_) | Source::Stdin => shell::MAX_FILE_BYTES,
        },
        dialect: match kind {
            ShellKind::Bash => shell::Dialect::Bash,
            ShellKind::Sh => shell::Dialect::Posix,
        },
        // A login shell reads profiles first: the environment the script
        // sees is not the one inherited.
        trust_env: !inv.options.login,
        terminal: ctx.stdin_is_tty,
        undecodable: None,
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

/// `AUTOMODE_TIMEOUT` / `AUTOMODE_OUTPUT_LIMIT` from the harness.
pub fn environment_requests(ctx: &Context) -> Requests {
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
            script::ScriptError::TooLarge(_) | script::ScriptError::ContainsNul(..) => {
                Exit::Blocked
            }
            script::ScriptError::StdinTimedOut(_) => Exit::TimedOut,
        }
    })
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
    let mut argv: Vec<OsString> = vec![ctx.argv0.clone()];
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
