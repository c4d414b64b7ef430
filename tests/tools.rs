//! Real tools inside the sandbox and its network wall (auto mode off, so
//! only the sandbox is tested; the wall is the default): a venv with `pip
//! install` from PyPI, `cargo build` of a crate with one dependency from
//! crates.io, `npm install` from the npm registry, `git clone` from
//! GitHub where it is reachable, `git init/add/commit`, `make`. Each in a fresh temp home and
//! project. The registries are reachable in CI; elsewhere a test whose
//! registry cannot be reached is skipped, saying so (under `CI=true` it
//! fails instead).

use std::net::ToSocketAddrs;
use std::path::Path;
use std::time::Duration;

use crate::support::{Env, KillOnDrop, landlock_or_skip, run, skip, tool_or_skip};

fn reachable(host: &str) -> bool {
    (host, 443)
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .is_some_and(|addr| {
            std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5)).is_ok()
        })
}

fn reachable_or_skip(test: &str, host: &str) -> bool {
    let ok = (host, 443)
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .is_some_and(|addr| {
            std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5)).is_ok()
        });
    if !ok {
        skip(test, &format!("{host} cannot be reached"));
    }
    ok && landlock_or_skip(test)
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// The tool smoke environment: a fresh home, auto mode off, sandbox on,
/// a long time limit.
fn tool_env() -> Env {
    Env::supervision_only().with_env("AUTOMODE_TIMEOUT", "600")
}

#[test]
fn git_and_make_work_in_the_sandbox() {
    if !landlock_or_skip("git and make") {
        return;
    }
    let env = tool_env();
    write(
        &env.work.join("hello.c"),
        "#include <stdio.h>\nint main(void) { puts(\"hello from make\"); return 0; }\n",
    );
    write(
        &env.work.join("Makefile"),
        "hello: hello.c\n\tcc -o hello hello.c\nrun: hello\n\t./hello\n",
    );
    let r = run(&mut env.script(
        "git init -q -b main && git add -A && \
         git -c user.name=t -c user.email=t@example.com commit -qm init && \
         git log --oneline | wc -l && git status --short && make -s run",
    ));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("hello from make"), "{}", r.stdout());
    assert!(
        !r.stderr().contains("refused by automode's sandbox"),
        "{}",
        r.stderr()
    );
}

#[test]
fn pip_installs_into_a_venv_in_the_sandbox() {
    if !reachable_or_skip("pip", "pypi.org") {
        return;
    }
    let env = tool_env();
    let r = run(&mut env.script(
        "python3 -m venv .venv && .venv/bin/pip install --quiet --disable-pip-version-check six \
         && .venv/bin/python -c 'import six; print(\"six\", six.__version__)'",
    ));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("six "), "{}", r.stdout());
}

#[test]
fn npm_installs_in_the_sandbox() {
    if tool_or_skip("npm", "npm").is_none() {
        return;
    }
    if !reachable_or_skip("npm", "registry.npmjs.org") {
        return;
    }
    let env = tool_env();
    let r = run(&mut env.script(
        "npm init -y > /dev/null && npm install --no-audit --no-fund --loglevel=error is-number \
         && node -e 'console.log(\"is-number\", require(\"is-number\")(5))'",
    ));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("is-number true"), "{}", r.stdout());
    assert!(
        env.home.join(".npm").is_dir(),
        "npm's cache was made for the grant"
    );
}

