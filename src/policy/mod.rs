//! The policy: the ordered tiers of DESIGN §4 as a table, one function
//! each, tried in one loop; the first that decides gives the verdict,
//! and every tier's outcome is kept in the trace. Reads the analysis, the
//! effective configuration and the places it must know; decides; runs
//! nothing.

pub mod catalogue;
pub mod decision;
pub mod flood;
pub mod git;
pub mod inline;
pub mod places;
pub mod recover;
pub mod rules;
pub mod terminal;
pub mod tools;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

pub use decision::{Decision, Step, Tier, Verdict};

/// The rule of a verdict the user gave by approving the command as its
/// reviewer (`automode approve`, the terminal, the ask command).
pub const USER_APPROVAL: &str = "user-approval";
/// The rule of an `AUTOMODE_SANDBOX=off` waiting for the user: only the
/// user lifts the sandbox.
pub const SANDBOX_OFF: &str = "sandbox-off";
use places::Places;
use tools::Class;

use crate::config::{Config, RuleEntry};
use crate::shell::analysis::{Analysis, Effect, EffectKind, FindingKind, Stdin, TargetKind};

/// Everything a decision reads.
#[derive(Debug)]
pub struct Ctx<'a> {
    pub analysis: &'a Analysis,
    pub script: &'a str,
    pub places: &'a Places,
    pub config: &'a Config,
    /// Auto mode on for this session (from state and config), and why.
    pub enabled: (bool, String),
    /// PATH as automode was started with.
    pub env_path: &'a str,
    /// `XDG_CONFIG_HOME` (for git's configuration files).
    pub xdg_config_home: Option<&'a str>,
    /// `GIT_CONFIG_COUNT` already in the environment.
    pub git_config_count: usize,
    /// The shim's stdin is a terminal that the command will not get
    /// (`autoMode.allowTerminalInput` off).
    pub closed_terminal: bool,
    /// The one-command sandbox widening the script asks for
    /// (`AUTOMODE_WRITE=…`, `AUTOMODE_SANDBOX=off`), or why it is refused.
    pub widening: Option<&'a Result<crate::sandbox::widen::Widening, String>>,
    /// `sandbox.mode` is `require`: the sandbox is never lifted.
    pub sandbox_required: bool,
    /// The sandbox this command will run in, when the kernel enforces it
    /// (the contained tier and the sandbox-answered reasons need it).
    pub contained: Option<&'a Containment>,
    /// Which deletion and overwrite targets can be got back (looked up
    /// once per target).
    pub recovery: &'a recover::Recovery,
    /// The user approved this command's `permissions.ask` rule
    /// (`automode approve`): it skips the ask rule and every allow tier,
    /// and still meets the deny checks and the classifier.
    pub approved_ask: bool,
    /// The network allow-list as configured (which hosts the wall lets
    /// through, where it is up).
    pub network_allow: Option<&'a crate::sandbox::net::allow::AllowList>,
}

/// The tiers an approved ask skips.
const SKIPPED_WHEN_APPROVED: &[Tier] = &[
    Tier::AskRule,
    Tier::InsideWorkingDirectory,
    Tier::AllowRule,
    Tier::ReadOnly,
    Tier::Routine,
    Tier::Contained,
];

/// Where an enforced sandbox lets a command write (from its base plan).
#[derive(Debug, Clone, Default)]
pub struct Containment {
    /// Write roots (canonical).
    pub write: Vec<PathBuf>,
    /// Trees not writable inside a root, unless a deeper root grants them.
    pub exclude: Vec<PathBuf>,
    /// Protected paths (read-only inside the project).
    pub protect: Vec<PathBuf>,
    /// The network wall is up for the command: it reaches only the
    /// allow-list's hosts and loopback.
    pub network_wall: bool,
}

impl Containment {
    /// The sandbox lets a command change `p`.
    pub fn writable(&self, p: &Path) -> bool {
        let deepest = |set: &[PathBuf]| {
            set.iter()
                .filter(|r| p.starts_with(r))
                .map(|r| r.as_os_str().len())
                .max()
        };
        let Some(root) = deepest(&self.write) else {
            return false;
        };
        deepest(&self.exclude).is_none_or(|e| root > e)
            && !self
                .protect
                .iter()
                .any(|x| p.starts_with(x) || x.starts_with(p))
    }
}

