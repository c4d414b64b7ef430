//! A conservative bash parser: script text → `Script` (syntax tree plus
//! here-document bodies).
//!
//! Written to agree with bash 5.2 (`bash -c`, extglob off, no aliases)
//! on everything it accepts, and to refuse (`ParseError`) everything else:
//! a refusal makes the analysis opaque, which never allows. Its corners —
//! `((` vs `( (`, `$((` vs `$( (`, backtick unescaping, here-documents
//! inside `$(…)`, `{fd}>` redirections, `=~` words — are checked against
//! real bash by the oracle test (tests/oracle.rs). It is bounded: nesting
//! depth, a deadline, and linear scanning.

use std::borrow::Cow;
use std::rc::Rc;
use std::time::Instant;

use super::ast::{
    AndOr, AndOrOp, Arith, AssignValue, Assignment, CaseArm, Command, Compound, CondToken, HereDoc,
    List, ListItem, Param, Part, Parts, Pipeline, RedirOp, RedirTarget, Redirect, SimpleCommand,
    Text, Word,
};

/// A parse refusal: what was not understood, and where (byte offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub offset: usize,
}

/// A parsed script: the command list and the here-document bodies its
/// redirections refer to (by index).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    pub list: List,
    pub heredocs: Vec<HereDoc>,
}

/// Parser settings and bounds.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Maximum nesting of compound commands, substitutions and quotes.
    pub max_depth: usize,
    /// Give up (error) after this instant.
    pub deadline: Option<Instant>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_depth: 1500,
            deadline: None,
        }
    }
}

/// Reserved words that end a compound list.
const TERMINATORS: &[&str] = &["then", "elif", "else", "fi", "do", "done", "esac", "}"];

/// Parse a whole script.
pub fn parse(src: &str, opts: &Options) -> Result<Script, ParseError> {
    let mut stream = Stream::new(src, opts)?;
    let mut items = Vec::new();
    while let Some(item) = stream.next_item()? {
        items.push(item);
    }
    stream.finish()?;
    Ok(Script {
        list: List { items },
        heredocs: stream.take_heredocs(),
    })
}

/// A whole script parsed one top-level and-or list at a time: `parse`
/// is `next_item` until None, then `finish`. The analysis walks each item
/// as soon as its here-documents are read, so the syntax tree of a large
/// script is never all in memory at once.
pub struct Stream<'s> {
    p: Parser<'s>,
    done: bool,
}

impl std::fmt::Debug for Stream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("offset", &self.p.i)
            .field("done", &self.done)
            .finish()
    }
}

impl<'s> Stream<'s> {
    pub fn new(src: &'s str, opts: &Options) -> Result<Stream<'s>, ParseError> {
        let mut p = Parser::from_text(src, *opts);
        p.enter()?;
        Ok(Stream { p, done: false })
    }

    /// The next top-level item, None after the last.
    pub fn next_item(&mut self) -> Result<Option<ListItem>, ParseError> {
        if self.done {
            return Ok(None);
        }
        match self.p.list_item(Stop::Eof)? {
            Some((item, last)) => {
                self.done = last;
                Ok(Some(item))
            }
            None => {
                self.done = true;
                Ok(None)
            }
        }
    }

    /// Whether items read so far have here-documents whose bodies are not
    /// read yet (they follow the next newline).
    pub fn heredocs_pending(&self) -> bool {
        !self.p.pending.is_empty()
    }

    /// After the last item: the rest of the input must be empty; here-docs
    /// still pending get empty bodies.
    pub fn finish(&mut self) -> Result<(), ParseError> {
        self.p.leave();
        self.p.skip_space_and_comments();
        if self.p.i < self.p.s.len() {
            return Err(self.p.err(format!("unexpected `{}`", self.p.token_text())));
        }
        self.p.finish_heredocs_at_eof();
        Ok(())
    }

    /// The here-documents read so far (items refer to them by index); give
    /// them back with `restore_heredocs` before reading on.
    pub fn take_heredocs(&mut self) -> Vec<HereDoc> {
        std::mem::take(&mut self.p.heredocs)
    }

    pub fn restore_heredocs(&mut self, heredocs: Vec<HereDoc>) {
        self.p.heredocs = heredocs;
    }
}

/// Parse text that bash will evaluate as arithmetic at run time (a
/// subscript in `declare 'a[…]=1'`, a `let` argument, a variable's value):
/// the substitutions in it, as a script whose list is empty.
pub fn parse_arith(text: &str, opts: &Options) -> Result<(Arith, Script), ParseError> {
    let mut p = Parser::from_text(text, *opts);
    let arith = p.arith_from_text(text, 0)?;
    Ok((
        arith,
        Script {
            list: List::default(),
            heredocs: p.heredocs,
        },
    ))
}

/// What ends the list being parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// End of input.
    Eof,
    /// A `)` (subshell or command substitution).
    Paren,
    /// A reserved word from TERMINATORS.
    Word,
    /// `;;`, `;&`, `;;&` or `esac` (a case arm).
    CaseArm,
}

struct Pending {
    id: usize,
    delimiter: Vec<u8>,
    strip_tabs: bool,
    quoted: bool,
}

struct Parser<'s> {
    s: &'s [u8],
    /// The same bytes as text, when they are valid UTF-8 (always, for
    /// scripts; checked once so slices need not be).
    utf8: Option<&'s str>,
    /// A shared copy of that text: words and literals are ranges of it.
    shared: Option<Rc<str>>,
    i: usize,
    depth: usize,
    opts: Options,
    steps: u32,
    heredocs: Vec<HereDoc>,
    pending: Vec<Pending>,
    /// How many `"…"` enclose the cursor (reset inside `$(…)`).
    double_depth: usize,
    /// How many `$(…)`/`<(…)` enclose the cursor.
    paren_sub_depth: usize,
    /// Scratch space for the parts of the word being read.
    parts_buf: Vec<Part>,
    /// Scratch space for the words and redirections of a simple command,
    /// and the commands of a pipeline.
    words_buf: Vec<Word>,
    redirects_buf: Vec<Redirect>,
    commands_buf: Vec<Command>,
}

const fn is_meta(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

/// Bytes that end a run of ordinary word characters: metacharacters,
/// quotes, escapes and expansions.
const WORD_BREAK: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = is_meta(b as u8) || matches!(b as u8, b'\\' | b'\'' | b'"' | b'`' | b'$');
        b += 1;
    }
    t
};

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Is `s` a valid shell variable name?
pub fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && is_name_start(b[0]) && b.iter().all(|c| is_name_char(*c))
}

impl<'s> Parser<'s> {
    fn new(s: &'s [u8], opts: Options) -> Parser<'s> {
        Parser::with_text(s, std::str::from_utf8(s).ok(), opts)
    }

    fn from_text(text: &'s str, opts: Options) -> Parser<'s> {
        Parser::with_text(text.as_bytes(), Some(text), opts)
    }

    fn with_text(s: &'s [u8], utf8: Option<&'s str>, opts: Options) -> Parser<'s> {
        Parser {
            s,
            utf8,
            shared: utf8.map(Rc::from),
            i: 0,
            depth: 0,
            opts,
            steps: 0,
            heredocs: Vec::new(),
            pending: Vec::new(),
            double_depth: 0,
            paren_sub_depth: 0,
            parts_buf: Vec::new(),
            words_buf: Vec::new(),
            redirects_buf: Vec::new(),
            commands_buf: Vec::new(),
        }
    }

    fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError {
            message: message.into(),
            offset: self.i,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }

    fn at(&self, lit: &[u8]) -> bool {
        self.s[self.i.min(self.s.len())..].starts_with(lit)
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.slice(from, to).into_owned()
    }

    /// The source text between two offsets, as a range of the shared
    /// copy when it can be.
    fn text_at(&self, from: usize, to: usize) -> Text {
        let (from, to) = (from.min(self.s.len()), to.min(self.s.len()));
        if let Some(text) = self.shared.as_ref().and_then(|t| Text::slice(t, from, to)) {
            return text;
        }
        Text::new(&self.slice(from, to))
    }

    /// The source text between two offsets, borrowed when it is valid
    /// UTF-8 (always, but for offsets inside a character).
    fn slice(&self, from: usize, to: usize) -> Cow<'s, str> {
        let s: &'s [u8] = self.s;
        let (from, to) = (from.min(s.len()), to.min(s.len()));
        if let Some(text) = self.utf8.and_then(|t| t.get(from..to)) {
            return Cow::Borrowed(text);
        }
        String::from_utf8_lossy(&s[from..to])
    }

    /// The next few characters, for messages.
    fn token_text(&self) -> String {
        let end = (self.i + 12).min(self.s.len());
        let t = self.text(self.i, end);
        t.lines().next().unwrap_or("").to_string()
    }

    fn tick(&mut self) -> Result<(), ParseError> {
        self.steps = self.steps.wrapping_add(1);
        if self.steps.is_multiple_of(1024)
            && let Some(deadline) = self.opts.deadline
            && Instant::now() > deadline
        {
            return Err(self.err("analysis time budget exceeded"));
        }
        Ok(())
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            return Err(self.err(format!(
                "nesting deeper than {} levels",
                self.opts.max_depth
            )));
        }
        if super::stack::exhausted() {
            return Err(self.err("out of stack"));
        }
        self.tick()
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ------------------------------------------------------------ lexing

