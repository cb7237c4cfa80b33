"""Security (reliability plan D.28-D.37): the path corpus against every tool of a real
`notes mcp` through the official client, a symlink-swap race, provenance spoofing and
resource exhaustion. A sentinel folder outside the root must stay byte-identical and
never appear in any output."""

import asyncio
import ctypes
import json
import os
import subprocess
import sys
import time
import unicodedata
import unittest
from pathlib import Path

from support import SOAK, Workspace, call, fail, notes, notes_binary, reset_peak_rss, rss_kb, scaled, server_pid, session, tree_digest, version_of

CANARY = "sentinel-canary-7f3a"
EVIL_CANARY = "evil-canary-c0de"


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


class Corpus:
    """The hostile workspace: symlinks in and out, a sibling with a prefix name, a hard
    link, and the ~150 paths to try."""

    def __init__(self, ws: Workspace):
        root, temp = ws.root, ws.temp
        self.evil = Path(str(root) + "_evil")
        self.evil.mkdir()
        (self.evil / "s.md").write_text(f"# Evil\n\n{EVIL_CANARY}\n")
        self.shared = temp / "shared-outside.md"
        self.shared.write_text("# Shared\n\nhard-linked text\n")
        links = {
            "out_dir": "../sentinel", "out_dir_abs": str(ws.sentinel), "out_file.md": "../sentinel/secret.md",
            "chain_a": "chain_b", "chain_b": "../sentinel", "dangling.md": "../sentinel/missing.md",
            "loop_a": "loop_b", "loop_b": "loop_a", "Research/deep_out": "../../sentinel", "parent_link": "..",
            "root_link": "/", "in_dir": "Research", "in_file.md": "reading-list.md",
        }
        for name, target in links.items():
            os.symlink(target, root / name)
        os.link(self.shared, root / "hard.md")
        s = str(ws.sentinel)
        escapes = []
        for link in ["out_dir", "out_dir_abs", "chain_a", "Research/deep_out", "parent_link/sentinel", "root_link" + s]:
            escapes += [f"{link}/secret.md", f"{link}/new.md", f"{link}/sub/new.md", link]
        for prefix in ["../sentinel/", "./../sentinel/", "Research/../../sentinel/", "Research/./../../sentinel/",
                       "a/b/../../../sentinel/", "Research//..//..//sentinel/", f"../{root.name}/../sentinel/",
                       "Journal/../Research/../../sentinel/"]:
            escapes += [prefix + "secret.md", prefix + "new.md", prefix + "sub/new.md"]
        escapes += [s + "/secret.md", s + "/new.md", s, "/etc/passwd", "/etc/new.md", "//etc/passwd", "/", "/tmp/new.md",
                    str(root) + "/reading-list.md", str(root) + "/../sentinel/secret.md",
                    f"../{root.name}_evil/s.md", f"../{root.name}_evil/new.md", str(self.evil) + "/s.md", str(self.evil) + "/new.md",
                    "..", "../", "../..", "Research/../..", "out_file.md", "dangling.md", "loop_a/x.md", "loop_a", "loop_b/y/z.md",
                    "a\u0000b.md", "\u0000", "Research/\u0000x.md", "x.md\u0000/../../sentinel/secret.md", "", ".", "./",
                    "in_file.md/..", "~/.ssh/id_rsa"]
        protected_names = [".git/config", ".git/hooks/post-commit", ".env", ".env.local", ".env.production", ".notes/config.yml",
                           ".notes/history/log.jsonl", ".notes/new.md", ".notes/templates/x.md", "secrets/api.md",
                           "Research/secrets/x.md", "keys/server.pem", "id.key", "notes/deep/a/b/secrets/c.md"]
        protected = []
        for name in protected_names:
            variants = {name, name.upper(), name.title(), name.swapcase(), nfd(name)}
            protected += sorted(variants)
        protected += [nfd("Résumé/secrets/cv.md"), "Résumé/secrets/cv.md", "Research/Secrets/X.PEM"]
        # Odd but inside the root: may succeed, must stay inside.
        inside = ["..\\sentinel\\secret.md", "%2e%2e/sentinel/secret.md", "..%2fsentinel.md", "\u2025/x.md",
                  "a/\uff0e\uff0e/x.md", ".g\u200cit/config", "git~1/config", "in_dir/introduction.md", "in_file.md",
                  "hard.md", "café.md", nfd("café.md"), "....//x.md", "Research/.../x.md", " ../x.md"]
        self.escapes, self.protected, self.inside = escapes, protected, inside

    @property
    def count(self) -> int:
        return len(self.escapes) + len(self.protected) + len(self.inside)


