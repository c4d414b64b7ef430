//! Every line automode itself writes to stderr: one prefix, one write per
//! message (so parallel output does not interleave mid-line), plain text.
//! Messages that imitate bash's own (bad options, missing script files)
//! use bash's wording and prefix instead.

use std::fmt::Write as _;
use std::io::Write;
use std::time::Duration;

use crate::config::ConfigError;
use crate::exec::{ExecError, Outcome, Termination};
use crate::invocation::{UsageError, usage_text};
use crate::limits::LimitError;
use crate::policy::{Decision, Verdict};
use crate::realshell::RealShellError;
use crate::script::{MAX_SCRIPT_BYTES, ScriptError};

/// The prefix of automode's own messages.
pub const PREFIX: &str = "automode: ";

/// Write one message, prefixed, as a single write.
pub fn say(text: &str) {
    let mut line = String::with_capacity(PREFIX.len() + text.len() + 1);
    line.push_str(PREFIX);
    line.push_str(text);
    if !line.ends_with('\n') {
        line.push('\n');
    }
    raw(&line);
}

/// Write text to stderr as is, in one write.
pub fn raw(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// A bad shell invocation, exactly as bash reports it.
pub fn usage_error(err: &UsageError, shell_name: &str) {
    let tty = nix::unistd::isatty(std::io::stderr()).unwrap_or(false);
    let mut text = format!("{}\n", err.render(tty));
    if err.shows_usage() {
        text.push_str(&usage_text(shell_name));
    }
    raw(&text);
}

pub fn interactive_refused() {
    say(
        "refusing to start an interactive shell: automode only runs scripts it can check, and \
         commands typed into an interactive shell later never pass through it (pass a script \
         with -c, a script file, or a script on a non-terminal stdin; the user can set \
         autoMode.allowTerminalInput to let a human's interactive shell through)",
    );
}

/// An interactive shell started for a person: the real shell runs.
pub fn person_shell(parent: &str, why: &str) {
    say(&format!(
        "interactive shell for a person (its parent is {parent}: {why}): running the real bash; automode judges only the commands an agent runs through it"
    ));
}

pub fn list_options_unsupported() {
    say("listing shell options with -o or -O and no name is not supported through automode");
}

pub fn limit_error(err: &LimitError) {
    say(&format!("{err}; the command was not run"));
}

/// A script that could not be read, in bash's words where bash has them.
pub fn script_error(err: &ScriptError, shell_name: &str) {
    let text = match err {
        ScriptError::NotFound(name) => {
            format!(
                "{shell_name}: {}: No such file or directory\n",
                name.to_string_lossy()
            )
        }
        ScriptError::IsDirectory(name) => {
            let n = name.to_string_lossy();
            format!("{n}: {n}: Is a directory\n")
        }
        ScriptError::PermissionDenied(name) => {
            format!(
                "{shell_name}: {}: Permission denied\n",
                name.to_string_lossy()
            )
        }
        ScriptError::Binary(name) => {
            let n = name.to_string_lossy();
            format!("{n}: {n}: cannot execute binary file\n")
        }
        ScriptError::Unreadable(name, why) => {
            format!("{shell_name}: {}: {why}\n", name.to_string_lossy())
        }
        ScriptError::TooLarge(what) => {
            say(&format!(
                "the {what} is larger than {} KiB; refusing to run it (nothing ran)",
                MAX_SCRIPT_BYTES / 1024
            ));
            return;
        }
        ScriptError::ContainsNul(name, line) => {
            say(&format!(
                "blocked: {} contains a NUL byte on line {line}; bash would silently drop the text after it, so automode refuses the script (nothing ran; remove the NUL byte)",
                name.to_string_lossy()
            ));
            return;
        }
        ScriptError::StdinTimedOut(t) => {
            say(&format!(
                "timed out after {} reading the script from standard input (nothing ran)",
                seconds(*t)
            ));
            return;
        }
    };
    raw(&text);
}

pub fn real_shell_error(err: &RealShellError) {
    match err {
        RealShellError::BadRecord { record, shell, why } => say(&format!(
            "the real shell {} recorded in {} cannot be used: {why}; reinstall automode (nothing ran)",
            shell.display(),
            record.display()
        )),
        RealShellError::NotFound => say(
            "cannot find the real bash: no usable bash on PATH, /usr/bin/bash or /bin/bash \
             (automode never runs itself as the real shell; nothing ran)",
        ),
    }
}

pub fn exec_error(err: &ExecError) {
    match err {
        ExecError::NotFound(p) => say(&format!("{}: No such file or directory", p.display())),
        ExecError::CannotExecute(p, e) => say(&format!("{}: cannot execute: {e}", p.display())),
        ExecError::WorkspaceChanged(why) => say(&format!(
            "{why}; the command was not run (run it again from the intended directory)"
        )),
        ExecError::Os(why) => say(&format!("internal error before the command started: {why}")),
        ExecError::Confine { step, .. } => say(&format!(
            "blocked: the sandbox could not confine the command ({step}); it did not run. Report this to the user (`automode status` shows the sandbox; sandbox.mode in their automode config decides)."
        )),
    }
}

/// A shell started in a new session inside a sandboxed command.
pub fn new_session_in_sandbox() {
    say(
        "blocked: this shell was started in a new session (setsid, a daemon) inside a command that automode runs in its sandbox; from there automode cannot read its own configuration to judge it, so it did not run. Start it without a new session (then it runs as part of the command already allowed).",
    );
}

/// The sandbox's ruleset could not be built: nothing runs.
pub fn sandbox_failed(why: &str) {
    say(&format!(
        "blocked: the sandbox could not be set up ({why}); the command did not run. Report this to the user (`automode status` shows the sandbox; sandbox.mode in their automode config decides)."
    ));
}

/// The sandbox cannot be enforced here (once per session under `auto`).
pub fn sandbox_unavailable_warning(why: &str) {
    say(&format!(
        "warning: the sandbox is not enforced on this machine ({why}); commands run with the user's full rights, and what depends on the sandbox is off. `automode status` shows it; sandbox.mode \"require\" refuses to run instead."
    ));
}

/// No checkpoint could be taken before a command: it runs all the same
/// (nothing it was allowed for needed one), or it was judged again
/// without one and is refused next.
pub fn no_checkpoint(why: &str, runs: bool) {
    if runs {
        say(&format!(
            "no checkpoint was taken before this command ({why}): automode undo cannot bring back what it changes."
        ));
    } else {
        say(&format!(
            "no checkpoint could be taken before this command ({why}), and without one it is not allowed:"
        ));
    }
}

/// A connection the network wall refused during a failed command.
pub fn network_refused(r: &crate::sandbox::net::Refusal) {
    let by = match (&r.process, r.pid) {
        (Some(name), Some(pid)) => format!(" ({name}, pid {pid})"),
        _ => String::new(),
    };
    say(&format!(
        "the network wall refused {}:{}{by}: {}. The user can add \"{}\" to sandbox.network.allow, or approve a command that names it.",
        r.host, r.port, r.why, r.host
    ));
}

/// The command cannot run as decided (the sandbox).
pub fn run_refused(refused: &crate::judge::Refused) {
    match refused {
        crate::judge::Refused::Required(why) => sandbox_required(why),
        crate::judge::Refused::Failed(why) => sandbox_failed(why),
    }
}

/// `sandbox.mode` is `require` and the sandbox cannot be enforced.
pub fn sandbox_required(why: &str) {
    say(&format!(
        "blocked: this command did not run: sandbox.mode is \"require\" and the sandbox cannot be enforced here ({why}). Report this to the user."
    ));
}

/// No user namespace: protected paths are checked after the command.
pub fn sandbox_namespace_fallback(why: &str) {
    say(&format!(
        "note: no private mount namespace could be made ({why}); protected paths are checked and restored after the command instead"
    ));
}

/// The command died of SIGXFSZ.
pub fn file_too_large(max: u64) {
    say(&format!(
        "the command (or a program it ran) was likely stopped for writing a file larger than the sandbox allows ({max} bytes, sandbox.maxFileBytes)"
    ));
}

/// A failed confined command ran without these credential variables.
pub fn withheld_env(names: &[String]) {
    say(&format!(
        "note: the command ran without these credential variables (the sandbox withholds them from programs it does not know): {}; sandbox.passEnv in the user's automode config lists those every command gets",
        names.join(", ")
    ));
}

pub fn nested_exec_failed(shell: &std::path::Path, err: &std::io::Error) {
    say(&format!(
        "cannot run the real shell {}: {err}",
        shell.display()
    ));
}

pub fn exec_wrapper_refused(program: &str) {
    say(&format!(
        "`{program}` is a shell or a command wrapper; automode exec runs one program directly: \
         pass the executable argv directly (nothing ran)"
    ));
}

pub fn program_not_found(program: &str) {
    say(&format!("{program}: command not found"));
}

/// Diagnostics after a supervised run.
pub fn outcome(outcome: &Outcome, timeout: Duration, output_limit: u64) {
    match outcome.termination {
        Some(Termination::TimedOut) => {
            let mut text = format!(
                "timed out after {}; sent SIGTERM to the process group",
                seconds(timeout)
            );
            if outcome.escalated_to_kill {
                text.push_str(", then SIGKILL after the grace period");
            }
            let _ = write!(
                text,
                " (ask for more time by starting the script with AUTOMODE_TIMEOUT=<seconds>, at most {})",
                crate::limits::MAX_TIMEOUT_SECS
            );
            say(&text);
        }
        Some(Termination::OutputLimit) => say(&format!(
            "output limit of {output_limit} bytes exceeded; output truncated (incomplete); process group terminated"
        )),
        Some(Termination::Cancelled(_)) | None => {}
    }
    if outcome.closed_held_pipes {
        say(
            "the command exited, but background processes still held its output; \
             stopped waiting for them (they were not killed)",
        );
    }
}

pub fn internal(why: &str) {
    say(&format!("internal error: {why}"));
}

/// "60 s", "1.5 s".
pub fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    let mut s = format!("{}.{:03}", ms / 1000, ms % 1000);
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
    format!("{s} s")
}

