"""Issue 32, the agent's side of the table, through the official Python MCP client against
the built `notes mcp`: bounded reads, paged listings, recovery from not_found, hints that
work, path hygiene, annotations and a small tools/list."""

import json
import unicodedata
import unittest

from mcp import types

from notes_server import Workspace, call, fail, notes, result_json, session

BOOK = "Research/moby-dick/full_text.txt"


def options_of(payload: dict) -> list[str]:
    return payload.get("options") or []


class BoundedReads(unittest.IsolatedAsyncioTestCase):
    """Item 1: read_file answers a window; the pages put together are the file's bytes."""

    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_a_line_longer_than_the_window_is_cut(self):
        # A minified file or a log line: one line of 3 MB must not reach the model whole.
        self.ws.path("Research/one-line.txt").write_text("é" + "word " * 600_000 + "end\n")
        async with session(self.ws) as s:
            for arguments in [{}, {"limit": 1}, {"offset": 1}]:
                answer = await call(s, "read_file", path="Research/one-line.txt", **arguments)
                self.assertTrue(answer["line_cut"], arguments)
                self.assertTrue(answer["truncated"], arguments)
                self.assertEqual(answer["lines"], 1)
                self.assertLessEqual(len(answer["content"].encode()), 64 * 1024)
                self.assertTrue(answer["content"].startswith("éword word"))
            both = await call(s, "read_files", paths=["Research/one-line.txt", "context.md"])
            self.assertNotIn("code", json.dumps(both["files"][1])[:40])
            self.assertIn("content", both["files"][1])

    async def read_by_pages(self, s, path: str) -> tuple[bytes, int]:
        """Follows next_offset and next_column from the start; the bytes read and the pages."""
        pages, arguments = [], {}
        while True:
            page = await call(s, "read_file", path=path, **arguments)
            self.assertLessEqual(len(page["content"].encode()), 64 * 1024)
            pages.append(page["content"].encode())
            if not page.get("truncated"):
                self.assertNotIn("next_offset", page)
                return b"".join(pages), len(pages)
            if page.get("line_cut"):
                self.assertEqual(page["next_offset"], page["offset"], "a cut line continues")
            arguments = {"offset": page["next_offset"]}
            if "next_column" in page:
                arguments["column"] = page["next_column"]

    async def test_pages_continue_inside_a_line_longer_than_the_window(self):
        # One 1.25 MB line (multi-byte characters on the cuts), and a 200 KB line 4.
        one_line = ("é" + "word ü " * 178_600 + "end\n").encode()
        self.assertGreater(len(one_line), 1_250_000)
        self.ws.path("Research/one-line.txt").write_bytes(one_line)
        long_fourth = ("a\nb\nc\n" + "€x" * 50_000 + "\nfifth\nsixth").encode()
        self.assertGreater(len(long_fourth), 200_000)
        self.ws.path("Research/long-fourth.txt").write_bytes(long_fourth)
        async with session(self.ws) as s:
            read, pages = await self.read_by_pages(s, "Research/one-line.txt")
            self.assertEqual(read, one_line)
            self.assertGreaterEqual(pages, 20)
            read, _ = await self.read_by_pages(s, "Research/long-fourth.txt")
            self.assertEqual(read, long_fourth)
            # A column that is not a character start, or past the line, says so.
            inside = await fail(s, "read_file", {"path": "Research/long-fourth.txt", "offset": 4, "column": 1})
            self.assertEqual(inside["code"], "invalid_argument")
            self.assertIn("inside a character", inside["message"])
            past = await fail(s, "read_file", {"path": "Research/long-fourth.txt", "offset": 5, "column": 6})
            self.assertEqual(past["code"], "invalid_argument")
            self.assertIn("6 bytes", past["message"])

    async def test_an_offset_past_the_end_names_total_lines(self):
        self.ws.path("Research/numbers.txt").write_text("".join(f"{i}\n" for i in range(1, 22_334)))
        async with session(self.ws) as s:
            error = await fail(s, "read_file", {"path": "Research/numbers.txt", "offset": 99_999})
            self.assertEqual(error["code"], "invalid_argument")
            self.assertIn("total_lines 22333", error["message"])
            last = await call(s, "read_file", path="Research/numbers.txt", offset=22_333)
            self.assertEqual(last["content"], "22333\n")

    async def test_a_latin1_file_is_read_as_search_sees_it_and_not_overwritten(self):
        latin1 = "# Caf\u00e9\n\nna\u00efve r\u00e9sum\u00e9\nplain line\n".encode("latin-1")
        self.ws.path("Research/latin1.md").write_bytes(latin1)
        self.ws.path("Research/binary.bin").write_bytes(b"\x00\x01\x02binary")
        async with session(self.ws) as s:
            answer = await call(s, "read_file", path="Research/latin1.md")
            self.assertEqual(answer["content"], "# Caf\ufffd\n\nna\ufffdve r\ufffdsum\ufffd\nplain line\n")
            self.assertEqual(answer["invalid_utf8_line"], 1)
            self.assertIn("not UTF-8", answer["encoding"])
            # Saving the U+FFFDs back would lose the bytes: refused, the file unchanged.
            refused = await fail(s, "write_file", {"path": "Research/latin1.md", "content": answer["content"] + "more\n",
                                                   "expected_version": answer["version"]})
            self.assertEqual(refused["code"], "invalid_argument")
            self.assertIn("UTF-8", refused["hint"])
            edit = await fail(s, "edit_file", {"path": "Research/latin1.md", "expected_version": answer["version"],
                                               "edits": [{"old_text": "plain line", "new_text": "plain line, edited"}]})
            self.assertEqual(edit["code"], "not_text")
            self.assertEqual(self.ws.path("Research/latin1.md").read_bytes(), latin1)
            binary = await fail(s, "read_file", {"path": "Research/binary.bin"})
            self.assertEqual(binary["code"], "not_text")

    async def test_read_file_without_a_range_is_a_window_and_pages_rebuild_the_bytes(self):
        book = self.ws.path(BOOK).read_bytes()
        self.assertIn(b"\r\n", book)
        async with session(self.ws) as s:
            first = await call(s, "read_file", path=BOOK)
            self.assertTrue(first["truncated"])
            self.assertLessEqual(first["lines"], 2000)
            self.assertLessEqual(len(first["content"].encode()), 64 * 1024)
            self.assertEqual(first["next_offset"], first["offset"] + first["lines"])
            self.assertEqual(first["total_lines"], book.count(b"\n"))
            # The next step is named: read on, or search inside the file; that search works.
            self.assertIn(f"read_file with offset {first['next_offset']} reads on", first["next"])
            self.assertIn(f'search with a query and path "{BOOK}"', first["next"])
            inside = await call(s, "search", query="Queequeg", path=BOOK)
            self.assertEqual({hit["path"] for hit in inside["hits"]}, {BOOK})
            self.assertIn("\r\n", first["content"])  # CRLF kept, as in the file
            pages = [first["content"]]
            page = first
            while page.get("truncated"):
                page = await call(s, "read_file", path=BOOK, offset=page["next_offset"])
                self.assertLessEqual(len(page["content"].encode()), 64 * 1024)
                pages.append(page["content"])
            self.assertNotIn("next_offset", page)
            self.assertNotIn("next", page)
            self.assertEqual("".join(pages).encode(), book.removeprefix(b"\xef\xbb\xbf"))
            # An explicit range keeps the bytes too, and says there is more.
            ranged = await call(s, "read_file", path=BOOK, offset=3, limit=2)
            lines = book.split(b"\n")
            self.assertEqual(ranged["content"].encode(), lines[2] + b"\n" + lines[3] + b"\n")
            self.assertTrue(ranged["truncated"])
            self.assertEqual(ranged["next_offset"], 5)

    async def test_a_file_search_does_not_index_is_not_offered_to_search(self):
        self.ws.path("Research/server.log").write_text("".join(f"request {n} served\n" for n in range(5000)))
        async with session(self.ws) as s:
            first = await call(s, "read_file", path="Research/server.log")
            self.assertTrue(first["truncated"])
            self.assertEqual(first["next"], f"read_file with offset {first['next_offset']} reads on (5000 lines in all)")
            # A search inside it would find nothing and read as "nothing there": it says why
            # and offers read_file instead.
            refused = await fail(s, "search", {"query": "request 4321", "path": "Research/server.log"})
            self.assertEqual(refused["code"], "invalid_argument")
            self.assertIn("search does not look inside Research/server.log", refused["message"])
            self.assertEqual(refused["options"], ['read_file {"path": "Research/server.log"}'])
            # An indexed file in path searches inside it, as before.
            inside = await call(s, "search", query="Melville", path="reading-list.md")
            self.assertEqual([hit["path"] for hit in inside["hits"]], ["reading-list.md"])
            # Its related notes: none, and the answer says why rather than "not found".
            unrelated = await fail(s, "related", {"path": "Research/server.log"})
            self.assertEqual(unrelated["code"], "invalid_argument")
            self.assertIn("Research/server.log has no related notes", unrelated["message"])
            # A path that is neither a folder nor a file says both.
            nowhere = await fail(s, "search", {"query": "whale", "path": "server.log"})
            self.assertEqual((nowhere["code"], nowhere["message"]), ("not_found", "there is no folder or file server.log in the workspace"))

    async def test_crlf_file_read_whole_and_in_pages_is_the_same_bytes(self):
        self.ws.path("crlf.md").write_bytes(b"# Title\r\n\r\nfirst\r\nsecond\r\nlast line without break")
        async with session(self.ws) as s:
            whole = await call(s, "read_file", path="crlf.md")
            self.assertNotIn("truncated", whole)  # said only when true
            self.assertNotIn("next_offset", whole)
            paged = [(await call(s, "read_file", path="crlf.md", offset=i, limit=1))["content"] for i in range(1, whole["total_lines"] + 1)]
            self.assertEqual("".join(paged), whole["content"])
            self.assertEqual(whole["content"].encode(), self.ws.path("crlf.md").read_bytes())

    async def test_the_window_is_configurable(self):
        ws = Workspace(config="limits:\n  read_window_lines: 10\n  read_window_bytes: 100000\n")
        try:
            async with session(ws) as s:
                page = await call(s, "read_file", path=BOOK)
                self.assertEqual(page["lines"], 10)
                self.assertEqual(page["next_offset"], 11)
        finally:
            ws.cleanup()

    async def test_read_files_reads_several_each_bounded_and_the_total_bounded(self):
        async with session(self.ws) as s:
            answer = await call(s, "read_files", paths=["reading-list.md", "nope.md", BOOK, "Research/moby-dick/introduction.md"])
            files = answer["files"]
            self.assertEqual([f["path"] for f in files], ["reading-list.md", "nope.md", BOOK, "Research/moby-dick/introduction.md"])
            self.assertIn("Reading list", files[0]["content"])
            self.assertRegex(files[0]["version"], r"^[0-9a-f]{16}$")
            self.assertEqual(files[1]["code"], "not_found")
            self.assertTrue(files[2]["truncated"])
            self.assertLessEqual(len(files[2]["content"].encode()), 64 * 1024)
            self.assertIn("cetology", files[3]["content"])
            self.assertLessEqual(sum(len(f.get("content", "").encode()) for f in files), 256 * 1024)
            # Twenty copies of the book: the answer stays bounded.
            many = (await call(s, "read_files", paths=[BOOK] * 20))["files"]
            self.assertLessEqual(sum(len(f.get("content", "").encode()) for f in many), 256 * 1024)
            self.assertEqual(many[-1]["code"], "too_large")
            self.assertIn("read_file", many[-1]["hint"])


