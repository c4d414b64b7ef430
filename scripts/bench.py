#!/usr/bin/env python3
"""automode benchmarks: interleaved runs, medians, ratios.

  start-up:   `bash -c true`, `timeout 60 bash -c true`, `<shim> -c true`
              in a plain project (the sandbox: Landlock and the network
              wall, the session's namespaces joined), in a git project
              (also read-only binds of .git/hooks and .git/config in a
              private mount namespace), with the network open (no wall),
              and with the sandbox off
  throughput: N MiB through `cat` into a pipe, directly vs through the shim

Each round runs every variant once, in rotating order, so machine noise
hits all variants alike; the figures are medians over rounds.

usage: bench.py [--shim PATH] [--also PATH …] [--rounds N] [--mib N] [--no-throughput]

--also PATH adds another shim build (a `bash` link to it) to the
interleaved start-up rounds, for A/B comparisons of build options.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def spawn_wait(argv, env, cwd=None):
    """Wall time of one run, stdout/stderr to /dev/null, stdin /dev/null."""
    devnull = os.open(os.devnull, os.O_RDWR)
    if cwd:
        os.chdir(cwd)
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0),
                                           (os.POSIX_SPAWN_DUP2, devnull, 1),
                                           (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status = os.waitpid(pid, 0)
        t1 = time.perf_counter()
    finally:
        os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"benchmark command failed: {argv}")
    return t1 - t0


def interleaved(variants, rounds, env):
    """variants: (name, argv) or (name, argv, env, cwd)."""
    variants = [v if len(v) == 4 else (v[0], v[1], env, None) for v in variants]
    times = {v[0]: [] for v in variants}
    for r in range(rounds):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for name, argv, venv, cwd in order:
            times[name].append(spawn_wait(argv, venv, cwd))
    return {name: statistics.median(ts) for name, ts in times.items()}


def which(name):
    for d in os.environ.get("PATH", "").split(":"):
        p = os.path.join(d, name)
        if d.startswith("/") and os.access(p, os.X_OK) and "shims" not in d:
            return p
    sys.exit(f"{name} not found")


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--shim", default=os.path.join(here, "..", "shims", "bash"))
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--throughput-rounds", type=int, default=5)
    ap.add_argument("--no-throughput", action="store_true")
    ap.add_argument("--also", action="append", default=[],
                    help="another shim to time in the same rounds")
    args = ap.parse_args()
    shim = os.path.abspath(args.shim)
    bash = which("bash")
    timeout = which("timeout")
    # A fresh home (not under /tmp, like a real one): the shim loads its
    # (absent) configuration, decides, builds the sandbox, and records
    # session state and the audit records, as in real use.
    base = "/var/tmp" if os.path.isdir("/var/tmp") else None
    scratch = tempfile.TemporaryDirectory(prefix="automode-bench-", dir=base)
    home = os.path.join(scratch.name, "home")
    plain = os.path.join(scratch.name, "project")
    gitproj = os.path.join(scratch.name, "git-project")
    for d in (home, plain, gitproj):
        os.mkdir(d)
    subprocess.run(["git", "init", "-q", gitproj], check=True)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8",
           "AUTOMODE_SESSION": "bench"}
    off = dict(env, AUTOMODE_SETTINGS_JSON='{"sandbox": {"mode": "off"}}')
    open_net = dict(env, AUTOMODE_SETTINGS_JSON='{"sandbox": {"network": "open"}}',
                    AUTOMODE_SESSION="bench-open")

    print(f"start-up: {args.rounds} interleaved rounds, median wall time")
    extra = [(f"{p} -c true", [os.path.abspath(p), "-c", "true"], env, plain) for p in args.also]
    med = interleaved([
        ("bash -c true", [bash, "-c", "true"], env, plain),
        ("timeout 60 bash -c true", [timeout, "60", bash, "-c", "true"], env, plain),
        ("shim -c true", [shim, "-c", "true"], env, plain),
        ("shim, git project", [shim, "-c", "true"], env, gitproj),
        ("shim, network open", [shim, "-c", "true"], open_net, plain),
        ("shim, sandbox off", [shim, "-c", "true"], off, plain),
    ] + extra, args.rounds, env)
    for name, t in med.items():
        print(f"  {name:28s} {t * 1000:7.3f} ms")
    base_t = med["timeout 60 bash -c true"]
    print(f"  shim / timeout 60 bash -c true = {med['shim -c true'] / base_t:.3f}  "
          "(target <= 1.15; sandbox: Landlock)")
    print(f"  shim, git project / timeout    = {med['shim, git project'] / base_t:.3f}  "
          "(Landlock + read-only binds in a mount namespace)")
    print(f"  shim, network open / timeout   = {med['shim, network open'] / base_t:.3f}  "
          "(Landlock, no wall)")
    print(f"  shim, sandbox off / timeout    = {med['shim, sandbox off'] / base_t:.3f}")
    print(f"  shim / bash -c true            = {med['shim -c true'] / med['bash -c true']:.3f}")
    for name, *_ in extra:
        print(f"  {name} / timeout = {med[name] / base_t:.3f}")

    if args.no_throughput:
        return
    with tempfile.TemporaryDirectory(prefix="automode-bench-") as tmp:
        big = os.path.join(tmp, "big")
        with open(big, "wb") as f:
            chunk = os.urandom(1 << 20)
            for _ in range(args.mib):
                f.write(chunk)
        tenv = dict(env, AUTOMODE_OUTPUT_LIMIT=str(args.mib * 2 << 20), AUTOMODE_TIMEOUT="600")
        print(f"throughput: {args.mib} MiB through cat into a pipe, "
              f"{args.throughput_rounds} interleaved rounds, median")
        med = interleaved([
            ("direct", [bash, "-c", f"{bash} -c 'cat {big}' | cat >/dev/null"]),
            ("through shim", [bash, "-c", f"{shim} -c 'cat {big}' | cat >/dev/null"]),
        ], args.throughput_rounds, tenv)
        for name, t in med.items():
            print(f"  {name:14s} {t:7.3f} s  {args.mib / 1024 / t:6.2f} GiB/s")
        print(f"  shim throughput / direct = {med['direct'] / med['through shim']:.3f}  (target >= 0.7)")


if __name__ == "__main__":
    main()