/// Why a command did not run: one paragraph on stderr, with what to do.
pub fn blocked(v: &Verdict) {
    say(&blocked_text(v));
}

/// The refusal paragraph (also used by tests and `automode check`).
pub fn blocked_text(v: &Verdict) -> String {
    let what = match v.decision {
        Decision::Ask => "This needs the user's approval, and no approval code could be made here (automode has no state directory, or this is not a command it runs). Tell the user exactly which command you want to run and why; they can run it themselves or allow commands like it (a permissions.allow rule in their automode config). Do not try another way to do the same thing.".to_string(),
                Decision::Classify => "It needs review by the classifier, and no classifier is configured, so commands that need review cannot run. Report this to the user (they can run it themselves, allow it with a permissions.allow rule, or configure a classifier); do not try an equivalent command to get around it.".to_string(),
        Decision::Deny if v.rule == "classifier-failure" => "This was a classifier failure, not a judgement of the command. Report it to the user; do not try an equivalent command to get around it.".to_string(),
        Decision::Deny | Decision::Allow => {
            let mut t = "Report this to the user; do not try an equivalent command to get around it.".to_string();
            if v.rule == "bulk-delete" || v.rule == "rm-root" {
                t.push_str(" To delete, name one literal target per call (for example `rm -r build`).");
            }
            if v.rule == "opaque" {
                t.push_str(" A simpler script without the construct named above may be analysable.");
            }
            t
        }
    };
    let verb = match v.decision {
        Decision::Ask => "needs the user's approval",
        Decision::Classify => "needs review",
        Decision::Deny if v.rule == "classifier-failure" => "could not be reviewed",
        _ => "is not allowed",
    };
    format!(
        "blocked: this command did not run; it {verb}. Reason: {}. Rule: {} ({} tier, from {}). {what}{}",
        v.reason.trim_end_matches('.'),
        v.rule,
        v.tier.as_str(),
        v.source,
        allow_next_time(v)
    )
}

