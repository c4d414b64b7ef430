//! The one integration-test binary: drives the real `automode` binary
//! against the real bash, one module per feature.

mod support;
