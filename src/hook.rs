//! Claude Code hook mode (`automode hook claude-code`): the JSON Claude
//! Code writes to a hook's stdin, and the JSON decision it reads back.
//! Pure: `app` reads stdin, decides with the same engine, and prints.
//! Claude Code treats a hook's crash, timeout or any exit code but 2 as a
//! non-blocking error (the tool runs), so every failure here must become
//! exit 2 with the reason on stderr.

use serde_json::{Value, json};

use crate::policy::{Decision, Verdict};

/// What the hook was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// A Bash tool call about to run.
    Bash {
        command: String,
        cwd: Option<String>,
        session: Option<String>,
        transcript: Option<String>,
    },
    /// The user's prompt (recorded for the classifier).
    Prompt {
        prompt: String,
        session: Option<String>,
    },
    /// Another tool or event: no opinion.
    Other,
}

/// Parse the hook input.
pub fn parse(input: &str) -> Result<Request, String> {
    let v: Value =
        serde_json::from_str(input).map_err(|e| format!("the hook input is not JSON: {e}"))?;
    if !v.is_object() {
        return Err("the hook input is not a JSON object".into());
    }
    let s = |k: &str| v[k].as_str().map(str::to_string);
    match v["hook_event_name"].as_str() {
        Some("PreToolUse") if v["tool_name"].as_str() == Some("Bash") => {
            let command = v["tool_input"]["command"]
                .as_str()
                .ok_or("PreToolUse for Bash without tool_input.command")?
                .to_string();
            Ok(Request::Bash {
                command,
                cwd: s("cwd"),
                session: s("session_id"),
                transcript: s("transcript_path"),
            })
        }
        Some("UserPromptSubmit") => Ok(Request::Prompt {
            prompt: s("prompt").ok_or("UserPromptSubmit without prompt")?,
            session: s("session_id"),
        }),
        Some(_) => Ok(Request::Other),
        None => Err("the hook input has no hook_event_name".into()),
    }
}

/// The decision JSON for a verdict (`classify` never reaches here: the
/// classifier has answered, or failed, by then).
pub fn answer(v: &Verdict, blocked_text: &str) -> Value {
    let (decision, reason) = match v.decision {
        Decision::Allow => (
            "allow",
            format!("automode: {} ({} tier)", v.reason, v.tier.as_str()),
        ),
        Decision::Ask => ("ask", blocked_text.to_string()),
        Decision::Deny | Decision::Classify => ("deny", blocked_text.to_string()),
    };
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_claude_code_hook_input() {
        let input = r#"{"session_id":"s1","transcript_path":"/h/.claude/projects/x/s1.jsonl","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","description":"d"}}"#;
        assert_eq!(
            parse(input),
            Ok(Request::Bash {
                command: "ls".into(),
                cwd: Some("/p".into()),
                session: Some("s1".into()),
                transcript: Some("/h/.claude/projects/x/s1.jsonl".into()),
            })
        );
        let read = r#"{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}"#;
        assert_eq!(parse(read), Ok(Request::Other));
        assert!(parse("not json").is_err());
        assert!(
            parse(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}"#)
                .is_err()
        );
        let prompt =
            r#"{"hook_event_name":"UserPromptSubmit","prompt":"delete build/","session_id":"s1"}"#;
        assert_eq!(
            parse(prompt),
            Ok(Request::Prompt {
                prompt: "delete build/".into(),
                session: Some("s1".into())
            })
        );
    }
}
