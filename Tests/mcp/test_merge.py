"""Issue 32 item 6, merge as docs/spec.md §6.2 says, through the official Python MCP client against
the built `notes mcp`: the base is the agent's last written version; changes on different
lines merge even when adjacent; only overlapping changes conflict, with hunks; the person's
lines stay protected after a merge."""

import unittest

from notes_server import Workspace, call, fail, session

PATH = "Research/moby-dick/draft.md"
DRAFT = "# Draft\n\nLine A.\n\nLine B.\n\nLine C.\n"


class MergeAsTheSpecSays(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.ws = Workspace()
        self.file = self.ws.path(PATH)

    async def asyncTearDown(self):
        self.ws.cleanup()

    def body(self) -> str:
        text = self.file.read_text()
        return text[text.index("# Draft"):]

    async def test_the_issues_scenario_merges_keeping_both(self):
        async with session(self.ws) as s:
            # The agent writes a draft; the person appends a paragraph.
            await call(s, "write_file", path=PATH, content=DRAFT)
            self.file.write_text(self.file.read_text() + "\nThe person's first paragraph.\n")
            # The agent changes another line with edit_file (its own line: allowed).
            fresh = await call(s, "read_file", path=PATH)
            edited = await call(s, "edit_file", path=PATH, expected_version=fresh["version"],
                                edits=[{"old_text": "Line B.", "new_text": "Line B, revised by the agent."}])
            agents_text = (await call(s, "read_file", path=PATH))["content"]
            self.assertIn("The person's first paragraph.", agents_text)
            # The person edits line A and adds a second paragraph.
            self.file.write_text(self.file.read_text().replace("Line A.", "Line A, as the person put it.")
                                 + "\nThe person's second paragraph.\n")
            # The agent writes its text with line C changed, merging.
            merged = await call(s, "write_file", path=PATH, content=agents_text.replace("Line C.", "Line C, sharpened."),
                                expected_version=edited["version"], on_conflict="merge")
            self.assertTrue(merged["merged"])
            self.assertEqual(self.body(), "# Draft\n\nLine A, as the person put it.\n\nLine B, revised by the agent.\n\n"
                             "Line C, sharpened.\n\nThe person's first paragraph.\n\nThe person's second paragraph.\n")
            # The person's lines stay theirs: writing the text without them is refused.
            again = await call(s, "read_file", path=PATH)
            dropped = again["content"].replace("\nThe person's second paragraph.\n", "")
            refused = await fail(s, "write_file", {"path": PATH, "content": dropped, "expected_version": again["version"]})
            self.assertEqual(refused["code"], "user_edited")
            self.assertTrue(any("second paragraph" in line for line in refused["lost_lines"]))

    async def test_a_paragraph_inserted_right_below_a_reworded_line_merges(self):
        async with session(self.ws) as s:
            written = await call(s, "write_file", path=PATH, content=DRAFT)
            self.file.write_text(self.file.read_text().replace("Line B.\n", "Line B.\nThe person's line right below B.\n"))
            merged = await call(s, "write_file", path=PATH, content=DRAFT.replace("Line B.", "Line B, reworded."),
                                expected_version=written["version"], on_conflict="merge")
            self.assertTrue(merged["merged"])
            self.assertEqual(self.body(), "# Draft\n\nLine A.\n\nLine B, reworded.\nThe person's line right below B.\n\nLine C.\n")

    async def test_the_same_lines_inserted_by_both_merge_once(self):
        async with session(self.ws) as s:
            written = await call(s, "write_file", path=PATH, content=DRAFT)
            # The person rewords line C and adds a line below it; the agent adds that line too.
            self.file.write_text(self.file.read_text().replace("Line C.\n", "Line C, the person's.\n\nSee also chapter 32.\n"))
            merged = await call(s, "write_file", path=PATH, content=DRAFT.replace("Line A.", "Line A!") + "\nSee also chapter 32.\n",
                                expected_version=written["version"], on_conflict="merge")
            self.assertTrue(merged["merged"])
            self.assertEqual(self.body(), "# Draft\n\nLine A!\n\nLine B.\n\nLine C, the person's.\n\nSee also chapter 32.\n")

    async def test_overlapping_changes_conflict_with_hunks_and_write_nothing(self):
        async with session(self.ws) as s:
            written = await call(s, "write_file", path=PATH, content=DRAFT)
            self.file.write_text(self.file.read_text().replace("Line B.", "Line B, the person's way."))
            before = self.ws.snapshot()
            conflict = await fail(s, "write_file", {"path": PATH, "content": DRAFT.replace("Line B.", "Line B, the agent's way."),
                                                    "expected_version": written["version"], "on_conflict": "merge"})
            self.assertEqual(conflict["code"], "merge_conflict")
            self.assertEqual(len(conflict["conflicts"]), 1)
            hunk = conflict["conflicts"][0]
            self.assertEqual((hunk["base"], hunk["ours"], hunk["theirs"]),
                             ("Line B.\n", "Line B, the agent's way.\n", "Line B, the person's way.\n"))
            self.assertEqual(self.ws.snapshot(), before)

    async def test_both_appending_keeps_the_persons_paragraph_first(self):
        async with session(self.ws) as s:
            written = await call(s, "write_file", path=PATH, content=DRAFT)
            self.file.write_text(self.file.read_text() + "\nThe person's paragraph.\n")
            merged = await call(s, "write_file", path=PATH, content=DRAFT + "\n## Whiteness\n\nWhite words.\n",
                                expected_version=written["version"], on_conflict="merge")
            self.assertTrue(merged["merged"])
            self.assertEqual(self.body(), DRAFT + "\nThe person's paragraph.\n\n## Whiteness\n\nWhite words.\n")

    async def test_a_section_grown_from_the_last_line_next_to_the_persons_paragraph_conflicts(self):
        async with session(self.ws) as s:
            written = await call(s, "write_file", path=PATH, content=DRAFT)
            self.file.write_text(self.file.read_text() + "\nThe person's paragraph.\n")
            before = self.ws.snapshot()
            agents = DRAFT.replace("Line C.\n", "Line C, reworded.\n\n## Whiteness\n\nWhite words.\n")
            conflict = await fail(s, "write_file", {"path": PATH, "content": agents, "expected_version": written["version"],
                                                    "on_conflict": "merge"})
            self.assertEqual(conflict["code"], "merge_conflict")
            self.assertIn("The person's paragraph.", conflict["conflicts"][0]["theirs"])
            self.assertEqual(self.ws.snapshot(), before)

    async def test_a_merge_that_still_drops_the_persons_lines_says_it_was_tried(self):
        async with session(self.ws) as s:
            await call(s, "write_file", path=PATH, content=DRAFT)
            self.file.write_text(self.file.read_text() + "\nThe person's paragraph.\n")
            # The agent edits its own line: the version it writes holds the person's paragraph.
            read = await call(s, "read_file", path=PATH)
            await call(s, "edit_file", path=PATH, expected_version=read["version"],
                       edits=[{"old_text": "Line B.", "new_text": "Line B, the agent's."}])
            read = await call(s, "read_file", path=PATH)
            without = read["content"].replace("\nThe person's paragraph.\n", "")
            refused = await fail(s, "write_file", {"path": PATH, "content": without, "expected_version": read["version"],
                                                   "on_conflict": "merge"})
            self.assertEqual(refused["code"], "user_edited")
            self.assertIn("merge\" was tried", refused["message"])
            self.assertNotIn("on_conflict: merge", refused["options"])
            self.assertIn("on_conflict: propose", refused["options"])
            proposed = await call(s, "write_file", path=PATH, content=without, expected_version=read["version"],
                                  on_conflict="propose")
            self.assertIn("proposal", proposed)


if __name__ == "__main__":
    unittest.main()
