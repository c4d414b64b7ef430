//! The classifier through the real binary against a scripted loopback
//! model server: both wire formats, every stage outcome of
//! classifier.md §4.6, failures and their counting, the prompt's prefix,
//! transcript, redaction, size check, logging, workspace identity.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::llm::{ALLOW, BLOCK, MockLlm, Reply, an_call, an_text, oa_call, oa_text};
use crate::support::{Env, run};

const BLOCKED: i32 = 121;
/// Sent to review by the local tiers (prints the environment), harmless
/// to run: it writes `printed.txt` in the work dir when allowed.
const REVIEWED: &str = "printenv > printed.txt";

pub fn settings(mock: &MockLlm, format: &str, extra: Value) -> String {
    let base = if format == "openai" {
        format!("{}/v1", mock.url)
    } else {
        mock.url.clone()
    };
    let mut provider = json!({"format": format, "baseUrl": base, "apiKeyEnv": "MOCK_KEY", "contextWindow": 100000});
    if let (Some(p), Value::Object(e)) = (provider.as_object_mut(), extra) {
        p.extend(e);
    }
    json!({"autoMode": {"classifierModel": "mock/test-model", "classifierTimeoutMs": 3000, "providers": {"mock": provider}}}).to_string()
}

fn env_for(mock: &MockLlm, format: &str) -> Env {
    Env::new()
        .with_env("AUTOMODE_SETTINGS_JSON", &settings(mock, format, json!({})))
        .with_env("MOCK_KEY", "sk-mock-0123456789abcdefghij")
        .with_env("AUTOMODE_SESSION", "classifier-test")
}

fn ran(env: &Env) -> bool {
    env.work.join("printed.txt").exists()
}

#[test]
fn fast_zero_allows_and_the_command_runs() {
    for format in ["openai", "anthropic"] {
        let reply = if format == "openai" {
            oa_text("0", "stop")
        } else {
            an_text("0", "end_turn")
        };
        let mock = MockLlm::start(vec![reply]);
        let env = env_for(&mock, format);
        let r = run(&mut env.script(REVIEWED));
        assert_eq!(r.code(), Some(0), "{format}: {}", r.stderr());
        assert!(ran(&env));
        assert_eq!(mock.requests().len(), 1);
    }
}

#[test]
fn review_then_a_decision_call_decides() {
    let cases: Vec<(&str, Vec<Reply>, bool)> = vec![
        (
            "openai",
            vec![oa_text("1", "stop"), oa_call(ALLOW, "stop")],
            true,
        ),
        (
            "openai",
            vec![oa_text("1", "stop"), oa_call(ALLOW, "tool_calls")],
            true,
        ),
        (
            "openai",
            vec![oa_text("1", "stop"), oa_call(BLOCK, "tool_calls")],
            false,
        ),
        (
            "anthropic",
            vec![
                an_text("1", "end_turn"),
                an_call(serde_json::from_str(ALLOW).unwrap()),
            ],
            true,
        ),
        (
            "anthropic",
            vec![
                an_text("1", "end_turn"),
                an_call(serde_json::from_str(BLOCK).unwrap()),
            ],
            false,
        ),
    ];
    for (format, script, allowed) in cases {
        let mock = MockLlm::start(script);
        let env = env_for(&mock, format);
        let r = run(&mut env.script(REVIEWED));
        assert_eq!(ran(&env), allowed, "{format}: {}", r.stderr());
        if allowed {
            assert_eq!(r.code(), Some(0), "{}", r.stderr());
        } else {
            assert_eq!(r.code(), Some(BLOCKED));
            assert!(
                r.stderr()
                    .contains("the classifier blocked it: not requested by the user"),
                "{}",
                r.stderr()
            );
            assert!(
                r.stderr().contains("classifier:soft_deny"),
                "{}",
                r.stderr()
            );
        }
        assert_eq!(mock.requests().len(), 2);
    }
}

