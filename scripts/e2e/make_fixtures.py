#!/usr/bin/env python3
"""Turn the recording shell's logs of an e2e run into fixtures/<harness>/*.json.

Called by `scripts/e2e-harnesses.sh --record-fixtures`. Each fixture is one shell invocation:
  {harness, version, variant, kind, turn, description, payload, argv, env, env_keys, stdio, cwd, parent}
with machine paths replaced by placeholders ({SHIM} {SHIM_DIR} {HOME} {PROJECT} {PROJECT_SLUG} {PREFIX}
{HARNESS_PKG} {CACHE} {TMP}). `payload` is the agent command the invocation carries (what a
payload extractor must return), or null for harness scaffolding (probe, snapshot builder...).
session-<variant>.json lists a whole run's invocations in order (several turns in a row).
"""

import argparse
import json
import os
import re
import shutil

KEEP_TURNS = {  # variant -> turns to keep (None = all)
    "default": None, "nosnap": None, "hook": [], "envfile": ["ls", "heredoc"],
    "prefix": ["ls", "pipe_quotes", "heredoc"],
}
WRAPPER_TURNS = ["pipe_quotes", "heredoc", "stdin_redirect", "deny_bashrc"]
VARIANT_TEXT = {
    "default": "default setup",
    "nosnap": "no shell snapshot (Claude Code: ~/.claude/shell-snapshots is a file so the snapshot cannot be "
              "created; Codex: --disable shell_snapshot)",
    "hook": "PreToolUse hook configured",
    "envfile": "a SessionStart hook wrote `export E2E_HOOKVAR=from-session-start` to $CLAUDE_ENV_FILE",
    "prefix": "shell command prefix configured (Claude Code: CLAUDE_CODE_SHELL_PREFIX={PREFIX}, a script "
              "that runs `/bin/bash -c \"$1\"`; pi: settings shellCommandPrefix)",
}


class Sub:
    def __init__(self, pairs):
        self.pairs = sorted(((k, v) for k, v in pairs if k), key=lambda kv: -len(kv[0]))

    def __call__(self, x):
        if isinstance(x, str):
            for k, v in self.pairs:
                x = x.replace(k, v)
            return re.sub(r"(socket|pipe):\[\d+\]", r"\1", x)
        if isinstance(x, list):
            return [self(y) for y in x]
        if isinstance(x, dict):
            return {k: self(v) for k, v in x.items()}
        return x


def classify(h, argv):
    """-> (kind, is_command). kind names harness scaffolding; command invocations get a turn."""
    a = argv[1:]
    s = a[-1] if a else ""
    if h == "claude":
        if a == ["-c", "env"]:
            return "probe-env", False
        if a[:2] == ["-c", "-l"] and s.startswith("SNAPSHOT_FILE="):
            return "snapshot-builder", False
        if a[:2] == ["-c", "-l"]:
            return "wrapped-login", True
        return "wrapped", True
    if h == "codex":
        if a[:1] == ["-lc"] and "# Snapshot file" in s:
            return "snapshot-builder", False
        if a[:1] == ["-c"] and s.startswith("set -e; ."):
            return "snapshot-validate", False
        if a[:1] == ["-c"] and "__CODEX_SNAPSHOT" in s:
            return "wrapper", True
        if a[:1] == ["-lc"]:
            return "login", True
        return "reexec", True
    if h == "gemini":
        return "wrapped", True
    return "cmd", True


