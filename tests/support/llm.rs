//! A scripted loopback model server for classifier tests: it answers
//! each request with the next reply of its script and records what it
//! received (path, headers, JSON body).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One scripted reply.
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
    /// Run before answering (to change the world mid-request).
    pub before: Option<Box<dyn Fn() + Send>>,
}

impl Reply {
    pub fn json(body: serde_json::Value) -> Reply {
        Reply {
            status: 200,
            body: body.to_string(),
            delay: Duration::ZERO,
            before: None,
        }
    }
    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            body: body.to_string(),
            delay: Duration::ZERO,
            before: None,
        }
    }
    pub fn delayed(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }
    pub fn before(mut self, f: impl Fn() + Send + 'static) -> Reply {
        self.before = Some(Box::new(f));
        self
    }
}

/// A request as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct MockLlm {
    pub url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
}

impl MockLlm {
    /// Start serving `script` (one reply per request; past its end: 500).
    pub fn start(script: Vec<Reply>) -> MockLlm {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        std::thread::spawn(move || {
            let mut script = script.into_iter();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let Some(req) = read_request(&mut stream) else {
                    continue;
                };
                log.lock().unwrap().push(req);
                let reply = script
                    .next()
                    .unwrap_or_else(|| Reply::status(500, r#"{"error":"script exhausted"}"#));
                if let Some(f) = &reply.before {
                    f();
                }
                std::thread::sleep(reply.delay);
                let text = format!(
                    "HTTP/1.1 {} X\r\ncontent-type: application/json\r\nx-request-id: req-{}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                    reply.status,
                    log.lock().unwrap().len(),
                    reply.body.len(),
                    reply.body
                );
                let _ = stream.write_all(text.as_bytes());
            }
        });
        MockLlm { url, received }
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

fn read_request(stream: &mut std::net::TcpStream) -> Option<Received> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().ok()?;
            }
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    Some(Received {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
    })
}

// ------------------------------------------------------------ replies

/// OpenAI: a fast-stage text answer.
pub fn oa_text(text: &str, finish: &str) -> Reply {
    Reply::json(serde_json::json!({
        "id": "c", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": text, "refusal": null}}],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 1024}}
    }))
}

/// OpenAI: a detailed-stage tool call with these arguments (a JSON
/// string as sent on the wire).
pub fn oa_call(arguments: &str, finish: &str) -> Reply {
    Reply::json(serde_json::json!({
        "id": "c", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": null, "refusal": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "classifier_decision", "arguments": arguments}}]}}],
        "usage": {"prompt_tokens": 1300, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 1152}}
    }))
}

/// Anthropic: a fast-stage text answer.
pub fn an_text(text: &str, stop: &str) -> Reply {
    Reply::json(serde_json::json!({
        "id": "m", "type": "message", "role": "assistant", "model": "claude",
        "content": [{"type": "text", "text": text}], "stop_reason": stop,
        "usage": {"input_tokens": 31, "cache_read_input_tokens": 4210, "output_tokens": 1}
    }))
}

/// Anthropic: a detailed-stage tool use.
pub fn an_call(input: serde_json::Value) -> Reply {
    Reply::json(serde_json::json!({
        "id": "m", "type": "message", "role": "assistant", "model": "claude",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "classifier_decision", "input": input}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 40, "cache_read_input_tokens": 4210, "output_tokens": 30}
    }))
}

pub const ALLOW: &str =
    r#"{"decision":"allow","tier":"explicit_intent","reason":"the user asked for it"}"#;
pub const BLOCK: &str =
    r#"{"decision":"block","tier":"soft_deny","reason":"not requested by the user"}"#;
