"""get_context's account of the person's changes since the agent's last session: the count
beyond the shown page is the real count, and a file the person made is a `create`."""

import time
import unittest

from notes_server import Workspace, call, session


class PersonsChanges(unittest.IsolatedAsyncioTestCase):
    def setUp(self):
        self.ws = Workspace()

    def tearDown(self):
        self.ws.cleanup()

    async def test_more_user_changes_counts_every_changed_file_and_new_files_are_creates(self):
        async with session(self.ws) as s:
            await call(s, "write_file", path="Research/agent-draft.md", content="# Draft\n\nBy the agent.\n")
        time.sleep(1.1)  # log times have whole seconds
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.ws.path("Research/person").mkdir(parents=True)
        for i in range(40):
            # Half state when they were made (as the person's editor or template writes it).
            front = f"---\ncreated_at: {now}\n---\n" if i % 2 else ""
            self.ws.path(f"Research/person/n{i:02}.md").write_text(front + f"# Person's note {i}\n\nWritten by hand.\n")
        async with session(self.ws) as s:
            context = await call(s, "get_context")
        shown = context["user_changes_since_last_session"]
        self.assertEqual(len(shown), 25)
        self.assertEqual(len(shown) + context.get("more_user_changes", 0), 40, context.get("more_user_changes"))
        made = [c for c in shown if int(c["path"][-5:-3]) % 2]
        self.assertTrue(made and all(c.get("operation") == "create" for c in made), made[:3])
        # A file that says nothing of its making is not claimed to be an edit either.
        self.assertTrue(all(c.get("operation") in (None, "create") for c in shown), shown)


if __name__ == "__main__":
    unittest.main()
