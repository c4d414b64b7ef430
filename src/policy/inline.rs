//! Inline interpreter code (`python -c`, `node -e`) proven harmless by a
//! table: every identifier the code uses is on the language's allow-list
//! and every module it imports is a pure one. Anything else (files,
//! processes, network, reflection, dunder access) is not proven, and the
//! classifier judges it. Also finds deletion calls (`shutil.rmtree`,
//! `fs.rmSync`) and their targets, for the deletion rules.

/// Python modules with no file, process or network access.
const PYTHON_MODULES: &[&str] = &[
    "sys",
    "json",
    "math",
    "cmath",
    "re",
    "datetime",
    "time",
    "string",
    "textwrap",
    "itertools",
    "collections",
    "functools",
    "operator",
    "pprint",
    "decimal",
    "fractions",
    "statistics",
    "random",
    "uuid",
    "hashlib",
    "hmac",
    "base64",
    "binascii",
    "struct",
    "locale",
    "unicodedata",
    "keyword",
    "platform",
    "sysconfig",
    "calendar",
    "zoneinfo",
    "enum",
    "dataclasses",
    "typing",
    "abc",
    "copy",
    "heapq",
    "bisect",
    "array",
    "numbers",
    "secrets",
    "difflib",
    "html",
    "zlib",
    "colorsys",
    "ipaddress",
    "shlex",
    "fnmatch",
    "getpass_",
    "this",
    "antigravity_",
];

/// Python names that are harmless on their own.
const PYTHON_NAMES: &[&str] = &[
    "import",
    "from",
    "as",
    "print",
    "len",
    "range",
    "str",
    "int",
    "float",
    "bool",
    "list",
    "dict",
    "set",
    "tuple",
    "sorted",
    "reversed",
    "enumerate",
    "zip",
    "map",
    "filter",
    "sum",
    "min",
    "max",
    "abs",
    "round",
    "repr",
    "format",
    "isinstance",
    "type",
    "hex",
    "oct",
    "bin",
    "ord",
    "chr",
    "any",
    "all",
    "for",
    "in",
    "if",
    "else",
    "elif",
    "not",
    "and",
    "or",
    "is",
    "None",
    "True",
    "False",
    "lambda",
    "return",
    "def",
    "while",
    "break",
    "continue",
    "pass",
    "try",
    "except",
    "finally",
    "raise",
    "with",
    "Exception",
    "ValueError",
    "KeyError",
    "version",
    "version_info",
    "platform",
    "executable",
    "argv",
    "path",
    "maxsize",
    "byteorder",
    "loads",
    "dumps",
    "stdout",
    "stderr",
    "write",
    "join",
    "split",
    "strip",
    "upper",
    "lower",
    "replace",
    "encode",
    "decode",
    "keys",
    "values",
    "items",
    "get",
    "append",
    "extend",
    "pi",
    "sqrt",
    "now",
    "today",
    "utcnow",
    "isoformat",
    "strftime",
    "hexdigest",
    "sha256",
    "md5",
    "sha1",
    "b64encode",
    "b64decode",
    "uuid4",
    "randint",
    "choice",
    "system_",
    "python_version",
    "machine",
    "node_",
    "release",
    "architecture",
    "implementation",
    "name",
    "prefix",
    "base_prefix",
    "getdefaultencoding",
    "getfilesystemencoding",
    "maxunicode",
    "float_info",
    "int_info",
    "hash_info",
    "dumps",
    "indent",
    "sort_keys",
    "x",
    "y",
    "i",
    "s",
    "n",
    "k",
    "v",
    "e",
    "a",
    "b",
    "c",
    "d",
    "self",
    "startswith",
    "endswith",
    "count",
    "find",
    "index",
    "get_paths",
    "get_platform",
    "get_python_version",
    "python_implementation",
    "uname",
    "ascii_letters",
    "digits",
    "punctuation",
    "ascii_lowercase",
    "ascii_uppercase",
    "token_hex",
    "token_urlsafe",
    "Counter",
    "defaultdict",
    "OrderedDict",
    "namedtuple",
    "sep",
    "end",
    "flush",
    "file_",
    "timezone",
    "utc",
    "timedelta",
    "date",
    "time",
    "datetime",
    "fromtimestamp",
    "timestamp",
    "total_seconds",
    "days",
    "seconds",
    "strptime",
    "calcsize",
    "pack",
    "unpack",
    "ljust",
    "rjust",
    "center",
    "zfill",
    "title",
    "capitalize",
    "isdigit",
    "isalpha",
    "splitlines",
    "partition",
    "rpartition",
    "casefold",
    "getlocale",
    "compile_",
    "match",
    "search",
    "sub",
    "findall",
    "fullmatch",
    "group",
    "groups",
];