#[test]
fn cargo_builds_a_crate_with_a_dependency_in_the_sandbox() {
    let Some(cargo) = tool_or_skip("cargo", "cargo") else {
        return;
    };
    if !reachable_or_skip("cargo", "index.crates.io") {
        return;
    }
    // rustup's proxy finds its toolchains in the real RUSTUP_HOME; the
    // crates go to a fresh CARGO_HOME in the temp dir.
    let rustup_home = std::env::var("RUSTUP_HOME").ok().or_else(|| {
        std::env::var("HOME")
            .ok()
            .map(|h| format!("{h}/.rustup"))
            .filter(|p| Path::new(p).is_dir())
    });
    let mut env = tool_env();
    let cargo_home = env.root().join("cargo-home");
    std::fs::create_dir_all(&cargo_home).unwrap();
    env.path = format!("{}:{}", cargo.parent().unwrap().display(), env.path);
    let mut env = env.with_env("CARGO_HOME", &cargo_home.display().to_string());
    if let Some(r) = rustup_home {
        env = env.with_env("RUSTUP_HOME", &r);
    }
    write(
        &env.work.join("Cargo.toml"),
        "[package]\nname = \"smoke\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nitoa = \"1\"\n",
    );
    write(
        &env.work.join("src/main.rs"),
        "fn main() { let mut b = itoa::Buffer::new(); println!(\"itoa {}\", b.format(42)); }\n",
    );
    let r = run(&mut env.script("cargo run --quiet"));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout(), "itoa 42\n");
}

#[test]
fn git_clones_from_github_through_the_wall() {
    // GitHub is no package registry: CI reaches only those, so this runs
    // where GitHub can be reached and is skipped elsewhere, CI or not.
    if !reachable("github.com") {
        eprintln!("SKIPPED git clone: github.com cannot be reached from here");
        return;
    }
    if !landlock_or_skip("git clone") {
        return;
    }
    let env = tool_env();
    let r = run(&mut env.script(
        "git clone --quiet --depth 1 https://github.com/octocat/Hello-World.git hello && cat hello/README",
    ));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(r.stdout().contains("Hello"), "{}", r.stdout());
}

/// husky's hooks run later outside the sandbox: `npx husky init` makes
/// nothing until the user approves it (the refusal says how to ask),
/// then works; `npm install` in the husky project keeps working.
#[test]
fn husky_init_needs_the_users_approval_then_works() {
    use crate::support::llm::{ALLOW, MockLlm, oa_call, oa_text};
    if tool_or_skip("npm", "npm").is_none() || !reachable_or_skip("husky", "registry.npmjs.org") {
        return;
    }
    let mock = MockLlm::start(vec![oa_text("1", "stop"), oa_call(ALLOW, "stop")]);
    let env = Env::new()
        .with_env("AUTOMODE_TIMEOUT", "600")
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            &crate::classifier::settings(&mock, "openai", serde_json::json!({})),
        )
        .with_env("MOCK_KEY", "sk-mock-0123456789abcdefghij");
    let off = |script: &str| {
        let mut c = env.script(script);
        c.env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"autoMode": {"enabled": false}}"#,
        );
        run(&mut c)
    };
    let r = off("git init -q -b main && npm init -y > /dev/null && \
         npm install --no-audit --no-fund --loglevel=error -D husky");
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    // Not approved: nothing of husky's stays, and the agent is told how
    // to ask.
    let r = off("npx husky init");
    assert!(!env.work.join(".husky").exists(), "{}", r.stderr());
    assert!(
        !std::fs::read_to_string(env.work.join(".git/config"))
            .unwrap()
            .contains("hooksPath"),
    );
    let r = run(&mut env.script("npx husky init"));
    assert!(
        r.stderr().contains("AUTOMODE_WRITE="),
        "the way to ask: {}",
        r.stderr()
    );
    assert!(!env.work.join(".husky").exists());
    // Approved (the classifier allows it): husky installs its hooks.
    let work = env.work.display().to_string();
    let r = run(&mut env.script(&format!(
        "AUTOMODE_WRITE={work}/.husky:{work}/.git/config npx husky init"
    )));
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(
        env.work.join(".husky/pre-commit").is_file(),
        "{}",
        r.stderr()
    );
    assert!(
        std::fs::read_to_string(env.work.join(".git/config"))
            .unwrap()
            .contains("hooksPath = .husky/_"),
        "{}",
        r.stderr()
    );
    // The project's install (its prepare script runs husky) still works.
    let r = off("npm install --no-audit --no-fund --loglevel=error");
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
}