/// A tier either decides or passes with a note for the trace.
type TierFn = fn(&Ctx<'_>, &mut Scratch) -> Result<Verdict, String>;

/// The tiers, in order (DESIGN §4).
const TIERS: &[(Tier, TierFn)] = &[
    (Tier::Disabled, disabled),
    (Tier::DenyRule, deny_rules),
    (Tier::AskRule, ask_rules),
    (Tier::Analysis, opaque),
    (Tier::HardDeny, hard_deny),
    (Tier::Terminal, terminal_input),
    (Tier::PathGate, path_gate),
    (Tier::InsideWorkingDirectory, inside_working_directory),
    (Tier::AllowRule, allow_rules),
    (Tier::ReadOnly, read_only),
    (Tier::Routine, routine),
    (Tier::Contained, contained),
    (Tier::Classifier, classifier),
];

/// What earlier tiers learnt for later ones.
#[derive(Default)]
struct Scratch {
    facts: Option<Facts>,
    /// A protected path the script writes (no allow tier then).
    protected: Option<String>,
}

/// Decide on one invocation.
pub fn decide(ctx: &Ctx<'_>) -> Verdict {
    let mut scratch = Scratch::default();
    let mut trace = Vec::new();
    for (tier, run) in TIERS {
        if ctx.approved_ask && SKIPPED_WHEN_APPROVED.contains(tier) {
            trace.push(Step {
                tier: *tier,
                outcome: "skipped: the user approved this ask, which goes to the classifier and never to an allow tier".into(),
            });
            continue;
        }
        match run(ctx, &mut scratch) {
            Ok(mut v) => {
                trace.push(Step {
                    tier: *tier,
                    outcome: format!("{}: {}", v.decision, v.reason),
                });
                v.trace = trace;
                v.recovery = ctx.recovery.report();
                return v;
            }
            Err(note) => trace.push(Step {
                tier: *tier,
                outcome: note,
            }),
        }
    }
    // The classifier tier always decides; this is unreachable, and fails
    // closed if it ever is not.
    let mut v = Verdict::new(
        Decision::Deny,
        Tier::Classifier,
        "no-tier",
        "built-in",
        "no tier decided",
    );
    v.trace = trace;
    v
}

// ------------------------------------------------------------ tiers

fn disabled(ctx: &Ctx<'_>, _: &mut Scratch) -> Result<Verdict, String> {
    if ctx.enabled.0 {
        return Err("auto mode is on".into());
    }
    // Commands still run in the sandbox; with no policy there is no
    // reviewer to widen it for one command.
    if let Some(w) = ctx.widening {
        let asked = match w {
            Ok(crate::sandbox::widen::Widening::SandboxOff) => "AUTOMODE_SANDBOX=off",
            Ok(crate::sandbox::widen::Widening::Write(_)) => "AUTOMODE_WRITE",
            Err(_) => "a leading AUTOMODE_WRITE or AUTOMODE_SANDBOX assignment",
        };
        return Ok(Verdict::new(
            Decision::Deny,
            Tier::Disabled,
            "widening-without-review",
            ctx.enabled.1.clone(),
            format!(
                "auto mode is off, so commands run without review but still in the sandbox, and nothing can grant {asked}: run the command without it, or the user runs it in their own terminal"
            ),
        ));
    }
    Ok(Verdict::new(
        Decision::Allow,
        Tier::Disabled,
        "auto-mode-off",
        ctx.enabled.1.clone(),
        "auto mode is off: the command runs without policy (still supervised and sandboxed)",
    ))
}

/// The texts a rule is matched against, per command: the command line
/// with literal words and dynamic words as written.
fn command_texts(a: &Analysis) -> Vec<String> {
    a.commands
        .iter()
        .map(|c| {
            let mut words: Vec<String> = c
                .env
                .iter()
                .map(|(n, v)| format!("{n}={}", v.known().unwrap_or(&v.raw)))
                .collect();
            words.extend(
                c.argv
                    .iter()
                    .map(|w| w.lit().map_or_else(|| w.raw.clone(), str::to_string)),
            );
            words.join(" ")
        })
        .collect()
}

/// Expand `~/` in a rule pattern to the home directory.
fn rule_of(entry: &RuleEntry, home: Option<&Path>) -> Result<rules::Rule, String> {
    let text = match (home, entry.pattern.find("(~/")) {
        (Some(h), Some(at)) => format!(
            "{}({}/{}",
            &entry.pattern[..at],
            h.display(),
            &entry.pattern[at + 3..]
        ),
        _ => entry.pattern.clone(),
    };
    rules::parse(&text)
}

/// The first rule any command (or file effect) matches: deny and ask.
fn any_match(ctx: &Ctx<'_>, list: &[RuleEntry]) -> Option<(String, String, String)> {
    let texts = command_texts(ctx.analysis);
    for entry in list {
        let rule = match rule_of(entry, ctx.places.home.as_deref()) {
            Ok(r) => r,
            // A rule that does not parse matches everything (fail closed).
            Err(e) => {
                return Some((
                    entry.pattern.clone(),
                    entry.source.to_string(),
                    format!("the rule does not parse ({e})"),
                ));
            }
        };
        let hit = match rule.kind {
            rules::RuleKind::Bash => {
                let mut candidates: Vec<&str> = texts.iter().map(String::as_str).collect();
                candidates.push(ctx.script);
                candidates.extend(ctx.analysis.commands.iter().map(|c| c.source.as_str()));
                candidates
                    .into_iter()
                    .find(|t| rules::matches(&rule, t, rules::Use::Tighten))
                    .map(str::to_string)
            }
            rules::RuleKind::Read | rules::RuleKind::Write => {
                ctx.analysis.effects.iter().find_map(|e| {
                    let wanted = match rule.kind {
                        rules::RuleKind::Read => e.kind == EffectKind::Read,
                        _ => e.kind != EffectKind::Read,
                    };
                    if !wanted {
                        return None;
                    }
                    let mut paths: Vec<String> = e
                        .path
                        .iter()
                        .chain(e.lexical.iter())
                        .map(|p| p.display().to_string())
                        .collect();
                    paths.push(e.raw.clone());
                    paths
                        .into_iter()
                        .find(|p| rules::matches(&rule, p, rules::Use::Tighten))
                })
            }
            rules::RuleKind::Other(_) => None,
        };
        if let Some(text) = hit {
            let shown: String = text.chars().take(200).collect();
            return Some((
                entry.pattern.clone(),
                entry.source.to_string(),
                format!("matches {shown:?}"),
            ));
        }
    }
    None
}

fn deny_rules(ctx: &Ctx<'_>, _: &mut Scratch) -> Result<Verdict, String> {
    match any_match(ctx, &ctx.config.deny) {
        Some((rule, source, why)) => Ok(Verdict::new(
            Decision::Deny,
            Tier::DenyRule,
            rule,
            source,
            format!("a permissions.deny rule {why}"),
        )),
        None => Err(format!(
            "{} deny rules, none matches",
            ctx.config.deny.len()
        )),
    }
}

fn ask_rules(ctx: &Ctx<'_>, _: &mut Scratch) -> Result<Verdict, String> {
    match any_match(ctx, &ctx.config.ask) {
        Some((rule, source, why)) => Ok(Verdict::new(
            Decision::Ask,
            Tier::AskRule,
            rule,
            source,
            format!("a permissions.ask rule {why}: the user must approve it"),
        )),
        None => Err(format!("{} ask rules, none matches", ctx.config.ask.len())),
    }
}

fn opaque(ctx: &Ctx<'_>, _: &mut Scratch) -> Result<Verdict, String> {
    match &ctx.analysis.opaque {
        Some(why) => Ok(Verdict::new(
            Decision::Deny,
            Tier::Analysis,
            "opaque",
            "built-in",
            format!("the script could not be analysed: {why}"),
        )),
        None => Err(format!(
            "analysed: {} commands, {} file effects, {} findings",
            ctx.analysis.commands.len(),
            ctx.analysis.effects.len(),
            ctx.analysis.findings.len()
        )),
    }
}

fn hard_deny(ctx: &Ctx<'_>, _: &mut Scratch) -> Result<Verdict, String> {
    for check in catalogue::CATALOGUE {
        if let Some(evidence) = (check.check)(ctx) {
            return Ok(Verdict::new(
                Decision::Deny,
                Tier::HardDeny,
                check.id,
                "built-in",
                format!("{evidence} ({})", check.reason),
            ));
        }
    }
    Err(format!(
        "none of {} checks fires",
        catalogue::CATALOGUE.len()
    ))
}

fn terminal_input(ctx: &Ctx<'_>, _: &mut Scratch) -> Result<Verdict, String> {
    if !ctx.closed_terminal {
        return Err("stdin is not a terminal, or terminal input is allowed".into());
    }
    match terminal::first_reader(ctx.analysis) {
        None => Err("nothing waits for terminal input".into()),
        Some((source, why)) => Ok(Verdict::new(
            Decision::Deny,
            Tier::Terminal,
            "terminal-input",
            "built-in",
            format!(
                "`{source}` would wait for input from this terminal ({why}), but automode runs commands with stdin closed, and what is typed into the terminal later never passes through automode. Run it non-interactively (a script file, `-c`/`-e`, a here-document), or the user can set autoMode.allowTerminalInput"
            ),
        )),
    }
}

fn path_gate(ctx: &Ctx<'_>, scratch: &mut Scratch) -> Result<Verdict, String> {
    for denied in &ctx.config.denied_paths {
        let Some(base) = expand(ctx, &denied.value) else {
            continue;
        };
        for (p, what) in touched(ctx) {
            if p.starts_with(&base) {
                return Ok(Verdict::new(
                    Decision::Deny,
                    Tier::PathGate,
                    denied.value.clone(),
                    denied.source.to_string(),
                    format!(
                        "{what} {}, inside the denied path {}",
                        p.display(),
                        base.display()
                    ),
                ));
            }
        }
    }
    scratch.protected = protected_write(ctx);
    match &scratch.protected {
        Some(why) => Err(format!("writes a protected path ({why}): no allow tier")),
        None => Err("no denied or protected path".into()),
    }
}

fn inside_working_directory(ctx: &Ctx<'_>, scratch: &mut Scratch) -> Result<Verdict, String> {
    if !ctx.config.allow_inside_working_directory.value {
        return Err("allowInsideWorkingDirectory is off".into());
    }
    if let Some(p) = &scratch.protected {
        return Err(format!("protected: {p}"));
    }
    if let Some(w) = widening(ctx) {
        return Err(w);
    }
    let facts = facts(ctx, scratch);
    match facts.review.first().or(facts.contained.first()) {
        Some(why) => Err(why.clone()),
        None => Ok(Verdict::new(
            Decision::Allow,
            Tier::InsideWorkingDirectory,
            "allowInsideWorkingDirectory",
            ctx.config.allow_inside_working_directory.source.to_string(),
            "every file the script changes is inside the working directory",
        )),
    }
}

fn allow_rules(ctx: &Ctx<'_>, scratch: &mut Scratch) -> Result<Verdict, String> {
    if ctx.config.allow.is_empty() {
        return Err("no allow rules".into());
    }
    if let Some(p) = &scratch.protected {
        return Err(format!("protected: {p}"));
    }
    if let Some(w) = widening(ctx) {
        return Err(w);
    }
    let parsed: Vec<(&RuleEntry, rules::Rule)> = ctx
        .config
        .allow
        .iter()
        .filter_map(|e| rule_of(e, ctx.places.home.as_deref()).ok().map(|r| (e, r)))
        .filter(|(_, r)| r.kind == rules::RuleKind::Bash)
        .collect();
    let texts = command_texts(ctx.analysis);
    let facts = facts(ctx, scratch);
    let mut used: Option<&RuleEntry> = None;
    let ride_along = reads_ride_along(facts);
    for (i, text) in texts.iter().enumerate() {
        // Wrappers and builtins are judged through the commands they run;
        // a command that only reads needs no rule of its own.
        if facts.classes.get(i) == Some(&Class::Neutral)
            || (ride_along && facts.classes.get(i) == Some(&Class::ReadOnly))
        {
            continue;
        }
        match parsed
            .iter()
            .find(|(_, r)| rules::matches(r, text, rules::Use::Allow))
        {
            Some((e, _)) => used = used.or(Some(e)),
            None => return Err(format!("{text:?} matches no allow rule")),
        }
    }
    match used {
        Some(e) => Ok(Verdict::new(
            Decision::Allow,
            Tier::AllowRule,
            e.pattern.clone(),
            e.source.to_string(),
            "every command matches a permissions.allow rule or only reads",
        )),
        None => Err("no command to match".into()),
    }
}

/// May a command that only reads (`| head -3`, `| grep x`) ride along
/// with commands an allow rule names, without a rule of its own? Not
/// when the line reads a secret or a protected file (then every command
/// needs the user's rule).
fn reads_ride_along(facts: &Facts) -> bool {
    !facts.sensitive
}

fn read_only(ctx: &Ctx<'_>, scratch: &mut Scratch) -> Result<Verdict, String> {
    if ctx.config.classify_read_only_tools.value {
        return Err("classifyReadOnlyTools is on".into());
    }
    let facts = facts(ctx, scratch);
    if let Some(why) = facts.first_reason() {
        return Err(why.clone());
    }
    if let Some((i, _)) = facts
        .classes
        .iter()
        .enumerate()
        .find(|(_, c)| !matches!(c, Class::ReadOnly | Class::Neutral))
    {
        return Err(format!(
            "{} is not read-only",
            ctx.analysis.commands[i].source.lines().next().unwrap_or("")
        ));
    }
    if let Some(w) = &facts.first_write {
        return Err(format!("writes {w}"));
    }
    let mut v = Verdict::new(
        Decision::Allow,
        Tier::ReadOnly,
        "read-only",
        "built-in",
        "every command only reads",
    );
    if let Some(why) = git_runs_programs(ctx, facts) {
        return Err(why);
    }
    if facts.uses_git {
        v.exec_env = git::safe_env(ctx.git_config_count);
    }
    Ok(v)
}

fn routine(ctx: &Ctx<'_>, scratch: &mut Scratch) -> Result<Verdict, String> {
    if let Some(p) = &scratch.protected {
        return Err(format!("protected: {p}"));
    }
    let facts = facts(ctx, scratch);
    if ctx.config.classify_read_only_tools.value
        && facts
            .classes
            .iter()
            .all(|c| matches!(c, Class::ReadOnly | Class::Neutral))
    {
        return Err("classifyReadOnlyTools is on and every command only reads".into());
    }
    if let Some(why) = facts.first_reason() {
        return Err(why.clone());
    }
    if let Some(why) = git_runs_programs(ctx, facts) {
        return Err(why);
    }
    Ok(Verdict::new(
        Decision::Allow,
        Tier::Routine,
        "routine",
        "built-in",
        "routine project work: every change stays inside the working directory",
    ))
}

/// Literal commands whose every change lands where the enforced sandbox
/// lets them write, with nothing only the classifier can judge: unknown
/// programs, project scripts, `python -m X`, inline code run because the
/// kernel confines them.
fn contained(ctx: &Ctx<'_>, scratch: &mut Scratch) -> Result<Verdict, String> {
    let Some(sandbox) = ctx.contained else {
        return Err("the sandbox is not enforced for this command".into());
    };
    if let Some(p) = &scratch.protected {
        return Err(format!("protected: {p}"));
    }
    let facts = facts(ctx, scratch);
    if let Some(why) = facts.review.first() {
        return Err(why.clone());
    }
    for e in &ctx.analysis.effects {
        if e.kind == EffectKind::Read || device_sink(Path::new(&e.raw)) {
            continue;
        }
        match &e.path {
            Some(p) if device_sink(p) || sandbox.writable(p) => {}
            Some(p) => {
                return Err(format!(
                    "{} {}, outside the sandbox's writable paths",
                    verb(e.kind),
                    p.display()
                ));
            }
            None => {
                return Err(format!(
                    "{} {}, a path only known at run time",
                    verb(e.kind),
                    e.raw
                ));
            }
        }
    }
    if let Some(why) = git_runs_programs(ctx, facts) {
        return Err(why);
    }
    let why = facts
        .unknown
        .first()
        .or(facts.contained.first())
        .map_or_else(String::new, |w| format!(" ({w})"));
    Ok(Verdict::new(
        Decision::Allow,
        Tier::Contained,
        "contained",
        "built-in",
        format!(
            "contained: it runs in the sandbox, which lets it write only in the project, temporary directories and tool caches{why}"
        ),
    ))
}

/// The script uses git and the repository's configuration makes git run
/// programs: why (no allow tier then).
fn git_runs_programs(ctx: &Ctx<'_>, facts: &Facts) -> Option<String> {
    if !facts.uses_git {
        return None;
    }
    match git::probe(
        &ctx.places.cwd,
        ctx.places.home.as_deref(),
        ctx.xdg_config_home,
    ) {
        git::Probe::Risky(what) => Some(format!("the git configuration runs programs ({what})")),
        git::Probe::Clean => None,
    }
}

/// A widening the script asks for, as the reason no allow tier takes it.
fn widening(ctx: &Ctx<'_>) -> Option<String> {
    match ctx.widening? {
        Ok(w) => Some(format!(
            "{} (only a review grants it: the classifier's or the user's)",
            w.describe()
        )),
        Err(_) => None,
    }
}

fn classifier(ctx: &Ctx<'_>, scratch: &mut Scratch) -> Result<Verdict, String> {
    if let Some(Ok(crate::sandbox::widen::Widening::SandboxOff)) = ctx.widening {
        return Ok(Verdict::new(
            Decision::Ask,
            Tier::Classifier,
            SANDBOX_OFF,
            "built-in",
            "AUTOMODE_SANDBOX=off asks that this one command run outside automode's sandbox, with the user's full rights: only the user can grant that, never the classifier",
        ));
    }
    let protected = scratch.protected.clone();
    let facts = facts(ctx, scratch);
    let why = widening(ctx)
        .or_else(|| protected.map(|p| format!("writes a protected path: {p}")))
        .or_else(|| facts.first_reason().cloned())
        .unwrap_or_else(|| "no allow tier settles it".into());
    let ride_along = reads_ride_along(facts);
    let skip: Vec<bool> = facts
        .classes
        .iter()
        .map(|c| ride_along && *c == Class::ReadOnly)
        .collect();
    let suggest = widening(ctx)
        .is_none()
        .then(|| suggest_allow(ctx, &skip))
        .flatten()
        .filter(|_| scratch.protected.is_none());
    let mut v = Verdict::new(
        Decision::Classify,
        Tier::Classifier,
        "classifier",
        "built-in",
        why,
    );
    v.suggest = suggest;
    Ok(v)
}

/// Programs for which an allow rule on the bare name would let anything
/// run: a rule is suggested only with a subcommand (`python3 manage.py
/// *`), or never (shells, wrappers, remote shells).
const NO_BLANKET_ALLOW: &[(&str, bool, &str)] = &[
    ("python", true, "an interpreter: `-c` runs any code"),
    ("python3", true, "an interpreter: `-c` runs any code"),
    ("node", true, "an interpreter: `-e` runs any code"),
    ("deno", true, "an interpreter: `eval` runs any code"),
    ("bun", true, "an interpreter: `-e` runs any code"),
    ("ruby", true, "an interpreter: `-e` runs any code"),
    ("perl", true, "an interpreter: `-e` runs any code"),
    ("php", true, "an interpreter: `-r` runs any code"),
    ("lua", true, "an interpreter: `-e` runs any code"),
    ("npx", true, "runs any package's code"),
    ("uvx", true, "runs any package's code"),
    ("find", true, "`-exec` runs any program"),
    ("make", true, "runs whatever the Makefile says"),
    ("bash", false, "a shell runs any script"),
    ("sh", false, "a shell runs any script"),
    ("zsh", false, "a shell runs any script"),
    ("dash", false, "a shell runs any script"),
    ("env", false, "runs any program"),
    ("sudo", false, "runs any program as another user"),
    ("doas", false, "runs any program as another user"),
    ("su", false, "runs a shell as another user"),
    ("xargs", false, "runs any program"),
    ("nohup", false, "runs any program"),
    ("timeout", false, "runs any program"),
    ("nice", false, "runs any program"),
    ("watch", false, "runs any command"),
    ("eval", false, "runs any text as a command"),
    ("exec", false, "replaces the shell with any program"),
    ("ssh", false, "runs any command on another machine"),
];

/// The allow rules that would let commands like these run without review
/// next time (one per command that needed review: `bash(PROGRAM
/// SUBCOMMAND *)`; `skip`: the commands that only read, which ride
/// along), and the user's configuration file; none when a program name
/// is not literal.
fn suggest_allow(ctx: &Ctx<'_>, skip: &[bool]) -> Option<(Vec<String>, String)> {
    let mut rules = Vec::new();
    for (i, c) in ctx.analysis.commands.iter().enumerate() {
        if skip.get(i) == Some(&true) {
            continue;
        }
        let words: Vec<&str> = c.argv.iter().map_while(|a| a.lit()).collect();
        let name = *words.first()?;
        if name.is_empty() || c.argv.first().and_then(|a| a.lit()).is_none() {
            return None;
        }
        let base = name.rsplit('/').next().unwrap_or(name);
        let guarded = NO_BLANKET_ALLOW.iter().find(|(n, ..)| *n == base);
        if guarded.is_some_and(|(_, with_sub, _)| !with_sub) {
            return None;
        }
        let mut head = vec![name];
        if let Some(sub) = words.get(1).filter(|w| {
            !w.starts_with('-')
                && w.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || "-_.:".contains(ch))
        }) {
            head.push(sub);
        }
        if guarded.is_some() && head.len() < 2 {
            return None;
        }
        // With arguments: those words and any arguments; alone: Claude
        // Code's prefix form, which covers both.
        let rule = if c.argv.len() > head.len() {
            format!("bash({} *)", head.join(" "))
        } else {
            format!("bash({}:*)", head.join(" "))
        };
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    if rules.is_empty() || rules.len() > 3 {
        return None;
    }
    let file = ctx
        .places
        .automode_config
        .as_ref()
        .map(|d| d.join("config.json"))?;
    let shown = match ctx.places.in_home(&file) {
        Some(rel) => format!("~/{}", rel.display()),
        None => file.display().to_string(),
    };
    Some((rules, shown))
}

// ------------------------------------------------------------ facts

/// What the allow tiers need to know about the script, computed once.
#[derive(Debug, Default)]
struct Facts {
    classes: Vec<Class>,
    /// Reasons only the classifier can settle (first is reported).
    review: Vec<String>,
    /// Programs automode does not know.
    unknown: Vec<String>,
    /// Reasons the enforced sandbox answers (a write to `/tmp`, a script
    /// that does not exist yet, inline code): the classifier's, or the
    /// contained tier's.
    contained: Vec<String>,
    /// The first file the script changes (other than /dev/null).
    first_write: Option<String>,
    uses_git: bool,
    /// The line reads a secret or names a protected path: no command in
    /// it rides along with an allow rule (`reads_ride_along`).
    sensitive: bool,
}

impl Facts {
    /// The first reason an allow tier other than the contained one stops.
    fn first_reason(&self) -> Option<&String> {
        self.review
            .first()
            .or(self.contained.first())
            .or(self.unknown.first())
    }

    /// A reason the network wall answers where it is up for the command
    /// (contained work), else one for the classifier.
    fn walled(&mut self, ctx: &Ctx<'_>, why: String) {
        if ctx.contained.is_some_and(|c| c.network_wall) {
            self.contained.push(why);
        } else {
            self.review.push(why);
        }
    }

    /// A reason the sandbox answers when it is enforced (`ctx.contained`),
    /// else one for the classifier.
    fn sandboxed(&mut self, ctx: &Ctx<'_>, answered: bool, why: String) {
        if answered && ctx.contained.is_some() {
            self.contained.push(why);
        } else {
            self.review.push(why);
        }
    }
}

/// The sandbox lets the command write `p`.
fn writable(ctx: &Ctx<'_>, p: &Path) -> bool {
    ctx.contained.is_some_and(|s| s.writable(p))
}

fn facts<'s>(ctx: &Ctx<'_>, scratch: &'s mut Scratch) -> &'s Facts {
    scratch.facts.get_or_insert_with(|| compute_facts(ctx))
}

/// Does this variable name look like it holds a secret?
pub fn policy_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.split('_').any(|part| {
        matches!(
            part,
            "KEY"
                | "KEYS"
                | "APIKEY"
                | "TOKEN"
                | "TOKENS"
                | "SECRET"
                | "SECRETS"
                | "PASSWORD"
                | "PASSWD"
                | "PASS"
                | "CREDENTIAL"
                | "CREDENTIALS"
                | "AUTH"
                | "COOKIE"
                | "PAT"
        )
    }) && !upper.ends_with("_FILE")
        && !upper.ends_with("_PATH")
}

