//! Config layer tests: merge order, sources, `$defaults`, trust, the shared
//! file's limits, and errors that name file, line and key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

struct Fixture {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("proj");
    std::fs::create_dir_all(home.join(".config/automode")).unwrap();
    std::fs::create_dir_all(project.join(".automode")).unwrap();
    Fixture {
        _dir: dir,
        home,
        project,
    }
}

fn load_in(f: &Fixture, inline: Option<&str>) -> Result<Config, ConfigError> {
    load(&LoadInput {
        managed: None,
        home: Some(&f.home),
        xdg_config_home: None,
        cwd: Some(&f.project),
        inline,
    })
}

fn write(p: &Path, text: &str) {
    std::fs::write(p, text).unwrap();
}

#[test]
fn layers_merge_with_sources() {
    let f = fixture();
    write(
        &f.home.join(".config/automode/config.json"),
        r#"{"permissions": {"deny": ["bash(curl*)"], "allow": ["bash(make*)"]}, "timeoutSeconds": 120}"#,
    );
    write(
        &f.project.join(".automode/config.json"),
        r#"{"permissions": {"ask": ["bash(git push*)"], "allow": ["bash(*)"]}, "autoMode": {"enabled": false}}"#,
    );
    let cfg = load_in(&f, Some(r#"{"classifyReadOnlyTools": true}"#)).unwrap();
    assert_eq!(cfg.deny.len(), 1);
    assert!(matches!(cfg.deny[0].source, Source::Global(_)));
    assert_eq!(cfg.ask.len(), 1);
    assert!(matches!(cfg.ask[0].source, Source::ProjectShared(_)));
    // The shared file can neither allow nor disable.
    assert_eq!(cfg.allow.len(), 1);
    assert!(cfg.enabled.value);
    assert!(
        cfg.diagnostics
            .iter()
            .any(|d| d.contains("permissions.allow is ignored"))
    );
    assert!(
        cfg.diagnostics
            .iter()
            .any(|d| d.contains("autoMode.enabled"))
    );
    assert_eq!(cfg.timeout_seconds.as_ref().map(|t| t.value), Some(120.0));
    assert!(cfg.classify_read_only_tools.value);
    assert_eq!(cfg.classify_read_only_tools.source, Source::Inline);
}

#[test]
fn local_file_only_for_trusted_projects() {
    let f = fixture();
    write(
        &f.project.join(".automode/local.json"),
        r#"{"autoMode": {"enabled": false}}"#,
    );
    let cfg = load_in(&f, None).unwrap();
    assert!(cfg.enabled.value);
    assert!(cfg.diagnostics.iter().any(|d| d.contains("not trusted")));
    trust::set(&f.home.join(".config/automode"), &f.project, true).unwrap();
    let cfg = load_in(&f, None).unwrap();
    assert!(!cfg.enabled.value);
    assert!(matches!(cfg.enabled.source, Source::ProjectLocal(_)));
    trust::set(&f.home.join(".config/automode"), &f.project, false).unwrap();
    assert!(load_in(&f, None).unwrap().enabled.value);
}

#[test]
fn lists_replace_builtins_unless_defaults_is_listed() {
    let f = fixture();
    write(
        &f.home.join(".config/automode/config.json"),
        r#"{"protectedPaths": ["secrets/"], "autoMode": {"soft_deny": ["$defaults", "No emails."]}}"#,
    );
    let cfg = load_in(&f, None).unwrap();
    assert_eq!(cfg.protected_paths.len(), 1);
    assert_eq!(cfg.protected_paths[0].value, "secrets/");
    assert_eq!(cfg.classifier_soft_deny.len(), DEFAULT_SOFT_DENY.len() + 1);
    assert_eq!(
        cfg.classifier_soft_deny.last().map(|s| s.value.as_str()),
        Some("No emails.")
    );
}

#[test]
fn unknown_keys_and_bad_json_name_file_line_and_key() {
    let f = fixture();
    let global = f.home.join(".config/automode/config.json");
    write(
        &global,
        "{\n  \"permissions\": {\n    \"deny\": [],\n    \"alow\": []\n  }\n}\n",
    );
    let e = load_in(&f, None).unwrap_err();
    assert!(e.file.ends_with("config.json"), "{e}");
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("`alow`"), "{e}");
    write(&global, "{\n  \"timeoutSeconds\": 10,\n}\n");
    let e = load_in(&f, None).unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    write(&global, "[1, 2]");
    assert!(load_in(&f, None).is_err());
    write(&global, "{}");
    let e = load_in(&f, Some("{\"nope\": 1}")).unwrap_err();
    assert_eq!(e.file, "AUTOMODE_SETTINGS_JSON");
}

#[test]
fn type_and_range_errors_speak_the_users_terms_with_file_and_line() {
    let f = fixture();
    let global = f.home.join(".config/automode/config.json");
    write(&global, "{\n  \"timeoutSeconds\": \"300\"\n}\n");
    let e = load_in(&f, None).unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    assert_eq!(
        e.message, "expected a number of seconds, got the string \"300\"",
        "{e}"
    );
    for bad in ["9000", "0", "-5", "1.2345"] {
        write(&global, &format!("{{\n\n  \"timeoutSeconds\": {bad}\n}}\n"));
        let e = load_in(&f, None).unwrap_err();
        assert_eq!(e.line, 3, "{bad}: {e}");
        assert!(e.message.contains("at most 7200 seconds"), "{bad}: {e}");
    }
    write(
        &global,
        "{\"timeoutSeconds\": 2.5, \"outputLimitBytes\": 1000}",
    );
    let cfg = load_in(&f, None).unwrap();
    assert_eq!(cfg.timeout_seconds.map(|t| t.value), Some(2.5));
    write(&global, "{\"outputLimitBytes\": 0}");
    let e = load_in(&f, None).unwrap_err();
    assert!(e.message.contains("outputLimitBytes must be from 1"), "{e}");
    write(&global, "{\"autoMode\": {\"enabled\": \"yes\"}}");
    let e = load_in(&f, None).unwrap_err();
    assert_eq!(
        e.message, "expected true or false, got the string \"yes\"",
        "{e}"
    );
    write(&global, "{\"permissions\": {\"deny\": \"rm\"}}");
    let e = load_in(&f, None).unwrap_err();
    assert_eq!(
        e.message, "expected a list (a JSON array), got the string \"rm\"",
        "{e}"
    );
    // sandbox.credentials names tools of the credentials table only.
    write(
        &global,
        "{\"sandbox\": {\"credentials\": [\"npm\", \"bogus\"]}}",
    );
    let e = load_in(&f, None).unwrap_err();
    assert!(e.message.contains("\"bogus\" is not a tool"), "{e}");
    assert!(e.message.contains("npm, yarn, pip"), "{e}");
    write(&global, "{\"sandbox\": {\"credentials\": [\"npm\"]}}");
    let cfg = load_in(&f, None).unwrap();
    assert_eq!(cfg.sandbox.credentials[0].value, "npm");
}

#[test]
fn only_the_user_and_the_harness_set_the_sandbox() {
    let f = fixture();
    write(
        &f.home.join(".config/automode/config.json"),
        r#"{"sandbox": {"mode": "require", "write": ["$defaults", "/srv/data"], "maxFileBytes": 2097152}}"#,
    );
    // A project must never widen its own sandbox.
    write(
        &f.project.join(".automode/config.json"),
        r#"{"sandbox": {"mode": "off", "write": ["/"]}}"#,
    );
    let cfg = load_in(&f, None).unwrap();
    assert_eq!(cfg.sandbox.mode.value, crate::sandbox::Mode::Require);
    assert_eq!(cfg.sandbox.max_file_bytes.value, 2_097_152);
    let write: Vec<&str> = cfg.sandbox.write.iter().map(|w| w.value.as_str()).collect();
    assert_eq!(write, ["/tmp", "$TMPDIR", "/dev/shm", "/srv/data"]);
    assert!(
        cfg.diagnostics
            .iter()
            .any(|d| d.contains("ignored sandbox")),
        "{:?}",
        cfg.diagnostics
    );
    let cfg = load_in(&f, Some(r#"{"sandbox": {"mode": "off"}}"#)).unwrap();
    assert_eq!(cfg.sandbox.mode.value, crate::sandbox::Mode::Off);
    let e = load_in(&f, Some(r#"{"sandbox": {"mode": "sometimes"}}"#)).unwrap_err();
    assert!(e.message.contains("unknown variant"), "{e}");
    let e = load_in(&f, Some(r#"{"sandbox": {"maxFileBytes": 10}}"#)).unwrap_err();
    assert!(e.message.contains("at least 1048576"), "{e}");
}

fn load_managed(f: &Fixture, managed: &Path, inline: Option<&str>) -> Result<Config, ConfigError> {
    load(&LoadInput {
        managed: Some(managed),
        home: Some(&f.home),
        xdg_config_home: None,
        cwd: Some(&f.project),
        inline,
    })
}

/// A managed policy in a root-owned directory of its own (the tests run
/// as root, as CI does).
fn managed_file(f: &Fixture, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = f._dir.path().join("etc-automode");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let p = dir.join("managed.json");
    write(&p, text);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    p
}

#[test]
fn the_managed_policy_wins_and_its_locks_hold() {
    let f = fixture();
    let m = managed_file(
        &f,
        r#"{"locked": ["sandbox.mode", "autoMode.classifierModel", "permissions.deny", "permissions.allow", "sandbox.readDeny"],
            "sandbox": {"mode": "require", "readDeny": ["/srv/secrets"]},
            "autoMode": {"classifierModel": "openai/gpt-5-mini", "allowOff": false},
            "permissions": {"deny": ["bash(curl *)"]}}"#,
    );
    write(
        &f.home.join(".config/automode/config.json"),
        r#"{"sandbox": {"mode": "off", "readDeny": ["/srv/more"], "write": ["/opt"]},
            "autoMode": {"classifierModel": "none", "allowOff": true},
            "permissions": {"deny": ["bash(wget *)"], "allow": ["bash(ls *)"]}}"#,
    );
    let cfg = load_managed(&f, &m, Some(r#"{"sandbox": {"mode": "off"}}"#)).unwrap();
    assert_eq!(cfg.sandbox.mode.value, crate::sandbox::Mode::Require);
    assert_eq!(cfg.sandbox.mode.source, Source::Managed(m.clone()));
    assert_eq!(
        cfg.classifier_model.as_ref().unwrap().value,
        "openai/gpt-5-mini"
    );
    // A locked list that only tightens accumulates; one that loosens keeps
    // the managed value.
    let deny: Vec<&str> = cfg.deny.iter().map(|r| r.pattern.as_str()).collect();
    assert_eq!(deny, ["bash(curl *)", "bash(wget *)"]);
    assert!(cfg.allow.is_empty());
    let hidden: Vec<&str> = cfg
        .sandbox
        .read_deny
        .iter()
        .map(|r| r.value.as_str())
        .collect();
    assert_eq!(hidden, ["/srv/secrets", "/srv/more"]);
    // Not locked: the user's value stands.
    assert!(cfg.sandbox.write.iter().any(|w| w.value == "/opt"));
    // allowOff is the managed policy's alone.
    assert!(!cfg.allow_off.value);
    assert!(cfg.switch_locked().is_some());
    let notes = cfg.diagnostics.join("\n");
    for key in [
        "sandbox.mode",
        "autoMode.classifierModel",
        "permissions.allow",
    ] {
        assert!(
            notes.contains(&format!("{key} is ignored: {} locks it", m.display())),
            "{key}: {notes}"
        );
    }
    assert!(notes.contains("config.json"), "{notes}");
    assert!(
        notes.contains("AUTOMODE_SETTINGS_JSON: sandbox.mode is ignored"),
        "{notes}"
    );
    assert!(notes.contains("autoMode.allowOff"), "{notes}");
    // allowOff: false locks autoMode.enabled too.
    assert_eq!(cfg.locked.len(), 6);
    let m = managed_file(&f, r#"{"autoMode": {"allowOff": false}}"#);
    let cfg = load_managed(&f, &m, Some(r#"{"autoMode": {"enabled": false}}"#)).unwrap();
    assert!(cfg.enabled.value, "a user layer cannot turn it off");
}

#[test]
fn a_managed_policy_others_can_write_or_not_roots_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    let m = managed_file(&f, r#"{"sandbox": {"mode": "require"}}"#);
    assert!(load_managed(&f, &m, None).is_ok());
    std::fs::set_permissions(&m, std::fs::Permissions::from_mode(0o666)).unwrap();
    let e = load_managed(&f, &m, None).unwrap_err();
    assert!(e.message.contains("writable by others"), "{e}");
    std::fs::set_permissions(&m, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::os::unix::fs::chown(&m, Some(65534), None).unwrap();
    let e = load_managed(&f, &m, None).unwrap_err();
    assert!(e.message.contains("not root"), "{e}");
    std::os::unix::fs::chown(&m, Some(0), None).unwrap();
    // A missing file is no managed layer; a bad lock is an error.
    assert!(load_managed(&f, &f.home.join("nothing.json"), None).is_ok());
    let m = managed_file(&f, r#"{"locked": ["sandbox.mood"]}"#);
    let e = load_managed(&f, &m, None).unwrap_err();
    assert!(e.message.contains("sandbox.mood"), "{e}");
}

#[test]
fn ask_settings_are_checked() {
    let f = fixture();
    for (text, want) in [
        (
            r#"{"autoMode": {"approvalTtlSeconds": 0}}"#,
            "approvalTtlSeconds",
        ),
        (
            r#"{"autoMode": {"askTimeoutSeconds": 0}}"#,
            "askTimeoutSeconds",
        ),
        (
            r#"{"autoMode": {"askCommand": "notify-me"}}"#,
            "absolute program path",
        ),
    ] {
        let e = load_in(&f, Some(text)).unwrap_err();
        assert!(e.message.contains(want), "{text}: {e}");
    }
    let cfg = load_in(
        &f,
        Some(
            r#"{"autoMode": {"askCommand": ["/usr/bin/ask", "--chat"], "approvalTtlSeconds": 60}}"#,
        ),
    )
    .unwrap();
    assert_eq!(cfg.ask_command.unwrap().value, ["/usr/bin/ask", "--chat"]);
    assert_eq!(cfg.approval_ttl_seconds.value, 60);
    // Not from the project: an agent can write it.
    write(
        &f.project.join(".automode/config.json"),
        r#"{"autoMode": {"askCommand": "/bin/true"}}"#,
    );
    assert!(load_in(&f, None).unwrap().ask_command.is_none());
}
