"""`notes mcp` driven by the official Python MCP client: a whole realistic session, the
error contract, protected paths, resources and prompts (docs/spec.md §6, §7, §10)."""

import asyncio
import datetime
import json
import os
import subprocess
import unittest

from notes_server import Workspace, call, fail, notes_binary, result_json, session

TODAY = datetime.datetime.now().strftime("%Y-%m-%d")  # local date, as notes names journal pages

EXPECTED_TOOLS = {
    "read_file", "read_files", "list_files", "search", "related", "file_history", "get_context", "write_file", "append_file",
    "edit_file", "delete_file", "move_file", "restore_file", "remember", "list_templates", "new_from_template", "fetch_url",
    "list_proposals", "withdraw_proposal",
}

THEMES = """# Themes in Moby-Dick

## Obsession

Ahab's hunt bends every life aboard toward one whale.

## Knowledge

The cetology chapters fail to classify the whale, on purpose.

## Friendship

Ishmael and Queequeg share a bed, a pipe and a fate.
"""


class RealisticSession(unittest.IsolatedAsyncioTestCase):
    """One agent session from start to finish, the person editing files in between."""

    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_a_whole_session(self):
        ws = self.ws
        async with session(ws) as s:
            # 1. The tools, with schemas and hints written for a model.
            tools = {t.name: t for t in (await s.list_tools()).tools}
            self.assertEqual(set(tools), EXPECTED_TOOLS)
            for tool in tools.values():
                self.assertGreater(len(tool.description), 80, tool.name)
                self.assertEqual(tool.input_schema["type"], "object")
                self.assertFalse(tool.input_schema.get("additionalProperties", True), tool.name)
            self.assertTrue(tools["read_file"].annotations.read_only_hint)
            self.assertTrue(tools["search"].annotations.read_only_hint)
            self.assertTrue(tools["write_file"].annotations.destructive_hint)
            self.assertTrue(tools["delete_file"].annotations.destructive_hint)
            self.assertFalse(tools["append_file"].annotations.destructive_hint)
            self.assertIn("list_files", tools["search"].description)
            self.assertIn("search", tools["list_files"].description)
            self.assertEqual(tools["edit_file"].input_schema["required"], ["path", "edits", "expected_version"])

            # 2. get_context: context.md, the workspace, the person's changes, proposals, index.
            context = await call(s, "get_context")
            self.assertIn("## About me <!-- user -->", context["context"]["content"])
            self.assertNotIn("over_limit", context["context"])  # said only when over
            folders = {f["path"]: f["files"] for f in context["overview"]["folders"]}
            self.assertIn("Research", folders)
            self.assertGreaterEqual(folders["Journal"], 3)
            self.assertNotIn("pending_proposals", context)  # said only when there are some
            self.assertGreater(context["overview"]["files"], 10)
            self.assertEqual(context["index"]["indexed"], context["overview"]["files"])
            self.assertIsNone(context.get("last_agent_activity"))

            # 3. search: ranked hits with versions and their best lines.
            #    Compact by default (who last changed it as `by`, the best line quoted as written);
            #    `detail` gives the full hit: provenance with times, kind, size, spans.
            hits = (await call(s, "search", query="whale", limit=5))["hits"]
            self.assertGreater(len(hits), 1)
            for hit in hits:
                self.assertRegex(hit["version"], r"^[0-9a-f]{16}$")
                self.assertIn(hit["by"], ("agent", "user"))
                self.assertNotIn("provenance", hit)
            self.assertTrue(any(h["line"] > 0 and "whale" in h["text"].lower() for h in hits))
            detailed = (await call(s, "search", query="whale", limit=5, detail=True))["hits"]
            self.assertEqual([h["path"] for h in detailed], [h["path"] for h in hits])
            self.assertTrue(any(sn["line"] > 0 and sn["spans"] for h in detailed for sn in h["snippets"]))
            self.assertEqual([h["provenance"]["last_modified_by"] for h in detailed], [h["by"] for h in hits])
            journal_hits = (await call(s, "search", query="whale", kind="journal", detail=True))["hits"]
            self.assertTrue(journal_hits and all(h["kind"] == "journal" for h in journal_hits))

            # 4. read_file: content, version, who changed it, total_lines; paging.
            intro = await call(s, "read_file", path="Research/moby-dick/introduction.md")
            self.assertIn("cetology", intro["content"])
            self.assertEqual((intro["by"], intro["created_by"]), ("user", "agent"))
            page = await call(s, "read_file", path="Research/moby-dick/introduction.md", offset=2, limit=3)
            self.assertEqual(page["lines"], 3)
            self.assertEqual(page["total_lines"], intro["total_lines"])

            # 5. The agent writes a new note; provenance is stamped.
            created = await call(s, "write_file", path="Research/moby-dick/themes.md", content=THEMES)
            self.assertTrue(created["created"])
            themes_path = ws.path("Research/moby-dick/themes.md")
            on_disk = themes_path.read_text()
            self.assertIn("created_by: agent", on_disk)
            self.assertIn("Ahab's hunt bends every life", on_disk)
            v1 = created["version"]

            # 6. The person edits that note in their editor.
            person_line = "Ishmael and Queequeg share a bed, a pipe and a fate — and the coffin that saves him."
            themes_path.write_text(on_disk.replace("Ishmael and Queequeg share a bed, a pipe and a fate.", person_line))

            # 7. A write with the old version is stale; after a fresh read, replacing the
            #    person's line is refused with user_edited, showing what would be lost.
            stale = await fail(s, "write_file", {"path": "Research/moby-dick/themes.md", "content": THEMES, "expected_version": v1})
            self.assertEqual(stale["code"], "stale_version")
            self.assertIn("coffin", stale["diff"])
            fresh = await call(s, "read_file", path="Research/moby-dick/themes.md")
            self.assertEqual(fresh["by"], "user")
            refused = await fail(s, "write_file", {"path": "Research/moby-dick/themes.md", "content": THEMES, "expected_version": fresh["version"]})
            self.assertEqual(refused["code"], "user_edited")
            self.assertTrue(any("coffin" in line for line in refused["lost_lines"]))
            self.assertIn("merge", " ".join(refused["options"]))
            self.assertIn(person_line, themes_path.read_text())

            # 8. A merge keeps both: the agent's new section and the person's line.
            revised = THEMES.replace("## Knowledge", "## Fate\n\nThe Pequod's end is foretold from the first chapters.\n\n## Knowledge")
            merged = await call(s, "write_file", path="Research/moby-dick/themes.md", content=revised,
                                expected_version=fresh["version"], on_conflict="merge")
            self.assertTrue(merged["merged"])
            text = themes_path.read_text()
            self.assertIn(person_line, text)
            self.assertIn("## Fate", text)

            # 9. An edit on lines the person did not touch goes through, with a diff.
            edited = await call(s, "edit_file", path="Research/moby-dick/themes.md", expected_version=merged["version"],
                                edits=[{"old_text": "fail to classify the whale, on purpose.",
                                        "new_text": "fail to classify the whale, and that failure is the argument."}])
            self.assertIn("+The cetology chapters fail to classify the whale, and that failure is the argument.", edited["diff"])
            text = themes_path.read_text()
            self.assertIn("and that failure is the argument", text)
            self.assertIn(person_line, text)
            # Changing the person's own line is still refused.
            mine = await fail(s, "edit_file", {"path": "Research/moby-dick/themes.md", "expected_version": edited["version"],
                                               "edits": [{"old_text": "and the coffin that saves him", "new_text": "and more"}]})
            self.assertEqual(mine["code"], "user_edited")

            # 10. Append to today's journal; the journal is append-only for the agent.
            journal = f"Journal/{TODAY}.md"
            await call(s, "append_file", path=journal, content="- Drafted Research/moby-dick/themes.md (agent).")
            await call(s, "append_file", path=journal, content="- Merged the person's coffin line.", section="Agent")
            journal_text = ws.path(journal).read_text()
            self.assertIn("Drafted Research/moby-dick/themes.md", journal_text)
            self.assertIn("## Agent", journal_text)
            j = await call(s, "read_file", path=journal)
            denied = await fail(s, "write_file", {"path": journal, "content": "gone", "expected_version": j["version"]})
            self.assertEqual(denied["code"], "policy_denied")

            # 11. Remember a fact, once; a rephrasing is a duplicate.
            def about_me_section(text):  # the person's section, between the front matter and "## Learned"
                return text.split("\n---\n", 1)[1].split("## Learned")[0]
            about_me = about_me_section(ws.path("context.md").read_text())
            first = await call(s, "remember", fact="Prefers themes over plot summaries.")
            self.assertFalse(first["duplicate"])
            again = await call(s, "remember", fact="  prefers THEMES over plot summaries  ")
            self.assertTrue(again["duplicate"])
            context_text = ws.path("context.md").read_text()
            self.assertEqual(context_text.count("Prefers themes over plot summaries"), 1)
            self.assertIn(f"- {TODAY}: Prefers themes over plot summaries.", context_text.split("## Learned")[1])
            self.assertEqual(about_me_section(context_text), about_me)
            self.assertIn("I teach secondary-school English", about_me)

            # 12. History and restore: every version, who made it, with which client.
            history = await call(s, "file_history", path="Research/moby-dick/themes.md")
            ops = [(v["operation"], v["actor"]) for v in history["versions"]]
            self.assertEqual(ops[-1], ("create", "agent"))
            self.assertIn(("external", "user"), ops)
            self.assertTrue(all(v["client"] == "pytest-agent" for v in history["versions"] if v["actor"] == "agent"))
            # Restoring the first draft would drop the person's line: refused like any overwrite.
            refused = await fail(s, "restore_file", {"path": "Research/moby-dick/themes.md", "version": v1,
                                                     "expected_version": history["current_version"]})
            self.assertEqual(refused["code"], "user_edited")
            # Restoring the merged version (before the agent's edit) undoes only the agent's change.
            self.assertIn(merged["version"], [v["version"] for v in history["versions"]])
            restored = await call(s, "restore_file", path="Research/moby-dick/themes.md", version=merged["version"],
                                  expected_version=history["current_version"])
            self.assertEqual(restored["version"], merged["version"])
            text = themes_path.read_text()
            self.assertIn("on purpose.", text)
            self.assertIn(person_line, text)
            # ...and the restore itself can be undone.
            back = await call(s, "restore_file", path="Research/moby-dick/themes.md", version=history["current_version"],
                              expected_version=merged["version"])
            self.assertIn("and that failure is the argument", themes_path.read_text())

            # 13. Delete and restore.
            # The file holds the person's line: deleting needs their yes (confirm_user_edits).
            refused = await fail(s, "delete_file", {"path": "Research/moby-dick/themes.md", "expected_version": back["version"]})
            self.assertEqual(refused["code"], "user_edited")
            self.assertTrue(themes_path.exists())
            deleted = await call(s, "delete_file", path="Research/moby-dick/themes.md", expected_version=back["version"],
                                 confirm_user_edits=True)
            self.assertFalse(themes_path.exists())
            self.assertEqual((await fail(s, "read_file", {"path": "Research/moby-dick/themes.md"}))["code"], "not_found")
            await call(s, "restore_file", path="Research/moby-dick/themes.md", version=deleted["restorable_version"])
            self.assertIn("coffin", themes_path.read_text())

            # 14. A move keeps the text and needs the version.
            current = await call(s, "read_file", path="Research/moby-dick/themes.md")
            moved = await call(s, "move_file", **{"from": "Research/moby-dick/themes.md", "to": "Research/moby-dick/notes/themes.md",
                                                 "expected_version": current["version"]})
            self.assertEqual(moved["from"], "Research/moby-dick/themes.md")
            self.assertTrue(ws.path("Research/moby-dick/notes/themes.md").exists())

            # 15. The next session sees the person's changes since the agent's last action.
            ws.path("reading-list.md").write_text(ws.path("reading-list.md").read_text() + "\n- Typee (person added)\n")
        async with session(ws) as s:
            context = await call(s, "get_context")
            self.assertIsNotNone(context["last_agent_activity"])
            changed = [c["path"] for c in context["user_changes_since_last_session"]]
            self.assertIn("reading-list.md", changed)
            self.assertNotIn("Research/moby-dick/notes/themes.md", changed)


