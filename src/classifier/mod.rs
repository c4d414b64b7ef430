//! The classifier: a blocking two-stage LLM review of what the local tiers
//! could not settle. The fast stage answers `0` (allow) or `1` (review);
//! after `1`, the detailed stage must make exactly one valid
//! `classifier_decision` tool call (one retry after a truncated or invalid
//! answer, within the stage's deadline). Every error — network, timeout,
//! HTTP status, malformed body, invalid twice, too large — is a failure,
//! never an allow.

pub mod http;
pub mod prompt;
pub mod provider;
pub mod redact;
pub mod transcript;
pub mod wire;

use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use prompt::Prompt;
use provider::Provider;
use wire::{Answer, Decision, Stage, Unusable};

/// One HTTP attempt, for the audit log.
#[derive(Debug, Clone, Serialize)]
pub struct Attempt {
    pub stage: Stage,
    pub attempt: u32,
    pub latency_ms: u64,
    pub status: Option<u16>,
    pub request_id: Option<String>,
    pub stop_reason: Option<String>,
    pub usage: wire::Usage,
    /// The answer: `0`, `1`, `allow/tier`, `block/tier`.
    pub answer: Option<String>,
    pub error: Option<String>,
}

/// How the review ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The fast stage answered `0`, or the detailed stage allowed.
    Allowed { decision: Option<Decision> },
    /// The detailed stage blocked: a judgement.
    Blocked(Decision),
    /// No judgement could be had: why.
    Failed(String),
}

/// The review and its evidence.
#[derive(Debug, Clone)]
pub struct Review {
    pub outcome: Outcome,
    pub attempts: Vec<Attempt>,
    /// Estimated prompt tokens of the stages run.
    pub estimated_tokens: Vec<u64>,
}

/// The message when the detailed stage never produced a valid call.
pub const NO_VALID_CALL: &str = "Classifier response did not contain a valid classifier decision tool call; auto mode fails closed.";

/// Review one action.
pub fn review(p: &Provider, prompt: &Prompt, io_log: Option<&Path>) -> Review {
    let mut r = Review {
        outcome: Outcome::Failed(String::new()),
        attempts: Vec::new(),
        estimated_tokens: Vec::new(),
    };
    // Fast stage.
    match prompt::fits(
        prompt,
        prompt::FAST_INSTRUCTION,
        if p.tools_in_fast_stage {
            SCHEMA_TEXT
        } else {
            ""
        },
        prompt::FAST_MAX_TOKENS,
        p.context_window,
    ) {
        Ok(n) => r.estimated_tokens.push(n),
        Err(why) => {
            r.outcome = Outcome::Failed(why);
            return r;
        }
    }
    let deadline = Instant::now() + p.timeout;
    match call(p, prompt, Stage::Fast, 1, deadline, io_log, &mut r.attempts) {
        Err(Failure::Transport(why)) => {
            r.outcome = Outcome::Failed(why);
            return r;
        }
        Err(Failure::Unusable(u)) => {
            r.outcome = Outcome::Failed(format!(
                "the fast stage's answer is unusable ({u}); auto mode fails closed"
            ));
            return r;
        }
        Ok(Answer::Review(false)) => {
            r.outcome = Outcome::Allowed { decision: None };
            return r;
        }
        Ok(Answer::Review(true)) => {}
        Ok(Answer::Decision(_)) => {
            r.outcome = Outcome::Failed("the fast stage returned a decision".into());
            return r;
        }
    }
    // Detailed stage.
    match prompt::fits(
        prompt,
        prompt::DETAIL_INSTRUCTION,
        SCHEMA_TEXT,
        prompt::DETAIL_MAX_TOKENS,
        p.context_window,
    ) {
        Ok(n) => r.estimated_tokens.push(n),
        Err(why) => {
            r.outcome = Outcome::Failed(why);
            return r;
        }
    }
    let deadline = Instant::now() + p.timeout;
    for attempt in 1..=2 {
        match call(
            p,
            prompt,
            Stage::Detail,
            attempt,
            deadline,
            io_log,
            &mut r.attempts,
        ) {
            Ok(Answer::Decision(d)) => {
                r.outcome = if d.allow {
                    Outcome::Allowed { decision: Some(d) }
                } else {
                    Outcome::Blocked(d)
                };
                return r;
            }
            Ok(Answer::Review(_)) => {
                r.outcome = Outcome::Failed(NO_VALID_CALL.into());
                return r;
            }
            Err(Failure::Transport(why)) => {
                r.outcome = Outcome::Failed(why);
                return r;
            }
            Err(Failure::Unusable(u)) => {
                r.outcome = Outcome::Failed(format!("{NO_VALID_CALL} ({u})"));
                if Instant::now() >= deadline {
                    return r;
                }
            }
        }
    }
    r
}

