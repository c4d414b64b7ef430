//! The syntax tree of a bash script, as `parse.rs` builds it: lists,
//! pipelines, commands, words split into quoted/unquoted parts, with every
//! command substitution, process substitution, here-doc body and
//! arithmetic expression already parsed. Plain data, no behaviour.

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
    pub raw: String,
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
        parts: [Arith; 3],
        body: List,
    },
    Case {
        word: Word,
        arms: Vec<CaseArm>,
    },
    Arith(Arith),
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
    pub parts: Vec<Part>,
    pub raw: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text; `quoted` when it came from quotes or a backslash (so
    /// it is not subject to globbing, brace expansion or tilde expansion).
    Lit { text: String, quoted: bool },
    /// `"…"` (also `$"…"`).
    Double(Vec<Part>),
    /// `$x`, `${…}`.
    Param(Param),
    /// `$(…)` or `` `…` ``.
    CommandSub { body: Box<List>, backtick: bool },
    /// `$((…))`, `$[…]`.
    Arith(Arith),
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
    pub raw: String,
}
