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


if __name__ == "__main__":
    unittest.main()
