//! Analysis timings (not a timed test): typical agent commands in µs, a
//! 128 KiB script in ms, 128 KiB of the typical commands (variables,
//! loops, substitutions, here-docs, `cd`), and deep nesting that must come
//! back opaque fast. Run: `cargo bench --bench analysis` (set
//! BENCH_ONLY_BIG=1 for the 128 KiB cases only).

use std::collections::HashMap;
use std::path::PathBuf;

mod support;
use support::median;

use automode::shell::{self, Analysis, Dialect, Positional};

fn analyse(script: &str) -> Analysis {
    shell::analyze(shell::Request {
        script: script.as_bytes().to_vec(),
        max_bytes: shell::MAX_COMMAND_BYTES,
        positional: Positional {
            dollar0: "bash".into(),
            args: Vec::new(),
        },
        cwd: PathBuf::from("/tmp"),
        home: Some("/root".into()),
        env: HashMap::from([("HOME".to_string(), "/root".to_string())]),
        trust_env: true,
        dialect: Dialect::Bash,
        budget: shell::TIME_BUDGET,
    })
}

fn main() {
    let typical = [
        "ls -la",
        "git status --short",
        "cargo test --all-features 2>&1 | tail -n 20",
        "cd src && rm -rf build && make -j4 >/tmp/log.txt",
        "grep -rn \"TODO\" src/ | head -50",
        "find . -name '*.rs' -exec wc -l {} + | sort -n",
        "git commit -m \"$(cat <<'EOF'\nfix: handle quotes\n\nLonger body.\nEOF\n)\"",
        "for f in *.txt; do mv \"$f\" \"${f%.txt}.md\"; done",
        "python3 -c 'import json,sys; print(json.load(sys.stdin))' < data.json",
        "bash -c 'npm ci && npm test -- --coverage'",
    ];
    let only_big = std::env::var_os("BENCH_ONLY_BIG").is_some();
    println!("typical agent commands (median of 2000 runs):");
    for s in typical.iter().filter(|_| !only_big) {
        let t = median(2000, || analyse(s));
        println!(
            "  {:>8.1} µs  {}",
            t.as_secs_f64() * 1e6,
            s.lines().next().unwrap_or("")
        );
    }
    let mut big = String::new();
    while big.len() < 128 * 1024 - 100 {
        big.push_str(
            "cargo build --release 2>&1 | grep -E 'warning|error' > /tmp/out.log && git add -A\n",
        );
    }
    let t = median(50, || {
        let a = analyse(&big);
        assert!(a.opaque.is_none());
        a
    });
    println!(
        "128 KiB script ({} bytes, {} commands): {:.2} ms (target <= 10 ms)",
        big.len(),
        analyse(&big).commands.len(),
        t.as_secs_f64() * 1e3
    );
    let mut mixed = String::new();
    for s in typical.iter().cycle() {
        if mixed.len() + s.len() >= 128 * 1024 - 100 {
            break;
        }
        mixed.push_str(s);
        mixed.push('\n');
    }
    let t = median(20, || {
        let a = analyse(&mixed);
        assert!(a.opaque.is_none());
        a
    });
    println!(
        "128 KiB of the typical commands ({} bytes, {} commands): {:.2} ms",
        mixed.len(),
        analyse(&mixed).commands.len(),
        t.as_secs_f64() * 1e3
    );
    for (name, deep) in [
        (
            "10,000 nested $( )",
            format!("{}x{}", "$(".repeat(10_000), ")".repeat(10_000)),
        ),
        (
            "10,000 nested { }",
            format!("{}x{}", "{ ".repeat(10_000), "; }".repeat(10_000)),
        ),
        (
            "10,000 nested if",
            format!(
                "{}x{}",
                "if true; then ".repeat(10_000),
                "; fi".repeat(10_000)
            ),
        ),
    ] {
        let t = median(20, || {
            let a = analyse(&deep);
            assert!(a.opaque.is_some());
            a
        });
        println!("{name}: opaque in {:.3} ms", t.as_secs_f64() * 1e3);
    }
}
