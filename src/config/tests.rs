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