class PagedListings(unittest.IsolatedAsyncioTestCase):
    """Item 2: list_files and resources/list come in pages with a cursor."""

    async def asyncSetUp(self):
        self.ws = Workspace()
        bulk = self.ws.path("Bulk")
        for i in range(450):
            sub = bulk / f"part-{i % 3}"
            sub.mkdir(parents=True, exist_ok=True)
            (sub / f"note-{i:03}.md").write_text(f"# Note {i}\n\nbody {i}\n")

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_list_files_pages_with_a_cursor_and_compact_entries(self):
        async with session(self.ws) as s:
            first = await call(s, "list_files", path="Bulk", recursive=True)
            self.assertEqual(len(first["entries"]), 200)
            self.assertEqual(first["total"], 450)
            self.assertTrue(first["truncated"])
            seen = [e["path"] for e in first["entries"]]
            page = first
            while page.get("next_cursor"):
                page = await call(s, "list_files", path="Bulk", recursive=True, cursor=page["next_cursor"])
                seen += [e["path"] for e in page["entries"]]
            self.assertEqual(len(seen), 450)
            self.assertEqual(len(set(seen)), 450)
            entry = first["entries"][0]
            self.assertNotIn("provenance", entry)
            self.assertEqual(entry["by"], "user")
            self.assertLess(len(json.dumps(entry)), 220, entry)
            small = await call(s, "list_files", path="Bulk", recursive=True, limit=5)
            self.assertEqual(len(small["entries"]), 5)
            self.assertEqual((await fail(s, "list_files", {"cursor": "banana"}))["code"], "invalid_argument")

    async def test_depth_and_tree(self):
        async with session(self.ws) as s:
            top = await call(s, "list_files")
            self.assertIn({"path": "Bulk", "kind": "folder", "files": 450}, top["entries"])
            two = {e["path"]: e for e in (await call(s, "list_files", path="Research", depth=2))["entries"]}
            self.assertEqual(two["Research/moby-dick/introduction.md"]["kind"], "research")
            self.assertEqual(two["Research/moby-dick/sources"]["kind"], "folder")
            self.assertGreater(two["Research/moby-dick/sources"]["files"], 0)
            tree = await call(s, "list_files", tree=True)
            folders = {e["path"]: e["files"] for e in tree["entries"]}
            self.assertTrue(all(e["kind"] == "folder" for e in tree["entries"]))
            self.assertEqual(folders["Bulk"], 450)
            self.assertEqual(folders["Bulk/part-0"], 150)
            self.assertIn("Research/moby-dick/sources", folders)
            self.assertLess(len(json.dumps(tree)), 4000)

    async def test_resources_list_pages_of_at_most_200(self):
        async with session(self.ws) as s:
            page = await s.list_resources()
            self.assertLessEqual(len(page.resources), 200)
            self.assertIsNotNone(page.next_cursor)
            uris = [str(r.uri) for r in page.resources]
            while page.next_cursor:
                page = await s.list_resources(params=types.PaginatedRequestParams(cursor=page.next_cursor))
                self.assertLessEqual(len(page.resources), 200)
                uris += [str(r.uri) for r in page.resources]
            self.assertEqual(len(uris), len(set(uris)))
            self.assertIn("notes://Bulk/part-2/note-449.md", uris)


