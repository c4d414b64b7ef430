//! The syntax tree of a bash script, as `parse.rs` builds it: lists,
//! pipelines, commands, words split into quoted/unquoted parts, with every
//! command substitution, process substitution, here-doc body and
//! arithmetic expression already parsed. Plain data, no behaviour.
//!
//! Text from the script is kept as `Text`: a range of the shared source
//! (no copy), and the parts of a word as `Parts` (one part inline): a
//! large script is mostly short words, and one allocation per word and
//! per part would cost more than parsing them.

use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

/// A piece of text: a range of a shared buffer (usually the script).
#[derive(Clone)]
pub struct Text {
    src: Rc<str>,
    start: u32,
    /// `TO_END`: to the end of `src` (a buffer of 4 GiB or more).
    end: u32,
}

const TO_END: u32 = u32::MAX;

thread_local! {
    static EMPTY: Rc<str> = Rc::from("");
}

impl Text {
    /// `src[start..end]` without copying, if those are character
    /// boundaries and fit the offsets (None otherwise).
    pub fn slice(src: &Rc<str>, start: usize, end: usize) -> Option<Text> {
        src.get(start..end)?;
        Some(Text {
            src: Rc::clone(src),
            start: u32::try_from(start).ok()?,
            end: u32::try_from(end).ok().filter(|e| *e != TO_END)?,
        })
    }

    /// A copy of `s`.
    pub fn new(s: &str) -> Text {
        if s.is_empty() {
            return Text::default();
        }
        Text {
            src: Rc::from(s),
            start: 0,
            end: u32::try_from(s.len()).unwrap_or(TO_END),
        }
    }

    pub fn as_str(&self) -> &str {
        let start = self.start as usize;
        let text = if self.end == TO_END {
            self.src.get(start..)
        } else {
            self.src.get(start..self.end as usize)
        };
        text.unwrap_or_default()
    }

    /// This text followed by `more`: shared when `more` follows it in the
    /// same buffer, else a copy.
    pub fn join(&self, more: &Text) -> Text {
        if Rc::ptr_eq(&self.src, &more.src) && self.end == more.start && self.end != TO_END {
            return Text {
                src: Rc::clone(&self.src),
                start: self.start,
                end: more.end,
            };
        }
        let mut s = String::with_capacity(self.len() + more.len());
        s.push_str(self);
        s.push_str(more);
        Text::new(&s)
    }
}

impl Default for Text {
    fn default() -> Text {
        Text {
            src: EMPTY.with(Rc::clone),
            start: 0,
            end: 0,
        }
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s)
    }
}

/// The parts of a word, in order (one part kept inline).
#[derive(Clone)]
pub enum Parts {
    One(Part),
    Many(Vec<Part>),
}

impl Default for Parts {
    fn default() -> Parts {
        Parts::Many(Vec::new())
    }
}

impl From<Vec<Part>> for Parts {
    fn from(mut v: Vec<Part>) -> Parts {
        if v.len() == 1
            && let Some(p) = v.pop()
        {
            return Parts::One(p);
        }
        v.shrink_to_fit();
        Parts::Many(v)
    }
}

impl Parts {
    pub fn as_slice(&self) -> &[Part] {
        self
    }
}

impl Deref for Parts {
    type Target = [Part];

    fn deref(&self) -> &[Part] {
        match self {
            Parts::One(p) => std::slice::from_ref(p),
            Parts::Many(v) => v,
        }
    }
}

impl<'a> IntoIterator for &'a Parts {
    type Item = &'a Part;
    type IntoIter = std::slice::Iter<'a, Part>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Debug for Parts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Parts {
    fn eq(&self, other: &Parts) -> bool {
        **self == **other
    }
}

impl Eq for Parts {}

