//! Recording one invocation: the session's counters and the audit log.
//!
//! Input: the `Decided` verdict (and later the supervised `Outcome`).
//! Output: nothing but files in the state directory and, when recording
//! fails, one warning. Recording never changes what happens to the
//! command and never waits long for bookkeeping: lock waits are bounded
//! (`state::SHIM_LOCK_WAIT`), after which the record is skipped with a
//! warning. Nothing here decides anything.

use std::cell::Cell;
use std::path::Path;
use std::time::Duration;

use crate::context::Context;
use crate::exec::{ChildStatus, Outcome, Termination};
use crate::exit::Exit;
use crate::judge::{ClassifierNote, Decided, Judge};
use crate::state::{self, Store};
use crate::{nested, report};

/// Where one invocation's records go, and the id that joins them.
#[derive(Debug)]
pub struct Recorder<'a> {
    store: Option<&'a Store>,
    state_dir: Option<&'a Path>,
    cwd: &'a Path,
    harness: Option<&'static str>,
    /// Joins the decision record to the outcome record.
    id: String,
    /// Seconds since the epoch at the invocation's start.
    at: u64,
    /// A skipped record is reported once per invocation.
    warned: Cell<bool>,
    /// The command as the denials list shows it.
    command: String,
}

impl Judge {
    /// The recorder for one invocation in `cwd`.
    pub fn recorder<'a>(&'a self, ctx: &Context, cwd: &'a Path) -> Recorder<'a> {
        let since_epoch = ctx
            .now
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Recorder {
            store: self.store.as_ref(),
            state_dir: self.state_dir.as_deref(),
            cwd,
            harness: crate::session::harness(&|k| ctx.var_str(k).map(str::to_string)),
            id: format!(
                "{:x}-{:x}-{:x}",
                since_epoch.as_secs(),
                since_epoch.subsec_nanos(),
                std::process::id()
            ),
            at: since_epoch.as_secs(),
            warned: Cell::new(false),
            command: String::new(),
        }
    }
}

