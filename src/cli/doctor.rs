//! `automode doctor [--online] [--json]`: will automode work here? One
//! line per check (`ok`, `warn`, `fail`): the binary and its shims, the
//! real shell, each harness's setting, the sandbox, the classifier, the
//! configuration and the state directory. Exits 1 when a check fails.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::classifier::provider::{self, Choice};
use crate::context::Context;
use crate::exit::Exit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Ok,
    Warn,
    Fail,
}

#[derive(Debug, Serialize)]
struct Check {
    check: &'static str,
    level: Level,
    detail: String,
}

pub(super) fn run(ctx: &Context, state_dir: Option<&Path>, online: bool, json: bool) -> Exit {
    let checks = checks(ctx, state_dir, online);
    let failed = checks.iter().any(|c| c.level == Level::Fail);
    if json {
        println!("{}", serde_json::json!({"ok": !failed, "checks": checks}));
    } else {
        let mut out = String::new();
        let colour = super::colour(ctx);
        for c in &checks {
            let level = match (c.level, colour) {
                (Level::Ok, false) => "ok  ",
                (Level::Warn, false) => "warn",
                (Level::Fail, false) => "FAIL",
                (Level::Ok, true) => "\x1b[32mok\x1b[0m  ",
                (Level::Warn, true) => "\x1b[33mwarn\x1b[0m",
                (Level::Fail, true) => "\x1b[1;31mFAIL\x1b[0m",
            };
            let _ = writeln!(out, "{level}  {}: {}", c.check, c.detail);
        }
        print!("{out}");
    }
    Exit::Child(i32::from(failed))
}

fn checks(ctx: &Context, state_dir: Option<&Path>, online: bool) -> Vec<Check> {
    let mut out = Vec::new();
    let mut add = |check, level, detail: String| {
        out.push(Check {
            check,
            level,
            detail,
        })
    };
    // The binary and its shims.
    match ctx.exe_canonical() {
        Some(exe) => add(
            "binary",
            Level::Ok,
            format!(
                "automode {} at {}",
                env!("CARGO_PKG_VERSION"),
                exe.display()
            ),
        ),
        None => add(
            "binary",
            Level::Fail,
            "cannot find its own executable (/proc/self/exe)".into(),
        ),
    }
    match super::setup::find_shim(ctx) {
        Ok(shim) => add(
            "shims",
            Level::Ok,
            format!("{} (and sh beside it)", shim.display()),
        ),
        Err(why) => add("shims", Level::Fail, why),
    }
    match crate::realshell::locate(ctx) {
        Ok(s) => add("real shell", Level::Ok, s.path.display().to_string()),
        Err(crate::realshell::RealShellError::BadRecord { record, shell, why }) => add(
            "real shell",
            Level::Fail,
            format!(
                "{} recorded in {} cannot be used: {why} (reinstall automode)",
                shell.display(),
                record.display()
            ),
        ),
        Err(crate::realshell::RealShellError::NotFound) => add(
            "real shell",
            Level::Fail,
            "no usable bash on PATH, /usr/bin/bash or /bin/bash".into(),
        ),
    }
    // The harnesses: one pointed at the shim is enough.
    let states = super::setup::harness_states(ctx);
    let any = states.iter().any(|(_, ok, _)| *ok);
    for (name, ok, detail) in &states {
        // Harnesses not set up are fine once one is: most people use one.
        let level = if *ok || any { Level::Ok } else { Level::Warn };
        let detail = if *ok {
            format!("runs the shim ({detail})")
        } else {
            format!(
                "not set up: {detail} (fine if you do not use it; `automode setup {name}` shows how)"
            )
        };
        add(harness_check(name), level, detail);
    }
    if !any {
        add(
            "harnesses",
            Level::Warn,
            "no harness is set to run the shim yet: `automode setup HARNESS`".into(),
        );
    }
    // The configuration (it also decides the sandbox and the classifier).
    let cfg = match super::load_config(ctx) {
        Ok(c) => c,
        Err(why) => {
            add("configuration", Level::Fail, why);
            state_check(&mut add, state_dir);
            return out;
        }
    };
    let read = cfg
        .files
        .iter()
        .filter(|(_, st)| *st == crate::config::FileStatus::Read)
        .count();
    add(
        "configuration",
        Level::Ok,
        format!("valid; {read} file(s) read (`automode config` shows every value and its source)"),
    );
    for d in &cfg.diagnostics {
        add("configuration", Level::Warn, d.clone());
    }
    // The sandbox.
    let mode = cfg.sandbox.mode.value;
    let kernel = crate::sandbox::Kernel::probe();
    match kernel.status(mode) {
        crate::sandbox::Status::Enforced { abi } => {
            let gaps = kernel.gaps();
            if gaps.is_empty() {
                add(
                    "sandbox",
                    Level::Ok,
                    format!("Landlock enforced (ABI {abi})"),
                );
            } else {
                add(
                    "sandbox",
                    Level::Warn,
                    format!(
                        "Landlock enforced (ABI {abi}); not confined at this ABI: {}",
                        gaps.join("; ")
                    ),
                );
            }
        }
        crate::sandbox::Status::Off => add(
            "sandbox",
            Level::Warn,
            format!(
                "off (sandbox.mode \"off\" from {})",
                cfg.sandbox.mode.source
            ),
        ),
        crate::sandbox::Status::Unavailable { why } => add(
            "sandbox",
            if mode == crate::sandbox::Mode::Require {
                Level::Fail
            } else {
                Level::Warn
            },
            format!("cannot be enforced: {why}"),
        ),
    }
    if mode != crate::sandbox::Mode::Off && kernel.status(mode).enforced() {
        let (line, level) = crate::sandbox::net::describe(&cfg.sandbox, ctx.exe.as_deref());
        let level = match level {
            crate::sandbox::net::Level::Ok => Level::Ok,
            crate::sandbox::net::Level::Warn => Level::Warn,
            crate::sandbox::net::Level::Fail => Level::Fail,
        };
        add("network", level, line);
        let userns = super::status::namespaces_work(ctx);
        let (line, covered) = crate::sandbox::views::describe(userns, None);
        add(
            "sockets",
            if covered { Level::Ok } else { Level::Warn },
            line,
        );
        add(
            "home",
            if userns { Level::Ok } else { Level::Warn },
            crate::sandbox::views::describe_home(userns),
        );
    }
    if let Some(cwd) = ctx.cwd() {
        let (line, ok) = crate::checkpoint::describe_here(
            state_dir,
            cwd,
            ctx.home().map(|h| crate::policy::places::canon(&h)),
            &cfg.checkpoint.settings(),
        );
        add(
            "checkpoints",
            if ok { Level::Ok } else { Level::Warn },
            line,
        );
    }
    let var = |k: &str| ctx.var_str(k).map(str::to_string);
    if mode != crate::sandbox::Mode::Off
        && let Some(h) = ctx.home()
    {
        let home = crate::policy::places::canon(&h);
        for (_, warning) in crate::sandbox::roots_holding_home(&cfg.sandbox, &home, &var) {
            add("sandbox", Level::Warn, warning);
        }
    }
    // The classifier.
    let chosen = provider::choice(&cfg, &var);
    match (&chosen, provider::resolve(&cfg, &var)) {
        (_, Ok(p)) => {
            add(
                "classifier",
                Level::Ok,
                format!(
                    "{} ({}) at {}, key ${} {}",
                    chosen.spec().unwrap_or(""),
                    super::model::source_words(&chosen),
                    p.url(),
                    p.key_env,
                    if p.key.is_some() { "present" } else { "not needed" }
                ),
            );
            if online {
                let (level, detail) = online_check(&cfg, &p);
                add("classifier online", level, detail);
            }
        }
        (Choice::Off { source }, Err(_)) => add(
            "classifier",
            Level::Warn,
            format!("off on purpose ({source}): commands that need review wait for `automode approve`"),
        ),
        (Choice::Missing, Err(_)) => add(
            "classifier",
            Level::Warn,
            "none: set autoMode.classifierModel (`automode model anthropic/claude-haiku-4-5`) or put ANTHROPIC_API_KEY or OPENAI_API_KEY in the harness's environment; until then commands that need review wait for `automode approve`".into(),
        ),
        (_, Err(why)) => add("classifier", Level::Fail, why),
    }
    state_check(&mut add, state_dir);
    out
}