    /// Skip blanks, line continuations and comments (not newlines).
    fn skip_space_and_comments(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => self.i += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.i += 2,
                Some(b'#') => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// Consume one newline token and read any pending here-documents.
    fn newline(&mut self) -> Result<(), ParseError> {
        debug_assert_eq!(self.peek(), Some(b'\n'));
        self.i += 1;
        self.read_pending_heredocs()
    }

    /// Skip blanks, comments and newlines (reading here-doc bodies).
    fn skip_linebreaks(&mut self) -> Result<(), ParseError> {
        loop {
            self.skip_space_and_comments();
            if self.peek() == Some(b'\n') {
                self.newline()?;
            } else {
                return Ok(());
            }
        }
    }

    /// If the next token is an unquoted word equal to `word`, return true
    /// (without consuming it).
    fn at_word(&self, word: &str) -> bool {
        let w = word.as_bytes();
        self.at(w)
            && match self.s.get(self.i + w.len()) {
                None => true,
                Some(&c) => is_meta(c),
            }
    }

    /// The reserved word at the cursor, if any (in command position).
    fn reserved_here(&self) -> Option<&'static str> {
        const RESERVED: &[&str] = &[
            "if", "then", "elif", "else", "fi", "case", "esac", "for", "select", "while", "until",
            "do", "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
        ];
        // No reserved word contains a metacharacter: `at_word(w)` is the
        // token up to the next one being `w`.
        let token = self.token_here(8)?;
        RESERVED.iter().copied().find(|w| w.as_bytes() == token)
    }

