//! `automode undo` (the user only, in their own terminal): list the
//! project's checkpoints, put the project back as it was before a command
//! (`--to N`) or one file (`--file PATH`), or empty the store (`--prune`).
//! An undo is checkpointed first, so it can be undone.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::args::UndoArgs as Args;
use crate::checkpoint::restore::{self, Plan};
use crate::checkpoint::tree::{self, Key, Kind, Scope, Tree};
use crate::checkpoint::{self, Label, Store, shown_size as size, store};
use crate::context::Context;
use crate::policy::places::{self, Places};

/// How long `undo` waits for a command's checkpoint to finish.
const WAIT: Duration = Duration::from_secs(30);
/// Lines of diff shown before a restore, at most.
const DIFF_LINES: usize = 400;

pub(super) fn run(ctx: &Context, state_dir: Option<&Path>, a: &Args) -> Result<String, String> {
    let state = state_dir.ok_or("no state directory (HOME is not set)")?;
    let cwd = ctx
        .cwd()
        .ok_or("the working directory cannot be read")?
        .to_path_buf();
    let cfg = super::load_config(ctx)?;
    let settings = cfg.checkpoint.settings();
    let places = Places {
        home: ctx.home().map(|h| places::canon(&h)),
        cwd: cwd.clone(),
        automode_state: Some(state.to_path_buf()),
        ..Places::default()
    };
    let root = checkpoint::root_for(&cwd, &places)?;
    let dir = store::dir_for(state, &root);
    if !dir.join("current").exists() {
        return Ok(if a.json {
            format!(
                "{}\n",
                serde_json::json!({"root": root, "bytes": 0, "checkpoints": []})
            )
        } else {
            format!("no checkpoints of {} yet\n", root.display())
        });
    }
    let mut store = Store::open(&dir, &root, WAIT)?;
    if a.prune {
        let before = store::du(&dir);
        store.prune()?;
        return Ok(format!(
            "removed every checkpoint of {} ({})\n",
            root.display(),
            size(before.saturating_sub(store::du(&dir)))
        ));
    }
    if a.to.is_none() && a.file.is_none() {
        return list(&store, &settings, ctx.unix_secs(), a.json);
    }
    undo(ctx, &mut store, &settings, a)
}

fn ago(now: u64, then: u64) -> String {
    match now.saturating_sub(then) {
        s if s < 120 => format!("{s} s ago"),
        s if s < 7200 => format!("{} min ago", s / 60),
        s if s < 2 * 86_400 => format!("{} h ago", s / 3600),
        s => format!("{} days ago", s / 86_400),
    }
}

/// The project now, as a checkpoint would see it (nothing is written).
fn now_tree(store: &Store, settings: &checkpoint::Settings) -> Result<Tree, String> {
    let mut t = store.current().clone();
    tree::update(
        &store.root,
        &mut t,
        &Scope::All,
        settings.max_file_bytes,
        &mut std::collections::HashMap::new(),
    )?;
    Ok(t)
}

