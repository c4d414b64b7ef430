//! Forwarding the child's stdout/stderr to ours under one byte budget,
//! without ever blocking the supervisor loop on a slow reader.
//!
//! Input: the read end of a child pipe (non-blocking) and our fd 1 or 2.
//! Output: bytes forwarded, and events (EOF, budget overflow, broken
//! destination). Pipe destinations use `splice`; sockets `pwritev2` with
//! RWF_NOWAIT; terminals poll-then-write at most PIPE_BUF; files and
//! `/dev/null` a plain write. It never sets O_NONBLOCK on fds 1/2: those
//! open file descriptions are shared with the harness.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::stat::{SFlag, fstat};

use super::unix;

/// Bytes moved per read or splice.
const CHUNK_BYTES: usize = 64 * 1024;
/// A write of at most this many bytes to a pipe or terminal that polled
/// writable does not block.
const PIPE_BUF_BYTES: usize = 4096;

/// What our stdout/stderr is, which decides how we write to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DstKind {
    Pipe,
    Socket,
    Tty,
    /// Regular files, `/dev/null` and other devices: writes do not block
    /// for long, so a plain write is right.
    Plain,
}

impl DstKind {
    pub(crate) fn of(fd: BorrowedFd<'_>) -> (DstKind, Option<(u64, u64, bool)>) {
        let Ok(st) = fstat(fd) else {
            return (DstKind::Plain, None);
        };
        let kind = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
        let regular = kind == SFlag::S_IFREG;
        let id = Some((st.st_dev, st.st_ino, regular));
        let dst = if kind == SFlag::S_IFIFO {
            DstKind::Pipe
        } else if kind == SFlag::S_IFSOCK {
            DstKind::Socket
        } else if kind == SFlag::S_IFCHR && nix::unistd::isatty(fd).unwrap_or(false) {
            DstKind::Tty
        } else {
            DstKind::Plain
        };
        (dst, id)
    }
}

/// Result of one attempt to move data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Moved this many bytes.
    Moved(usize),
    /// The source is drained for now; wait for POLLIN.
    SourceEmpty,
    /// The destination is full; wait for POLLOUT on it.
    DestinationFull,
    /// The source reached end of file.
    Eof,
    /// The budget is used up and the source has at least one more byte.
    Overflow,
    /// The destination is gone (EPIPE or another write error).
    DestinationBroken,
}

/// One child stream and where it goes.
#[derive(Debug)]
pub(crate) struct Stream {
    src: Option<OwnedFd>,
    dst: BorrowedFd<'static>,
    kind: DstKind,
    use_splice: bool,
    nowait_supported: bool,
    pending: Vec<u8>,
    pending_from: usize,
    waiting_for_dst: bool,
    pub(crate) bytes: u64,
    /// The last bytes read, when kept (then bytes are copied, not
    /// spliced, so that they pass through our hands).
    tail: Option<Vec<u8>>,
}

/// How much of a stream's end is kept.
const TAIL_BYTES: usize = 8 * 1024;

impl Stream {
    pub(crate) fn new(src: OwnedFd, dst: BorrowedFd<'static>, kind: DstKind) -> Stream {
        Stream {
            src: Some(src),
            dst,
            kind,
            use_splice: kind == DstKind::Pipe,
            nowait_supported: true,
            pending: Vec::new(),
            pending_from: 0,
            waiting_for_dst: false,
            bytes: 0,
            tail: None,
        }
    }

    /// Keep the last bytes of this stream (copied instead of spliced).
    pub(crate) fn keep_tail(&mut self) {
        self.use_splice = false;
        self.tail = Some(Vec::new());
    }

    /// The kept end of the stream.
    pub(crate) fn take_tail(&mut self) -> Vec<u8> {
        self.tail.take().unwrap_or_default()
    }

    /// Still something to do: an open source or bytes not yet written.
    pub(crate) fn is_active(&self) -> bool {
        self.src.is_some() || self.has_pending()
    }

    pub(crate) fn source_open(&self) -> bool {
        self.src.is_some()
    }

    fn has_pending(&self) -> bool {
        self.pending_from < self.pending.len()
    }

    /// Close the read end: the child's next write gets SIGPIPE/EPIPE.
    pub(crate) fn close_source(&mut self) {
        self.src = None;
    }

    /// Forget unwritten bytes (the destination is broken or stalled).
    pub(crate) fn drop_pending(&mut self) {
        self.pending.clear();
        self.pending_from = 0;
        self.waiting_for_dst = false;
    }