    /// The bytes from the cursor up to the next metacharacter (or the
    /// end), if there are at most `max` of them.
    fn token_here(&self, max: usize) -> Option<&'s [u8]> {
        let s: &'s [u8] = self.s;
        let rest = &s[self.i.min(s.len())..];
        let window = &rest[..rest.len().min(max + 1)];
        let end = window
            .iter()
            .position(|&c| is_meta(c))
            .unwrap_or(window.len());
        (end <= max).then(|| &rest[..end])
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if self.at_word(word) {
            self.i += word.len();
            true
        } else {
            false
        }
    }

    fn expect_word(&mut self, word: &str) -> Result<(), ParseError> {
        self.skip_space_and_comments();
        if self.eat_word(word) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{word}`, found `{}`", self.token_text())))
        }
    }

    // ------------------------------------------------------------ lists

    /// A list of and-or lists separated by `;`, `&` or newlines, up to the
    /// given stop.
    fn compound_list(&mut self, stop: Stop) -> Result<List, ParseError> {
        self.enter()?;
        let mut items = Vec::new();
        while let Some((item, last)) = self.list_item(stop)? {
            items.push(item);
            if last {
                break;
            }
        }
        self.leave();
        if items.is_empty() && stop != Stop::Eof && stop != Stop::Paren && stop != Stop::CaseArm {
            return Err(self.err("empty command list"));
        }
        Ok(List { items })
    }

    /// The next item of a compound list with its separator, None at the
    /// stop; `last` when no separator followed (the list ends there).
    fn list_item(&mut self, stop: Stop) -> Result<Option<(ListItem, bool)>, ParseError> {
        self.skip_linebreaks()?;
        if self.at_stop(stop) {
            return Ok(None);
        }
        let and_or = self.and_or()?;
        self.skip_space_and_comments();
        let mut background = false;
        match self.peek() {
            Some(b'&') if self.peek_at(1) != Some(b'&') && self.peek_at(1) != Some(b'>') => {
                self.i += 1;
                background = true;
            }
            Some(b';') if self.peek_at(1) != Some(b';') && self.peek_at(1) != Some(b'&') => {
                self.i += 1;
            }
            Some(b'\n') => self.newline()?,
            _ => {
                self.skip_space_and_comments();
                if self.at_stop(stop) {
                    return Ok(Some((ListItem { and_or, background }, true)));
                }
                return Err(self.err(format!("syntax error near `{}`", self.token_text())));
            }
        }
        Ok(Some((ListItem { and_or, background }, false)))
    }

    fn at_stop(&self, stop: Stop) -> bool {
        match stop {
            Stop::Eof => {
                self.i >= self.s.len() || self.peek() == Some(b')') || self.at_terminator_word()
            }
            Stop::Paren => self.peek() == Some(b')') || self.i >= self.s.len(),
            Stop::Word => self.at_terminator_word() || self.i >= self.s.len(),
            Stop::CaseArm => {
                self.at(b";;") || self.at(b";&") || self.at_word("esac") || self.i >= self.s.len()
            }
        }
    }

    fn at_terminator_word(&self) -> bool {
        // As in `reserved_here`: no terminator contains a metacharacter.
        self.token_here(4)
            .is_some_and(|token| TERMINATORS.iter().any(|w| w.as_bytes() == token))
    }

    fn and_or(&mut self) -> Result<AndOr, ParseError> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            self.skip_space_and_comments();
            let op = if self.at(b"&&") {
                AndOrOp::And
            } else if self.at(b"||") {
                AndOrOp::Or
            } else {
                break;
            };
            self.i += 2;
            self.skip_linebreaks()?;
            let next = self.pipeline()?;
            // Usually one `&&` or `||`: room for exactly that first.
            if rest.capacity() == 0 {
                rest.reserve_exact(1);
            }
            rest.push((op, next));
        }
        Ok(AndOr {
            first,
            rest: exact(rest),
        })
    }

    fn pipeline(&mut self) -> Result<Pipeline, ParseError> {
        self.skip_space_and_comments();
        let mut bang = false;
        let mut timed = false;
        loop {
            if self.eat_word("time") {
                timed = true;
                self.skip_space_and_comments();
                if self.at_word("-p") {
                    self.i += 2;
                    self.skip_space_and_comments();
                }
                if self.at_word("--") {
                    self.i += 2;
                }
            } else if self.eat_word("!") {
                bang = !bang;
            } else {
                break;
            }
            self.skip_space_and_comments();
        }
        let mut buf = std::mem::take(&mut self.commands_buf);
        let result = self.pipeline_commands(&mut buf, bang || timed);
        let commands = move_exact(&mut buf);
        self.commands_buf = buf;
        result?;
        Ok(Pipeline {
            bang,
            timed,
            commands,
        })
    }

    /// The commands of a pipeline, into `commands` (none when
    /// `may_be_empty` and the pipeline ends at once).
    fn pipeline_commands(
        &mut self,
        commands: &mut Vec<Command>,
        may_be_empty: bool,
    ) -> Result<(), ParseError> {
        loop {
            self.skip_space_and_comments();
            if may_be_empty && commands.is_empty() && self.pipeline_ends_here() {
                // `time` or `!` alone is a valid (empty) pipeline.
                break;
            }
            commands.push(self.command()?);
            self.skip_space_and_comments();
            if self.at(b"|&") {
                self.i += 2;
                // `a |& b` is `a 2>&1 | b`.
                if let Some(Command::Simple(sc)) = commands.last_mut() {
                    sc.redirects.push(stderr_to_stdout());
                } else if let Some(Command::Compound(_, r)) = commands.last_mut() {
                    r.push(stderr_to_stdout());
                }
            } else if self.peek() == Some(b'|') && self.peek_at(1) != Some(b'|') {
                self.i += 1;
            } else {
                break;
            }
            self.skip_linebreaks()?;
        }
        Ok(())
    }

    fn pipeline_ends_here(&self) -> bool {
        match self.peek() {
            None | Some(b'\n' | b';' | b')') => true,
            Some(b'&') => true,
            Some(b'|') => self.peek_at(1) == Some(b'|'),
            _ => self.at_terminator_word(),
        }
    }

    // ------------------------------------------------------------ commands

    fn command(&mut self) -> Result<Command, ParseError> {
        self.enter()?;
        let cmd = self.command_inner();
        self.leave();
        cmd
    }

    fn command_inner(&mut self) -> Result<Command, ParseError> {
        self.skip_space_and_comments();
        let Some(c) = self.peek() else {
            return Err(self.err("unexpected end of input: a command was expected"));
        };
        if c == b'(' {
            if self.at(b"((") {
                let start = self.i;
                if let Some(end) = self.arith_command_end(self.i + 2) {
                    let raw = self.text(self.i + 2, end);
                    self.i = end + 2;
                    let arith = self.arith_from_text(&raw, start)?;
                    let redirects = self.trailing_redirects()?;
                    return Ok(Command::Compound(
                        Compound::Arith(Box::new(arith)),
                        redirects,
                    ));
                }
            }
            self.i += 1;
            let body = self.compound_list(Stop::Paren)?;
            if self.peek() != Some(b')') {
                return Err(self.err("expected `)` to close the subshell"));
            }
            self.i += 1;
            if body.items.is_empty() {
                return Err(self.err("empty subshell"));
            }
            let redirects = self.trailing_redirects()?;
            return Ok(Command::Compound(Compound::Subshell(body), redirects));
        }
        if let Some(word) = self.reserved_here() {
            match word {
                "{" => {
                    self.i += 1;
                    let body = self.compound_list(Stop::Word)?;
                    self.expect_word("}")?;
                    let redirects = self.trailing_redirects()?;
                    return Ok(Command::Compound(Compound::Brace(body), redirects));
                }
                "if" => return self.if_command(),
                "while" | "until" => return self.while_command(word == "until"),
                "for" => return self.for_command(false),
                "select" => return self.for_command(true),
                "case" => return self.case_command(),
                "[[" => return self.cond_command(),
                "function" => return self.function_keyword(),
                "coproc" => return self.coproc(),
                "time" | "!" => {
                    return Err(self.err(format!("`{word}` is not allowed here")));
                }
                other => {
                    return Err(self.err(format!("syntax error near unexpected `{other}`")));
                }
            }
        }
        if matches!(c, b')' | b';' | b'&' | b'|') || c == b'\n' {
            return Err(self.err(format!(
                "syntax error near unexpected `{}`",
                self.token_text()
            )));
        }
        self.simple_command()
    }

    fn trailing_redirects(&mut self) -> Result<Vec<Redirect>, ParseError> {
        let mut out = Vec::new();
        loop {
            self.skip_space_and_comments();
            match self.try_redirect()? {
                Some(r) => out.push(r),
                None => return Ok(out),
            }
        }
    }

    fn if_command(&mut self) -> Result<Command, ParseError> {
        self.expect_word("if")?;
        let mut branches = Vec::new();
        let cond = self.compound_list(Stop::Word)?;
        self.expect_word("then")?;
        let body = self.compound_list(Stop::Word)?;
        branches.push((cond, body));
        let mut otherwise = None;
        loop {
            self.skip_space_and_comments();
            if self.eat_word("elif") {
                let cond = self.compound_list(Stop::Word)?;
                self.expect_word("then")?;
                let body = self.compound_list(Stop::Word)?;
                branches.push((cond, body));
            } else if self.eat_word("else") {
                otherwise = Some(self.compound_list(Stop::Word)?);
                self.expect_word("fi")?;
                break;
            } else {
                self.expect_word("fi")?;
                break;
            }
        }
        let redirects = self.trailing_redirects()?;
        Ok(Command::Compound(
            Compound::If {
                branches,
                otherwise,
            },
            redirects,
        ))
    }

    fn while_command(&mut self, until: bool) -> Result<Command, ParseError> {
        // "while" and "until" are both five letters.
        let _ = until;
        self.i += 5;
        let cond = self.compound_list(Stop::Word)?;
        let body = self.do_group()?;
        let redirects = self.trailing_redirects()?;
        Ok(Command::Compound(
            Compound::While { until, cond, body },
            redirects,
        ))
    }

    fn do_group(&mut self) -> Result<List, ParseError> {
        self.skip_linebreaks()?;
        if self.eat_word("{") {
            // bash also takes `for …; { …; }`.
            let body = self.compound_list(Stop::Word)?;
            self.expect_word("}")?;
            return Ok(body);
        }
        self.expect_word("do")?;
        let body = self.compound_list(Stop::Word)?;
        self.expect_word("done")?;
        Ok(body)
    }

    fn for_command(&mut self, select: bool) -> Result<Command, ParseError> {
        self.i += if select { 6 } else { 3 };
        self.skip_space_and_comments();
        if !select && self.at(b"((") {
            let start = self.i;
            let Some(end) = self.arith_command_end(self.i + 2) else {
                return Err(self.err("unterminated `for ((`"));
            };
            let raw = self.text(self.i + 2, end);
            self.i = end + 2;
            let pieces = split_arith_for(&raw);
            if pieces.len() != 3 {
                return Err(self.err("`for ((…))` needs three expressions"));
            }
            let parts = Box::new([
                self.arith_from_text(&pieces[0], start)?,
                self.arith_from_text(&pieces[1], start)?,
                self.arith_from_text(&pieces[2], start)?,
            ]);
            self.skip_space_and_comments();
            if self.peek() == Some(b';') {
                self.i += 1;
            }
            let body = self.do_group()?;
            let redirects = self.trailing_redirects()?;
            return Ok(Command::Compound(
                Compound::ArithFor { parts, body },
                redirects,
            ));
        }
        let var = self.plain_name()?;
        self.skip_space_and_comments();
        let mut words = None;
        // `for x in …` may have the `in` on a new line.
        let save = self.i;
        self.skip_linebreaks()?;
        if self.eat_word("in") {
            let mut list = Vec::new();
            loop {
                self.skip_space_and_comments();
                match self.peek() {
                    Some(b';') => {
                        self.i += 1;
                        break;
                    }
                    Some(b'\n') => {
                        self.newline()?;
                        break;
                    }
                    None => return Err(self.err("unexpected end of input in `for`")),
                    Some(c) if is_meta(c) => {
                        return Err(self.err(format!("syntax error near `{}`", self.token_text())));
                    }
                    _ => list.push(self.word()?),
                }
            }
            words = Some(list);
        } else {
            self.i = save;
            self.skip_space_and_comments();
            if self.peek() == Some(b';') {
                self.i += 1;
            }
        }
        let body = self.do_group()?;
        let redirects = self.trailing_redirects()?;
        let compound = if select {
            Compound::Select { var, words, body }
        } else {
            Compound::For { var, words, body }
        };
        Ok(Command::Compound(compound, redirects))
    }

    /// An unquoted variable name (for/select variable, coproc name).
    fn plain_name(&mut self) -> Result<String, ParseError> {
        self.skip_space_and_comments();
        let start = self.i;
        while self.peek().is_some_and(is_name_char) {
            self.i += 1;
        }
        let name = self.text(start, self.i);
        if !is_name(&name) || self.peek().is_some_and(|c| !is_meta(c)) {
            return Err(self.err("expected a variable name"));
        }
        Ok(name)
    }

    fn case_command(&mut self) -> Result<Command, ParseError> {
        self.i += 4;
        self.skip_space_and_comments();
        let word = self.word()?;
        self.skip_linebreaks()?;
        self.expect_word("in")?;
        let mut arms = Vec::new();
        loop {
            self.skip_linebreaks()?;
            if self.eat_word("esac") {
                break;
            }
            if self.peek().is_none() {
                return Err(self.err("unexpected end of input in `case`"));
            }
            if self.peek() == Some(b'(') {
                self.i += 1;
            }
            let mut patterns = Vec::new();
            loop {
                self.skip_space_and_comments();
                patterns.push(self.word()?);
                self.skip_space_and_comments();
                match self.peek() {
                    Some(b'|') => self.i += 1,
                    Some(b')') => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(self.err("expected `)` or `|` after a case pattern")),
                }
            }
            let body = self.compound_list(Stop::CaseArm)?;
            arms.push(CaseArm { patterns, body });
            self.skip_space_and_comments();
            if self.at(b";;&") {
                self.i += 3;
            } else if self.at(b";;") || self.at(b";&") {
                self.i += 2;
            } else if self.at_word("esac") {
                self.i += 4;
                break;
            } else {
                return Err(self.err("expected `;;` or `esac`"));
            }
        }
        let redirects = self.trailing_redirects()?;
        Ok(Command::Compound(Compound::Case { word, arms }, redirects))
    }

    fn cond_command(&mut self) -> Result<Command, ParseError> {
        self.i += 2;
        let mut tokens = Vec::new();
        let mut regex_next = false;
        loop {
            self.tick()?;
            self.skip_space_and_comments();
            if self.peek() == Some(b'\n') {
                self.newline()?;
                continue;
            }
            if self.eat_word("]]") {
                break;
            }
            let Some(c) = self.peek() else {
                return Err(self.err("unexpected end of input in `[[`"));
            };
            if regex_next {
                regex_next = false;
                tokens.push(CondToken::Word(self.regex_word()?));
                continue;
            }
            let op: Option<&str> = if self.at(b"&&") {
                Some("&&")
            } else if self.at(b"||") {
                Some("||")
            } else if matches!(c, b'(' | b')' | b'<' | b'>') {
                Some(match c {
                    b'(' => "(",
                    b')' => ")",
                    b'<' => "<",
                    _ => ">",
                })
            } else if matches!(c, b';' | b'&' | b'|') {
                return Err(self.err("syntax error in conditional expression"));
            } else {
                None
            };
            if let Some(op) = op {
                self.i += op.len();
                tokens.push(CondToken::Op(op.to_string()));
                continue;
            }
            let w = self.word()?;
            if w.raw == "=~" {
                regex_next = true;
            }
            tokens.push(CondToken::Word(w));
        }
        if tokens.is_empty() {
            return Err(self.err("empty `[[ ]]`"));
        }
        if !cond_grammar_ok(&tokens) {
            return Err(self.err("syntax error in conditional expression"));
        }
        let redirects = self.trailing_redirects()?;
        Ok(Command::Compound(Compound::Cond(tokens), redirects))
    }

    /// The word after `=~`: `(`, `)` and `|` are part of it, and blanks
    /// inside parentheses.
    fn regex_word(&mut self) -> Result<Word, ParseError> {
        let start = self.i;
        let mut parts = Vec::new();
        let mut depth = 0usize;
        loop {
            self.tick()?;
            let Some(c) = self.peek() else { break };
            match c {
                b' ' | b'\t' | b'\n' if depth == 0 => break,
                b'&' if self.peek_at(1) == Some(b'&') && depth == 0 => break,
                b'|' if self.peek_at(1) == Some(b'|') && depth == 0 => break,
                b';' | b'&' | b'<' | b'>' => {
                    return Err(self.err("syntax error in conditional expression"));
                }
                b'(' => {
                    depth += 1;
                    push_lit_str(&mut parts, "(", false);
                    self.i += 1;
                }
                b')' => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                    push_lit_str(&mut parts, ")", false);
                    self.i += 1;
                }
                b'|' | b' ' | b'\t' => {
                    push_lit_str(&mut parts, &(c as char).to_string(), false);
                    self.i += 1;
                }
                b'\n' => return Err(self.err("newline inside a `=~` pattern")),
                _ => {
                    if !self.word_part(&mut parts, WordCtx::Regex)? {
                        break;
                    }
                }
            }
        }
        if self.i == start {
            return Err(self.err("missing pattern after `=~`"));
        }
        Ok(Word {
            parts: parts.into(),
            raw: self.text_at(start, self.i),
        })
    }

    fn function_keyword(&mut self) -> Result<Command, ParseError> {
        self.i += 8;
        self.skip_space_and_comments();
        let start = self.i;
        let w = self.word()?;
        let name = literal_of(&w).ok_or_else(|| ParseError {
            message: "function name must be a literal word".into(),
            offset: start,
        })?;
        self.skip_space_and_comments();
        if self.peek() == Some(b'(') {
            let paren = self.i;
            self.i += 1;
            self.skip_space_and_comments();
            if self.peek() == Some(b')') {
                self.i += 1;
            } else {
                // `function f ( cmd )`: the parenthesis opens the body.
                self.i = paren;
            }
        }
        self.function_body(name)
    }

    fn function_body(&mut self, name: String) -> Result<Command, ParseError> {
        self.skip_linebreaks()?;
        let body = self.command()?;
        match body {
            Command::Compound(..) => Ok(Command::Function {
                name,
                body: Box::new(body),
            }),
            _ => Err(self.err("a function body must be a compound command")),
        }
    }

    fn coproc(&mut self) -> Result<Command, ParseError> {
        self.i += 6;
        self.skip_space_and_comments();
        // `coproc NAME compound` or `coproc compound` or `coproc simple`.
        let starts_compound = |p: &Parser<'_>| {
            p.peek() == Some(b'(')
                || ["{", "if", "while", "until", "for", "case", "select", "[["]
                    .iter()
                    .any(|w| p.at_word(w))
        };
        if starts_compound(self) {
            let body = self.command()?;
            return Ok(Command::Coproc {
                name: None,
                body: Box::new(body),
            });
        }
        let save = self.i;
        if let Ok(name) = self.plain_name() {
            self.skip_space_and_comments();
            if starts_compound(self) {
                let body = self.command()?;
                return Ok(Command::Coproc {
                    name: Some(name),
                    body: Box::new(body),
                });
            }
        }
        self.i = save;
        let body = self.simple_command()?;
        Ok(Command::Coproc {
            name: None,
            body: Box::new(body),
        })
    }

    fn simple_command(&mut self) -> Result<Command, ParseError> {
        // Words and redirections gather in reused buffers and are moved
        // out at their exact size (a nested command takes fresh ones).
        let mut words = std::mem::take(&mut self.words_buf);
        let mut redirects = std::mem::take(&mut self.redirects_buf);
        let result = self.simple_command_into(&mut words, &mut redirects);
        words.clear();
        redirects.clear();
        self.words_buf = words;
        self.redirects_buf = redirects;
        result
    }

    fn simple_command_into(
        &mut self,
        words: &mut Vec<Word>,
        redirects: &mut Vec<Redirect>,
    ) -> Result<Command, ParseError> {
        let start = self.i;
        let mut cmd = SimpleCommand::default();
        loop {
            self.tick()?;
            self.skip_space_and_comments();
            let Some(c) = self.peek() else { break };
            if let Some(r) = self.try_redirect()? {
                redirects.push(r);
                continue;
            }
            if is_meta(c) && !self.at(b"<(") && !self.at(b">(") {
                if c == b'('
                    && words.len() == 1
                    && cmd.assignments.is_empty()
                    && redirects.is_empty()
                {
                    // `name () body`
                    let name = literal_of(&words[0])
                        .ok_or_else(|| self.err("function name must be a literal word"))?;
                    self.i += 1;
                    self.skip_space_and_comments();
                    if self.peek() != Some(b')') {
                        return Err(self.err("expected `)` in function definition"));
                    }
                    self.i += 1;
                    return self.function_body(name);
                }
                break;
            }
            if words.is_empty() {
                if let Some(a) = self.try_assignment()? {
                    cmd.assignments.push(a);
                    continue;
                }
                // A reserved word after assignments or redirections is an
                // error in bash (`X=1 if …`), except as a plain word later.
                if (!cmd.assignments.is_empty() || !redirects.is_empty())
                    && let Some(w) = self.reserved_here()
                    && !matches!(
                        w,
                        "in" | "]]" | "}" | "!" | "time" | "{" | "function" | "coproc" | "[["
                    )
                {
                    return Err(self.err(format!("syntax error near unexpected `{w}`")));
                }
            }
            let w = self.word()?;
            words.push(w);
        }
        if words.is_empty() && cmd.assignments.is_empty() && redirects.is_empty() {
            return Err(self.err(format!(
                "syntax error near unexpected `{}`",
                self.token_text()
            )));
        }
        cmd.raw = self.slice(start, self.i).trim_end().to_string();
        cmd.words = move_exact(words);
        cmd.redirects = move_exact(redirects);
        cmd.assignments = exact(cmd.assignments);
        Ok(Command::Simple(cmd))
    }

    /// `NAME=value`, `NAME+=value`, `NAME[sub]=value`, `NAME=( … )`.
    fn try_assignment(&mut self) -> Result<Option<Assignment>, ParseError> {
        let start = self.i;
        if !self.peek().is_some_and(is_name_start) {
            return Ok(None);
        }
        let mut j = self.i;
        while self.s.get(j).copied().is_some_and(is_name_char) {
            j += 1;
        }
        let mut subscript = None;
        let mut k = j;
        if self.s.get(k) == Some(&b'[') {
            // A cheap look first: only parse the subscript when it really
            // ends in `]=` or `]+=` (parsing and backtracking on every
            // `name[` word would be exponential in nested substitutions).
            let Some(close) = self.subscript_close(k + 1) else {
                return Ok(None);
            };
            let after = &self.s[close + 1..];
            if !(after.starts_with(b"=") || after.starts_with(b"+=")) {
                return Ok(None);
            }
            // Find the matching `]` followed by `=` or `+=`.
            let save = self.i;
            self.i = k + 1;
            let sub = self.word_until_bracket();
            match sub {
                Ok(w) if self.peek() == Some(b']') => {
                    k = self.i + 1;
                    subscript = Some(w);
                }
                _ => {
                    self.i = save;
                    return Ok(None);
                }
            }
            self.i = save;
        }
        let append = self.s.get(k) == Some(&b'+') && self.s.get(k + 1) == Some(&b'=');
        let eq = if append { k + 1 } else { k };
        if self.s.get(eq) != Some(&b'=') {
            return Ok(None);
        }
        self.i = eq + 1;
        let value = if self.peek() == Some(b'(') {
            self.i += 1;
            let mut elems = Vec::new();
            loop {
                self.skip_linebreaks()?;
                match self.peek() {
                    Some(b')') => {
                        self.i += 1;
                        break;
                    }
                    None => return Err(self.err("unterminated array assignment")),
                    Some(c) if is_meta(c) => {
                        return Err(self.err("syntax error in array assignment"));
                    }
                    _ => elems.push(self.word()?),
                }
            }
            AssignValue::Array(elems)
        } else {
            AssignValue::Scalar(self.word_maybe_empty()?)
        };
        Ok(Some(Assignment {
            name: self.text(start, j),
            subscript,
            append,
            value,
            raw: self.text_at(start, self.i),
        }))
    }

    /// Where the `]` closing a subscript that starts at `from` is, by a
    /// lexical scan (quotes skipped, brackets and parentheses counted), or
    /// None if the word ends first or the subscript is implausibly long.
    fn subscript_close(&self, from: usize) -> Option<usize> {
        const MAX_SUBSCRIPT_BYTES: usize = 4096;
        let (mut brackets, mut parens) = (0usize, 0usize);
        let mut j = from;
        while j < self.s.len() && j - from < MAX_SUBSCRIPT_BYTES {
            match self.s[j] {
                b'\\' => j += 1,
                b'\'' => {
                    j += 1;
                    while j < self.s.len() && self.s[j] != b'\'' {
                        j += 1;
                    }
                }
                b'"' => {
                    j += 1;
                    while j < self.s.len() && self.s[j] != b'"' {
                        if self.s[j] == b'\\' {
                            j += 1;
                        }
                        j += 1;
                    }
                }
                b'(' => parens += 1,
                b')' if parens == 0 => return None,
                b')' => parens -= 1,
                b'[' => brackets += 1,
                b']' if brackets == 0 && parens == 0 => return Some(j),
                b']' => brackets = brackets.saturating_sub(1),
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' if parens == 0 => {
                    return None;
                }
                _ => {}
            }
            j += 1;
        }
        None
    }

    /// Word parts up to an unquoted `]` (array subscripts).
    fn word_until_bracket(&mut self) -> Result<Word, ParseError> {
        let start = self.i;
        let mut parts = Vec::new();
        let mut depth = 0usize;
        loop {
            self.tick()?;
            match self.peek() {
                None => return Err(self.err("unterminated subscript")),
                Some(b']') if depth == 0 => break,
                Some(b'[') => {
                    depth += 1;
                    push_lit_str(&mut parts, "[", false);
                    self.i += 1;
                }
                Some(b']') => {
                    depth -= 1;
                    push_lit_str(&mut parts, "]", false);
                    self.i += 1;
                }
                Some(b'\n') => return Err(self.err("newline in a subscript")),
                Some(c) if is_meta(c) && c != b' ' && c != b'\t' => {
                    if !self.word_part(&mut parts, WordCtx::Subscript)? {
                        return Err(self.err("syntax error in a subscript"));
                    }
                }
                Some(c @ (b' ' | b'\t')) => {
                    push_lit_str(&mut parts, &(c as char).to_string(), false);
                    self.i += 1;
                }
                Some(_) => {
                    if !self.word_part(&mut parts, WordCtx::Subscript)? {
                        return Err(self.err("syntax error in a subscript"));
                    }
                }
            }
        }
        Ok(Word {
            parts: parts.into(),
            raw: self.text_at(start, self.i),
        })
    }

    /// A redirection at the cursor, if there is one.
    fn try_redirect(&mut self) -> Result<Option<Redirect>, ParseError> {
        // Every redirection starts with a digit, `{`, `<`, `>` or `&`.
        if !self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'{' | b'<' | b'>' | b'&'))
        {
            return Ok(None);
        }
        let save = self.i;
        let mut fd = None;
        let mut varfd = None;
        // [digits] or {name} immediately before the operator.
        let mut j = self.i;
        while self.s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j > self.i
            && matches!(self.s.get(j), Some(b'<' | b'>'))
            && self.s.get(j + 1) != Some(&b'(')
        {
            let n: u32 = self
                .slice(self.i, j)
                .parse()
                .map_err(|_| self.err("file descriptor number too large"))?;
            fd = Some(n);
            self.i = j;
        } else if self.peek() == Some(b'{') {
            let mut k = self.i + 1;
            while self.s.get(k).copied().is_some_and(is_name_char) {
                k += 1;
            }
            if k > self.i + 1
                && self.s.get(k) == Some(&b'}')
                && matches!(self.s.get(k + 1), Some(b'<' | b'>'))
                && self.s.get(k + 2) != Some(&b'(')
            {
                let name = self.text(self.i + 1, k);
                if is_name(&name) {
                    varfd = Some(name);
                    self.i = k + 1;
                }
            }
        }
        let op = if self.at(b"&>>") {
            self.i += 3;
            RedirOp::AppendBoth
        } else if self.at(b"&>") && fd.is_none() && varfd.is_none() {
            self.i += 2;
            RedirOp::WriteBoth
        } else if self.at(b"<<<") {
            self.i += 3;
            RedirOp::HereString
        } else if self.at(b"<<-") {
            self.i += 3;
            return self.heredoc(fd, varfd, true).map(Some);
        } else if self.at(b"<<") {
            self.i += 2;
            return self.heredoc(fd, varfd, false).map(Some);
        } else if self.at(b"<>") {
            self.i += 2;
            RedirOp::ReadWrite
        } else if self.at(b"<&") {
            self.i += 2;
            RedirOp::DupIn
        } else if self.at(b">&") {
            self.i += 2;
            RedirOp::DupOut
        } else if self.at(b">>") {
            self.i += 2;
            RedirOp::Append
        } else if self.at(b">|") {
            self.i += 2;
            RedirOp::Clobber
        } else if self.peek() == Some(b'<') && self.peek_at(1) != Some(b'(') {
            self.i += 1;
            RedirOp::Read
        } else if self.peek() == Some(b'>') && self.peek_at(1) != Some(b'(') {
            self.i += 1;
            RedirOp::Write
        } else {
            self.i = save;
            return Ok(None);
        };
        self.skip_space_and_comments();
        match self.peek() {
            None => return Err(self.err("a redirection needs a target")),
            Some(c) if is_meta(c) && !self.at(b"<(") && !self.at(b">(") => {
                return Err(self.err(format!(
                    "syntax error near unexpected `{}`",
                    self.token_text()
                )));
            }
            _ => {}
        }
        let target = self.word()?;
        // `>&word` with a word that is not a number or `-` writes a file.
        let op = match op {
            RedirOp::DupOut if fd.is_none() && varfd.is_none() && !is_fd_word(&target) => {
                RedirOp::WriteBoth
            }
            other => other,
        };
        Ok(Some(Redirect {
            fd,
            varfd,
            op,
            target: RedirTarget::Word(target),
        }))
    }

    fn heredoc(
        &mut self,
        fd: Option<u32>,
        varfd: Option<String>,
        strip_tabs: bool,
    ) -> Result<Redirect, ParseError> {
        self.skip_space_and_comments();
        match self.peek() {
            None => return Err(self.err("a here-document needs a delimiter")),
            Some(c) if is_meta(c) => return Err(self.err("a here-document needs a delimiter")),
            _ => {}
        }
        let start = self.i;
        let word = self.word()?;
        let raw = self.text(start, self.i);
        let quoted = raw.bytes().any(|b| matches!(b, b'\'' | b'"' | b'\\'));
        // The delimiter is the word after quote removal, with no expansion.
        let delimiter = heredoc_delimiter(&word).ok_or_else(|| ParseError {
            message: "here-document delimiter must not contain expansions".into(),
            offset: start,
        })?;
        let id = self.heredocs.len();
        self.heredocs.push(HereDoc {
            quoted,
            strip_tabs,
            delimiter: delimiter.clone(),
            body: String::new(),
            parts: Vec::new(),
        });
        self.pending.push(Pending {
            id,
            delimiter: delimiter.into_bytes(),
            strip_tabs,
            quoted,
        });
        Ok(Redirect {
            fd,
            varfd,
            op: RedirOp::HereDoc,
            target: RedirTarget::HereDoc(super::ast::HereDocRef(id)),
        })
    }

    /// Right after a newline token: read the bodies of pending here-docs.
    fn read_pending_heredocs(&mut self) -> Result<(), ParseError> {
        let pending = std::mem::take(&mut self.pending);
        for p in pending {
            let mut body = Vec::new();
            loop {
                self.tick()?;
                if self.i >= self.s.len() {
                    // bash: "here-document delimited by end-of-file".
                    break;
                }
                let line_end = self.s[self.i..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(self.s.len(), |k| self.i + k);
                let mut line = &self.s[self.i..line_end];
                if p.strip_tabs {
                    while line.first() == Some(&b'\t') {
                        line = &line[1..];
                    }
                }
                let next = (line_end + 1).min(self.s.len());
                if line == p.delimiter.as_slice() {
                    self.i = next;
                    break;
                }
                // Inside `$(…)`, bash also ends the body at `DELIM)`, and
                // the `)` closes the substitution.
                if self.paren_sub_depth > 0
                    && line.starts_with(&p.delimiter)
                    && line.get(p.delimiter.len()) == Some(&b')')
                {
                    self.i = line_end - line.len() + p.delimiter.len();
                    break;
                }
                body.extend_from_slice(line);
                if line_end < self.s.len() {
                    body.push(b'\n');
                }
                self.i = next;
            }
            self.set_heredoc_body(p.id, body, p.quoted)?;
        }
        Ok(())
    }

    fn set_heredoc_body(
        &mut self,
        id: usize,
        body: Vec<u8>,
        quoted: bool,
    ) -> Result<(), ParseError> {
        let text = String::from_utf8_lossy(&body).into_owned();
        let parts = if quoted {
            Vec::new()
        } else {
            self.sub_parse_parts(&body)?
        };
        if let Some(h) = self.heredocs.get_mut(id) {
            h.body = text;
            h.parts = parts;
        }
        Ok(())
    }

    /// Here-docs still pending at end of input take their body from the
    /// rest of the input (bash warns but uses it) — there is none left.
    fn finish_heredocs_at_eof(&mut self) {
        self.pending.clear();
    }

    // ------------------------------------------------------------ words

    /// One word (must not be empty).
    fn word(&mut self) -> Result<Word, ParseError> {
        let w = self.word_maybe_empty()?;
        if w.raw.is_empty() {
            return Err(self.err(format!(
                "syntax error near unexpected `{}`",
                self.token_text()
            )));
        }
        Ok(w)
    }

    fn word_maybe_empty(&mut self) -> Result<Word, ParseError> {
        self.enter()?;
        let start = self.i;
        if let Some(end) = self.plain_word_end() {
            // The common word: what `word_part` reads as one unquoted
            // literal, then the end (with the same two steps counted).
            self.tick()?;
            self.i = end;
            self.tick()?;
            self.leave();
            let text = self.text_at(start, end);
            return Ok(Word {
                parts: Parts::One(Part::Lit {
                    text: text.clone(),
                    quoted: false,
                }),
                raw: text,
            });
        }
        // Parts gather in a reused buffer and are then moved out: a single
        // part (most words) inline, more at their exact size.
        let mut buf = std::mem::take(&mut self.parts_buf);
        let result = loop {
            match self.word_part(&mut buf, WordCtx::Plain) {
                Ok(true) => {}
                Ok(false) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        let parts = match buf.pop() {
            Some(only) if buf.is_empty() => Parts::One(only),
            last => {
                let mut v = Vec::with_capacity(buf.len() + 1);
                v.append(&mut buf);
                v.extend(last);
                Parts::Many(v)
            }
        };
        self.parts_buf = buf;
        result?;
        self.leave();
        Ok(Word {
            parts,
            raw: self.text_at(start, self.i),
        })
    }

    /// Where the word at the cursor ends if it is a run of ordinary
    /// characters (no quotes, escapes or expansions) ended by a
    /// metacharacter (other than `<(` and `>(`, which continue a word) or
    /// by the end of the input.
    fn plain_word_end(&self) -> Option<usize> {
        let rest = &self.s[self.i.min(self.s.len())..];
        let n = rest
            .iter()
            .position(|&b| WORD_BREAK[usize::from(b)])
            .unwrap_or(rest.len());
        if n == 0 {
            return None;
        }
        match rest.get(n) {
            None => Some(self.i + n),
            Some(&c)
                if is_meta(c) && !(matches!(c, b'<' | b'>') && rest.get(n + 1) == Some(&b'(')) =>
            {
                Some(self.i + n)
            }
            Some(_) => None,
        }
    }

    /// Read one part of a word into `parts`. Returns false at the end of
    /// the word (an unquoted metacharacter or end of input).
    fn word_part(&mut self, parts: &mut Vec<Part>, ctx: WordCtx) -> Result<bool, ParseError> {
        self.tick()?;
        let Some(c) = self.peek() else {
            return Ok(false);
        };
        match c {
            b'\\' => {
                match self.peek_at(1) {
                    Some(b'\n') => self.i += 2,
                    Some(n) => {
                        let len = utf8_len(n);
                        let t = self.text_at(self.i + 1, self.i + 1 + len);
                        push_lit(parts, t, true);
                        self.i += 1 + len;
                    }
                    None => {
                        push_lit_str(parts, "\\", true);
                        self.i += 1;
                    }
                }
                Ok(true)
            }
            b'\'' => {
                let end = self.s[self.i + 1..]
                    .iter()
                    .position(|b| *b == b'\'')
                    .ok_or_else(|| self.err("unterminated single quote"))?;
                let t = self.text_at(self.i + 1, self.i + 1 + end);
                push_lit(parts, t, true);
                self.i += end + 2;
                Ok(true)
            }
            b'"' => {
                self.i += 1;
                let inner = self.double_quoted()?;
                parts.push(Part::Double(inner));
                Ok(true)
            }
            b'`' => {
                let p = self.backtick(false)?;
                parts.push(p);
                Ok(true)
            }
            b'$' => {
                self.dollar(parts, false)?;
                Ok(true)
            }
            b'<' | b'>' if self.peek_at(1) == Some(b'(') => {
                let output = c == b'>';
                self.i += 2;
                let body = self.nested_list()?;
                parts.push(Part::ProcessSub {
                    body: Box::new(body),
                    output,
                });
                Ok(true)
            }
            _ if is_meta(c) => Ok(false),
            b'}' if ctx == WordCtx::ParamOperand => Ok(false),
            _ => {
                // A run of ordinary characters.
                let start = self.i;
                while let Some(d) = self.peek() {
                    if is_meta(d) || matches!(d, b'\\' | b'\'' | b'"' | b'`' | b'$') {
                        break;
                    }
                    if d == b'}' && ctx == WordCtx::ParamOperand {
                        break;
                    }
                    if matches!(d, b'[' | b']') && ctx == WordCtx::Subscript {
                        break;
                    }
                    if matches!(d, b'(' | b')' | b'|') && ctx == WordCtx::Regex {
                        break;
                    }
                    self.i += 1;
                }
                if self.i == start {
                    // `]` in a subscript or `}` in an operand: caller's.
                    return Ok(false);
                }
                let t = self.text_at(start, self.i);
                push_lit(parts, t, false);
                Ok(true)
            }
        }
    }

    /// The inside of `"…"` (cursor after the opening quote).
    fn double_quoted(&mut self) -> Result<Vec<Part>, ParseError> {
        self.enter()?;
        self.double_depth += 1;
        let mut parts = Vec::new();
        loop {
            self.tick()?;
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated double quote"));
            };
            match c {
                b'"' => {
                    self.i += 1;
                    break;
                }
                b'\\' => match self.peek_at(1) {
                    Some(b'\n') => self.i += 2,
                    Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                        push_lit_str(&mut parts, &(n as char).to_string(), true);
                        self.i += 2;
                    }
                    _ => {
                        push_lit_str(&mut parts, "\\", true);
                        self.i += 1;
                    }
                },
                b'`' => {
                    let p = self.backtick(true)?;
                    parts.push(p);
                }
                b'$' => self.dollar(&mut parts, true)?,
                _ => {
                    let start = self.i;
                    while let Some(d) = self.peek() {
                        if matches!(d, b'"' | b'\\' | b'`' | b'$') {
                            break;
                        }
                        self.i += 1;
                    }
                    let t = self.text_at(start, self.i);
                    push_lit(&mut parts, t, true);
                }
            }
        }
        self.double_depth -= 1;
        self.leave();
        Ok(exact(parts))
    }

    /// `$…` at the cursor.
    fn dollar(&mut self, parts: &mut Vec<Part>, in_double: bool) -> Result<(), ParseError> {
        let start = self.i;
        match self.peek_at(1) {
            Some(b'(') => {
                if self.peek_at(2) == Some(b'(')
                    && let Some(end) = self.arith_command_end(self.i + 3)
                {
                    let raw = self.text(self.i + 3, end);
                    self.i = end + 2;
                    parts.push(Part::Arith(Box::new(self.arith_from_text(&raw, start)?)));
                    return Ok(());
                }
                self.i += 2;
                let body = self.nested_list()?;
                parts.push(Part::CommandSub {
                    body: Box::new(body),
                    backtick: false,
                });
            }
            Some(b'{') => {
                self.i += 2;
                let p = self.brace_param(start)?;
                parts.push(Part::Param(Box::new(p)));
            }
            Some(b'[') => {
                // Legacy arithmetic `$[…]`.
                let mut depth = 0usize;
                let mut j = self.i + 2;
                loop {
                    match self.s.get(j) {
                        None => return Err(self.err("unterminated `$[`")),
                        Some(b'[') => depth += 1,
                        Some(b']') if depth == 0 => break,
                        Some(b']') => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                let raw = self.text(self.i + 2, j);
                self.i = j + 1;
                parts.push(Part::Arith(Box::new(self.arith_from_text(&raw, start)?)));
            }
            Some(b'\'') if !in_double => {
                self.i += 2;
                let text = self.ansi_c()?;
                push_lit_str(parts, &text, true);
            }
            Some(b'"') if !in_double => {
                self.i += 2;
                let inner = self.double_quoted()?;
                parts.push(Part::Double(inner));
            }
            Some(c) if is_name_start(c) => {
                let mut j = self.i + 1;
                while self.s.get(j).copied().is_some_and(is_name_char) {
                    j += 1;
                }
                let name = self.text(self.i + 1, j);
                self.i = j;
                parts.push(Part::Param(Box::new(simple_param(
                    name,
                    self.text_at(start, j),
                ))));
            }
            Some(c)
                if c.is_ascii_digit()
                    || matches!(c, b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') =>
            {
                self.i += 2;
                let name = (c as char).to_string();
                parts.push(Part::Param(Box::new(simple_param(
                    name,
                    self.text_at(start, self.i),
                ))));
            }
            _ => {
                push_lit_str(parts, "$", in_double);
                self.i += 1;
            }
        }
        Ok(())
    }

    /// `${…}` (cursor after `${`).
    fn brace_param(&mut self, start: usize) -> Result<Param, ParseError> {
        self.enter()?;
        let mut p = Param {
            name: String::new(),
            plain: false,
            indirect: false,
            length: false,
            subscript: None,
            op: None,
            operands: Vec::new(),
            raw: Text::default(),
        };
        // `${#}` `${#x}` `${!}` `${!x}`
        if self.peek() == Some(b'#') && !matches!(self.peek_at(1), Some(b'}')) {
            let next = self.peek_at(1);
            if next.is_some_and(|c| {
                is_name_start(c)
                    || c.is_ascii_digit()
                    || matches!(c, b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!')
            }) {
                p.length = true;
                self.i += 1;
            }
        } else if self.peek() == Some(b'!') && !matches!(self.peek_at(1), Some(b'}')) {
            p.indirect = true;
            self.i += 1;
        }
        match self.peek() {
            Some(c) if is_name_start(c) => {
                let s = self.i;
                while self.peek().is_some_and(is_name_char) {
                    self.i += 1;
                }
                p.name = self.text(s, self.i);
            }
            Some(c) if c.is_ascii_digit() => {
                let s = self.i;
                while self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    self.i += 1;
                }
                p.name = self.text(s, self.i);
            }
            Some(c @ (b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!')) => {
                p.name = (c as char).to_string();
                self.i += 1;
            }
            _ => return Err(self.err("bad substitution")),
        }
        if self.peek() == Some(b'[') {
            self.i += 1;
            let sub = self.word_until_bracket()?;
            self.i += 1;
            p.subscript = Some(Box::new(sub));
        }
        if self.peek() == Some(b'}') {
            self.i += 1;
            p.plain = !p.indirect && !p.length && p.subscript.is_none();
            p.raw = self.text_at(start, self.i);
            self.leave();
            return Ok(p);
        }
        if p.length {
            return Err(self.err("bad substitution"));
        }
        // Operators, longest first.
        const OPS: &[&str] = &[
            ":-", ":=", ":?", ":+", "##", "%%", "//", "/#", "/%", "^^", ",,", "-", "=", "?", "+",
            "#", "%", "/", "^", ",", ":",
        ];
        let op = if self.peek() == Some(b'@') {
            match self.peek_at(1) {
                Some(c) if b"QEPAKaUuLk".contains(&c) => {
                    self.i += 2;
                    format!("@{}", c as char)
                }
                _ => return Err(self.err("bad substitution")),
            }
        } else if p.indirect
            && matches!(self.peek(), Some(b'*' | b'@'))
            && self.peek_at(1) == Some(b'}')
        {
            // `${!prefix*}`, `${!prefix@}`
            self.i += 1;
            "*".to_string()
        } else {
            let Some(op) = OPS.iter().find(|o| self.at(o.as_bytes())) else {
                return Err(self.err("bad substitution"));
            };
            self.i += op.len();
            (*op).to_string()
        };
        // Operand words up to the closing brace.
        if !op.starts_with('@') && op != "*" {
            let operand_start = self.i;
            let mut parts = Vec::new();
            loop {
                self.tick()?;
                match self.peek() {
                    None => return Err(self.err("unterminated `${`")),
                    Some(b'}') => break,
                    Some(
                        c @ (b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'),
                    ) => {
                        if (c == b'<' || c == b'>') && self.peek_at(1) == Some(b'(') {
                            self.word_part(&mut parts, WordCtx::ParamOperand)?;
                        } else {
                            push_lit_str(&mut parts, &(c as char).to_string(), false);
                            self.i += 1;
                        }
                    }
                    Some(b'\'') if self.in_double_context() => {
                        // Inside "…", single quotes in most operands are
                        // literal: what they enclose is expanded.
                        push_lit_str(&mut parts, "'", true);
                        self.i += 1;
                    }
                    Some(b'"') => {
                        self.i += 1;
                        let inner = self.double_quoted()?;
                        parts.push(Part::Double(inner));
                    }
                    _ => {
                        if !self.word_part(&mut parts, WordCtx::ParamOperand)? {
                            return Err(self.err("bad substitution"));
                        }
                    }
                }
            }
            p.operands.push(Word {
                parts: parts.into(),
                raw: self.text_at(operand_start, self.i),
            });
        }
        if self.peek() != Some(b'}') {
            return Err(self.err("bad substitution"));
        }
        self.i += 1;
        p.op = Some(op);
        p.raw = self.text_at(start, self.i);
        self.leave();
        Ok(p)
    }

    /// Whether the `${` being read sits inside double quotes.
    fn in_double_context(&self) -> bool {
        self.double_depth > 0
    }

    /// `$'…'` (cursor after the opening quote): decode escapes.
    fn ansi_c(&mut self) -> Result<String, ParseError> {
        let mut out: Vec<u8> = Vec::new();
        let mut truncated = false;
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated $'…'"));
            };
            self.i += 1;
            match c {
                b'\'' => break,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return Err(self.err("unterminated $'…'"));
                    };
                    self.i += 1;
                    let decoded: Option<u32> = match e {
                        b'a' => Some(7),
                        b'b' => Some(8),
                        b'e' | b'E' => Some(27),
                        b'f' => Some(12),
                        b'n' => Some(10),
                        b'r' => Some(13),
                        b't' => Some(9),
                        b'v' => Some(11),
                        b'\\' => Some(92),
                        b'\'' => Some(39),
                        b'"' => Some(34),
                        b'?' => Some(63),
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.i += 1;
                                    }
                                    _ => break,
                                }
                            }
                            Some(v & 0xff)
                        }
                        b'x' => {
                            let mut v = 0u32;
                            let mut n = 0;
                            while n < 2 {
                                match self.peek().and_then(|d| (d as char).to_digit(16)) {
                                    Some(d) => {
                                        v = v * 16 + d;
                                        self.i += 1;
                                        n += 1;
                                    }
                                    None => break,
                                }
                            }
                            if n == 0 {
                                out.extend_from_slice(b"\\x");
                                None
                            } else {
                                Some(v)
                            }
                        }
                        b'u' | b'U' => {
                            let max = if e == b'u' { 4 } else { 8 };
                            let mut v = 0u32;
                            let mut n = 0;
                            while n < max {
                                match self.peek().and_then(|d| (d as char).to_digit(16)) {
                                    Some(d) => {
                                        v = v.wrapping_mul(16).wrapping_add(d);
                                        self.i += 1;
                                        n += 1;
                                    }
                                    None => break,
                                }
                            }
                            if n == 0 {
                                out.push(b'\\');
                                out.push(e);
                                None
                            } else {
                                match char::from_u32(v) {
                                    Some(ch) => {
                                        let mut buf = [0u8; 4];
                                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                                        None
                                    }
                                    None => {
                                        return Err(self.err("invalid \\u escape in $'…'"));
                                    }
                                }
                            }
                        }
                        b'c' => {
                            let Some(d) = self.peek() else {
                                return Err(self.err("unterminated $'…'"));
                            };
                            self.i += 1;
                            if d == b'\\' && self.peek() == Some(b'\\') {
                                self.i += 1;
                            }
                            Some(u32::from(d.to_ascii_uppercase() ^ 0x40))
                        }
                        other => {
                            out.push(b'\\');
                            out.push(other);
                            None
                        }
                    };
                    if let Some(v) = decoded {
                        if v == 0 {
                            truncated = true;
                        } else if !truncated {
                            out.push(v as u8);
                        }
                    }
                }
                other => {
                    if !truncated {
                        out.push(other);
                    }
                }
            }
        }
        match String::from_utf8(out) {
            Ok(s) => Ok(s),
            Err(_) => Err(self.err("$'…' decodes to bytes that are not UTF-8")),
        }
    }

    /// `` `…` `` (cursor at the opening backtick): unescape as bash does,
    /// then parse the body as a script.
    fn backtick(&mut self, in_double: bool) -> Result<Part, ParseError> {
        let open = self.i;
        self.i += 1;
        let mut body = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(ParseError {
                    message: "unterminated backquote".into(),
                    offset: open,
                });
            };
            self.i += 1;
            match c {
                b'`' => break,
                b'\\' => match self.peek() {
                    Some(n @ (b'$' | b'`' | b'\\')) => {
                        body.push(n);
                        self.i += 1;
                    }
                    Some(b'"') if in_double => {
                        body.push(b'"');
                        self.i += 1;
                    }
                    Some(b'\n') => self.i += 1,
                    _ => body.push(b'\\'),
                },
                other => body.push(other),
            }
        }
        let list = self.sub_parse_list(&body)?;
        Ok(Part::CommandSub {
            body: Box::new(list),
            backtick: true,
        })
    }

    /// A `( … )` body on this buffer (cursor after the `(`): `$(…)`,
    /// `<(…)`, `>(…)`. Outer pending here-docs wait for the outer newline.
    fn nested_list(&mut self) -> Result<List, ParseError> {
        let outer = std::mem::take(&mut self.pending);
        let outer_double = std::mem::take(&mut self.double_depth);
        self.paren_sub_depth += 1;
        let list = self.compound_list(Stop::Paren)?;
        self.paren_sub_depth -= 1;
        self.skip_space_and_comments();
        if self.peek() != Some(b')') {
            return Err(self.err("expected `)` to close a substitution"));
        }
        self.i += 1;
        if !self.pending.is_empty() {
            return Err(self.err("here-document inside a substitution has no body"));
        }
        self.pending = outer;
        self.double_depth = outer_double;
        Ok(list)
    }

    /// Parse another buffer (a backtick body, an arithmetic text) as a
    /// script sharing our here-doc table and bounds.
    fn sub_parse_list(&mut self, text: &[u8]) -> Result<List, ParseError> {
        let mut sub = Parser::new(text, self.opts);
        sub.depth = self.depth;
        sub.heredocs = std::mem::take(&mut self.heredocs);
        let result = sub.compound_list(Stop::Eof).and_then(|list| {
            sub.skip_space_and_comments();
            if sub.i < sub.s.len() {
                Err(sub.err(format!("unexpected `{}`", sub.token_text())))
            } else {
                Ok(list)
            }
        });
        self.heredocs = std::mem::take(&mut sub.heredocs);
        result.map_err(|e| ParseError {
            message: prefixed("in a substitution: ", e.message),
            offset: self.i,
        })
    }

    /// Parse text as the parts of a double-quoted-like string (here-doc
    /// bodies): `$…` and backticks expand; quotes are literal.
    fn sub_parse_parts(&mut self, text: &[u8]) -> Result<Vec<Part>, ParseError> {
        let mut sub = Parser::new(text, self.opts);
        sub.depth = self.depth;
        sub.heredocs = std::mem::take(&mut self.heredocs);
        let mut parts = Vec::new();
        let result = (|| -> Result<(), ParseError> {
            while let Some(c) = sub.peek() {
                sub.tick()?;
                match c {
                    b'\\' => match sub.peek_at(1) {
                        Some(b'\n') => sub.i += 2,
                        Some(n @ (b'$' | b'`' | b'\\')) => {
                            push_lit_str(&mut parts, &(n as char).to_string(), true);
                            sub.i += 2;
                        }
                        _ => {
                            push_lit_str(&mut parts, "\\", true);
                            sub.i += 1;
                        }
                    },
                    b'`' => {
                        let p = sub.backtick(false)?;
                        parts.push(p);
                    }
                    b'$' => sub.dollar(&mut parts, true)?,
                    _ => {
                        let start = sub.i;
                        while let Some(d) = sub.peek() {
                            if matches!(d, b'\\' | b'`' | b'$') {
                                break;
                            }
                            sub.i += 1;
                        }
                        let t = sub.text_at(start, sub.i);
                        push_lit(&mut parts, t, true);
                    }
                }
            }
            Ok(())
        })();
        self.heredocs = std::mem::take(&mut sub.heredocs);
        result.map_err(|e| ParseError {
            message: prefixed("in a here-document: ", e.message),
            offset: self.i,
        })?;
        Ok(parts)
    }

    /// For `((` at `from` (just after the two parens): the index of the
    /// closing `))` if this is an arithmetic command, or None if bash
    /// would read nested subshells instead (`( (…) )`, `((x) )`).
    fn arith_command_end(&self, from: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut j = from;
        while let Some(&c) = self.s.get(j) {
            match c {
                b'\\' => j += 1,
                b'\'' => {
                    j += 1;
                    while self.s.get(j).is_some_and(|b| *b != b'\'') {
                        j += 1;
                    }
                }
                b'"' => {
                    j += 1;
                    while let Some(&b) = self.s.get(j) {
                        if b == b'\\' {
                            j += 1;
                        } else if b == b'"' {
                            break;
                        }
                        j += 1;
                    }
                }
                b'`' => {
                    j += 1;
                    while let Some(&b) = self.s.get(j) {
                        if b == b'\\' {
                            j += 1;
                        } else if b == b'`' {
                            break;
                        }
                        j += 1;
                    }
                }
                b'(' => depth += 1,
                b')' => {
                    if depth == 0 {
                        return (self.s.get(j + 1) == Some(&b')')).then_some(j);
                    }
                    depth -= 1;
                }
                _ => {}
            }
            j += 1;
        }
        None
    }

    /// Parse an arithmetic expression text: find substitutions and the
    /// variable names it evaluates.
    fn arith_from_text(&mut self, raw: &str, at: usize) -> Result<Arith, ParseError> {
        let mut names = Vec::new();
        let mut parts = Vec::new();
        let mut sub = Parser::from_text(raw, self.opts);
        sub.depth = self.depth + 1;
        sub.heredocs = std::mem::take(&mut self.heredocs);
        let result = (|| -> Result<(), ParseError> {
            while let Some(c) = sub.peek() {
                sub.tick()?;
                match c {
                    b'$' => sub.dollar(&mut parts, true)?,
                    b'`' => {
                        let p = sub.backtick(false)?;
                        parts.push(p);
                    }
                    b'"' => {
                        sub.i += 1;
                        let inner = sub.double_quoted()?;
                        parts.push(Part::Double(inner));
                    }
                    b'\'' => return Err(sub.err("single quote in an arithmetic expression")),
                    b'\\' => {
                        if sub.peek_at(1) == Some(b'\n') {
                            sub.i += 2;
                        } else {
                            return Err(sub.err("backslash in an arithmetic expression"));
                        }
                    }
                    c if is_name_start(c) => {
                        let s = sub.i;
                        while sub.peek().is_some_and(is_name_char) {
                            sub.i += 1;
                        }
                        names.push(sub.text(s, sub.i));
                    }
                    c if c.is_ascii_digit() => {
                        // A number, in any base (`0x1f`, `2#101`, `64#@_`).
                        while sub
                            .peek()
                            .is_some_and(|d| is_name_char(d) || d == b'#' || d == b'@')
                        {
                            sub.i += 1;
                        }
                    }
                    _ => sub.i += 1,
                }
            }
            Ok(())
        })();
        self.heredocs = std::mem::take(&mut sub.heredocs);
        result.map_err(|e| ParseError {
            message: prefixed("in an arithmetic expression: ", e.message),
            offset: at,
        })?;
        Ok(Arith {
            raw: raw.to_string(),
            parts,
            names,
        })
    }
}

