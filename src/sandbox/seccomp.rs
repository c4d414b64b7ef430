//! The seccomp filter every command whose network is confined gets: the
//! ways to reach a network that neither a network namespace nor Landlock
//! sees. Built once in the supervisor (`seccompiler` compiles the rules
//! below, which are data with a reason each); the child installs it with
//! one system call right before `execve`, after `no_new_privs`.
//!
//! A denied call fails with `EPERM` (the program sees an ordinary
//! refusal); a call from another architecture's system call table (i386's
//! `int 0x80`, x32's numbers) ends the process, since its numbers mean
//! other calls.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// System calls no confined command makes, with why.
pub const DENIED_CALLS: &[(i64, &str)] = &[
    (
        libc::SYS_io_uring_setup,
        "io_uring makes sockets and sends data without the socket calls the filter sees",
    ),
    (
        libc::SYS_io_uring_enter,
        "io_uring makes sockets and sends data without the socket calls the filter sees",
    ),
    (
        libc::SYS_io_uring_register,
        "io_uring makes sockets and sends data without the socket calls the filter sees",
    ),
];

/// Flags a sending call may not carry, with why: `(call, the argument
/// that holds the flags, the flag)`.
pub const DENIED_SEND_FLAGS: &[(i64, u8, i32, &str)] = &[
    (
        libc::SYS_sendto,
        3,
        libc::MSG_FASTOPEN,
        "TCP Fast Open connects a socket from sendto, where no connect call (and no Landlock rule) sees it",
    ),
    (
        libc::SYS_sendmsg,
        2,
        libc::MSG_FASTOPEN,
        "TCP Fast Open connects a socket from sendmsg, where no connect call (and no Landlock rule) sees it",
    ),
    (
        libc::SYS_sendmmsg,
        3,
        libc::MSG_FASTOPEN,
        "TCP Fast Open connects a socket from sendmmsg, where no connect call (and no Landlock rule) sees it",
    ),
];

/// Socket families a command may create, with why; every other is
/// refused (packet sockets, VSOCK, Bluetooth, CAN, TIPC, …).
pub const ALLOWED_FAMILIES: &[(i32, &str)] = &[
    (
        libc::AF_UNIX,
        "local sockets: pipes between processes, daemons the sandbox lets it reach",
    ),
    (
        libc::AF_INET,
        "IPv4 TCP and UDP, confined by the network namespace",
    ),
    (
        libc::AF_INET6,
        "IPv6 TCP and UDP, confined by the network namespace",
    ),
    (
        libc::AF_NETLINK,
        "the kernel's routing and interface information (getaddrinfo, ip)",
    ),
];

/// Socket types an IP socket may not have, with why (only stream and
/// datagram: TCP and UDP).
pub const DENIED_IP_TYPES: &[(i32, &str)] = &[
    (libc::SOCK_RAW, "raw IP: any protocol, its own headers"),
    (libc::SOCK_RDM, "reliable datagrams (RDS)"),
    (
        libc::SOCK_SEQPACKET,
        "SCTP, which Landlock's TCP rules do not cover",
    ),
    (libc::SOCK_DCCP, "DCCP"),
    (SOCK_PACKET, "link-level packets (the obsolete type)"),
];

/// Protocols an IP socket may name, with why (0 is the type's default:
/// TCP for stream, UDP for datagram); every other is refused: MPTCP and
/// SCTP (Landlock's TCP rules pass them, measured), ICMP and UDP-Lite.
pub const ALLOWED_IP_PROTOCOLS: &[(i32, &str)] = &[
    (0, "the type's default protocol"),
    (libc::IPPROTO_TCP, "TCP"),
    (libc::IPPROTO_UDP, "UDP"),
];

/// `SOCK_PACKET` (libc marks the name deprecated; its number stays).
const SOCK_PACKET: i32 = 10;

/// The mask of a socket type without its flags (`SOCK_NONBLOCK`,
/// `SOCK_CLOEXEC`).
const TYPE_MASK: u64 = 0xf;

/// The first x32 system call number: on x86-64, a number with this bit
/// is the x32 table's (the arch check alone does not see it).
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// The filter, compiled (the same for every command: built once per
/// process).
pub fn program() -> Result<BpfProgram, String> {
    let (mut program, ruled) = compiled()?;
    allow_unruled(&mut program, &ruled);
    Ok(program)
}

