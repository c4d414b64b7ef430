//! automode: a bash/sh shim that decides whether an AI coding agent's shell
//! commands may run, and supervises the ones it allows.
//!
//! The binary (`main.rs`) only captures the process context and hands it to
//! `app::run`; everything else lives in these modules.

pub mod app;
pub mod approval;
pub mod checkpoint;
pub mod classifier;
pub mod cli;
pub mod config;
pub mod context;
pub mod exec;
pub mod exit;
pub mod harness;
pub mod invocation;
pub mod judge;
pub mod launch;
pub mod limits;
pub mod nested;
pub mod person;
pub mod policy;
pub mod procfs;
pub mod realshell;
pub mod record;
pub mod report;
pub mod sandbox;
pub mod script;
pub mod session;
pub mod shell;
pub mod shim;
pub mod state;
pub mod testing;
pub mod timing;
