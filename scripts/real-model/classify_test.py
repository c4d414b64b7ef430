#!/usr/bin/env python3
"""Drive `automode check --json --classify` against a real local model.

Used by scripts/real-model-test.sh; see there. Exit 1 when an assertion
fails (an allow without a valid answer, a malformed verdict, a call past
its timeout)."""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

COMMANDS = [
    "printenv > env.txt",
    "curl -s https://example.com/api > out.json",
    "rm src/main.rs",
    "git push origin main",
    "echo hi > /tmp/automode-real-model.txt",
    "npx cowsay hello",
    "kubectl delete pod web-1",
    "sudo apt-get install -y jq",
]
GRAMMAR = 'root ::= "0" | "1"'


def run(binary, env, cwd, cmd, timeout):
    t0 = time.monotonic()
    p = subprocess.run([binary, "check", "--json", "--classify", "--cwd", cwd, cmd],
                       env=env, capture_output=True, text=True, timeout=timeout)
    return json.loads(p.stdout), time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--timeout-ms", type=int, default=20000)
    args = ap.parse_args()
    failures = []
    report = {}
    with tempfile.TemporaryDirectory(prefix="automode-real-model-") as tmp:
        home = os.path.join(tmp, "home")
        project = os.path.join(home, "project")
        os.makedirs(os.path.join(project, "src"))
        open(os.path.join(project, "src", "main.rs"), "w").write("fn main() {}\n")
        open(os.path.join(project, "AGENTS.md"), "w").write("Run tests with cargo test.\n")
        formats = {
            "openai": {"format": "openai", "baseUrl": args.url + "/v1", "requiresKey": False,
                       "toolChoiceStyle": "required", "toolsInFastStage": False, "contextWindow": 8192,
                       "maxTokensField": "max_tokens",
                       "extraBodyFast": {"grammar": GRAMMAR, "temperature": 0},
                       "extraBodyDetail": {"temperature": 0}},
            "anthropic": {"format": "anthropic", "baseUrl": args.url, "requiresKey": False,
                          "toolsInFastStage": False, "contextWindow": 8192,
                          "extraBodyFast": {"temperature": 0}, "extraBodyDetail": {"temperature": 0}},
        }
        for fmt, provider in formats.items():
            settings = {"autoMode": {"classifierModel": f"local/smollm2-{fmt}",
                                     "classifierTimeoutMs": args.timeout_ms,
                                     "providers": {"local": provider}}}
            env = {"PATH": os.environ["PATH"], "HOME": home, "LANG": "C.UTF-8",
                   "XDG_CONFIG_HOME": os.path.join(tmp, "config"),
                   "XDG_STATE_HOME": os.path.join(tmp, "state"),
                   "AUTOMODE_SETTINGS_JSON": json.dumps(settings)}
            # Warm the server's prompt cache with the shared prefix (a cold
            # prefix costs tens of seconds on this CPU): long timeout.
            warm = dict(env, AUTOMODE_SETTINGS_JSON=json.dumps(
                {"autoMode": dict(settings["autoMode"], classifierTimeoutMs=180000)}))
            run(args.bin, warm, project, COMMANDS[0], 400)
            fast_latencies, verdicts, answers = [], [], []
            for _ in range(args.rounds):
                for cmd in COMMANDS:
                    v, wall = run(args.bin, env, project, cmd, 120)
                    verdicts.append(v["decision"])
                    c = v.get("classifier") or {}
                    stages = c.get("stages", [])
                    if v["decision"] not in ("allow", "deny", "ask") or v["tier"] != "classifier":
                        failures.append(f"{fmt}: {cmd!r}: malformed verdict {v['decision']}/{v['tier']}")
                    for s in stages:
                        if s["latency_ms"] > args.timeout_ms + 1000:
                            failures.append(f"{fmt}: {cmd!r}: a stage took {s['latency_ms']} ms")
                        answers.append(s.get("answer") or ("error: " + (s.get("error") or "")[:60]))
                    fast = [s for s in stages if s["stage"] == "fast"]
                    if fast and fast[0].get("answer") in ("0", "1"):
                        fast_latencies.append(fast[0]["latency_ms"] / 1000)
                    if v["decision"] == "allow":
                        ok = (fast and fast[0].get("answer") == "0") or any(
                            s["stage"] == "detail" and (s.get("answer") or "").startswith("allow/") for s in stages)
                        if not ok:
                            failures.append(f"{fmt}: {cmd!r}: allowed without a valid answer: {stages}")
            q = sorted(fast_latencies)
            report[fmt] = {
                "calls": len(verdicts),
                "verdicts": {d: verdicts.count(d) for d in sorted(set(verdicts))},
                "valid_fast_answers": len(fast_latencies),
                "fast_p50_s": round(statistics.median(q), 3) if q else None,
                "fast_p90_s": round(q[int(0.9 * (len(q) - 1))], 3) if q else None,
                "answers": {a: answers.count(a) for a in sorted(set(answers))},
            }
    print(json.dumps(report, indent=2))
    if failures:
        print("FAILURES:\n" + "\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print("real-model test: every call ended in a well-formed verdict; nothing allowed without a valid answer")


if __name__ == "__main__":
    main()
