//! The two wire formats: request bodies for the fast and detailed stages,
//! and strict parsing of the responses (classifier.md §1, §4.4). Nothing
//! here trusts a stop reason alone: visible text, tool calls and their
//! arguments are all checked.

use serde_json::{Value, json};

use super::prompt::{
    DETAIL_INSTRUCTION, DETAIL_MAX_TOKENS, FAST_INSTRUCTION, FAST_MAX_TOKENS, Prompt,
};
use super::provider::{Format, Provider, ToolChoice};

/// The stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Fast,
    Detail,
}

pub const TOOL_NAME: &str = "classifier_decision";
const TOOL_DESCRIPTION: &str = "Record the verdict for the shell action under review.";

/// The tool's parameter schema (strict: every key required, no others).
pub fn tool_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "decision": {"type": "string", "enum": ["allow", "block"]},
            "tier": {"type": "string", "enum": ["hard_deny", "soft_deny", "allow", "explicit_intent", "none"]},
            "reason": {"type": "string"}
        },
        "required": ["decision", "tier", "reason"],
        "additionalProperties": false
    })
}

fn tool(format: Format) -> Value {
    match format {
        Format::OpenAi => json!({"type": "function", "function": {
            "name": TOOL_NAME, "description": TOOL_DESCRIPTION, "strict": true, "parameters": tool_schema()}}),
        Format::Anthropic => {
            json!({"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "strict": true, "input_schema": tool_schema()})
        }
    }
}

/// Merge `extra` (an object) into `body`, last wins.
fn merge(body: &mut Value, extra: Option<&Value>) {
    if let (Some(obj), Some(Value::Object(extra))) = (body.as_object_mut(), extra) {
        for (k, v) in extra {
            obj.insert(k.clone(), v.clone());
        }
    }
}

/// The request body of a stage.
pub fn request(p: &Provider, prompt: &Prompt, stage: Stage) -> Value {
    let (instruction, max_tokens) = match stage {
        Stage::Fast => (FAST_INSTRUCTION, FAST_MAX_TOKENS),
        Stage::Detail => (DETAIL_INSTRUCTION, DETAIL_MAX_TOKENS),
    };
    let with_tools = stage == Stage::Detail || p.tools_in_fast_stage;
    let mut body = match p.format {
        Format::OpenAi => {
            let mut b = json!({
                "model": p.model,
                "messages": [
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.context},
                    {"role": "user", "content": prompt.action},
                    {"role": "user", "content": instruction},
                ],
                "stream": false,
            });
            if let Some(o) = b.as_object_mut() {
                o.insert(p.max_tokens_field.clone(), json!(max_tokens));
                if p.name == "openai" {
                    o.insert("store".into(), json!(false));
                }
                if let Some(level) = &p.reasoning_level {
                    o.insert("reasoning_effort".into(), json!(level));
                }
                if with_tools {
                    o.insert("tools".into(), json!([tool(Format::OpenAi)]));
                    match stage {
                        Stage::Fast => {
                            if p.tool_choice != ToolChoice::Omitted {
                                o.insert("tool_choice".into(), json!("none"));
                            }
                        }
                        Stage::Detail => {
                            match p.tool_choice {
                                ToolChoice::Named => {
                                    o.insert("tool_choice".into(), json!({"type": "function", "function": {"name": TOOL_NAME}}));
                                }
                                ToolChoice::Required => {
                                    o.insert("tool_choice".into(), json!("required"));
                                }
                                ToolChoice::Omitted => {}
                            }
                            o.insert("parallel_tool_calls".into(), json!(false));
                        }
                    }
                }
            }
            b
        }
        Format::Anthropic => {
            let mut b = json!({
                "model": p.model,
                "max_tokens": max_tokens,
                "system": [
                    {"type": "text", "text": prompt.system},
                    {"type": "text", "text": prompt.context, "cache_control": {"type": "ephemeral"}},
                ],
                "messages": [{"role": "user", "content": [
                    {"type": "text", "text": prompt.action},
                    {"type": "text", "text": instruction},
                ]}],
            });
            if let Some(o) = b.as_object_mut()
                && with_tools
            {
                o.insert("tools".into(), json!([tool(Format::Anthropic)]));
                match stage {
                    Stage::Fast => {
                        o.insert("tool_choice".into(), json!({"type": "none"}));
                    }
                    // Never `thinking` here: forced tool use forbids it.
                    Stage::Detail => match p.tool_choice {
                        ToolChoice::Named => {
                            o.insert("tool_choice".into(), json!({"type": "tool", "name": TOOL_NAME, "disable_parallel_tool_use": true}));
                        }
                        ToolChoice::Required => {
                            o.insert(
                                "tool_choice".into(),
                                json!({"type": "any", "disable_parallel_tool_use": true}),
                            );
                        }
                        ToolChoice::Omitted => {}
                    },
                }
            }
            b
        }
    };
    merge(
        &mut body,
        match stage {
            Stage::Fast => p.extra_body_fast.as_ref(),
            Stage::Detail => p.extra_body_detail.as_ref(),
        },
    );
    body
}

/// The detailed stage's verdict.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Decision {
    pub allow: bool,
    pub tier: String,
    pub reason: String,
}

