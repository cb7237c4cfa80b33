"""The person's review of the agent's proposals, and the guard around it, through the official
Python MCP client against the built `notes mcp` and the `notes` CLI: accepting one change
lifts no protection of the person's other lines, and every step a message names works."""

import json
import unittest

from notes_server import Workspace, call, fail, notes, session

PATH = "Research/mates2.md"
DRAFT = "# Mates\n\nLine A.\n\nLine B.\n\nLine C.\n"


class Review(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.ws = Workspace()
        self.file = self.ws.path(PATH)

    async def asyncTearDown(self):
        self.ws.cleanup()

    def person_edits(self, old: str, new: str):
        self.file.write_text(self.file.read_text().replace(old, new))

    async def propose_a_over_the_persons_a_and_b(self, s) -> str:
        """The agent writes; the person changes lines A and B; the agent proposes a change of A."""
        await call(s, "write_file", path=PATH, content=DRAFT)
        self.person_edits("Line A.", "Line A, the person's.")
        self.person_edits("Line B.", "Line B, the person's.")
        read = await call(s, "read_file", path=PATH)
        proposed = await call(s, "edit_file", path=PATH, expected_version=read["version"], on_conflict="propose",
                              edits=[{"old_text": "Line A, the person's.", "new_text": "Line A, the agent's."}])
        return proposed["proposal"]

    async def assert_b_stays_the_persons(self, s):
        read = await call(s, "read_file", path=PATH)
        self.assertIn("Line A, the agent's.", read["content"])
        refused = await fail(s, "edit_file", {"path": PATH, "expected_version": read["version"], "edits": [
            {"old_text": "Line B, the person's.", "new_text": "Line B, the agent's."}]})
        self.assertEqual(refused["code"], "user_edited")
        # The accepted line is the agent's own text now: it may edit it again.
        await call(s, "edit_file", path=PATH, expected_version=read["version"],
                   edits=[{"old_text": "Line A, the agent's.", "new_text": "Line A, the agent's again."}])
        self.assertIn("Line B, the person's.", self.file.read_text())

    def last_log_entry(self) -> dict:
        log = notes("log", PATH, "--json", ws=self.ws, check=True)
        changes = json.loads(log.stdout)["changes"]
        return next(c for c in changes if c.get("op", c.get("operation")) in ("accept", "merge"))

    async def test_accepting_a_proposal_keeps_the_persons_other_lines_protected(self):
        async with session(self.ws) as s:
            proposal = await self.propose_a_over_the_persons_a_and_b(s)
            notes("review", proposal, "--accept", ws=self.ws, check=True)
            self.assertEqual(self.last_log_entry()["actor"], "user")
            await self.assert_b_stays_the_persons(s)

    async def test_review_shows_the_agents_change_after_the_person_edits_the_file(self):
        # From a trial: shown against the file now, the person's later line read as a line
        # the proposal removes, which --merge keeps.
        async with session(self.ws) as s:
            proposal = await self.propose_a_over_the_persons_a_and_b(s)
            self.person_edits("Line C.", "Line C, changed after the proposal.")
            shown = notes("review", proposal, ws=self.ws, check=True).stdout
            self.assertIn("the file changed since the agent saw it", shown)
            self.assertIn("+Line A, the agent's.", shown)
            self.assertIn("-Line A, the person's.", shown)
            self.assertNotIn("Line C, changed after the proposal.", shown)
            notes("review", proposal, "--merge", ws=self.ws, check=True)
            text = self.file.read_text()
            self.assertIn("Line A, the agent's.", text)
            self.assertIn("Line C, changed after the proposal.", text)

    async def test_merging_a_proposal_keeps_the_persons_other_lines_protected(self):
        async with session(self.ws) as s:
            proposal = await self.propose_a_over_the_persons_a_and_b(s)
            self.person_edits("Line C.", "Line C, the person's.")
            notes("review", proposal, "--merge", ws=self.ws, check=True)
            self.assertEqual(self.last_log_entry()["actor"], "user")
            await self.assert_b_stays_the_persons(s)

    async def test_a_colliding_proposal_names_a_step_that_works_with_the_sides_named_for_the_person(self):
        async with session(self.ws) as s:
            proposal = await self.propose_a_over_the_persons_a_and_b(s)
            self.person_edits("Line A, the person's.", "Line A, the person's second try.")
            accept = notes("review", proposal, "--accept", ws=self.ws)
            self.assertEqual(accept.returncode, 2)
            self.assertIn(f"notes review {proposal} --merge", accept.stderr)
            merge = notes("review", proposal, "--merge", ws=self.ws)
            self.assertEqual(merge.returncode, 2)
            # Not back to --accept: the step it names works.
            self.assertNotIn("accept", merge.stderr)
            self.assertIn("yours (the file as you have it): Line A, the person's second try.", merge.stderr)
            self.assertIn("the agent's proposal:", merge.stderr)
            self.assertIn("Line A, the agent's.", merge.stderr)
            self.assertIn(f"notes review {proposal} --reject", merge.stderr)
            notes("review", proposal, "--reject", ws=self.ws, check=True)
            self.assertIn("Line A, the person's second try.", self.file.read_text())


class StaleEdits(unittest.IsolatedAsyncioTestCase):
    async def test_an_edit_of_text_the_person_changed_since_the_version_is_stale(self):
        ws = Workspace()
        self.addCleanup(ws.cleanup)
        async with session(ws) as s:
            written = await call(s, "write_file", path=PATH, content=DRAFT)
            ws.path(PATH).write_text(ws.text(PATH).replace("Line A.", "Line A, the person's."))
            stale = await fail(s, "edit_file", {"path": PATH, "expected_version": written["version"],
                                                "edits": [{"old_text": "Line A.", "new_text": "Line A!"}]})
            self.assertEqual(stale["code"], "stale_version")
            self.assertIn("changed since you read it", stale["message"])
            self.assertIn("+Line A, the person's.", stale["diff"])
            # With the version it has now, the same text is simply not there.
            now = await call(s, "read_file", path=PATH)
            missing = await fail(s, "edit_file", {"path": PATH, "expected_version": now["version"],
                                                  "edits": [{"old_text": "Line A.", "new_text": "Line A!"}]})
            self.assertEqual(missing["code"], "invalid_argument")


if __name__ == "__main__":
    unittest.main()
