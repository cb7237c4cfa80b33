"""`notes fetch` and the fetch_url tool against a local HTTP server on 127.0.0.1."""
import json
import os
import socket
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agent_support import Workspace
from fake_provider import FakeProvider

BOOK = ("CHAPTER 1. Loomings.\n\nCall me Ishmael. Some years ago, never mind how long precisely, having little or no money "
        "in my purse, and nothing particular to interest me on shore, I thought I would sail about a little.\n")
ETAG = '"book-v1"'


class Site:
    """Pages for the tests; records each request's path and headers."""

    def __init__(self):
        self.requests = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def send(self, status, body=b"", headers=()):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                site.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                if self.path == "/book.txt":
                    if self.headers.get("if-none-match") == ETAG:
                        return self.send(304, headers=[("etag", ETAG)])
                    return self.send(200, BOOK.encode(), [("content-type", "text/plain; charset=utf-8"), ("etag", ETAG)])
                if self.path == "/moved":
                    return self.send(302, headers=[("location", "/ebooks/book.txt")])
                if self.path == "/ebooks/book.txt":
                    return self.send(301, headers=[("location", "/book.txt")])
                if self.path == "/loop":
                    return self.send(302, headers=[("location", "/loop")])
                if self.path == "/big.txt":
                    return self.send(200, b"x" * 200_000, [("content-type", "text/plain")])
                if self.path == "/slow.txt":
                    self.send_response(200)
                    self.send_header("content-type", "text/plain")
                    self.send_header("content-length", "100")
                    self.end_headers()
                    self.wfile.write(b"partial ")
                    self.wfile.flush()
                    time.sleep(8)
                    return
                if self.path == "/latin1.txt":
                    return self.send(200, "Caf\u00e9 na\u00efve \u2014 no".encode("cp1252"), [("content-type", "text/plain; charset=ISO-8859-1")])
                if self.path == "/page.md":
                    return self.send(200, b"---\ntitle: Whales\n---\n\n# Whales\n\nThey sing.\n", [("content-type", "text/markdown"), ("last-modified", "Wed, 21 Oct 2026 07:28:00 GMT")])
                if self.path == "/image.png":
                    return self.send(200, b"\x89PNG\r\n\x1a\n\x00\x00", [("content-type", "image/png")])
                if self.path == "/down":
                    return self.send(503, b"maintenance", [("content-type", "text/plain")])
                return self.send(404, b"no such page", [("content-type", "text/plain")])

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class FetchTests(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()
        self.site = Site()

    def tearDown(self):
        self.site.close()
        self.ws.cleanup()

    def fetch(self, *args):
        return self.ws.notes("fetch", *args, "--json")

    def test_redirects_are_followed_and_the_text_saved(self):
        out = self.fetch(self.site.url("/moved"), "--to", "Research/moby-dick/fetched.txt")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        result = json.loads(out.stdout)
        self.assertEqual((result["status"], result["cached"], result["created"]), (200, False, True))
        self.assertEqual(result["final_url"], self.site.url("/book.txt"))
        self.assertEqual(self.ws.text("Research/moby-dick/fetched.txt"), BOOK)
        self.assertEqual([p for p, _ in self.site.requests], ["/moved", "/ebooks/book.txt", "/book.txt"])
        found = self.ws.notes("search", "Loomings", "--json")
        self.assertIn("Research/moby-dick/fetched.txt", found.stdout)

    def test_second_fetch_is_a_304_from_the_cache_and_writes_nothing(self):
        first = self.fetch(self.site.url("/book.txt"), "--to", "Research/book.txt")
        self.assertEqual(first.returncode, 0, first.stdout)
        before = self.ws.snapshot()
        mtime = os.stat(self.ws.path("Research/book.txt")).st_mtime_ns
        second = self.fetch(self.site.url("/book.txt"), "--to", "Research/book.txt")
        self.assertEqual(second.returncode, 0, second.stdout)
        result = json.loads(second.stdout)
        self.assertEqual((result["cached"], result["status"]), (True, 304))
        self.assertEqual(result["version"], json.loads(first.stdout)["version"])
        self.assertEqual(self.site.requests[-1][1].get("if-none-match"), ETAG)
        self.assertEqual(self.ws.snapshot(), before)
        self.assertEqual(os.stat(self.ws.path("Research/book.txt")).st_mtime_ns, mtime)
        # The person changes the file: the next fetch is unconditional and replaces it (history keeps theirs).
        self.ws.path("Research/book.txt").write_text("my own notes\n")
        third = self.fetch(self.site.url("/book.txt"), "--to", "Research/book.txt")
        self.assertEqual(json.loads(third.stdout)["cached"], False)
        self.assertNotIn("if-none-match", self.site.requests[-1][1])
        self.assertEqual(self.ws.text("Research/book.txt"), BOOK)
        restored = self.ws.notes("restore", "Research/book.txt")
        self.assertEqual(restored.returncode, 0, restored.stderr)
        self.assertEqual(self.ws.text("Research/book.txt"), "my own notes\n")

    def test_oversize_body_is_refused_and_nothing_written(self):
        before = self.ws.snapshot()
        out = self.fetch(self.site.url("/big.txt"), "--to", "Research/big.txt", "--max-bytes", "100000")
        self.assertEqual(out.returncode, 2)
        self.assertEqual(json.loads(out.stdout)["error"]["code"], "too_large")
        self.assertFalse(self.ws.path("Research/big.txt").exists())
        self.assertEqual(self.ws.snapshot(), before)

    def test_timeout_is_offline_quickly_and_nothing_written(self):
        before = self.ws.snapshot()
        started = time.time()
        out = self.fetch(self.site.url("/slow.txt"), "--to", "Research/slow.txt", "--timeout", "1")
        elapsed = time.time() - started
        self.assertEqual(out.returncode, 2, out.stdout)
        error = json.loads(out.stdout)["error"]
        self.assertEqual(error["code"], "offline")
        self.assertIn("timed out", error["message"])
        self.assertLess(elapsed, 6)
        self.assertFalse(self.ws.path("Research/slow.txt").exists())
        self.assertEqual(self.ws.snapshot(), before)

    def test_refused_connection_is_offline(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        before = self.ws.snapshot()
        out = self.ws.notes("fetch", f"http://127.0.0.1:{port}/x.txt", "--to", "Research/x.txt")
        self.assertEqual(out.returncode, 2)
        self.assertRegex(out.stderr, r"^notes: cannot fetch .*offline: cannot connect to 127\.0\.0\.1.*nothing was written\)\n$")
        self.assertEqual(self.ws.snapshot(), before)

    def test_markdown_gets_source_and_fetched_at_and_default_path(self):
        out = self.fetch(self.site.url("/page.md"))
        self.assertEqual(out.returncode, 0, out.stdout)
        result = json.loads(out.stdout)
        self.assertEqual(result["path"], "Fetched/127.0.0.1/page.md")
        text = self.ws.text(result["path"])
        self.assertTrue(text.startswith(f'---\nsource_url: "{self.site.url("/page.md")}"\nfetched_at: '), text)
        self.assertIn("title: Whales", text)
        self.assertIn("created_by: user", text)
        self.assertEqual(text.count("---\n"), 2)
        # Fetched again (no ETag, Last-Modified honoured): cached, still one source_url.
        again = json.loads(self.fetch(self.site.url("/page.md")).stdout)
        self.assertEqual(self.site.requests[-1][1].get("if-modified-since"), "Wed, 21 Oct 2026 07:28:00 GMT")
        self.assertEqual(again["path"], result["path"])
        self.assertEqual(self.ws.text(result["path"]).count("source_url:"), 1)

    def test_latin1_is_converted_binary_and_errors_refused(self):
        out = self.fetch(self.site.url("/latin1.txt"), "--to", "Research/latin1.txt")
        self.assertEqual(out.returncode, 0, out.stdout)
        self.assertEqual(self.ws.text("Research/latin1.txt"), "Caf\u00e9 na\u00efve \u2014 no")
        cases = [("/image.png", "not_text"), ("/missing", "not_found"), ("/down", "offline"), ("/loop", "invalid_argument")]
        for path, code in cases:
            out = self.fetch(self.site.url(path), "--to", "Research/x.txt")
            self.assertEqual(out.returncode, 2, path)
            self.assertEqual(json.loads(out.stdout)["error"]["code"], code, path)
        for bad in ("file:///etc/passwd", "ftp://example.org/x", "gopher://x", "not a url"):
            out = self.fetch(bad)
            self.assertEqual(json.loads(out.stdout)["error"]["code"], "invalid_argument", bad)
        self.assertFalse(self.ws.path("Research/x.txt").exists())

    def test_fetch_url_tool_through_the_agent(self):
        """The agent's fetch_url acts as the agent: protected and outside paths are refused."""
        fake = FakeProvider([
            {"tools": [{"name": "fetch_url", "input": {"url": self.site.url("/book.txt"), "path": "Research/moby-dick/agent-copy.txt"}},
                       {"name": "fetch_url", "input": {"url": self.site.url("/book.txt"), "path": ".notes/config.yml"}},
                       {"name": "fetch_url", "input": {"url": self.site.url("/book.txt"), "path": "../outside.txt"}}]},
            {"text": "Fetched."},
        ])
        try:
            run = self.ws.notes("agent", "Fetch the book", env=self.ws.anthropic_env(fake.url))
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(self.ws.text("Research/moby-dick/agent-copy.txt"), BOOK)
            results = fake.requests[1]["body"]["messages"][-1]["content"]
            self.assertFalse(results[0].get("is_error", False), results[0])
            self.assertEqual(json.loads(results[1]["content"])["code"], "protected_path")
            self.assertEqual(json.loads(results[2]["content"])["code"], "outside_workspace")
            self.assertFalse((self.ws.root.parent / "outside.txt").exists())
            history = self.ws.history("Research/moby-dick/agent-copy.txt")
            self.assertEqual((history[0]["actor"], history[0]["client"]), ("agent", "notes-agent"))
            # Only the one legitimate download reached the site.
            self.assertEqual([p for p, _ in self.site.requests], ["/book.txt"])
        finally:
            fake.close()


if __name__ == "__main__":
    unittest.main()