impl Recorder<'_> {
    /// The command the records are about (for the denials list).
    pub fn set_command(&mut self, script: &str) {
        self.command = state::audit::clip(script).chars().take(500).collect();
    }

    /// The id that joins this invocation's records (the network wall's
    /// token for the command, too).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// A verdict whose command automode does not run (it is blocked, or
    /// hook mode decided it for the harness to run): its count and its
    /// one audit record.
    pub fn no_run(&self, decided: &Decided) {
        self.count(decided, state::SHIM_LOCK_WAIT);
        self.decision(decided, false);
    }

    /// Count the verdict in the session state, waiting at most `wait` for
    /// the lock. `false`: the lock was busy and nothing was written (the
    /// caller may try again later with a longer wait).
    pub fn count(&self, decided: &Decided, wait: Duration) -> bool {
        let Some(store) = self.store else {
            return true;
        };
        let verdict = &decided.verdict;
        let change = |s: &mut state::SessionState| {
            if let Some(note) = &decided.classifier {
                state::count_classifier(s, note.failed);
            }
            state::count(
                s,
                self.at,
                state::Counted {
                    decision: verdict.decision.as_str(),
                    tier: verdict.tier.as_str(),
                    rule: &verdict.rule,
                    reason: &verdict.reason,
                    script: &decided.judged,
                    cwd: &self.cwd.to_string_lossy(),
                    harness: self.harness,
                    suggest: verdict.suggest.as_ref().map_or(&[], |(rules, _)| rules),
                },
            );
        };
        match store.update(wait, change) {
            Ok(Some(_)) => true,
            Ok(None) if wait.is_zero() => false,
            Ok(None) => {
                self.warn(&format!(
                    "the session state is locked by another process ({}) for more than {} ms; this command is not counted",
                    store.path().with_extension("lock").display(),
                    wait.as_millis()
                ));
                true
            }
            Err(e) => {
                self.warn(&e);
                true
            }
        }
    }

    /// Remember that this session was told the sandbox is unavailable.
    pub fn sandbox_warned(&self) {
        if let Some(store) = self.store
            && let Err(e) = store.update(state::SHIM_LOCK_WAIT, |s| s.sandbox_warned = true)
        {
            self.warn(&e);
        }
    }

    /// Remember that this session was told how to set up a classifier.
    pub fn classifier_advised(&self) {
        if let Some(store) = self.store
            && let Err(e) = store.update(state::SHIM_LOCK_WAIT, |s| s.classifier_advised = true)
        {
            self.warn(&e);
        }
    }

    /// Remember that this session was told which classifier its
    /// environment chose.
    pub fn classifier_announced(&self) {
        if let Some(store) = self.store
            && let Err(e) = store.update(state::SHIM_LOCK_WAIT, |s| s.classifier_announced = true)
        {
            self.warn(&e);
        }
    }

    /// The decision record; `will_run`: the command starts next.
    pub fn decision(&self, decided: &Decided, will_run: bool) {
        let verdict = &decided.verdict;
        let me = std::process::id() as i32;
        let record = serde_json::json!({
            "id": self.id,
            "event": "decision",
            "at": self.at,
            "session": self.store.map(|s| s.session.clone()),
            "cwd": self.cwd.to_string_lossy(),
            "script": state::audit::clip(&decided.judged),
            "decision": verdict.decision,
            "tier": verdict.tier,
            "rule": verdict.rule,
            "source": verdict.source,
            "reason": verdict.reason,
            "decision_us": decided.decision_time.as_micros() as u64,
            "classifier": decided.classifier.as_ref().map(ClassifierNote::to_json),
            "sandbox": decided.sandbox.as_ref().map(crate::judge::SandboxDecision::to_audit_json),
            "approval": decided.approval.as_ref().map(|a| serde_json::json!({"code": a.code, "by": a.decided_by})),
            "pending_approval": decided.pending.as_ref().map(|a| a.code.clone()),
            "ran": will_run,
            "pid": me,
            "pid_start": nested::own_start_ticks(),
        });
        self.append(&record);
    }

    /// The outcome record of a command that ran (`outcome` is `None` when
    /// it could not be started), with what was enforced for it (as the
    /// child reported it applied: `launch::supervise`).
    pub fn outcome(&self, exit: Exit, outcome: Option<&Outcome>, enforced: &serde_json::Value) {
        let o = outcome;
        let record = serde_json::json!({
            "id": self.id,
            "event": "outcome",
            "exit": exit.code(),
            "signal": o.and_then(|o| match o.status { Some(ChildStatus::Signaled(s)) => Some(s), _ => None }),
            "duration_ms": o.map(|o| o.duration.as_millis() as u64),
            "stdout_bytes": o.map(|o| o.stdout_bytes),
            "stderr_bytes": o.map(|o| o.stderr_bytes),
            "truncated": o.is_some_and(|o| o.termination == Some(Termination::OutputLimit)),
            "timed_out": o.is_some_and(|o| o.termination == Some(Termination::TimedOut)),
            "confinement": enforced,
        });
        self.append(&record);
        // What the sandbox refused joins the session's denials.
        if let (Some(store), Some(refused)) = (self.store, enforced["refused"].as_array()) {
            let at = self.at;
            let reasons: Vec<String> = refused
                .iter()
                .filter_map(|r| {
                    r.as_str()
                        .map(|t| t.trim_start_matches("automode: ").to_string())
                })
                .collect();
            let command = self.command.clone();
            if let Err(e) = store.update(state::SHIM_LOCK_WAIT, |s| {
                for reason in &reasons {
                    let network = reason.starts_with("the network wall");
                    s.recent_denials.push(state::DenialRecord {
                        at,
                        decision: "sandbox".into(),
                        tier: "sandbox".into(),
                        rule: if network {
                            "network-wall"
                        } else {
                            "sandbox-refusal"
                        }
                        .into(),
                        reason: reason.chars().take(500).collect(),
                        command: command.clone(),
                        suggest: Vec::new(),
                    });
                }
                let excess = s.recent_denials.len().saturating_sub(state::RECENT_DENIALS);
                s.recent_denials.drain(..excess);
            }) {
                self.warn(&e);
            }
        }
    }

    fn append(&self, record: &serde_json::Value) {
        if let Some(dir) = self.state_dir
            && let Err(e) = state::audit::append(dir, record)
        {
            self.warn(&e);
        }
    }

    fn warn(&self, why: &str) {
        if !self.warned.replace(true) {
            report::state_error(why);
        }
    }
}