/// What a stage answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Fast stage: `true` = `1`, review.
    Review(bool),
    Decision(Decision),
}

/// Why a response cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// Cut off by the token limit.
    Truncated(String),
    /// Anything else that is not exactly what the stage asks for.
    Invalid(String),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::Truncated(w) => write!(f, "truncated: {w}"),
            Unusable::Invalid(w) => write!(f, "invalid: {w}"),
        }
    }
}

fn invalid(why: impl Into<String>) -> Unusable {
    Unusable::Invalid(why.into())
}

/// Token usage, for the audit log.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    pub input: u64,
    pub cached: u64,
    pub output: u64,
    pub reasoning: u64,
}

pub fn usage(format: Format, body: &Value) -> Usage {
    let u = &body["usage"];
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    match format {
        Format::OpenAi => Usage {
            input: n(&u["prompt_tokens"]),
            cached: n(&u["prompt_tokens_details"]["cached_tokens"])
                .max(n(&u["prompt_cache_hit_tokens"])),
            output: n(&u["completion_tokens"]),
            reasoning: n(&u["completion_tokens_details"]["reasoning_tokens"]),
        },
        Format::Anthropic => Usage {
            input: n(&u["input_tokens"])
                + n(&u["cache_creation_input_tokens"])
                + n(&u["cache_read_input_tokens"]),
            cached: n(&u["cache_read_input_tokens"]),
            output: n(&u["output_tokens"]),
            reasoning: 0,
        },
    }
}

/// The stop reason, for the audit log.
pub fn stop_reason(format: Format, body: &Value) -> Option<String> {
    match format {
        Format::OpenAi => body["choices"][0]["finish_reason"]
            .as_str()
            .map(str::to_string),
        Format::Anthropic => body["stop_reason"].as_str().map(str::to_string),
    }
}

/// Parse a stage's response body.
pub fn parse(format: Format, stage: Stage, body: &Value) -> Result<Answer, Unusable> {
    if !body.is_object() {
        return Err(invalid("the body is not a JSON object"));
    }
    if body.get("error").is_some_and(|e| !e.is_null()) {
        return Err(invalid(format!(
            "the body is an error: {}",
            short(&body["error"].to_string())
        )));
    }
    match format {
        Format::OpenAi => parse_openai(stage, body),
        Format::Anthropic => parse_anthropic(stage, body),
    }
}

fn short(s: &str) -> String {
    let t: String = s.chars().take(200).collect();
    if t.len() < s.len() {
        format!("{t}…")
    } else {
        t
    }
}

/// Text content: a string or an array of text parts.
fn openai_text(content: &Value) -> Result<String, Unusable> {
    match content {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        Value::Array(parts) => {
            let mut out = String::new();
            for part in parts {
                match part["type"].as_str() {
                    Some("text" | "output_text") => {
                        out.push_str(part["text"].as_str().unwrap_or(""))
                    }
                    Some("refusal") => return Err(invalid("the model refused")),
                    _ => return Err(invalid("content part of unknown type")),
                }
            }
            Ok(out)
        }
        _ => Err(invalid("content is neither text nor parts")),
    }
}

fn fast_digit(text: &str) -> Result<Answer, Unusable> {
    match text.trim_matches(|c: char| c.is_ascii_whitespace()) {
        "0" => Ok(Answer::Review(false)),
        "1" => Ok(Answer::Review(true)),
        "" => Err(invalid("empty answer")),
        other => Err(invalid(format!(
            "answer {:?} is not exactly 0 or 1",
            short(other)
        ))),
    }
}