/// " To allow commands like it next time, …": the rules and the file
/// (for a review the catalogue did not deny).
fn allow_next_time(v: &Verdict) -> String {
    match &v.suggest {
        Some((rules, file)) if v.decision != Decision::Allow => {
            let quoted: Vec<String> = rules.iter().map(|r| format!("\"{r}\"")).collect();
            format!(
                " To let commands like it run without review next time, the user can add {} to permissions.allow in {file}.",
                quoted.join(" and ")
            )
        }
        _ => String::new(),
    }
}

/// An ask waiting for the user under a code; true when the classifier
/// set-up advice was given (`advise`: not yet in this session).
pub fn blocked_ask(v: &Verdict, ask: &crate::approval::Ask, advise: bool) -> bool {
    let text = blocked_ask_text(v, ask, advise);
    say(&text);
    advise && text.contains(CLASSIFIER_ADVICE)
}

/// How to have reviews done by a classifier: said once a session, and by
/// `automode doctor`.
const CLASSIFIER_ADVICE: &str = " No classifier is configured, so commands that need review wait for the user. To have them reviewed automatically, the user sets one: `automode model anthropic/claude-haiku-4-5` with ANTHROPIC_API_KEY in the harness's environment (or `automode model openai/gpt-5-mini` with OPENAI_API_KEY).";

