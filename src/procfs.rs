//! Small files the kernel makes (`/proc`, `/proc/sys`) read in the fewest
//! system calls: `std::fs::read_to_string` asks their size first (0 for
//! these) and then reads in growing steps, seven calls for a 300-byte
//! `/proc/self/stat`; here it is open, one read into a page, one read that
//! sees the end, close.

use std::os::fd::AsFd;
use std::path::Path;

/// The largest such file read (a longer one is not what was meant).
const MAX_BYTES: usize = 1 << 20;

/// The whole file as text, or `None` when it cannot be read or is not
/// UTF-8.
pub fn read(path: impl AsRef<Path>) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut buf = Vec::new();
    loop {
        match crate::exec::read_spare(file.as_fd(), &mut buf, 4096) {
            Ok(0) => break,
            Ok(_) if buf.len() > MAX_BYTES => return None,
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return None,
        }
    }
    String::from_utf8(buf).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    #[test]
    fn reads_a_file_whole_and_refuses_what_is_missing() {
        let stat = super::read("/proc/self/stat").unwrap();
        assert!(
            stat.starts_with(&format!("{} (", std::process::id())),
            "{stat}"
        );
        assert!(stat.ends_with('\n'));
        // Longer than one read.
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join("long");
        let text: String = (0..2000).map(|i| format!("{i}\n")).collect();
        std::fs::write(&long, &text).unwrap();
        assert_eq!(super::read(&long).as_deref(), Some(text.as_str()));
        assert!(super::read(dir.path().join("missing")).is_none());
    }
}