#[test]
fn truncation_then_success_retries_once() {
    let mock = MockLlm::start(vec![
        oa_text("1", "stop"),
        oa_call(r#"{"decision":"allow","#, "length"),
        oa_call(ALLOW, "stop"),
    ]);
    let env = env_for(&mock, "openai");
    let r = run(&mut env.script(REVIEWED));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 3);
    // The retry is the same request.
    assert_eq!(reqs[1].body, reqs[2].body);
}

#[test]
fn unusable_answers_fail_closed() {
    let two_calls = Reply::json(
        json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"content": null, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "classifier_decision", "arguments": ALLOW}},
        {"id": "b", "type": "function", "function": {"name": "classifier_decision", "arguments": ALLOW}}]}}]}),
    );
    let two_calls_again = Reply::json(
        json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"content": null, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "classifier_decision", "arguments": ALLOW}},
        {"id": "b", "type": "function", "function": {"name": "classifier_decision", "arguments": ALLOW}}]}}]}),
    );
    let refusal = Reply::json(
        json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"content": null, "refusal": "I can't help with that"}}]}),
    );
    let cases: Vec<(&str, Vec<Reply>, &str)> = vec![
        ("fast prose", vec![oa_text("Sure! 0", "stop")], "unusable"),
        ("fast empty", vec![oa_text("", "stop")], "unusable"),
        (
            "fast truncated",
            vec![oa_text("Let me think", "length")],
            "unusable",
        ),
        ("fast refusal", vec![refusal], "unusable"),
        (
            "fast tool call",
            vec![oa_call(ALLOW, "tool_calls")],
            "unusable",
        ),
        (
            "invalid twice",
            vec![
                oa_text("1", "stop"),
                oa_text("I would allow this.", "stop"),
                oa_text("Allowed.", "stop"),
            ],
            "did not contain a valid classifier decision",
        ),
        (
            "bad enum",
            vec![
                oa_text("1", "stop"),
                oa_call(r#"{"decision":"yes","tier":"none","reason":"x"}"#, "stop"),
                oa_call(r#"{"decision":"yes","tier":"none","reason":"x"}"#, "stop"),
            ],
            "did not contain",
        ),
        (
            "blank reason",
            vec![
                oa_text("1", "stop"),
                oa_call(r#"{"decision":"allow","tier":"none","reason":" "}"#, "stop"),
                oa_call(r#"{"decision":"allow","tier":"none","reason":""}"#, "stop"),
            ],
            "did not contain",
        ),
        (
            "extra key",
            vec![
                oa_text("1", "stop"),
                oa_call(
                    r#"{"decision":"allow","tier":"none","reason":"x","also":1}"#,
                    "stop",
                ),
                oa_call(
                    r#"{"decision":"allow","tier":"none","reason":"x","also":1}"#,
                    "stop",
                ),
            ],
            "did not contain",
        ),
        (
            "contradiction",
            vec![
                oa_text("1", "stop"),
                oa_call(
                    r#"{"decision":"allow","tier":"hard_deny","reason":"x"}"#,
                    "stop",
                ),
                oa_call(
                    r#"{"decision":"allow","tier":"soft_deny","reason":"x"}"#,
                    "stop",
                ),
            ],
            "did not contain",
        ),
        (
            "malformed arguments",
            vec![
                oa_text("1", "stop"),
                oa_call("{not json", "stop"),
                oa_call("{not json", "stop"),
            ],
            "did not contain",
        ),
        (
            "two calls",
            vec![oa_text("1", "stop"), two_calls, two_calls_again],
            "did not contain",
        ),
        (
            "HTTP 429",
            vec![Reply::status(
                429,
                r#"{"error":{"message":"rate limited"}}"#,
            )],
            "HTTP 429",
        ),
        (
            "HTTP 500",
            vec![oa_text("1", "stop"), Reply::status(500, "oops")],
            "HTTP 500",
        ),
        (
            "not JSON",
            vec![Reply::status(200, "<html>gateway</html>")],
            "not JSON",
        ),
        (
            "error body",
            vec![Reply::status(200, r#"{"error":{"message":"no provider"}}"#)],
            "unusable",
        ),
    ];
    for (name, script, message) in cases {
        let mock = MockLlm::start(script);
        let env = env_for(&mock, "openai");
        let r = run(&mut env.script(REVIEWED));
        assert_eq!(r.code(), Some(BLOCKED), "{name}: {}", r.stderr());
        assert!(!ran(&env), "{name} ran");
        assert!(r.stderr().contains(message), "{name}: {}", r.stderr());
        assert!(
            r.stderr().contains("classifier failure, not a judgement"),
            "{name}: {}",
            r.stderr()
        );
    }
    // Anthropic stop reasons.
    for (name, script) in [
        (
            "max_tokens",
            vec![
                an_text("1", "end_turn"),
                an_text("", "max_tokens"),
                an_text("", "max_tokens"),
            ],
        ),
        ("refusal", vec![an_text("0", "refusal")]),
    ] {
        let mock = MockLlm::start(script);
        let env = env_for(&mock, "anthropic");
        let r = run(&mut env.script(REVIEWED));
        assert_eq!(r.code(), Some(BLOCKED), "{name}: {}", r.stderr());
        assert!(!ran(&env));
    }
}

#[test]
fn timeouts_and_refused_connections_fail_closed() {
    let mock = MockLlm::start(vec![oa_text("0", "stop").delayed(Duration::from_secs(5))]);
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            &settings(&mock, "openai", json!({})).replace("3000", "400"),
        )
        .with_env("MOCK_KEY", "k");
    let r = run(&mut env.script(REVIEWED));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains("did not answer within 400 ms"),
        "{}",
        r.stderr()
    );
    assert!(r.secs() < 3.0, "{}", r.secs());
    // Nothing listens on this port.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let cfg = json!({"autoMode": {"classifierModel": "mock/m", "providers": {"mock": {"format": "openai", "baseUrl": url, "requiresKey": false}}}}).to_string();
    let env = Env::new().with_env("AUTOMODE_SETTINGS_JSON", &cfg);
    let r = run(&mut env.script(REVIEWED));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(
        r.stderr().contains("classifier request failed"),
        "{}",
        r.stderr()
    );
}

#[test]
fn no_model_or_no_key_fails_closed() {
    let env = Env::new();
    let r = run(&mut env.script(REVIEWED));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(
        r.stderr().contains("no classifier is configured"),
        "{}",
        r.stderr()
    );
    let env = Env::new().with_env(
        "AUTOMODE_SETTINGS_JSON",
        r#"{"autoMode": {"classifierModel": "openai/gpt-5-mini"}}"#,
    );
    let r = run(&mut env.script(REVIEWED));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(
        r.stderr().contains("$OPENAI_API_KEY is not set"),
        "{}",
        r.stderr()
    );
}

#[test]
fn third_consecutive_failure_asks_and_a_success_resets() {
    let mock = MockLlm::start(vec![
        Reply::status(500, "x"),
        Reply::status(500, "x"),
        Reply::status(500, "x"),
        oa_text("0", "stop"),
        Reply::status(500, "x"),
    ]);
    let env = env_for(&mock, "openai");
    for (i, want) in [
        "classifier failure",
        "classifier failure",
        "the user must decide",
        "",
        "classifier failure",
    ]
    .iter()
    .enumerate()
    {
        let r = run(&mut env.script(REVIEWED));
        if want.is_empty() {
            assert_eq!(r.code(), Some(0), "{i}: {}", r.stderr());
        } else {
            assert_eq!(r.code(), Some(BLOCKED));
            assert!(r.stderr().contains(want), "{i}: {}", r.stderr());
        }
    }
    let r = run(env.automode().args(["status", "--json"]));
    let s: Value = serde_json::from_str(&r.stdout()).unwrap();
    let session = &s["sessions"][0];
    assert_eq!(session["classifier_failures"], 4);
    assert_eq!(session["consecutive_classifier_failures"], 1);
    assert_eq!(session["denied"], 0, "failures are not denials: {session}");
}

#[test]
fn requests_carry_auth_and_an_identical_cacheable_prefix() {
    let mock = MockLlm::start(vec![
        oa_text("1", "stop"),
        oa_call(ALLOW, "stop"),
        oa_text("0", "stop"),
    ]);
    let env = env_for(&mock, "openai");
    assert_eq!(run(&mut env.script(REVIEWED)).code(), Some(0));
    assert_eq!(run(&mut env.script("printenv > other.txt")).code(), Some(0));
    let reqs = mock.requests();
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(
        reqs[0].header("authorization"),
        Some("Bearer sk-mock-0123456789abcdefghij")
    );
    let prefix =
        |r: &crate::support::llm::Received| r.body["messages"].as_array().unwrap()[..2].to_vec();
    // Same system + context across stages and across commands.
    assert_eq!(prefix(&reqs[0]), prefix(&reqs[1]));
    assert_eq!(prefix(&reqs[0]), prefix(&reqs[2]));
    // The action message is the same in both stages; only the
    // instruction differs.
    assert_eq!(reqs[0].body["messages"][2], reqs[1].body["messages"][2]);
    assert_ne!(reqs[0].body["messages"][3], reqs[1].body["messages"][3]);
    assert_eq!(
        reqs[1].body["tool_choice"]["function"]["name"],
        "classifier_decision"
    );
    assert_eq!(reqs[1].body["tools"][0]["function"]["strict"], true);
    assert_eq!(reqs[0].body["model"], "test-model");
    let action: Value =
        serde_json::from_str(reqs[0].body["messages"][2]["content"].as_str().unwrap()).unwrap();
    assert_eq!(action["command"], REVIEWED);

    let mock = MockLlm::start(vec![
        an_text("1", "end_turn"),
        an_call(serde_json::from_str(ALLOW).unwrap()),
    ]);
    let env = env_for(&mock, "anthropic");
    assert_eq!(run(&mut env.script(REVIEWED)).code(), Some(0));
    let reqs = mock.requests();
    assert_eq!(reqs[0].path, "/v1/messages");
    assert_eq!(
        reqs[0].header("x-api-key"),
        Some("sk-mock-0123456789abcdefghij")
    );
    assert_eq!(reqs[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(reqs[0].body["system"], reqs[1].body["system"]);
    assert_eq!(
        reqs[0].body["system"][1]["cache_control"]["type"],
        "ephemeral"
    );
    assert_eq!(
        reqs[1].body["tool_choice"],
        json!({"type": "tool", "name": "classifier_decision", "disable_parallel_tool_use": true})
    );
    assert!(reqs[1].body.get("thinking").is_none());
}

#[test]
fn the_prompt_has_the_users_words_and_no_secrets() {
    let mock = MockLlm::start(vec![oa_text("0", "stop")]);
    let env = env_for(&mock, "openai");
    let transcript = env.root().join("session.jsonl");
    std::fs::write(
        &transcript,
        [
            json!({"type": "user", "message": {"role": "user", "content": "Please print the environment into printed.txt"}}),
            json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "AGENT PROSE"}, {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}}]}}),
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "TOOL OUTPUT"}]}}),
        ]
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n"),
    )
    .unwrap();
    std::fs::write(env.work.join("AGENTS.md"), "Project rules: be careful.\n").unwrap();
    let mut cmd = env.script("API_TOKEN=sk-proj-SECRETSECRET0123456789 printenv > printed.txt");
    cmd.env("AUTOMODE_TRANSCRIPT", &transcript);
    let r = run(&mut cmd);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let body = mock.requests()[0].body.to_string();
    assert!(body.contains("Please print the environment into printed.txt"));
    assert!(body.contains("[agent tool call] Bash"));
    assert!(body.contains("Project rules: be careful."));
    assert!(!body.contains("AGENT PROSE") && !body.contains("TOOL OUTPUT"));
    assert!(!body.contains("SECRETSECRET"), "{body}");
}

