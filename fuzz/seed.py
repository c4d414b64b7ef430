#!/usr/bin/env python3
"""Write libFuzzer seed corpora for every fuzz target from tests/data:
analyze and decide (the parser and decision corpora's scripts), config
(config-examples.jsonl, each also as a layer with a line break), wire
(classifier-answers.jsonl), shim_argv (the scripts inside bash/sh argv
forms, NUL-separated)."""
import hashlib, json, os
here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "tests", "data")


def jsonl(name):
    path = os.path.join(data, name)
    return [json.loads(l) for l in open(path) if l.strip()]


def write(target, items):
    out = os.path.join(here, "corpus", target)
    os.makedirs(out, exist_ok=True)
    for b in items:
        with open(os.path.join(out, hashlib.sha1(b).hexdigest()), "wb") as fh:
            fh.write(b)
    print(f"{len(items)} seeds in {out}")


scripts = []
for name in ("parser-cases.jsonl", "parser-cases-extra.jsonl", "decisions.jsonl", "decisions-sandbox.jsonl"):
    for d in jsonl(name):
        text = d.get("input") or d.get("cmd")
        if text:
            scripts.append(text.encode())
write("analyze", scripts)
write("decide", scripts)

configs = []
for d in jsonl("config-examples.jsonl"):
    configs.append(json.dumps(d["config"]).encode())
    configs.append(json.dumps(d["config"], indent=2).encode())
write("config", configs)

write("wire", [json.dumps(d["body"]).encode() for d in jsonl("classifier-answers.jsonl")])

argv = []
forms = [[b"\x00-c"], [b"\x01-c"], [b"\x00-lc"], [b"\x00-e", b"-u", b"-c"], [b"\x00-o", b"pipefail", b"-c"]]
for i, s in enumerate(scripts[:400]):
    form = forms[i % len(forms)]
    words = form + [s] + ([b"name", b"a b"] if i % 3 == 0 else [])
    argv.append(b"\x00".join(words))
argv += [b"\x00--version", b"\x00-n\x00x.sh", b"\x00x.sh\x00arg", b"\x01-s", b"\x00--login"]
write("shim_argv", argv)
