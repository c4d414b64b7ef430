#!/usr/bin/env python3
"""Loopback mock of the model APIs that coding-agent harnesses talk to.

One HTTP server on 127.0.0.1 speaks:
  * Anthropic Messages      POST /v1/messages (SSE or JSON), /v1/messages/count_tokens
  * OpenAI Responses        POST /v1/responses (SSE or JSON)
  * OpenAI Chat Completions POST /v1/chat/completions (SSE or JSON)
  * Gemini                  POST /v1beta/models/<m>:streamGenerateContent / :generateContent / :countTokens
Anything else is logged and answered with a harmless 200 JSON body.

It follows a SCRIPT (JSON): {"turns": [TURN, ...]} where TURN is
  {"id": "ls", "cmd": "ls", "args": {...optional extra tool arguments...}}  -> a shell tool call
  {"text": "All done."}                                                      -> a final answer
The turn served is stateless: it is the number of tool calls already present in the
conversation history of the request, so retries and side requests never consume the script.
A request is a "main" request only if it offers the harness's shell tool
(Bash / bash / exec_command|shell|shell_command / run_shell_command); every other request
(titles, summaries, quota probes, next-speaker checks...) gets a trivial answer.

Every request is appended to --log as one JSON line:
  {seq, time, method, path, api, role: main|side|other, turn, served, tool_results: [text...], body}
tool_results lists, in order, the text of every tool result in the request's history, so the
k-th entry is the output of the k-th scripted tool call.

Usage: mock_model.py --script S.json --log L.jsonl [--port-file F]   (prints the port on stdout)
"""

import argparse
import os
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SHELL_TOOLS = {
    "anthropic": ["Bash"],
    "chat": ["bash", "Bash", "shell", "run_shell_command"],
    "responses": ["exec_command", "shell_command", "shell", "local_shell"],
    "gemini": ["run_shell_command"],
}

LOCK = threading.Lock()
STATE = {"seq": 0}


def log_line(path, rec):
    with LOCK:
        STATE["seq"] += 1
        rec["seq"] = STATE["seq"]
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return rec["seq"]


def content_text(c):
    """Flatten the many shapes a tool result's content can take into text."""
    if c is None:
        return ""
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(content_text(x) for x in c)
    if isinstance(c, dict):
        for k in ("text", "output", "content"):
            if k in c and isinstance(c[k], (str, list, dict)):
                return content_text(c[k])
        return json.dumps(c, ensure_ascii=False)
    return str(c)


# ---------------------------------------------------------------- history inspection
def history(api, body):
    """Return (number of tool calls in history, [tool result texts], names of tools offered)."""
    calls, results, tools = 0, [], []
    if api == "anthropic":
        for t in body.get("tools") or []:
            tools.append(t.get("name"))
        for m in body.get("messages") or []:
            c = m.get("content")
            if not isinstance(c, list):
                continue
            for b in c:
                if not isinstance(b, dict):
                    continue
                if m.get("role") == "assistant" and b.get("type") == "tool_use":
                    calls += 1
                if b.get("type") == "tool_result":
                    results.append(content_text(b.get("content")))
    elif api == "chat":
        for t in body.get("tools") or []:
            tools.append((t.get("function") or {}).get("name") or t.get("name"))
        for m in body.get("messages") or []:
            if m.get("role") == "assistant":
                calls += len(m.get("tool_calls") or [])
            if m.get("role") == "tool":
                results.append(content_text(m.get("content")))
    elif api == "responses":
        for t in body.get("tools") or []:
            tools.append(t.get("name") or t.get("type"))
        inp = body.get("input")
        for it in inp if isinstance(inp, list) else []:
            ty = it.get("type")
            if ty in ("function_call", "custom_tool_call", "local_shell_call"):
                calls += 1
            if ty in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
                results.append(content_text(it.get("output")))
    elif api == "gemini":
        for t in body.get("tools") or []:
            for fd in t.get("functionDeclarations") or t.get("function_declarations") or []:
                tools.append(fd.get("name"))
        for c in body.get("contents") or []:
            for p in c.get("parts") or []:
                if "functionCall" in p and c.get("role") == "model":
                    calls += 1
                if "functionResponse" in p:
                    results.append(content_text((p["functionResponse"] or {}).get("response")))
    return calls, results, tools


def shell_tool(api, tools):
    for name in SHELL_TOOLS[api]:
        if name in tools:
            return name
    return None


def tool_args(api, tool, turn):
    cmd = turn["cmd"]
    if api == "responses":
        if tool == "exec_command":
            args = {"cmd": cmd}
        elif tool == "shell":
            args = {"command": ["bash", "-lc", cmd]}
        else:
            args = {"command": cmd}
    elif api == "anthropic":
        args = {"command": cmd, "description": turn.get("description", "e2e scripted command")}
    elif api == "gemini":
        args = {"command": cmd, "description": turn.get("description", "e2e scripted command")}
    else:
        args = {"command": cmd}
    args.update(turn.get("args") or {})
    return args


