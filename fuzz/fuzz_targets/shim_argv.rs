//! Fuzz target: the argv of shim mode (`bash …` / `sh …`), as NUL-separated
//! words. Never a panic; what parses gives the real shell an argv that
//! carries the script exactly (the analysis judges the text bash runs).
#![no_main]

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use automode::invocation::{self, Parsed, Source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let mut words = data.split(|b| *b == 0);
    let Some(first) = words.next() else {
        return;
    };
    let argv0 = if first.first().is_some_and(|b| b % 2 == 0) { "bash" } else { "sh" };
    let args: Vec<OsString> = words.map(|w| OsStr::from_bytes(w).to_os_string()).collect();
    if let Ok(Parsed::Run(inv)) = invocation::parse(OsStr::new(argv0), args.iter().cloned()) {
        if let Source::Command(text) = &inv.source {
            assert!(args.iter().any(|a| a == text), "the script is not one of the words");
            let real = inv.real_shell_args(text);
            assert!(real.iter().any(|a| a == text), "the real shell does not get the script");
        }
    }
});
