#!/usr/bin/env python3
"""What the network wall's filter costs a connection: a server on the
host's loopback (listed in sandbox.network.hostPorts, so commands behind
the wall reach it through the filter) answers curl inside the wall and
curl directly, in interleaved rounds; medians.

  per connection: 100 requests for a small file by one curl (a connection
                  each), through the filter vs directly; the difference
                  per request
  throughput:     one 100 MiB download through the filter vs directly

usage: bench_network.py --shim PATH [--rounds N] [--mib N]
(scripts/bench.sh --network builds the binary and runs this.)
"""
import argparse
import http.server
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time


class Quiet(http.server.SimpleHTTPRequestHandler):
    """Files sent with sendfile (the kernel copies), so the server costs
    little and the figures measure the filter."""

    def copyfile(self, source, outputfile):
        self.wfile.flush()
        self.connection.sendfile(source)

    def log_message(self, *args):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--mib", type=int, default=100)
    ap.add_argument("--requests", type=int, default=100)
    args = ap.parse_args()
    base = "/var/tmp" if os.path.isdir("/var/tmp") else None
    with tempfile.TemporaryDirectory(prefix="automode-bench-net-", dir=base) as root:
        www = os.path.join(root, "www")
        home = os.path.join(root, "home")
        work = os.path.join(root, "work")
        for d in (www, home, work):
            os.mkdir(d)
        with open(os.path.join(www, "big"), "wb") as f:
            chunk = os.urandom(1 << 20)
            for _ in range(args.mib):
                f.write(chunk)
        with open(os.path.join(www, "small"), "wb") as f:
            f.write(b"x" * 512)
        handler = lambda *a, **k: Quiet(*a, directory=www, **k)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        port = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "LANG": "C.UTF-8",
            "AUTOMODE_SESSION": "bench-net",
            "AUTOMODE_TIMEOUT": "600",
            "AUTOMODE_SETTINGS_JSON": json.dumps(
                {"autoMode": {"enabled": False}, "sandbox": {"network": {"mode": "allowlist", "hostPorts": [port]}}}
            ),
        }
        # One curl makes every request (a new connection each: the server
        # speaks HTTP/1.0), so the figure is the connection's, not the cost
        # of starting a program inside the sandbox (that is start-up's).
        small = f"curl -sf 'http://127.0.0.1:{port}/small?[1-{args.requests}]' >/dev/null"
        big = f"curl -s -o /dev/null http://127.0.0.1:{port}/big"
        shim = os.path.abspath(args.shim)
        variants = {
            "small, through the filter": [shim, "-c", small],
            "small, direct": ["/bin/sh", "-c", small],
            "big, through the filter": [shim, "-c", big],
            "big, direct": ["/bin/sh", "-c", big],
            # The shim's own start, taken out of the figures through it.
            "shim start": [shim, "-c", "true"],
            "sh start": ["/bin/sh", "-c", "true"],
        }
        # The session's filter starts with the first command: not timed.
        subprocess.run([shim, "-c", "true"], env=env, cwd=work, check=True)
        times = {k: [] for k in variants}
        names = list(variants)
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                t0 = time.perf_counter()
                subprocess.run(variants[name], env=env, cwd=work, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[name].append(time.perf_counter() - t0)
        server.shutdown()
        med = {k: statistics.median(v) for k, v in times.items()}
        start = med["shim start"] - med["sh start"]
        print(f"network filter: {args.rounds} interleaved rounds, median "
              f"(the shim's start, {start * 1000:.2f} ms more than sh's, taken out)")
        small_f = med["small, through the filter"] - start
        per = (small_f - med["small, direct"]) / args.requests
        print(f"  {args.requests} requests: through the filter {small_f * 1000:8.1f} ms, "
              f"direct {med['small, direct'] * 1000:8.1f} ms: {per * 1000:.3f} ms more per connection (target <= 1)")
        thr_f = args.mib / (med["big, through the filter"] - start)
        thr_d = args.mib / med["big, direct"]
        print(f"  {args.mib} MiB: through the filter {thr_f:7.1f} MiB/s, direct {thr_d:7.1f} MiB/s: "
              f"{thr_f / thr_d:.3f} of direct (target >= 0.9)")


if __name__ == "__main__":
    main()