fn list(
    store: &Store,
    settings: &checkpoint::Settings,
    now: u64,
    json: bool,
) -> Result<String, String> {
    let trees = store.trees();
    let live = now_tree(store, settings)?;
    let points = store.points();
    let rows: Vec<serde_json::Value> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let after = trees.get(i + 1).unwrap_or(&live);
            let (changed, added, deleted) = tree::counts(&trees[i], after);
            serde_json::json!({
                "n": p.n,
                "time": p.label.time,
                "session": p.label.session,
                "cwd": p.label.cwd,
                "command": p.label.command,
                "changed": changed,
                "added": added,
                "deleted": deleted,
                "skipped": p.skipped.len(),
                "skipped_files": p.skipped.iter().map(|(k, bytes)| serde_json::json!({"path": k.shown(), "bytes": bytes})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let bytes = store::du(&store.dir);
    if json {
        return Ok(format!(
            "{}\n",
            serde_json::json!({
                "root": store.root,
                "bytes": bytes,
                "checkpoints": rows,
                "unfinished_undo": store.unfinished_undo.map(|(to, from)| serde_json::json!({"to": to, "from": from})),
            })
        ));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "checkpoints of {} ({} in the store; kept {} h after their session, within {}):",
        store.root.display(),
        size(bytes),
        settings.keep_hours,
        size(settings.max_bytes)
    );
    if rows.is_empty() {
        out.push_str("  none yet\n");
    } else {
        let _ = writeln!(
            out,
            "  {:>4}  {:<12} {:<9} {:>7} {:>5} {:>7}  command (what changed from it to the next)",
            "N", "when", "session", "changed", "added", "deleted"
        );
    }
    for (r, p) in rows.iter().zip(points) {
        let command: String = p
            .label
            .command
            .replace('\n', " ⏎ ")
            .chars()
            .take(70)
            .collect();
        let _ = writeln!(
            out,
            "  {:>4}  {:<12} {:<9} {:>7} {:>5} {:>7}  {}",
            p.n,
            ago(now, p.label.time),
            crate::session::short_id(&p.label.session),
            r["changed"].as_u64().unwrap_or(0),
            r["added"].as_u64().unwrap_or(0),
            r["deleted"].as_u64().unwrap_or(0),
            command
        );
    }
    // What the newest checkpoint could not keep.
    if let Some(last) = points.last()
        && !last.skipped.is_empty()
    {
        let names: Vec<String> = last
            .skipped
            .iter()
            .take(10)
            .map(|(k, bytes)| format!("{} ({})", k.shown(), size(*bytes)))
            .collect();
        let _ = writeln!(
            out,
            "not kept (over checkpoint.maxFileBytes): {}{}",
            names.join(", "),
            if last.skipped.len() > 10 { ", …" } else { "" }
        );
    }
    if let Some((to, from)) = store.unfinished_undo {
        let _ = writeln!(
            out,
            "an undo to {to} did not finish: run `automode undo --to {to}` again to complete it, or `automode undo --to {from}` to go back to before it"
        );
    }
    if let Some(last) = points.last() {
        let _ = writeln!(
            out,
            "`automode undo --to N` puts the project back as it was before command N; `automode undo --to {}` undoes the last one.",
            last.n
        );
    }
    Ok(out)
}

/// The key of `--file PATH` (relative to the working directory).
fn file_key(store: &Store, cwd: &Path, file: &std::ffi::OsStr) -> Result<Key, String> {
    let p = Path::new(file);
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    };
    let abs = crate::shell::paths::resolve(Path::new("/"), &abs.to_string_lossy()).0;
    // The directory it is in, as the file system names it.
    let parent = abs
        .parent()
        .and_then(|d| std::fs::canonicalize(d).ok())
        .unwrap_or_else(|| abs.parent().map(Path::to_path_buf).unwrap_or_default());
    let full = parent.join(abs.file_name().unwrap_or_default());
    let rel = full.strip_prefix(&store.root).map_err(|_| {
        format!(
            "{} is not in the project {}",
            full.display(),
            store.root.display()
        )
    })?;
    if rel.as_os_str().is_empty() {
        return Err("--file names a file, not the project itself".into());
    }
    Ok(Key::of(rel))
}

fn undo(
    ctx: &Context,
    store: &mut Store,
    settings: &checkpoint::Settings,
    a: &Args,
) -> Result<String, String> {
    let cwd = ctx.cwd().map(Path::to_path_buf).unwrap_or_default();
    let only = match &a.file {
        Some(f) => Some(file_key(store, &cwd, f)?),
        None => None,
    };
    let first = store.points().first().map_or(0, |p| p.n);
    let last = store.points().last().map_or(0, |p| p.n);
    if store.points().is_empty() {
        return Err(format!("no checkpoints of {} yet", store.root.display()));
    }
    let now = now_tree(store, settings)?;
    let n = match (a.to, &only) {
        (Some(n), _) if store.tree_at(n).is_some() => n,
        (Some(n), _) => {
            return Err(format!(
                "there is no checkpoint {n}: this project's are {first} to {last} (`automode undo` lists them)"
            ));
        }
        (None, Some(k)) => newest_different(store, &now, k)
            .ok_or_else(|| format!("{} is the same in every checkpoint as it is now", k.shown()))?,
        (None, None) => last,
    };
    let target = store.tree_at(n).unwrap_or_default();
    let plan = restore::plan(&now, &target, only.as_ref());
    if plan.is_empty() {
        return Ok(format!(
            "nothing to do: {} already is as it was before command {n}\n",
            only.as_ref()
                .map_or(store.root.display().to_string(), Key::shown)
        ));
    }
    let shown = describe(store, &now, &plan, n);
    if !a.yes {
        if a.json || !std::io::stdin().is_terminal() {
            return Err(format!(
                "{shown}no terminal to ask on: run it again with --yes to restore"
            ));
        }
        eprint!("{shown}Restore? [y/N] ");
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
        if !matches!(line.trim(), "y" | "Y" | "yes") {
            return Ok("nothing was changed\n".into());
        }
    } else if !a.json {
        print!("{shown}");
    }
    // The undo is checkpointed: it can be undone.
    let label = Label {
        session: "automode-undo".into(),
        command: match &only {
            Some(k) => format!("automode undo --to {n} --file {}", k.shown()),
            None => format!("automode undo --to {n}"),
        },
        cwd: cwd.display().to_string(),
        time: ctx.unix_secs(),
    };
    let before = store.checkpoint(&Scope::All, &label, settings)?;
    // Checked again: the project may have moved since the plan was shown.
    let plan = restore::plan(store.current(), &target, only.as_ref());
    store.note_undo(n, before.n, false, ctx.unix_secs())?;
    let undone = restore::apply(store, &plan);
    let failed = undone.failed;
    store.note_undo(n, before.n, true, ctx.unix_secs())?;
    let counts = serde_json::json!({
        "to": n,
        "undo_checkpoint": before.n,
        "written": plan.write.len(),
        "removed": plan.remove.iter().filter(|(_, k)| *k != Kind::Dir).count(),
        "directories": plan.mkdir.len(),
        "failed": failed,
        "left": plan.left.iter().map(|(k, why)| format!("{}: {why}", k.shown())).chain(undone.left.iter().cloned()).collect::<Vec<_>>(),
    });
    if a.json {
        return Ok(format!("{counts}\n"));
    }
    let mut out = format!(
        "restored {} as it was before command {n}: {} written back, {} removed. `automode undo --to {}` undoes this.\n",
        only.as_ref()
            .map_or(store.root.display().to_string(), Key::shown),
        plan.write.len(),
        plan.remove.iter().filter(|(_, k)| *k != Kind::Dir).count(),
        before.n
    );
    for l in &undone.left {
        let _ = writeln!(out, "  {l}");
    }
    for f in &failed {
        let _ = writeln!(out, "  not done: {f}");
    }
    if !failed.is_empty() {
        return Err(out);
    }
    Ok(out)
}

/// The newest checkpoint in which `key` differs from now.
fn newest_different(store: &Store, now: &Tree, key: &Key) -> Option<u64> {
    let trees = store.trees();
    let here = |t: &Tree| t.entries.get(key).cloned();
    let mine = here(now);
    store
        .points()
        .iter()
        .zip(&trees)
        .rev()
        .find(|(_, t)| match (here(t), &mine) {
            (Some(a), Some(b)) => !a.same_content(b),
            (None, None) => false,
            _ => true,
        })
        .map(|(p, _)| p.n)
}

/// The plan as the user sees it: each path, a diff of text files, and
/// what is left alone.
fn describe(store: &Store, now: &Tree, plan: &Plan, n: u64) -> String {
    let mut out = format!(
        "to put {} back as it was before command {n}:\n",
        store.root.display()
    );
    for (k, kind) in &plan.remove {
        let what = if *kind == Kind::Dir { "directory " } else { "" };
        let _ = writeln!(out, "  remove   {what}{} (added since)", k.shown());
    }
    for (k, _) in &plan.mkdir {
        let _ = writeln!(out, "  make     directory {}", k.shown());
    }
    for (k, e) in &plan.write {
        let verb = if now.entries.contains_key(k) {
            "restore "
        } else {
            "bring back"
        };
        let mode = now
            .entries
            .get(k)
            .filter(|c| c.mode != e.mode)
            .map(|c| format!(" (mode {:o} → {:o})", c.mode, e.mode))
            .unwrap_or_default();
        let _ = writeln!(out, "  {verb} {}{mode}", k.shown());
    }
    for (k, mode) in &plan.chmod {
        let _ = writeln!(out, "  mode     {} → {mode:o}", k.shown());
    }
    for (k, why) in &plan.left {
        let _ = writeln!(out, "  left     {}: {why}", k.shown());
    }
    let diff = diffs(store, now, plan);
    if !diff.is_empty() {
        out.push_str(&diff);
    }
    out.push_str(
        "Directories no checkpoint keeps (node_modules, target, .venv, … see `automode defaults`) are not touched.\n",
    );
    out
}

/// `diff -u` of each file written back over a text file that is there
/// now, bounded.
fn diffs(store: &Store, now: &Tree, plan: &Plan) -> String {
    let mut out = String::new();
    let mut lines = 0usize;
    for (k, e) in &plan.write {
        if lines >= DIFF_LINES {
            let _ = writeln!(out, "  (more differences not shown)");
            break;
        }
        let (Some(cur), Some(id)) = (now.entries.get(k), e.id) else {
            continue;
        };
        if cur.kind != Kind::File || cur.size > 256 * 1024 || e.size > 256 * 1024 {
            continue;
        }
        let Ok(old) = store.content(&id) else {
            continue;
        };
        if std::str::from_utf8(&old).is_err() {
            continue;
        }
        let Ok(tmp) = tempfile::NamedTempFile::new() else {
            continue;
        };
        if std::fs::write(tmp.path(), &old).is_err() {
            continue;
        }
        let path: PathBuf = store.root.join(k.path());
        let shown = k.shown();
        let Ok(output) = std::process::Command::new("diff")
            .args(["-u", "--label", &format!("now/{shown}"), "--label"])
            .arg(format!("checkpoint/{shown}"))
            .arg(&path)
            .arg(tmp.path())
            .stdin(std::process::Stdio::null())
            .output()
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&output.stdout);
        for l in text.lines() {
            if lines >= DIFF_LINES {
                break;
            }
            let _ = writeln!(out, "    {l}");
            lines += 1;
        }
    }
    out
}
