//! One HTTP POST of a JSON body with a deadline and a bounded response:
//! the only network code in automode.

use std::time::{Duration, Instant};

use serde_json::Value;

/// Largest response body read.
pub const MAX_BODY: u64 = 1024 * 1024;

/// A response, whatever its status.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub request_id: Option<String>,
}

/// Why no response arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    Timeout,
    /// Connection refused, DNS, TLS, protocol, oversize body …
    Failed(String),
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Transport::Timeout => f.write_str("timed out"),
            Transport::Failed(w) => f.write_str(w),
        }
    }
}

/// POST `body` to `url` before `deadline`.
pub fn post(
    url: &str,
    headers: &[(String, String)],
    body: &Value,
    deadline: Instant,
) -> Result<Reply, Transport> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left < Duration::from_millis(10) {
        return Err(Transport::Timeout);
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(left))
        .http_status_as_error(false)
        .build()
        .into();
    let mut req = agent.post(url).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let mut resp = match req.send_json(body) {
        Ok(r) => r,
        Err(e) => return Err(classify_error(&e)),
    };
    let status = resp.status().as_u16();
    let request_id = ["x-request-id", "request-id"].iter().find_map(|h| {
        resp.headers()
            .get(*h)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    });
    let body = resp
        .body_mut()
        .with_config()
        .limit(MAX_BODY)
        .lossy_utf8(true)
        .read_to_string()
        .map_err(|e| classify_error(&e))?;
    Ok(Reply {
        status,
        body,
        request_id,
    })
}

fn classify_error(e: &ureq::Error) -> Transport {
    match e {
        ureq::Error::Timeout(_) => Transport::Timeout,
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
        {
            Transport::Timeout
        }
        ureq::Error::BodyExceedsLimit(n) => {
            Transport::Failed(format!("response body larger than {n} bytes"))
        }
        other => Transport::Failed(other.to_string()),
    }
}
