"""Issue 32 item 11 through the official Python MCP client: `append_file` to a journal page
keeps the journal's format — text without its own heading becomes a timed entry tagged with
the agent, and a new page starts from the journal template — like `notes journal`."""

import datetime
import re
import unittest

from notes_server import Workspace, call, session


class AppendToTheJournal(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.ws = Workspace()

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_text_appended_to_a_journal_page_becomes_an_entry(self):
        today = datetime.date.today().isoformat()
        page = f"Journal/{today}.md"
        async with session(self.ws) as s:
            first = await call(s, "append_file", path=page, content="Drafted the themes note.")
            self.assertTrue(first["created"])
            self.assertRegex(first["entry"], r"^## \d\d:\d\d — agent$")
            await call(s, "append_file", path=page, content="Merged the person's edits.\n")
            # Text with its own heading is appended as it is.
            await call(s, "append_file", path=page, content="## Later — agent\n\nRemembered a fact.")
        text = self.ws.path(page).read_text()
        self.assertIn(f"# {today}", text)
        self.assertEqual(len(re.findall(r"^## \d\d:\d\d — agent\n\n", text, re.M)), 2, text)
        self.assertRegex(text, r"## \d\d:\d\d — agent\n\nDrafted the themes note\.\n\n## \d\d:\d\d — agent\n\nMerged the person's edits\.\n")
        self.assertTrue(text.endswith("## Later — agent\n\nRemembered a fact.\n"), text)
        # An existing page of another day keeps its own entries and gets one more.
        async with session(self.ws) as s:
            await call(s, "append_file", path="Journal/2026-11-20.md", content="Looked at the logbooks again.")
        old = self.ws.path("Journal/2026-11-20.md").read_text()
        self.assertRegex(old, r"## 22:10 — user\n\n(.|\n)*\n## \d\d:\d\d — agent\n\nLooked at the logbooks again\.\n$")


if __name__ == "__main__":
    unittest.main()