/// A `$NAME` or `${NAME…}` in `raw` whose name looks like a secret.
fn secret_variable(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' {
            let mut j = i + 1;
            if j < bytes.len() && bytes[j] == b'{' {
                j += 1;
            }
            let start = j;
            while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                j += 1;
            }
            let name = &raw[start..j];
            if policy_secret_name(name) {
                return Some(name.to_string());
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    None
}

/// Programs whose file effects the analysis records exactly (their
/// arguments are judged through those effects).
pub(crate) const MODELED: &[&str] = &[
    "cp", "mv", "mkdir", "touch", "ln", "install", "rmdir", "rm", "unlink", "chmod", "chown",
    "chgrp", "tar", "gtar", "bsdtar", "tee", "sed", "gsed", "sort", "uniq", "dd", "truncate",
    "shred", "curl", "wget", "find", "rsync", "mktemp_",
];

/// Programs that only name files (print, test, list, hash, count): a
/// secret path among their arguments is not read out.
pub(crate) const NAMES_ONLY: &[&str] = &[
    "echo",
    "printf",
    "test",
    "[",
    "[[",
    "ls",
    "stat",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "which",
    "type",
    "command",
    "du",
    "df",
    "file",
    "wc",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "mkdir",
    "touch",
    "cd",
    "pushd",
    "export",
    "chmod",
];