class RecoveryFromNotFound(unittest.IsolatedAsyncioTestCase):
    """Item 3: a missing file's answer says where it went or what was meant."""

    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    def assert_no_cli(self, payload):
        self.assertNotIn("`notes", json.dumps(payload))

    async def test_moved_and_deleted_files(self):
        async with session(self.ws) as s:
            await call(s, "write_file", path="Research/draft.md", content="# Draft\n\nwords\n")
            current = await call(s, "read_file", path="Research/draft.md")
            await call(s, "move_file", **{"from": "Research/draft.md", "to": "Research/moby-dick/draft.md", "expected_version": current["version"]})
            moved = await fail(s, "read_file", {"path": "Research/draft.md"})
            self.assertEqual(moved["code"], "not_found")
            self.assertEqual(moved["moved_to"], "Research/moby-dick/draft.md")
            self.assertIn("Research/moby-dick/draft.md", moved["message"])
            self.assert_no_cli(moved)
            again = await call(s, "read_file", path=moved["moved_to"])
            await call(s, "delete_file", path="Research/moby-dick/draft.md", expected_version=again["version"])
            gone = await fail(s, "read_file", {"path": "Research/moby-dick/draft.md"})
            self.assertEqual(gone["code"], "not_found")
            self.assertIn("deleted", gone["message"])
            self.assertIn("restore_file", gone["hint"])
            self.assertEqual(gone["restorable_version"], again["version"])
            self.assert_no_cli(gone)
            await call(s, "restore_file", path="Research/moby-dick/draft.md", version=gone["restorable_version"])
            self.assertIn("words", (await call(s, "read_file", path="Research/moby-dick/draft.md"))["content"])

    async def test_files_removed_or_moved_by_the_person(self):
        """From a trial: a file the person removed or moved by hand was a bare not_found, and
        get_context and file_history did not say so."""
        async with session(self.ws) as s:
            removed = await call(s, "write_file", path="Research/todelete.md", content="# To delete\n\nsoon gone\n")
            moved = await call(s, "write_file", path="Research/tomove.md", content="# To move\n\nsoon elsewhere\n")
            self.ws.path("Research/todelete.md").unlink()
            self.ws.path("Elsewhere").mkdir()
            self.ws.path("Research/tomove.md").rename(self.ws.path("Elsewhere/moved.md"))
            gone = await fail(s, "read_file", {"path": "Research/todelete.md"})
            self.assertEqual(gone["code"], "not_found")
            self.assertIn("was deleted (user, outside notes", gone["message"])
            self.assertEqual(gone["restorable_version"], removed["version"])
            self.assertIn("restore_file", gone["hint"])
            self.assert_no_cli(gone)
            elsewhere = await fail(s, "read_file", {"path": "Research/tomove.md"})
            self.assertEqual(elsewhere["moved_to"], "Elsewhere/moved.md")
            self.assertIn("was moved to Elsewhere/moved.md (user, outside notes", elsewhere["message"])
            self.assertIn("soon elsewhere", (await call(s, "read_file", path=elsewhere["moved_to"]))["content"])
            history = await call(s, "file_history", path="Research/todelete.md")
            self.assertEqual((history["versions"][0]["operation"], history["versions"][0]["client"]),
                             ("delete", "outside notes"))
            await call(s, "restore_file", path="Research/todelete.md", version=gone["restorable_version"])
            self.assertIn("soon gone", (await call(s, "read_file", path="Research/todelete.md"))["content"])

    async def test_get_context_lists_files_the_person_removed_or_moved(self):
        async with session(self.ws) as s:
            await call(s, "write_file", path="Research/todelete.md", content="# To delete\n\nsoon gone\n")
            moved = await call(s, "write_file", path="Research/tomove.md", content="# To move\n\nsoon elsewhere\n")
        # Between sessions the person deletes one and moves the other.
        self.ws.path("Research/todelete.md").unlink()
        self.ws.path("Elsewhere").mkdir()
        self.ws.path("Research/tomove.md").rename(self.ws.path("Elsewhere/moved.md"))
        async with session(self.ws) as s:
            context = await call(s, "get_context")
            changes = {(c["path"], c.get("operation", "edit")) for c in context["user_changes_since_last_session"]}
            self.assertIn(("Research/todelete.md", "delete"), changes)
            self.assertIn(("Elsewhere/moved.md", "move"), changes)
            # Logged once: a second session does not log them again.
            again = await call(s, "get_context")
            deletes = [c for c in again["user_changes_since_last_session"] if c["path"] == "Research/todelete.md"]
            self.assertEqual(len(deletes), 1)
        log = notes("history", "Research/todelete.md", ws=self.ws, check=True).stdout
        self.assertEqual(log.count("outside notes"), 1, log)

    async def test_near_misses_say_did_you_mean(self):
        nfd = unicodedata.normalize("NFD", "Research/Café notes.md")
        self.ws.path(nfd).write_text("# Café\n")
        self.ws.path('Research/the "wicked" book.md').write_text("# Wicked\n")
        async with session(self.ws) as s:
            for wrong, meant in [
                ("research/moby-dick/Introduction.md", "Research/moby-dick/introduction.md"),  # case
                ("reading-list", "reading-list.md"),  # missing extension
                ("reading-lst.md", "reading-list.md"),  # one letter
                (unicodedata.normalize("NFC", "Research/Café notes.md"), nfd),  # NFC asked, NFD on disk
                ('Research/the "wicked" bok.md', 'Research/the "wicked" book.md'),  # quotes in the name
            ]:
                miss = await fail(s, "read_file", {"path": wrong})
                self.assertEqual(miss["code"], "not_found", wrong)
                self.assertIn(meant, miss["did_you_mean"], wrong)
                # Each option is a call to copy: the tool's name, then its arguments as JSON.
                offered = [json.loads(option.split(" ", 1)[1])["path"] for option in miss["options"]]
                self.assertIn(meant, offered, miss["options"])
                self.assertIn("did you mean", miss["message"])
                self.assert_no_cli(miss)
                self.assertIn("# ", (await call(s, "read_file", path=miss["did_you_mean"][0]))["content"])
            nothing = await fail(s, "read_file", {"path": "zzzz/qqqq.md"})
            self.assertIn("list_files", nothing["hint"])
            self.assert_no_cli(nothing)

    async def test_paths_are_nfc_normalised_on_the_way_in(self):
        async with session(self.ws) as s:
            decomposed = unicodedata.normalize("NFD", "Research/Résumé.md")
            await call(s, "write_file", path=decomposed, content="# Résumé\n")
            names = [p.name for p in self.ws.path("Research").iterdir()]
            self.assertIn(unicodedata.normalize("NFC", "Résumé.md"), names)
            self.assertNotIn(unicodedata.normalize("NFD", "Résumé.md"), names)
            self.assertIn("Résumé", (await call(s, "read_file", path=unicodedata.normalize("NFC", "Research/Résumé.md")))["content"])