/// A registry on loopback that records each request's path and
/// `Authorization` header and answers 404.
struct Registry {
    port: u16,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Registry {
    fn start() -> Registry {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for mut conn in listener.incoming().flatten() {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match conn.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&buf).to_string();
                let path = text.split(' ').nth(1).unwrap_or("").to_string();
                let auth = text
                    .lines()
                    .find(|l| l.to_ascii_lowercase().starts_with("authorization:"))
                    .map_or("none".to_string(), |l| l[14..].trim().to_string());
                log.lock().unwrap().push(format!("{path} auth={auth}"));
                let _ = conn.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                );
            }
        });
        Registry { port, seen }
    }

    fn seen(&self) -> String {
        self.seen.lock().unwrap().join("\n")
    }
}

/// A tool's own credentials are that tool's: npm honours the registry a
/// user's `~/.npmrc` names but does not get its token (unless
/// `sandbox.credentials` names npm), `gh` reads its login when it runs
/// as itself, and a project script in the same home reads neither; where
/// namespaces exist and with them simulated away.
#[test]
fn tools_read_their_own_settings_and_logins_and_scripts_do_not() {
    if !landlock_or_skip("credentials") {
        return;
    }
    if tool_or_skip("credentials", "npm").is_none() || tool_or_skip("credentials", "gh").is_none() {
        return;
    }
    let registry = Registry::start();
    let port = registry.port;
    let settings = |credentials: &[&str]| {
        serde_json::json!({
            "permissions": {"allow": ["Bash(gh auth token)", "Bash(python3 leak.py)"]},
            "sandbox": {"credentials": credentials, "network": {"hostPorts": [port]}},
        })
        .to_string()
    };
    for namespaces in [true, false] {
        let env = tool_env().with_env("AUTOMODE_SETTINGS_JSON", &settings(&[]));
        let npmrc = format!(
            "registry=http://127.0.0.1:{port}/\n//127.0.0.1:{port}/:_authToken=npm_SECRET_TOKEN\n"
        );
        // Kept in a dotfiles repository, linked from the home.
        write(&env.home.join("dotfiles/npmrc"), &npmrc);
        std::os::unix::fs::symlink("dotfiles/npmrc", env.home.join(".npmrc")).unwrap();
        write(
            &env.root().join("config/gh/hosts.yml"),
            "github.com:\n    oauth_token: gho_SECRET_LOGIN\n    user: someone\n    git_protocol: https\n",
        );
        write(
            &env.work.join("package.json"),
            "{\"name\": \"p\", \"version\": \"1.0.0\"}\n",
        );
        write(
            &env.work.join("leak.py"),
            &format!(
                "import os\nfor p in ['{h}/.npmrc', '{h}/dotfiles/npmrc', '{c}/gh/hosts.yml']:\n    try:\n        print(open(p).read())\n    except OSError as e:\n        print('refused', p, e.errno)\n",
                h = env.home.display(),
                c = env.root().join("config").display()
            ),
        );
        let shim = |script: &str, env: &Env| {
            if namespaces {
                run(&mut env.script(script))
            } else {
                let mut c = env.command("python3");
                c.arg(crate::support::helper("no_userns.py"))
                    .arg(env.shims.join("bash"))
                    .args(["-c", script]);
                run(&mut c)
            }
        };
        let what = if namespaces {
            "namespaces"
        } else {
            "no namespaces"
        };
        // npm: the registry from ~/.npmrc, without the token.
        let r = shim(
            "npm install --no-audit --no-fund left-pad-for-automode-tests",
            &env,
        );
        assert_ne!(r.code(), Some(0), "{what}: the registry answers 404");
        let seen = registry.seen();
        assert!(
            seen.contains("/left-pad-for-automode-tests auth=none"),
            "{what}: {seen}\n{}",
            r.stderr()
        );
        assert!(!seen.contains("SECRET"), "{what}: {seen}");
        // gh as itself reads its login.
        let r = shim("gh auth token", &env);
        assert_eq!(
            r.stdout().trim(),
            "gho_SECRET_LOGIN",
            "{what}: {}",
            r.stderr()
        );
        // A project script reads neither.
        let r = shim("python3 leak.py", &env);
        assert_eq!(r.code(), Some(0), "{what}: {}", r.stderr());
        assert!(!r.stdout().contains("SECRET"), "{what}: {}", r.stdout());
        assert_eq!(
            r.stdout().matches("refused").count(),
            // The settings read filtered where the namespace shows them.
            if namespaces { 1 } else { 3 },
            "{what}: {}",
            r.stdout()
        );
        // Nor gh's login with a script beside it (allowed, and run).
        let r = shim("gh auth token; python3 leak.py", &env);
        assert!(r.stdout().contains("refused"), "{what}: {}", r.stderr());
        assert!(!r.stdout().contains("SECRET"), "{what}: {}", r.stdout());
        // With sandbox.credentials naming npm, npm gets its token.
        let env = env.with_env("AUTOMODE_SETTINGS_JSON", &settings(&["npm"]));
        let r = shim(
            "npm install --no-audit --no-fund left-pad-for-automode-tests",
            &env,
        );
        assert_ne!(r.code(), Some(0));
        let seen = registry.seen();
        assert!(
            seen.contains("auth=Bearer npm_SECRET_TOKEN"),
            "{what}: {seen}\n{}",
            r.stderr()
        );
        registry.seen.lock().unwrap().clear();
    }
}

