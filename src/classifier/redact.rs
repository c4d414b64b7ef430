//! Redaction of secrets from everything sent to the classifier or logged:
//! API keys and tokens with well-known prefixes, bearer/basic credentials,
//! passwords in URLs, `--password` values (and mysql's `-pSECRET`),
//! private key blocks, AWS keys, and `.env`-style secret assignments.

/// What replaces a secret.
pub const MARK: &str = "[REDACTED]";

/// Token prefixes of common providers, with the least number of
/// characters that must follow for it to count as a token.
const TOKEN_PREFIXES: &[(&str, usize)] = &[
    ("sk-ant-", 16),
    ("sk-proj-", 16),
    ("sk-or-", 16),
    ("sk-", 20),
    ("sk_live_", 16),
    ("sk_test_", 16),
    ("rk_live_", 16),
    ("pk_live_", 16),
    ("ghp_", 20),
    ("gho_", 20),
    ("ghu_", 20),
    ("ghs_", 20),
    ("ghr_", 20),
    ("github_pat_", 20),
    ("glpat-", 16),
    ("xoxb-", 10),
    ("xoxp-", 10),
    ("xoxa-", 10),
    ("xoxr-", 10),
    ("xapp-", 10),
    ("AKIA", 16),
    ("ASIA", 16),
    ("AIza", 30),
    ("hf_", 20),
    ("npm_", 20),
    ("pypi-", 20),
    ("shpat_", 20),
    ("dop_v1_", 20),
    ("SG.", 20),
    ("ya29.", 20),
    ("gsk_", 20),
    ("eyJ", 20),
];

/// Words in a variable or key name that mark its value secret.
const SECRET_NAMES: &[&str] = &[
    "KEY",
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PWD",
    "CREDENTIAL",
    "AUTH",
    "PRIVATE",
    "SESSION",
    "COOKIE",
    "SIGNATURE",
];

fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '+' | '=')
}

/// Redact every secret in `text`.
pub fn redact(text: &str) -> String {
    let t = private_keys(text);
    let t = url_passwords(&t);
    let t = auth_schemes(&t);
    let t = prefixed_tokens(&t);
    let t = password_options(&t);
    secret_assignments(&t)
}

fn private_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let header_end = rest[start..]
            .find("-----\n")
            .or_else(|| rest[start + 11..].find("-----").map(|e| e + 11));
        let is_private = header_end.is_some_and(|e| rest[start..start + e].contains("PRIVATE KEY"));
        out.push_str(&rest[..start]);
        if !is_private {
            out.push_str("-----BEGIN ");
            rest = &rest[start + 11..];
            continue;
        }
        match rest[start..].find("-----END ") {
            Some(end_rel) => {
                let end = start + end_rel;
                let close = rest[end + 9..]
                    .find("-----")
                    .map_or(rest.len(), |c| end + 9 + c + 5);
                out.push_str("-----BEGIN PRIVATE KEY----- ");
                out.push_str(MARK);
                out.push_str(" -----END PRIVATE KEY-----");
                rest = &rest[close..];
            }
            None => {
                out.push_str(MARK);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// `scheme://user:password@host` → `scheme://user:[REDACTED]@host`.
fn url_passwords(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let auth_start = at + 3;
        out.push_str(&rest[..auth_start]);
        let tail = &rest[auth_start..];
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '/' | '"' | '\'' | '`' | '?' | '#'))
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match (authority.rfind('@'), authority.find(':')) {
            (Some(at_sign), Some(colon)) if colon < at_sign => {
                out.push_str(&authority[..=colon]);
                out.push_str(MARK);
                out.push_str(&authority[at_sign..]);
            }
            _ => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// `Bearer X`, `Basic X`, `token X` after an authorization header.
fn auth_schemes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let lower = rest.to_ascii_lowercase();
        let hit = ["bearer ", "basic ", "token "]
            .iter()
            .filter_map(|s| {
                lower
                    .find(s)
                    .filter(|&i| {
                        // `token ` only after `authorization:`.
                        *s != "token " || lower[..i].trim_end().ends_with("authorization:")
                    })
                    .map(|i| (i, s.len()))
            })
            .min();
        let Some((i, len)) = hit else { break };
        let value_start = i + len;
        let value_len = rest[value_start..]
            .find(|c: char| !token_char(c))
            .unwrap_or(rest.len() - value_start);
        out.push_str(&rest[..value_start]);
        if value_len >= 8 {
            out.push_str(MARK);
        } else {
            out.push_str(&rest[value_start..value_start + value_len]);
        }
        rest = &rest[value_start + value_len..];
    }
    out.push_str(rest);
    out
}