/// The one-paragraph block message of an ask with its code: what, why,
/// the one thing to do; how to allow it next time; the classifier
/// set-up advice only with `advise`.
pub fn blocked_ask_text(v: &Verdict, ask: &crate::approval::Ask, advise: bool) -> String {
    let minutes = ask.ttl.div_ceil(60);
    let mut t = format!(
        "blocked: this command did not run; it needs the user's approval. Reason: {}.{} Ask the user to run `automode approve {}` in their own terminal (within {minutes} min); do not retry it until they say they approved it, and do not try another way.",
        v.reason.trim_end_matches('.'),
        // The user's own rule is named; the missing classifier is said.
        if v.rule == "no-classifier" {
            String::new()
        } else {
            format!(" Rule: {}.", v.rule)
        },
        ask.code,
    );
    if let Some((rules, _)) = &v.suggest {
        let quoted: Vec<String> = rules.iter().map(|r| format!("\"{r}\"")).collect();
        t.push_str(&format!(
            " Next time, `automode allow --last` allows {}.",
            quoted.join(" and ")
        ));
    }
    if v.rule == "no-classifier" {
        if v.reason.contains("off on purpose") {
            if advise {
                t.push_str(" The classifier is off on purpose (autoMode.classifierModel \"none\"), so every command that needs review waits for the user.");
            }
        } else if advise {
            t.push_str(CLASSIFIER_ADVICE);
        }
    }
    t
}

/// The approval was used by another process first.
pub fn approval_used(why: &str) {
    say(&format!(
        "blocked: this command did not run: {why}. An approval runs one command once; ask the user again."
    ));
}

/// A channel refused an ask.
pub fn ask_refused(by: &str, why: &str) {
    say(&format!("the ask was refused by {by}: {why}"));
}

/// The first time a session's review used a classifier chosen from the
/// environment.
pub fn classifier_from_environment(model: &str, source: &str) {
    say(&format!(
        "note: commands that need review are reviewed by {model} ({source}; set autoMode.classifierModel to choose another, or \"none\" to turn it off)"
    ));
}

/// A configuration file that blocks everything until fixed.
pub fn config_error(e: &ConfigError) {
    say(&format!(
        "blocked: this command did not run because automode's configuration is invalid: {e}. Report this to the user; they must fix the file (`automode config` shows what is read)."
    ));
}

/// A damaged state file was moved aside (or could not be).
pub fn state_damaged(
    path: &std::path::Path,
    moved_to: Option<&std::path::Path>,
    consequence: &str,
) {
    match moved_to {
        Some(to) => say(&format!(
            "warning: {} was damaged (not valid JSON); kept it as {} and started fresh: {consequence}",
            path.display(),
            to.display()
        )),
        None => say(&format!(
            "warning: {} is damaged (not valid JSON) and could not be moved aside; reading it as fresh: {consequence}",
            path.display()
        )),
    }
}

/// Session state or the audit log could not be written.
pub fn state_error(why: &str) {
    say(&format!("warning: could not record the decision: {why}"));
}