/// seccompiler's program for the tables, with the x32 guard, and the
/// calls it has rules for.
fn compiled() -> Result<(BpfProgram, Vec<i64>), String> {
    let err = |e: seccompiler::BackendError| format!("cannot build the seccomp filter: {e}");
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| format!("cannot build the seccomp filter: {e}"))?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for (call, _) in DENIED_CALLS {
        rules.insert(*call, Vec::new());
    }
    let cond = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(err)
    };
    let rule = |conds: Vec<SeccompCondition>| SeccompRule::new(conds).map_err(err);
    // socket(domain, type, protocol): a family outside the list, as the
    // ranges between the allowed ones.
    let mut socket = Vec::new();
    let mut allowed: Vec<u64> = ALLOWED_FAMILIES.iter().map(|(f, _)| *f as u64).collect();
    allowed.sort_unstable();
    let mut below = 0u64;
    for f in &allowed {
        if *f > below {
            socket.push(rule(vec![
                cond(0, SeccompCmpOp::Ge, below)?,
                cond(0, SeccompCmpOp::Lt, *f)?,
            ])?);
        }
        below = f + 1;
    }
    socket.push(rule(vec![cond(0, SeccompCmpOp::Ge, below)?])?);
    for family in [libc::AF_INET, libc::AF_INET6] {
        for (t, _) in DENIED_IP_TYPES {
            socket.push(rule(vec![
                cond(0, SeccompCmpOp::Eq, family as u64)?,
                cond(1, SeccompCmpOp::MaskedEq(TYPE_MASK), *t as u64)?,
            ])?);
        }
        let mut other_protocol = vec![cond(0, SeccompCmpOp::Eq, family as u64)?];
        for (p, _) in ALLOWED_IP_PROTOCOLS {
            other_protocol.push(cond(2, SeccompCmpOp::Ne, *p as u64)?);
        }
        socket.push(rule(other_protocol)?);
    }
    rules.insert(libc::SYS_socket, socket);
    for (call, arg, flag, _) in DENIED_SEND_FLAGS {
        rules.entry(*call).or_default().push(rule(vec![cond(
            *arg,
            SeccompCmpOp::MaskedEq(*flag as u64),
            *flag as u64,
        )?])?);
    }
    // socketpair: only local pairs.
    rules.insert(
        libc::SYS_socketpair,
        vec![rule(vec![cond(
            0,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )?])?],
    );
    let ruled: Vec<i64> = rules.keys().copied().collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(err)?;
    let mut program: BpfProgram = filter.try_into().map_err(err)?;
    guard_x32(&mut program);
    Ok((program, ruled))
}

/// After the arch check and the x32 guard, a call that no rule names is
/// allowed at once. Installing a filter, the kernel runs it for every
/// system call number (its action cache, so that such calls skip the
/// filter later); through seccompiler's chain of comparisons each of
/// those runs took about 40 instructions, and now takes at most
/// `2 × runs + 2`. The block loads the call's number and leaves it in
/// the accumulator, as the guard before it does.
fn allow_unruled(program: &mut BpfProgram, ruled: &[i64]) {
    use seccompiler::sock_filter;
    const BPF_LD_W_ABS: u16 = 0x20;
    const BPF_JGE_K: u16 = 0x05 | 0x30;
    const BPF_JGT_K: u16 = 0x05 | 0x20;
    const BPF_RET_K: u16 = 0x06;
    let mut numbers: Vec<u32> = ruled
        .iter()
        .filter_map(|n| u32::try_from(*n).ok())
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    // Runs of near numbers (the socket calls, 41–53, are one: a call
    // between two ruled ones goes through the rules, which allow it).
    const GAP: u32 = 16;
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for n in numbers {
        match runs.last_mut() {
            Some((_, end)) if n <= end.saturating_add(GAP) => *end = n,
            _ => runs.push((n, n)),
        }
    }
    // The call's number, then per run: below it, allowed; above it, on
    // to the next run (after the last, allowed); in it, the rules.
    let len = 1 + runs.len() * 2 + 1;
    let Ok(last) = u8::try_from(len) else {
        return;
    };
    let ins = |code: u16, jt: u8, jf: u8, k: u32| sock_filter { code, jt, jf, k };
    let mut block = vec![ins(BPF_LD_W_ABS, 0, 0, 0)];
    for (start, end) in runs {
        // Jumps count from the instruction after theirs: from the first
        // of the pair to the allow at the block's end, and from the
        // second to the rules after it, are the same distance.
        let skip = last - 2 - block.len() as u8;
        block.push(ins(BPF_JGE_K, 0, skip, start));
        block.push(ins(BPF_JGT_K, 0, skip, end));
    }
    block.push(ins(BPF_RET_K, 0, 0, libc::SECCOMP_RET_ALLOW));
    let at = (ARCH_CHECK_LEN + X32_GUARD_LEN).min(program.len());
    program.splice(at..at, block);
}