/// Harmless special files.
fn device_sink(p: &Path) -> bool {
    let s = p.to_string_lossy();
    matches!(
        s.as_ref(),
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero"
    ) || s.starts_with("/dev/fd/")
        || s.starts_with("/proc/self/fd/")
}

/// A command as the tool tables see it: every word with its value (a
/// word resolved from the environment counts as the text it is).
pub fn call_of<'a>(
    a: &'a Analysis,
    i: usize,
    name: &'a str,
    places: &'a Places,
    network: Option<&'a crate::sandbox::net::allow::AllowList>,
) -> tools::Call<'a> {
    let c = &a.commands[i];
    tools::Call {
        name,
        args: c.argv.iter().skip(1).map(|w| w.known()).collect(),
        places,
        command: c,
        network,
    }
}

/// A word before `--` that is an option whose text is only known at run
/// time (`-o$X`, `--out="$(…)"`): no table can say what it does.
fn unplaced_option(c: &crate::shell::analysis::CommandInfo) -> Option<&str> {
    for w in c.argv.iter().skip(1) {
        if w.lit() == Some("--") {
            return None;
        }
        if w.known().is_none() {
            // (A word only known at run time is never `-` alone.)
            if w.literal_prefix().starts_with('-') {
                return Some(&w.raw);
            }
        }
    }
    None
}

/// The class the tables give a program they do not know.
fn unknown_program(class: &Class) -> bool {
    matches!(class, Class::Unknown(_))
}

