//! What the benchmarks share: the median of timed rounds.

use std::time::{Duration, Instant};

/// Median of `rounds` timings of `f`. What `f` returns is dropped after
/// the clock stops (the shim never frees its analysis: it is about to
/// exit, so freeing is not part of the time).
pub(crate) fn median<T>(rounds: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut kept = Vec::with_capacity(rounds);
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            let out = f();
            let elapsed = t.elapsed();
            kept.push(out);
            elapsed
        })
        .collect();
    drop(kept);
    times.sort();
    times[times.len() / 2]
}
