#!/usr/bin/env python3
"""Foreground launcher for llama.cpp's native server via the xllamacpp wheel.

Started in the background by scripts/real-model-server.sh; runs until SIGTERM/SIGINT.
Usage: serve.py --model PATH [--port N] [--ctx N] [--threads N] [--chat-template-file F] [--parallel N]
"""
import argparse
import signal
import sys
import threading

import xllamacpp as xlc


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8089)
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--threads-batch", type=int, default=None,
                    help="threads for prompt processing (default: same as --threads)")
    ap.add_argument("--n-predict", type=int, default=1024,
                    help="server-side cap on generated tokens (frees the slot early)")
    ap.add_argument("--chat-template-file", default=None)
    ap.add_argument("--parallel", type=int, default=1,
                    help="slots (each keeps its own prompt cache; n_ctx is shared among them)")
    ap.add_argument("--alias", default="SmolLM2-135M-Instruct-Q4_1",
                    help="name reported in responses' model field (the request's model is ignored)")
    a = ap.parse_args()

    p = xlc.CommonParams()
    p.model.path = a.model
    p.model_alias = {a.alias}
    p.hostnames = [a.host]
    p.port = a.port
    p.n_ctx = a.ctx
    p.n_parallel = a.parallel   # default one slot: one prompt cache, deterministic behaviour
    p.n_predict = a.n_predict
    p.cpuparams.n_threads = a.threads        # 1 thread: 2 threads on 2 cores is 5-20x slower
    p.cpuparams_batch.n_threads = a.threads_batch or a.threads
    p.use_jinja = True
    p.cache_prompt = True
    p.endpoint_props = True
    p.endpoint_slots = True
    p.endpoint_metrics = True
    if a.chat_template_file:
        with open(a.chat_template_file, encoding="utf-8") as f:
            p.chat_template = f.read()

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    server = xlc.Server(p)  # starts the HTTP server thread inside this process
    print(f"xllamacpp {xlc.__version__} serving {a.model} on {server.listening_address}"
          f" (n_ctx={a.ctx}, threads={a.threads}, threads_batch={a.threads_batch or a.threads})", flush=True)
    while not stop.wait(1.0):
        pass
    print("stopping", flush=True)
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
