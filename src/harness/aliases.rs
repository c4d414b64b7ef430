//! The payload as bash will run it after the harness sourced a snapshot:
//! aliases expanded (`expand_aliases` is on), the user's functions that it
//! calls defined in front of it (so their bodies are judged), and
//! functions whose body is not known made to look like an unknown program
//! (so they are never judged as the program they shadow).

use std::collections::BTreeSet;

use super::snapshot::Snapshot;
use crate::shell::ast::{Command, Compound, List, Part, Word};
use crate::shell::parse;

/// What could not be resolved.
pub const UNKNOWN_BODY: &str = "__automode_function_body_not_read";

/// Rewrite `payload` for judging.
pub fn resolve(payload: &str, snap: &Snapshot) -> String {
    let mut text = payload.to_string();
    // Expand aliases, a few rounds (an alias may name another).
    for _ in 0..5 {
        let Ok(parsed) = parse::parse(&text, &parse::Options::default()) else {
            break;
        };
        let mut uses: Vec<(String, String)> = Vec::new();
        visit_list(&parsed.list, &mut |raw, first| {
            if let Some(value) = snap.aliases.get(first) {
                uses.push((raw.to_string(), format!("{value}{}", &raw[first.len()..])));
            }
        });
        if uses.is_empty() {
            break;
        }
        let mut changed = false;
        for (raw, expanded) in uses {
            // Only where the command's text is unambiguous.
            if text.matches(raw.as_str()).count() == 1 {
                text = text.replacen(&raw, &expanded, 1);
                changed = true;
            } else {
                // Ambiguous: judge the name as an unknown program.
                return format!("{UNKNOWN_BODY}\n{payload}");
            }
        }
        if !changed {
            break;
        }
    }
    // Functions the (expanded) payload calls.
    let mut called = BTreeSet::new();
    if let Ok(parsed) = parse::parse(&text, &parse::Options::default()) {
        visit_list(&parsed.list, &mut |_, first| {
            if snap.functions.contains_key(first) {
                called.insert(first.to_string());
            }
        });
    }
    let mut defs = String::new();
    for name in called {
        match snap.functions.get(&name).map(String::as_str) {
            Some(def) if !def.is_empty() => {
                defs.push_str(def);
                defs.push('\n');
            }
            _ => defs.push_str(&format!("{name} () {{ {UNKNOWN_BODY}; }}\n")),
        }
    }
    format!("{defs}{text}")
}

/// Call `f(raw, first_word)` for every simple command whose first word is
/// plain unquoted text.
fn visit_list(list: &List, f: &mut dyn FnMut(&str, &str)) {
    for item in &list.items {
        for p in std::iter::once(&item.and_or.first).chain(item.and_or.rest.iter().map(|(_, p)| p))
        {
            for c in &p.commands {
                visit_command(c, f);
            }
        }
    }
}

fn visit_command(c: &Command, f: &mut dyn FnMut(&str, &str)) {
    match c {
        Command::Simple(s) => {
            if s.assignments.is_empty()
                && let Some(w) = s.words.first()
                && let [
                    Part::Lit {
                        text,
                        quoted: false,
                    },
                ] = w.parts.as_slice()
                && s.raw.starts_with(text.as_str())
            {
                f(&s.raw, text);
            }
            for w in &s.words {
                visit_word(w, f);
            }
        }
        Command::Compound(comp, _) => match comp {
            Compound::Brace(l) | Compound::Subshell(l) => visit_list(l, f),
            Compound::If {
                branches,
                otherwise,
            } => {
                for (a, b) in branches {
                    visit_list(a, f);
                    visit_list(b, f);
                }
                if let Some(o) = otherwise {
                    visit_list(o, f);
                }
            }
            Compound::While { cond, body, .. } => {
                visit_list(cond, f);
                visit_list(body, f);
            }
            Compound::For { body, .. }
            | Compound::Select { body, .. }
            | Compound::ArithFor { body, .. } => visit_list(body, f),
            Compound::Case { arms, .. } => {
                for a in arms {
                    visit_list(&a.body, f);
                }
            }
            Compound::Arith(_) | Compound::Cond(_) => {}
        },
        Command::Function { body, .. } | Command::Coproc { body, .. } => visit_command(body, f),
    }
}

fn visit_word(w: &Word, f: &mut dyn FnMut(&str, &str)) {
    for p in &w.parts {
        match p {
            Part::CommandSub { body, .. } | Part::ProcessSub { body, .. } => visit_list(body, f),
            Part::Double(inner) => {
                for q in inner {
                    if let Part::CommandSub { body, .. } | Part::ProcessSub { body, .. } = q {
                        visit_list(body, f);
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap() -> Snapshot {
        let mut s = Snapshot::default();
        s.aliases.insert("ll".into(), "ls -l".into());
        s.aliases.insert("ls".into(), "rm -rf".into());
        s.aliases.insert("gs".into(), "git status".into());
        s.functions.insert(
            "deploy".into(),
            "deploy () \n{ \n    rsync -a . host:/srv\n}".into(),
        );
        s.functions.insert("mystery".into(), String::new());
        s
    }

    #[test]
    fn expands_aliases_and_defines_called_functions() {
        assert_eq!(
            resolve("gs && echo done", &snap()),
            "git status && echo done"
        );
        // An alias that shadows a program is what runs.
        assert!(resolve("ls ~", &snap()).starts_with("rm -rf ~"));
        assert!(resolve("echo $(gs)", &snap()).contains("$(git status)"));
        let r = resolve("deploy", &snap());
        assert!(
            r.contains("rsync -a . host:/srv") && r.ends_with("deploy"),
            "{r}"
        );
        assert!(resolve("mystery x", &snap()).contains(UNKNOWN_BODY));
        // Quoted names are not aliases.
        assert_eq!(resolve("'ls' x", &snap()), "'ls' x");
    }
}