#[test]
fn too_large_for_the_context_window_blocks() {
    let mock = MockLlm::start(vec![oa_text("0", "stop")]);
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            &settings(&mock, "openai", json!({"contextWindow": 5000})),
        )
        .with_env("MOCK_KEY", "k");
    let r = run(&mut env.script(REVIEWED));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(r.stderr().contains("context window"), "{}", r.stderr());
    assert!(mock.requests().is_empty());
}

#[test]
fn io_log_and_audit_record_the_stages() {
    let mock = MockLlm::start(vec![oa_text("1", "stop"), oa_call(ALLOW, "stop")]);
    let s = settings(&mock, "openai", json!({})).replace(
        r#""classifierTimeoutMs":3000"#,
        r#""classifierTimeoutMs":3000,"log":{"classifierIo":true}"#,
    );
    let env = Env::new()
        .with_env("AUTOMODE_SETTINGS_JSON", &s)
        .with_env("MOCK_KEY", "sk-mock-0123456789abcdefghij");
    assert_eq!(run(&mut env.script(REVIEWED)).code(), Some(0));
    let io =
        std::fs::read_to_string(env.root().join("state/automode/classifier-io.jsonl")).unwrap();
    assert_eq!(io.lines().count(), 2);
    assert!(
        !io.contains("sk-mock-0123456789abcdefghij"),
        "the key leaked into the log"
    );
    let r = run(env.automode().args(["log", "--json", "-n", "1"]));
    let line: Value = serde_json::from_str(r.stdout().trim()).unwrap();
    let stages = line["classifier"]["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 2);
    assert_eq!(stages[0]["answer"], "1");
    assert_eq!(stages[0]["usage"]["cached"], 1024);
    assert_eq!(stages[1]["answer"], "allow/explicit_intent");
    assert_eq!(line["rule"], "classifier:explicit_intent");
}

#[test]
fn a_working_directory_swapped_during_review_is_refused() {
    let env_dir = std::sync::Arc::new(std::sync::Mutex::new(None::<std::path::PathBuf>));
    let slot = env_dir.clone();
    let mock = MockLlm::start(vec![oa_text("0", "stop").before(move || {
        if let Some(work) = slot.lock().unwrap().as_ref() {
            let old = work.with_extension("old");
            std::fs::rename(work, &old).unwrap();
            std::fs::create_dir(work).unwrap();
        }
    })]);
    let env = env_for(&mock, "openai");
    *env_dir.lock().unwrap() = Some(env.work.clone());
    let r = run(&mut env.script(REVIEWED));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
    assert!(r.stderr().contains("different directory"), "{}", r.stderr());
    assert!(!ran(&env));
}

#[test]
fn the_classifier_endpoint_cannot_come_from_the_project() {
    let mock = MockLlm::start(vec![oa_text("0", "stop")]);
    let env = Env::new();
    std::fs::create_dir_all(env.work.join(".automode")).unwrap();
    std::fs::write(
        env.work.join(".automode/local.json"),
        settings(&mock, "openai", json!({"requiresKey": false})),
    )
    .unwrap();
    assert_eq!(run(env.automode().arg("trust")).code(), Some(0));
    let r = run(&mut env.script(REVIEWED));
    assert_eq!(r.code(), Some(BLOCKED));
    assert!(
        r.stderr().contains("no classifier is configured"),
        "{}",
        r.stderr()
    );
    assert!(mock.requests().is_empty());
    let r = run(env.automode().arg("config"));
    assert!(
        r.stdout().contains("only from the global configuration"),
        "{}",
        r.stdout()
    );
}

#[test]
fn model_command_shows_and_saves_without_the_key() {
    let env = Env::new().with_env("OPENAI_API_KEY", "sk-secret-0123456789abcdefgh");
    let r = run(env.automode().args(["model", "openai/gpt-5-mini"]));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let r = run(env.automode().arg("model"));
    assert!(
        r.stdout().contains("classifier model: openai/gpt-5-mini"),
        "{}",
        r.stdout()
    );
    assert!(r.stdout().contains("key: present"), "{}", r.stdout());
    assert!(!r.stdout().contains("sk-secret"));
    let saved = std::fs::read_to_string(env.root().join("config/automode/config.json")).unwrap();
    assert!(saved.contains("openai/gpt-5-mini"));
    // Not from inside an agent's command.
    let env = Env::supervision_only();
    let r = run(&mut env.script(&format!(
        "{} model openai/x",
        crate::support::automode_bin().display()
    )));
    assert_eq!(r.code(), Some(BLOCKED), "{}", r.stderr());
}
