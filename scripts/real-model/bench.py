#!/usr/bin/env python3
"""Fast-stage latency benchmark against a running real-model server (OpenAI format, grammar 0|1).

Usage: bench.py [--base http://127.0.0.1:8089] [--n 20] [--json OUT]
1 cold call (fills the ~2k-token policy prefix), then N calls interleaving 5 actions, then 3
identical repeats. Reports client wall-clock p50/p90/max, validity and cache counters.
"""
import argparse
import json
import os
import statistics
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe import ACTIONS, FAST_INSTR, GRAMMAR, oa_body  # noqa: E402


def call(base, body):
    req = urllib.request.Request(base + "/v1/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    t0 = time.monotonic()
    with urllib.request.urlopen(req, timeout=300) as r:
        v = json.loads(r.read())
    dt = time.monotonic() - t0
    c = v["choices"][0]
    ok = c["finish_reason"] == "stop" and (c["message"].get("content") or "").strip() in ("0", "1")
    t = v.get("timings", {})
    return {"s": round(dt, 3), "valid": ok, "content": c["message"].get("content"),
            "cached_tokens": v["usage"].get("prompt_tokens_details", {}).get("cached_tokens"),
            "prompt_tokens": v["usage"]["prompt_tokens"], "cache_n": t.get("cache_n"),
            "prompt_n": t.get("prompt_n"), "prompt_ms": round(t.get("prompt_ms", 0))}


def pct(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="http://127.0.0.1:8089")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    body = lambda i: oa_body(i, FAST_INSTR, 512, temperature=0, grammar=GRAMMAR)  # noqa: E731
    out = {"loadavg_before": os.getloadavg()}
    out["cold"] = call(a.base, body(0))
    print("cold:", out["cold"])
    runs = []
    for i in range(a.n):
        r = call(a.base, body(i + 1))  # +1: first timed call changes the action
        r["action"] = ACTIONS[(i + 1) % len(ACTIONS)]["command"]
        runs.append(r)
        print(f"{i:2d} {r}")
    out["runs"] = runs
    out["repeats"] = [call(a.base, body(a.n)) for _ in range(3)]
    print("identical repeats:", out["repeats"])
    lat = [r["s"] for r in runs]
    out["summary"] = {"n": len(runs), "valid": sum(r["valid"] for r in runs),
                      "p50_s": round(statistics.median(lat), 3), "p90_s": round(pct(lat, 0.9), 3),
                      "max_s": max(lat), "min_s": min(lat),
                      "answers": {k: sum(r["content"] == k for r in runs) for k in ("0", "1")},
                      "repeat_p50_s": round(statistics.median(r["s"] for r in out["repeats"]), 3),
                      "loadavg_after": os.getloadavg()}
    print(json.dumps(out["summary"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
