//! Where a command's start goes, for the benchmarks
//! (`scripts/bench_phases.py`): with `AUTOMODE_TIMING` set, the shim notes
//! when each phase of its pipeline ends and prints them at exit, in one
//! line on stderr, in microseconds since the pipeline began. Unset (always,
//! outside a benchmark) a mark costs one atomic load.

use std::sync::Mutex;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

static ON: AtomicBool = AtomicBool::new(false);
static BEGAN: OnceLock<Instant> = OnceLock::new();
static MARKS: Mutex<Vec<(&'static str, u128)>> = Mutex::new(Vec::new());

/// Begin timing when `AUTOMODE_TIMING` is set (to anything but empty).
pub fn begin(set: bool) {
    if set && BEGAN.set(Instant::now()).is_ok() {
        ON.store(true, Ordering::Relaxed);
    }
}

/// `phase` ended now.
pub fn mark(phase: &'static str) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    let Some(began) = BEGAN.get() else {
        return;
    };
    let at = began.elapsed().as_micros();
    if let Ok(mut marks) = MARKS.lock() {
        marks.push((phase, at));
    }
}

/// The marks, as printed: `automode timing (µs): loaded=85 judged=420 …`.
pub fn line() -> Option<String> {
    if !ON.load(Ordering::Relaxed) {
        return None;
    }
    let marks = MARKS.lock().ok()?;
    let mut out = String::from("automode timing (µs):");
    for (phase, at) in marks.iter() {
        out.push_str(&format!(" {phase}={at}"));
    }
    Some(out)
}

/// Print the marks, if timing.
pub fn report() {
    if let Some(l) = line() {
        eprintln!("{l}");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn marks_are_kept_in_order_only_when_timing() {
        mark("before");
        assert_eq!(line(), None);
        begin(true);
        mark("first");
        mark("second");
        let l = line().unwrap();
        assert!(l.starts_with("automode timing (µs): first="), "{l}");
        assert!(l.contains(" second="), "{l}");
        assert!(!l.contains("before"), "{l}");
    }
}