class HintsThatWork(unittest.IsolatedAsyncioTestCase):
    """Item 4: every option a refusal names is an argument of that tool, or a tool."""

    async def asyncSetUp(self):
        self.ws = Workspace(config="context:\n  max_bytes: 200\n")

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def assert_options_work(self, s, tool: str, payload: dict):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        arguments = set(tools[tool].input_schema["properties"])
        for option in options_of(payload):
            word = option.split(":")[0].split(" ")[0]
            self.assertTrue(word in arguments or word in tools or not word.isidentifier() or word in ("keep", "ask"),
                            f"{tool} refusal names {option!r}, which is neither an argument of {tool} nor a tool")

    async def test_edit_file_takes_the_on_conflict_its_refusal_suggests(self):
        path = self.ws.path("Research/moby-dick/themes.md")
        async with session(self.ws) as s:
            created = await call(s, "write_file", path="Research/moby-dick/themes.md", content="# Themes\n\nOne.\n\nTwo.\n")
            path.write_text(path.read_text().replace("Two.", "Two, as the person put it."))
            fresh = await call(s, "read_file", path="Research/moby-dick/themes.md")
            refused = await fail(s, "edit_file", {"path": "Research/moby-dick/themes.md", "expected_version": fresh["version"],
                                                  "edits": [{"old_text": "Two, as the person put it.", "new_text": "Two."}]})
            self.assertEqual(refused["code"], "user_edited")
            self.assertIn("on_conflict: propose", refused["options"])
            await self.assert_options_work(s, "edit_file", refused)
            proposed = await call(s, "edit_file", path="Research/moby-dick/themes.md", expected_version=fresh["version"],
                                  on_conflict="propose", edits=[{"old_text": "Two, as the person put it.", "new_text": "Two."}])
            self.assertTrue(proposed["proposal"])
            self.assertIn("as the person put it", path.read_text())
            self.assertNotEqual(created["version"], fresh["version"])

    async def test_delete_and_restore_refusals_name_only_their_own_arguments(self):
        path = self.ws.path("Research/moby-dick/themes.md")
        async with session(self.ws) as s:
            created = await call(s, "write_file", path="Research/moby-dick/themes.md", content="# Themes\n\nOne.\n")
            path.write_text(path.read_text() + "\nThe person's paragraph.\n")
            fresh = await call(s, "read_file", path="Research/moby-dick/themes.md")
            refused = await fail(s, "delete_file", {"path": "Research/moby-dick/themes.md", "expected_version": fresh["version"]})
            self.assertEqual(refused["code"], "user_edited")
            await self.assert_options_work(s, "delete_file", refused)
            restore = await fail(s, "restore_file", {"path": "Research/moby-dick/themes.md", "version": created["version"],
                                                     "expected_version": fresh["version"]})
            self.assertEqual(restore["code"], "user_edited")
            await self.assert_options_work(s, "restore_file", restore)
            self.assertNotIn("on_conflict \"merge\" to combine", restore["message"])

    async def test_context_budget_hint_works_a_proposal_on_an_append_only_path(self):
        async with session(self.ws) as s:
            context = (await call(s, "get_context"))["context"]
            self.assertTrue(context["over_limit"])
            self.assertIn("propose", context["note"])
            before = self.ws.path("context.md").read_bytes()
            plain = await fail(s, "write_file", {"path": "context.md", "content": "# Context\n\nshort\n", "expected_version": context["version"]})
            self.assertEqual(plain["code"], "policy_denied")
            await self.assert_options_work(s, "write_file", plain)
            proposed = await call(s, "write_file", path="context.md", content="# Context\n\nshort\n",
                                  expected_version=context["version"], on_conflict="propose")
            self.assertTrue(proposed["proposal"])
            self.assertEqual(self.ws.path("context.md").read_bytes(), before)
            self.assertEqual([p["path"] for p in (await call(s, "get_context"))["pending_proposals"]], ["context.md"])


