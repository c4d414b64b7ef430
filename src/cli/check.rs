//! `automode check`: judge a script exactly as the shim would, print the
//! verdict, its trace and the analysis; never run anything (the
//! classifier is asked only with `--classify`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::exit::Exit;
use crate::judge::{self, Judge, Origin, Switches};
use crate::{report, shell};

/// `automode check`'s arguments.
#[derive(Debug)]
pub(super) struct Args {
    pub json: bool,
    pub exit_code: bool,
    pub classify: bool,
    pub cwd: Option<OsString>,
    pub script: OsString,
    pub dollar0: Option<OsString>,
    pub args: Vec<OsString>,
}

pub(super) fn run(ctx: &Context, a: &Args) -> Exit {
    let cwd = match &a.cwd {
        Some(dir) => {
            let p = PathBuf::from(dir);
            let abs = match ctx.cwd() {
                Some(base) if p.is_relative() => base.join(p),
                _ => p,
            };
            let dir = shell::paths::resolve(Path::new("/"), &abs.to_string_lossy()).0;
            if !dir.is_dir() {
                report::say(&format!(
                    "automode check --cwd {}: no such directory",
                    dir.display()
                ));
                return Exit::Usage;
            }
            dir
        }
        None => match ctx.cwd() {
            Some(c) => c.to_path_buf(),
            None => {
                report::internal("cannot determine the working directory; pass --cwd");
                return Exit::Internal;
            }
        },
    };
    let judge = match Judge::load(ctx, &cwd, Switches::Global) {
        Ok(j) => j,
        Err(e) => {
            report::config_error(&e);
            return Exit::Blocked;
        }
    };
    let script = a.script.to_string_lossy().into_owned();
    let undecodable = judge::undecodable(
        std::os::unix::ffi::OsStrExt::as_bytes(a.script.as_os_str()),
        a.dollar0.as_deref(),
        &a.args,
    );
    let decided = judge.judge(
        ctx,
        &judge::Request {
            origin: Origin::Check {
                classify: a.classify,
            },
            script: &script,
            cwd: &cwd,
            positional: shell::Positional {
                dollar0: a
                    .dollar0
                    .as_ref()
                    .map_or_else(|| "bash".to_string(), |d| d.to_string_lossy().into_owned()),
                args: a
                    .args
                    .iter()
                    .map(|x| x.to_string_lossy().into_owned())
                    .collect(),
            },
            max_bytes: shell::MAX_COMMAND_BYTES,
            dialect: shell::Dialect::Bash,
            trust_env: true,
            terminal: false,
            undecodable,
        },
    );
    let Some(analysis) = &decided.analysis else {
        report::internal("check: the script was not analysed");
        return Exit::Internal;
    };
    let verdict = &decided.verdict;
    if a.json {
        let mut value: serde_json::Value =
            serde_json::from_str(&report::check_json(verdict, analysis, &cwd)).unwrap_or_default();
        if let (Some(obj), Some(n)) = (value.as_object_mut(), &decided.classifier) {
            obj.insert("classifier".into(), n.to_json());
        }
        if let (Some(obj), Some(sb)) = (value.as_object_mut(), &decided.sandbox) {
            obj.insert("sandbox".into(), sb.to_json());
        }
        if let (Some(obj), Some(w)) = (value.as_object_mut(), &decided.wrapped) {
            obj.insert(
                "wrapper".into(),
                serde_json::json!({"harness": w.harness, "template": w.template, "payload": w.payload, "extra": w.extra, "snapshot": w.snapshot}),
            );
        }
        println!("{value}");
    } else {
        print!("{}", report::check_text(verdict, analysis, &cwd));
    }
    if !a.exit_code {
        return Exit::Child(0);
    }
    Exit::Child(match verdict.decision {
        crate::policy::Decision::Allow => 0,
        crate::policy::Decision::Deny | crate::policy::Decision::Ask => 1,
        crate::policy::Decision::Classify => 3,
    })
}
