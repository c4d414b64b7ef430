//! `automode approve` (the user only, in their own terminal): list the
//! asks waiting for an answer, or approve or refuse one by its code.

use std::fmt::Write as _;
use std::path::Path;

use std::io::IsTerminal as _;

use crate::approval::{self, Book, State};
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
    let now = ctx.unix_secs();
    let Some(code) = code else {
        return Ok(list(&book, now, json));
    };
    // On a terminal, the user sees exactly what they approve first (an
    // agent could name the code of another ask).
    if !deny && !json && std::io::stdin().is_terminal() {
        let Some(a) = approval::by_code(&book, code, now) else {
            return Err(approval::unknown_code(code));
        };
        eprint!(
            "{}\n  in {}, session {}\n  why: {}\nAllow it once? [y/N] ",
            approval::shown(&a.script),
            a.cwd,
            a.session,
            approval::shown(&a.why).trim_start()
        );
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
        if !matches!(line.trim(), "y" | "Y" | "yes") {
            return Ok(format!("not approved: {} still waits\n", a.code));
        }
    }
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
            "approved {}: the agent's next try of exactly this command in {}, in the same session ({}), runs it once (within {}).\n{}\nTell the agent to retry it.\n",
            ask.code,
            ask.cwd,
            ask.session,
            age(ask.ttl),
            approval::shown(&ask.script)
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
            "{}  {state}, asked {} ago, session {}\n  in {}\n  why: {}\n  command:\n{}",
            a.code,
            age(now.saturating_sub(a.created_at)),
            a.session,
            a.cwd,
            approval::shown(&a.why).trim_start(),
            approval::shown(&a.script)
        );
    }
    let _ = writeln!(
        out,
        "\n`automode approve CODE` lets one run once; `automode approve --deny CODE` refuses it."
    );
    out
}

fn age(secs: u64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s => format!("{} h", s / 3600),
    }
}