class InputHygieneAndAnnotations(unittest.IsolatedAsyncioTestCase):
    """Items 8 and 11: backslashes refused; fetch_url open-world and destructive; a folder
    read points at list_files; tools/list stays small."""

    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_backslashes_are_refused_naming_the_forward_slash_form(self):
        async with session(self.ws) as s:
            before = self.ws.snapshot()
            refused = await fail(s, "write_file", {"path": "Research\\win\\a.md", "content": "x"})
            self.assertEqual(refused["code"], "invalid_argument")
            self.assertIn("Research/win/a.md", refused["hint"])
            self.assertEqual(self.ws.snapshot(), before)
            self.assertEqual((await fail(s, "read_file", {"path": "Research\\moby-dick\\notes.md"}))["code"], "invalid_argument")

    async def test_annotations_and_folder_reads(self):
        async with session(self.ws) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            self.assertTrue(tools["fetch_url"].annotations.open_world_hint)
            self.assertTrue(tools["fetch_url"].annotations.destructive_hint)
            self.assertFalse(tools["read_file"].annotations.open_world_hint)
            self.assertFalse(tools["write_file"].annotations.open_world_hint)
            folder = await fail(s, "read_file", {"path": "Research/moby-dick"})
            self.assertIn("list_files", folder["hint"])
            self.assertEqual(folder["code"], "invalid_argument")

    async def test_a_search_with_no_hits_names_the_next_step(self):
        async with session(self.ws) as s:
            empty = await call(s, "search", query="xylophone quartet")
            self.assertEqual(empty["hits"], [])
            self.assertIn("list_files", empty["next"])
            self.assertIn("by words only", empty["next"])  # the test server has no model
            found = await call(s, "search", query="whale", limit=100)
            self.assertNotIn("next", found)
            # A folder that does not exist is a mistake to report, not "no hits".
            for arguments in ({"query": "whale", "path": "Nope"}, {"query": "whale in:Nope"}):
                missing = await fail(s, "search", arguments)
                self.assertEqual(missing["code"], "not_found")
                self.assertIn("list_files", missing["hint"])
            # The CLI's --in is the tool's path: the hint says so.
            named = await fail(s, "search", {"query": "whale", "in": "Journal"})
            self.assertEqual(named["code"], "invalid_argument")
            self.assertIn("use path for in", named["hint"])
            # A near miss names the folder and the call to make.
            for arguments in ({"query": "whale", "path": "journal"}, {"query": "whale in:Jornal"}):
                near = await fail(s, "search", arguments)
                self.assertEqual(near["code"], "not_found")
                self.assertEqual(near["did_you_mean"], ["Journal"], near)
                self.assertIn('"path": "Journal"', near["options"][0])
                self.assertIn('"query": ', near["options"][0])

    async def test_mcp_help_names_every_tool_the_server_offers(self):
        # The help's list comes from the catalog, so a new tool (related) cannot be left out.
        async with session(self.ws) as s:
            names = [t.name for t in (await s.list_tools()).tools]
        help_text = " ".join(notes("mcp", "--help").stdout.split())
        self.assertIn(f"gets {len(names)} tools:", help_text)
        for name in names:
            self.assertRegex(help_text, rf"\b{name}\b")

    async def test_tools_list_is_small_and_repeats_no_description(self):
        async with session(self.ws) as s:
            tools = (await s.list_tools()).tools
            size = len(json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in tools], separators=(",", ":"), ensure_ascii=False))
            self.assertLessEqual(size, 12_000)
            seen = {}
            for tool in tools:
                for name, schema in tool.input_schema["properties"].items():
                    description = schema.get("description")
                    if description:
                        self.assertNotIn(description, seen, f"{tool.name}.{name} repeats {seen.get(description)}")
                        seen[description] = f"{tool.name}.{name}"


