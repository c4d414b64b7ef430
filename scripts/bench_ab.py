#!/usr/bin/env python3
"""Two builds of automode timed pair by pair: `<shim> -c true` of build A
and of build B in turn (the order alternating each pair), each build with
its own home, project and session, in a fresh scratch directory under
/var/tmp. Prints each build's median wall time and the median of the
pairs' A/B ratios, the figure to quote: separate runs of scripts/bench.sh
drift with the machine's speed by several per cent, pairs do not.

This process starts every run, so it owns both sessions (their network
filters live as long as it does).

usage: bench_ab.py A B [--rounds N] [--settings JSON]
  A, B: automode binaries (each is copied with a `bash` link beside it,
  as install/install.sh places it). For a build of the tree as installed:
  scripts/bench.sh --ab OTHER_BINARY [--rounds N] builds the static release
  binary and passes it as A.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (scripts/bench.py: its spawn_wait)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--settings", default=None,
                    help="AUTOMODE_SETTINGS_JSON for both (default: none)")
    args = ap.parse_args()
    scratch = tempfile.TemporaryDirectory(prefix="automode-ab-", dir="/var/tmp")
    runs = {}
    for name, binary in (("A", args.a), ("B", args.b)):
        root = os.path.join(scratch.name, name)
        for d in ("bin", "home", "project"):
            os.makedirs(os.path.join(root, d))
        shutil.copy2(binary, os.path.join(root, "bin", "automode"))
        os.symlink("automode", os.path.join(root, "bin", "bash"))
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.path.join(root, "home"),
               "LANG": "C.UTF-8", "AUTOMODE_SESSION": f"ab-{name}"}
        if args.settings:
            env["AUTOMODE_SETTINGS_JSON"] = args.settings
        runs[name] = ([os.path.join(root, "bin", "bash"), "-c", "true"], env,
                      os.path.join(root, "project"))

    def once(name):
        # As scripts/bench.py runs each command: posix_spawn, every
        # standard descriptor /dev/null.
        argv, env, cwd = runs[name]
        return bench.spawn_wait(argv, env, cwd) * 1e6

    for _ in range(5):  # the sessions' first commands start their filters
        once("A")
        once("B")
    times = {"A": [], "B": []}
    ratios = []
    for r in range(args.rounds):
        order = ("A", "B") if r % 2 == 0 else ("B", "A")
        got = {n: once(n) for n in order}
        for n in got:
            times[n].append(got[n])
        ratios.append(got["A"] / got["B"])
    a, b = statistics.median(times["A"]), statistics.median(times["B"])
    print(f"{args.rounds} pairs of `-c true`, median wall time")
    print(f"  A {a:8.0f} µs   {args.a}")
    print(f"  B {b:8.0f} µs   {args.b}")
    print(f"  A/B, median of the pairs' ratios = {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