fn compute_facts(ctx: &Ctx<'_>) -> Facts {
    let a = ctx.analysis;
    let mut f = Facts::default();
    if let Some(w) = widening(ctx) {
        f.review.push(w);
    }
    for (i, c) in a.commands.iter().enumerate() {
        let class = match c.base_name() {
            None => Class::Review(format!(
                "the program {} is only known at run time",
                c.argv.first().map_or("", |w| w.raw.as_str())
            )),
            Some(name) => {
                let class = tools::judge(&call_of(a, i, name, ctx.places, ctx.network_allow));
                match unplaced_option(c) {
                    Some(w) if !matches!(class, Class::Neutral) && !unknown_program(&class) => {
                        Class::Review(format!(
                            "{name} gets {w}, an option only known at run time (what it does cannot be placed)"
                        ))
                    }
                    _ => class,
                }
            }
        };
        if c.base_name() == Some("git") {
            f.uses_git = true;
        }
        // Variables that redirect traffic, trust other certificates or
        // move configuration.
        for (n, _) in &c.env {
            if let Some(why) = catalogue::review_var(n) {
                f.review
                    .push(format!("{n}=… for {}: {why}", c.base_name().unwrap_or("")));
            }
        }
        // Printing every shell variable (they hold tokens).
        let operands = c
            .argv
            .iter()
            .skip(1)
            .filter(|w| w.lit().is_none_or(|t| !t.starts_with('-')))
            .count();
        // `compgen -e`, `-v`, `-A variable`/`export`: names only, but
        // `compgen -v | xargs -I{} …` is a step from the values.
        let compgen_vars = c.base_name() == Some("compgen")
            && c.argv.iter().skip(1).any(|w| {
                w.lit().is_none_or(|t| {
                    matches!(t, "-e" | "-v" | "variable" | "export")
                        || (t.starts_with('-')
                            && !t.starts_with("--")
                            && (t.contains('e') || t.contains('v')))
                })
            });
        if compgen_vars {
            f.review
                .push("compgen lists the environment's variables".to_string());
        } else if matches!(
            c.base_name(),
            Some("set" | "declare" | "typeset" | "export" | "readonly" | "local")
        ) && operands == 0
            && c.argv.iter().skip(1).all(|w| {
                // `set -e`, `set -o pipefail` change options; the others
                // print whatever flags they have.
                w.lit().is_some_and(|t| {
                    t.starts_with('-')
                        && (c.base_name() != Some("set")
                            || !t.starts_with("-o")
                                && !t.starts_with("+o")
                                && !matches!(
                                    t,
                                    "-e" | "-u" | "-x" | "-eu" | "-ex" | "-euo" | "-eux" | "-o"
                                ))
                })
            })
            && !(c.base_name() == Some("set") && c.argv.len() > 1)
        {
            f.review.push(format!(
                "{} prints shell variables, which may hold tokens",
                c.base_name().unwrap_or("")
            ));
        }
        // A secret-looking variable used by a program (not just moved
        // between variables).
        if c.base_name().is_some_and(|n| {
            !matches!(
                n,
                "export"
                    | "local"
                    | "declare"
                    | "typeset"
                    | "readonly"
                    | "unset"
                    | "test"
                    | "["
                    | "[["
            )
        }) && let Some(var) = c.argv.iter().skip(1).find_map(|w| secret_variable(&w.raw))
        {
            f.review.push(format!(
                "{} uses ${var}, which looks like a secret",
                c.base_name().unwrap_or("")
            ));
        }
        for (n, v) in &c.env {
            if n == "PATH"
                && !v.known().is_some_and(|v| catalogue::path_value_ok(ctx, v))
                && !catalogue::path_raw_ok(ctx, &v.raw)
            {
                f.review.push(format!(
                    "runs {} with PATH={}",
                    c.base_name().unwrap_or(""),
                    v.raw
                ));
            }
        }
        // A function that calls itself (`:(){ :|:& };:`).
        if let (Some(func), Some(name)) = (&c.in_function, c.name())
            && func == name
        {
            f.review.push(format!(
                "the function {name} calls itself (a fork bomb when backgrounded)"
            ));
        }
        // Project work run somewhere else after `cd`.
        if matches!(class, Class::Routine)
            && (c.cwd.is_empty() || c.cwd.iter().any(|d| !ctx.places.inside_cwd(d)))
        {
            let wher = c.cwd.first().map_or_else(
                || "a directory only known at run time".to_string(),
                |d| d.display().to_string(),
            );
            let answered = !c.cwd.is_empty() && c.cwd.iter().all(|d| writable(ctx, d));
            f.sandboxed(
                ctx,
                answered,
                format!(
                    "{} runs in {wher}, outside the working directory",
                    c.base_name().unwrap_or("")
                ),
            );
        }
        // Routine tools whose files the analysis does not model: a path
        // outside the working directory among their arguments
        // (`pip install -e /tmp/x`, `split f /tmp/x`, `cargo new ../x`).
        if matches!(class, Class::Routine) && !c.base_name().is_some_and(|n| MODELED.contains(&n)) {
            let base = c.cwd.first().unwrap_or(&ctx.places.cwd);
            for t in c.argv.iter().skip(1).filter_map(|w| w.lit()) {
                let t = t
                    .split_once('=')
                    .map_or(t, |(k, v)| if k.starts_with('-') { v } else { t });
                if !(t.starts_with('/') || t.starts_with("~/") || t.starts_with(".."))
                    || device_sink(Path::new(t))
                {
                    continue;
                }
                if c.base_name() == Some("mktemp") && t.starts_with("/tmp/") {
                    continue;
                }
                // `-subj /CN=x` is not a path: the first directory must exist.
                if let Some(rest) = t.strip_prefix('/') {
                    let first = rest.split('/').next().unwrap_or("");
                    if first.is_empty() || !Path::new("/").join(first).exists() {
                        continue;
                    }
                }
                let p = crate::shell::paths::resolve(base, t).0;
                if !ctx.places.inside_cwd(&p) {
                    f.sandboxed(
                        ctx,
                        writable(ctx, &p),
                        format!(
                            "{} names {}, outside the working directory",
                            c.base_name().unwrap_or(""),
                            p.display()
                        ),
                    );
                    break;
                }
            }
        }
        // Routine tools that write where their arguments say: a protected
        // path among them (`git mv x .git/hooks/…`, `unzip -d .git`).
        // `git add` only reads the files it names (into the index).
        let git_add = c.base_name() == Some("git")
            && c.argv
                .iter()
                .skip(1)
                .find_map(|w| w.lit())
                .filter(|w| !w.starts_with('-'))
                == Some("add");
        if matches!(class, Class::Routine) && !git_add {
            let base = c.cwd.first().unwrap_or(&ctx.places.cwd);
            for t in c.argv.iter().skip(1).filter_map(|w| w.lit()) {
                let t = t
                    .split_once('=')
                    .map_or(t, |(k, v)| if k.starts_with('-') { v } else { t });
                if t.starts_with('-') || t.is_empty() {
                    continue;
                }
                let p = crate::shell::paths::resolve(base, t).0;
                if let Some(why) = protected_path(ctx, &p) {
                    f.sensitive = true;
                    f.review.push(format!(
                        "{} names the protected path {} ({why})",
                        c.base_name().unwrap_or(""),
                        p.display()
                    ));
                    break;
                }
            }
        }
        match &class {
            Class::Unknown(why) => f.unknown.push(why.clone()),
            Class::Review(why) => f.review.push(why.clone()),
            Class::Network(why) => f.walled(ctx, why.clone()),
            _ => {}
        }
        f.classes.push(class);
        // Secrets named on the command line (`base64 ~/.ssh/id_rsa`,
        // `tar czf k.tgz ~/.ssh`), unless the program only names files.
        if !c.base_name().is_some_and(|n| NAMES_ONLY.contains(&n)) {
            for w in c.argv.iter().skip(1) {
                let Some(t) = w.known() else { continue };
                let t = t
                    .split_once('=')
                    .map_or(t, |(k, v)| if k.starts_with('-') { v } else { t });
                if t.starts_with('-')
                    || !(t.contains('/') || t.starts_with('.') || t.starts_with('~'))
                {
                    continue;
                }
                let base = c.cwd.first().unwrap_or(&ctx.places.cwd);
                let p = crate::shell::paths::resolve(base, t).0;
                if let Some(why) = ctx.places.secret_under(&p) {
                    f.sensitive = true;
                    f.review.push(format!("reads a secret: {why}"));
                }
            }
        }
    }
    // A variable that makes programs load code, set from inside the
    // project (`LD_PRELOAD=$PWD/x.so`, `export PYTHONPATH=$PWD/src`): the
    // project's code runs, which is contained work, never only reading.
    let from_project = a
        .commands
        .iter()
        .flat_map(|c| {
            c.env
                .iter()
                .map(|(n, v)| (n.as_str(), Some(v.raw.as_str()), v.known()))
        })
        .chain(
            a.assignments
                .iter()
                .map(|s| (s.name.as_str(), s.raw.as_deref(), s.value.as_deref())),
        )
        .find(|(n, raw, value)| {
            *n != "PATH"
                && catalogue::exec_var(n).is_some()
                && !catalogue::harmless_value(ctx, n, *value)
                && raw.is_some_and(|r| catalogue::list_raw_inside(ctx, r, n))
        });
    if let Some((n, _, _)) = from_project {
        f.sandboxed(
            ctx,
            true,
            format!("{n} makes programs load code from the project"),
        );
    }
    for finding in &a.findings {
        match finding.kind {
            FindingKind::RuntimeSink => f
                .review
                .push(format!("runtime evaluation: {}", finding.detail)),
            FindingKind::ForeignShell => f.review.push(format!(
                "a shell whose grammar is not bash's: {}",
                finding.detail
            )),
            FindingKind::InteractiveShell => f.review.push(finding.detail.clone()),
            FindingKind::InlineCode => {
                let (lang, code) = inline::split_detail(&finding.detail);
                if !inline::harmless(lang, code) {
                    let why = format!(
                        "inline {lang} code is not proven harmless: {}",
                        code.chars().take(120).collect::<String>()
                    );
                    // A deletion call: contained only when each target is
                    // a literal build artifact in the project.
                    let deletes = inline::deletions(lang, code).into_iter().find_map(|d| {
                        let kept = d.target.as_deref().is_some_and(|t| {
                            let p = crate::shell::paths::resolve(&ctx.places.cwd, t).0;
                            ctx.places.artifact(&p).is_some()
                        });
                        (!kept).then(|| d.target.unwrap_or_else(|| "a computed path".into()))
                    });
                    match inline::uncontained(lang, code) {
                        Some(what) => f.review.push(format!("{why} (it {what})")),
                        None if let Some(t) = deletes => {
                            f.review.push(format!("{why} (it deletes {t})"));
                        }
                        None => match inline::networked(code) {
                            Some(what) => f.walled(ctx, format!("{why} (it {what})")),
                            None => f.sandboxed(ctx, true, why),
                        },
                    }
                }
            }
            FindingKind::MissingScript => {
                // A script that does not exist is either a mistake (bash
                // reports it) or made by something the analysis does not
                // model: only a virtual environment's activate script,
                // made by a venv command just before, is expected.
                let idx = finding.command.unwrap_or(0);
                let venv = finding.detail.contains("/bin/activate")
                    && a.commands.iter().take(idx).any(|c| {
                        c.argv
                            .iter()
                            .any(|w| matches!(w.lit(), Some("venv" | "virtualenv")))
                    });
                // In the sandbox, a project script an earlier command of
                // the same script may make (`make && ./bin/test`) runs
                // confined; one nothing made first, or one outside the
                // project, stays the classifier's.
                let made_first = f
                    .classes
                    .iter()
                    .take(idx)
                    .any(|c| !matches!(c, Class::ReadOnly | Class::Neutral))
                    && finding
                        .detail
                        .strip_prefix("runs ")
                        .and_then(|d| d.split_once(", which does not exist yet"))
                        .is_some_and(|(p, _)| ctx.places.inside_cwd(Path::new(p)));
                if !venv {
                    f.sandboxed(
                        ctx,
                        made_first,
                        format!("{}: what it will contain is not known", finding.detail),
                    );
                }
            }
            _ => {}
        }
    }
    for e in &a.effects {
        effect_facts(ctx, e, &mut f);
    }
    if let Some(why) = flood::flood(a) {
        f.review.push(why);
    }
    for asg in &a.assignments {
        let later = (asg.before..a.commands.len()).any(|i| {
            !a.commands[i]
                .base_name()
                .is_some_and(|n| catalogue::INERT_BUILTINS.contains(&n))
        });
        if later && let Some(why) = catalogue::review_var(&asg.name) {
            f.review
                .push(format!("sets {} before later commands: {why}", asg.name));
        }
        if asg.name == "PATH"
            && (asg.before..a.commands.len()).any(|i| {
                !a.commands[i]
                    .base_name()
                    .is_some_and(|n| catalogue::INERT_BUILTINS.contains(&n))
            })
            && !asg
                .value
                .as_deref()
                .is_some_and(|v| catalogue::path_value_ok(ctx, v))
        {
            // Whatever a changed PATH finds runs confined in the sandbox.
            f.sandboxed(
                ctx,
                true,
                format!(
                    "sets PATH to {}, so later program names may run other programs",
                    asg.value
                        .as_deref()
                        .unwrap_or("a value only known at run time")
                ),
            );
        }
    }
    f
}