/// JavaScript names that are harmless on their own.
const JS_NAMES: &[&str] = &[
    "console",
    "log",
    "error",
    "info",
    "warn",
    "process",
    "version",
    "versions",
    "platform",
    "arch",
    "argv",
    "JSON",
    "stringify",
    "parse",
    "Math",
    "Date",
    "now",
    "toISOString",
    "String",
    "Number",
    "Boolean",
    "Array",
    "Object",
    "keys",
    "values",
    "entries",
    "length",
    "map",
    "filter",
    "reduce",
    "join",
    "split",
    "let",
    "const",
    "var",
    "for",
    "of",
    "in",
    "if",
    "else",
    "return",
    "true",
    "false",
    "null",
    "undefined",
    "typeof",
    "new",
    "function",
    "x",
    "y",
    "i",
    "s",
    "n",
    "k",
    "v",
    "a",
    "b",
    "c",
    "d",
    "toString",
    "toFixed",
    "parseInt",
    "parseFloat",
    "floor",
    "ceil",
    "round",
    "random",
    "max",
    "min",
    "abs",
    "pow",
    "sqrt",
    "Intl",
    "DateTimeFormat",
    "resolvedOptions",
    "timeZone",
    "BigInt",
    "Symbol",
    "Set",
    "Map",
    "has",
    "add",
    "get",
    "size",
    "push",
    "pop",
    "slice",
    "includes",
    "indexOf",
    "replace",
    "trim",
    "toUpperCase",
    "toLowerCase",
    "startsWith",
    "endsWith",
    "padStart",
    "padEnd",
    "memoryUsage",
    "uptime",
    "hrtime",
    "cwd_",
    "pid",
    "execPath",
    "release",
    "features",
    "getTime",
    "getFullYear",
    "sort",
    "reverse",
    "forEach",
    "some",
    "every",
    "find",
    "assign",
    "freeze",
    "isArray",
    "from",
    "fromEntries",
    "toLocaleString",
    "Buffer_",
    "encodeURIComponent",
    "decodeURIComponent",
    "btoa",
    "atob",
    "structuredClone",
    "Promise",
    "resolve",
    "then",
    "await",
    "async",
    "while",
    "do",
    "break",
    "continue",
    "switch",
    "case",
    "default",
    "try",
    "catch",
    "finally",
    "throw",
    "Error",
    "instanceof",
    "this",
    "globalThis_",
    "config",
];

/// A deletion call found in inline code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineDeletion {
    /// The single string-literal target, when that is what it is.
    pub target: Option<String>,
}

/// Calls that delete files, per language.
const PY_DELETERS: &[&str] = &[
    "rmtree",
    "remove",
    "unlink",
    "rmdir",
    "removedirs",
    "truncate",
];
const JS_DELETERS: &[&str] = &[
    "rmSync",
    "rmdirSync",
    "unlinkSync",
    "rm",
    "rmdir",
    "unlink",
    "truncateSync",
    "emptyDirSync",
    "removeSync",
];
const RUBY_PERL_DELETERS: &[&str] = &[
    "rm_rf",
    "rm_r",
    "rm",
    "remove_dir",
    "remove_entry",
    "unlink",
    "rmtree",
    "remove_tree",
    "delete",
];

