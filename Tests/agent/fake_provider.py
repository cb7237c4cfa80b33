"""A fake model API on 127.0.0.1 for the `notes agent` tests.

It speaks both wire formats the agent uses, streaming included:
  POST /v1/messages        Anthropic Messages API (SSE: message_start, content_block_*, message_delta, message_stop)
  POST /chat/completions   OpenAI-compatible chat completions (SSE chunks, then [DONE])

It replays a script: one entry per request, in order. An entry is one of
  {"text": "...", "tools": [{"name": ..., "input": {...}}]}    a model turn (text streamed in small pieces)
  {"status": 429, "retry_after": 0}                              an HTTP error answer (429, 500, 529, 401, 400...)
  {"overloaded": true}                                           an Anthropic `error` event inside a 200 stream
  {"hang": true}                                                 starts the stream, then waits until released
  {"drop": true}                                                 starts the stream, then closes the connection

Strings in tool inputs may hold {{result:FIELD}}: the FIELD of the last tool result the
request carries (e.g. the version read_file returned), so scripts can read before writing.
Every request (path, headers, parsed body) is recorded for assertions.
"""
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeProvider:
    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.got_request = threading.Condition(self.lock)
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                provider.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def wait_for_requests(self, count, timeout=30):
        deadline = time.time() + timeout
        with self.lock:
            while len(self.requests) < count:
                left = deadline - time.time()
                if left <= 0:
                    raise AssertionError(f"only {len(self.requests)} requests arrived, expected {count}")
                self.got_request.wait(left)

    # -- one request -------------------------------------------------------------------

    def handle(self, h):
        length = int(h.headers.get("content-length", "0"))
        body = json.loads(h.rfile.read(length) or b"{}")
        with self.lock:
            self.requests.append({"path": h.path, "headers": {k.lower(): v for k, v in h.headers.items()}, "body": body})
            entry = self.script.pop(0) if self.script else {"text": "(the script ran out)"}
            self.got_request.notify_all()
        anthropic = h.path.endswith("/v1/messages")
        if "status" in entry:
            payload = {"type": "error", "error": {"type": "rate_limit_error" if entry["status"] == 429 else "api_error",
                                                  "message": entry.get("message", f"fake error {entry['status']}")}}
            if not anthropic:
                payload = {"error": {"message": entry.get("message", f"fake error {entry['status']}"), "type": "fake"}}
            data = json.dumps(payload).encode()
            h.send_response(entry["status"])
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(data)))
            if "retry_after" in entry:
                h.send_header("retry-after", str(entry["retry_after"]))
            h.end_headers()
            h.wfile.write(data)
            return
        h.send_response(200)
        h.send_header("content-type", "text/event-stream")
        h.send_header("cache-control", "no-cache")
        h.send_header("connection", "close")
        h.end_headers()
        h.close_connection = True
        try:
            if entry.get("hang"):
                h.wfile.write(b": waiting\n\n")
                h.wfile.flush()
                self.release.wait(120)
                return
            events = self.anthropic_events(entry, body) if anthropic else self.openai_events(entry, body)
            for i, event in enumerate(events):
                if entry.get("drop") and i == 2:
                    h.wfile.flush()
                    h.connection.shutdown(2)
                    return
                h.wfile.write(event.encode())
                h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    # -- scripts to wire formats ----------------------------------------------------------

    @staticmethod
    def last_result(body):
        """The parsed JSON of the last tool result in the request, either format."""
        for message in reversed(body.get("messages", [])):
            if message.get("role") == "tool":
                return json.loads(message["content"].split("\n\n")[0])
            content = message.get("content")
            if isinstance(content, list):
                for block in reversed(content):
                    if block.get("type") == "tool_result":
                        return json.loads(block["content"].split("\n\n")[0])
        return {}

    def resolve(self, value, body):
        if isinstance(value, str):
            return re.sub(r"\{\{result:(\w+)\}\}", lambda m: str(self.last_result(body).get(m.group(1), "")), value)
        if isinstance(value, dict):
            return {k: self.resolve(v, body) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v, body) for v in value]
        return value

    @staticmethod
    def pieces(text, size=7):
        return [text[i:i + size] for i in range(0, len(text), size)] or []

    def anthropic_events(self, entry, body):
        def ev(kind, data):
            data["type"] = kind
            return f"event: {kind}\ndata: {json.dumps(data)}\n\n"
        n = len(self.requests)
        out = [ev("message_start", {"message": {"id": f"msg_{n}", "role": "assistant", "content": [],
                                                "usage": {"input_tokens": 100 * n, "output_tokens": 1}}}), ev("ping", {})]
        index = 0
        text = entry.get("text", "")
        if entry.get("overloaded"):
            out.append(ev("error", {"error": {"type": "overloaded_error", "message": "Overloaded"}}))
            return out
        if text:
            out.append(ev("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}}))
            for piece in self.pieces(text):
                out.append(ev("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": piece}}))
            out.append(ev("content_block_stop", {"index": index}))
            index += 1
        tools = entry.get("tools", [])
        for t, tool in enumerate(tools):
            args = json.dumps(self.resolve(tool["input"], body))
            out.append(ev("content_block_start", {"index": index, "content_block": {"type": "tool_use", "id": f"toolu_{n}_{t}", "name": tool["name"], "input": {}}}))
            for piece in self.pieces(args, 11):
                out.append(ev("content_block_delta", {"index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}))
            out.append(ev("content_block_stop", {"index": index}))
            index += 1
        out.append(ev("message_delta", {"delta": {"stop_reason": "tool_use" if tools else "end_turn"}, "usage": {"output_tokens": 10 * n}}))
        out.append(ev("message_stop", {}))
        return out

    def openai_events(self, entry, body):
        n = len(self.requests)

        def chunk(delta, finish=None):
            return "data: " + json.dumps({"id": f"chatcmpl-{n}", "object": "chat.completion.chunk",
                                          "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"
        out = [chunk({"role": "assistant", "content": ""})]
        for piece in self.pieces(entry.get("text", "")):
            out.append(chunk({"content": piece}))
        tools = entry.get("tools", [])
        for t, tool in enumerate(tools):
            args = json.dumps(self.resolve(tool["input"], body))
            out.append(chunk({"tool_calls": [{"index": t, "id": f"call_{n}_{t}", "type": "function", "function": {"name": tool["name"], "arguments": ""}}]}))
            for piece in self.pieces(args, 11):
                out.append(chunk({"tool_calls": [{"index": t, "function": {"arguments": piece}}]}))
        out.append(chunk({}, "tool_calls" if tools else "stop"))
        out.append("data: " + json.dumps({"id": f"chatcmpl-{n}", "choices": [], "usage": {"prompt_tokens": 100 * n, "completion_tokens": 10 * n}}) + "\n\n")
        out.append("data: [DONE]\n\n")
        return out