/// The check's name for a harness.
fn harness_check(name: &str) -> &'static str {
    match name {
        "claude-code" => "harness claude-code",
        "codex" => "harness codex",
        "pi" => "harness pi",
        "gemini" => "harness gemini",
        _ => "harness opencode",
    }
}

/// The state directory can be written (decisions, sessions, approvals).
fn state_check(add: &mut dyn FnMut(&'static str, Level, String), state_dir: Option<&Path>) {
    let Some(dir) = state_dir else {
        add(
            "state",
            Level::Fail,
            "no state directory (HOME is not set)".into(),
        );
        return;
    };
    let probe = dir.join(format!(".doctor-{}", std::process::id()));
    let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&probe, b"ok"));
    let _ = std::fs::remove_file(&probe);
    match written {
        Ok(()) => add("state", Level::Ok, format!("{} is writable", dir.display())),
        Err(e) => add(
            "state",
            Level::Fail,
            format!(
                "{} cannot be written ({e}): decisions are not recorded and nothing can be approved",
                dir.display()
            ),
        ),
    }
}

/// One tiny review, timed.
fn online_check(cfg: &crate::config::Config, p: &provider::Provider) -> (Level, String) {
    let prompt = crate::classifier::prompt::Prompt {
        system: crate::classifier::prompt::system(cfg),
        context: String::new(),
        action: "Command: echo hello\n(automode doctor's connectivity check; nothing runs)".into(),
    };
    let started = Instant::now();
    let review = crate::classifier::review(p, &prompt, None);
    let ms = started.elapsed().as_millis();
    match review.outcome {
        crate::classifier::Outcome::Failed(why) => {
            (Level::Fail, format!("failed after {ms} ms: {why}"))
        }
        _ => (Level::Ok, format!("answered in {ms} ms")),
    }
}
