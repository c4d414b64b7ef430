#!/usr/bin/env python3
"""Write the parser corpora's inputs as a libFuzzer seed corpus."""
import hashlib, json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus", "analyze")
os.makedirs(out, exist_ok=True)
data = os.path.join(here, "..", "tests", "data")
files = [os.path.join(data, name) for name in
         ("parser-cases.jsonl", "parser-cases-extra.jsonl", "decisions.jsonl")]
n = 0
for f in files:
    if not os.path.exists(f):
        continue
    for line in open(f):
        d = json.loads(line)
        text = d.get("input") or d.get("cmd")
        if not text:
            continue
        data = text.encode()
        with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as fh:
            fh.write(data)
        n += 1
print(f"{n} seeds in {out}")
