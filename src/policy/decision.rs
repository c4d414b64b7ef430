//! Decisions and verdicts: what the policy concluded, by which tier and
//! rule, from which source, and why — the one value that the refusal
//! message, the audit log, session state and `automode check` all read.

use std::fmt;

use serde::Serialize;

/// Ordered from most to least permissive; combining takes the maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    /// The classifier would be asked.
    Classify,
    /// The user must approve.
    Ask,
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Classify => "classify",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The tiers, in the order they are tried (DESIGN §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    /// A harness's own setup call, or a recognised harness wrapper.
    Harness,
    /// Auto mode is off: run without policy.
    Disabled,
    /// A `permissions.deny` rule.
    DenyRule,
    /// A `permissions.ask` rule.
    AskRule,
    /// The script could not be analysed.
    Analysis,
    /// The built-in hard-deny catalogue.
    HardDeny,
    /// A program that would wait for input from the shim's terminal.
    Terminal,
    /// `deniedPaths`, protected paths.
    PathGate,
    /// `allowInsideWorkingDirectory`.
    InsideWorkingDirectory,
    /// A `permissions.allow` rule.
    AllowRule,
    /// Read-only commands with safe options.
    ReadOnly,
    /// Routine project work inside the working directory.
    Routine,
    /// Literal commands whose every change lands where the enforced
    /// sandbox lets them write: the kernel confines them.
    Contained,
    /// Nothing decided: the classifier would judge.
    Classifier,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Harness => "harness",
            Tier::Disabled => "disabled",
            Tier::DenyRule => "deny-rule",
            Tier::AskRule => "ask-rule",
            Tier::Analysis => "analysis",
            Tier::HardDeny => "hard-deny",
            Tier::Terminal => "terminal",
            Tier::PathGate => "path-gate",
            Tier::InsideWorkingDirectory => "inside-working-directory",
            Tier::AllowRule => "allow-rule",
            Tier::ReadOnly => "read-only",
            Tier::Routine => "routine",
            Tier::Contained => "contained",
            Tier::Classifier => "classifier",
        }
    }
}

/// One tier's outcome, for the trace `automode check` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub tier: Tier,
    /// What the tier concluded: a decision, or why it passed.
    pub outcome: String,
}

/// The verdict on one invocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub decision: Decision,
    pub tier: Tier,
    /// The rule or check id (a pattern, `rm-root`, `read-only`, …).
    pub rule: String,
    /// Where the rule comes from (`built-in`, a config file path).
    pub source: String,
    pub reason: String,
    /// Tier by tier.
    pub trace: Vec<Step>,
    /// Extra environment for the command when it runs (git safe
    /// overrides for the read-only tier).
    pub exec_env: Vec<(String, String)>,
    /// Each deletion or overwrite target looked at, with what makes it
    /// recoverable (none: it is not).
    pub recovery: Vec<(std::path::PathBuf, Option<super::recover::Held>)>,
    /// For a review: the allow rules that would let commands like it run
    /// next time, and the file to put them in.
    pub suggest: Option<(Vec<String>, String)>,
}

impl Verdict {
    pub fn new(
        decision: Decision,
        tier: Tier,
        rule: impl Into<String>,
        source: impl Into<String>,
        reason: impl Into<String>,
    ) -> Verdict {
        Verdict {
            decision,
            tier,
            rule: rule.into(),
            source: source.into(),
            reason: reason.into(),
            trace: Vec::new(),
            exec_env: Vec::new(),
            recovery: Vec::new(),
            suggest: None,
        }
    }
}