# ---------------------------------------------------------------- schema filler (Gemini side calls)
def fill_schema(s):
    if not isinstance(s, dict):
        return "ok"
    if "enum" in s and s["enum"]:
        return s["enum"][0]
    t = s.get("type")
    if isinstance(t, list):
        t = t[0]
    t = (t or "").lower()
    if t == "object" or "properties" in s:
        props = s.get("properties") or {}
        return {k: fill_schema(v) for k, v in props.items()}
    if t == "array":
        return []
    if t in ("number", "integer"):
        return 0
    if t == "boolean":
        return False
    return "ok"


# ---------------------------------------------------------------- wire formats
def sse(events, named=True):
    out = []
    for ev in events:
        if named:
            out.append("event: %s\ndata: %s\n\n" % (ev["type"], json.dumps(ev)))
        else:
            out.append("data: %s\n\n" % json.dumps(ev))
    return "".join(out)


def anthropic_reply(body, action):
    model = body.get("model", "claude-mock")
    mid = "msg_" + uuid.uuid4().hex[:24]
    usage = {"input_tokens": 12, "output_tokens": 6, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0}
    if action[0] == "tool":
        _, name, args, cid = action
        block = {"type": "tool_use", "id": cid, "name": name, "input": args}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": action[1]}
        stop = "end_turn"
    if not body.get("stream"):
        return "application/json", json.dumps({
            "id": mid, "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage})
    start_block = dict(block, input={}) if block["type"] == "tool_use" else {"type": "text", "text": ""}
    delta = ({"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
             if block["type"] == "tool_use" else {"type": "text_delta", "text": block["text"]})
    events = [
        {"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant",
                                              "model": model, "content": [], "stop_reason": None,
                                              "stop_sequence": None, "usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": start_block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
         "usage": {"output_tokens": 6}},
        {"type": "message_stop"},
    ]
    return "text/event-stream", sse(events)


def chat_reply(body, action):
    model = body.get("model", "mock")
    cid = "chatcmpl-" + uuid.uuid4().hex[:20]
    created = int(time.time())
    usage = {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}
    if action[0] == "tool":
        _, name, args, callid = action
        msg = {"role": "assistant", "content": None,
               "tool_calls": [{"id": callid, "type": "function",
                               "function": {"name": name, "arguments": json.dumps(args)}}]}
        finish = "tool_calls"
    else:
        msg = {"role": "assistant", "content": action[1]}
        finish = "stop"
    if not body.get("stream"):
        return "application/json", json.dumps({
            "id": cid, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}], "usage": usage})
    base = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}
    if action[0] == "tool":
        tc = dict(msg["tool_calls"][0], index=0)
        delta = {"role": "assistant", "content": None, "tool_calls": [tc]}
    else:
        delta = {"role": "assistant", "content": msg["content"]}
    chunks = [dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}]),
              dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}])]
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append(dict(base, choices=[], usage=usage))
    return "text/event-stream", sse(chunks, named=False) + "data: [DONE]\n\n"


def responses_reply(body, action):
    rid = "resp_" + uuid.uuid4().hex[:24]
    model = body.get("model", "mock")
    if action[0] == "tool":
        _, name, args, callid = action
        if name == "local_shell":
            item = {"type": "local_shell_call", "id": "lsh_" + uuid.uuid4().hex[:16],
                    "call_id": callid, "status": "completed",
                    "action": {"type": "exec", "command": ["bash", "-lc", args.get("cmd", "")]}}
        else:
            item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:16], "call_id": callid,
                    "name": name, "arguments": json.dumps(args), "status": "completed"}
    else:
        item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:16], "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": action[1], "annotations": []}]}
    usage = {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 6,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 18}
    resp = {"id": rid, "object": "response", "created_at": int(time.time()), "model": model,
            "status": "completed", "output": [item], "usage": usage}
    if not body.get("stream"):
        return "application/json", json.dumps(resp)
    events = [{"type": "response.created", "response": dict(resp, status="in_progress", output=[])},
              {"type": "response.output_item.added", "output_index": 0, "item": item}]
    if item["type"] == "message":
        events.append({"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
                       "item_id": item["id"], "delta": action[1]})
    events += [{"type": "response.output_item.done", "output_index": 0, "item": item},
               {"type": "response.completed", "response": resp}]
    return "text/event-stream", sse(events)


def gemini_reply(body, action, stream):
    if action[0] == "tool":
        _, name, args, callid = action
        part = {"functionCall": {"name": name, "args": args}}
    elif action[0] == "json":
        part = {"text": json.dumps(action[1])}
    else:
        part = {"text": action[1]}
    resp = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 6, "totalTokenCount": 18},
            "modelVersion": "mock"}
    if stream:
        return "text/event-stream", "data: %s\r\n\r\n" % json.dumps(resp)
    return "application/json", json.dumps(resp)