/// Names in inline code that take it past what the sandbox answers, with
/// what they do (any language: the names do not collide in practice).
/// Code that uses one is reviewed even in the sandbox: a spawned program
/// is judged by no one, the environment and the home hold secrets, a
/// deletion or a rename inside the project is the project's data, and a
/// cloud or SSH client acts on another machine.
const UNCONTAINED_NAMES: &[(&str, &str)] = &[
    ("verify=False", "turns off TLS certificate checks"),
    ("CERT_NONE", "turns off TLS certificate checks"),
    (
        "_create_unverified_context",
        "turns off TLS certificate checks",
    ),
    ("rejectUnauthorized", "turns off TLS certificate checks"),
    (
        "NODE_TLS_REJECT_UNAUTHORIZED",
        "turns off TLS certificate checks",
    ),
    ("VERIFY_NONE", "turns off TLS certificate checks"),
    ("paramiko", "uses SSH"),
    ("boto3", "uses the AWS SDK"),
    ("system", "runs programs"),
    ("subprocess", "runs programs"),
    ("popen", "runs programs"),
    ("Popen", "runs programs"),
    ("os.exec", "runs programs"),
    ("spawn", "runs programs"),
    ("child_process", "runs programs"),
    ("execSync", "runs programs"),
    ("execFile", "runs programs"),
    ("exec(", "runs programs or code it builds"),
    ("exec ", "runs programs"),
    ("fork", "starts processes"),
    ("Open3", "runs programs"),
    ("%x", "runs programs"),
    ("qx", "runs programs"),
    ("Deno.Command", "runs programs"),
    ("Bun.spawn", "runs programs"),
    ("eval", "builds code at run time"),
    ("__import__", "imports a module by a computed name"),
    ("importlib", "imports a module by a computed name"),
    ("compile(", "builds code at run time"),
    ("Function(", "builds code at run time"),
    ("b64decode", "decodes hidden text"),
    ("atob", "decodes hidden text"),
    ("fromhex", "decodes hidden text"),
    ("unpack", "decodes hidden text"),
    ("environ", "reads the environment"),
    ("getenv", "reads the environment"),
    ("process.env", "reads the environment"),
    ("ENV", "reads the environment"),
    ("Deno.env", "reads the environment"),
    ("homedir", "reads the home directory"),
    ("expanduser", "reads the home directory"),
    ("Path.home", "reads the home directory"),
    ("~/", "reads the home directory"),
    ("/home/", "reads other places in /home"),
    ("/root", "reads root's home"),
    ("/etc/", "reads the system configuration"),
    ("/proc/", "reads process information"),
    ("rename", "renames files"),
    ("shutil.move", "moves files"),
    ("os.replace", "replaces files"),
    ("copyfile", "overwrites files"),
    ("chmod", "changes permissions"),
    ("chown", "changes owners"),
    ("symlink", "makes links"),
    ("setrlimit", "changes limits"),
    ("ptrace", "traces processes"),
    ("kill", "signals processes"),
];

/// Names in inline code whose only risk is the network, with what they
/// do: contained where the network wall is up for the command (it
/// reaches only the allow-list's hosts and loopback), the classifier's
/// elsewhere.
const NETWORK_NAMES: &[(&str, &str)] = &[
    ("urllib", "uses Python's URL client"),
    ("requests", "uses the requests HTTP client"),
    ("httpx", "uses the httpx HTTP client"),
    ("aiohttp", "uses the aiohttp HTTP client"),
    ("http.client", "uses Python's HTTP client"),
    ("socket", "opens sockets"),
    ("smtplib", "sends mail"),
    ("ftplib", "uses FTP"),
    ("fetch(", "uses the fetch API"),
    ("XMLHttpRequest", "uses browser HTTP"),
    ("require('http", "uses Node's HTTP modules"),
    ("require(\"http", "uses Node's HTTP modules"),
    ("require('net'", "opens sockets"),
    ("require(\"net\"", "opens sockets"),
    ("from 'http", "uses Node's HTTP modules"),
    ("node:http", "uses Node's HTTP modules"),
    ("node:net", "opens sockets"),
    ("axios", "uses the axios HTTP client"),
    ("WebSocket", "opens web sockets"),
    ("Net::HTTP", "uses Ruby's HTTP client"),
    ("open-uri", "uses Ruby's URL opener"),
    ("LWP::", "uses Perl's web client"),
    ("IO::Socket", "opens sockets"),
    ("HTTP::Tiny", "uses Perl's HTTP client"),
    ("curl_init", "uses PHP's curl"),
    ("file_get_contents('http", "reads a URL"),
    ("fsockopen", "opens sockets"),
];

