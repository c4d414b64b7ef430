//! A stack budget for analysing on the caller's thread: the parser and the
//! walker check it at every level of recursion, and once the analysis has
//! used more than the budget it stops (and is started again on a thread
//! with a big stack). Outside `within`, there is no budget.
//!
//! The stack in use is measured as the distance between the address of a
//! local variable where the budget was set and one at the check.

use std::cell::Cell;

thread_local! {
    /// Where the budgeted part of the stack began, and how far it may go
    /// (0: no budget).
    static BASE: Cell<usize> = const { Cell::new(0) };
    static LIMIT: Cell<usize> = const { Cell::new(0) };
    /// The budget was exceeded.
    static EXCEEDED: Cell<bool> = const { Cell::new(false) };
}

/// The address of a local variable of the caller (about the stack
/// pointer).
#[inline(always)]
fn here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker as *const u8).addr()
}

/// Run `f` with a stack budget of `bytes`: its result, or None if it ran
/// out of stack (its result is then incomplete and thrown away).
pub(super) fn within<T>(bytes: usize, f: impl FnOnce() -> T) -> Option<T> {
    let (base, limit) = (BASE.get(), LIMIT.get());
    BASE.set(here());
    LIMIT.set(bytes);
    EXCEEDED.set(false);
    let out = f();
    BASE.set(base);
    LIMIT.set(limit);
    (!EXCEEDED.replace(false)).then_some(out)
}

/// Has the analysis used up its stack budget? (Always false without one.)
/// Once true, it stays true until `within` returns.
pub(super) fn exhausted() -> bool {
    let limit = LIMIT.get();
    if limit == 0 {
        return false;
    }
    if EXCEEDED.get() || here().abs_diff(BASE.get()) > limit {
        EXCEEDED.set(true);
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn recurse(n: usize) -> usize {
        let pad = std::hint::black_box([0u8; 256]);
        if exhausted() {
            return n;
        }
        recurse(n + 1) + usize::from(pad[0])
    }

    #[test]
    fn stops_deep_recursion_and_resets() {
        assert_eq!(within(64 * 1024, || recurse(0)), None);
        assert!(!exhausted());
        assert_eq!(within(64 * 1024, || 7), Some(7));
    }
}