# ---------------------------------------------------------------- server
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "automode-e2e-mock/1"

    def log_message(self, fmt, *a):  # quiet
        if self.server.verbose:
            sys.stderr.write("mock: " + (fmt % a) + "\n")

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0] or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            return data
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def send(self, code, ctype, text):
        data = text.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        if ctype == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.send_header("request-id", "req_mock_" + uuid.uuid4().hex[:12])
        self.send_header("x-request-id", "req_mock_" + uuid.uuid4().hex[:12])
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def do_GET(self):
        self.handle_any(b"")

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        self.handle_any(self.read_body())

    do_PUT = do_POST
    do_PATCH = do_POST

    def do_DELETE(self):
        self.handle_any(b"")

    def handle_any(self, raw):
        path = self.path.split("?", 1)[0]
        rec = {"time": time.time(), "method": self.command, "path": self.path,
               "headers": {k.lower(): v for k, v in self.headers.items()
                           if k.lower() in ("user-agent", "content-type", "content-encoding",
                                            "anthropic-beta", "x-stainless-lang", "originator",
                                            "anthropic-version")}}
        body = {}
        if raw:
            try:
                body = json.loads(raw.decode("utf-8"))
            except Exception:
                rec["raw_body_len"] = len(raw)
                rec["raw_body_head"] = raw[:200].decode("latin-1")
        api = None
        if self.command == "POST":
            if path.endswith("/messages/count_tokens"):
                api = "anthropic-count"
            elif path.endswith("/messages"):
                api = "anthropic"
            elif path.endswith("/chat/completions"):
                api = "chat"
            elif path.endswith("/responses"):
                api = "responses"
            elif ":countTokens" in path:
                api = "gemini-count"
            elif ":streamGenerateContent" in path or ":generateContent" in path:
                api = "gemini"
        rec["api"] = api
        rec["body"] = body if isinstance(body, dict) else {"_": body}
        try:
            self.dispatch(api, path, body if isinstance(body, dict) else {}, rec)
        except Exception as e:  # never crash the harness: answer something and log it
            rec["error"] = repr(e)
            log_line(self.server.log_path, rec)
            self.send(500, "application/json", json.dumps({"error": {"message": "mock: " + repr(e)}}))

    def dispatch(self, api, path, body, rec):
        srv = self.server
        if api is None:
            rec["role"] = "other"
            log_line(srv.log_path, rec)
            if path.rstrip("/").endswith("/models"):
                return self.send(200, "application/json", json.dumps({"object": "list", "data": [], "models": []}))
            return self.send(200, "application/json", "{}")
        if api == "anthropic-count":
            rec["role"] = "side"
            log_line(srv.log_path, rec)
            return self.send(200, "application/json", json.dumps({"input_tokens": 42}))
        if api == "gemini-count":
            rec["role"] = "side"
            log_line(srv.log_path, rec)
            return self.send(200, "application/json", json.dumps({"totalTokens": 42}))

        calls, results, tools = history(api, body)
        rec["tool_results"] = results
        rec["tools_offered"] = tools
        tool = shell_tool(api, tools)
        turns = srv.script["turns"]
        if tool is None:
            rec["role"] = "side"
            gen = body.get("generationConfig") or {}
            schema = gen.get("responseJsonSchema") or gen.get("responseSchema")
            action = ("json", fill_schema(schema)) if (api == "gemini" and schema) else ("text", srv.side_text)
        else:
            rec["role"] = "main"
            rec["turn"] = calls
            if calls < len(turns) and "cmd" in turns[calls]:
                t = turns[calls]
                callid = ("toolu_e2e_%02d_%s" if api == "anthropic" else "call_e2e_%02d_%s") % (
                    calls, uuid.uuid4().hex[:8])
                action = ("tool", tool, tool_args(api, tool, t), callid)
                rec["turn_id"] = t.get("id", str(calls))
            elif calls < len(turns):
                action = ("text", turns[calls]["text"])
                rec["turn_id"] = turns[calls].get("id", "final")
            else:
                action = ("text", "Script exhausted; stopping.")
                rec["turn_id"] = "exhausted"
        rec["served"] = list(action[:3]) if action[0] == "tool" else list(action)
        log_line(srv.log_path, rec)
        if api == "anthropic":
            return self.send(200, *anthropic_reply(body, action))
        if api == "chat":
            return self.send(200, *chat_reply(body, action))
        if api == "responses":
            return self.send(200, *responses_reply(body, action))
        if api == "gemini":
            if action[0] == "text" and tool is None and "json" in str(body.get("generationConfig", {}).get("responseMimeType", "")):
                action = ("json", {})
            return self.send(200, *gemini_reply(body, action, ":streamGenerateContent" in path))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--side-text", default="OK")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    with open(a.script, encoding="utf-8") as f:
        script = json.load(f)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    srv.script, srv.log_path, srv.side_text, srv.verbose = script, a.log, a.side_text, a.verbose
    port = srv.server_address[1]
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.replace(a.port_file + ".tmp", a.port_file)
    print(port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