class CompactAnswers(unittest.IsolatedAsyncioTestCase):
    """Item 10: each fact once. Answers do not echo what the agent passed (the path, the
    version it expected, the query), leave fields at their usual values out, and give
    provenance as `by` (+ `created_by` when someone else made the file)."""

    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_reads_and_changes_say_each_fact_once(self):
        path = "Research/moby-dick/themes.md"
        async with session(self.ws) as s:
            notes = await call(s, "read_file", path="Research/moby-dick/notes.md")
            self.assertEqual(set(notes), {"content", "version", "by", "total_lines"})
            intro = await call(s, "read_file", path="Research/moby-dick/introduction.md")
            self.assertEqual((intro["by"], intro["created_by"]), ("user", "agent"))
            window = await call(s, "read_file", path=BOOK, offset=1, limit=60)
            self.assertEqual((window["offset"], window["lines"], window["truncated"], window["next_offset"]), (1, 60, True, 61))
            self.assertGreater(window["size"], 1_000_000)
            self.assertNotIn("path", window)
            # read_files names each file: several share one answer.
            self.assertEqual([f["path"] for f in (await call(s, "read_files", paths=["reading-list.md"]))["files"]], ["reading-list.md"])

            created = await call(s, "write_file", path=path, content="# Themes\n\nOne.\n\nTwo.\n")
            self.assertEqual(set(created), {"created", "version"})
            edited = await call(s, "edit_file", path=path, expected_version=created["version"],
                                edits=[{"old_text": "Two.", "new_text": "Two, better."}])
            self.assertEqual(set(edited), {"diff", "version"})  # previous_version was the expected_version
            self.assertTrue(edited["diff"].startswith("@@ "), edited["diff"])
            self.assertIn("+Two, better.", edited["diff"])
            same = await call(s, "write_file", path=path, content=(self.ws.path(path).read_text()), expected_version=edited["version"])
            self.assertIs(same["changed"], False)
            appended = await call(s, "append_file", path=path, content="Three.")
            self.assertEqual(appended["previous_version"], edited["version"])  # no version was passed
            self.assertNotIn("path", appended)
            dry = await call(s, "edit_file", path=path, expected_version=appended["version"], dry_run=True,
                             edits=[{"old_text": "One.", "new_text": "Uno."}])
            self.assertIs(dry["dry_run"], True)

            history = await call(s, "file_history", path=path)
            self.assertNotIn("path", history)
            versions = history["versions"]
            self.assertEqual(history["current_version"], versions[0]["version"])
            self.assertTrue(all("path" not in v and "previous_version" not in v for v in versions), versions)
            self.assertEqual([v["operation"] for v in versions], ["append", "edit", "create"])
            moved = await call(s, "move_file", **{"from": path, "to": "Research/moby-dick/themes-2.md", "expected_version": appended["version"]})
            self.assertEqual((moved["from"], moved["path"]), (path, "Research/moby-dick/themes-2.md"))
            after_move = (await call(s, "file_history", path="Research/moby-dick/themes-2.md"))["versions"]
            self.assertEqual((after_move[0]["path"], after_move[0]["to"]), (path, "Research/moby-dick/themes-2.md"))

            learned = await call(s, "remember", fact="Marks chapters with sticky notes.")
            self.assertNotIn("path", learned)
            self.assertEqual(learned["section"], "Learned")

    async def test_an_edit_diff_is_the_change_asked_for_without_the_stamp(self):
        path = "Research/stamp.md"
        async with session(self.ws) as s:
            await call(s, "write_file", path=path, content="# Stamp\n\nOne.\n\nTwo.\n")
            # An older last_modified_at (the clock moved on, as between any two real calls).
            text = self.ws.path(path).read_text()
            stamp = next(line for line in text.splitlines() if line.startswith("last_modified_at: "))
            self.ws.path(path).write_text(text.replace(stamp, "last_modified_at: 2001-01-01T00:00:00Z"))
            fresh = await call(s, "read_file", path=path)
            edited = await call(s, "edit_file", path=path, expected_version=fresh["version"],
                                edits=[{"old_text": "Two.", "new_text": "Two, better."}])
            self.assertEqual(edited["diff"], "@@ -8,4 +8,4 @@\n \n One.\n \n-Two.\n+Two, better.\n")
            self.assertNotIn("2001-01-01", self.ws.path(path).read_text())  # the file is stamped all the same

    async def test_orientation_answers_leave_out_the_usual_values(self):
        async with session(self.ws) as s:
            context = await call(s, "get_context")
            self.assertNotIn("rules", context)  # the server's instructions and the tools say them
            self.assertEqual(set(context["context"]) - {"note"}, {"content", "version", "size", "max_bytes"})
            self.assertNotIn("pending_proposals", context)
            self.assertNotIn("more_user_changes", context)
            self.assertEqual(set(context["index"]) - {"refreshed", "problems"}, {"indexed", "semantic"})
            self.assertTrue(all(c.get("operation") != "edit" for c in context["user_changes_since_last_session"]))

            found = await call(s, "search", query="whale")
            self.assertNotIn("query", found)
            by_path = {h["path"]: h for h in found["hits"]}
            self.assertNotIn("title", by_path["Journal/2026-11-20.md"])  # the title is the file's name
            self.assertEqual(by_path["Research/moby-dick/notes.md"]["title"], "My Moby-Dick reading notes")
            for hit in found["hits"]:
                self.assertTrue(hit.get("section") is None or hit["section"] != hit.get("title"), hit)
            # A best line under the title's own heading goes without its section; under
            # another heading, it names it.
            history = by_path["Research/whaling-history/introduction.md"]
            self.assertNotIn("section", history)
            intro = by_path["Research/moby-dick/introduction.md"]
            self.assertEqual(intro["section"], "Reading plan")

            listed = await call(s, "list_files", path="Research/moby-dick")
            self.assertEqual(set(listed), {"entries", "total"})  # no echo of the folder, truncated only when true

            tools = {t.name: t for t in (await s.list_tools()).tools}
            self.assertIsNone(tools["write_file"].annotations.read_only_hint)  # false is the default
            self.assertIsNone(tools["read_file"].annotations.idempotent_hint)  # means nothing for a reading tool
            self.assertTrue(tools["write_file"].annotations.idempotent_hint)


QUESTIONS = [
    "how did the whaling industry decline", "what happened to the Essex", "why does Ishmael survive",
    "how were sailors paid on a whaling voyage", "which books am I planning to read", "what does try-works mean",
    "whale", "Queequeg", "Melville's letter to Hawthorne",
]


