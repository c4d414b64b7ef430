//! `automode guidance`: the text to add to AGENTS.md, CLAUDE.md or an
//! agent's system prompt.

/// Text for AGENTS.md, CLAUDE.md or a system prompt.
pub const GUIDANCE: &str = "\
## Shell commands run under automode

Every shell command you run goes through automode, which decides whether it
may run and supervises it: stdin is closed, there is a time limit (60 s by
default) and an output limit.

- A command automode blocks did NOT run. Its message says why, which rule
  decided, and what to do. Exit status 121 means blocked.
- Report blocks to the user. Do not try an equivalent command, another
  spelling, a script file or an interpreter to get around a block.
- Delete one literal target per call (`rm -r build`), never a glob, a
  variable or a list of paths, unless every target is build output
  (build, dist, target, node_modules, __pycache__ …).
- Prefer plain, literal commands: variables as program names, `eval`,
  `sh -c \"$X\"` and `curl … | sh` are refused.
- For a longer time limit, start the command with `AUTOMODE_TIMEOUT=600`
  (seconds, at most 7200), e.g. `AUTOMODE_TIMEOUT=600 cargo build`; for
  more output, `AUTOMODE_OUTPUT_LIMIT=<bytes>`. Exit status 124 means the
  command timed out, 120 that its output was cut at the limit.
- Commands that need the user's approval say so, with a code such as
  `K7QF-2M`. Then stop: tell the user the exact command, why you need it,
  and the line they run in their own terminal, `automode approve K7QF-2M`
  (it expires after 10 minutes). Do not retry the command until the user
  says they approved it; then run exactly the same command, in the same
  directory, once. You cannot approve it yourself: `automode approve`
  refuses to run inside your commands. If the user refused, do not try
  another way.
";