fn effect_facts(ctx: &Ctx<'_>, e: &Effect, f: &mut Facts) {
    let places = ctx.places;
    // `/dev/stdout` as written is a stream, whatever automode's own
    // stdout resolves to.
    if device_sink(Path::new(&e.raw)) {
        return;
    }
    let names_only = e
        .command
        .and_then(|i| ctx.analysis.commands.get(i))
        .and_then(|c| c.base_name())
        .is_some_and(|n| NAMES_ONLY.contains(&n));
    if let Some(p) = &e.path
        && (p.starts_with("/dev/tcp") || p.starts_with("/dev/udp"))
    {
        f.review
            .push(format!("opens a network connection ({})", p.display()));
        return;
    }
    if e.kind == EffectKind::Read {
        // `/proc/self/cwd/…` as written is the command's own view.
        if e.raw.starts_with("/proc/")
            && let Some(why) = places.secret(Path::new(&e.raw))
        {
            f.sensitive = true;
            f.review.push(format!("reads {}: {why}", e.raw));
        }
        if let Some(p) = &e.path {
            let secret = if e.recursive {
                places.secret_under(p)
            } else {
                places.secret(p)
            };
            if let Some(why) = secret {
                f.sensitive = true;
                f.review.push(format!("reads a secret: {why}"));
            }
            let home_wide = e.recursive
                && (places.is_home_root(p)
                    || places.home.as_ref().is_some_and(|h| h.starts_with(p)));
            if home_wide {
                f.sensitive = true;
                f.review
                    .push(format!("reads all of {} (secrets live there)", p.display()));
            } else if e.recursive
                && !names_only
                && !places.inside_cwd(p)
                && let Some(why) = places.foreign_tree(p)
            {
                f.sensitive = true;
                f.review.push(format!(
                    "reads {} recursively: {why}, with its .env files and keys",
                    e.raw
                ));
            }
            if e.target == TargetKind::Glob && !places.inside_cwd(p) && !names_only {
                f.sensitive = true;
                f.review.push(format!(
                    "reads files matching {} outside the working directory",
                    e.raw
                ));
            }
        } else if !names_only {
            f.sensitive = true;
            f.sandboxed(
                ctx,
                true,
                format!("reads {}, a file named only at run time", e.raw),
            );
        }
        return;
    }
    let Some(path) = &e.path else {
        f.review.push(format!(
            "{} {}, a path only known at run time",
            verb(e.kind),
            e.raw
        ));
        return;
    };
    if device_sink(path) {
        return;
    }
    let all: Vec<&PathBuf> = e
        .path
        .iter()
        .chain(e.lexical.iter())
        .chain(e.alternatives.iter())
        .collect();
    if e.kind == EffectKind::Delete {
        if artifact_effect(ctx, e) || rename_source(ctx, e) {
            f.first_write
                .get_or_insert_with(|| path.display().to_string());
            return;
        }
        if let Some(outside) = all
            .iter()
            .find(|p| !places.inside_cwd(p) && !places.checkpointed(p))
        {
            f.review.push(format!(
                "deletes {}, outside the working directory",
                outside.display()
            ));
            return;
        }
        let exists = all.iter().any(|p| std::fs::symlink_metadata(p).is_ok());
        // A target the script itself filled first (`mv src/x build/ && rm
        // build/x`) holds what was moved there.
        let filled_first = ctx.analysis.effects.iter().any(|o| {
            matches!(
                o.kind,
                EffectKind::Write | EffectKind::Create | EffectKind::Append
            ) && o.command != e.command
                && o.path
                    .as_ref()
                    .is_some_and(|p| all.iter().any(|d| p.starts_with(d) || d.starts_with(p)))
        });
        if !exists && e.target == TargetKind::Literal && !filled_first {
            return;
        }
        // What the script filled it with came from the script or from
        // places whose own deletion is judged; the checkpoint holds what
        // was there.
        if !exists && filled_first && !all.iter().all(|p| places.in_checkpointed_project(p)) {
            f.review.push(format!(
                "deletes {}, which this script fills first",
                path.display()
            ));
            return;
        }
        if recoverable(ctx, e) {
            f.first_write
                .get_or_insert_with(|| path.display().to_string());
            return;
        }
        if e.filter.is_some() && e.target != TargetKind::Literal || e.filter.is_some() {
            f.review.push(format!(
                "deletes files matching {} under {}",
                e.filter.as_deref().unwrap_or("*"),
                path.display()
            ));
            return;
        }
        f.review.push(format!(
            "deletes {}, which already exists and cannot be got back ({})",
            path.display(),
            why_not_back(ctx)
        ));
        return;
    }
    if let Some(dest) = overwritten(ctx, e) {
        f.review.push(format!(
            "overwrites {}, which has content that cannot be got back ({})",
            dest.display(),
            why_not_back(ctx)
        ));
    }
    let command = e.command.and_then(|i| ctx.analysis.commands.get(i));
    if ln_target_inert(ctx, e) {
        return;
    }
    // Copying /dev/null over an existing file empties it.
    let from_null = command.is_some_and(|c| {
        c.argv.iter().skip(1).any(|w| w.lit() == Some("/dev/null"))
            || matches!(&c.stdin, Stdin::File { path: Some(p) } if p.as_path() == Path::new("/dev/null"))
    });
    if from_null
        && matches!(e.kind, EffectKind::Write)
        && std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0)
        && places.artifact(path).is_none()
    {
        f.review.push(format!(
            "empties {}, which already has content",
            path.display()
        ));
    }
    // `> file` with no command (or `:`) only empties the file.
    if e.redirect
        && e.kind == EffectKind::Write
        && command.is_none_or(|c| {
            let args: Vec<Option<&str>> = c.argv.iter().skip(1).map(|w| w.lit()).collect();
            match c.base_name() {
                Some(":" | "true" | "false") => true,
                Some("echo") => {
                    args.iter().all(|a| matches!(a, Some("-n" | ""))) && !args.is_empty()
                }
                Some("printf") => args == [Some("")],
                _ => false,
            }
        })
        && std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
        && places.artifact(path).is_none()
    {
        f.review.push(format!(
            "empties {}, which already has content",
            path.display()
        ));
    }
    f.first_write
        .get_or_insert_with(|| path.display().to_string());
    if let Some(outside) = all
        .iter()
        .find(|p| !places.inside_cwd(p) && !device_sink(p))
    {
        f.sandboxed(
            ctx,
            all.iter().all(|p| device_sink(p) || writable(ctx, p)),
            format!(
                "{} {}, outside the working directory",
                verb(e.kind),
                outside.display()
            ),
        );
    }
}