class PathCorpus(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.ws = Workspace()
        (self.ws.root / "Research" / "secrets").mkdir()
        (self.ws.root / "Research" / "secrets" / "x.md").write_text("token-canary-91c2\n")
        self.corpus = Corpus(self.ws)

    async def asyncTearDown(self):
        self.ws.cleanup()
        if self.corpus.evil.exists():
            import shutil
            shutil.rmtree(self.corpus.evil, ignore_errors=True)

    async def test_every_tool_refuses_every_escape(self):
        ws, corpus = self.ws, self.corpus
        outside_before = {p.name for p in ws.temp.iterdir()} | {"index"}
        sentinel_before, evil_before = tree_digest(ws.sentinel), tree_digest(corpus.evil)
        shared_before = corpus.shared.read_bytes()
        zero = "0" * 16
        outputs: list[tuple[str, str]] = []
        refused = 0
        calls = 0
        async with session(ws) as s:
            templates = (await call(s, "list_templates"))["templates"]
            template = templates[0]["name"]

            async def mover_version() -> str:
                try:
                    return (await call(s, "read_file", path="mover.md"))["version"]
                except Exception:
                    return (await call(s, "write_file", path="mover.md", content="# Mover\n"))["version"]

            for path in corpus.escapes + corpus.protected + corpus.inside:
                attempts = [
                    ("read_file", {"path": path}),
                    ("list_files", {"path": path}),
                    ("search", {"query": "sentinel canary", "path": path}),
                    ("write_file", {"path": path, "content": "pwned\n"}),
                    ("write_file", {"path": path, "content": "pwned\n", "expected_version": zero, "confirm_user_edits": True}),
                    ("append_file", {"path": path, "content": "pwned"}),
                    ("edit_file", {"path": path, "expected_version": zero, "edits": [{"old_text": "a", "new_text": "b"}]}),
                    ("delete_file", {"path": path, "expected_version": zero, "confirm_user_edits": True}),
                    ("move_file", {"from": path, "to": "moved-away.md", "expected_version": zero}),
                    ("move_file", {"from": "mover.md", "to": path, "expected_version": await mover_version()}),
                    ("file_history", {"path": path}),
                    ("restore_file", {"path": path, "version": zero}),
                    ("new_from_template", {"template": template, "path": path, "variables": {"title": "x"}}),
                    ("fetch_url", {"url": "http://127.0.0.1:9/never", "path": path}),
                ]
                for tool, arguments in attempts:
                    calls += 1
                    result = await s.call_tool(tool, arguments)
                    text = result.content[0].text if result.content else ""
                    outputs.append((path, text))
                    if path in corpus.inside:
                        continue
                    with self.subTest(tool=tool, path=path):
                        if tool in ("list_files", "search", "new_from_template") and path in ("", ".", "./", "in_file.md/.."):
                            continue  # the root itself: listed, searched, a folder template instantiated there
                        if tool == "search":
                            # A path filter outside the root is refused, or matches nothing.
                            if not result.is_error:
                                self.assertEqual(json.loads(text)["hits"], [], (path, text[:300]))
                                continue
                        self.assertTrue(result.is_error, f"{tool} {path!r} succeeded: {text[:300]}")
                        code = json.loads(text)["code"]
                        wanted = {"protected_path"} if path in corpus.protected else {"outside_workspace", "invalid_argument"}
                        if tool == "fetch_url" and path in corpus.protected:
                            wanted = wanted | {"policy_denied"}
                        self.assertIn(code, wanted, f"{tool} {path!r}: {text[:300]}")
                        refused += 1
            # Protected and outside content is never searchable or listed.
            for query in [CANARY, EVIL_CANARY, "token-canary-91c2"]:
                self.assertEqual((await call(s, "search", query=query))["hits"], [], query)
            listing = json.dumps(await call(s, "list_files", recursive=True))
            self.assertNotIn("secrets", listing)
        for path, text in outputs:
            self.assertNotIn(CANARY, text, text[:300])
            self.assertNotIn(EVIL_CANARY, text, text[:300])
            # No absolute host path, unless the agent sent it in the path (then it may be echoed).
            if str(ws.temp) not in path:
                self.assertNotIn(str(ws.temp), text, text[:300])
        self.assertEqual(tree_digest(ws.sentinel), sentinel_before)
        self.assertEqual(tree_digest(corpus.evil), evil_before)
        self.assertEqual(corpus.shared.read_bytes(), shared_before, "a write went through the hard link")
        self.assertEqual({p.name for p in ws.temp.iterdir()}, outside_before, "something was created outside the root")
        for name in ["out_dir", "chain_a", "dangling.md", "in_file.md", "root_link"]:
            self.assertTrue((ws.root / name).is_symlink(), f"{name} was replaced")
        print(f"\npath corpus: {corpus.count} paths x 14 tool calls = {calls} calls; {refused} refusals checked; "
              f"sentinel unchanged, nothing outside the root", file=sys.stderr)


RENAME_EXCHANGE = 2


def exchange(a: Path, b: Path, libc=ctypes.CDLL(None, use_errno=True)):
    """Atomically swaps two names (renameat2 RENAME_EXCHANGE)."""
    AT_FDCWD = -100
    if libc.renameat2(AT_FDCWD, str(a).encode(), AT_FDCWD, str(b).encode(), RENAME_EXCHANGE) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")


class SymlinkSwapRace(unittest.IsolatedAsyncioTestCase):
    """A racer swaps a folder of the path for a symlink to the sentinel as fast as it can
    while the agent reads and writes through that path (plan D.31)."""

    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_a_swapped_folder_never_leaks_or_receives_a_byte(self):
        ws = self.ws
        (ws.sentinel / "a.md").write_text(f"# Outside\n\n{CANARY} in a.md\n")
        swap = ws.root / "Research" / "swap"
        swap.mkdir()
        (swap / "a.md").write_text("# Inside\n\ninside text\n")
        link = ws.root / "Research" / ".swap-link"
        os.symlink("../../sentinel", link)
        sentinel_before = tree_digest(ws.sentinel)
        racer = subprocess.Popen([sys.executable, "-c", (
            "import ctypes,sys,time\n"
            "libc=ctypes.CDLL(None,use_errno=True)\n"
            "a,b,end=sys.argv[1].encode(),sys.argv[2].encode(),time.time()+float(sys.argv[3])\n"
            "n=0\n"
            "while time.time()<end:\n"
            "    libc.renameat2(-100,a,-100,b,2); n+=1\n"
            "print(n)\n"), str(swap), str(link), str(scaled(8, 300, 20))], stdout=subprocess.PIPE, text=True)
        counts = {"reads": 0, "read_inside": 0, "writes": 0, "written": 0, "appends": 0, "searches": 0, "lists": 0}
        leaks = []
        try:
            async with session(ws) as s:
                i = 0
                while racer.poll() is None:
                    i += 1
                    for tool, arguments, key in [
                        ("read_file", {"path": "Research/swap/a.md"}, "reads"),
                        ("write_file", {"path": f"Research/swap/new-{i}.md", "content": "agent text\n"}, "writes"),
                        ("append_file", {"path": "Research/swap/a.md", "content": f"append {i}"}, "appends"),
                        ("list_files", {"path": "Research/swap"}, "lists"),
                        ("search", {"query": "outside OR canary OR inside", "path": "Research/swap/*"}, "searches"),
                    ]:
                        result = await s.call_tool(tool, arguments)
                        counts[key] += 1
                        text = result.content[0].text if result.content else ""
                        if CANARY in text or str(ws.sentinel) in text:
                            leaks.append((tool, text[:200]))
                        if not result.is_error and tool == "read_file":
                            counts["read_inside"] += 1
                        if not result.is_error and tool == "write_file":
                            counts["written"] += 1
        finally:
            swaps = int(racer.communicate(timeout=600)[0].strip() or 0)
        # Put the real folder back where it belongs before looking.
        if swap.is_symlink():
            exchange(swap, link)
        self.assertEqual(leaks, [])
        self.assertEqual(tree_digest(ws.sentinel), sentinel_before, "a byte reached the sentinel")
        self.assertGreater(swaps, 1000)
        self.assertGreater(counts["read_inside"], 0, counts)
        # Every acknowledged write landed inside the workspace.
        self.assertEqual(len(list(swap.glob("new-*.md"))), counts["written"])
        print(f"\nsymlink race: {swaps} swaps; {counts} ; 0 sentinel bytes read or written", file=sys.stderr)


class ProvenanceSpoofing(unittest.IsolatedAsyncioTestCase):
    """The agent claims the person's authorship in front matter (plan D.35)."""

    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_provenance_comes_from_the_real_actor(self):
        ws = self.ws
        spoof = ("---\ntitle: Spoof\ncreated_by: user\ncreated_at: 2001-01-01T00:00:00Z\nlast_modified_by: user\n"
                 "last_modified_at: 2001-01-01T00:00:00Z\n---\n# Spoof\n\nI am the person, honest.\n")
        notes("write", "mine.md", stdin="# Mine\n\nthe person's own note\n", ws=ws, check=True)
        async with session(ws) as s:
            created = await call(s, "write_file", path="spoof.md", content=spoof)
            read = await call(s, "read_file", path="spoof.md")
            # `by` is who last changed it; `created_by` is said only when someone else made it.
            self.assertEqual((read["by"], read.get("created_by", read["by"])), ("agent", "agent"), read)
            text = (ws.root / "spoof.md").read_text()
            self.assertNotIn("created_by: user", text)
            self.assertNotIn("2001-01-01", text)
            # The person's note stays the person's: an agent rewrite claiming created_by agent changes nothing of that.
            mine = await call(s, "read_file", path="mine.md")
            claim = "---\ncreated_by: agent\ncreated_at: 1999-01-01T00:00:00Z\n---\n# Mine\n\nrewritten\n"
            await call(s, "write_file", path="mine.md", content=claim, expected_version=mine["version"], confirm_user_edits=True)
            after = await call(s, "read_file", path="mine.md")
            self.assertEqual((after["by"], after.get("created_by", after["by"])), ("agent", "user"), after)
            self.assertNotIn("1999-01-01", (ws.root / "mine.md").read_text())
            # Appends and edits are stamped by the real actor too.
            await call(s, "append_file", path="spoof.md", content="last_modified_by: user")
            self.assertEqual((await call(s, "read_file", path="spoof.md"))["by"], "agent")
            self.assertTrue(created["version"])
        log = [json.loads(line) for line in (ws.root / ".notes" / "history" / "log.jsonl").read_text().splitlines()]
        spoofed = [r for r in log if r["path"] in ("spoof.md", "mine.md") and r["client"] != "notes"]
        self.assertTrue(spoofed)
        for record in spoofed:
            if record["path"] == "spoof.md" or record["op"] != "create":
                self.assertEqual(record["actor"], "agent" if record["client"] != "cli" else "user", record)


class ResourceExhaustion(unittest.IsolatedAsyncioTestCase):
    """Huge writes, many appends, huge listings and searches from the agent (plan D.37):
    typed errors, bounded memory, the server keeps answering.

    The workspace caps a file at 1 MB (`limits.write_max_bytes`), so the server's message cap
    (four times that, plus 1 MB) is 5 MB: the same limits as the default 16 MB and 65 MB,
    reached with a 64 MB message and a few appends instead of a 256 MB message and a file
    grown to 16 MB (a full history copy and a re-index per append) by a debug build."""

    async def asyncSetUp(self):
        self.ws = Workspace(config="limits:\n  write_max_bytes: 1048576\n")

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_caps_answer_with_errors_and_the_server_stays_responsive(self):
        ws = self.ws
        many = ws.root / "many"
        many.mkdir()
        entries = scaled(30_000, 1_000_000)
        for i in range(entries):
            (many / f"n{i:07d}.md").write_text("common word\n")
        figures = {}
        async with session(ws) as s:
            pid = server_pid(notes_binary())
            # The index is built before the memory is watched.
            started = time.monotonic()
            self.assertTrue((await call(s, "search", query="whale"))["hits"])
            figures["first search ms"] = round((time.monotonic() - started) * 1000)
            # A message far over the server's limit: refused, nothing written, and never held
            # in memory (the peak during it stays well under the message's size).
            size = scaled(64, 1024) << 20
            if pid:
                before = rss_kb(pid)
                reset_peak_rss(pid)
            started = time.monotonic()
            big = await s.call_tool("write_file", {"path": "huge.md", "content": "x" * size})
            figures["huge write ms"] = round((time.monotonic() - started) * 1000)
            self.assertTrue(big.is_error)
            self.assertEqual(json.loads(big.content[0].text)["code"], "too_large")
            self.assertFalse((ws.root / "huge.md").exists())
            if pid:
                peak = rss_kb(pid, "VmHWM")
                figures["server RSS MB before, peak during huge write"] = (before // 1024, peak // 1024)
                self.assertLess(peak - before, (size >> 10) // 4, "the server buffered the huge message")
            # Many appends: each answered; the file's cap ends them with too_large. Each
            # append keeps the previous version in history as a full copy, so the chunks keep
            # the file well under the cap (docs/guarantees.md, known limits).
            appends = scaled(300, 3_000)
            chunk = "y" * scaled(300, 100)
            started = time.monotonic()
            for i in range(appends):
                await call(s, "append_file", path="grow.md", content=f"{i} {chunk}")
            figures["append ms/call"] = round((time.monotonic() - started) * 1000 / appends, 2)
            limit_hit, large_appends = None, 0
            for i in range(100):
                result = await s.call_tool("append_file", {"path": "grow.md", "content": "z" * (256 << 10)})
                if result.is_error:
                    limit_hit = json.loads(result.content[0].text)["code"]
                    break
                large_appends += 1
            self.assertEqual(limit_hit, "too_large")
            self.assertGreater(large_appends, 0, "the cap refused the first large append: the appends tested nothing")
            self.assertLessEqual((ws.root / "grow.md").stat().st_size, 1 << 20)
            # A listing of a huge folder: capped, with the total and `truncated`.
            started = time.monotonic()
            listing = await call(s, "list_files", path="many")
            figures["list ms"] = round((time.monotonic() - started) * 1000)
            self.assertTrue(listing["truncated"])
            self.assertEqual(listing["total"], entries)
            self.assertLessEqual(len(listing["entries"]), 1000)
            # A search matching every file: capped by `limit`.
            hits = await s.call_tool("search", {"query": "common", "limit": 1_000_000})
            self.assertTrue(hits.is_error or len(json.loads(hits.content[0].text)["hits"]) <= 100)
            hits = await call(s, "search", query="common", limit=100)
            self.assertEqual(len(hits["hits"]), 100)
            # Still answering.
            started = time.monotonic()
            self.assertTrue((await call(s, "search", query="whale"))["hits"])
            figures["search after ms"] = round((time.monotonic() - started) * 1000)
            if pid:
                figures["server RSS MB at end"] = rss_kb(pid) // 1024
        print(f"\nresource exhaustion: {entries} entries; {figures}", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
