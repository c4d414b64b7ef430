#!/usr/bin/env python3
"""Where the shim's start goes, phase by phase, with the sandbox on, with
the network open and with the sandbox off.

Runs `<shim> -c true` in a fresh home and project under /var/tmp with
AUTOMODE_TIMING=1 (src/timing.rs: the shim prints when each phase of its
pipeline ended, in microseconds since the pipeline began), in interleaved
rounds, and prints the median of each mark and of each phase's length
(from the mark before it), with the whole run's wall time measured from
outside. This process starts every run, so it owns the sessions: their
network filter lives as long as it does.

usage: bench_phases.py --shim PATH [--rounds N]
(scripts/bench.sh --phases [--rounds N] builds the static release binary
and runs this on it.)
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--rounds", type=int, default=300)
    args = ap.parse_args()
    shim = os.path.abspath(args.shim)
    scratch = tempfile.TemporaryDirectory(prefix="automode-phases-", dir="/var/tmp")
    home = os.path.join(scratch.name, "home")
    project = os.path.join(scratch.name, "project")
    os.mkdir(home)
    os.mkdir(project)
    base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8",
            "AUTOMODE_TIMING": "1"}
    modes = {
        "sandbox and wall": dict(base, AUTOMODE_SESSION="phases-on"),
        "network open": dict(base, AUTOMODE_SESSION="phases-open",
                             AUTOMODE_SETTINGS_JSON='{"sandbox": {"network": "open"}}'),
        "sandbox off": dict(base, AUTOMODE_SESSION="phases-off",
                            AUTOMODE_SETTINGS_JSON='{"sandbox": {"mode": "off"}}'),
    }
    marks = {m: {} for m in modes}
    walls = {m: [] for m in modes}
    names = list(modes)
    for r in range(args.rounds + 3):
        order = names[r % len(names):] + names[:r % len(names)]
        for m in order:
            t0 = time.perf_counter()
            p = subprocess.run([shim, "-c", "true"], env=modes[m], cwd=project,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
            t1 = time.perf_counter()
            if p.returncode != 0:
                sys.exit(f"{m}: the shim failed: {p.stderr}")
            if r < 3:  # the sessions' first commands start their filters
                continue
            walls[m].append((t1 - t0) * 1e6)
            line = next((l for l in p.stderr.splitlines()
                         if l.startswith("automode timing")), "")
            for item in line.split(":", 1)[-1].split():
                name, _, at = item.partition("=")
                marks[m].setdefault(name, []).append(int(at))
    print(f"{args.rounds} interleaved rounds of `{shim} -c true`; medians in µs "
          "(mark: since the pipeline began; phase: from the mark before)")
    for m in names:
        print(f"\n{m}: whole run (from outside) {statistics.median(walls[m]):.0f}")
        before = 0
        for name, ats in marks[m].items():
            at = statistics.median(ats)
            print(f"  {name:20s} {at:7.0f}  {at - before:6.0f}")
            before = at
    scratch.cleanup()


if __name__ == "__main__":
    main()