fn verb(kind: EffectKind) -> &'static str {
    match kind {
        EffectKind::Read => "reads",
        EffectKind::Write | EffectKind::Create => "writes",
        EffectKind::Append => "appends to",
        EffectKind::Delete => "deletes",
        EffectKind::Permission => "changes permissions of",
        EffectKind::Owner => "changes the owner of",
    }
}

/// `ln -s TARGET LINK` names TARGET without changing it, unless
/// something later in the script writes through LINK (later scripts see
/// the link resolved).
pub fn ln_target_inert(ctx: &Ctx<'_>, e: &Effect) -> bool {
    let command = e.command.and_then(|i| ctx.analysis.commands.get(i));
    if !(command.is_some_and(|c| c.base_name() == Some("ln"))
        && e.kind == EffectKind::Write
        && !e.redirect)
    {
        return false;
    }
    let links: Vec<&PathBuf> = ctx
        .analysis
        .effects
        .iter()
        .filter(|o| o.command == e.command && o.kind == EffectKind::Create)
        .filter_map(|o| o.path.as_ref())
        .collect();
    !ctx.analysis.effects.iter().any(|o| {
        o.command != e.command
            && o.kind != EffectKind::Read
            && o.path
                .as_ref()
                .is_some_and(|p| links.iter().any(|l| p.starts_with(l)))
    })
}

/// A deletion whose every target is a regenerable build artifact inside
/// the working directory, and that this script did not first fill with
/// other files (`mv src build/ && rm -rf build`).
pub fn artifact_effect(ctx: &Ctx<'_>, e: &Effect) -> bool {
    let places = ctx.places;
    if e.kind != EffectKind::Delete {
        return false;
    }
    let filled = ctx.analysis.effects.iter().any(|o| {
        matches!(
            o.kind,
            EffectKind::Write | EffectKind::Create | EffectKind::Append
        ) && !o.redirect
            && o.command != e.command
            && o.command
                .and_then(|i| ctx.analysis.commands.get(i))
                .and_then(|c| c.base_name())
                .is_some_and(|n| {
                    matches!(
                        n,
                        "mv" | "cp"
                            | "rsync"
                            | "tar"
                            | "ln"
                            | "install"
                            | "git"
                            | "unzip"
                            | "cpio"
                            | "7z"
                    )
                })
            && o.path.as_ref().is_some_and(|p| {
                e.path
                    .as_ref()
                    .is_some_and(|d| p.starts_with(d) || d.starts_with(p))
            })
    });
    if filled {
        return false;
    }
    let all: Vec<&PathBuf> = e
        .path
        .iter()
        .chain(e.lexical.iter())
        .chain(e.alternatives.iter())
        .collect();
    if all.is_empty() {
        return false;
    }
    all.iter().all(|p| {
        if !places.inside_cwd(p) || p.as_path() == places.cwd {
            return false;
        }
        match (&e.target, &e.filter) {
            (TargetKind::Literal | TargetKind::Dynamic, None) => places.artifact(p).is_some(),
            (_, Some(filter)) => {
                places.artifact(p).is_some() || places::artifact_name(filter).is_some()
            }
            (TargetKind::Glob, None) => places.artifact(p).is_some(),
        }
    }) || all.iter().all(|p| {
        // `find . -name __pycache__ -exec rm -rf {} +`: the base is the
        // working directory itself, the filter an artifact name.
        p.as_path() == places.cwd
            && e.filter
                .as_deref()
                .is_some_and(|f| places::artifact_name(f).is_some())
    })
}

/// What a deletion removes, when each target can be named now: a literal
/// (as `rm` sees it: a symlink itself), or a glob in one literal
/// directory, matched here. None for a value known only at run time, a
/// `find` filter, or a glob in a directory part.
fn delete_targets(e: &Effect) -> Option<Vec<PathBuf>> {
    // A glob's filter is its own last part; any other is `find`'s.
    if e.filter.is_some() && e.target != TargetKind::Glob {
        return None;
    }
    match e.target {
        TargetKind::Literal => {
            let mut all: Vec<PathBuf> = e
                .lexical
                .iter()
                .chain(e.path.iter())
                .chain(e.alternatives.iter())
                .cloned()
                .collect();
            all.dedup();
            (!all.is_empty()).then_some(all)
        }
        TargetKind::Glob => {
            let dir = e.path.as_ref()?;
            let (head, last) = e.raw.rsplit_once('/').unwrap_or(("", &e.raw));
            let pattern = e.filter.as_deref().unwrap_or(last);
            if head.contains(['*', '?', '[']) || pattern.is_empty() {
                return None;
            }
            let mut out = Vec::new();
            for entry in std::fs::read_dir(dir).ok()? {
                let entry = entry.ok()?;
                let name = entry.file_name();
                if catalogue::glob_match(pattern, &name.to_string_lossy()) {
                    out.push(dir.join(name));
                }
            }
            Some(out)
        }
        TargetKind::Dynamic => None,
    }
}

/// Another command of the script writes into this target first (`mv src
/// build/ && rm -rf build`): what it holds then is not what is there now.
fn filled_by_script(ctx: &Ctx<'_>, e: &Effect) -> bool {
    ctx.analysis.effects.iter().any(|o| {
        matches!(
            o.kind,
            EffectKind::Write | EffectKind::Create | EffectKind::Append
        ) && o.command != e.command
            && o.path.as_ref().is_some_and(|p| {
                e.path
                    .as_ref()
                    .is_some_and(|d| p.starts_with(d) || d.starts_with(p))
            })
    })
}

