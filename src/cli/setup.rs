//! `automode setup HARNESS [--write]`: what makes each agent harness call
//! the shim (harnesses differ: an environment variable, a settings key,
//! the passwd login shell, PATH), printed, and with `--write` merged into
//! the harness's own settings file (a backup kept, nothing else changed).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::context::Context;

/// One harness: its names and how it chooses the shell it runs.
#[derive(Debug)]
struct Harness {
    name: &'static str,
    aliases: &'static [&'static str],
    /// Why the setting below is the one that works (docs/harnesses.md, "Harness setup").
    how: &'static str,
}

/// The harnesses `automode setup` knows, with the reason for each method.
const HARNESSES: &[Harness] = &[
    Harness {
        name: "claude-code",
        aliases: &["claude"],
        how: "Claude Code ignores PATH: it runs CLAUDE_CODE_SHELL (or $SHELL) when the path contains \"bash\" or \"zsh\"; the settings file's \"env\" sets it for every session",
    },
    Harness {
        name: "codex",
        aliases: &["codex-cli"],
        how: "Codex runs the login shell from /etc/passwd (not $SHELL, not PATH); a shell the model names (\"sh\") is looked up on PATH",
    },
    Harness {
        name: "pi",
        aliases: &["pi-coding-agent"],
        how: "pi runs /bin/bash unless settings.json names a shellPath",
    },
    Harness {
        name: "gemini",
        aliases: &["gemini-cli"],
        how: "Gemini CLI looks `bash` up on PATH",
    },
    Harness {
        name: "opencode",
        aliases: &[],
        how: "opencode runs its config's \"shell\", else $SHELL, else `bash` from PATH",
    },
];

/// What `automode setup` was asked.
#[derive(Debug, Clone)]
pub(super) struct Request {
    pub harness: String,
    pub write: bool,
    /// Remove what `--write` added.
    pub undo: bool,
    /// Claude Code: install the PreToolUse/UserPromptSubmit hook instead
    /// of the shell.
    pub hook: bool,
    /// The shim to name, instead of the one found next to this binary.
    pub shim: Option<PathBuf>,
}