class ErrorContract(unittest.IsolatedAsyncioTestCase):
    """Bad calls are answered with {code, message}; nothing is touched."""

    async def asyncSetUp(self):
        self.ws = Workspace()
        os.symlink(self.ws.sentinel, self.ws.path("Research/outside-link"))
        os.symlink(self.ws.sentinel / "secret.md", self.ws.path("linked-secret.md"))
        self.ws.path("secrets").mkdir()
        self.ws.path("secrets/api.md").write_text("token-canary-91c2\n")
        self.ws.path(".env").write_text("API_KEY=env-canary-55d0\n")

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_unknown_tools_and_bad_arguments_are_invalid_argument(self):
        async with session(self.ws) as s:
            before = self.ws.snapshot()
            intro = await call(s, "read_file", path="Research/moby-dick/introduction.md")
            before = self.ws.snapshot()
            cases = [
                ("no_such_tool", {}),
                ("write_files", {"path": "x.md", "content": "x"}),
                ("read_file", {}),
                ("read_file", {"path": 42}),
                ("read_file", {"path": "Research/moby-dick/introduction.md", "offset": "two"}),
                ("read_file", {"path": "Research/moby-dick/introduction.md", "offset": 0}),
                ("read_file", {"path": "Research/moby-dick/introduction.md", "colour": "red"}),
                ("search", {"query": "whale", "limit": 1000}),
                ("search", {"query": "whale", "by": "robot"}),
                ("search", {"query": ["whale"]}),
                ("search", {"query": "x" * 100_000}),
                ("list_files", {"recursive": "yes"}),
                ("write_file", {"path": "new.md"}),
                ("write_file", {"path": "new.md", "content": {"text": "hi"}}),
                ("write_file", {"path": "Research/moby-dick/introduction.md", "content": "x",
                                "expected_version": intro["version"], "on_conflict": "overwrite"}),
                ("edit_file", {"path": "Research/moby-dick/introduction.md", "expected_version": intro["version"], "edits": []}),
                ("edit_file", {"path": "Research/moby-dick/introduction.md", "expected_version": intro["version"],
                               "edits": [{"old": "a", "new": "b"}]}),
                ("edit_file", {"path": "Research/moby-dick/introduction.md", "expected_version": intro["version"], "edits": "replace a with b"}),
                ("edit_file", {"path": "Research/moby-dick/introduction.md", "expected_version": intro["version"],
                               "edits": [{"old_text": "whale", "new_text": "WHALE"}]}),  # matches more than once
                ("delete_file", {"path": "Research/moby-dick/introduction.md"}),
                ("move_file", {"from": "Research/moby-dick/introduction.md", "to": "x.md"}),
                ("remember", {"fact": ""}),
                ("remember", {"fact": "   ...   "}),
                ("get_context", {"verbose": True}),
                ("write_file", {"path": "deep.md", "content": "x", "expected_version": nest(40)}),
                ("append_file", {"path": "deep.md", "content": "x", "section": nest(40)}),
            ]
            for tool, arguments in cases:
                with self.subTest(tool=tool, arguments=str(arguments)[:80]):
                    error = await fail(s, tool, arguments)
                    self.assertEqual(error["code"], "invalid_argument", error)
                    self.assertTrue(error["message"])
            # A write over the size limit is too_large; nothing is written.
            big = await fail(s, "write_file", {"path": "big.md", "content": "x" * (17 << 20)})
            self.assertEqual(big["code"], "too_large")
            self.assertEqual(self.ws.snapshot(), before)
            # Still serving normally.
            self.assertTrue((await call(s, "search", query="whale"))["hits"])

    async def test_path_escapes_and_protected_paths_are_refused(self):
        sentinel = self.ws.sentinel_snapshot()
        async with session(self.ws) as s:
            before = self.ws.snapshot()
            escapes = ["../sentinel/secret.md", "/etc/passwd", str(self.ws.sentinel / "secret.md"),
                       "Research/../../sentinel/secret.md", "Research/outside-link/secret.md", "linked-secret.md",
                       "Research/outside-link/new.md", "a\u0000b.md", f"../{self.ws.root.name}_evil/x.md"]
            protected = [".git/config", ".GIT/config", ".env", ".env.local", ".notes/config.yml", ".notes/history/log.jsonl",
                         "secrets/api.md", "Research/secrets/x.md", "keys/server.pem", "id.key", ".obsidian/app.json"]
            for path in escapes + protected:
                for tool, arguments in [
                    ("read_file", {"path": path}),
                    ("write_file", {"path": path, "content": "pwned"}),
                    ("append_file", {"path": path, "content": "pwned"}),
                    ("edit_file", {"path": path, "expected_version": "0" * 16, "edits": [{"old_text": "a", "new_text": "b"}]}),
                    ("delete_file", {"path": path, "expected_version": "0" * 16}),
                    ("file_history", {"path": path}),
                    ("restore_file", {"path": path, "version": "0" * 16}),
                    ("move_file", {"from": "reading-list.md", "to": path, "expected_version": "0" * 16}),
                ]:
                    with self.subTest(tool=tool, path=path):
                        error = await fail(s, tool, arguments)
                        wanted = {"outside_workspace", "invalid_argument"} if path in escapes else {"protected_path"}
                        if tool == "move_file":
                            wanted = wanted | {"stale_version"}  # the source's version is checked first
                        self.assertIn(error["code"], wanted, error)
                        dumped = json.dumps(error)
                        for canary in ("sentinel-canary", "token-canary", "env-canary", str(self.ws.temp)):
                            self.assertNotIn(canary, dumped)
            # Protected files are invisible to search and list_files.
            for query in ["token-canary-91c2", "env-canary-55d0", "sentinel-canary-7f3a"]:
                self.assertEqual((await call(s, "search", query=query))["hits"], [], query)
            listing = await call(s, "list_files", recursive=True)
            paths = [e["path"] for e in listing["entries"]]
            self.assertFalse([p for p in paths if "secret" in p or p.startswith(".")], paths)
            self.assertEqual((await fail(s, "list_files", {"path": "secrets"}))["code"], "protected_path")
            self.assertEqual((await fail(s, "list_files", {"path": "../sentinel"}))["code"], "outside_workspace")
            self.assertEqual(self.ws.snapshot(), before)
        self.assertEqual(self.ws.sentinel_snapshot(), sentinel)