class CompactSearchHits(unittest.IsolatedAsyncioTestCase):
    """Item 10: a search hit is about 300 characters at the default limit — the file, its
    version, who changed it, why it matched and its best line quoted as written, so that the
    line can go back as edit_file's old_text; match spans, every snippet and the full
    provenance come with `detail`."""

    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_hits_average_at_most_300_characters_at_the_default_limit(self):
        async with session(self.ws) as s:
            chars, hits = 0, []
            for question in QUESTIONS:
                result = await s.call_tool("search", {"query": question})
                chars += len(result.content[0].text)  # what the model reads
                hits += result_json(result)["hits"]
            self.assertGreater(len(hits), 50)
            self.assertLessEqual(chars / len(hits), 300, f"{chars / len(hits):.0f} characters a hit")
            for hit in hits:
                self.assertNotIn("snippets", hit)
                self.assertNotIn("provenance", hit)
                self.assertRegex(hit["version"], r"^[0-9a-f]{16}$")
                self.assertGreater(hit["line"], 0)
            # detail still gives every snippet with its spans, and the full provenance.
            detailed = await call(s, "search", query="whale", detail=True)
            self.assertTrue(all("last_modified_by" in h["provenance"] for h in detailed["hits"]))
            self.assertTrue(any(len(h["snippets"]) > 1 and h["snippets"][0]["spans"] for h in detailed["hits"]))

    async def test_a_hit_quotes_its_line_as_written(self):
        async with session(self.ws) as s:
            for question in QUESTIONS:
                for hit in (await call(s, "search", query=question))["hits"]:
                    lines = self.ws.text(hit["path"]).splitlines()
                    self.assertIn(hit["text"], lines[hit["line"] - 1], (question, hit))
                    self.assertNotIn("quoted", hit)
                    if "unique" not in hit:
                        self.assertEqual(self.ws.text(hit["path"]).count(hit["text"]), 1, hit)

    async def test_a_hit_s_text_and_version_make_an_edit(self):
        # The line has Markdown the index leaves out (*Essex*): the hit quotes it as written.
        path = "Research/moby-dick/sources/essex-disaster.md"
        async with session(self.ws) as s:
            hit = next(h for h in (await call(s, "search", query="Essex rammed"))["hits"] if h["path"] == path)
            self.assertIn("*Essex*", hit["text"])
            await call(s, "edit_file", path=path, expected_version=hit["version"],
                       edits=[{"old_text": hit["text"], "new_text": hit["text"] + " (Owen Chase's account)"}])
        self.assertIn("*Essex* in the Pacific. (Owen Chase's account)", self.ws.text(path))

    async def test_a_long_line_is_quoted_around_the_match_at_word_boundaries(self):
        path = "Research/long-paragraph.md"
        words = " ".join(f"word{i}" for i in range(80))
        line = f"{words} see [the log](https://example.org/{'x' * 60}) where the quokka appears, then {words}"
        async with session(self.ws) as s:
            await call(s, "write_file", path=path, content=f"# Long\n\n{line}\n")  # the agent's line
            hit = next(h for h in (await call(s, "search", query="quokka"))["hits"] if h["path"] == path)
            text = hit["text"]
            self.assertEqual(self.ws.text(path).splitlines()[hit["line"] - 1], line)
            self.assertIn("quokka", text)
            self.assertLessEqual(len(text), 120)
            self.assertIn(text, line)
            start = line.index(text)
            self.assertEqual(line[start - 1], " ")  # it starts after a space
            end = start + len(text)
            self.assertTrue(line[end] in " )", line[end:end + 10])  # and ends before a space or after a mark
            edited = await call(s, "edit_file", path=path, expected_version=hit["version"],
                                edits=[{"old_text": text, "new_text": text.replace("quokka", "wombat")}])
            self.assertNotIn("code", edited)
        self.assertIn("where the wombat appears", self.ws.text(path))

    async def test_crlf_and_unspaced_lines_are_quoted_exactly(self):
        cjk = "鲸" * 30 + "捕鲸船在太平洋上航行了三年" + "海" * 200
        self.ws.path("Research/crlf.md").write_bytes(b"# Log\r\n\r\nThe quokka logbook, kept at sea.\r\n")
        self.ws.path("Research/cjk.md").write_text(f"# 捕鲸\n\n{cjk}\n")
        async with session(self.ws) as s:
            crlf = next(h for h in (await call(s, "search", query="quokka"))["hits"] if h["path"] == "Research/crlf.md")
            self.assertEqual(crlf["text"], "The quokka logbook, kept at sea.")
            self.assertEqual(crlf["line"], 3)
            hit = next(h for h in (await call(s, "search", query="太平洋"))["hits"] if h["path"] == "Research/cjk.md")
            self.assertIn("太平洋", hit["text"])
            self.assertIn(hit["text"], cjk)
            self.assertLessEqual(len(hit["text"]), 120)

    async def test_a_line_that_occurs_twice_says_so(self):
        path = "Research/refrain.md"
        self.ws.path(path).write_text("# Song\n\nThe quokka refrain.\n\nA verse.\n\nThe quokka refrain.\n")
        async with session(self.ws) as s:
            hit = next(h for h in (await call(s, "search", query="quokka"))["hits"] if h["path"] == path)
            self.assertEqual(hit["text"], "The quokka refrain.")
            self.assertIs(hit["unique"], False)
            refused = await fail(s, "edit_file", {"path": path, "expected_version": hit["version"],
                                                  "edits": [{"old_text": hit["text"], "new_text": "x"}]})
            self.assertIn("2 times", refused["message"])


THEMES = "# Themes\n\n## Obsession\n\nAhab's hunt.\n\n## Knowledge\n\nCetology fails.\nOn purpose.\n\n## Friendship\n\nIshmael and Queequeg.\n"