def describe(h, variant, kind, turn, cmd):
    base = {
        "probe-env": "spawn-environment probe, once at start",
        "snapshot-builder": "shell-snapshot builder script, once per session (login shell)",
        "snapshot-validate": "snapshot validation: sources the freshly written snapshot with set -e",
        "wrapped": "the agent command inside the harness's wrapper script",
        "wrapped-login": "the agent command inside the wrapper, no snapshot: -c -l, no `source <snapshot>`",
        "wrapper": "snapshot wrapper: restores env around `. <snapshot>`, then `exec <shell> -c '<cmd>'`",
        "reexec": "the re-exec at the end of the wrapper (same process): raw agent command",
        "login": "raw agent command as a login shell (-lc): before the snapshot is ready, or no snapshot",
        "cmd": "raw agent command",
    }[kind]
    d = "%s, %s: %s" % (h, VARIANT_TEXT[variant], base)
    if turn:
        d += "; turn %r: %s" % (turn, json.dumps(cmd))
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--case", action="append", default=[], help="name:harness:variant:version:dir")
    a = ap.parse_args()
    turns = [t for t in json.load(open(a.scenario, encoding="utf-8"))["turns"] if "cmd" in t]

    written = {}
    for spec in a.case:
        name, h, variant, version, d = spec.split(":", 4)
        home, proj = os.path.join(d, "home"), os.path.join(d, "project")
        sub = Sub([(a.shim, "{SHIM}"), (os.path.dirname(a.shim), "{SHIM_DIR}"), (os.path.join(a.run, "standin", "bash"), "{SHIM}"),
                   (os.path.join(a.run, "prefix"), "{PREFIX}"), (home, "{HOME}"), (proj, "{PROJECT}"),
                   (re.sub(r"[^A-Za-z0-9]", "-", proj), "{PROJECT_SLUG}"),
                   (os.path.join(a.cache, "%s-%s" % (h, version)), "{HARNESS_PKG}"),
                   (a.cache, "{CACHE}"), (a.run, "{TMP}")])
        outdir = os.path.join(a.out, h)
        if h not in written:
            shutil.rmtree(outdir, ignore_errors=True)
            os.makedirs(outdir)
            written[h] = 0
        pre = "" if variant == "default" else variant + "-"
        session, seen = [], set()

        def save(fname, obj):
            with open(os.path.join(outdir, fname), "w", encoding="utf-8") as f:
                json.dump(obj, f, indent=2, ensure_ascii=False)
                f.write("\n")
            written[h] += 1

        log = os.path.join(d, "shell.jsonl")
        recs = [json.loads(l) for l in open(log, encoding="utf-8")] if os.path.exists(log) else []
        p = 0
        for r in recs:
            argv = r["argv"]
            kind, is_cmd = classify(h, argv)
            turn = payload = None
            if is_cmd:
                text = "\0".join(argv[1:])
                nxt = [j for j in range(p + 1, len(turns)) if turns[j]["sig"] in text]
                if nxt:  # first later turn whose signature appears (a blocked turn may be missing)
                    p = nxt[0]
                if turns[p]["sig"] not in text:
                    kind, turn = "unmatched", None
                else:
                    turn, payload = turns[p]["id"], turns[p]["cmd"]
            fname = "%s%s%s.json" % (pre, kind, "-" + turn if turn else "")
            session.append({"kind": kind, "turn": turn, "fixture": fname, "action": r.get("action")})
            keep = KEEP_TURNS[variant]
            if kind == "wrapper" and turn not in WRAPPER_TURNS:
                keep = []  # Codex's ~350-line wrapper differs only in its last line: keep a few
            if fname in seen or kind == "unmatched" or (turn and keep is not None and turn not in keep) or (
                    not turn and variant != "default"):  # scaffolding: the other variants repeat it
                continue
            seen.add(fname)
            env = sub(r.get("env", {}))
            save(fname, {
                "harness": h, "version": version, "variant": variant, "kind": kind, "turn": turn,
                "description": describe(h, variant, kind, turn, payload),
                "payload": payload, "argv": sub(argv),
                "env": {k: v for k, v in env.items() if k not in ("PWD", "SHLVL")},
                "env_keys": sorted(env), "stdio": {k: sub(r.get(k, "")) for k in ("fd0", "fd1", "fd2")},
                "cwd": sub(r.get("cwd", "")), "parent": sub(r.get("parent_exe", "")),
            })
        for e in session:  # point only at files that were written
            e["fixture"] = e["fixture"] if e["fixture"] in seen else None
        if variant in ("default", "nosnap") and session:
            save("session%s.json" % ("" if variant == "default" else "-" + variant), {
                "harness": h, "version": version, "variant": variant,
                "description": "%s, %s: every shell invocation of one `-p` session running the scenario "
                               "(scripts/e2e/scenarios/routine.json) in order; several turns in a row" % (
                                   h, VARIANT_TEXT[variant]),
                "invocations": session})
        hook = os.path.join(d, "hook.jsonl")
        if os.path.exists(hook):
            for line in open(hook, encoding="utf-8"):
                ev = json.loads(line)
                cmd = (ev.get("tool_input") or {}).get("command")
                t = next((t for t in turns if t["cmd"] == cmd), None)
                if not t or t["id"] not in ("ls", "heredoc", "deny_bashrc"):
                    continue
                save("hook-pretooluse-%s.json" % t["id"], {
                    "harness": h, "version": version, "variant": "hook", "kind": "hook-pretooluse-stdin",
                    "turn": t["id"], "payload": cmd,
                    "description": "%s PreToolUse hook: the JSON the hook command gets on stdin (run as "
                                   "`/bin/sh -c <hook command>`, not through the configured shell); turn %r"
                                   % (h, t["id"]),
                    "stdin": sub(ev)})
    for h, n in sorted(written.items()):
        print("fixtures: wrote %d files to %s" % (n, os.path.join(a.out, h)))


if __name__ == "__main__":
    main()