/// A developer's first day, through the shim with auto mode on and no
/// classifier (so anything that needed review would stop with code 121):
/// a venv activated for `pip install -e .` and `pytest`, a tool installed
/// with npm and run with `npx`, a script the line writes and runs, git's
/// identity set and a commit, a loopback server one command starts and
/// the next reaches. Every step runs without a stop.
#[test]
fn a_first_day_runs_without_a_stop() {
    if !reachable_or_skip("first day", "pypi.org") {
        return;
    }
    let npm = tool_or_skip("first day: npx", "npm").is_some()
        && reachable_or_skip("first day: npx", "registry.npmjs.org");
    let env = Env::new()
        .with_env(
            "AUTOMODE_SETTINGS_JSON",
            r#"{"autoMode": {"classifierModel": "none"}}"#,
        )
        .with_env("AUTOMODE_TIMEOUT", "600")
        .with_env("AUTOMODE_SESSION", "first-day");
    let step = |script: &str| {
        let r = run(&mut env.script(script));
        assert_eq!(r.code(), Some(0), "{script}\n{}", r.stderr());
        r.stdout()
    };
    write(
        &env.work.join("pyproject.toml"),
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n\n\
         [project]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[tool.setuptools]\npackages = [\"calc\"]\n",
    );
    write(
        &env.work.join("calc/__init__.py"),
        "def add(a, b):\n    return a + b\n",
    );
    write(
        &env.work.join("tests/test_calc.py"),
        "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    );
    step("python3 -m venv .venv");
    step(
        "source .venv/bin/activate && pip install -q --disable-pip-version-check pytest \
         && pip install -q --disable-pip-version-check -e . && pytest -q",
    );
    if npm {
        step(
            "npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error -D semver",
        );
        let out = step("npx semver 1.2.3");
        assert!(out.contains("1.2.3"), "{out}");
    }
    let out =
        step("cat > run.sh <<'EOF'\necho ran from the line\nEOF\nchmod +x run.sh && ./run.sh");
    assert_eq!(out, "ran from the line\n");
    step(
        "git init -q && git config user.email dev@example.com && git config user.name Dev \
         && git config alias.last 'log -1 --format=%s' \
         && git add calc tests pyproject.toml && git commit -qm first",
    );
    let config = std::fs::read_to_string(env.work.join(".git/config")).unwrap();
    assert!(config.contains("email = dev@example.com"), "{config}");
    assert!(config.contains("last = log -1"), "{config}");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let marker = format!("http.server {port} ");
    let _stop = KillOnDrop(marker.clone());
    step(&format!(
        "python3 -m http.server {port} --bind 127.0.0.1 >/dev/null 2>&1 &"
    ));
    let mut got = String::new();
    for _ in 0..50 {
        let r = run(&mut env.script(&format!("curl -s http://127.0.0.1:{port}/pyproject.toml")));
        assert_ne!(r.code(), Some(121), "{}", r.stderr());
        got = r.stdout();
        if got.contains("calc") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(got.contains("name = \"calc\""), "{got}");
}
