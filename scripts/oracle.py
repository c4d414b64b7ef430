#!/usr/bin/env python3
"""Bash xtrace oracle: record what real bash does with each case of a JSONL corpus.

Every case input runs ONLY inside bubblewrap: read-only root, private /tmp,
no network, own pid/user namespace, PATH=/nonexistent, so external commands are
traced by `bash -x` but cannot be found; builtins (eval, source, alias, cd,
printf, read ...) really run, and only the private /tmp is writable.

  python3 scripts/oracle.py --record IN.jsonl OUT.jsonl   # fill bash_n_rc, bash_xtrace
  python3 scripts/oracle.py --check IN.jsonl              # re-run, report differences

Recorded per case:
  bash_n_rc    exit code of `bash -n -c INPUT` (also run inside the sandbox)
  bash_xtrace  stderr lines of `bash -x -c INPUT` that start with '+' (default PS4;
               '++' = one level of command substitution / subshell deeper), in order.
               On a timeout (3 s) the first lines seen (at most 10) and then "TIMEOUT".
Background jobs, pipelines and process substitutions run concurrently, so the
order of their trace lines can vary between runs; --check reports such
"order-only" differences separately.  Stdlib only.
"""
import argparse
import concurrent.futures
import json
import os
import signal
import subprocess
import sys

BWRAP = "/usr/bin/bwrap"
BASH = "/bin/bash"
TIMEOUT_S = 3.0
MAX_TIMEOUT_LINES = 10
SANDBOX = [
    BWRAP, "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--dev", "/dev",
    "--proc", "/proc", "--unshare-all", "--die-with-parent", "--chdir", "/tmp",
    "--setenv", "PATH", "/nonexistent", "--setenv", "HOME", "/root",
    "--unsetenv", "BASH_ENV", "--unsetenv", "ENV",
]
# Environment handed to bwrap (and so to bash): fixed, so results do not depend
# on whoever runs the oracle.  bwrap itself is called by absolute path.
BASE_ENV = {"LANG": "C.UTF-8"}


def run_sandboxed(bash_args, timeout=TIMEOUT_S):
    """Run BASH with bash_args inside the sandbox. Returns (rc, stderr_text, timed_out)."""
    proc = subprocess.Popen(
        SANDBOX + [BASH] + bash_args,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=BASE_ENV, start_new_session=True,
    )
    timed_out = False
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        timed_out = True
        partial = exc.stderr or b""
        try:  # kill only the process group of the bwrap we started
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            _, rest = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, rest = proc.communicate()
        # Output that arrived after the deadline is not used: only `partial`.
        err = partial
        del rest
    return proc.returncode, err.decode("utf-8", "backslashreplace"), timed_out


def trace_lines(stderr_text):
    return [l for l in stderr_text.split("\n") if l.startswith("+")]


def oracle(script):
    """Return (bash_n_rc, bash_xtrace) for one script; never runs it outside bwrap."""
    if "\0" in script:
        raise ValueError("input contains NUL, cannot be passed to bash -c")
    n_rc, _, n_to = run_sandboxed(["-n", "-c", script])
    if n_to:
        n_rc = "TIMEOUT"
    _, err, timed_out = run_sandboxed(["-x", "-c", script])
    trace = trace_lines(err)
    if timed_out:
        trace = trace[:MAX_TIMEOUT_LINES] + ["TIMEOUT"]
    return n_rc, trace


def load(path):
    cases = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.strip():
                try:
                    cases.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    sys.exit(f"{path}:{lineno}: bad JSON: {exc}")
    ids = [c["id"] for c in cases]
    dups = sorted({i for i in ids if ids.count(i) > 1})
    if dups:
        sys.exit(f"{path}: duplicate ids: {', '.join(dups)}")
    return cases


def run_all(cases, jobs, repeat=1):
    """Map id -> list of (n_rc, trace), one per repetition."""
    out = {c["id"]: [] for c in cases}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = {}
        for _ in range(repeat):
            for c in cases:
                futs[pool.submit(oracle, c["input"])] = c["id"]
        for fut in concurrent.futures.as_completed(futs):
            out[futs[fut]].append(fut.result())
    return out


def cmd_record(inp, outp, jobs, repeat):
    cases = load(inp)
    results = run_all(cases, jobs, repeat)
    unstable = []
    with open(outp, "w", encoding="utf-8") as fh:
        for c in cases:
            runs = results[c["id"]]
            n_rc, trace = runs[0]
            if any(r != runs[0] for r in runs[1:]):
                unstable.append(c["id"])
            c = dict(c)
            c["bash_n_rc"] = n_rc
            c["bash_xtrace"] = trace
            fh.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"recorded {len(cases)} cases into {outp}")
    if unstable:
        print(f"{len(unstable)} case(s) gave different results across {repeat} runs "
              f"(concurrency): {', '.join(unstable)}")
    return 0


def cmd_check(inp, jobs):
    cases = load(inp)
    results = run_all(cases, jobs)
    same, order_only, differ = 0, [], []
    for c in cases:
        n_rc, trace = results[c["id"]][0]
        old_rc, old_trace = c.get("bash_n_rc"), c.get("bash_xtrace")
        if n_rc == old_rc and trace == old_trace:
            same += 1
        elif n_rc == old_rc and old_trace is not None and sorted(trace) == sorted(old_trace):
            order_only.append(c["id"])
        else:
            differ.append((c, n_rc, trace))
    print(f"{inp}: {same}/{len(cases)} reproduced exactly")
    if order_only:
        print(f"order-only differences (concurrent jobs): {', '.join(order_only)}")
    for c, n_rc, trace in differ:
        print(f"DIFF {c['id']}: input={c['input']!r}")
        if n_rc != c.get("bash_n_rc"):
            print(f"  bash_n_rc recorded={c.get('bash_n_rc')!r} now={n_rc!r}")
        if trace != c.get("bash_xtrace"):
            print(f"  recorded: {json.dumps(c.get('bash_xtrace'), ensure_ascii=False)}")
            print(f"  now:      {json.dumps(trace, ensure_ascii=False)}")
    return 1 if differ else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", nargs=2, metavar=("IN", "OUT"))
    mode.add_argument("--check", metavar="IN")
    ap.add_argument("--jobs", type=int, default=4, help="cases run in parallel (default 4)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="--record: run each case N times and list unstable ones")
    args = ap.parse_args()
    if not os.access(BWRAP, os.X_OK):
        sys.exit(f"{BWRAP} not found: refusing to run cases without the sandbox")
    if args.record:
        return cmd_record(args.record[0], args.record[1], args.jobs, max(1, args.repeat))
    return cmd_check(args.check, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