/// A user-only command run from inside an agent's command.
pub fn user_only_refused(pid: i32) {
    say(&format!(
        "refused: this command changes automode's state and only the user may run it, in their own terminal; it is running inside an agent's shell command (automode shim process {pid})."
    ));
}

/// `automode check --json`: one object; names are stable for tools.
pub fn check_json(v: &Verdict, a: &crate::shell::Analysis, cwd: &std::path::Path) -> String {
    use crate::shell::analysis::ArgValue;
    let commands: Vec<serde_json::Value> = a
        .commands
        .iter()
        .map(|c| {
            let argv: Vec<serde_json::Value> = c
                .argv
                .iter()
                .map(|w| match &w.value {
                    ArgValue::Literal { text } => serde_json::Value::String(text.clone()),
                    ArgValue::Glob { .. } | ArgValue::Dynamic { .. } => serde_json::Value::Null,
                })
                .collect();
            serde_json::json!({
                "argv": argv,
                "words": c.argv,
                "env": c.env.iter().map(|(k, v)| serde_json::json!({"name": k, "value": v.lit()})).collect::<Vec<_>>(),
                "via": c.via,
                "function": c.in_function,
                "calls_function": c.calls_function,
                "stdin": c.stdin,
                "depth": c.depth,
                "source": c.source,
            })
        })
        .collect();
    let effects: Vec<serde_json::Value> = a
        .effects
        .iter()
        .map(|e| {
            serde_json::json!({
                "kind": e.kind,
                "path": e.path.as_ref().map(|p| p.to_string_lossy().into_owned()),
                "lexical": e.lexical.as_ref().map(|p| p.to_string_lossy().into_owned()),
                "alternatives": e.alternatives.iter().map(|p| p.to_string_lossy().into_owned()).collect::<Vec<_>>(),
                "raw": e.raw,
                "target": e.target,
                "command": e.command,
                "recursive": e.recursive,
                "count": e.count,
                "redirect": e.redirect,
                "filter": e.filter,
            })
        })
        .collect();
    let value = serde_json::json!({
        "decision": v.decision,
        "tier": v.tier,
        "rule": v.rule,
        "source": v.source,
        "reason": v.reason,
        "trace": v.trace,
        "exec_env": v.exec_env,
        "recovery": v.recovery.iter().map(|(p, h)| serde_json::json!({
            "target": p.to_string_lossy(),
            "held": h,
        })).collect::<Vec<_>>(),
        "assignments": a.assignments,
        "opaque": a.opaque,
        "cwd": cwd.to_string_lossy(),
        "commands": commands,
        "effects": effects,
        "findings": a.findings,
        "limits": a.limits,
        "functions": a.functions,
    });
    value.to_string()
}

/// `automode check` for people.
pub fn check_text(v: &Verdict, a: &crate::shell::Analysis, cwd: &std::path::Path) -> String {
    let mut out = format!(
        "decision: {} ({} tier, rule {}, from {}): {}\n",
        v.decision,
        v.tier.as_str(),
        v.rule,
        v.source,
        v.reason
    );
    for step in &v.trace {
        let _ = writeln!(out, "  {:26} {}", step.tier.as_str(), step.outcome);
    }
    let _ = writeln!(out, "cwd: {}", cwd.display());
    if let Some(why) = &a.opaque {
        let _ = writeln!(out, "opaque: {why}");
    }
    for (i, c) in a.commands.iter().enumerate() {
        let argv: Vec<String> = c
            .argv
            .iter()
            .map(|w| match w.lit() {
                Some(t) => t.to_string(),
                None => format!("<{}>", w.raw),
            })
            .collect();
        let via = if c.via.is_empty() {
            String::new()
        } else {
            format!("  [via {}]", c.via.join(" > "))
        };
        let _ = writeln!(out, "command {i}: {}{via}", argv.join(" "));
    }
    for e in &a.effects {
        let path = e
            .path
            .as_ref()
            .map_or_else(|| format!("<{}>", e.raw), |p| p.display().to_string());
        let _ = writeln!(out, "effect: {:?} {path} ({:?})", e.kind, e.target);
    }
    for f in &a.findings {
        let _ = writeln!(out, "finding: {:?}: {}", f.kind, f.detail);
    }
    out
}