/// What inline code does on the network, if it names a network API.
pub fn networked(code: &str) -> Option<&'static str> {
    NETWORK_NAMES
        .iter()
        .find(|(n, _)| code.contains(n))
        .map(|(_, what)| *what)
}

/// Why inline code needs review even in the sandbox, if it does: a name
/// from `UNCONTAINED_NAMES`, or backticks outside JavaScript (deletion
/// calls are judged by their targets, `deletions`).
pub fn uncontained(lang: &str, code: &str) -> Option<String> {
    if let Some((_, what)) = UNCONTAINED_NAMES.iter().find(|(n, _)| code.contains(n)) {
        return Some((*what).to_string());
    }
    // Backticks run programs in Perl, Ruby and PHP (in JavaScript they
    // quote a template).
    (code.contains('`') && language(lang) != Some("js")).then(|| "runs programs".to_string())
}

/// The language of an InlineCode finding's detail (`python3: code`).
pub fn split_detail(detail: &str) -> (&str, &str) {
    match detail.split_once(": ") {
        Some((lang, code)) => (lang.split_whitespace().next().unwrap_or(lang), code),
        None => ("", detail),
    }
}

fn language(lang: &str) -> Option<&'static str> {
    let base = lang.rsplit('/').next().unwrap_or(lang);
    if base.starts_with("python") || base.starts_with("pypy") {
        Some("python")
    } else if base == "node" || base == "nodejs" || base == "bun" || base == "deno" {
        Some("js")
    } else if base == "ruby" || base == "perl" || base == "php" {
        Some("other")
    } else {
        None
    }
}

/// Is this inline code proven harmless?
pub fn harmless(lang: &str, code: &str) -> bool {
    let Some(kind) = language(lang) else {
        return false;
    };
    if code.len() > 2000 || code.contains("__") {
        return false;
    }
    let names: &[&str] = match kind {
        "python" => PYTHON_NAMES,
        "js" => JS_NAMES,
        _ => return false,
    };
    let mut imported = Vec::new();
    let tokens = identifiers(code, kind);
    for (n, t) in tokens.iter().enumerate() {
        if kind == "python" && (*t == "import" || *t == "from") {
            // The module names after import/from (dotted, comma lists).
            for m in tokens[n + 1..]
                .iter()
                .take_while(|m| **m != "import" || *t == "from")
            {
                if *t == "from" {
                    imported.push(*m);
                    break;
                }
                imported.push(*m);
            }
        }
    }
    for m in &imported {
        if !PYTHON_MODULES.contains(m) && !names.contains(m) {
            return false;
        }
    }
    tokens
        .iter()
        .all(|t| names.contains(t) || PYTHON_MODULES.contains(t) && kind == "python")
}

/// Identifier tokens outside string literals and comments. Anything the
/// scanner cannot follow (template literals, triple quotes, computed
/// member access with a string, non-ASCII) yields a token that is on no
/// allow-list, so the code is not proven harmless.
fn identifiers<'a>(code: &'a str, kind: &str) -> Vec<&'a str> {
    const REFUSE: &str = "\u{fffd}";
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    if code.contains("\"\"\"") || code.contains("'''") || (kind == "js" && code.contains('`')) {
        out.push(REFUSE);
        return out;
    }
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        // Comments.
        if (kind == "python" && c == b'#')
            || (kind == "js" && c == b'/' && bytes.get(i + 1) == Some(&b'/'))
        {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if kind == "js" && c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            match code[i + 2..].find("*/") {
                Some(end) => i = i + 2 + end + 2,
                None => i = bytes.len(),
            }
            continue;
        }
        // `x["name"]`: a member chosen by a string.
        if kind == "js" && c == b'[' {
            let rest = code[i + 1..].trim_start();
            if rest.starts_with('"') || rest.starts_with('\'') {
                out.push(REFUSE);
                return out;
            }
        }
        if c == b'\'' || c == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != c {
                if bytes[i] == b'\\' {
                    i += 1;
                }
                if bytes.get(i) == Some(&b'\n') {
                    // An unterminated string: refuse.
                    out.push(REFUSE);
                    return out;
                }
                i += 1;
            }
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'$')
            {
                i += 1;
            }
            out.push(&code[start..i]);
            continue;
        }
        if !c.is_ascii() {
            out.push(REFUSE);
            return out;
        }
        i += 1;
    }
    out
}

