//! Shell analysis: script text → `Analysis` — every command that will run
//! (however deeply nested), every file it touches, and what could not be
//! understood. Bounded: input size, nesting depth, a time budget, a big
//! stack for the recursion, and panics caught: any bound hit or internal
//! failure is `Opaque`, never a crash and never an allow.

pub mod analysis;
pub mod args;
pub mod ast;
pub mod commands;
pub mod expand;
pub mod parse;
pub mod paths;
mod stack;
pub mod walk;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use analysis::Analysis;
pub use commands::Dialect;
pub use expand::Positional;

/// `s` as one word of a POSIX shell line (quoted only when needed).
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// An environment value that is not valid UTF-8, as `Request::env`
/// holds it: a NUL, which no real environment value can contain. Its
/// variable is unknown to the analysis (never read as empty or as a
/// lossy copy of the bytes bash would see).
pub const UNDECODABLE_VALUE: &str = "\0";

/// Largest `-c` script analysed (bash itself takes more; agents do not
/// need more, and the bound keeps analysis time small).
pub const MAX_COMMAND_BYTES: usize = 128 * 1024;
/// Largest script read from a file or stdin.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;
/// Time allowed for one analysis.
pub const TIME_BUDGET: Duration = Duration::from_secs(2);
/// Scripts up to this size are analysed on the caller's thread (they
/// cannot nest deep enough to need much stack).
const INLINE_MAX_BYTES: usize = 512;
/// Larger scripts are analysed on the caller's thread too, within this
/// much of its stack; one that needs more (deep nesting) is analysed again
/// on a thread with a big stack.
const INLINE_STACK_BYTES: usize = 256 * 1024;
/// Stack for the analysis thread: recursion is bounded by the parser's
/// depth limit; this leaves a wide margin.
const STACK_BYTES: usize = 256 * 1024 * 1024;
/// Bracket nesting above which the script is refused before parsing.
const MAX_BRACKET_DEPTH: usize = 400;

/// Everything the analysis needs about the invocation and its world.
#[derive(Debug, Clone)]
pub struct Request {
    pub script: Vec<u8>,
    /// MAX_COMMAND_BYTES for `-c`, MAX_FILE_BYTES for files and stdin.
    pub max_bytes: usize,
    pub positional: Positional,
    pub cwd: PathBuf,
    pub home: Option<String>,
    pub env: HashMap<String, String>,
    /// False when startup files may set variables first (login or
    /// interactive shell, BASH_ENV).
    pub trust_env: bool,
    pub dialect: Dialect,
    pub budget: Duration,
}

/// Analyse a script. Never panics, never hangs past the budget.
pub fn analyze(mut req: Request) -> Analysis {
    if req.script.len() > req.max_bytes {
        return Analysis::opaque(format!(
            "the script is larger than {} KiB",
            req.max_bytes / 1024
        ));
    }
    let deadline = Instant::now() + req.budget;
    let Ok(text) = String::from_utf8(std::mem::take(&mut req.script)) else {
        return Analysis::opaque("the script is not valid UTF-8");
    };
    if text.contains('\0') {
        return Analysis::opaque("the script contains a NUL byte");
    }
    let depth = bracket_depth(&text);
    if depth > MAX_BRACKET_DEPTH {
        return Analysis::opaque(format!("nesting deeper than {MAX_BRACKET_DEPTH} levels"));
    }
    if text.len() <= INLINE_MAX_BYTES {
        return guarded(&text, &req, deadline);
    }
    // A thread is cheap to start, but once a process has one every
    // allocation takes a lock: most large scripts nest little, so they are
    // analysed here first, within a stack budget.
    if let Some(analysis) = stack::within(INLINE_STACK_BYTES, || guarded(&text, &req, deadline)) {
        return analysis;
    }
    let worker = std::thread::Builder::new()
        .name("automode-analysis".into())
        .stack_size(STACK_BYTES)
        .spawn(move || guarded(&text, &req, deadline));
    match worker {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Analysis::opaque("internal error while analysing the script")),
        Err(e) => Analysis::opaque(format!("cannot start the analysis: {e}")),
    }
}

/// Parse and walk without the panic guard or the thread: for the fuzz
/// target, which must see panics and stack overflows.
pub fn analyze_unguarded(text: &str) -> Analysis {
    let req = Request {
        script: Vec::new(),
        max_bytes: MAX_COMMAND_BYTES,
        positional: Positional {
            dollar0: "bash".into(),
            args: vec!["a b".into(), "*".into()],
        },
        cwd: PathBuf::from("/tmp"),
        home: Some("/root".into()),
        env: HashMap::from([("HOME".to_string(), "/root".to_string())]),
        trust_env: true,
        dialect: Dialect::Bash,
        budget: TIME_BUDGET,
    };
    if bracket_depth(text) > MAX_BRACKET_DEPTH {
        return Analysis::opaque("too deep");
    }
    run(text, &req, Instant::now() + req.budget)
}

fn guarded(text: &str, req: &Request, deadline: Instant) -> Analysis {
    let result = std::panic::catch_unwind(|| run(text, req, deadline));
    result.unwrap_or_else(|_| Analysis::opaque("internal error while analysing the script"))
}

/// Parse and walk: each top-level item is walked as soon as it is parsed
/// (and its here-documents read), then freed, so a large script's syntax
/// tree is never all in memory. A parse error anywhere still makes the
/// whole analysis opaque, as if the script had been parsed first.
fn run(text: &str, req: &Request, deadline: Instant) -> Analysis {
    let opts = parse::Options {
        deadline: Some(deadline),
        ..parse::Options::default()
    };
    let parse_error =
        |e: parse::ParseError| Analysis::opaque(format!("{} (at byte {})", e.message, e.offset));
    let mut stream = match parse::Stream::new(text, &opts) {
        Ok(s) => s,
        Err(e) => return parse_error(e),
    };
    let input = walk::Input {
        positional: req.positional.clone(),
        cwd: req.cwd.clone(),
        home: req.home.clone(),
        env: req.env.clone(),
        trust_env: req.trust_env,
        dialect: req.dialect,
        deadline: Some(deadline),
    };
    let mut session = walk::Session::new(text, &input);
    let mut batch = parse::Script::default();
    loop {
        match stream.next_item() {
            Ok(Some(item)) => batch.list.items.push(item),
            Ok(None) => break,
            Err(e) => return parse_error(e),
        }
        // Items whose here-document bodies are still to come wait for them.
        if !stream.heredocs_pending() {
            walk_batch(&mut stream, &mut session, &mut batch);
        }
    }
    if let Err(e) = stream.finish() {
        return parse_error(e);
    }
    walk_batch(&mut stream, &mut session, &mut batch);
    session.finish()
}

/// Walk the items gathered in `batch` (with the here-documents read so
/// far), then free them.
fn walk_batch(
    stream: &mut parse::Stream<'_>,
    session: &mut walk::Session<'_>,
    batch: &mut parse::Script,
) {
    if batch.list.items.is_empty() {
        return;
    }
    batch.heredocs = stream.take_heredocs();
    session.walk(&batch.list, batch);
    stream.restore_heredocs(std::mem::take(&mut batch.heredocs));
    batch.list.items.clear();
}

/// The deepest bracket nesting, ignoring quotes (a cheap pre-check).
fn bracket_depth(text: &str) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    for b in text.bytes() {
        match b {
            b'(' | b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
#[cfg(test)]
mod tests;