/// Where a word part is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WordCtx {
    Plain,
    ParamOperand,
    Subscript,
    Regex,
}

/// bash's `[[ ]]` grammar: expr := term (('&&'|'||') term)*;
/// term := '!' term | '(' expr ')' | UNARY word | word [BINARY word].
fn cond_grammar_ok(tokens: &[CondToken]) -> bool {
    const UNARY: &[&str] = &[
        "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w",
        "-x", "-G", "-L", "-N", "-O", "-S", "-z", "-n", "-o", "-v", "-R",
    ];
    const BINARY: &[&str] = &[
        "==", "=", "!=", "=~", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef",
    ];
    fn word(t: Option<&CondToken>) -> Option<&str> {
        match t {
            Some(CondToken::Word(w)) => Some(w.raw.as_str()),
            _ => None,
        }
    }
    fn op(t: Option<&CondToken>) -> Option<&str> {
        match t {
            Some(CondToken::Op(o)) => Some(o.as_str()),
            _ => None,
        }
    }
    fn expr(t: &[CondToken], i: &mut usize, depth: usize) -> bool {
        if depth > 200 || !term(t, i, depth) {
            return false;
        }
        while matches!(op(t.get(*i)), Some("&&" | "||")) {
            *i += 1;
            if !term(t, i, depth) {
                return false;
            }
        }
        true
    }
    fn term(t: &[CondToken], i: &mut usize, depth: usize) -> bool {
        if word(t.get(*i)) == Some("!") {
            *i += 1;
            return term(t, i, depth + 1);
        }
        if op(t.get(*i)) == Some("(") {
            *i += 1;
            if !expr(t, i, depth + 1) || op(t.get(*i)) != Some(")") {
                return false;
            }
            *i += 1;
            return true;
        }
        let Some(first) = word(t.get(*i)) else {
            return false;
        };
        // A unary operator needs an operand (`[[ -f ]]` is an error),
        // unless a binary operator follows it (`[[ -f = x ]]`).
        let next_is_binary = word(t.get(*i + 1)).is_some_and(|n| BINARY.contains(&n))
            || matches!(op(t.get(*i + 1)), Some("<" | ">"));
        if UNARY.contains(&first) && !next_is_binary {
            if word(t.get(*i + 1)).is_none() {
                return false;
            }
            *i += 2;
            return true;
        }
        *i += 1;
        let bin = word(t.get(*i)).filter(|n| BINARY.contains(n)).is_some()
            || matches!(op(t.get(*i)), Some("<" | ">"));
        if bin {
            *i += 1;
            if word(t.get(*i)).is_none() {
                return false;
            }
            *i += 1;
        }
        true
    }
    let mut i = 0;
    expr(tokens, &mut i, 0) && i == tokens.len()
}

