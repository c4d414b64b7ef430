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
pub mod walk;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use analysis::Analysis;
pub use commands::Dialect;
pub use expand::Positional;

/// Largest `-c` script analysed (bash itself takes more; agents do not
/// need more, and the bound keeps analysis time small).
pub const MAX_COMMAND_BYTES: usize = 128 * 1024;
/// Largest script read from a file or stdin.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;
/// Time allowed for one analysis.
pub const TIME_BUDGET: Duration = Duration::from_secs(2);
/// Scripts above this size are analysed on a thread with a big stack.
const INLINE_MAX_BYTES: usize = 512;
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
pub fn analyze(req: Request) -> Analysis {
    if req.script.len() > req.max_bytes {
        return Analysis::opaque(format!(
            "the script is larger than {} KiB",
            req.max_bytes / 1024
        ));
    }
    let Ok(text) = String::from_utf8(req.script.clone()) else {
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
        return guarded(text, req);
    }
    let worker = std::thread::Builder::new()
        .name("automode-analysis".into())
        .stack_size(STACK_BYTES)
        .spawn(move || guarded(text, req));
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
    run(text, &req)
}

fn guarded(text: String, req: Request) -> Analysis {
    let result = std::panic::catch_unwind(move || {
        let (analysis, script) = run_keep(&text, &req);
        // Freeing a large syntax tree costs as much as building it; the
        // shim analyses once per process, so the tree is let go instead.
        std::mem::forget(script);
        analysis
    });
    result.unwrap_or_else(|_| Analysis::opaque("internal error while analysing the script"))
}

fn run(text: &str, req: &Request) -> Analysis {
    run_keep(text, req).0
}

/// Parse and walk; also hand back the syntax tree (None when parsing
/// failed).
fn run_keep(text: &str, req: &Request) -> (Analysis, Option<parse::Script>) {
    let deadline = Instant::now() + req.budget;
    let opts = parse::Options {
        deadline: Some(deadline),
        ..parse::Options::default()
    };
    let script = match parse::parse(text, &opts) {
        Ok(s) => s,
        Err(e) => {
            return (
                Analysis::opaque(format!("{} (at byte {})", e.message, e.offset)),
                None,
            );
        }
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
    let analysis = walk::walk(&script, text, &input);
    (analysis, Some(script))
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
