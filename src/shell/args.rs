//! Reading a command's arguments the way GNU getopt does: short option
//! clusters, options that take a value (attached or next), long options
//! with `=`, `--` ending options, and operands anywhere (permutation).
//! Dynamic words are operands: we never guess an option out of them.

use super::analysis::Arg;

/// How a command's options are spelled.
#[derive(Debug, Clone, Copy)]
pub struct OptSpec {
    /// Short options that take a value (`-t DIR`, `-tDIR`).
    pub short_with_value: &'static str,
    /// Long options that take a value (`--suffix=X` or `--suffix X`).
    pub long_with_value: &'static [&'static str],
    /// Stop at the first operand (POSIX order: `env`, `nice`, `sudo`,
    /// wrappers whose operands are a command line).
    pub stop_at_operand: bool,
}

/// One option as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt {
    /// `r` for `-r`, `recursive` for `--recursive`.
    pub name: String,
    pub long: bool,
    pub value: Option<Arg>,
}

/// Options and operands, in order.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub opts: Vec<Opt>,
    /// Indices of operand words in the argument slice.
    pub operands: Vec<usize>,
    /// Index where the operands that stopped option parsing begin (for
    /// `stop_at_operand`), or `args.len()`.
    pub rest: usize,
}

impl Parsed {
    pub fn has(&self, name: &str) -> bool {
        self.opts.iter().any(|o| o.name == name)
    }

    pub fn value(&self, name: &str) -> Option<&Arg> {
        self.opts
            .iter()
            .rev()
            .find(|o| o.name == name)
            .and_then(|o| o.value.as_ref())
    }

    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Arg> + 'a {
        self.opts
            .iter()
            .filter(move |o| o.name == name)
            .filter_map(|o| o.value.as_ref())
    }
}

/// Parse `args` (argv without argv[0]).
pub fn parse(args: &[Arg], spec: OptSpec) -> Parsed {
    let mut out = Parsed {
        rest: args.len(),
        ..Parsed::default()
    };
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let Some(word) = args[i].lit() else {
            // A dynamic word is an operand.
            if spec.stop_at_operand {
                out.rest = i;
                out.operands.extend(i..args.len());
                return out;
            }
            out.operands.push(i);
            i += 1;
            continue;
        };
        if options_done || word == "-" || !word.starts_with('-') {
            if spec.stop_at_operand {
                out.rest = i;
                out.operands.extend(i..args.len());
                return out;
            }
            out.operands.push(i);
            i += 1;
            continue;
        }
        if word == "--" {
            options_done = true;
            if spec.stop_at_operand {
                out.rest = i + 1;
                out.operands.extend(i + 1..args.len());
                return out;
            }
            i += 1;
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let takes = spec.long_with_value.contains(&name);
            let value = match (attached, takes) {
                (Some(v), _) => Some(Arg::literal(v)),
                (None, true) => {
                    i += 1;
                    args.get(i).cloned()
                }
                (None, false) => None,
            };
            out.opts.push(Opt {
                name: name.to_string(),
                long: true,
                value,
            });
            i += 1;
            continue;
        }
        // A short cluster.
        let cluster = &word[1..];
        for (k, c) in cluster.char_indices() {
            if spec.short_with_value.contains(c) {
                let rest = &cluster[k + c.len_utf8()..];
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i).cloned()
                } else {
                    Some(Arg::literal(rest))
                };
                out.opts.push(Opt {
                    name: c.to_string(),
                    long: false,
                    value,
                });
                break;
            }
            out.opts.push(Opt {
                name: c.to_string(),
                long: false,
                value: None,
            });
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Arg> {
        words.iter().map(|w| Arg::literal(*w)).collect()
    }

    #[test]
    fn reads_clusters_values_and_permuted_operands() {
        let spec = OptSpec {
            short_with_value: "t",
            long_with_value: &["target-directory"],
            stop_at_operand: false,
        };
        let a = args(&[
            "-rf",
            "a",
            "-tdir",
            "b",
            "--target-directory",
            "d2",
            "--",
            "-x",
        ]);
        let p = parse(&a, spec);
        assert!(p.has("r") && p.has("f"));
        assert_eq!(p.value("t").and_then(Arg::lit), Some("dir"));
        assert_eq!(p.value("target-directory").and_then(Arg::lit), Some("d2"));
        let ops: Vec<&str> = p.operands.iter().filter_map(|i| a[*i].lit()).collect();
        assert_eq!(ops, ["a", "b", "-x"]);
    }

    #[test]
    fn stops_at_the_first_operand_when_asked() {
        let spec = OptSpec {
            short_with_value: "n",
            long_with_value: &[],
            stop_at_operand: true,
        };
        let a = args(&["-n", "5", "cmd", "-n", "x"]);
        let p = parse(&a, spec);
        assert_eq!(p.rest, 2);
        assert_eq!(p.value("n").and_then(Arg::lit), Some("5"));
    }
}
