//! automode: a bash/sh shim that decides whether an AI coding agent's shell
//! commands may run, and supervises the ones it allows.
//!
//! The binary (`main.rs`) only captures the process context and hands it to
//! `app::run`; everything else lives in these modules.

pub mod app;
pub mod cli;
pub mod context;
pub mod exec;
pub mod exit;
pub mod invocation;
pub mod limits;
pub mod nested;
pub mod realshell;
pub mod report;
pub mod script;
pub mod shell;
