//! Fuzz target: the shell analyser must never panic, overflow its stack or
//! hang, whatever the script (`cargo +nightly fuzz run analyze`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The shim analyses inline up to 512 bytes (bigger scripts get a
    // thread with a big stack): fuzz that inline path hardest.
    if data.len() > 4096 {
        return;
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = automode::shell::analyze_unguarded(text);
    }
});
