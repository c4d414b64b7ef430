//! `automode …` (invoked under any name but `bash`/`sh`): parse the
//! command line (`args.rs`) and run the subcommand, one file each. The
//! subcommands that change automode's state are the user's only: they
//! refuse to run inside an agent's command.

mod allow;
mod approve;
mod args;
mod check;
mod config;
mod defaults;
mod denials;
mod doctor;
mod exec;
mod guidance;
mod hook;
mod log;
mod model;
mod onoff;
mod reset;
mod setup;
pub mod spec;
mod status;
mod trust;
mod undo;

pub use args::{CliError, Command, UndoArgs, parse};
pub use guidance::GUIDANCE;

use std::path::PathBuf;

use crate::context::Context;
use crate::exit::Exit;
use crate::{report, session, state};

/// Run `automode ARGS…`.
pub fn run(ctx: &Context) -> Exit {
    let command = match parse(ctx.args.clone()) {
        Ok(c) => c,
        Err(e) => {
            report::say(&e.to_string());
            return Exit::Usage;
        }
    };
    if command.changes_state()
        && let Some(pid) = session::shim_ancestor(ctx.exe.as_deref())
    {
        report::user_only_refused(pid);
        return Exit::Blocked;
    }
    let dirs = Dirs::of(ctx);
    let printed = match command {
        Command::Help => Ok(spec::overview()),
        Command::HelpFor(name) => {
            Ok(spec::find(&name).map_or_else(spec::overview, spec::command_help))
        }
        Command::Version => Ok(format!(
            "automode {} ({})\n",
            env!("CARGO_PKG_VERSION"),
            option_env!("AUTOMODE_COMMIT").unwrap_or("commit unknown")
        )),
        Command::Completions { shell } => Ok(spec::completions(&shell).unwrap_or_default()),
        Command::Man => Ok(spec::man_page()),
        Command::Exec {
            timeout,
            output_limit,
            argv,
        } => return exec::run(ctx, timeout, output_limit, argv),
        Command::Check {
            json,
            exit_code,
            classify,
            cwd,
            script,
            dollar0,
            args,
        } => {
            return check::run(
                ctx,
                &check::Args {
                    json,
                    exit_code,
                    classify,
                    cwd,
                    script,
                    dollar0,
                    args,
                },
            );
        }
        Command::Hook { harness } => return hook::run(ctx, &harness),
        Command::Doctor { online, json } => {
            return doctor::run(ctx, dirs.state.as_deref(), online, json);
        }
        Command::Status { json, all } => status::run(ctx, dirs.state.as_deref(), json, all),
        Command::Config { json } => config::run(ctx, json),
        Command::Defaults { json: false } => Ok(defaults::text()),
        Command::Defaults { json: true } => Ok(defaults::json()),
        Command::Denials { json, session } => {
            denials::run(dirs.state.as_deref(), session.as_deref(), json)
        }
        Command::Log { lines, json } => log::run(dirs.state.as_deref(), lines, json),
        Command::Guidance => Ok(GUIDANCE.to_string()),
        Command::Switch { on, session } => onoff::run(ctx, dirs.state.as_deref(), on, session),
        Command::Approve { code, deny, json } => {
            approve::run(ctx, dirs.state.as_deref(), code.as_deref(), deny, json)
        }
        Command::Reset { session } => reset::run(dirs.state.as_deref(), session),
        Command::Allow { rule, last, remove } => allow::run(
            ctx,
            dirs.config.as_deref(),
            dirs.state.as_deref(),
            rule.as_deref(),
            last,
            remove,
        ),
        Command::Undo(a) => undo::run(ctx, dirs.state.as_deref(), &a),
        Command::Trust { trusted, dir } => {
            trust::run(ctx, dirs.config.as_deref(), trusted, dir.map(PathBuf::from))
        }
        Command::Model { set: None, json } => model::show(ctx, json),
        Command::Model { set: Some(m), .. } => model::save(dirs.config.as_deref(), &m),
        Command::Setup {
            harness,
            write,
            undo,
            hook,
            shim,
        } => setup::run(
            ctx,
            &setup::Request {
                harness,
                write,
                undo,
                hook,
                shim: shim.map(PathBuf::from),
            },
        ),
    };
    match printed {
        Ok(text) => {
            print!("{text}");
            Exit::Child(0)
        }
        Err(e) => {
            report::say(&e);
            Exit::Child(1)
        }
    }
}

/// Colour in what is printed: only on a terminal, never with `NO_COLOR`
/// (any value) or `TERM=dumb`.
fn colour(ctx: &Context) -> bool {
    use std::io::IsTerminal as _;
    std::io::stdout().is_terminal()
        && ctx.var("NO_COLOR").is_none()
        && ctx.var_str("TERM") != Some("dumb")
}

/// automode's own directories for this user.
struct Dirs {
    config: Option<PathBuf>,
    state: Option<PathBuf>,
}

impl Dirs {
    fn of(ctx: &Context) -> Dirs {
        let home = ctx.home();
        Dirs {
            config: crate::config::config_dir(home.as_deref(), ctx.var_str("XDG_CONFIG_HOME")),
            state: state::state_dir(home.as_deref(), ctx.var_str("XDG_STATE_HOME")),
        }
    }
}

/// The effective configuration for the current directory, for the
/// read-only views (with the rule diagnostics the shim does not need).
fn load_config(ctx: &Context) -> Result<crate::config::Config, String> {
    let home = ctx.home().map(|h| crate::policy::places::canon(&h));
    let managed = crate::config::managed_path(&|k| ctx.var_str(k).map(str::to_string));
    crate::config::load(&crate::config::LoadInput {
        managed: Some(&managed),
        home: home.as_deref(),
        xdg_config_home: ctx.var_str("XDG_CONFIG_HOME"),
        cwd: ctx.cwd(),
        inline: ctx.var_str("AUTOMODE_SETTINGS_JSON"),
    })
    .map(|mut cfg| {
        crate::config::rule_diagnostics(&mut cfg, ctx.var_str("AUTOMODE_SETTINGS_JSON"));
        cfg
    })
    .map_err(|e| {
        format!(
            "the configuration is invalid (every shell command is blocked until it is fixed): {e}"
        )
    })
}
