"""Issue 32 item 7 through the official Python MCP client: where the client supports MCP
elicitation, an overwrite of the person's lines asks the person inside the client — their
yes writes, their no keeps the refusal — and a client without it gets today's refusal."""

import os
import unittest

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from notes_server import NO_MODEL, Workspace, first_leaf, notes_binary, result_json

PATH = "Research/moby-dick/themes.md"


class AskThePersonInTheClient(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.ws = Workspace()
        self.file = self.ws.path(PATH)
        self.asked: list[str] = []

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def overwrite(self, answer: types.ElicitResult | None) -> dict:
        """The agent writes a note, the person rewords a line, and the agent rewrites the note
        without it; `answer` is the person's answer in the client (None: no elicitation)."""
        async def ask(context, params):
            self.asked.append(params.message)
            return answer

        params = StdioServerParameters(command=notes_binary(), args=["mcp", "-w", str(self.ws.root), "--index-dir", str(self.ws.index)],
                                       env={**os.environ, "NO_COLOR": "1", "NOTES_MODEL_DIR": NO_MODEL})
        try:
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write, elicitation_callback=ask if answer else None) as s:
                    await s.initialize()
                    created = result_json(await s.call_tool("write_file", {"path": PATH, "content": "# Themes\n\nOne.\n\nTwo.\n"}))
                    self.file.write_text(self.file.read_text().replace("Two.", "Two, as the person put it."))
                    read_back = result_json(await s.call_tool("read_file", {"path": PATH}))
                    self.assertNotEqual(created["version"], read_back["version"])
                    result = await s.call_tool("write_file", {"path": PATH, "content": "# Themes\n\nOne.\n\nTwo, the agent's way.\n",
                                                              "expected_version": read_back["version"]})
                    return {"is_error": result.is_error, **result_json(result)}
        except BaseExceptionGroup as group:
            raise first_leaf(group) from None

    async def test_the_persons_yes_writes(self):
        answer = await self.overwrite(types.ElicitResult(action="accept", content={"allow": True}))
        self.assertFalse(answer["is_error"], answer)
        self.assertNotIn("changed", answer)  # said only when nothing changed
        self.assertIn("version", answer)
        self.assertEqual(len(self.asked), 1)
        self.assertIn("Two, as the person put it.", self.asked[0])
        self.assertIn(PATH, self.asked[0])
        self.assertIn("Two, the agent's way.", self.file.read_text())

    async def test_the_persons_no_keeps_the_refusal(self):
        answer = await self.overwrite(types.ElicitResult(action="decline"))
        self.assertTrue(answer["is_error"])
        self.assertEqual((answer["code"], answer["person_asked"]), ("user_edited", "declined"))
        self.assertIn("did not allow", answer["message"])
        self.assertIn("as the person put it", self.file.read_text())

    async def test_an_unchecked_box_is_a_no(self):
        answer = await self.overwrite(types.ElicitResult(action="accept", content={"allow": False}))
        self.assertEqual(answer["code"], "user_edited")
        self.assertIn("as the person put it", self.file.read_text())

    async def test_a_client_without_elicitation_gets_the_refusal(self):
        answer = await self.overwrite(None)
        self.assertEqual(answer["code"], "user_edited")
        self.assertNotIn("person_asked", answer)
        self.assertEqual(self.asked, [])
        self.assertIn("as the person put it", self.file.read_text())


if __name__ == "__main__":
    unittest.main()
