"""Search by meaning over MCP with the installed model, as an agent would use it: the server
embeds in the background and never makes a search wait; `mode`, `related`, filters on both
sides, and the coverage get_context reports. Skipped when the model is not installed
(scripts/setup installs it; scripts/test passes its folder as NOTES_TEST_MODEL_DIR)."""

import asyncio
import json
import os
import shutil
import time
import unittest
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from notes_server import SAMPLE, Workspace, call, notes, notes_binary, session, ToolError

MODEL = os.environ.get("NOTES_TEST_MODEL_DIR") or str(
    Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "notes" / "models" / "all-MiniLM-L6-v2")
HAVE_MODEL = (Path(MODEL) / "model.safetensors").is_file()


@unittest.skipUnless(HAVE_MODEL, "the embedding model is not installed (scripts/setup installs it)")
class SearchByMeaning(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()
        # The 1.3 MB book and the logbooks would take minutes to embed on a debug build.
        for big in ["Research/moby-dick/full_text.txt", "Research/whaling-history/sources/bedford-logbooks.txt"]:
            self.ws.path(big).unlink()

    def tearDown(self):
        self.ws.cleanup()

    async def wait_embedded(self, s, seconds=240):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            answer = await call(s, "search", query="whale hunting", limit=1)
            coverage = answer.get("semantic") or {}
            if coverage.get("files") and coverage.get("embedded_files") == coverage.get("files"):
                return answer
            await asyncio.sleep(0.5)
        self.fail(f"not embedded in {seconds} s: {coverage}")

    def test_the_server_embeds_in_the_background_and_searches_by_meaning(self):
        async def go():
            async with session(self.ws, env={"NOTES_MODEL_DIR": MODEL}) as s:
                tools = {t.name: t for t in (await s.list_tools()).tools}
                self.assertIn("related", tools)
                self.assertIn("mode", tools["search"].input_schema["properties"])
                # The first search answers at once, by whatever vectors exist.
                first = await call(s, "search", query="whale hunting", limit=3)
                self.assertTrue(first["hits"])
                self.assertLessEqual(first["semantic"]["embedded_files"], first["semantic"]["files"])
                # How far the embedding got; the model and passages only when asked (detail).
                self.assertEqual(set(first["semantic"]), {"embedded_files", "files"})
                context = await call(s, "get_context")
                self.assertIn("meaning", context["index"]["semantic"])
                await self.wait_embedded(s)
                # The model that made the vectors, once a pass has stored some (before the
                # background pass's first commit there is none to name).
                detailed = await call(s, "search", query="whale hunting", limit=1, detail=True)
                self.assertIn("model", detailed["semantic"])
                # No word of the question is in the note's text, which says "rammed and sank".
                answer = await call(s, "search", query="which ship was destroyed by an angry whale", mode="semantic", limit=3)
                self.assertEqual(answer["mode"], "semantic")
                self.assertEqual(answer["hits"][0]["path"], "Research/moby-dick/sources/essex-disaster.md")
                self.assertEqual(answer["hits"][0]["matched_by"], "meaning")
                # Hybrid is the default; the filter applies to the meaning side too.
                hybrid = await call(s, "search", query="which ship was destroyed by an angry whale", path="Journal")
                self.assertEqual(hybrid["mode"], "hybrid")
                self.assertTrue(all(h["path"].startswith("Journal/") for h in hybrid["hits"]), hybrid["hits"])
                # A hit says what found it only when one side alone did (both is the usual case).
                both = await call(s, "search", query="whale hunting ships")
                self.assertEqual(both["mode"], "hybrid")
                self.assertTrue(any("matched_by" not in h for h in both["hits"]), both["hits"])
                self.assertTrue(all(h.get("matched_by") in (None, "meaning", "words") for h in both["hits"]))
                # Related notes leave the note itself out.
                related = await call(s, "related", path="Research/moby-dick/introduction.md", limit=4)
                paths = [r["path"] for r in related["related"]]
                self.assertEqual(len(paths), 4)
                self.assertNotIn("Research/moby-dick/introduction.md", paths)
                self.assertTrue(all(0 < r["similarity"] <= 1 for r in related["related"]))
                # A note the agent writes is embedded too.
                await call(s, "write_file", path="Research/sea-shanties.md",
                           content="# Sea shanties\n\nSailors sang work songs to keep time while hauling the ropes.\n")
                await self.wait_embedded(s)
                songs = await call(s, "search", query="music the crew performed during labour", mode="semantic", limit=2)
                self.assertEqual(songs["hits"][0]["path"], "Research/sea-shanties.md")
                # A single word and a quoted phrase keep their exact meaning: no hits by meaning.
                for query in ("xyzzy", '"flying teapot"', "whale AND xyzzy"):
                    exact = await call(s, "search", query=query)
                    self.assertEqual((exact["mode"], exact["hits"]), ("lexical", []), query)
                    self.assertIn("next", exact)
        asyncio.run(go())
        # The command line, on the vectors the server stored: a question starts the model on
        # the query before the index is brought up to date, and answers as the server did.
        with_model = {"NOTES_MODEL_DIR": MODEL}
        for args, mode in ((["which ship was destroyed by an angry whale"], "hybrid"),
                           (["--mode", "semantic", "which", "ship", "was", "destroyed", "by", "an", "angry", "whale"], "semantic"),
                           (["--mode", "lexical", "which ship was destroyed by an angry whale"], "lexical")):
            result = notes("search", "--json", "--limit", "3", *args, ws=self.ws, env=with_model)
            self.assertEqual(result.returncode, 0, result.stderr)
            answer = json.loads(result.stdout)
            self.assertEqual(answer["mode"], mode, args)
            if mode != "lexical":
                self.assertEqual(answer["hits"][0]["path"], "Research/moby-dick/sources/essex-disaster.md", args)
        # A word with the model started for nothing (`status:draft` could be a key): the
        # process still exits cleanly after waiting for it.
        result = notes("search", "--mode", "hybrid", "status:draft", "xyzzy", ws=self.ws, env=with_model)
        self.assertIn(result.returncode, (0, 1), result.stderr)
        self.assertEqual(result.stderr.strip(), "")

    def test_a_note_another_process_indexed_is_embedded_too(self):
        # The person saves a note and runs a command line search in a terminal: that process
        # brings the shared index up to date (without embedding). The server's own refresh
        # then finds nothing new, yet the note must still be embedded (its pass follows the
        # index's files, not only its own refreshes).
        async def go():
            async with session(self.ws, env={"NOTES_MODEL_DIR": MODEL}) as s:
                await self.wait_embedded(s)
                self.ws.path("Research/shanties.md").write_text(
                    "# Sea shanties\n\nSailors sang work songs to keep time while hauling the ropes.\n")
                listed = notes("list", "Research", ws=self.ws)
                self.assertIn("Research/shanties.md", listed.stdout)
                answer = await self.wait_embedded(s, seconds=120)
                self.assertGreaterEqual(answer["semantic"]["files"], 1)
                songs = await call(s, "search", query="music the crew performed during labour", mode="semantic", limit=2)
                self.assertEqual(songs["hits"][0]["path"], "Research/shanties.md")
        asyncio.run(go())

    def test_related_before_a_note_is_embedded_says_retry(self):
        # From a trial: during the background pass, related answered invalid_argument with
        # a hint to run a command line. Another process holds the embedding (its lock), so
        # this server's pass cannot start: the note has no vectors yet.
        import fcntl
        self.ws.index.mkdir(parents=True, exist_ok=True)
        with open(self.ws.index / "embed.lock", "a+") as held:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)

            async def go():
                async with session(self.ws, env={"NOTES_MODEL_DIR": MODEL}) as s:
                    try:
                        await call(s, "related", path="Research/moby-dick/introduction.md")
                        self.fail("related answered before any note was embedded")
                    except ToolError as refused:
                        error = refused.payload
                    self.assertEqual(error["code"], "busy", error)
                    self.assertIn("not embedded yet", error["message"])
                    self.assertIn("retry related", error["hint"])
                    self.assertNotIn("`notes", json.dumps(error))
            asyncio.run(go())

    def test_a_session_closed_while_embedding_exits_cleanly(self):
        # The agent leaves while the server still embeds in the background: the pass must be
        # stopped and waited for before the process exits and frees the model under it (it
        # crashed in OpenBLAS at exit, signal 11, 3 times in 4).
        shutil.copy(SAMPLE / "Research/moby-dick/full_text.txt", self.ws.path("Research/moby-dick/full_text.txt"))
        errors = self.ws.temp / "server-stderr.txt"

        async def go():
            params = StdioServerParameters(
                command=notes_binary(), args=["mcp", "-w", str(self.ws.root), "--index-dir", str(self.ws.index)],
                env={**os.environ, "NO_COLOR": "1", "NOTES_MODEL_DIR": MODEL})
            with open(errors, "w") as errlog:
                async with stdio_client(params, errlog=errlog) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        await call(s, "search", query="which ship was sunk by a whale")
                        await asyncio.sleep(1.5)  # the background pass is running

        for _ in range(3):
            asyncio.run(go())
            time.sleep(0.5)  # the server's exit, after the client closed its stdin
            text = errors.read_text()
            self.assertNotIn("crashed", text)
            self.assertNotIn("Signal", text)

    def test_without_a_model_search_runs_by_words_and_says_why(self):
        async def go():
            async with session(self.ws) as s:
                answer = await call(s, "search", query="whale", limit=2)
                self.assertEqual(answer["mode"], "lexical")
                context = await call(s, "get_context")
                self.assertIn("no embedding model installed", context["index"]["semantic"])
                with self.assertRaises(ToolError) as refused:
                    await call(s, "search", query="whale", mode="semantic")
                self.assertEqual(refused.exception.code, "invalid_argument")
        asyncio.run(go())


if __name__ == "__main__":
    unittest.main()
