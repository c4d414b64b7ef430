//! The DNS stub inside a session's network namespace: every query a
//! command sends, to whatever resolver address (every address is local
//! there), reaches it, and none goes further. A name gets an address of
//! the filter's own (198.18.0.0/15, the same for the same name while the
//! session lasts), so a connection to it reaches the filter, which knows
//! the name and decides there; no query for a name ever leaves, so no
//! data can ride out in one. IPv6 and other record types get an empty
//! answer (clients then use the IPv4 address).

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::Mutex;

/// The first address names are given (198.18.0.0/15: set aside for
/// benchmarks, on no real network).
pub const FAKE_BASE: u32 = u32::from_be_bytes([198, 18, 0, 0]);
/// How many addresses there are to give.
pub const FAKE_COUNT: u32 = 1 << 17;
/// How long an answer holds (short: the addresses are the session's).
const TTL_SECS: u32 = 30;

/// The names the stub has answered, both ways.
#[derive(Debug, Default)]
pub struct Names {
    inner: Mutex<NameTable>,
}

#[derive(Debug, Default)]
struct NameTable {
    by_name: HashMap<String, Ipv4Addr>,
    by_addr: HashMap<Ipv4Addr, String>,
}

impl Names {
    /// The address for `name` (lower case, no trailing dot), given at its
    /// first query; `None` once every address is given.
    pub fn address(&self, name: &str) -> Option<Ipv4Addr> {
        let mut t = self.inner.lock().ok()?;
        if let Some(a) = t.by_name.get(name) {
            return Some(*a);
        }
        let n = t.by_name.len() as u32;
        // .0 of the range stays unused.
        if n + 1 >= FAKE_COUNT {
            return None;
        }
        let a = Ipv4Addr::from(FAKE_BASE + n + 1);
        t.by_name.insert(name.to_string(), a);
        t.by_addr.insert(a, name.to_string());
        Some(a)
    }

    /// The name an address was given to.
    pub fn name_of(&self, addr: Ipv4Addr) -> Option<String> {
        self.inner.lock().ok()?.by_addr.get(&addr).cloned()
    }
}

/// Is `a` one of the filter's own addresses?
pub fn is_fake(a: Ipv4Addr) -> bool {
    let n = u32::from(a);
    (FAKE_BASE..FAKE_BASE + FAKE_COUNT).contains(&n)
}

/// One question of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub id: u16,
    /// Lower case, no trailing dot.
    pub name: String,
    pub qtype: u16,
    /// The question's bytes (name, type, class), echoed in the answer.
    raw: Vec<u8>,
    /// The recursion-desired bit.
    rd: bool,
}

const TYPE_A: u16 = 1;

/// Read the first question of a query; `None` for anything else (an
/// answer, a truncated or malformed message, another opcode).
pub fn parse(msg: &[u8]) -> Option<Question> {
    if msg.len() < 12 {
        return None;
    }
    let id = u16::from_be_bytes([msg[0], msg[1]]);
    let flags = u16::from_be_bytes([msg[2], msg[3]]);
    let qr = flags & 0x8000 != 0;
    let opcode = (flags >> 11) & 0xf;
    let qdcount = u16::from_be_bytes([msg[4], msg[5]]);
    if qr || opcode != 0 || qdcount == 0 {
        return None;
    }
    let mut at = 12;
    let mut labels = Vec::new();
    loop {
        let len = *msg.get(at)? as usize;
        at += 1;
        if len == 0 {
            break;
        }
        // Compression has no place in a question; labels are at most 63.
        if len > 63 {
            return None;
        }
        let label = msg.get(at..at + len)?;
        labels.push(String::from_utf8_lossy(label).to_ascii_lowercase());
        at += len;
        if at > 12 + 255 {
            return None;
        }
    }
    let qtype = u16::from_be_bytes([*msg.get(at)?, *msg.get(at + 1)?]);
    let _class = msg.get(at + 2..at + 4)?;
    Some(Question {
        id,
        name: labels.join("."),
        qtype,
        raw: msg[12..at + 4].to_vec(),
        rd: flags & 0x0100 != 0,
    })
}

/// The answer to a question: an A record with `addr` for an A question,
/// an empty answer for any other type (or when there is no address).
pub fn answer(q: &Question, addr: Option<Ipv4Addr>) -> Vec<u8> {
    let a = addr.filter(|_| q.qtype == TYPE_A);
    let mut out = Vec::with_capacity(64);
    out.extend(q.id.to_be_bytes());
    // QR, AA, RA, the query's RD; no error.
    let flags: u16 = 0x8000 | 0x0400 | 0x0080 | if q.rd { 0x0100 } else { 0 };
    out.extend(flags.to_be_bytes());
    out.extend(1u16.to_be_bytes());
    out.extend(u16::from(a.is_some()).to_be_bytes());
    out.extend(0u16.to_be_bytes());
    out.extend(0u16.to_be_bytes());
    out.extend(&q.raw);
    if let Some(a) = a {
        // The question's name (offset 12), A, IN, TTL, 4 bytes.
        out.extend([0xc0, 0x0c]);
        out.extend(TYPE_A.to_be_bytes());
        out.extend(1u16.to_be_bytes());
        out.extend(TTL_SECS.to_be_bytes());
        out.extend(4u16.to_be_bytes());
        out.extend(a.octets());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn query(name: &str, qtype: u16) -> Vec<u8> {
        let mut q = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        for label in name.split('.') {
            q.push(label.len() as u8);
            q.extend(label.as_bytes());
        }
        q.push(0);
        q.extend(qtype.to_be_bytes());
        q.extend(1u16.to_be_bytes());
        q
    }

    #[test]
    fn a_name_gets_one_address_of_the_filters_own() {
        let names = Names::default();
        let q = parse(&query("Registry.NPMJS.org", TYPE_A)).unwrap();
        assert_eq!(q.name, "registry.npmjs.org");
        let a = names.address(&q.name).unwrap();
        assert!(is_fake(a));
        assert_eq!(names.address("registry.npmjs.org"), Some(a));
        assert_ne!(names.address("pypi.org"), Some(a));
        assert_eq!(names.name_of(a).as_deref(), Some("registry.npmjs.org"));
        let r = answer(&q, Some(a));
        assert_eq!(&r[0..2], &[0x12, 0x34]);
        assert_eq!(u16::from_be_bytes([r[6], r[7]]), 1, "one answer");
        assert_eq!(&r[r.len() - 4..], &a.octets());
        // AAAA: an empty answer.
        let q6 = parse(&query("pypi.org", 28)).unwrap();
        let r6 = answer(&q6, Some(a));
        assert_eq!(u16::from_be_bytes([r6[6], r6[7]]), 0);
    }

    #[test]
    fn anything_but_a_plain_query_is_ignored() {
        assert_eq!(parse(&[0; 5]), None);
        let mut response = query("a.b", TYPE_A);
        response[2] |= 0x80;
        assert_eq!(parse(&response), None);
        let mut compressed = query("a.b", TYPE_A);
        compressed[12] = 0xc0;
        assert_eq!(parse(&compressed), None);
        assert_eq!(parse(&query("a.b", TYPE_A)[..15]), None);
    }
}