fn parse_openai(stage: Stage, body: &Value) -> Result<Answer, Unusable> {
    let Some(choice) = body["choices"].as_array().and_then(|c| c.first()) else {
        return Err(invalid("no choices"));
    };
    let finish = choice["finish_reason"].as_str().unwrap_or("");
    let message = &choice["message"];
    if !message["refusal"].is_null() && message["refusal"].as_str().is_some_and(|r| !r.is_empty()) {
        return Err(invalid("the model refused"));
    }
    let text = openai_text(&message["content"])?;
    let calls = message["tool_calls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if finish == "length" {
        return Err(Unusable::Truncated("finish_reason length".into()));
    }
    match stage {
        Stage::Fast => {
            if finish != "stop" {
                return Err(invalid(format!("finish_reason {finish:?}, not stop")));
            }
            if !calls.is_empty() {
                return Err(invalid("a tool call in the fast stage"));
            }
            fast_digit(&text)
        }
        Stage::Detail => {
            if finish != "tool_calls" && finish != "stop" {
                return Err(invalid(format!("finish_reason {finish:?}")));
            }
            if !text.trim().is_empty() {
                return Err(invalid(format!(
                    "visible text beside the tool call: {:?}",
                    short(text.trim())
                )));
            }
            let [call] = calls.as_slice() else {
                return Err(invalid(format!(
                    "{} tool calls, not exactly one",
                    calls.len()
                )));
            };
            if call["function"]["name"].as_str() != Some(super::wire::TOOL_NAME) {
                return Err(invalid("the tool call is not classifier_decision"));
            }
            let args = match &call["function"]["arguments"] {
                Value::String(s) => serde_json::from_str::<Value>(s)
                    .map_err(|e| invalid(format!("arguments are not JSON: {e}")))?,
                v @ Value::Object(_) => v.clone(),
                _ => return Err(invalid("arguments missing")),
            };
            validate(&args).map(Answer::Decision)
        }
    }
}

fn parse_anthropic(stage: Stage, body: &Value) -> Result<Answer, Unusable> {
    if body["type"].as_str() != Some("message") {
        return Err(invalid("type is not message"));
    }
    let stop = body["stop_reason"].as_str().unwrap_or("");
    if stop == "max_tokens" {
        return Err(Unusable::Truncated("stop_reason max_tokens".into()));
    }
    let blocks = body["content"].as_array().cloned().unwrap_or_default();
    let mut text = String::new();
    let mut uses = Vec::new();
    for b in &blocks {
        match b["type"].as_str() {
            Some("text") => text.push_str(b["text"].as_str().unwrap_or("")),
            Some("tool_use") => uses.push(b.clone()),
            Some("thinking" | "redacted_thinking") => {}
            _ => return Err(invalid("content block of unknown type")),
        }
    }
    match stage {
        Stage::Fast => {
            if stop != "end_turn" {
                return Err(invalid(format!("stop_reason {stop:?}, not end_turn")));
            }
            if !uses.is_empty() {
                return Err(invalid("a tool call in the fast stage"));
            }
            fast_digit(&text)
        }
        Stage::Detail => {
            if stop != "tool_use" {
                return Err(invalid(format!("stop_reason {stop:?}, not tool_use")));
            }
            if !text.trim().is_empty() {
                return Err(invalid(format!(
                    "visible text beside the tool call: {:?}",
                    short(text.trim())
                )));
            }
            let [call] = uses.as_slice() else {
                return Err(invalid(format!(
                    "{} tool calls, not exactly one",
                    uses.len()
                )));
            };
            if call["name"].as_str() != Some(TOOL_NAME) {
                return Err(invalid("the tool call is not classifier_decision"));
            }
            validate(&call["input"]).map(Answer::Decision)
        }
    }
}

