//! What every test, unit or integration, asks the same way: are we in CI,
//! where a missing tool or kernel feature is a failure rather than a
//! skip.

/// The tests run in CI (`CI=true`, as `.ci/run` sets it).
pub fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// A test cannot run here (`why`): under CI that is a failure (CI has
/// every tool the tests need); elsewhere it is a skip, printed so a
/// person sees it. Returns `false`, for `if !…{ return }`.
pub fn skip(test: &str, why: &str) -> bool {
    assert!(!in_ci(), "{test}: {why} (CI must have it)");
    eprintln!("SKIPPED {test}: {why}");
    false
}
