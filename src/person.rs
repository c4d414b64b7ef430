//! Who started an interactive shell: a person (a login program, sshd, a
//! terminal emulator or multiplexer is its parent: the shim then hands it
//! to the real bash, so a login whose shell is the shim keeps working) or
//! anything else, an agent's harness included (still refused).

/// Parents that start shells for a person: (name, matches a longer name
/// too, why).
const PERSON_PARENTS: &[(&str, bool, &str)] = &[
    (
        "login",
        false,
        "login(1) starts a console user's login shell",
    ),
    (
        "sshd",
        true,
        "sshd (and sshd-session) starts a remote user's login shell",
    ),
    (
        "su",
        false,
        "su starts the target user's shell for the person who typed it",
    ),
    (
        "sudo",
        false,
        "sudo -i / -s starts a shell for the person who typed it",
    ),
    (
        "doas",
        false,
        "doas -s starts a shell for the person who typed it",
    ),
    (
        "run0",
        false,
        "run0 starts a shell for the person who typed it",
    ),
    (
        "machinectl",
        false,
        "machinectl shell starts a shell for a person",
    ),
    ("tmux", true, "a tmux pane (its server is \"tmux: server\")"),
    ("screen", false, "a GNU screen window"),
    (
        "SCREEN",
        false,
        "a GNU screen window (the server renames itself)",
    ),
    ("zellij", false, "a zellij pane"),
    (
        "gnome-terminal",
        true,
        "GNOME Terminal (gnome-terminal-server)",
    ),
    ("konsole", false, "KDE's Konsole"),
    ("alacritty", false, "the Alacritty terminal"),
    ("kitty", false, "the kitty terminal"),
    ("xterm", false, "xterm"),
    ("uxterm", false, "xterm"),
    ("urxvt", true, "rxvt-unicode (urxvt, urxvtd)"),
    ("foot", false, "the foot terminal"),
    ("wezterm-gui", false, "WezTerm"),
    ("ghostty", false, "Ghostty"),
    ("xfce4-terminal", false, "Xfce's terminal"),
    ("mate-terminal", false, "MATE's terminal"),
    ("lxterminal", false, "LXDE's terminal"),
    ("tilix", false, "Tilix"),
    ("terminator", false, "Terminator"),
    ("st", false, "suckless st"),
    ("code", false, "VS Code's integrated terminal"),
    ("cursor", false, "Cursor's integrated terminal"),
    ("sshd-session", false, "OpenSSH 9.8's per-session process"),
];

/// The parent process's name, when it starts shells for a person, and
/// why.
pub fn person_parent() -> Option<(String, &'static str)> {
    let ppid = nix::unistd::getppid().as_raw();
    let comm = crate::procfs::read(format!("/proc/{ppid}/comm")).map(|c| c.trim_end().to_string());
    let exe = std::fs::read_link(format!("/proc/{ppid}/exe"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    [comm, exe]
        .into_iter()
        .flatten()
        .find_map(|name| matches(&name).map(|why| (name, why)))
}

fn matches(name: &str) -> Option<&'static str> {
    PERSON_PARENTS
        .iter()
        .find(|(n, longer, _)| name == *n || (*longer && name.starts_with(n)))
        .map(|(_, _, why)| *why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_persons_parents_and_not_a_harness() {
        assert!(matches("tmux: server").is_some());
        assert!(matches("gnome-terminal-").is_some());
        assert!(matches("sshd-session").is_some());
        assert!(matches("login").is_some());
        for harness in [
            "node", "claude", "codex", "python3", "sh", "dash", "bash", "loginx",
        ] {
            assert!(matches(harness).is_none(), "{harness}");
        }
    }
}
