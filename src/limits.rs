//! The time limit and output limit of one command: parsing, validation and
//! which source wins.
//!
//! Sources, strongest first: `automode exec --timeout/--output-limit`; the
//! agent's own leading `AUTOMODE_TIMEOUT=N` / `AUTOMODE_OUTPUT_LIMIT=N` on
//! its script; the harness's `AUTOMODE_TIMEOUT` / `AUTOMODE_OUTPUT_LIMIT`
//! environment; config (`timeoutSeconds`, `outputLimitBytes`); built-in
//! defaults. Every value given anywhere must be valid, or the command does
//! not start (usage error).

use std::fmt;
use std::time::Duration;

/// Default time limit (seeds 000 and 004).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Largest time limit anyone may ask for (seed 004).
pub const MAX_TIMEOUT_SECS: u64 = 7200;
/// Default output budget over stdout + stderr: far above what an agent
/// can use in its context, small enough to stop a runaway `yes`.
pub const DEFAULT_OUTPUT_LIMIT_BYTES: u64 = 64 * 1024 * 1024;
/// Largest output limit accepted (1 TiB).
pub const MAX_OUTPUT_LIMIT_BYTES: u64 = 1 << 40;
/// Fractional seconds are accepted to this many decimal places (ms).
const MAX_FRACTION_DIGITS: usize = 3;

/// Environment variable names, shared by the harness and the agent.
pub const TIMEOUT_VAR: &str = "AUTOMODE_TIMEOUT";
pub const OUTPUT_LIMIT_VAR: &str = "AUTOMODE_OUTPUT_LIMIT";

/// Where a limit came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LimitSource {
    Default,
    Config,
    Environment,
    Script,
    Flag,
}

impl fmt::Display for LimitSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LimitSource::Default => "the default",
            LimitSource::Config => "config",
            LimitSource::Environment => "the environment",
            LimitSource::Script => "the script's leading assignment",
            LimitSource::Flag => "the command line",
        })
    }
}

/// An invalid limit value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitError {
    Timeout { value: String, source: LimitSource },
    OutputLimit { value: String, source: LimitSource },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::Timeout { value, source } => write!(
                f,
                "invalid timeout {value:?} from {source}: it must be a number of seconds greater than 0 and at most {MAX_TIMEOUT_SECS} (up to {MAX_FRACTION_DIGITS} decimal places, e.g. 1800 or 2.5)"
            ),
            LimitError::OutputLimit { value, source } => write!(
                f,
                "invalid output limit {value:?} from {source}: it must be a whole number of bytes from 1 to {MAX_OUTPUT_LIMIT_BYTES}"
            ),
        }
    }
}

/// Parse a timeout in seconds: digits, optionally `.` and 1–3 digits; in
/// (0, 7200]. No sign, no spaces, no exponent, no `inf`/`nan`.
pub fn parse_timeout(text: &str) -> Option<Duration> {
    let (whole, frac) = match text.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (text, None),
    };
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut millis: u64 = 0;
    if let Some(frac) = frac {
        if frac.is_empty()
            || frac.len() > MAX_FRACTION_DIGITS
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let padded = format!("{frac:0<3}");
        millis = padded.parse().ok()?;
    }
    // Leading zeros are fine ("0900"), but bound the length first.
    let whole = whole.trim_start_matches('0');
    if whole.len() > 6 {
        return None;
    }
    let secs: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let total = Duration::from_secs(secs) + Duration::from_millis(millis);
    (total > Duration::ZERO && total <= Duration::from_secs(MAX_TIMEOUT_SECS)).then_some(total)
}

/// Parse an output limit: a whole number of bytes in [1, 1 TiB].
pub fn parse_output_limit(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 20 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = text.parse().ok()?;
    (1..=MAX_OUTPUT_LIMIT_BYTES).contains(&n).then_some(n)
}

/// One requested value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub value: String,
    pub source: LimitSource,
}

/// Everything that asked for a limit, in any order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requests {
    pub timeout: Vec<Request>,
    pub output_limit: Vec<Request>,
}

/// The limits a command runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub timeout: Duration,
    pub timeout_source: LimitSource,
    pub output_limit: u64,
    pub output_limit_source: LimitSource,
}

impl Requests {
    /// Validate every request and pick the strongest source of each.
    pub fn resolve(&self) -> Result<Limits, LimitError> {
        let mut limits = Limits {
            timeout: DEFAULT_TIMEOUT,
            timeout_source: LimitSource::Default,
            output_limit: DEFAULT_OUTPUT_LIMIT_BYTES,
            output_limit_source: LimitSource::Default,
        };
        for req in &self.timeout {
            let Some(t) = parse_timeout(&req.value) else {
                return Err(LimitError::Timeout {
                    value: req.value.clone(),
                    source: req.source,
                });
            };
            if req.source >= limits.timeout_source {
                limits.timeout = t;
                limits.timeout_source = req.source;
            }
        }
        for req in &self.output_limit {
            let Some(n) = parse_output_limit(&req.value) else {
                return Err(LimitError::OutputLimit {
                    value: req.value.clone(),
                    source: req.source,
                });
            };
            if req.source >= limits.output_limit_source {
                limits.output_limit = n;
                limits.output_limit_source = req.source;
            }
        }
        Ok(limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_timeouts_in_range() {
        assert_eq!(parse_timeout("7200"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_timeout("1"), Some(Duration::from_secs(1)));
        assert_eq!(parse_timeout("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_timeout("0.001"), Some(Duration::from_millis(1)));
        assert_eq!(parse_timeout("060"), Some(Duration::from_secs(60)));
        assert_eq!(
            parse_timeout("7199.999"),
            Some(Duration::from_millis(7_199_999))
        );
    }

    #[test]
    fn rejects_timeouts_out_of_range_or_malformed() {
        for bad in [
            "0",
            "0.0",
            "0.0001",
            "-1",
            "+5",
            " 5",
            "5 ",
            "7200.001",
            "7201",
            "abc",
            "",
            "nan",
            "inf",
            "1e3",
            "1.",
            ".5",
            "1.2345",
            "99999999999999999999",
            "1,5",
            "0x10",
        ] {
            assert_eq!(parse_timeout(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn output_limits_are_whole_positive_bytes() {
        assert_eq!(parse_output_limit("1000"), Some(1000));
        assert_eq!(parse_output_limit("1"), Some(1));
        for bad in ["0", "-1", "1.5", "", "1k", "99999999999999999999999", " 1"] {
            assert_eq!(parse_output_limit(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn strongest_source_wins_and_every_value_is_checked() {
        let req = |v: &str, s| Request {
            value: v.into(),
            source: s,
        };
        let r = Requests {
            timeout: vec![
                req("30", LimitSource::Environment),
                req("1800", LimitSource::Script),
                req("10", LimitSource::Config),
            ],
            output_limit: vec![],
        };
        let limits = r.resolve().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(limits.timeout, Duration::from_secs(1800));
        assert_eq!(limits.timeout_source, LimitSource::Script);
        assert_eq!(limits.output_limit, DEFAULT_OUTPUT_LIMIT_BYTES);
        let bad = Requests {
            timeout: vec![
                req("0", LimitSource::Environment),
                req("5", LimitSource::Flag),
            ],
            output_limit: vec![],
        };
        assert!(bad.resolve().is_err());
    }
}