/// A list of and-or lists, as separated by `;`, `&` or newlines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct List {
    pub items: Vec<ListItem>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListItem {
    pub and_or: AndOr,
    /// Ended by `&`.
    pub background: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOrOp {
    And,
    Or,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(AndOrOp, Pipeline)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    pub bang: bool,
    pub timed: bool,
    pub commands: Vec<Command>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Simple(SimpleCommand),
    Compound(Compound, Vec<Redirect>),
    /// `name () body` or `function name body`.
    Function {
        name: String,
        body: Box<Command>,
    },
    /// `coproc [NAME] command`.
    Coproc {
        name: Option<String>,
        body: Box<Command>,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    pub assignments: Vec<Assignment>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Source text of the command, for messages.
    pub raw: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub name: String,
    pub subscript: Option<Word>,
    pub append: bool,
    pub value: AssignValue,
    pub raw: Text,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssignValue {
    Scalar(Word),
    /// `name=( … )`: each element a word (`[k]=v` elements keep the
    /// subscript inside the word text).
    Array(Vec<Word>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compound {
    Brace(List),
    Subshell(List),
    If {
        branches: Vec<(List, List)>,
        otherwise: Option<List>,
    },
    While {
        until: bool,
        cond: List,
        body: List,
    },
    For {
        var: String,
        /// `None`: `for x; do` iterates over "$@".
        words: Option<Vec<Word>>,
        body: List,
    },
    Select {
        var: String,
        words: Option<Vec<Word>>,
        body: List,
    },
    ArithFor {
        parts: Box<[Arith; 3]>,
        body: List,
    },
    Case {
        word: Word,
        arms: Vec<CaseArm>,
    },
    Arith(Box<Arith>),
    Cond(Vec<CondToken>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseArm {
    pub patterns: Vec<Word>,
    pub body: List,
}

/// One token of `[[ … ]]`: a word, or an operator kept as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CondToken {
    Word(Word),
    Op(String),
}

/// An arithmetic expression: its text, the substitutions inside it, and
/// the variable names it reads (each is evaluated as arithmetic again).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Arith {
    pub raw: String,
    pub parts: Vec<Part>,
    pub names: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `<`
    Read,
    /// `>`
    Write,
    /// `>|`
    Clobber,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `&>` and `>&file`
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `<&` with a word
    DupIn,
    /// `>&` with a word (an fd number or `-`)
    DupOut,
    /// `<<` / `<<-`
    HereDoc,
    /// `<<<`
    HereString,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub fd: Option<u32>,
    /// `{name}>file`
    pub varfd: Option<String>,
    pub op: RedirOp,
    pub target: RedirTarget,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedirTarget {
    Word(Word),
    /// An index into `Script::heredocs`.
    HereDoc(HereDocRef),
}

/// Which here-document (bodies are read after the command line ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HereDocRef(pub usize);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HereDoc {
    /// Quoted delimiter: the body is literal.
    pub quoted: bool,
    pub strip_tabs: bool,
    pub delimiter: String,
    /// The body text (after tab stripping).
    pub body: String,
    /// For an unquoted delimiter: the body parsed like a double-quoted
    /// string (expansions and substitutions).
    pub parts: Vec<Part>,
}

/// A shell word: parts in order, and the source text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    pub parts: Parts,
    pub raw: Text,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text; `quoted` when it came from quotes or a backslash (so
    /// it is not subject to globbing, brace expansion or tilde expansion).
    Lit { text: Text, quoted: bool },
    /// `"…"` (also `$"…"`).
    Double(Vec<Part>),
    /// `$x`, `${…}` (boxed: parameters are big, literal parts common).
    Param(Box<Param>),
    /// `$(…)` or `` `…` ``.
    CommandSub { body: Box<List>, backtick: bool },
    /// `$((…))`, `$[…]`.
    Arith(Box<Arith>),
    /// `<(…)` or `>(…)`.
    ProcessSub { body: Box<List>, output: bool },
}

/// A parameter expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The parameter: a name, digits, or one of `@*#?-$!0`.
    pub name: String,
    /// Plain `$name` / `${name}` with no operator, index, length or
    /// indirection.
    pub plain: bool,
    /// `${!name}`, `${!prefix*}`: indirection.
    pub indirect: bool,
    /// `${#name}`.
    pub length: bool,
    /// `${name[sub]}`.
    pub subscript: Option<Box<Word>>,
    /// The operator text (`:-`, `#`, `/`, `@P`, …), if any.
    pub op: Option<String>,
    /// Words inside the operator (defaults, patterns, replacements).
    pub operands: Vec<Word>,
    pub raw: Text,
}
