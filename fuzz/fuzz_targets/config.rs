//! Fuzz target: configuration files. The input is written as the global
//! file, as the project-shared file and given as `AUTOMODE_SETTINGS_JSON`,
//! and loaded with every layer. Never a panic; an error names a line and
//! column inside the text; the project-shared file never adds an allow
//! rule, never turns auto mode off and never touches the sandbox (it may
//! only add deny and ask rules).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use automode::config::{self, LoadInput};
use libfuzzer_sys::fuzz_target;

fn root() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("automode-fuzz-config-{}", std::process::id()));
        for d in ["home/.config/automode", "work/.automode", "empty-home"] {
            std::fs::create_dir_all(root.join(d)).expect("fixture");
        }
        std::fs::create_dir_all(root.join("work/.git")).expect("fixture");
        root
    })
}

fn within(text: &str, e: &config::ConfigError) {
    let lines = text.lines().count().max(1) + 1;
    assert!(e.line <= lines, "line {} past the text's {lines}: {e:?}", e.line);
}

fuzz_target!(|data: &[u8]| {
    if data.len() > 8192 {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let root = root();
    let work = root.join("work");
    let shared = work.join(".automode/config.json");
    let global = root.join("home/.config/automode/config.json");
    // Inline alone.
    let _ = std::fs::remove_file(&shared);
    let _ = std::fs::remove_file(&global);
    let empty = root.join("empty-home");
    match config::load(&LoadInput {
        managed: None,
        home: Some(&empty),
        xdg_config_home: None,
        cwd: Some(&work),
        inline: Some(text),
    }) {
        Ok(_) => {}
        Err(e) => within(text, &e),
    }
    // The global file.
    std::fs::write(&global, text).expect("write");
    let home = root.join("home");
    if let Err(e) = config::load(&LoadInput {
        managed: None,
        home: Some(&home),
        xdg_config_home: None,
        cwd: Some(&work),
        inline: None,
    }) {
        within(text, &e);
    }
    std::fs::remove_file(&global).expect("remove");
    // The project-shared file: it may only tighten.
    std::fs::write(&shared, text).expect("write");
    let base = config::load(&LoadInput {
        managed: None,
        home: Some(&empty),
        xdg_config_home: None,
        cwd: Some(&root.join("empty-home")),
        inline: None,
    })
    .expect("the defaults load");
    match config::load(&LoadInput {
        managed: None,
        home: Some(&empty),
        xdg_config_home: None,
        cwd: Some(&work),
        inline: None,
    }) {
        Ok(cfg) => {
            assert_eq!(cfg.allow.len(), base.allow.len(), "a project added allow rules: {text:?}");
            assert!(cfg.enabled.value, "a project turned auto mode off: {text:?}");
            assert_eq!(cfg.sandbox, base.sandbox, "a project changed the sandbox: {text:?}");
            assert_eq!(
                cfg.allow_inside_working_directory.value, base.allow_inside_working_directory.value,
                "a project widened the writes it allows: {text:?}"
            );
        }
        Err(e) => within(text, &e),
    }
});
