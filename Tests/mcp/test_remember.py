"""Issue 32 item 9 through the official Python MCP client: `remember` answers `duplicate`
for the same fact reworded, naming the line of context.md that says it, and still adds a
different fact that shares its words."""

import unittest

from notes_server import Workspace, call, session


class RememberNearDuplicates(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_a_reworded_fact_is_a_duplicate_naming_the_line(self):
        async with session(self.ws) as s:
            # sample-workspace/context.md says "- 2026-11-20: Prefers primary sources over summaries."
            before = self.ws.path("context.md").read_bytes()
            again = await call(s, "remember", fact="Prefers primary sources to summaries")
            self.assertTrue(again["duplicate"])
            self.assertEqual(again["matching"], "- 2026-11-20: Prefers primary sources over summaries.")
            self.assertNotIn("added", again)
            self.assertEqual(self.ws.path("context.md").read_bytes(), before)
            # The same words the other way round are a different fact.
            reversed_ = await call(s, "remember", fact="Prefers summaries over primary sources")
            self.assertFalse(reversed_["duplicate"])
            self.assertIn("Prefers summaries over primary sources", self.ws.path("context.md").read_text())
            # So is a negation, or another number.
            await call(s, "remember", fact="Wants summaries under 200 words")
            self.assertFalse((await call(s, "remember", fact="Wants summaries under 500 words"))["duplicate"])

    async def test_a_fact_added_beside_one_saying_otherwise_or_alike_names_it(self):
        async with session(self.ws) as s:
            # Added (only the agent can tell a correction from a new fact), with the line it
            # should be read beside and how to remove that line.
            opposite = await call(s, "remember", fact="Does not prefer primary sources to summaries")
            self.assertFalse(opposite["duplicate"])
            self.assertEqual(opposite["contradicts"], "- 2026-11-20: Prefers primary sources over summaries.")
            self.assertIn("edit_file", opposite["next"])
            # The step it names works (from a trial: a plain edit is refused, context.md being
            # append-only for agents): a proposal the person reviews, nothing changed yet.
            self.assertIn('on_conflict "propose"', opposite["next"])
            before = self.ws.path("context.md").read_bytes()
            current = await call(s, "read_file", path="context.md")
            proposed = await call(s, "edit_file", path="context.md", expected_version=current["version"],
                                  on_conflict="propose",
                                  edits=[{"old_text": opposite["contradicts"] + "\n", "new_text": ""}])
            self.assertTrue(proposed["proposal"], proposed)
            self.assertEqual(self.ws.path("context.md").read_bytes(), before)
            alike = await call(s, "remember", fact="Teaches secondary-school English")
            self.assertEqual(alike["similar"],
                             "- I teach secondary-school English; drafts should be usable with 16-year-olds.")
            other = await call(s, "remember", fact="Keeps a cat called Ahab")
            self.assertFalse({"contradicts", "similar", "next"} & set(other), other)
            # A number changed says otherwise too.
            await call(s, "remember", fact="Wants summaries under 200 words")
            self.assertIn("200 words", (await call(s, "remember", fact="Wants summaries under 500 words"))["contradicts"])


if __name__ == "__main__":
    unittest.main()
