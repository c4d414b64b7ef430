//! Sandbox plan tests.
