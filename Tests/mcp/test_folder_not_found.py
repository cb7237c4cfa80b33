"""list_files on a folder that does not exist: the hint leads somewhere that works. A
Dendron vault keeps its hierarchy in dotted file names (dendron.topic.note.md), not in
folders; suggesting a file to list_files (which wants a folder) led nowhere."""

import unittest

from notes_server import Workspace, call, fail, session


class FolderNotFound(unittest.IsolatedAsyncioTestCase):
    def setUp(self):
        self.ws = Workspace(copy=False)
        (self.ws.root / ".notes").mkdir()
        (self.ws.root / "vault").mkdir()
        for name in ["dendron.md", "dendron.topic.md", "dendron.topic.a.md", "dendron.topic.b.md"]:
            (self.ws.root / "vault" / name).write_text(f"# {name}\n\ntext\n")

    def tearDown(self):
        self.ws.cleanup()

    async def test_a_dotted_hierarchy_is_listed_by_the_glob_the_hint_names(self):
        async with session(self.ws) as s:
            refused = await fail(s, "list_files", {"path": "vault/dendron.topic"})
            self.assertEqual(refused["code"], "not_found")
            self.assertIn('glob "dendron.topic.*"', refused["hint"])
            self.assertNotIn("did_you_mean", refused)  # files are not folders to list
            listed = await call(s, "list_files", path="vault", glob="dendron.topic.*")
            self.assertEqual(sorted(e["path"] for e in listed["entries"]),
                             ["vault/dendron.topic.a.md", "vault/dendron.topic.b.md", "vault/dendron.topic.md"])

    async def test_a_near_miss_folder_is_suggested(self):
        async with session(self.ws) as s:
            refused = await fail(s, "list_files", {"path": "Vault"})
            self.assertEqual(refused.get("did_you_mean"), ["vault"], refused)


if __name__ == "__main__":
    unittest.main()