/// The compiled filter as the kernel takes it (built once per process;
/// the child installs it).
pub fn kernel_program() -> Result<&'static [libc::sock_filter], String> {
    static PROGRAM: std::sync::OnceLock<Result<Vec<libc::sock_filter>, String>> =
        std::sync::OnceLock::new();
    PROGRAM
        .get_or_init(|| program().map(|p| for_kernel(&p)))
        .as_deref()
        .map_err(Clone::clone)
}

/// seccompiler's instructions as libc's `sock_filter`, which the
/// `seccomp` system call takes.
fn for_kernel(p: &[seccompiler::sock_filter]) -> Vec<libc::sock_filter> {
    p.iter()
        .map(|i| libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        })
        .collect()
}

/// The filter of a command whose connections the session's filter
/// makes: the same, and `listen` and every `connect` that may be an IP
/// one stop for that filter (`SECCOMP_RET_USER_NOTIF`; the child
/// installs it with a listener).
///
/// Which connects stop is read from the address's length, the one
/// argument a filter can see: an IP address is 16 to 28 bytes (IPv4,
/// IPv6) and a caller may pass up to 128 (a `sockaddr_storage`); a local
/// socket's is at most 110 (`sockaddr_un`). So a connect of 29 to 110
/// bytes (glibc's `nscd` and user-database probes, D-Bus, most local
/// sockets) or under 16 goes straight to the kernel, without a round
/// trip to the filter on every user lookup. Nothing is widened by that:
/// the filter would let a local socket's connect through anyway; an IP
/// connect given such a length is the kernel's, inside the wall, where
/// the Landlock layer refuses every TCP connect the command makes itself
/// (a UDP connect is what the filter would make there too). One thing
/// the filter would have refused gets through: an `AF_UNSPEC` connect of
/// such a length disconnects a socket the filter handed in, which then
/// reaches nothing (it connects only through the filter or Landlock, and
/// `listen` always stops); `network::a_socket_the_filter_hands_in_reaches_nothing_else`.
/// One filter rather than two: the kernel converts and compiles each
/// filter a command gets, on every command.
pub fn kernel_program_stopping_connect() -> Result<&'static [libc::sock_filter], String> {
    static PROGRAM: std::sync::OnceLock<Result<Vec<libc::sock_filter>, String>> =
        std::sync::OnceLock::new();
    PROGRAM
        .get_or_init(|| {
            let mut p = kernel_program()?.to_vec();
            // After the arch check and the x32 guard, which leaves the
            // call's number in the accumulator (on other architectures,
            // load it).
            const BPF_LD_W_ABS: u16 = 0x20;
            const BPF_JEQ_K: u16 = 0x05 | 0x10;
            const BPF_JGE_K: u16 = 0x05 | 0x30;
            const BPF_RET_K: u16 = 0x06;
            let ins = |code: u16, jt: u8, jf: u8, k: u32| libc::sock_filter { code, jt, jf, k };
            // Relative jumps: to `NOTIFY` (index 7) or to the reload of
            // the call's number (index 8) the rest of the program reads.
            let stop = [
                /* 0 */ ins(BPF_LD_W_ABS, 0, 0, 0),
                /* 1 */ ins(BPF_JEQ_K, 5, 0, libc::SYS_listen as u32),
                /* 2 */ ins(BPF_JEQ_K, 0, 5, libc::SYS_connect as u32),
                /* 3 */ ins(BPF_LD_W_ABS, 0, 0, ADDRLEN_OFFSET),
                /* 4 */ ins(BPF_JGE_K, 2, 0, MAX_LOCAL_ADDRLEN + 1),
                /* 5 */ ins(BPF_JGE_K, 2, 0, MAX_IP_ADDRLEN + 1),
                /* 6 */ ins(BPF_JGE_K, 0, 1, MIN_IP_ADDRLEN),
                /* 7 */ ins(BPF_RET_K, 0, 0, libc::SECCOMP_RET_USER_NOTIF),
                /* 8 */ ins(BPF_LD_W_ABS, 0, 0, 0),
            ];
            let at = ARCH_CHECK_LEN + X32_GUARD_LEN;
            if p.len() < at {
                return Err("the seccomp filter is shorter than its arch check".into());
            }
            p.splice(at..at, stop);
            Ok(p)
        })
        .as_deref()
        .map_err(Clone::clone)
}

