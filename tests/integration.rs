//! The one integration-test binary: drives the real `automode` binary
//! against the real bash, one module per feature.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod approval;
mod checkpoint;
mod classifier;
mod cli;
mod exec_cli;
mod expectations;
mod harness;
mod limits;
mod network;
mod oracle;
mod policy;
mod records;
mod sandbox;
mod shim;
mod supervision;
mod support;
mod terminal;
mod tools;