/// Deletion calls in inline code, each with its target when it is one
/// string literal.
pub fn deletions(lang: &str, code: &str) -> Vec<InlineDeletion> {
    let deleters: &[&str] = match language(lang) {
        Some("python") => PY_DELETERS,
        Some("js") => JS_DELETERS,
        Some(_) => RUBY_PERL_DELETERS,
        None => return Vec::new(),
    };
    let mut out = Vec::new();
    for d in deleters {
        let mut from = 0;
        while let Some(at) = code[from..].find(d) {
            let start = from + at;
            let end = start + d.len();
            from = end;
            let before_ok = start == 0 || !is_ident(code.as_bytes()[start - 1]);
            let rest = code[end..].trim_start();
            if !before_ok
                || !(rest.starts_with('(') || rest.starts_with(' ') && lang.contains("perl"))
            {
                continue;
            }
            if end < code.len() && is_ident(code.as_bytes()[end]) {
                continue;
            }
            out.push(InlineDeletion {
                target: first_string_argument(rest),
            });
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// `('build', …)` → `build` when the first argument is a plain string
/// literal.
fn first_string_argument(rest: &str) -> Option<String> {
    let inner = rest.strip_prefix('(')?.trim_start();
    let quote = inner.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &inner[1..];
    let close = body.find(quote)?;
    let text = &body[..close];
    if text.contains('\\') || text.contains('{') || text.contains('$') {
        return None;
    }
    let after = body[close + 1..].trim_start();
    (after.starts_with(')') || after.starts_with(',')).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proves_simple_one_liners_harmless() {
        assert!(harmless("python3", "import sys; print(sys.version)"));
        assert!(harmless(
            "python3",
            "import json,sys; print(json.dumps({'a': 1}))"
        ));
        assert!(harmless("python3", "print('rm -rf /')"));
        assert!(harmless("node", "console.log(process.version)"));
        assert!(!harmless("python3", "import os; os.system('id')"));
        assert!(!harmless(
            "python3",
            "import shutil; shutil.rmtree('build')"
        ));
        assert!(!harmless("python3", "open('/etc/passwd').read()"));
        assert!(!harmless("python3", "print(().__class__.__bases__)"));
        assert!(!harmless("python3", "from subprocess import run"));
        assert!(!harmless("node", "require('fs').rmSync('dist')"));
        assert!(!harmless(
            "node",
            "console.log(`${require('child_process')}`)"
        ));
        assert!(!harmless("perl", "print 1"));
        // Comments and strings cannot hide code.
        assert!(!harmless(
            "python3",
            "print(1) # '\nimport os; os.system('id') # '"
        ));
        assert!(!harmless(
            "node",
            "console.log(1) // '\nrequire('child_process') // '"
        ));
        assert!(!harmless(
            "node",
            "process['getBuiltinModule']('child_process')"
        ));
        assert!(harmless("python3", "print(1)  # a comment with import os"));
    }

    #[test]
    fn finds_deletion_targets() {
        assert_eq!(
            deletions("python3", "import shutil; shutil.rmtree('build')"),
            vec![InlineDeletion {
                target: Some("build".into())
            }]
        );
        assert_eq!(
            deletions("node", "require('fs').rmSync('dist', {recursive: true})"),
            vec![InlineDeletion {
                target: Some("dist".into())
            }]
        );
        assert_eq!(
            deletions("python3", "import os; os.remove(p)"),
            vec![InlineDeletion { target: None }]
        );
        assert!(deletions("python3", "print('x')").is_empty());
    }
}
