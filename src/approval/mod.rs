//! Approvals out of band: a command that ends in `ask` waits under a
//! random code for the user to run `automode approve CODE` in their own
//! terminal (or for `autoMode.askCommand`, or the terminal, to answer).
//!
//! An approval is single-use, expires, and is bound to the exact script
//! judged, the working directory (device, inode and birth time), the session and a
//! digest of the effective policy: the agent's next submission of exactly
//! that command consumes it, anything else does not match. The book lives
//! in automode's state directory (`approvals.json`), which agents cannot
//! write and the sandbox hides; the code comes from the kernel's random
//! source, never from the command.

pub mod channel;

use std::io::Read as _;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::context::Context;
use crate::judge::{Decided, Judge};
use crate::policy::Tier;
use crate::state;

/// The code's alphabet: Crockford's base 32 (no I, L, O, U).
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Where a command runs and what it is, as an approval is bound to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub session: String,
    /// The text judged (the agent's command inside a harness wrapper).
    pub script: String,
    pub cwd: PathBuf,
    pub dev: u64,
    pub ino: u64,
    /// The directory's birth time (ns): an inode number is reused when a
    /// directory is made again, its birth time is not.
    pub born: u64,
    /// SHA-256 of the effective policy and of the local files the
    /// command runs (a script the agent rewrites after the approval is
    /// another command).
    pub policy: String,
}

/// Programs that run the file named by their first operand.
const RUNS_ITS_OPERAND: &[&str] = &[
    "bash", "sh", "dash", "zsh", "python", "python3", "node", "deno", "bun", "ruby", "perl", "php",
    "lua", "source", ".",
];