/// Exactly `decision`, `tier`, `reason`; known values; decision and tier
/// agree; a non-empty reason.
pub fn validate(args: &Value) -> Result<Decision, Unusable> {
    let Some(obj) = args.as_object() else {
        return Err(invalid("arguments are not an object"));
    };
    if obj.len() != 3
        || !["decision", "tier", "reason"]
            .iter()
            .all(|k| obj.contains_key(*k))
    {
        let keys: Vec<&String> = obj.keys().collect();
        return Err(invalid(format!(
            "arguments must be exactly decision, tier, reason; got {keys:?}"
        )));
    }
    let decision = obj["decision"]
        .as_str()
        .ok_or_else(|| invalid("decision is not a string"))?;
    let tier = obj["tier"]
        .as_str()
        .ok_or_else(|| invalid("tier is not a string"))?;
    let reason = obj["reason"]
        .as_str()
        .ok_or_else(|| invalid("reason is not a string"))?;
    let allow = match decision {
        "allow" => true,
        "block" => false,
        other => return Err(invalid(format!("decision {other:?}"))),
    };
    let agree = match (allow, tier) {
        (true, "allow" | "explicit_intent" | "none")
        | (false, "hard_deny" | "soft_deny" | "none") => true,
        (_, "hard_deny" | "soft_deny" | "allow" | "explicit_intent") => false,
        (_, other) => return Err(invalid(format!("tier {other:?}"))),
    };
    if !agree {
        return Err(invalid(format!(
            "decision {decision} contradicts tier {tier}"
        )));
    }
    if reason.trim().is_empty() {
        return Err(invalid("empty reason"));
    }
    Ok(Decision {
        allow,
        tier: tier.to_string(),
        reason: short(reason.trim()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oa(finish: &str, content: Value, calls: Value) -> Value {
        json!({"choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content, "refusal": null, "tool_calls": calls}}]})
    }

    fn call(args: &str) -> Value {
        json!([{"id": "c", "type": "function", "function": {"name": TOOL_NAME, "arguments": args}}])
    }

    #[test]
    fn fast_stage_accepts_only_a_bare_digit_with_stop() {
        assert_eq!(
            parse(
                Format::OpenAi,
                Stage::Fast,
                &oa("stop", json!(" 0\n"), Value::Null)
            ),
            Ok(Answer::Review(false))
        );
        assert_eq!(
            parse(
                Format::OpenAi,
                Stage::Fast,
                &oa("stop", json!("1"), Value::Null)
            ),
            Ok(Answer::Review(true))
        );
        for bad in [
            oa("stop", json!("0."), Value::Null),
            oa("stop", json!(""), Value::Null),
            oa("stop", json!("<think>x</think>0"), Value::Null),
            oa("tool_calls", json!("0"), Value::Null),
            oa("stop", json!("0"), call("{}")),
        ] {
            assert!(
                matches!(
                    parse(Format::OpenAi, Stage::Fast, &bad),
                    Err(Unusable::Invalid(_))
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            parse(
                Format::OpenAi,
                Stage::Fast,
                &oa("length", json!("I think"), Value::Null)
            ),
            Err(Unusable::Truncated(_))
        ));
        let anth = json!({"type": "message", "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "1"}], "stop_reason": "end_turn"});
        assert_eq!(
            parse(Format::Anthropic, Stage::Fast, &anth),
            Ok(Answer::Review(true))
        );
        let refusal = json!({"type": "message", "content": [{"type": "text", "text": "0"}], "stop_reason": "refusal"});
        assert!(parse(Format::Anthropic, Stage::Fast, &refusal).is_err());
    }

    #[test]
    fn detail_stage_wants_exactly_one_valid_call() {
        let ok = r#"{"decision":"block","tier":"soft_deny","reason":"force push"}"#;
        for finish in ["stop", "tool_calls"] {
            assert!(matches!(
                parse(
                    Format::OpenAi,
                    Stage::Detail,
                    &oa(finish, Value::Null, call(ok))
                ),
                Ok(Answer::Decision(Decision { allow: false, .. }))
            ));
        }
        let two = json!([call(ok)[0], call(ok)[0]]);
        for bad in [
            oa("stop", json!("here you go"), call(ok)),
            oa("stop", Value::Null, two),
            oa("stop", json!("I would allow it"), Value::Null),
            oa(
                "stop",
                Value::Null,
                call(r#"{"decision":"allow","tier":"hard_deny","reason":"x"}"#),
            ),
            oa(
                "stop",
                Value::Null,
                call(r#"{"decision":"maybe","tier":"none","reason":"x"}"#),
            ),
            oa(
                "stop",
                Value::Null,
                call(r#"{"decision":"allow","tier":"none","reason":"  "}"#),
            ),
            oa(
                "stop",
                Value::Null,
                call(r#"{"decision":"allow","tier":"none","reason":"x","extra":1}"#),
            ),
            oa("stop", Value::Null, call(r#"{"decision":"allow","tier":"#)),
        ] {
            assert!(parse(Format::OpenAi, Stage::Detail, &bad).is_err(), "{bad}");
        }
        let anth = json!({"type": "message", "stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "t", "name": TOOL_NAME, "input": {"decision": "allow", "tier": "explicit_intent", "reason": "asked"}}]});
        assert!(matches!(
            parse(Format::Anthropic, Stage::Detail, &anth),
            Ok(Answer::Decision(Decision { allow: true, .. }))
        ));
        let cut = json!({"type": "message", "stop_reason": "max_tokens", "content": []});
        assert!(matches!(
            parse(Format::Anthropic, Stage::Detail, &cut),
            Err(Unusable::Truncated(_))
        ));
    }
}