/// Where `connect`'s third argument (the address's length, a 32-bit
/// `socklen_t`) lies in `seccomp_data`: after the number, the arch and the
/// instruction pointer, the third 64-bit argument, its low half.
#[cfg(target_endian = "little")]
const ADDRLEN_OFFSET: u32 = 16 + 2 * 8;
#[cfg(target_endian = "big")]
const ADDRLEN_OFFSET: u32 = 16 + 2 * 8 + 4;
/// The shortest IP address `connect` takes (`sockaddr_in`).
const MIN_IP_ADDRLEN: u32 = 16;
/// The longest exact IP address (`sockaddr_in6`).
const MAX_IP_ADDRLEN: u32 = 28;
/// The longest local socket address (`sockaddr_un`); anything longer may
/// be an IP address in a `sockaddr_storage`.
const MAX_LOCAL_ADDRLEN: u32 = 110;

/// The instructions of seccompiler's arch check at the program's start.
const ARCH_CHECK_LEN: usize = 3;
/// The instructions `guard_x32` puts after it.
#[cfg(target_arch = "x86_64")]
const X32_GUARD_LEN: usize = 3;
#[cfg(not(target_arch = "x86_64"))]
const X32_GUARD_LEN: usize = 0;

/// After the arch check (the program's first three instructions), end a
/// call whose number is from the x32 table.
#[cfg(target_arch = "x86_64")]
fn guard_x32(program: &mut BpfProgram) {
    use seccompiler::sock_filter;
    const BPF_LD_W_ABS: u16 = 0x20;
    const BPF_JGE_K: u16 = 0x05 | 0x30;
    const BPF_RET_K: u16 = 0x06;
    let guard = [
        // The system call number is at offset 0 of `seccomp_data`.
        sock_filter {
            code: BPF_LD_W_ABS,
            jt: 0,
            jf: 0,
            k: 0,
        },
        sock_filter {
            code: BPF_JGE_K,
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        sock_filter {
            code: BPF_RET_K,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_KILL_PROCESS,
        },
    ];
    let at = ARCH_CHECK_LEN.min(program.len());
    program.splice(at..at, guard);
}

#[cfg(not(target_arch = "x86_64"))]
fn guard_x32(_: &mut BpfProgram) {}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// What the kernel's BPF interpreter returns for one call (the subset
    /// of classic BPF that seccompiler and the guard emit).
    fn run(prog: &[libc::sock_filter], arch: u32, nr: u32, args: [u64; 6]) -> u32 {
        // seccomp_data: nr, arch, instruction pointer, six arguments.
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&nr.to_ne_bytes());
        data[4..8].copy_from_slice(&arch.to_ne_bytes());
        for (i, a) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_ne_bytes());
        }
        let word =
            |k: u32| u32::from_ne_bytes(data[k as usize..k as usize + 4].try_into().unwrap());
        let (mut acc, mut pc) = (0u32, 0usize);
        loop {
            let i = prog[pc];
            pc += 1;
            match i.code {
                0x20 => acc = word(i.k),
                0x06 => return i.k,
                0x54 => acc &= i.k,
                0x05 => pc += i.k as usize,
                code => {
                    let taken = match code & 0xf0 {
                        0x10 => acc == i.k,
                        0x20 => acc > i.k,
                        0x30 => acc >= i.k,
                        0x40 => acc & i.k != 0,
                        other => panic!("unknown jump {other:#x}"),
                    };
                    pc += usize::from(if taken { i.jt } else { i.jf });
                }
            }
        }
    }

    const ARCH_X86_64: u32 = 0xc000_003e;

    /// How many instructions the filter takes to decide call `nr` on its
    /// number alone, as the kernel's action cache runs it (`usize::MAX`:
    /// it reads an argument).
    fn steps(prog: &[libc::sock_filter], nr: u32) -> usize {
        let (mut acc, mut pc, mut n) = (0u32, 0usize, 0usize);
        loop {
            let i = prog[pc];
            pc += 1;
            n += 1;
            match i.code {
                0x20 if i.k == 0 => acc = nr,
                0x20 if i.k == 4 => acc = ARCH_X86_64,
                0x06 => return n,
                code if code & 0x07 == 0x05 => {
                    let taken = match code & 0xf0 {
                        0x10 => acc == i.k,
                        0x20 => acc > i.k,
                        0x30 => acc >= i.k,
                        _ => return usize::MAX,
                    };
                    pc += usize::from(if taken { i.jt } else { i.jf });
                }
                _ => return usize::MAX,
            }
        }
    }

    /// The block that allows calls no rule names decides every call as
    /// seccompiler's program alone does, and each such call within a few
    /// instructions (the kernel runs the filter for every number when it
    /// installs it).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn calls_no_rule_names_are_allowed_at_once_and_nothing_else_changes() {
        let fast = for_kernel(&program().unwrap());
        let (base, ruled) = compiled().unwrap();
        let base = for_kernel(&base);
        assert!(fast.len() > base.len());
        let fastopen = libc::MSG_FASTOPEN as u64;
        let argsets = [
            [0; 6],
            [2, 1, 0, 0, 0, 0],
            [2, 3, 0, 0, 0, 0],
            [17, 3, 0, 0, 0, 0],
            [10, 1, 262, 0, 0, 0],
            [1, 1, 0, 0, 0, 0],
            [3, 0, fastopen, fastopen, 0, 0],
            [3, 0, 0, 0, 0, 0],
        ];
        for nr in (0..1024).chain([X32_SYSCALL_BIT | 41, u32::MAX]) {
            for args in argsets {
                assert_eq!(
                    run(&fast, ARCH_X86_64, nr, args),
                    run(&base, ARCH_X86_64, nr, args),
                    "{nr} {args:?}"
                );
            }
        }
        // Nearly every number (all but those near a ruled one), and the
        // calls a program makes most, are allowed within 16 instructions.
        let quick = (0..460).filter(|nr| steps(&fast, *nr) <= 16).count();
        assert!(quick >= 440, "{quick}");
        for nr in [
            libc::SYS_read,
            libc::SYS_write,
            libc::SYS_openat,
            libc::SYS_close,
            libc::SYS_mmap,
            libc::SYS_execve,
            libc::SYS_statx,
            libc::SYS_futex,
        ] {
            assert!(!ruled.contains(&nr));
            assert!(steps(&fast, nr as u32) <= 16, "{nr}");
        }
        assert_eq!(
            run(&fast, 0x4000_0003, 102, [0; 6]),
            run(&base, 0x4000_0003, 102, [0; 6])
        );
        // Before it, an ordinary call walked the whole chain.
        assert!(steps(&base, libc::SYS_read as u32) > 30);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_filter_denies_what_its_tables_say_and_nothing_else() {
        let prog = kernel_program().unwrap();
        let allow = libc::SECCOMP_RET_ALLOW;
        let eperm = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
        let socket = |d: i32, t: i32, p: i32| {
            run(
                prog,
                ARCH_X86_64,
                libc::SYS_socket as u32,
                [d as u64, t as u64, p as u64, 0, 0, 0],
            )
        };
        for (family, _) in ALLOWED_FAMILIES {
            assert_eq!(socket(*family, libc::SOCK_STREAM, 0), allow, "{family}");
        }
        for family in [0, 3, 9, 11, 15, 17, 40, 44] {
            assert_eq!(socket(family, libc::SOCK_STREAM, 0), eperm, "{family}");
        }
        let cloexec = libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK;
        for f in [libc::AF_INET, libc::AF_INET6] {
            assert_eq!(
                socket(f, libc::SOCK_STREAM | cloexec, libc::IPPROTO_TCP),
                allow
            );
            assert_eq!(socket(f, libc::SOCK_DGRAM | cloexec, 0), allow);
            for (t, _) in DENIED_IP_TYPES {
                assert_eq!(socket(f, *t | cloexec, 0), eperm, "type {t}");
            }
            for p in [
                libc::IPPROTO_MPTCP,
                libc::IPPROTO_SCTP,
                libc::IPPROTO_ICMP,
                136,
            ] {
                assert_eq!(socket(f, libc::SOCK_STREAM, p), eperm, "protocol {p}");
            }
        }
        let call = |nr: i64| run(prog, ARCH_X86_64, nr as u32, [0; 6]);
        for (nr, _) in DENIED_CALLS {
            assert_eq!(call(*nr), eperm);
        }
        assert_eq!(call(libc::SYS_read), allow);
        assert_eq!(call(libc::SYS_connect), allow);
        let pair = |d: i32| {
            run(
                prog,
                ARCH_X86_64,
                libc::SYS_socketpair as u32,
                [d as u64, 1, 0, 0, 0, 0],
            )
        };
        assert_eq!(pair(libc::AF_UNIX), allow);
        assert_eq!(pair(libc::AF_INET), eperm);
        // Sending with TCP Fast Open is refused, any other flag passes.
        for (nr, arg, flag, _) in DENIED_SEND_FLAGS {
            let mut args = [3, 0, 0, 0, 0, 0];
            args[usize::from(*arg)] = (*flag | libc::MSG_NOSIGNAL) as u64;
            assert_eq!(run(prog, ARCH_X86_64, *nr as u32, args), eperm, "{nr}");
            args[usize::from(*arg)] = (libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT) as u64;
            assert_eq!(run(prog, ARCH_X86_64, *nr as u32, args), allow, "{nr}");
        }
        // Another table ends the process: i386's, and x32's numbers.
        let kill = libc::SECCOMP_RET_KILL_PROCESS;
        assert_eq!(run(prog, 0x4000_0003, 102, [0; 6]), kill);
        assert_eq!(
            run(prog, ARCH_X86_64, X32_SYSCALL_BIT | 41, [2, 1, 0, 0, 0, 0]),
            kill
        );
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_connect_stopping_filter_is_the_same_but_for_connect_and_listen() {
        let plain = kernel_program().unwrap();
        let prog = kernel_program_stopping_connect().unwrap();
        let notify = libc::SECCOMP_RET_USER_NOTIF;
        let connect = |len: u64| {
            run(
                prog,
                ARCH_X86_64,
                libc::SYS_connect as u32,
                [3, 0, len, 0, 0, 0],
            )
        };
        // Every length an IP address may have stops; a local socket's
        // usual ones go on as the plain filter decides them.
        for len in [16, 24, 28, 111, 128, 0xffff_ffff] {
            assert_eq!(connect(len), notify, "{len}");
        }
        let plain_connect = run(
            plain,
            ARCH_X86_64,
            libc::SYS_connect as u32,
            [3, 0, 0, 0, 0, 0],
        );
        assert_ne!(plain_connect, notify);
        for len in [0, 2, 15, 29, 30, 44, 110, 0x1_0000_006e] {
            assert_eq!(connect(len), plain_connect, "{len}");
        }
        for len in [0, 16, 110] {
            assert_eq!(
                run(
                    prog,
                    ARCH_X86_64,
                    libc::SYS_listen as u32,
                    [3, len, 0, 0, 0, 0]
                ),
                notify
            );
        }
        // Every other call, with the arguments the first test uses, as
        // the plain filter decides it.
        let fastopen = libc::MSG_FASTOPEN as u64;
        for (nr, args) in [
            (libc::SYS_socket, [2, 1, 0, 0, 0, 0]),
            (libc::SYS_socket, [2, 3, 0, 0, 0, 0]),
            (libc::SYS_socket, [17, 3, 0, 0, 0, 0]),
            (libc::SYS_socket, [10, 1, 262, 0, 0, 0]),
            (libc::SYS_socketpair, [2, 1, 0, 0, 0, 0]),
            (libc::SYS_sendto, [3, 0, 0, fastopen, 0, 0]),
            (libc::SYS_sendmsg, [3, 0, fastopen, 0, 0, 0]),
            (libc::SYS_io_uring_setup, [0; 6]),
            (libc::SYS_read, [0; 6]),
            (libc::SYS_bind, [3, 0, 16, 0, 0, 0]),
            (libc::SYS_accept4, [3, 0, 0, 0, 0, 0]),
        ] {
            assert_eq!(
                run(prog, ARCH_X86_64, nr as u32, args),
                run(plain, ARCH_X86_64, nr as u32, args),
                "{nr}"
            );
        }
        let kill = libc::SECCOMP_RET_KILL_PROCESS;
        assert_eq!(run(prog, 0x4000_0003, 102, [0; 6]), kill);
        assert_eq!(
            run(prog, ARCH_X86_64, X32_SYSCALL_BIT | 42, [3, 0, 16, 0, 0, 0]),
            kill
        );
    }
}