fn prefixed_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        let boundary =
            i == 0 || !token_char(chars[i - 1].1) || chars[i - 1].1 == '=' || chars[i - 1].1 == '/';
        if boundary && (c.is_ascii_alphanumeric()) {
            let word_end = chars[i..]
                .iter()
                .position(|(_, c)| !token_char(*c))
                .map_or(text.len(), |n| chars[i + n].0);
            let word = &text[pos..word_end];
            if TOKEN_PREFIXES.iter().any(|(p, min)| {
                word.starts_with(p)
                    && word.len() >= p.len() + min
                    && word[p.len()..]
                        .chars()
                        .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
            }) {
                out.push_str(MARK);
                i += word.chars().count();
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// `--password X`, `--password=X`, `--pass X`, and mysql's `-pSECRET`.
fn password_options(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut redact_next = false;
    let mut mysql = false;
    for piece in split_keep(text) {
        if piece.trim().is_empty() {
            out.push_str(piece);
            continue;
        }
        let word = piece;
        if redact_next {
            out.push_str(MARK);
            redact_next = false;
            continue;
        }
        let bare = word.trim_matches(|c| c == '"' || c == '\'');
        if matches!(bare, "mysql" | "mysqldump" | "mariadb" | "mysqladmin")
            || bare.ends_with("/mysql")
        {
            mysql = true;
        }
        if matches!(
            bare,
            "--password" | "--passwd" | "--pass" | "--token" | "--api-key" | "--secret"
        ) {
            out.push_str(word);
            redact_next = true;
            continue;
        }
        if let Some((opt, _)) = bare.split_once('=')
            && matches!(
                opt,
                "--password" | "--passwd" | "--pass" | "--token" | "--api-key" | "--secret"
            )
        {
            out.push_str(opt);
            out.push('=');
            out.push_str(MARK);
            continue;
        }
        if mysql && bare.starts_with("-p") && bare.len() > 2 {
            out.push_str("-p");
            out.push_str(MARK);
            continue;
        }
        out.push_str(word);
    }
    out
}

/// Split into alternating non-space and space runs, keeping both.
fn split_keep(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        if in_space.is_some_and(|s| s != space) {
            out.push(&text[start..i]);
            start = i;
        }
        in_space = Some(space);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// `API_KEY=value`, `export GITHUB_TOKEN=value`, `"password": "value"`,
/// `aws_secret_access_key = value`.
fn secret_assignments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        // A name: letters, digits, underscores, dots, dashes.
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' || bytes[i] == b'"' {
            let quoted = bytes[i] == b'"';
            let start = if quoted { i + 1 } else { i };
            let mut j = start;
            while j < bytes.len()
                && (bytes[j].is_ascii_alphanumeric() || matches!(bytes[j], b'_' | b'-' | b'.'))
            {
                j += 1;
            }
            let name = &text[start..j];
            let mut k = j;
            if quoted && k < bytes.len() && bytes[k] == b'"' {
                k += 1;
            }
            while k < bytes.len() && bytes[k] == b' ' {
                k += 1;
            }
            let sep = k < bytes.len() && (bytes[k] == b'=' || (bytes[k] == b':' && quoted));
            let upper = name.to_ascii_uppercase();
            let secret_name = !name.is_empty()
                && SECRET_NAMES.iter().any(|s| {
                    upper.split(['_', '-', '.']).any(|part| part == *s) || upper.ends_with(s)
                });
            if sep && secret_name && !(k + 1 < bytes.len() && bytes[k + 1] == b'=') {
                let mut v = k + 1;
                while v < bytes.len() && bytes[v] == b' ' {
                    v += 1;
                }
                let (value_start, value_end) = value_span(bytes, v);
                if value_end > value_start
                    && !text[value_start..value_end].starts_with('$')
                    && text[value_start..value_end] != *MARK
                {
                    out.push_str(&text[copied..value_start]);
                    out.push_str(MARK);
                    copied = value_end;
                }
                i = value_end.max(j);
                continue;
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    out.push_str(&text[copied..]);
    out
}

/// The value after `=`: quoted, or up to whitespace or a quote/`;`.
fn value_span(bytes: &[u8], v: usize) -> (usize, usize) {
    if v < bytes.len() && (bytes[v] == b'"' || bytes[v] == b'\'') {
        let q = bytes[v];
        let mut e = v + 1;
        while e < bytes.len() && bytes[e] != q {
            if bytes[e] == b'\\' {
                e += 1;
            }
            e += 1;
        }
        return (v + 1, e.min(bytes.len()));
    }
    let mut e = v;
    while e < bytes.len()
        && !bytes[e].is_ascii_whitespace()
        && !matches!(
            bytes[e],
            b';' | b'&' | b'|' | b'"' | b'\'' | b',' | b'}' | b')'
        )
    {
        e += 1;
    }
    (v, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_tokens_with_known_prefixes() {
        for secret in [
            "sk-proj-AbCdEf0123456789AbCdEf0123",
            "sk-ant-api03-AbCdEf0123456789XyZ",
            "ghp_0123456789abcdefABCDEF0123456789abcd",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "xoxb-1234567890-abcdefghij",
            "AKIAIOSFODNN7EXAMPLE",
            "glpat-AbCdEf0123456789xyz",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc123DEF456",
        ] {
            let text = format!("curl -H x {secret} https://e.example");
            let r = redact(&text);
            assert!(!r.contains(secret), "{r}");
            assert!(r.contains(MARK), "{r}");
        }
        // Ordinary words stay.
        assert_eq!(
            redact("git checkout sk-branch && ls task-runner"),
            "git checkout sk-branch && ls task-runner"
        );
    }

    #[test]
    fn redacts_auth_headers_url_passwords_and_options() {
        let r = redact(
            "curl -H 'Authorization: Bearer abcdef0123456789' https://bob:hunter2pass@db.example:5432/x",
        );
        assert!(
            !r.contains("abcdef0123456789") && !r.contains("hunter2pass"),
            "{r}"
        );
        assert!(r.contains("bob:[REDACTED]@db.example"), "{r}");
        let r = redact("curl -u x -H \"Authorization: Basic dXNlcjpwYXNzd29yZA==\" u");
        assert!(!r.contains("dXNlcjpwYXNzd29yZA"), "{r}");
        let r = redact("psql --password s3cretvalue -h h; tool --password=abc123xyz");
        assert!(
            !r.contains("s3cretvalue") && !r.contains("abc123xyz"),
            "{r}"
        );
        let r = redact("mysql -u root -pS3cr3tPw app");
        assert!(!r.contains("S3cr3tPw") && r.contains("-u root"), "{r}");
        // -p elsewhere is not a password.
        assert_eq!(redact("mkdir -p src/x"), "mkdir -p src/x");
    }

    #[test]
    fn redacts_private_keys_and_secret_assignments() {
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
        let r = redact(&format!("echo '{key}' > k"));
        assert!(!r.contains("b3BlbnNzaC1rZXktdjEAAAAA"), "{r}");
        let r = redact("API_KEY=abc123def NODE_ENV=production DB_PASSWORD='p a s s' npm test");
        assert!(!r.contains("abc123def") && !r.contains("p a s s"), "{r}");
        assert!(r.contains("NODE_ENV=production"), "{r}");
        let r = redact("export GITHUB_TOKEN=zzzzzz; echo $GITHUB_TOKEN");
        assert!(!r.contains("zzzzzz") && r.contains("$GITHUB_TOKEN"), "{r}");
        let r = redact(r#"{"password": "hunter2", "user": "bob"}"#);
        assert!(!r.contains("hunter2") && r.contains("bob"), "{r}");
        let r = redact("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG");
        assert!(!r.contains("wJalrXUtnFEMI"), "{r}");
        // Comparisons are not assignments.
        assert_eq!(redact("[[ $TOKEN == x ]]"), "[[ $TOKEN == x ]]");
    }
}