/// Split the text of `for ((a; b; c))` at its top-level semicolons.
fn split_arith_for(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            cur.push(c);
            if c == '\\' && q != '\'' {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => {
                quote = Some(c);
                cur.push(c);
            }
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '(' | '{' | '[' => {
                depth += 1;
                cur.push(c);
            }
            ')' | '}' | ']' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            ';' if depth == 0 => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// Prefix an error message once (nested errors would repeat it).
fn prefixed(prefix: &str, message: String) -> String {
    if message.starts_with(prefix) {
        message
    } else {
        format!("{prefix}{message}")
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xf7 => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// Append literal text, merging with a previous literal of the same kind.
/// The vector without spare capacity (syntax trees of big scripts are
/// mostly short vectors; growth leaves room for four elements).
fn exact<T>(mut v: Vec<T>) -> Vec<T> {
    if v.capacity() > v.len() {
        v.shrink_to_fit();
    }
    v
}

/// Add literal text to a word's parts, joined to a literal part of the
/// same quoting before it.
/// All of `buf`'s elements, moved into a vector of their exact size
/// (`buf` keeps its capacity).
fn move_exact<T>(buf: &mut Vec<T>) -> Vec<T> {
    let mut v = Vec::with_capacity(buf.len());
    v.append(buf);
    v
}

fn push_lit(parts: &mut Vec<Part>, text: Text, quoted: bool) {
    if let Some(Part::Lit { text: t, quoted: q }) = parts.last_mut()
        && *q == quoted
    {
        *t = t.join(&text);
        return;
    }
    parts.push(Part::Lit { text, quoted });
}

/// `push_lit` for text that is not a range of the source.
fn push_lit_str(parts: &mut Vec<Part>, text: &str, quoted: bool) {
    push_lit(parts, Text::new(text), quoted);
}

fn simple_param(name: String, raw: Text) -> Param {
    Param {
        name,
        plain: true,
        indirect: false,
        length: false,
        subscript: None,
        op: None,
        operands: Vec::new(),
        raw,
    }
}

fn stderr_to_stdout() -> Redirect {
    Redirect {
        fd: Some(2),
        varfd: None,
        op: RedirOp::DupOut,
        target: RedirTarget::Word(Word {
            parts: Parts::One(Part::Lit {
                text: "1".into(),
                quoted: false,
            }),
            raw: "1".into(),
        }),
    }
}

/// A word made only of literal parts (quotes allowed), as text.
pub fn literal_of(w: &Word) -> Option<String> {
    let mut out = String::new();
    for p in &w.parts {
        match p {
            Part::Lit { text, .. } => out.push_str(text),
            Part::Double(inner) => {
                for q in inner {
                    match q {
                        Part::Lit { text, .. } => out.push_str(text),
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The here-document delimiter: quote removal only; `$` and backticks are
/// kept literally by bash, but we refuse them (rare, and confusing).
fn heredoc_delimiter(w: &Word) -> Option<String> {
    let mut out = String::new();
    for p in &w.parts {
        match p {
            Part::Lit { text, .. } => out.push_str(text),
            Part::Double(inner) => {
                for q in inner {
                    match q {
                        Part::Lit { text, .. } => out.push_str(text),
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

fn is_fd_word(w: &Word) -> bool {
    match literal_of(w) {
        Some(t) => {
            t == "-" || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())) || {
                let d = t.strip_suffix('-').unwrap_or("");
                !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
            }
        }
        None => true,
    }
}
