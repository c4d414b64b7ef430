//! Commands that fill the disk: an endless source (`yes`, `/dev/zero`,
//! `seq inf`) whose output lands in a file, or a size past the bound
//! (`fallocate -l 100G`, `openssl rand 100000000000`, `head -c 200G`).
//! The sandbox's file-size limit is the backstop; this sends them to
//! review before they run.

use std::path::Path;

use crate::shell::analysis::{Analysis, CommandInfo, EffectKind, Stdin};

/// The largest write a single command makes without review (1 GiB): more
/// than any routine generated file, less than a disk.
pub const FLOOD_BYTES: u64 = 1 << 30;

/// Devices that never run dry.
const ENDLESS_DEVICES: &[&str] = &["/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"];

/// Programs that write a size given as an option or operand, with the
/// options that give it (an empty list: the last numeric operand).
const SIZED_WRITERS: &[(&str, &[&str], &str)] = &[
    ("fallocate", &["-l", "--length"], "allocates"),
    ("mkfile", &[], "makes a file of"),
    ("xfs_mkfile", &[], "makes a file of"),
    ("openssl", &[], "writes random"),
];

/// Filters that stop reading after a count: the option that gives it.
const BOUNDING: &[(&str, &[&str])] = &[
    ("head", &["-c", "--bytes", "-n", "--lines"]),
    ("od", &["-N", "--read-bytes"]),
    ("xxd", &["-l", "-len"]),
    ("hexdump", &["-n"]),
];

/// `200G`, `1M`, `10KB`, `1GiB`, `100000000000`: bytes (suffixes read as
/// powers of 1024, which errs on the large side).
pub fn size(text: &str) -> Option<u64> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let n: u64 = t[..digits].parse().ok()?;
    let unit = t[digits..]
        .trim_end_matches(['B', 'b'])
        .trim_end_matches('i');
    let shift = match unit {
        "" | "c" => 0,
        "k" | "K" => 10,
        "m" | "M" => 20,
        "g" | "G" => 30,
        "t" | "T" => 40,
        "p" | "P" => 50,
        "e" | "E" => 60,
        "w" => return n.checked_mul(2),
        _ => return None,
    };
    n.checked_mul(1u64 << shift).or(Some(u64::MAX))
}

/// The value of one of `options` in `c`'s arguments (`-c N`, `-cN`,
/// `--bytes=N`, `-N` for head's line count).
fn option_value<'a>(c: &'a CommandInfo, options: &[&str]) -> Option<&'a str> {
    let args: Vec<&str> = c.argv.iter().skip(1).filter_map(|w| w.known()).collect();
    for (i, a) in args.iter().enumerate() {
        for o in options {
            if a == o {
                return args.get(i + 1).copied();
            }
            if let Some(v) = a.strip_prefix(o) {
                if let Some(v) = v.strip_prefix('=') {
                    return Some(v);
                }
                if !o.starts_with("--") && !v.is_empty() {
                    return Some(v);
                }
            }
        }
    }
    None
}

/// `dd`'s `bs=`, `count=` (bytes it writes), or None without a count.
fn dd_bytes(c: &CommandInfo) -> Option<u64> {
    let kv = |k: &str| {
        c.argv
            .iter()
            .filter_map(|w| w.known())
            .find_map(|a| a.strip_prefix(k).and_then(|r| r.strip_prefix('=')))
    };
    let count = size(kv("count")?)?;
    let bs = kv("bs").or(kv("obs")).and_then(size).unwrap_or(512);
    Some(count.saturating_mul(bs))
}

/// Why command `i` of the analysis is a source that does not stop by
/// itself (or stops past the bound), if it is.
fn source(a: &Analysis, i: usize) -> Option<String> {
    let c = &a.commands[i];
    let name = c.base_name()?;
    let over = |n: u64| n > FLOOD_BYTES;
    match name {
        "yes" => return Some("yes repeats its line forever".into()),
        "seq" => {
            let last = c.argv.iter().skip(1).rev().find_map(|w| w.known())?;
            let endless = matches!(last.to_ascii_lowercase().as_str(), "inf" | "infinity")
                || last.parse::<f64>().is_ok_and(|n| n > 1e9);
            return endless.then(|| format!("seq counts to {last}"));
        }
        "dd" => {
            if let Some(n) = dd_bytes(c) {
                return over(n).then(|| format!("dd writes {n} bytes"));
            }
        }
        _ => {}
    }
    if let Some((_, options, what)) = SIZED_WRITERS.iter().find(|(n, _, _)| *n == name) {
        let value = if options.is_empty() {
            c.argv
                .iter()
                .skip(1)
                .rev()
                .filter_map(|w| w.known())
                .find_map(size)
        } else {
            option_value(c, options).and_then(size)
        };
        return value
            .filter(|n| over(*n))
            .map(|n| format!("{name} {what} {n} bytes"));
    }
    if let Some((_, options)) = BOUNDING.iter().find(|(n, _)| *n == name)
        && let Some(n) = option_value(c, options).and_then(size)
    {
        return over(n).then(|| format!("{name} copies {n} bytes"));
    }
    let reads_endless = a.effects.iter().any(|e| {
        e.command == Some(i)
            && e.kind == EffectKind::Read
            && ENDLESS_DEVICES.iter().any(|d| {
                e.raw.strip_prefix("if=").unwrap_or(&e.raw) == *d
                    || e.path.as_deref() == Some(Path::new(d))
            })
    }) || matches!(&c.stdin, Stdin::File { path: Some(p) } if ENDLESS_DEVICES.iter().any(|d| p == Path::new(d)));
    reads_endless.then(|| format!("{name} reads a device that never runs dry"))
}

/// Command `j` stops reading after a count within the bound.
fn bounds(c: &CommandInfo) -> bool {
    let Some(name) = c.base_name() else {
        return false;
    };
    if name == "dd" {
        return dd_bytes(c).is_some_and(|n| n <= FLOOD_BYTES);
    }
    BOUNDING.iter().any(|(n, options)| {
        *n == name
            && option_value(c, options)
                .and_then(size)
                .is_some_and(|n| n <= FLOOD_BYTES)
    })
}

/// A command in the script that fills the disk: its source, and the file
/// its pipeline writes.
pub fn flood(a: &Analysis) -> Option<String> {
    for i in 0..a.commands.len() {
        let Some(why) = source(a, i) else { continue };
        let c = &a.commands[i];
        // The rest of its pipeline; a bounding filter there stops it.
        let mut end = i;
        let mut stopped = false;
        while let Some(n) = a.commands.get(end + 1) {
            if n.stdin != Stdin::Pipe || n.depth != c.depth {
                break;
            }
            end += 1;
            stopped |= bounds(n);
        }
        if stopped {
            continue;
        }
        let sized = matches!(c.base_name(), Some("fallocate" | "mkfile" | "xfs_mkfile"));
        let file = a.effects.iter().find(|e| {
            e.command.is_some_and(|k| (i..=end).contains(&k))
                && matches!(
                    e.kind,
                    EffectKind::Write | EffectKind::Append | EffectKind::Create
                )
                && !e.raw.starts_with("/dev/")
                && e.raw != "-"
        });
        // `openssl rand -out f N` names its file in an option the
        // analysis may not model; its size alone decides.
        let openssl = c.base_name() == Some("openssl");
        match file {
            Some(f) => return Some(format!("{why}, into {}: it can fill the disk", f.raw)),
            None if sized || openssl => return Some(format!("{why}: it can fill the disk")),
            None => {}
        }
    }
    None
}