class SectionEdits(unittest.IsolatedAsyncioTestCase):
    """Item 5: edit_file replaces, appends to, prepends to and inserts after a section,
    under the same guard as any edit."""

    async def asyncSetUp(self):
        self.ws = Workspace()
        self.file = self.ws.path("Research/moby-dick/themes.md")

    async def asyncTearDown(self):
        self.ws.cleanup()

    def body(self) -> str:
        text = self.file.read_text()
        return text[text.index("# Themes"):]

    async def test_the_four_section_modes(self):
        async with session(self.ws) as s:
            v = (await call(s, "write_file", path="Research/moby-dick/themes.md", content=THEMES))["version"]
            edited = await call(s, "edit_file", path="Research/moby-dick/themes.md", expected_version=v, edits=[
                {"section": "Knowledge", "mode": "replace", "new_text": "The classification is the joke."},
                {"section": "Obsession", "mode": "append", "new_text": "Starbuck resists."},
                {"section": "## friendship", "mode": "prepend", "new_text": "A bed, a pipe, a fate."},
                {"section": "Friendship", "mode": "insert_after", "new_text": "## Fate\n\nThe coffin saves him."},
            ])
            self.assertIn("+The classification is the joke.", edited["diff"])
            self.assertEqual(self.body(), "# Themes\n\n## Obsession\n\nAhab's hunt.\n\nStarbuck resists.\n\n## Knowledge\n\n"
                             "The classification is the joke.\n\n## Friendship\n\nA bed, a pipe, a fate.\n\nIshmael and Queequeg.\n\n"
                             "## Fate\n\nThe coffin saves him.\n")
            missing = await fail(s, "edit_file", {"path": "Research/moby-dick/themes.md", "expected_version": edited["version"],
                                                  "edits": [{"section": "Whiteness", "mode": "append", "new_text": "x"}]})
            self.assertEqual(missing["code"], "invalid_argument")
            self.assertIn("Obsession", missing["hint"])
            bad = await fail(s, "edit_file", {"path": "Research/moby-dick/themes.md", "expected_version": edited["version"],
                                              "edits": [{"section": "Fate", "mode": "sideways", "new_text": "x"}]})
            self.assertEqual(bad["code"], "invalid_argument")

    async def test_the_persons_lines_in_a_section_are_protected(self):
        async with session(self.ws) as s:
            await call(s, "write_file", path="Research/moby-dick/themes.md", content=THEMES)
            self.file.write_text(self.file.read_text().replace("Cetology fails.", "Cetology fails, gloriously (the person)."))
            fresh = await call(s, "read_file", path="Research/moby-dick/themes.md")
            refused = await fail(s, "edit_file", {"path": "Research/moby-dick/themes.md", "expected_version": fresh["version"],
                                                  "edits": [{"section": "Knowledge", "mode": "replace", "new_text": "Short."}]})
            self.assertEqual(refused["code"], "user_edited")
            self.assertTrue(any("gloriously" in line for line in refused["lost_lines"]))
            self.assertIn("gloriously", self.file.read_text())
            proposed = await call(s, "edit_file", path="Research/moby-dick/themes.md", expected_version=fresh["version"], on_conflict="propose",
                                  edits=[{"section": "Knowledge", "mode": "replace", "new_text": "Short."}])
            self.assertTrue(proposed["proposal"])
            appended = await call(s, "edit_file", path="Research/moby-dick/themes.md", expected_version=fresh["version"],
                                  edits=[{"section": "Knowledge", "mode": "append", "new_text": "See chapter 32."}])
            text = self.file.read_text()
            self.assertIn("Cetology fails, gloriously (the person).\nOn purpose.\n\nSee chapter 32.\n\n## Friendship", text)
            self.assertNotIn("changed", appended)  # said only when nothing changed
            self.assertRegex(appended["version"], r"^[0-9a-f]{16}$")

    async def test_a_crlf_file_keeps_its_line_breaks(self):
        self.ws.path("crlf.md").write_bytes(b"# A\r\n\r\n## B\r\n\r\nb text\r\n")
        async with session(self.ws) as s:
            v = (await call(s, "read_file", path="crlf.md"))["version"]
            await call(s, "edit_file", path="crlf.md", expected_version=v, edits=[{"section": "B", "mode": "append", "new_text": "more\nlines"}])
            self.assertTrue(self.ws.path("crlf.md").read_bytes().endswith(b"## B\r\n\r\nb text\r\n\r\nmore\r\nlines\r\n"))


class ProposalsOverMCP(unittest.IsolatedAsyncioTestCase):
    """Item 7: the agent lists its pending proposals and withdraws one."""

    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_list_and_withdraw(self):
        async with session(self.ws) as s:
            self.assertEqual((await call(s, "list_proposals"))["proposals"], [])
            context = await call(s, "read_file", path="context.md")
            proposed = await call(s, "write_file", path="context.md", content="# Context\n\nshorter\n",
                                  expected_version=context["version"], on_conflict="propose")
            listed = (await call(s, "list_proposals"))["proposals"]
            self.assertEqual([(p["id"], p["path"], p["operation"]) for p in listed], [(proposed["proposal"], "context.md", "write")])
            self.assertEqual(listed[0]["base_version"], context["version"])
            self.assertNotIn("content", listed[0])
            before = self.ws.snapshot()
            withdrawn = await call(s, "withdraw_proposal", id=proposed["proposal"])
            self.assertEqual(withdrawn["withdrawn"]["id"], proposed["proposal"])
            self.assertEqual((await call(s, "list_proposals"))["proposals"], [])
            self.assertNotIn("pending_proposals", await call(s, "get_context"))  # none left
            after = self.ws.snapshot()
            self.assertEqual({k: v for k, v in after.items() if not k.startswith(".notes/proposals")},
                             {k: v for k, v in before.items() if not k.startswith(".notes/proposals")})
            gone = await fail(s, "withdraw_proposal", {"id": proposed["proposal"]})
            self.assertEqual(gone["code"], "not_found")
            self.assertIn("list_proposals", gone["hint"])
            self.assertEqual((await fail(s, "withdraw_proposal", {"id": "../../context"}))["code"], "not_found")