/// A JSON settings file and the keys to set in it.
#[derive(Debug)]
struct Edit {
    path: PathBuf,
    /// (key path, value): objects on the way are created.
    set: Vec<(Vec<&'static str>, Value)>,
    /// (key path, entry): appended to the array there unless an equal
    /// entry is already in it.
    append: Vec<(Vec<&'static str>, Value)>,
}

/// The instructions and file edits for one harness.
#[derive(Debug)]
struct Plan {
    text: String,
    edit: Option<Edit>,
    /// Why `--write` cannot do it, when there is nothing automode may write.
    no_write: Option<&'static str>,
}

/// Run `automode setup`.
pub(super) fn run(ctx: &Context, req: &Request) -> Result<String, String> {
    let harness = find(&req.harness)?;
    if req.undo {
        return undo(ctx, harness);
    }
    if req.hook && harness.name != "claude-code" {
        return Err("--hook is only for claude-code (the other harnesses have no command hook automode can answer)".into());
    }
    let shim = match &req.shim {
        Some(p) if p.is_absolute() => p.clone(),
        Some(p) => {
            return Err(format!(
                "--shim needs an absolute path, not {}",
                p.display()
            ));
        }
        None => find_shim(ctx)?,
    };
    let exe = ctx
        .exe_canonical()
        .ok_or("cannot find automode's own executable (/proc/self/exe)")?;
    let home = ctx.home().ok_or("HOME is not set")?;
    let plan = plan(ctx, harness, req.hook, &shim, &exe, &home)?;
    let mut out = format!("# {}: {}\n{}", harness.name, harness.how, plan.text);
    if !req.write {
        if plan.edit.is_some() {
            out.push_str("\n(--print: nothing written; `automode setup ");
            out.push_str(harness.name);
            if req.hook {
                out.push_str(" --hook");
            }
            out.push_str(" --write` merges this into the file, keeping a backup.)\n");
        }
        return Ok(out);
    }
    match (plan.edit, plan.no_write) {
        (Some(edit), _) => {
            let (note, added) = apply(&edit)?;
            if let Some(added) = added {
                remember(ctx, harness.name, &added)?;
            }
            out.push('\n');
            out.push_str(&note);
            Ok(out)
        }
        (None, Some(why)) => {
            // The instructions still belong on stdout; the refusal on stderr.
            println!("{out}");
            Err(format!("nothing written: {why}"))
        }
        (None, None) => Ok(out),
    }
}

fn find(name: &str) -> Result<&'static Harness, String> {
    HARNESSES
        .iter()
        .find(|h| h.name == name || h.aliases.contains(&name))
        .ok_or_else(|| {
            let names: Vec<&str> = HARNESSES.iter().map(|h| h.name).collect();
            format!("unknown harness {name:?}; one of: {}", names.join(", "))
        })
}

/// Whether each harness is set to run this shim (`automode doctor`):
/// (harness, pointed at it, what was found).
pub(super) fn harness_states(ctx: &Context) -> Vec<(&'static str, bool, String)> {
    let exe = ctx.exe_canonical();
    let is_us = |p: &str| resolves_to(Path::new(p), exe.as_deref());
    let home = ctx.home().unwrap_or_default();
    let read = |p: &Path| -> Value {
        std::fs::read_to_string(p)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    };
    let mut out = Vec::new();
    // Claude Code: the settings file's env, the environment, or the hook.
    let claude_dir = ctx
        .var_str("CLAUDE_CONFIG_DIR")
        .map_or_else(|| home.join(".claude"), PathBuf::from);
    let claude_file = claude_dir.join("settings.json");
    let settings = read(&claude_file);
    let shell = settings["env"]["CLAUDE_CODE_SHELL"]
        .as_str()
        .map(str::to_string)
        .or_else(|| ctx.var_str("CLAUDE_CODE_SHELL").map(str::to_string));
    let hooked = settings["hooks"]["PreToolUse"]
        .to_string()
        .contains("hook claude-code");
    out.push(match shell {
        Some(s) if is_us(&s) => ("claude-code", true, format!("CLAUDE_CODE_SHELL={s}")),
        _ if hooked => (
            "claude-code",
            true,
            format!("hook mode in {}", claude_file.display()),
        ),
        Some(s) => (
            "claude-code",
            false,
            format!("CLAUDE_CODE_SHELL={s} is not this automode"),
        ),
        None => (
            "claude-code",
            false,
            format!(
                "no CLAUDE_CODE_SHELL in {} or the environment",
                claude_file.display()
            ),
        ),
    });
    // Codex: this user's login shell.
    let login = nix::unistd::User::from_uid(nix::unistd::getuid())
        .ok()
        .flatten()
        .map(|u| u.shell.to_string_lossy().into_owned())
        .unwrap_or_default();
    out.push((
        "codex",
        is_us(&login),
        format!("this user's login shell is {login}"),
    ));
    // pi: shellPath.
    let pi_file = ctx
        .var_str("PI_CODING_AGENT_DIR")
        .map_or_else(|| home.join(".pi/agent"), PathBuf::from)
        .join("settings.json");
    let pi = read(&pi_file)["shellPath"].as_str().map(str::to_string);
    out.push(match pi {
        Some(p) => (
            "pi",
            is_us(&p),
            format!("shellPath {p} in {}", pi_file.display()),
        ),
        None => (
            "pi",
            false,
            format!("no shellPath in {}", pi_file.display()),
        ),
    });
    // Gemini CLI: the first bash on PATH.
    let first_bash = ctx
        .var_str("PATH")
        .unwrap_or_default()
        .split(':')
        .find_map(|d| {
            let c = Path::new(d).join("bash");
            (d.starts_with('/') && c.is_file()).then(|| c.to_string_lossy().into_owned())
        });
    out.push(match first_bash {
        Some(b) => (
            "gemini",
            is_us(&b),
            format!("the first bash on PATH is {b}"),
        ),
        None => ("gemini", false, "no bash on PATH".into()),
    });
    // opencode: its config's shell, else $SHELL.
    let oc_file = ctx
        .var_str("XDG_CONFIG_HOME")
        .filter(|d| d.starts_with('/'))
        .map_or_else(|| home.join(".config"), PathBuf::from)
        .join("opencode/opencode.json");
    let oc = read(&oc_file)["shell"]
        .as_str()
        .map(|s| (s.to_string(), format!("shell in {}", oc_file.display())))
        .or_else(|| {
            ctx.var_str("SHELL")
                .map(|s| (s.to_string(), "$SHELL".to_string()))
        });
    out.push(match oc {
        Some((s, from)) => ("opencode", is_us(&s), format!("{from} is {s}")),
        None => (
            "opencode",
            false,
            format!("no shell in {} and no $SHELL", oc_file.display()),
        ),
    });
    out
}

/// `p` is `exe` (already canonical) once its links are resolved.
fn resolves_to(p: &Path, exe: Option<&Path>) -> bool {
    exe.is_some_and(|e| std::fs::canonicalize(p).is_ok_and(|c| c == e))
}

/// The installed `bash` shim for this binary: `<prefix>/share/automode/
/// shims/bash` next to `<prefix>/bin/automode`, else a `bash` on PATH
/// that is this binary.
pub(super) fn find_shim(ctx: &Context) -> Result<PathBuf, String> {
    let exe = ctx.exe_canonical();
    let is_us = |p: &Path| resolves_to(p, exe.as_deref());
    let beside = exe
        .as_deref()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(|p| p.join("share/automode/shims/bash"));
    if let Some(b) = beside.filter(|b| is_us(b)) {
        return Ok(b);
    }
    let on_path = ctx
        .var_str("PATH")
        .unwrap_or_default()
        .split(':')
        .find_map(|d| {
            let cand = Path::new(d).join("bash");
            (d.starts_with('/') && is_us(&cand)).then_some(cand)
        });
    on_path.ok_or_else(|| {
        "cannot find the automode `bash` shim for this binary (install/install.sh puts it in <prefix>/share/automode/shims); name it with --shim PATH".to_string()
    })
}

fn plan(
    ctx: &Context,
    harness: &Harness,
    hook: bool,
    shim: &Path,
    exe: &Path,
    home: &Path,
) -> Result<Plan, String> {
    let shim_s = shim.to_string_lossy().into_owned();
    let shim_dir = shim
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sh = shell_quote(&shim_s);
    let mut text = String::new();
    let plan = match harness.name {
        "claude-code" => {
            let dir = ctx
                .var_str("CLAUDE_CONFIG_DIR")
                .map_or_else(|| home.join(".claude"), PathBuf::from);
            let path = dir.join("settings.json");
            if hook {
                let command = format!("{} hook claude-code", shell_quote(&exe.to_string_lossy()));
                let entry = |matcher: Option<&str>| {
                    let mut e = Map::new();
                    if let Some(m) = matcher {
                        e.insert("matcher".into(), m.into());
                    }
                    e.insert(
                        "hooks".into(),
                        json!([{"type": "command", "command": command}]),
                    );
                    Value::Object(e)
                };
                let pre = entry(Some("Bash"));
                let prompt = entry(None);
                let _ = writeln!(
                    text,
                    "Hook mode: Claude Code asks automode before every Bash call (allow, deny with the reason, or ask you),\nand gives it your prompts for the classifier. In {}:\n{}",
                    path.display(),
                    pretty(&json!({"hooks": {"PreToolUse": [pre], "UserPromptSubmit": [prompt]}}))
                );
                text.push_str("The commands then run in Claude's own shell, without automode's supervision (time and output limits);\n`automode setup claude-code` (shell mode) gives both.\n");
                Plan {
                    text,
                    edit: Some(Edit {
                        path,
                        set: vec![],
                        append: vec![
                            (vec!["hooks", "PreToolUse"], pre),
                            (vec!["hooks", "UserPromptSubmit"], prompt),
                        ],
                    }),
                    no_write: None,
                }
            } else {
                if !shim_s.contains("bash") && !shim_s.contains("zsh") {
                    return Err(format!(
                        "Claude Code only accepts a shell whose path contains \"bash\" or \"zsh\"; {shim_s} does not"
                    ));
                }
                let _ = writeln!(
                    text,
                    "In {} (every session):\n{}\nor in the environment that starts claude:\n  export CLAUDE_CODE_SHELL={sh}",
                    path.display(),
                    pretty(&json!({"env": {"CLAUDE_CODE_SHELL": shim_s}}))
                );
                Plan {
                    text,
                    edit: Some(Edit {
                        path,
                        set: vec![(vec!["env", "CLAUDE_CODE_SHELL"], Value::String(shim_s))],
                        append: vec![],
                    }),
                    no_write: None,
                }
            }
        }
        "codex" => {
            let user = ctx
                .var_str("USER")
                .or_else(|| ctx.var_str("LOGNAME"))
                .unwrap_or("AGENT_USER");
            let _ = writeln!(
                text,
                "Make the shim the login shell of the user codex runs as:\n  grep -qxF {sh} /etc/shells || echo {sh} | sudo tee -a /etc/shells\n  sudo chsh -s {sh} {user}\nIn a container image:\n  RUN usermod --shell {sh} {user}\nand put the shims first on PATH for the shells the model names (\"sh\"):\n  export PATH={}:\"$PATH\"\nUndo: sudo chsh -s /bin/bash {user}",
                shell_quote(&shim_dir),
            );
            let me = nix::unistd::User::from_uid(nix::unistd::getuid())
                .ok()
                .flatten()
                .map(|u| u.name);
            if me.as_deref() == Some(user) || user == "AGENT_USER" && me.is_some() {
                let _ = writeln!(
                    text,
                    "\nwarning: {user} is the user running this command. If it is your own login, every shell\nstarted for you (logins, tmux, editor terminals) would start as automode's shim; automode\nhands an interactive login shell it recognises to the real bash, but a dedicated agent user\nis the right setup: `sudo useradd -m agent`, give it the project, and run codex as it."
                );
            }
            Plan {
                text,
                edit: None,
                no_write: Some(
                    "Codex's setting is the login shell in /etc/passwd, which automode does not edit; run the commands above",
                ),
            }
        }
        "pi" => {
            let dir = ctx
                .var_str("PI_CODING_AGENT_DIR")
                .map_or_else(|| home.join(".pi/agent"), PathBuf::from);
            let path = dir.join("settings.json");
            let _ = writeln!(
                text,
                "In {} (or a project's .pi/settings.json):\n{}",
                path.display(),
                pretty(&json!({"shellPath": shim_s}))
            );
            Plan {
                text,
                edit: Some(Edit {
                    path,
                    set: vec![(vec!["shellPath"], Value::String(shim_s))],
                    append: vec![],
                }),
                no_write: None,
            }
        }
        "gemini" => {
            let _ = writeln!(
                text,
                "In the environment that starts gemini:\n  export PATH={}:\"$PATH\"",
                shell_quote(&shim_dir)
            );
            Plan {
                text,
                edit: None,
                no_write: Some(
                    "Gemini CLI has no shell setting; add the PATH line to the environment (or profile) that starts it",
                ),
            }
        }
        _ => {
            let dir = ctx
                .var_str("XDG_CONFIG_HOME")
                .filter(|d| d.starts_with('/'))
                .map_or_else(|| home.join(".config"), PathBuf::from)
                .join("opencode");
            let path = dir.join("opencode.json");
            let _ = writeln!(
                text,
                "In {}:\n{}\nor in the environment that starts opencode:\n  export SHELL={sh}",
                path.display(),
                pretty(&json!({"shell": shim_s}))
            );
            if dir.join("opencode.jsonc").exists() {
                return Ok(Plan {
                    text,
                    edit: None,
                    no_write: Some(
                        "opencode.jsonc exists (JSON with comments); add the key by hand so its comments are kept",
                    ),
                });
            }
            Plan {
                text,
                edit: Some(Edit {
                    path,
                    set: vec![(vec!["shell"], Value::String(shim_s))],
                    append: vec![],
                }),
                no_write: None,
            }
        }
    };
    Ok(plan)
}

/// Merge the edit into its file: read (a missing file is `{}`), refuse
/// anything but a JSON object, keep a backup of the old bytes, write a
/// temp file beside it and rename.
fn apply(edit: &Edit) -> Result<(String, Option<Value>), String> {
    let path = &edit.path;
    let old = match std::fs::read(path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut root = match &old {
        Some(b) if b.iter().all(u8::is_ascii_whitespace) => Value::Object(Map::new()),
        Some(b) => serde_json::from_slice::<Value>(b).map_err(|e| {
            format!(
                "{} is not plain JSON ({e}); nothing written — add the setting by hand",
                path.display()
            )
        })?,
        None => Value::Object(Map::new()),
    };
    if !root.is_object() {
        return Err(format!(
            "{} does not hold a JSON object; nothing written",
            path.display()
        ));
    }
    let mut changes = Vec::new();
    let mut added_set = Vec::new();
    let mut added_append = Vec::new();
    for (keys, value) in &edit.set {
        let (last, parents) = keys.split_last().ok_or("internal: empty key path")?;
        let obj = object_at(&mut root, parents, path)?;
        let before = obj.get(*last).cloned();
        if before.as_ref() != Some(value) {
            added_set.push(json!({"keys": keys, "value": value, "before": before}));
            changes.push(match before {
                Some(b) => format!("{} = {value} (was {b})", keys.join(".")),
                None => format!("{} = {value}", keys.join(".")),
            });
            obj.insert((*last).to_string(), value.clone());
        }
    }
    for (keys, entry) in &edit.append {
        let (last, parents) = keys.split_last().ok_or("internal: empty key path")?;
        let obj = object_at(&mut root, parents, path)?;
        let list = obj
            .entry((*last).to_string())
            .or_insert_with(|| Value::Array(vec![]));
        let Value::Array(items) = list else {
            return Err(format!(
                "{}: {} is not a list; nothing written",
                path.display(),
                keys.join(".")
            ));
        };
        if !items.contains(entry) {
            added_append.push(json!({"keys": keys, "entry": entry}));
            items.push(entry.clone());
            changes.push(format!("{} += {entry}", keys.join(".")));
        }
    }
    if changes.is_empty() {
        return Ok((
            format!("{} already has this; nothing changed.\n", path.display()),
            None,
        ));
    }
    let dir = path
        .parent()
        .ok_or_else(|| format!("{} has no directory", path.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut note = String::new();
    if let Some(old) = &old {
        let backup = backup_path(path);
        std::fs::write(&backup, old)
            .map_err(|e| format!("cannot write the backup {}: {e}", backup.display()))?;
        let _ = writeln!(note, "backup of the old file: {}", backup.display());
    }
    let mut text = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?;
    text.push('\n');
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        // Keep the old file's mode (settings files may hold secrets).
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(path)
        .map_err(|e| format!("cannot replace {}: {}", path.display(), e.error))?;
    let _ = writeln!(note, "wrote {}: {}", path.display(), changes.join("; "));
    note.push_str("Restart the harness for it to take effect.\n");
    let added = json!({"file": path.display().to_string(), "created": old.is_none(), "set": added_set, "append": added_append});
    Ok((note, Some(added)))
}

/// Where `--write` records what it added, for `--undo`.
fn record_path(ctx: &Context, harness: &str) -> Result<PathBuf, String> {
    let home = ctx.home();
    crate::state::state_dir(home.as_deref(), ctx.var_str("XDG_STATE_HOME"))
        .map(|d| d.join("setup").join(format!("{harness}.json")))
        .ok_or_else(|| "no state directory (HOME is not set)".to_string())
}

/// Add what `--write` just added to the record (earlier writes kept).
fn remember(ctx: &Context, harness: &str, added: &Value) -> Result<(), String> {
    let path = record_path(ctx, harness)?;
    let mut records: Vec<Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    records.push(added.clone());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let text = serde_json::to_vec_pretty(&records).map_err(|e| e.to_string())?;
    crate::state::write_atomic(&path, &text)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `automode setup HARNESS --undo`: take out what `--write` added — only
/// those keys and entries, and only while they still hold what automode
/// wrote (a later edit stays); a key it replaced gets its old value back.
fn undo(ctx: &Context, harness: &Harness) -> Result<String, String> {
    let record = record_path(ctx, harness.name)?;
    let records: Vec<Value> = match std::fs::read_to_string(&record) {
        Ok(t) => serde_json::from_str(&t)
            .map_err(|e| format!("{} does not parse: {e}", record.display()))?,
        Err(_) => {
            let by_hand = match harness.name {
                "codex" => {
                    " (Codex: set the agent user's login shell back, e.g. `sudo chsh -s /bin/bash USER`)"
                }
                "gemini" => {
                    " (Gemini CLI: take the shims directory out of PATH where you added it)"
                }
                _ => "",
            };
            return Ok(format!(
                "automode setup {} --write has not changed anything here; nothing to undo{by_hand}\n",
                harness.name
            ));
        }
    };
    let mut out = String::new();
    // Newest first, so that a key written twice gets its first value back.
    for rec in records.iter().rev() {
        let Some(file) = rec["file"].as_str().map(PathBuf::from) else {
            continue;
        };
        let mut root: Value = match std::fs::read_to_string(&file) {
            Ok(t) => serde_json::from_str(&t).map_err(|e| {
                format!(
                    "{} is not plain JSON ({e}); undo it by hand",
                    file.display()
                )
            })?,
            Err(_) => {
                let _ = writeln!(out, "{} is gone; nothing to undo there", file.display());
                continue;
            }
        };
        let mut changes = Vec::new();
        for s in rec["set"].as_array().into_iter().flatten() {
            let keys = key_path(&s["keys"]);
            let Some((last, parents)) = keys.split_last() else {
                continue;
            };
            let Some(obj) = object_at_existing(&mut root, parents) else {
                continue;
            };
            if obj.get(*last) != Some(&s["value"]) {
                changes.push(format!("{} kept (changed since)", keys.join(".")));
                continue;
            }
            match &s["before"] {
                Value::Null => {
                    obj.remove(*last);
                    changes.push(format!("{} removed", keys.join(".")));
                }
                before => {
                    obj.insert((*last).to_string(), before.clone());
                    changes.push(format!("{} = {before} again", keys.join(".")));
                }
            }
            prune_empty(&mut root, parents);
        }
        for a in rec["append"].as_array().into_iter().flatten() {
            let keys = key_path(&a["keys"]);
            let Some((last, parents)) = keys.split_last() else {
                continue;
            };
            let Some(obj) = object_at_existing(&mut root, parents) else {
                continue;
            };
            if let Some(Value::Array(items)) = obj.get_mut(*last) {
                let before = items.len();
                items.retain(|i| *i != a["entry"]);
                if items.len() < before {
                    changes.push(format!("{} entry removed", keys.join(".")));
                }
                if items.is_empty() {
                    obj.remove(*last);
                }
            }
            prune_empty(&mut root, parents);
        }
        if rec["created"] == true && root.as_object().is_some_and(Map::is_empty) {
            // automode made the file and nothing else is in it.
            std::fs::remove_file(&file)
                .map_err(|e| format!("cannot remove {}: {e}", file.display()))?;
            changes.push("the file automode had made removed".into());
        } else {
            let mut text = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?;
            text.push('\n');
            crate::state::write_atomic(&file, text.as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        }
        let _ = writeln!(
            out,
            "{}: {}",
            file.display(),
            if changes.is_empty() {
                "nothing of automode's left".to_string()
            } else {
                changes.join("; ")
            }
        );
    }
    let _ = std::fs::remove_file(&record);
    out.push_str("Restart the harness for it to take effect.\n");
    Ok(out)
}

/// A recorded key path (`["env", "CLAUDE_CODE_SHELL"]`).
fn key_path(v: &Value) -> Vec<&str> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The object at a key path, if it is there.
fn object_at_existing<'a>(
    root: &'a mut Value,
    keys: &[&str],
) -> Option<&'a mut Map<String, Value>> {
    let mut cur = root;
    for k in keys {
        cur = cur.as_object_mut()?.get_mut(*k)?;
    }
    cur.as_object_mut()
}

/// Remove the objects along `keys` that are left empty, deepest first.
fn prune_empty(root: &mut Value, keys: &[&str]) {
    for depth in (1..=keys.len()).rev() {
        let (last, parents) = match keys[..depth].split_last() {
            Some(x) => x,
            None => return,
        };
        let Some(obj) = object_at_existing(root, parents) else {
            return;
        };
        if obj
            .get(*last)
            .is_some_and(|v| v.as_object().is_some_and(Map::is_empty))
        {
            obj.remove(*last);
        }
    }
}

/// The object at a key path, created on the way.
fn object_at<'a>(
    root: &'a mut Value,
    keys: &[&str],
    path: &Path,
) -> Result<&'a mut Map<String, Value>, String> {
    let mut cur = root;
    for k in keys {
        let Value::Object(obj) = cur else {
            return Err(format!(
                "{}: {k} is inside something that is not an object",
                path.display()
            ));
        };
        cur = obj
            .entry((*k).to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    match cur {
        Value::Object(obj) => Ok(obj),
        _ => Err(format!(
            "{}: {} is not an object; nothing written",
            path.display(),
            keys.join(".")
        )),
    }
}

/// `settings.json` → `settings.json.before-automode`, numbered if taken.
fn backup_path(path: &Path) -> PathBuf {
    let base = format!("{}.before-automode", path.display());
    let mut cand = PathBuf::from(&base);
    let mut n = 1;
    while cand.exists() {
        n += 1;
        cand = PathBuf::from(format!("{base}.{n}"));
    }
    cand
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

use crate::shell::quote as shell_quote;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_harness_has_a_distinct_name() {
        let mut names: Vec<&str> = HARNESSES
            .iter()
            .flat_map(|h| std::iter::once(h.name).chain(h.aliases.iter().copied()))
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
        assert!(find("claude").is_ok());
        assert!(find("aider").is_err());
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/opt/a/bash"), "/opt/a/bash");
        assert_eq!(shell_quote("/my dir/bash"), "'/my dir/bash'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
