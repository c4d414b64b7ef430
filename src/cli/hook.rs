//! Claude Code hook mode (`automode hook claude-code`): the JSON Claude
//! Code writes to a hook's stdin, the same judge as the shim, and the
//! JSON decision it reads back.
//! Claude Code treats a hook's crash, timeout or any exit code but 2 as a
//! non-blocking error (the tool runs), so every failure here must become
//! exit 2 with the reason on stderr.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::context::Context;
use crate::exit::Exit;
use crate::judge::{self, Judge, Origin, Switches};
use crate::policy::{Decision, Verdict};
use crate::{report, shell};

/// What the hook was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Request {
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
pub(super) fn parse(input: &str) -> Result<Request, String> {
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
pub(super) fn answer(v: &Verdict, blocked_text: &str) -> Value {
    let (decision, reason) = match v.decision {
        Decision::Allow => (
            "allow",
            format!("automode: {} ({} tier)", v.reason, v.tier.as_str()),
        ),
        // Claude Code shows the reason to the model after its own words
        // ("PreToolUse:Bash hook error: …"): say who blocked it.
        Decision::Ask => ("ask", format!("{}{blocked_text}", report::PREFIX)),
        Decision::Deny | Decision::Classify => {
            ("deny", format!("{}{blocked_text}", report::PREFIX))
        }
    };
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    })
}

/// Hook mode decides within this, before Claude Code's 60 s hook timeout.
const HOOK_DEADLINE: std::time::Duration = std::time::Duration::from_secs(55);

/// `automode hook claude-code`: decide on Claude Code's PreToolUse JSON
/// with the same engine as the shim, or record the user's prompt. Every
/// failure exits 2 (the only exit Claude Code treats as "block").
pub(super) fn run(ctx: &Context, harness: &str) -> Exit {
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
    let request = match parse(&input) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let (command, cwd, session, transcript) = match request {
        Request::Other => return Exit::Child(0),
        Request::Prompt { prompt, session } => {
            // Remember the user's words for the classifier.
            let cwd = ctx
                .cwd()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("/"));
            if let Ok(mut env) = Judge::load(ctx, &cwd, Switches::SessionAndGlobal) {
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
        Request::Bash {
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
    let mut judge = match Judge::load(ctx, &cwd, Switches::SessionAndGlobal) {
        Ok(j) => j,
        Err(e) => return fail(&format!("automode's configuration is invalid: {e}")),
    };
    if let Some(s) = session {
        judge.set_session(&format!("claude-code-{s}"));
    }
    judge.transcript = transcript.map(PathBuf::from).filter(|p| p.is_absolute());
    let request = judge::Request {
        origin: Origin::Hook,
        script: &command,
        cwd: &cwd,
        positional: shell::Positional {
            dollar0: "bash".into(),
            args: Vec::new(),
        },
        max_bytes: shell::MAX_COMMAND_BYTES,
        dialect: shell::Dialect::Bash,
        trust_env: true,
        terminal: false,
        undecodable: None,
    };
    // The checkpoint before Claude Code runs it.
    let decided = judge.judge(ctx, &request);
    let decided = judge.with_checkpoint(ctx, decided, &request);
    // Hook mode runs nothing: Claude Code runs what is allowed, so the
    // decision is the invocation's one record.
    judge.recorder(ctx, &cwd).no_run(&decided);
    let text = report::blocked_text(&decided.verdict);
    println!("{}", answer(&decided.verdict, &text));
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
