"""`notes mcp` at the wire level, for what the Python client cannot send: messages nested
far past any JSON decoder's limit, messages over the size limit, garbage lines. Each must
get an answer for its id (or be dropped with a JSON-RPC error) and leave the server serving
and the workspace untouched."""

import json
import os
import select
import subprocess
import time
import unittest

from notes_server import Workspace, notes_binary


class RawServer:
    def __init__(self, ws: Workspace):
        self.proc = subprocess.Popen(
            [notes_binary(), "mcp", "-w", str(ws.root), "--index-dir", str(ws.index)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buffer = b""

    def send(self, message) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 20) -> dict:
        deadline = time.time() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no answer from notes mcp")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise EOFError("notes mcp closed stdout; stderr: " + self.proc.stderr.read().decode(errors="replace")[-2000:])
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, id, method, params=None) -> dict:
        self.send({"jsonrpc": "2.0", "id": id, "method": method, **({"params": params} if params is not None else {})})
        answer = self.receive()
        self.assert_id(answer, id)
        return answer

    @staticmethod
    def assert_id(answer, id):
        if answer.get("id") != id:
            raise AssertionError(f"expected the answer to {id}, got {answer}")

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=20)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code


class WireLevel(unittest.TestCase):
    def setUp(self):
        # A small write limit makes "over the size limit" cheap to send.
        self.ws = Workspace(config="limits:\n  write_max_bytes: 100000\n")
        self.server = RawServer(self.ws)
        init = self.server.request(1, "initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "1"}})
        self.assertEqual(init["result"]["protocolVersion"], "2025-11-25")
        self.server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def tearDown(self):
        if self.server.proc.poll() is None:
            self.server.close()
        self.ws.cleanup()

    def call_tool(self, id, name, arguments):
        return self.server.request(id, "tools/call", {"name": name, "arguments": arguments})

    def tool_error(self, answer) -> dict:
        result = answer["result"]
        self.assertTrue(result["isError"], result)
        payload = json.loads(result["content"][0]["text"])
        self.assertEqual(payload, result["structuredContent"])
        return payload

    def test_deeply_nested_and_oversized_requests_are_answered(self):
        before = self.ws.snapshot()
        # 100,000 levels: beyond JSON decoders' recursion limits.
        deep = "[" * 100_000 + "]" * 100_000
        self.server.send(('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file","arguments":'
                          '{"path":"deep.md","content":' + deep + '}}}').encode())
        answer = self.server.receive()
        self.server.assert_id(answer, 7)
        self.assertEqual(self.tool_error(answer)["code"], "invalid_argument")
        # 70 levels, with the id after the arguments and as a string.
        self.server.send(('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search","arguments":{"query":'
                          + "[" * 70 + '"x"' + "]" * 70 + '}},"id":"deep-2"}').encode())
        answer = self.server.receive()
        self.server.assert_id(answer, "deep-2")
        self.assertEqual(self.tool_error(answer)["code"], "invalid_argument")
        # A deep message that is not a tool call gets a JSON-RPC error for its id.
        self.server.send(('{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":' + "[" * 5000 + "]" * 5000 + '}}').encode())
        answer = self.server.receive()
        self.server.assert_id(answer, 8)
        self.assertEqual(answer["error"]["code"], -32600)
        # Over the message limit (4 × write_max_bytes + 1 MB): too_large, for its id.
        huge = "x" * (3 << 20)
        self.server.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                          "params": {"name": "write_file", "arguments": {"path": "huge.md", "content": huge}}})
        answer = self.server.receive()
        self.server.assert_id(answer, 9)
        self.assertEqual(self.tool_error(answer)["code"], "too_large")
        # Over the write limit but under the message limit: too_large from the tool.
        answer = self.call_tool(10, "write_file", {"path": "big.md", "content": "y" * 200_000})
        self.assertEqual(self.tool_error(answer)["code"], "too_large")
        # Garbage and blank lines do not stop the server.
        self.server.send(b"this is not json")
        garbage = self.server.receive()
        self.assertEqual(garbage["error"]["code"], -32700)
        self.server.send(b"   ")
        # Still serving, nothing written.
        answer = self.call_tool(11, "search", {"query": "whale"})
        self.assertFalse(answer["result"].get("isError", False))
        self.assertTrue(answer["result"]["structuredContent"]["hits"])
        self.assertEqual(self.ws.snapshot(), before)
        self.assertEqual(self.server.close(), 0)

    def test_tool_calls_answered_by_the_shortcut_or_the_sdk_look_the_same(self):
        # Well-formed calls are answered by the server's shortcut (ToolCallShortcut), the
        # rest by the SDK: the client sees one protocol either way.
        fast = self.call_tool("id \\ with \"escapes\"", "read_file", {"path": "reading-list.md"})
        self.assertEqual(fast["id"], 'id \\ with "escapes"')
        self.assertEqual(fast["jsonrpc"], "2.0")
        result = fast["result"]
        self.assertFalse(result["isError"])
        self.assertEqual(json.loads(result["content"][0]["text"]), result["structuredContent"])
        self.assertEqual(result["content"][0]["type"], "text")
        self.assertIn("version", result["structuredContent"])
        # A batch holding a call goes to the SDK and is answered as a batch.
        self.server.send([{"jsonrpc": "2.0", "id": 31, "method": "tools/call",
                           "params": {"name": "read_file", "arguments": {"path": "reading-list.md"}}}])
        batch = self.server.receive()
        self.assertIsInstance(batch, list)
        self.assertEqual(batch[0]["id"], 31)
        self.assertEqual(batch[0]["result"]["structuredContent"], result["structuredContent"])
        # Malformed calls keep the SDK's JSON-RPC errors.
        for id, params in [(32, {"arguments": {}}), (33, {"name": "search", "arguments": ["whale"]}), (34, {"name": 7})]:
            self.server.send({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
            answer = self.server.receive()
            self.server.assert_id(answer, id)
            self.assertIn("error", answer, answer)
        # An unknown tool is a tool error either way.
        self.assertEqual(self.tool_error(self.call_tool(35, "no_such_tool", {}))["code"], "invalid_argument")
        self.assertEqual(self.server.close(), 0)

    def test_answers_every_request_before_exiting_at_end_of_input(self):
        # Several calls written at once, then stdin closed: every one is answered.
        for i in range(20, 30):
            self.server.send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                              "params": {"name": "read_file", "arguments": {"path": "reading-list.md"}}})
        self.server.proc.stdin.close()
        ids = set()
        for _ in range(10):
            ids.add(self.server.receive()["id"])
        self.assertEqual(ids, set(range(20, 30)))
        self.assertEqual(self.server.proc.wait(timeout=20), 0)


if __name__ == "__main__":
    unittest.main()