    /// The poll entry this stream needs now, if any.
    pub(crate) fn poll_fd(&self) -> Option<PollFd<'_>> {
        if self.has_pending() || self.waiting_for_dst {
            Some(PollFd::new(self.dst, PollFlags::POLLOUT))
        } else {
            self.src
                .as_ref()
                .map(|src| PollFd::new(src.as_fd(), PollFlags::POLLIN))
        }
    }

    /// Make progress: flush pending bytes, then move new ones within
    /// `budget`. Returns the last step; bytes moved are added to `budget`
    /// accounting by the caller through the returned `Moved` values summed
    /// in `self.bytes`.
    pub(crate) fn pump(&mut self, budget: &mut u64) -> Step {
        let mut last = Step::SourceEmpty;
        for _ in 0..64 {
            if self.has_pending() {
                match self.flush_pending() {
                    Step::Moved(_) => continue,
                    other => return other,
                }
            }
            let Some(src) = self.src.as_ref() else {
                return Step::Eof;
            };
            if *budget == 0 {
                let mut probe = [0u8; 1];
                return match nix::unistd::read(src, &mut probe) {
                    Ok(0) => {
                        self.src = None;
                        Step::Eof
                    }
                    Ok(_) => Step::Overflow,
                    Err(Errno::EAGAIN) => Step::SourceEmpty,
                    Err(Errno::EINTR) => continue,
                    Err(_) => {
                        self.src = None;
                        Step::Eof
                    }
                };
            }
            let want = CHUNK_BYTES.min(usize::try_from(*budget).unwrap_or(usize::MAX));
            let step = if self.use_splice {
                self.splice_once(want)
            } else {
                self.copy_once(want)
            };
            match step {
                Step::Moved(n) => {
                    let n64 = n as u64;
                    *budget = budget.saturating_sub(n64);
                    self.bytes += n64;
                    last = Step::Moved(n);
                }
                Step::Eof => {
                    self.src = None;
                    return Step::Eof;
                }
                other => return other,
            }
        }
        last
    }

    fn splice_once(&mut self, want: usize) -> Step {
        let Some(src) = self.src.as_ref() else {
            return Step::Eof;
        };
        match unix::splice_nonblocking(src.as_fd(), self.dst, want) {
            Ok(0) => Step::Eof,
            Ok(n) => {
                self.waiting_for_dst = false;
                Step::Moved(n)
            }
            Err(e) => match e.raw_os_error() {
                Some(libc::EAGAIN) => {
                    // Either side may be the one that would block. If we
                    // were already waiting for the destination and it
                    // polled writable, the source is the empty one.
                    if self.waiting_for_dst {
                        self.waiting_for_dst = false;
                        Step::SourceEmpty
                    } else {
                        self.waiting_for_dst = true;
                        Step::DestinationFull
                    }
                }
                Some(libc::EINTR) => Step::Moved(0),
                Some(libc::EPIPE) => Step::DestinationBroken,
                _ => {
                    // EINVAL (O_APPEND file behind a pipe name, odd
                    // devices): copy instead, from now on.
                    self.use_splice = false;
                    self.waiting_for_dst = false;
                    Step::Moved(0)
                }
            },
        }
    }

    fn copy_once(&mut self, want: usize) -> Step {
        let Some(src) = self.src.as_ref() else {
            return Step::Eof;
        };
        let mut buf = Vec::new();
        let n = match unix::read_spare(src.as_fd(), &mut buf, want) {
            Ok(0) => return Step::Eof,
            Ok(n) => n,
            Err(Errno::EAGAIN) => return Step::SourceEmpty,
            Err(Errno::EINTR) => return Step::Moved(0),
            Err(_) => return Step::Eof,
        };
        if let Some(tail) = &mut self.tail {
            tail.extend_from_slice(&buf);
            let excess = tail.len().saturating_sub(TAIL_BYTES);
            tail.drain(..excess);
        }
        self.pending = buf;
        self.pending_from = 0;
        match self.flush_pending() {
            Step::DestinationBroken => Step::DestinationBroken,
            // The bytes are ours now (counted against the budget) even if
            // some still wait for the destination.
            _ => Step::Moved(n),
        }
    }

    /// Write pending bytes without blocking.
    fn flush_pending(&mut self) -> Step {
        let mut moved = 0;
        while self.has_pending() {
            let chunk = &self.pending[self.pending_from..];
            match write_some(self.dst, self.kind, &mut self.nowait_supported, chunk) {
                Ok(0) => {
                    self.waiting_for_dst = true;
                    return Step::DestinationFull;
                }
                Ok(n) => {
                    self.pending_from += n;
                    moved += n;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.waiting_for_dst = true;
                    return Step::DestinationFull;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.drop_pending();
                    return Step::DestinationBroken;
                }
            }
        }
        self.drop_pending();
        Step::Moved(moved)
    }

    /// At the end: move whatever is already buffered, never waiting.
    pub(crate) fn final_drain(&mut self, budget: &mut u64) -> bool {
        let mut overflow = false;
        for _ in 0..1024 {
            match self.pump(budget) {
                Step::Moved(_) => continue,
                Step::Overflow => {
                    overflow = true;
                    break;
                }
                _ => break,
            }
        }
        self.src = None;
        overflow
    }
}

/// One non-blocking write, the way this destination needs.
fn write_some(
    dst: BorrowedFd<'static>,
    kind: DstKind,
    nowait_supported: &mut bool,
    buf: &[u8],
) -> io::Result<usize> {
    match kind {
        DstKind::Plain => nix::unistd::write(dst, buf).map_err(io::Error::from),
        DstKind::Pipe | DstKind::Socket if *nowait_supported => {
            match unix::write_nowait(dst, buf) {
                Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => {
                    *nowait_supported = false;
                    poll_then_write(dst, buf)
                }
                other => other,
            }
        }
        DstKind::Pipe | DstKind::Socket | DstKind::Tty => poll_then_write(dst, buf),
    }
}

/// For destinations without RWF_NOWAIT: write at most PIPE_BUF bytes, and
/// only when poll says there is room.
fn poll_then_write(dst: BorrowedFd<'static>, buf: &[u8]) -> io::Result<usize> {
    let mut fds = [PollFd::new(dst, PollFlags::POLLOUT)];
    match nix::poll::poll(&mut fds, PollTimeout::ZERO) {
        Ok(0) => return Err(io::ErrorKind::WouldBlock.into()),
        Ok(_) => {}
        Err(e) => return Err(e.into()),
    }
    let revents = fds[0].revents().unwrap_or(PollFlags::empty());
    if revents.intersects(PollFlags::POLLERR | PollFlags::POLLHUP)
        && !revents.contains(PollFlags::POLLOUT)
    {
        return Err(io::ErrorKind::BrokenPipe.into());
    }
    let len = buf.len().min(PIPE_BUF_BYTES);
    nix::unistd::write(dst, &buf[..len]).map_err(io::Error::from)
}
