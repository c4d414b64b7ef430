//! `automode approve` (the user only, in their own terminal): list the
//! asks waiting for an answer, or approve or refuse one by its code.

use std::fmt::Write as _;
use std::path::Path;

use crate::approval::{Book, State};
use crate::context::Context;

pub(super) fn run(
    ctx: &Context,
    state_dir: Option<&Path>,
    code: Option<&str>,
    deny: bool,
    json: bool,
) -> Result<String, String> {
    let dir = state_dir.ok_or("no state directory (HOME is not set)")?;
    let book = Book::new(dir);
    let now = ctx
        .now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let Some(code) = code else {
        return Ok(list(&book, now, json));
    };
    let ask = book.decide(code, !deny, "automode approve", now)?;
    if json {
        return Ok(format!("{}\n", serde_json::json!(ask)));
    }
    Ok(if deny {
        format!(
            "refused {}: the agent's next try of that command is told you refused it.\n",
            ask.code
        )
    } else {
        format!(
            "approved {}: the agent's next try of exactly this command in {}, in the same session ({}), runs it once (within {}).\n  {}\nTell the agent to retry it.\n",
            ask.code,
            ask.cwd,
            ask.session,
            age(ask.ttl),
            first_line(&ask.script)
        )
    })
}

fn list(book: &Book, now: u64, json: bool) -> String {
    let asks = book.live(now);
    if json {
        return format!("{}\n", serde_json::json!({ "asks": asks }));
    }
    if asks.is_empty() {
        return "no asks are waiting for you\n".into();
    }
    let mut out = String::new();
    for a in &asks {
        let state = match a.state {
            State::Pending => "waiting",
            State::Approved => "approved, not yet retried",
            State::Denied => "refused",
        };
        let _ = writeln!(
            out,
            "{}  {state}, asked {} ago, session {}\n  in {}\n  command: {}\n  why: {}",
            a.code,
            age(now.saturating_sub(a.created_at)),
            a.session,
            a.cwd,
            first_line(&a.script),
            a.why
        );
    }
    let _ = writeln!(
        out,
        "\n`automode approve CODE` lets one run once; `automode approve --deny CODE` refuses it."
    );
    out
}

/// The script's first line, with a note when there are more.
fn first_line(script: &str) -> String {
    let mut lines = script.lines();
    let first: String = lines.next().unwrap_or("").chars().take(200).collect();
    match lines.count() {
        0 => first,
        n => format!("{first}  (+{n} more lines)"),
    }
}

fn age(secs: u64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s => format!("{} h", s / 3600),
    }
}