/// Why a deletion's or an overwrite's target cannot be got back, for the
/// message: what the checkpoint could not keep, or that there is none.
fn why_not_back(ctx: &Ctx<'_>) -> String {
    const OTHERS: &str = "not made by this session, not a build artifact, not unchanged in git";
    match (ctx.recovery.not_kept(), &ctx.places.checkpoint) {
        (Some(why), _) => format!("{why}; {OTHERS}"),
        (None, Some(_)) => format!("outside what automode undo keeps; {OTHERS}"),
        (None, None) => format!(
            "{OTHERS}; no checkpoint is taken here (checkpoint.enabled, or not a project), so automode undo could not bring it back"
        ),
    }
}

/// Every target of this deletion can be got back (`recover`): made by
/// this session, a build artifact, unchanged in git, or kept by the
/// checkpoint before the command.
pub fn recoverable(ctx: &Ctx<'_>, e: &Effect) -> bool {
    if e.kind != EffectKind::Delete {
        return false;
    }
    // A target the script fills first holds what was moved there; the
    // checkpoint holds what was there before, and what was moved in had
    // its own deletion judged.
    if filled_by_script(ctx, e)
        && !e
            .path
            .as_ref()
            .is_some_and(|p| ctx.places.in_checkpointed_project(p))
    {
        return false;
    }
    // `git clean` removes what is in its directory, never the directory.
    let contents_only = e
        .command
        .and_then(|i| ctx.analysis.commands.get(i))
        .is_some_and(|c| {
            c.base_name() == Some("git") && c.argv.iter().any(|w| w.lit() == Some("clean"))
        });
    if contents_only {
        return e.path.as_ref().is_some_and(|dir| {
            ctx.places
                .checkpoint
                .as_ref()
                .is_some_and(|c| c.inside_not_held(dir, recover::TREE_LIMIT).is_none())
        });
    }
    let Some(targets) = delete_targets(e) else {
        // `find DIR -name … -delete`: all it can remove is in DIR.
        return e.filter.is_some()
            && e.target != TargetKind::Dynamic
            && e.path.as_ref().is_some_and(|dir| {
                ctx.places
                    .checkpoint
                    .as_ref()
                    .is_some_and(|c| c.inside_not_held(dir, recover::TREE_LIMIT).is_none())
            });
    };
    ctx.recovery
        .held_all(ctx.places, &targets)
        .iter()
        .all(Option::is_some)
}

/// The existing file with content that this write replaces and that
/// cannot be got back: `mv`/`cp`/`install` onto a file (or into a
/// directory holding one of the same name), `dd of=`. None for a new
/// file, an empty one, `-n`/`--no-clobber`/`--backup`, and a recoverable
/// one.
fn overwritten(ctx: &Ctx<'_>, e: &Effect) -> Option<PathBuf> {
    if e.kind != EffectKind::Write || e.redirect {
        return None;
    }
    let i = e.command?;
    let c = ctx.analysis.commands.get(i)?;
    let name = c.base_name()?;
    if !matches!(name, "mv" | "cp" | "install" | "dd") {
        return None;
    }
    let keeps = c.argv.iter().skip(1).filter_map(|w| w.known()).any(|a| {
        matches!(
            a,
            "-n" | "--no-clobber" | "-b" | "--update=none" | "--update=older"
        ) || a.starts_with("--backup")
            || (a.starts_with('-') && !a.starts_with("--") && (a.contains('n') || a.contains('b')))
    });
    if keeps && name != "dd" {
        return None;
    }
    let path = e.path.as_ref()?;
    let dests: Vec<PathBuf> = if path.is_dir() && name != "dd" {
        // Into a directory: each source's name there.
        ctx.analysis
            .effects
            .iter()
            .filter(|o| o.command == Some(i) && o.kind != EffectKind::Write)
            .filter_map(|o| o.lexical.as_ref().or(o.path.as_ref()))
            .filter_map(|src| src.file_name().map(|n| path.join(n)))
            .collect()
    } else {
        vec![path.clone()]
    };
    let full: Vec<PathBuf> = dests
        .into_iter()
        .filter(|d| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_file() && m.len() > 0))
        .collect();
    if full.is_empty() {
        return None;
    }
    let held = ctx.recovery.held_all(ctx.places, &full);
    full.into_iter()
        .zip(held)
        .find_map(|(d, h)| h.is_none().then_some(d))
}

/// `mv a b` inside the working directory: the source is renamed, not
/// destroyed.
pub fn rename_source(ctx: &Ctx<'_>, e: &Effect) -> bool {
    let Some(i) = e.command else { return false };
    let Some(c) = ctx.analysis.commands.get(i) else {
        return false;
    };
    if c.base_name() != Some("mv") || e.target == TargetKind::Dynamic {
        return false;
    }
    let inside = |p: &Option<PathBuf>| {
        p.as_ref()
            .is_some_and(|p| ctx.places.inside_cwd(p) && *p != ctx.places.cwd)
    };
    // `mv *.md docs/`: a glob's base may be the working directory itself.
    let source_inside = if e.target == TargetKind::Glob {
        e.path.as_ref().is_some_and(|p| ctx.places.inside_cwd(p))
            && !e
                .filter
                .as_deref()
                .is_some_and(|f| f.chars().all(|c| c == '*'))
    } else {
        inside(&e.path)
    };
    source_inside
        && ctx
            .analysis
            .effects
            .iter()
            .filter(|o| {
                o.command == Some(i) && o.kind != EffectKind::Delete && o.kind != EffectKind::Read
            })
            .all(|o| inside(&o.path))
}

/// A configured path, absolute: `~/x` in the home, relative to the
/// working directory.
fn expand(ctx: &Ctx<'_>, p: &str) -> Option<PathBuf> {
    let abs = if let Some(rest) = p.strip_prefix("~/") {
        ctx.places.home.as_ref()?.join(rest)
    } else if p == "~" {
        ctx.places.home.clone()?
    } else {
        ctx.places.cwd.join(p)
    };
    Some(crate::shell::paths::resolve(Path::new("/"), &abs.to_string_lossy()).0)
}

/// Every path the script touches, with how.
fn touched(ctx: &Ctx<'_>) -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    for e in &ctx.analysis.effects {
        for p in e
            .path
            .iter()
            .chain(e.lexical.iter())
            .chain(e.alternatives.iter())
        {
            out.push((p.clone(), verb(e.kind)));
        }
    }
    for c in &ctx.analysis.commands {
        for w in c.argv.iter().skip(1) {
            if let Some(t) = w.known()
                && (t.starts_with('/')
                    || t.starts_with('~')
                    || t.starts_with('.')
                    || t.contains('/'))
                && !t.starts_with('-')
            {
                out.push((crate::shell::paths::resolve(&ctx.places.cwd, t).0, "names"));
            }
        }
    }
    out
}

/// The first protected path the script changes.
fn protected_write(ctx: &Ctx<'_>) -> Option<String> {
    for e in &ctx.analysis.effects {
        if e.kind == EffectKind::Read || ln_target_inert(ctx, e) {
            continue;
        }
        for p in e
            .path
            .iter()
            .chain(e.lexical.iter())
            .chain(e.alternatives.iter())
        {
            if device_sink(p) {
                continue;
            }
            if let Some(why) = protected_path(ctx, p) {
                return Some(format!("{} {} ({why})", verb(e.kind), p.display()));
            }
        }
    }
    None
}

/// Which protected-path entry covers `p`, if any.
fn protected_path(ctx: &Ctx<'_>, p: &Path) -> Option<String> {
    for entry in &ctx.config.protected_paths {
        let name = entry.value.as_str();
        let hit = if name.contains('/') || name.starts_with('~') {
            expand(ctx, name).is_some_and(|base| p.starts_with(base))
        } else {
            // A name: at the top of the project (`.env`, `.husky`), and
            // anywhere for version-control dirs.
            let Ok(rel) = p.strip_prefix(&ctx.places.cwd) else {
                continue;
            };
            let vcs = matches!(name, ".git" | ".hg" | ".svn" | ".automode");
            rel.components()
                .next()
                .is_some_and(|c| c.as_os_str() == name)
                || (vcs && rel.components().any(|c| c.as_os_str() == name))
        };
        if hit {
            return Some(format!("{name}, from {}", entry.source));
        }
    }
    None
}
