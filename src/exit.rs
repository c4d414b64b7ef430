//! Every exit status automode can produce, in one place.
//!
//! Input: how a run ended (`Exit`). Output: the process exit code, or a
//! re-raised signal so the caller sees the same death the child died.
//! docs/supervision.md's exit-code table is this file; keep them in step.

/// Bash's own code for a bad invocation (`EX_BADUSAGE`), used for our usage
/// errors too (bad option, bad timeout, interactive use refused).
pub const USAGE: i32 = 2;
/// The command printed more than the output limit allowed; its process group
/// was terminated and the output is incomplete. Chosen outside 124–127 and
/// outside 128+signal.
pub const OUTPUT_LIMIT: i32 = 120;
/// The command did not run: the policy blocked it, it needs the user's
/// approval, the classifier failed, or the working directory changed.
pub const BLOCKED: i32 = 121;
/// The time limit expired (as GNU `timeout`), even if the command's own
/// handler then exited 0.
pub const TIMED_OUT: i32 = 124;
/// automode itself failed (as GNU `timeout`'s 125).
pub const INTERNAL: i32 = 125;
/// The program exists but cannot be executed (as bash).
pub const CANNOT_INVOKE: i32 = 126;
/// The program was not found (as bash).
pub const NOT_FOUND: i32 = 127;

/// How an automode process ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The child exited with this status; pass it through unchanged.
    Child(i32),
    /// The child (or automode, on cancellation) was killed by this signal;
    /// die the same way.
    Signaled(i32),
    /// Usage error: bad option or argument; nothing ran.
    Usage,
    /// Output limit exceeded; output truncated.
    OutputLimit,
    /// The command did not run (policy, approval, classifier failure,
    /// workspace changed).
    Blocked,
    /// Timed out.
    TimedOut,
    /// Internal error.
    Internal,
    /// The program could not be executed.
    CannotInvoke,
    /// The program was not found.
    NotFound,
}

impl Exit {
    /// The numeric status a shell would show in `$?`.
    pub fn code(self) -> i32 {
        match self {
            Exit::Child(code) => code & 0xff,
            Exit::Signaled(sig) => 128 + sig,
            Exit::Usage => USAGE,
            Exit::OutputLimit => OUTPUT_LIMIT,
            Exit::Blocked => BLOCKED,
            Exit::TimedOut => TIMED_OUT,
            Exit::Internal => INTERNAL,
            Exit::CannotInvoke => CANNOT_INVOKE,
            Exit::NotFound => NOT_FOUND,
        }
    }

    /// End the process: exit with the code, or re-raise the signal.
    pub fn terminate(self) -> ! {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        if let Exit::Signaled(sig) = self {
            crate::exec::die_by_signal(sig);
        }
        std::process::exit(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_from_each_other_and_from_signals() {
        let fixed = [
            Exit::Usage,
            Exit::OutputLimit,
            Exit::Blocked,
            Exit::TimedOut,
            Exit::Internal,
            Exit::CannotInvoke,
            Exit::NotFound,
        ];
        let mut codes: Vec<i32> = fixed.iter().map(|e| e.code()).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), fixed.len());
        assert!(codes.iter().all(|c| *c < 128));
    }

    #[test]
    fn child_status_passes_through_modulo_256() {
        assert_eq!(Exit::Child(3).code(), 3);
        assert_eq!(Exit::Child(256).code(), 0);
        assert_eq!(Exit::Signaled(15).code(), 143);
    }
}