class Freshness(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_search_finds_what_the_person_just_saved(self):
        async with session(self.ws) as s:
            self.assertEqual((await call(s, "search", query="narwhalicious"))["hits"], [])
            self.ws.path("Research/fresh.md").write_text("# Fresh\n\nA narwhalicious idea saved a moment ago.\n")
            hits = (await call(s, "search", query="narwhalicious"))["hits"]
            self.assertEqual([h["path"] for h in hits], ["Research/fresh.md"])
            self.assertEqual(hits[0]["by"], "user")
            self.ws.path("Research/fresh.md").unlink()
            self.assertEqual((await call(s, "search", query="narwhalicious"))["hits"], [])

    async def test_a_rebuild_from_the_command_line_during_a_session(self):
        # The server holds the index open (memory-mapped, FTS5 state cached), so the rebuild
        # copies its new index into the live database in one transaction instead of swapping
        # the file under the server; the server must go on answering and writing after it.
        async with session(self.ws) as s:
            before = sorted(h["path"] for h in (await call(s, "search", query="whale", limit=50))["hits"])
            self.assertGreater(len(before), 2)
            database = self.ws.index / "index.sqlite"
            inode = database.stat().st_ino
            rebuild = await asyncio.to_thread(subprocess.run, [notes_binary(), "-w", str(self.ws.root), "--index-dir", str(self.ws.index), "index", "--rebuild"],
                                     capture_output=True, text=True, timeout=120)
            self.assertEqual(rebuild.returncode, 0, rebuild.stderr)
            self.assertEqual(database.stat().st_ino, inode, "the file was swapped under the server")
            self.assertEqual(sorted(h["path"] for h in (await call(s, "search", query="whale", limit=50))["hits"]), before)
            # The server goes on writing into the live index, which the command line reads.
            await call(s, "write_file", path="Research/zebra.md", content="# Zebra\n\nA quaggaline stripe.\n")
            self.assertEqual([h["path"] for h in (await call(s, "search", query="quaggaline"))["hits"]], ["Research/zebra.md"])
            cli = await asyncio.to_thread(subprocess.run, [notes_binary(), "-w", str(self.ws.root), "--index-dir", str(self.ws.index), "search", "quaggaline", "-l"],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(cli.stdout, "Research/zebra.md\n", cli.stderr)

    async def test_a_refresh_inside_the_agents_write_keeps_it_the_agents(self):
        # The command line refreshes the index between the agent's write's rename and its
        # log line (the server pauses there: NOTES_PAUSE_AT). That refresh reads bytes the
        # log does not know yet; once the line is written, the index must say agent, not
        # the person, and the log must not gain an "external" line for the agent's write.
        def cli(*args):
            return subprocess.run([notes_binary(), "-w", str(self.ws.root), "--index-dir", str(self.ws.index), *args],
                                  capture_output=True, text=True, timeout=60)
        async with session(self.ws, env={"NOTES_PAUSE_AT": "renamed:1.5"}) as s:
            first = await call(s, "write_file", path="Research/plan.md", content="# Plan\n\nA first quokkaroo draft.\n")
            self.assertEqual(cli("index").returncode, 0)
            write = asyncio.create_task(call(s, "write_file", path="Research/plan.md", content="# Plan\n\nA second wallabine draft.\n",
                                             expected_version=first["version"]))
            await asyncio.sleep(0.5)
            self.assertFalse(write.done())
            refresh = await asyncio.to_thread(cli, "index", "--json")
            self.assertEqual(refresh.returncode, 0, refresh.stderr)
            self.assertEqual(json.loads(refresh.stdout)["modified"], 1, "the refresh ran inside the write")
            await write
        found = cli("search", "wallabine", "--json")
        hits = json.loads(found.stdout)["hits"]
        self.assertEqual([h["path"] for h in hits], ["Research/plan.md"], found.stderr)
        self.assertEqual(hits[0]["provenance"]["last_modified_by"], "agent")
        log = cli("log", "Research/plan.md", "--jsonl").stdout
        self.assertNotIn('"external"', log)
        rebuilt = cli("index", "--rebuild")
        self.assertEqual(rebuilt.returncode, 0)
        self.assertEqual(json.loads(cli("search", "wallabine", "--json").stdout)["hits"][0]["provenance"], hits[0]["provenance"])

    async def test_a_moved_workspace_is_an_error_not_an_empty_workspace(self):
        # Moved away, the folder reads as empty at its old path: the agent must be told,
        # not shown an empty workspace, and the index must not drop every file.
        async with session(self.ws) as s:
            before = sorted(h["path"] for h in (await call(s, "search", query="whale", limit=50))["hits"])
            moved = self.ws.temp / "moved"
            os.rename(self.ws.root, moved)
            for tool, arguments in [("search", {"query": "whale"}), ("list_files", {}), ("read_file", {"path": "context.md"}),
                                    ("write_file", {"path": "new.md", "content": "x"})]:
                error = await fail(s, tool, arguments)
                self.assertEqual(error["code"], "not_found", (tool, error))
                self.assertIn("moved or deleted", error["message"])
            self.assertFalse((moved / "new.md").exists())
            os.rename(moved, self.ws.root)
            self.assertEqual(sorted(h["path"] for h in (await call(s, "search", query="whale", limit=50))["hits"]), before)


class SettingsEditedDuringASession(unittest.IsolatedAsyncioTestCase):
    """The person edits .notes/config.yml while the server runs (it may run for days)."""

    async def asyncSetUp(self):
        self.ws = Workspace()
        (self.ws.root / "Private").mkdir()
        self.ws.path("Private/diary.md").write_text("# Diary\n\nA dasyurine secret.\n")
        self.config = self.ws.root / ".notes" / "config.yml"
        self.original = self.config.read_text()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_a_path_protected_mid_session_is_hidden_from_the_next_call(self):
        async with session(self.ws) as s:
            await call(s, "read_file", path="Private/diary.md")
            self.assertEqual([h["path"] for h in (await call(s, "search", query="dasyurine"))["hits"]], ["Private/diary.md"])
            self.config.write_text(self.original + '\nprotected:\n  - "Private/**"\n')
            self.assertEqual((await fail(s, "read_file", {"path": "Private/diary.md"}))["code"], "protected_path")
            self.assertEqual((await call(s, "search", query="dasyurine"))["hits"], [])
            listed = await call(s, "list_files", path="", recursive=True)
            self.assertNotIn("Private/diary.md", [e["path"] for e in listed["entries"]])
            self.assertEqual((await fail(s, "append_file", {"path": "Private/diary.md", "content": "x"}))["code"], "protected_path")
            resources = await s.list_resources()
            self.assertNotIn("notes://Private/diary.md", [str(r.uri) for r in resources.resources])
            with self.assertRaises(Exception):
                await s.read_resource("notes://Private/diary.md")
            # Protected no longer: found again by the next call.
            self.config.write_text(self.original)
            self.assertEqual([h["path"] for h in (await call(s, "search", query="dasyurine"))["hits"]], ["Private/diary.md"])
            self.assertIn("dasyurine", (await call(s, "read_file", path="Private/diary.md"))["content"])

    async def test_an_ignore_rule_added_mid_session_drops_files_from_search(self):
        async with session(self.ws) as s:
            self.assertEqual([h["path"] for h in (await call(s, "search", query="dasyurine"))["hits"]], ["Private/diary.md"])
            self.config.write_text(self.original + '\n  - "Private/**"\n')
            self.assertEqual((await call(s, "search", query="dasyurine"))["hits"], [])
            # A file saved into the folder while it is ignored stays out; once the rule is
            # gone the folder is watched again and both are found.
            self.ws.path("Private/later.md").write_text("# Later\n\nAnother dasyurine note.\n")
            self.assertEqual((await call(s, "search", query="dasyurine"))["hits"], [])
            self.config.write_text(self.original)
            self.assertEqual(sorted(h["path"] for h in (await call(s, "search", query="dasyurine"))["hits"]), ["Private/diary.md", "Private/later.md"])
            self.ws.path("Private/latest.md").write_text("# Latest\n\nA third dasyurine note.\n")
            self.assertEqual(len((await call(s, "search", query="dasyurine"))["hits"]), 3)


class ReadOnlyAndClientName(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_read_only_offers_only_reading_tools(self):
        async with session(self.ws, "--read-only") as s:
            names = {t.name for t in (await s.list_tools()).tools}
            self.assertEqual(names, {"read_file", "read_files", "list_files", "search", "related", "file_history", "get_context", "list_templates", "list_proposals"})
            before = self.ws.snapshot()
            error = await fail(s, "append_file", {"path": "Journal/x.md", "content": "x"})
            self.assertEqual(error["code"], "invalid_argument")
            self.assertIn("read-only", error["message"])
            self.assertEqual(self.ws.snapshot(), before)

    async def test_client_option_names_the_agent_in_history(self):
        async with session(self.ws, "--client", "night-shift") as s:
            await call(s, "append_file", path="Journal/2026-11-20.md", content="- checked in")
        log = [json.loads(line) for line in self.ws.path(".notes/history/log.jsonl").read_text().splitlines()]
        self.assertEqual([(r["actor"], r["client"]) for r in log if r["path"] == "Journal/2026-11-20.md"][-1], ("agent", "night-shift"))
        async with session(self.ws, client_name="Claude Code") as s:
            await call(s, "append_file", path="Journal/2026-11-20.md", content="- again")
        log = [json.loads(line) for line in self.ws.path(".notes/history/log.jsonl").read_text().splitlines()]
        self.assertEqual(log[-1]["client"], "Claude Code")


class ResourcesAndPrompts(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.ws = Workspace()
        self.ws.path(".env").write_text("API_KEY=env-canary-55d0\n")

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_files_are_resources(self):
        async with session(self.ws) as s:
            resources = (await s.list_resources()).resources
            uris = [str(r.uri) for r in resources]
            self.assertEqual(uris[0], "notes://context.md")
            self.assertIn("notes://Research/moby-dick/introduction.md", uris)
            self.assertFalse([u for u in uris if "/." in u or u.startswith("notes://.")])
            context = await s.read_resource("notes://context.md")
            self.assertIn("About me", context.contents[0].text)
            intro = await s.read_resource("notes://Research/moby-dick/introduction.md")
            self.assertEqual(intro.contents[0].mime_type, "text/markdown")
            self.assertIn("cetology", intro.contents[0].text)
            templates = (await s.list_resource_templates()).resource_templates
            self.assertEqual(templates[0].uri_template, "notes://{+path}")
            for bad in ["notes://.env", "notes://../sentinel/secret.md", "notes://nope.md"]:
                with self.subTest(uri=bad):
                    with self.assertRaises(Exception) as raised:
                        await s.read_resource(bad)
                    self.assertNotIn("canary", str(raised.exception))

    async def test_prompts(self):
        async with session(self.ws) as s:
            prompts = {p.name: p for p in (await s.list_prompts()).prompts}
            self.assertEqual(set(prompts), {"draft_introduction", "daily_review"})
            self.assertTrue(prompts["draft_introduction"].arguments[0].required)
            drafted = await s.get_prompt("draft_introduction", {"topic": "Moby Dick"})
            text = drafted.messages[0].content.text
            self.assertIn("Research/moby-dick/introduction.md", text)
            self.assertIn("get_context", text)
            review = await s.get_prompt("daily_review")
            self.assertIn(f"Journal/{TODAY}.md", review.messages[0].content.text)
            with self.assertRaises(Exception):
                await s.get_prompt("draft_introduction", {})
            with self.assertRaises(Exception):
                await s.get_prompt("no_such_prompt")


class AccumulatingKnowledge(unittest.IsolatedAsyncioTestCase):
    """context.md's person-owned sections, the journal and templates, through the tools."""

    async def asyncSetUp(self):
        # context.md writable by the agent, so the user-section rule itself is what refuses.
        self.ws = Workspace(config='policy:\n  "context.md": write\n')

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_the_persons_sections_are_never_changed(self):
        ws = self.ws
        about_me = ws.path("context.md").read_text().split("## About me <!-- user -->")[1].split("## Learned")[0]
        async with session(ws) as s:
            ctx = await call(s, "read_file", path="context.md")
            v = ctx["version"]
            refusals = [
                ("remember", {"fact": "Teaches maths", "section": "About me"}),
                ("append_file", {"path": "context.md", "content": "- sneaky", "section": "About me"}),
                ("edit_file", {"path": "context.md", "expected_version": v,
                               "edits": [{"old_text": "I teach secondary-school English", "new_text": "I teach maths"}]}),
                ("write_file", {"path": "context.md", "content": "# Context\n\n## Learned\n", "expected_version": v}),
                ("write_file", {"path": "context.md", "content": "# Context\n\n## Learned\n", "expected_version": v, "on_conflict": "merge"}),
                ("write_file", {"path": "context.md", "content": "# Context\n\n## Learned\n", "expected_version": v, "confirm_user_edits": True}),
                ("delete_file", {"path": "context.md", "expected_version": v, "confirm_user_edits": True}),
            ]
            for tool, arguments in refusals:
                with self.subTest(tool=tool, arguments=arguments):
                    error = await fail(s, tool, arguments)
                    self.assertIn(error["code"], {"policy_denied", "merge_conflict"}, error)
            self.assertEqual(ws.path("context.md").read_text().split("## About me <!-- user -->")[1].split("## Learned")[0], about_me)
            added = await call(s, "remember", fact="Uses the Norton edition")
            self.assertFalse(added["duplicate"])
            self.assertIn("Uses the Norton edition", ws.path("context.md").read_text().split("## Learned")[1])

    async def test_templates_and_the_journal(self):
        ws = self.ws
        async with session(ws) as s:
            listed = await call(s, "list_templates")
            names = [t["name"] for t in listed["templates"]]
            self.assertEqual(names, ["research", "introduction", "source", "journal", "context"])
            self.assertIn("title", listed["built_in_variables"])
            made = await call(s, "new_from_template", template="research", variables={"title": "Typee", "question": "Is it true?"})
            self.assertEqual(made["path"], "Research/typee/introduction.md")
            self.assertEqual([f["path"] for f in made["files"]], ["Research/typee/introduction.md", "Research/typee/notes.md"])
            intro = await call(s, "read_file", path="Research/typee/introduction.md")
            self.assertEqual(intro["by"], "agent")
            self.assertNotIn("created_by", intro)  # said only when someone else created it
            self.assertIn("The question: Is it true?", intro["content"])
            self.assertTrue(ws.path("Research/typee/sources").is_dir())
            again = await fail(s, "new_from_template", {"template": "research", "variables": {"title": "Typee"}})
            self.assertEqual(again["code"], "invalid_argument")
            source = await call(s, "new_from_template", template="source", path="Research/typee/sources/",
                                variables={"title": "Melville's preface", "author": "Herman Melville"})
            self.assertEqual(source["path"], "Research/typee/sources/melvilles-preface.md")
            # The agent's journal entries and the person's share one page.
            ws.path(f"Journal/{TODAY}.md").write_text(f"# {TODAY}\n\n## 09:00 — user\n\nMorning notes.\n")
            await call(s, "append_file", path=f"Journal/{TODAY}.md", content="## 09:30 — agent\n\nCreated Research/typee/.")
            page = ws.path(f"Journal/{TODAY}.md").read_text()
            self.assertIn("Morning notes.\n\n## 09:30 — agent\n\nCreated Research/typee/.\n", page)


def nest(depth: int):
    value = "x"
    for _ in range(depth):
        value = [value]
    return value


if __name__ == "__main__":
    unittest.main()
