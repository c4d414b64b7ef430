#!/usr/bin/env python3
"""What a checkpoint costs a command: a git project of 10,000 files (500
directories, 1-16 KiB each, committed) with a 5,000-file target/ that
checkpoints leave out. Each round rewrites FILES project files (the
agent's edits), then runs the same command with checkpoints on and off,
interleaved; the median difference is the checkpoint's cost. Also: the
same with the watcher off (every checkpoint walks the project), a
read-only command on and off (no checkpoint is taken), and the session's
first checkpoint (a walk and a hash of every file).

usage: bench_checkpoint.py --shim PATH [--rounds N] [--files N] [--changed N]
(scripts/bench.sh --checkpoint builds the binary and runs this.)
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--changed", type=int, default=10)
    args = ap.parse_args()
    rng = random.Random(7)
    base = "/var/tmp" if os.path.isdir("/var/tmp") else None
    with tempfile.TemporaryDirectory(prefix="automode-bench-cp-", dir=base) as root:
        home = os.path.join(root, "home")
        work = os.path.join(root, "work")
        os.makedirs(home)
        files = []
        for i in range(args.files):
            d = os.path.join(work, "src", f"d{i % 500:03}")
            os.makedirs(d, exist_ok=True)
            p = os.path.join(d, f"f{i}.txt")
            with open(p, "wb") as f:
                f.write(os.urandom(rng.randint(512, 8 * 1024)).hex().encode())
            files.append(p)
        for i in range(5_000):
            d = os.path.join(work, "target", f"t{i % 50}")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"o{i}.o"), "wb") as f:
                f.write(b"o" * 1024)
        git = ["git", "-c", "user.email=b@b", "-c", "user.name=b"]
        subprocess.run(git + ["init", "-q", "."], cwd=work, check=True)
        subprocess.run(git + ["add", "src"], cwd=work, check=True)
        subprocess.run(git + ["commit", "-qm", "init"], cwd=work, check=True)

        def env(checkpoints, watch=True):
            e = {
                "PATH": "/usr/local/bin:/usr/bin:/bin",
                "HOME": home,
                "XDG_STATE_HOME": os.path.join(root, "state"),
                "XDG_CONFIG_HOME": os.path.join(root, "config"),
                "LANG": "C.UTF-8",
                "AUTOMODE_CHECKPOINT_WATCH": "1" if watch else "0",
            }
            if not checkpoints:
                e["AUTOMODE_SETTINGS_JSON"] = json.dumps({"checkpoint": {"enabled": False}})
            return e

        def timed(script, e):
            t = time.perf_counter()
            r = subprocess.run([args.shim, "-c", script], cwd=work, env=e,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            took = time.perf_counter() - t
            if r.returncode != 0:
                raise SystemExit(f"{script}: exit {r.returncode}: {r.stderr.decode()}")
            return took * 1000

        def edit():
            for p in rng.sample(files, args.changed):
                with open(p, "ab") as f:
                    f.write(b"edit\n")

        writer = "mkdir -p target && touch target/.bench"
        first = timed(writer, env(True))
        # The watcher starts after the first checkpoint.
        sock = None
        for _ in range(200):
            for d in os.listdir(os.path.join(root, "state", "automode", "checkpoints")):
                s = os.path.join(root, "state", "automode", "checkpoints", d, "watch.sock")
                if os.path.exists(s):
                    sock = s
            if sock:
                break
            time.sleep(0.05)
        rows = {"on": [], "off": [], "walk": [], "ro_on": [], "ro_off": []}
        for _ in range(args.rounds):
            edit()
            rows["on"].append(timed(writer, env(True)))
            rows["off"].append(timed(writer, env(False)))
            edit()
            rows["walk"].append(timed(writer, env(True, watch=False)))
            # The next watched checkpoint must not pay for the walk's
            # changes: one more, untimed.
            timed(writer, env(True))
            rows["ro_on"].append(timed("ls src", env(True)))
            rows["ro_off"].append(timed("ls src", env(False)))
        med = {k: statistics.median(v) for k, v in rows.items()}
        diffs = [a - b for a, b in zip(rows["on"], rows["off"])]
        walk_diffs = [a - b for a, b in zip(rows["walk"], rows["off"])]
        ro_diffs = [a - b for a, b in zip(rows["ro_on"], rows["ro_off"])]
        store = os.path.join(root, "state", "automode", "checkpoints")
        size = sum(os.path.getsize(os.path.join(dp, f))
                   for dp, _, fs in os.walk(store) for f in fs)
        print(f"project: {args.files} files (+5000 in target/, left out), "
              f"{args.changed} changed per command, {args.rounds} rounds")
        print(f"first checkpoint of the session (command with it): {first:.1f} ms")
        print(f"command, checkpoints off:           median {med['off']:.2f} ms")
        print(f"command, checkpoint via the watcher: median {med['on']:.2f} ms; "
              f"added: median {statistics.median(diffs):.2f} ms "
              f"(pairwise; p90 {sorted(diffs)[int(len(diffs) * 0.9)]:.2f} ms)")
        print(f"command, checkpoint by a walk:       median {med['walk']:.2f} ms; "
              f"added: median {statistics.median(walk_diffs):.2f} ms")
        print(f"read-only command, on vs off:        {med['ro_on']:.2f} vs {med['ro_off']:.2f} ms; "
              f"difference median {statistics.median(ro_diffs):.2f} ms")
        print(f"store: {size / 1024 / 1024:.1f} MiB")
        print(f"watcher: {'up' if sock else 'NOT up'}")


if __name__ == "__main__":
    main()