/// The tool schema as text, for the size estimate.
const SCHEMA_TEXT: &str = r#"{"name":"classifier_decision","description":"Record the verdict for the shell action under review.","parameters":{"type":"object","properties":{"decision":{"type":"string","enum":["allow","block"]},"tier":{"type":"string","enum":["hard_deny","soft_deny","allow","explicit_intent","none"]},"reason":{"type":"string"}},"required":["decision","tier","reason"],"additionalProperties":false}}"#;

enum Failure {
    /// Network, timeout, HTTP status, a body that is not JSON.
    Transport(String),
    /// A response that is not what the stage asks for.
    Unusable(Unusable),
}

fn call(
    p: &Provider,
    prompt: &Prompt,
    stage: Stage,
    attempt: u32,
    deadline: Instant,
    io_log: Option<&Path>,
    attempts: &mut Vec<Attempt>,
) -> Result<Answer, Failure> {
    let body = wire::request(p, prompt, stage);
    let started = Instant::now();
    let reply = http::post(&p.url(), &p.headers, &body, deadline);
    let latency_ms = started.elapsed().as_millis() as u64;
    let mut a = Attempt {
        stage,
        attempt,
        latency_ms,
        status: None,
        request_id: None,
        stop_reason: None,
        usage: wire::Usage::default(),
        answer: None,
        error: None,
    };
    let result = (|| {
        let reply = match reply {
            Ok(r) => r,
            Err(http::Transport::Timeout) => {
                return Err(Failure::Transport(format!(
                    "the classifier did not answer within {} ms",
                    p.timeout.as_millis()
                )));
            }
            Err(http::Transport::Failed(why)) => {
                return Err(Failure::Transport(format!(
                    "the classifier request failed: {why}"
                )));
            }
        };
        a.status = Some(reply.status);
        a.request_id.clone_from(&reply.request_id);
        log_io(io_log, p, stage, attempt, &body, Some(&reply));
        if reply.status != 200 {
            let snippet: String = reply.body.chars().take(300).collect();
            return Err(Failure::Transport(format!(
                "the classifier answered HTTP {}: {}",
                reply.status,
                redact::redact(snippet.trim())
            )));
        }
        let value: Value = serde_json::from_str(reply.body.trim()).map_err(|e| {
            Failure::Transport(format!("the classifier's response is not JSON ({e})"))
        })?;
        a.usage = wire::usage(p.format, &value);
        a.stop_reason = wire::stop_reason(p.format, &value);
        wire::parse(p.format, stage, &value).map_err(Failure::Unusable)
    })();
    match &result {
        Ok(Answer::Review(r)) => a.answer = Some(if *r { "1" } else { "0" }.into()),
        Ok(Answer::Decision(d)) => {
            a.answer = Some(format!(
                "{}/{}",
                if d.allow { "allow" } else { "block" },
                d.tier
            ))
        }
        Err(Failure::Transport(w)) => a.error = Some(w.clone()),
        Err(Failure::Unusable(u)) => a.error = Some(u.to_string()),
    }
    if a.status.is_none() {
        log_io(io_log, p, stage, attempt, &body, None);
    }
    attempts.push(a);
    result
}

/// With `autoMode.log.classifierIo`: each request and raw response, keys
/// redacted (the prompt already is).
fn log_io(
    path: Option<&Path>,
    p: &Provider,
    stage: Stage,
    attempt: u32,
    body: &Value,
    reply: Option<&http::Reply>,
) {
    let Some(path) = path else { return };
    let headers: Vec<(String, String)> = p
        .headers
        .iter()
        .map(|(k, v)| {
            let secret = k.eq_ignore_ascii_case("authorization")
                || k.eq_ignore_ascii_case("x-api-key")
                || k.to_ascii_lowercase().contains("key")
                || k.to_ascii_lowercase().contains("token");
            (
                k.clone(),
                if secret {
                    redact::MARK.to_string()
                } else {
                    v.clone()
                },
            )
        })
        .collect();
    let line = serde_json::json!({
        "at": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        "stage": stage,
        "attempt": attempt,
        "url": p.url(),
        "headers": headers,
        "request": body,
        "status": reply.map(|r| r.status),
        "response": reply.map(|r| redact::redact(&r.body)),
    });
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}