/// The local files a command runs: a program named by a path
/// (`./build.sh`), or an interpreter's script operand (`python3 x.py`).
pub fn files_run(analysis: &crate::shell::Analysis, cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for c in &analysis.commands {
        let lits: Vec<&str> = c.argv.iter().map_while(|a| a.lit()).collect();
        let Some(name) = lits.first() else { continue };
        let base = name.rsplit('/').next().unwrap_or(name);
        let file = if name.contains('/') {
            Some(*name)
        } else if RUNS_ITS_OPERAND.contains(&base) {
            lits.iter().skip(1).find(|w| !w.starts_with('-')).copied()
        } else {
            None
        };
        if let Some(f) = file {
            let p = cwd.join(f);
            if p.is_file() && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

impl Binding {
    /// The binding for `script` in `cwd` (none when `cwd` cannot be
    /// looked at: nothing can then be approved for it). `run`: the local
    /// files it runs, whose contents are bound too.
    pub fn new(
        session: &str,
        script: &str,
        cwd: &Path,
        config: &Config,
        run: &[PathBuf],
    ) -> Option<Binding> {
        let meta = std::fs::metadata(cwd).ok()?;
        Some(Binding {
            session: session.to_string(),
            script: script.to_string(),
            cwd: cwd.to_path_buf(),
            dev: meta.dev(),
            ino: meta.ino(),
            // Without a birth time (some filesystems), the change time:
            // stricter (a file made in the directory changes it), never
            // looser.
            born: meta
                .created()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or_else(
                    || {
                        u64::try_from(meta.ctime())
                            .unwrap_or(0)
                            .saturating_mul(1_000_000_000)
                            .saturating_add(u64::try_from(meta.ctime_nsec()).unwrap_or(0))
                    },
                    |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
                ),
            policy: policy_digest(config, run),
        })
    }

    fn matches(&self, a: &Ask) -> bool {
        a.session == self.session
            && a.script == self.script
            && a.dev == self.dev
            && a.ino == self.ino
            && a.born == self.born
            && a.policy == self.policy
    }
}

/// The digest of the effective policy (every value and where it came
/// from) and of the files the command runs (their contents, up to 16 MiB
/// each; a larger or unreadable one by its size and change time).
pub fn policy_digest(config: &Config, run: &[PathBuf]) -> String {
    let mut c = config.clone();
    // What the user is told is not policy.
    c.diagnostics.clear();
    let mut hasher = Sha256::new();
    hasher.update(format!("{c:?}").as_bytes());
    for f in run {
        hasher.update(f.as_os_str().as_encoded_bytes());
        let meta = std::fs::metadata(f).ok();
        let small = meta.as_ref().is_some_and(|m| m.len() <= 16 << 20);
        match small.then(|| std::fs::read(f)) {
            Some(Ok(bytes)) => hasher.update(&bytes),
            _ => hasher.update(
                format!(
                    "{:?}/{:?}",
                    meta.as_ref().map(|m| m.len()),
                    meta.as_ref().map(|m| (m.ctime(), m.ctime_nsec()))
                )
                .as_bytes(),
            ),
        }
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where an ask stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Pending,
    Approved,
    Denied,
}

/// One ask in the book.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ask {
    pub code: String,
    pub session: String,
    pub cwd: String,
    pub dev: u64,
    pub ino: u64,
    #[serde(default)]
    pub born: u64,
    pub script: String,
    /// Why it needs the user.
    pub why: String,
    pub rule: String,
    pub policy: String,
    /// The approval accepts a `permissions.ask` rule: the command then
    /// skips every allow tier and still goes to the classifier.
    pub accepts_rule: bool,
    /// The user stands as the reviewer (no classifier, or it kept
    /// failing).
    pub review: bool,
    pub created_at: u64,
    pub expires_at: u64,
    pub ttl: u64,
    pub state: State,
    #[serde(default)]
    pub decided_at: Option<u64>,
    /// Who answered: `automode approve`, the ask command, the terminal.
    #[serde(default)]
    pub decided_by: Option<String>,
}

/// What the new ask is about.
#[derive(Debug, Clone)]
pub struct Question<'a> {
    pub why: &'a str,
    pub rule: &'a str,
    pub accepts_rule: bool,
    pub review: bool,
    pub ttl: u64,
}

/// The book of asks in a state directory.
#[derive(Debug, Clone)]
pub struct Book {
    dir: PathBuf,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    asks: Vec<Ask>,
}

impl Book {
    pub fn new(state_dir: &Path) -> Book {
        Book {
            dir: state_dir.to_path_buf(),
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.join("approvals.json")
    }

    /// The asks that have not expired (no lock: a reader sees the last
    /// complete write).
    pub fn live(&self, now: u64) -> Vec<Ask> {
        let mut asks = self.load().asks;
        asks.retain(|a| a.expires_at > now);
        asks
    }

    fn load(&self) -> File {
        match std::fs::read(self.path()) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
            Err(_) => File::default(),
        }
    }

    /// The live ask bound to exactly this command, whatever its state.
    pub fn find(&self, b: &Binding, now: u64) -> Option<Ask> {
        self.live(now).into_iter().find(|a| b.matches(a))
    }

    /// Change the book under its lock; expired asks are dropped.
    fn change<T>(
        &self,
        wait: Duration,
        now: u64,
        f: impl FnOnce(&mut Vec<Ask>) -> Result<T, String>,
    ) -> Result<T, String> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let lock = self.dir.join("approvals.lock");
        let _held = state::lock_within(&lock, wait)?.ok_or_else(|| state::busy(&lock))?;
        let mut file = self.load();
        file.asks.retain(|a| a.expires_at > now);
        let out = f(&mut file.asks)?;
        let text = serde_json::to_vec_pretty(&file).map_err(|e| e.to_string())?;
        state::write_atomic(&self.path(), &text)
            .map_err(|e| format!("cannot write {}: {e}", self.path().display()))?;
        Ok(out)
    }

    /// The pending ask for this command: the one already waiting, or a
    /// new one under a fresh code.
    pub fn request(&self, b: &Binding, q: &Question<'_>, now: u64) -> Result<Ask, String> {
        let code = new_code()?;
        self.change(state::SHIM_LOCK_WAIT, now, |asks| {
            if let Some(a) = asks
                .iter()
                .find(|a| b.matches(a) && a.state == State::Pending)
            {
                return Ok(a.clone());
            }
            // One ask per command: an earlier answer it replaces is
            // folded into this one (`accepts_rule`).
            asks.retain(|a| !b.matches(a));
            let ask = Ask {
                code,
                session: b.session.clone(),
                cwd: b.cwd.display().to_string(),
                dev: b.dev,
                ino: b.ino,
                born: b.born,
                script: b.script.clone(),
                why: q.why.to_string(),
                rule: q.rule.to_string(),
                policy: b.policy.clone(),
                accepts_rule: q.accepts_rule,
                review: q.review,
                created_at: now,
                expires_at: now + q.ttl,
                ttl: q.ttl,
                state: State::Pending,
                decided_at: None,
                decided_by: None,
            };
            asks.push(ask.clone());
            Ok(ask)
        })
    }

    /// An approval of this very script in this directory that does not
    /// match (another session, a directory made again, another
    /// configuration): what differs, so the agent is not left thinking
    /// the approval was lost.
    pub fn near_miss(&self, b: &Binding, now: u64) -> Option<String> {
        let a = self.live(now).into_iter().find(|a| {
            a.state == State::Approved
                && a.script == b.script
                && a.cwd == b.cwd.display().to_string()
                && !b.matches(a)
        })?;
        let why = if a.session != b.session {
            format!(
                "it was given in session {}, this is session {}",
                a.session, b.session
            )
        } else if a.policy != b.policy {
            "the configuration, or a file it runs, changed since".to_string()
        } else {
            "the directory was made again since".to_string()
        };
        Some(format!(
            "the approval {} of this command does not apply here: {why} (an approval is bound to the session, the directory and the configuration it was given for)",
            a.code
        ))
    }

    /// Approve or refuse the pending ask `code`; an approval then has a
    /// fresh time to live for the retry.
    pub fn decide(&self, code: &str, allow: bool, by: &str, now: u64) -> Result<Ask, String> {
        let code = normalize(code);
        self.change(state::USER_LOCK_WAIT, now, |asks| {
            let Some(a) = asks.iter_mut().find(|a| normalize(&a.code) == code) else {
                return Err(unknown_code(&code));
            };
            if a.state != State::Pending {
                return Err(format!(
                    "{code} was already {}",
                    if a.state == State::Approved {
                        "approved"
                    } else {
                        "refused"
                    }
                ));
            }
            a.state = if allow {
                State::Approved
            } else {
                State::Denied
            };
            a.decided_at = Some(now);
            a.decided_by = Some(by.to_string());
            if allow {
                a.expires_at = now + a.ttl;
            }
            Ok(a.clone())
        })
    }

    /// Use up the approval `code` (it runs once): an error when another
    /// process used it first.
    pub fn consume(&self, code: &str, now: u64) -> Result<(), String> {
        self.change(state::SHIM_LOCK_WAIT, now, |asks| {
            let before = asks.len();
            asks.retain(|a| !(a.code == code && a.state == State::Approved));
            if asks.len() == before {
                return Err(format!("the approval {code} was used already"));
            }
            Ok(())
        })
    }
}

/// What became of an ask in the shim.
#[derive(Debug)]
pub enum Asked {
    /// A channel answered: judge again (the book holds the answer).
    Answered,
    /// It waits for `automode approve CODE`.
    Waiting(Box<Ask>),
}

/// The shim's ask: a pending entry under a code (the one already waiting
/// for this command, or a new one), offered to the configured channels.
/// `None`: nothing can be approved (no state directory, the directory
/// cannot be looked at, the book cannot be written).
pub fn ask_user(ctx: &Context, judge: &Judge, decided: &Decided) -> Option<Asked> {
    let binding = decided.binding.as_ref()?;
    let book = Book::new(judge.state_dir.as_ref()?);
    let now = ctx.unix_secs();
    let v = &decided.verdict;
    let question = Question {
        why: &v.reason,
        rule: &v.rule,
        accepts_rule: v.tier == Tier::AskRule || decided.rule_approved,
        review: v.tier == Tier::Classifier,
        ttl: judge.config.approval_ttl_seconds.value,
    };
    let ask = match book.request(binding, &question, now) {
        Ok(a) => a,
        Err(why) => {
            crate::report::state_error(&why);
            return None;
        }
    };
    if let Some(note) = book.near_miss(binding, now) {
        crate::report::say(&format!("note: {note}"));
    }
    let timeout = Duration::from_secs(judge.config.ask_timeout_seconds.value);
    let answer = match &judge.config.ask_command {
        Some(cmd) => Some((
            channel::ask_command(&cmd.value, &ask, timeout),
            "autoMode.askCommand",
        )),
        None if judge.config.ask_on_terminal.value => {
            channel::ask_terminal(&ask, timeout).map(|a| (a, "the terminal"))
        }
        None => None,
    };
    let Some((answer, by)) = answer else {
        return Some(Asked::Waiting(Box::new(ask)));
    };
    let allow = answer == channel::Answer::Allow;
    if let channel::Answer::Deny(why) = &answer {
        crate::report::ask_refused(by, why);
    }
    match book.decide(&ask.code, allow, by, now) {
        Ok(_) => Some(Asked::Answered),
        Err(why) => {
            crate::report::state_error(&why);
            Some(Asked::Waiting(Box::new(ask)))
        }
    }
}

/// Use up the approval the verdict rests on, if any.
pub fn use_up(ctx: &Context, judge: &Judge, decided: &Decided) -> Result<(), String> {
    match (&decided.approval, &judge.state_dir) {
        (Some(a), Some(dir)) => Book::new(dir).consume(&a.code, ctx.unix_secs()),
        (Some(a), None) => Err(format!(
            "the approval {} cannot be recorded as used",
            a.code
        )),
        (None, _) => Ok(()),
    }
}

/// A script as the user is shown it before approving: control
/// characters escaped (no escape sequence can redraw it as something
/// else), every line indented, at most 4,000 characters with the rest
/// counted.
pub fn shown(script: &str) -> String {
    const MAX: usize = 4000;
    let mut out = String::from("    ");
    for (i, c) in script.chars().enumerate() {
        if i == MAX {
            let more = script.chars().count() - MAX;
            out.push_str(&format!("… ({more} more characters not shown)"));
            break;
        }
        match c {
            '\n' => out.push_str("\n    "),
            '\t' => out.push('\t'),
            c if c.is_control()
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') =>
            {
                out.push_str(&c.escape_unicode().to_string());
            }
            c => out.push(c),
        }
    }
    out
}

/// Why `code` cannot be answered: there is no live ask with it.
pub fn unknown_code(code: &str) -> String {
    format!(
        "no pending ask has the code {}: it was never given, has expired, or was used already (`automode approve` lists the pending ones)",
        normalize(code)
    )
}

/// The live ask with this code (any state).
pub fn by_code(book: &Book, code: &str, now: u64) -> Option<Ask> {
    let code = normalize(code);
    book.live(now)
        .into_iter()
        .find(|a| normalize(&a.code) == code)
}

/// `k7qf2m`, `K7QF-2M` → `K7QF-2M`.
fn normalize(code: &str) -> String {
    let plain: String = code
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect();
    match plain.len() {
        6 => format!("{}-{}", &plain[..4], &plain[4..]),
        _ => plain,
    }
}

/// A fresh code from the kernel's random source: `XXXX-XX`, 30 bits.
fn new_code() -> Result<String, String> {
    let mut bytes = [0u8; 6];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| format!("cannot read /dev/urandom for an approval code: {e}"))?;
    let chars: String = bytes
        .iter()
        .map(|b| ALPHABET[usize::from(b % 32)] as char)
        .collect();
    Ok(normalize(&chars))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_user_approves_cannot_hide() {
        let s = shown("npm test\u{1b}[2K\r; curl x | sh");
        assert!(!s.contains('\u{1b}') && !s.contains('\r'), "{s}");
        assert!(s.contains("curl x | sh"));
        let long = format!("npm test{}; rm -rf ~", " ".repeat(5000));
        assert!(shown(&long).contains("more characters not shown"));
        assert!(shown("a\nb").contains("a\n    b"));
    }

    #[test]
    fn codes_are_random_and_normalised() {
        let a = new_code().unwrap_or_default();
        let b = new_code().unwrap_or_default();
        assert_eq!(a.len(), 7);
        assert_eq!(&a[4..5], "-");
        assert_ne!(a, b);
        assert_eq!(normalize("k7qf2m"), "K7QF-2M");
        assert_eq!(normalize(" K7QF-2M "), "K7QF-2M");
    }
}
