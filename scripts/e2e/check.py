#!/usr/bin/env python3
"""Check one harness run of the e2e rig from the mock model's request log.

Prints one line per check:  PASS|FAIL|XFAIL|SKIP <case> <check> <detail>
Exit status: 1 if any FAIL, else 0 (XFAIL = failure that is expected with the stand-in shell).

Checks
  a.<turn>     the turn's tool call ran and its output (every "expect" string) is in the tool
               result of a later model request; "files" exist in the project with that content
  b.<turn>     hard-denied command: the watched file is unchanged AND the tool result shows
               "automode" (the shim's block message prefix).  Without --expect-blocking a
               failure is XFAIL ("expected with stand-in shell")
  c.turns      every scripted turn was served in order, all tool results came back, the final
               text was served, and the harness exited 0
  c.snapshot   --snapshot yes|no: the snapshot_probe turn saw a shell-snapshot file / none
  c.verdicts   --audit FILE (automode's audit.jsonl): every scripted command was judged and
               recorded exactly once (one decision record), however the harness wrapped it
"""

import argparse
import hashlib
import json
import os
import re
import sys


def sha(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except FileNotFoundError:
        return "missing"


def short(s, n=160):
    s = s.replace("\n", "\\n")
    return s if len(s) <= n else s[: n - 3] + "..."


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--watch", help="file that the denied command targets")
    ap.add_argument("--watch-sha", help="its sha256 before the run")
    ap.add_argument("--rc", type=int, required=True, help="harness exit code")
    ap.add_argument("--expect-blocking", action="store_true")
    ap.add_argument("--snapshot", choices=["yes", "no", "n/a"], default="n/a")
    ap.add_argument("--prefix", default="", help="prefix for check names (e.g. d.)")
    ap.add_argument("--audit", help="automode's audit.jsonl of the run (absent: the stand-in shell)")
    a = ap.parse_args()

    with open(a.scenario, encoding="utf-8") as f:
        turns = json.load(f)["turns"]
    reqs = []
    try:
        with open(a.log, encoding="utf-8") as f:
            reqs = [json.loads(l) for l in f if l.strip()]
    except FileNotFoundError:
        pass
    main_reqs = [r for r in reqs if r.get("role") == "main"]

    results = []  # (status, name, detail)

    def rep(ok, name, detail, xfail=False):
        st = "PASS" if ok else ("XFAIL" if xfail else "FAIL")
        results.append((st, a.prefix + name, detail))

    # k-th tool turn -> text of the k-th tool result in the longest history seen
    longest = max((r.get("tool_results") or [] for r in main_reqs), key=len, default=[])
    tool_turns = [t for t in turns if "cmd" in t]

    def result_for(k):
        return longest[k] if k < len(longest) else None

    k = -1
    for t in turns:
        if "cmd" not in t:
            continue
        k += 1
        tid = t.get("id", str(k))
        out = result_for(k)
        if t.get("check") == "a":
            if out is None:
                rep(False, "a." + tid, "no tool result for this turn reached the model")
                continue
            missing = [e for e in t.get("expect", []) if e not in out]
            bad_files = []
            for rel, want in (t.get("files") or {}).items():
                p = os.path.join(a.project, rel)
                try:
                    with open(p, encoding="utf-8") as f:
                        got = f.read()
                except FileNotFoundError:
                    got = None
                if got != want:
                    bad_files.append("%s=%r" % (rel, got if got is None else short(got, 60)))
            if missing or bad_files:
                rep(False, "a." + tid, "missing %s; files %s; result: %s" % (missing, bad_files, short(out)))
            else:
                rep(True, "a." + tid, "result: " + short(out, 80))
        elif t.get("check") == "b":
            unchanged = a.watch is None or sha(a.watch) == a.watch_sha
            shown = out is not None and "automode" in out
            detail = "file %s; tool result %s: %s" % (
                "unchanged" if unchanged else "CHANGED",
                "mentions automode" if shown else "does not mention automode",
                "(none)" if out is None else short(out, 120))
            ok = unchanged and shown
            rep(ok, "b." + tid, detail + ("" if ok or a.expect_blocking else "  [expected with stand-in shell]"),
                xfail=not a.expect_blocking)

    served = [r.get("turn") for r in main_reqs]
    want = list(range(len(turns)))
    distinct = []
    for s in served:
        if s not in distinct:
            distinct.append(s)
    final_served = any(r.get("served", [None])[0] == "text" and r.get("turn") == len(turns) - 1 for r in main_reqs)
    ok = distinct == want and len(longest) == len(tool_turns) and final_served and a.rc == 0
    rep(ok, "c.turns", "turns served %s of %d, %d/%d tool results returned, final text %s, harness rc=%d" % (
        distinct, len(turns), len(longest), len(tool_turns), "served" if final_served else "NOT served", a.rc))
    if a.snapshot != "n/a":
        # the harnesses delete their snapshot at exit, so the scenario lists the snapshot
        # folders from inside the session (turn "snapshot_probe")
        k = [i for i, t in enumerate(tool_turns) if t.get("snapshot_probe")]
        out = result_for(k[0]) if k else None
        if out is None:
            rep(False, "c.snapshot", "want snapshot=%s, but no snapshot_probe result" % a.snapshot)
        else:
            snaps = re.findall(r"[\w.-]+\.sh\b", out)
            ok = bool(snaps) if a.snapshot == "yes" else not snaps
            rep(ok, "c.snapshot", "want snapshot=%s, probe saw %d snapshot file(s) %s" % (
                a.snapshot, len(snaps), snaps[:2]))

    if a.audit:
        decisions = []
        try:
            with open(a.audit, encoding="utf-8") as f:
                for line in f:
                    try:
                        r = json.loads(line)
                    except ValueError:
                        continue
                    if r.get("event") == "decision":
                        decisions.append(r.get("script", ""))
        except FileNotFoundError:
            pass
        counts = {t["cmd"]: decisions.count(t["cmd"]) for t in tool_turns}
        wrong = {c: n for c, n in counts.items() if n != 1}
        rep(not wrong and bool(decisions), "c.verdicts",
            "%d decision records; every scripted command once" % len(decisions) if not wrong
            else "commands not judged exactly once: %s" % short(json.dumps(wrong), 200))

    fails = 0
    for st, name, detail in results:
        print("%-5s %-14s %-22s %s" % (st, a.case, name, detail))
        fails += st == "FAIL"
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
