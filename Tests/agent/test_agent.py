"""`notes agent` end to end: the real binary against a fake model API on 127.0.0.1 that
speaks the Anthropic and OpenAI wire formats (streaming), replaying scripted turns."""
import json
import os
import pty
import select
import signal
import socket
import subprocess
import time
import unittest

from agent_support import FAKE_KEY, Workspace, notes_binary, today
from fake_provider import FakeProvider

INTRO = "Research/moby-dick/draft-introduction.md"


def draft_script(journal_path):
    """search → read → write a new file → remember → journal → a closing answer."""
    return [
        {"text": "I'll see what you already have on the whale.", "tools": [{"name": "search", "input": {"query": "whale", "limit": 3}}]},
        {"tools": [{"name": "read_file", "input": {"path": "Research/moby-dick/notes.md"}}]},
        {"text": "Writing the draft now.", "tools": [{"name": "write_file", "input": {
            "path": INTRO, "content": "# Moby-Dick: a draft introduction\n\nIshmael goes to sea; Ahab hunts the white whale.\n"}}]},
        {"tools": [{"name": "remember", "input": {"fact": "Is reading Moby-Dick with a focus on the cetology chapters"}}]},
        {"tools": [{"name": "append_file", "input": {"path": journal_path, "content": "Drafted the Moby-Dick introduction with the agent."}}]},
        {"text": f"I drafted {INTRO}: a short introduction with the voyage and Ahab's hunt (quasarlike-marker)."},
    ]


class AgentTestCase(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()
        self.fakes = []

    def tearDown(self):
        for fake in self.fakes:
            fake.close()
        self.ws.cleanup()

    def fake(self, script):
        fake = FakeProvider(script)
        self.fakes.append(fake)
        return fake

    def only_session(self):
        sessions = self.ws.sessions()
        # The sample's old chat is a conversation, not a checkpoint: --list leaves it out.
        self.assertEqual(len(sessions), 1, sessions)
        return sessions[0]

    def creates(self, relative):
        return [v for v in self.ws.history(relative) if v["op"] == "create"]


class DraftingTests(AgentTestCase):
    def test_draft_an_introduction_anthropic(self):
        fake = self.fake(draft_script(f"Journal/{today()}.md"))
        run = self.ws.notes("agent", "Draft an introduction to Moby Dick for me", env=self.ws.anthropic_env(fake.url))
        self.assertEqual(run.returncode, 0, run.stderr)
        # Streamed text reaches stdout; tool lines and usage go to stderr.
        self.assertIn("I'll see what you already have on the whale.", run.stdout)
        self.assertIn("quasarlike-marker", run.stdout)
        for line in ("✓ search \"whale\"", "✓ read_file Research/moby-dick/notes.md", f"✓ write_file {INTRO}", "✓ remember", "✓ append_file"):
            self.assertIn(line, run.stderr)
        self.assertIn("done · 6 turns", run.stderr)

        # The files, written as the agent with provenance.
        intro = self.ws.text(INTRO)
        self.assertIn("created_by: agent", intro)
        self.assertIn("Ahab hunts the white whale", intro)
        self.assertIn("focus on the cetology chapters", self.ws.text("context.md"))
        self.assertIn("Drafted the Moby-Dick introduction", self.ws.text(f"Journal/{today()}.md"))
        self.assertEqual([v["client"] for v in self.creates(INTRO)], ["notes-agent"])

        # The wire: key header, API version, tools, streamed tool input reassembled, results sent back.
        first = fake.requests[0]
        self.assertEqual(first["path"], "/v1/messages")
        self.assertEqual(first["headers"]["x-api-key"], FAKE_KEY)
        self.assertEqual(first["headers"]["anthropic-version"], "2023-06-01")
        self.assertTrue(first["body"]["stream"])
        self.assertIn("context.md", first["body"]["system"])
        names = {t["name"] for t in first["body"]["tools"]}
        self.assertTrue({"search", "read_file", "write_file", "append_file", "remember", "fetch_url", "get_context"} <= names)
        second = fake.requests[1]["body"]["messages"]
        self.assertEqual([m["role"] for m in second], ["user", "assistant", "user"])
        tool_use = second[1]["content"][1]
        self.assertEqual((tool_use["type"], tool_use["name"], tool_use["input"]), ("tool_use", "search", {"query": "whale", "limit": 3}))
        result = second[2]["content"][0]
        self.assertEqual(result["tool_use_id"], tool_use["id"])
        self.assertIn('"hits"', result["content"])

        # The checkpoint: completed, 6 turns, usage summed, no key anywhere in the workspace.
        session = self.only_session()
        self.assertEqual((session["state"], session["turns"]), ("completed", 6))
        self.assertEqual(session["input_tokens"], sum(100 * n for n in range(1, 7)))
        self.assertEqual(session["output_tokens"], sum(10 * n for n in range(1, 7)))
        self.assertAlmostEqual(session["cost"], (session["input_tokens"] * 3 + session["output_tokens"] * 15) / 1e6)
        self.assertNotIn(FAKE_KEY.encode(), self.ws.all_bytes())
        checkpoint = self.ws.checkpoint(session["id"])
        self.assertEqual(checkpoint["pending"], [])
        self.assertEqual(len(checkpoint["messages"]), 12)

        # Chats are documents: the answer is found by search, pointing at the message.
        found = self.ws.notes("search", "quasarlike", "--json")
        self.assertEqual(found.returncode, 0, found.stderr)
        self.assertIn(f"Chats/{session['id']}.json", found.stdout)
        self.assertIn("assistant #12", found.stdout)

    def test_openai_compatible_server_without_key(self):
        fake = self.fake([
            {"text": "Searching.", "tools": [{"name": "search", "input": {"query": "Ahab"}}]},
            {"tools": [{"name": "write_file", "input": {"path": "Research/ahab.md", "content": "# Ahab\n\nThe captain.\n"}},
                       {"name": "remember", "input": {"fact": "Wants a note on Ahab"}}]},
            {"text": "Wrote Research/ahab.md."},
        ])
        run = self.ws.notes("agent", "--model", "llama3.1", "Write a note on Ahab", env=self.ws.openai_env(fake.url + "/v1"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("Wrote Research/ahab.md.", run.stdout)
        self.assertIn("The captain.", self.ws.text("Research/ahab.md"))
        first = fake.requests[0]
        self.assertEqual(first["path"], "/v1/chat/completions")
        self.assertNotIn("authorization", first["headers"])
        self.assertEqual(first["body"]["model"], "llama3.1")
        self.assertEqual(first["body"]["messages"][0]["role"], "system")
        self.assertEqual(first["body"]["tools"][0]["type"], "function")
        third = fake.requests[2]["body"]["messages"]
        self.assertEqual([m["role"] for m in third], ["system", "user", "assistant", "tool", "assistant", "tool", "tool"])
        self.assertEqual(third[4]["tool_calls"][1]["function"]["name"], "remember")
        self.assertEqual(json.loads(third[4]["tool_calls"][0]["function"]["arguments"])["path"], "Research/ahab.md")
        self.assertEqual(third[5]["tool_call_id"], third[4]["tool_calls"][0]["id"])
        session = self.only_session()
        self.assertEqual((session["state"], session["provider"], session["turns"]), ("completed", "openai", 3))
        self.assertIsNone(session.get("cost"))  # no price for llama3.1
        self.assertIn("cost unknown", run.stderr)


class UserEditTests(AgentTestCase):
    """The person edited the agent's draft; the agent tries to replace it."""

    def prepare(self):
        fake = self.fake([{"tools": [{"name": "write_file", "input": {"path": INTRO, "content": "# Draft\n\nFirst agent line.\n"}}]}, {"text": "Drafted."}])
        run = self.ws.notes("agent", "Draft it", env=self.ws.anthropic_env(fake.url))
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(self.ws.path(INTRO), "a") as f:
            f.write("The person's own line about Queequeg.\n")
        return [
            {"tools": [{"name": "read_file", "input": {"path": INTRO}}]},
            {"tools": [{"name": "write_file", "input": {"path": INTRO, "expected_version": "{{result:version}}",
                                                        "content": "# Draft, revised\n\nFirst agent line.\n"}}]},
            {"text": "Updated the draft."},
        ]

    def test_refusal_resolved_by_merge_at_the_terminal(self):
        fake = self.fake(self.prepare())
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(notes_binary(), [notes_binary(), "-w", str(self.ws.root), "agent", "Improve the draft"], self.ws.anthropic_env(fake.url))
        output = b""
        answered = False
        deadline = time.time() + 60
        while time.time() < deadline:
            ready, _, _ = select.select([fd], [], [], 1)
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            output += data
            if not answered and b"[m]erge both" in output:
                os.write(fd, b"m\n")
                answered = True
        _, status = os.waitpid(pid, 0)
        text = output.decode(errors="replace")
        self.assertTrue(answered, text)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, text)
        self.assertIn("which has your edits", text)
        self.assertIn("Queequeg", text)  # the diff shows the person's line
        content = self.ws.text(INTRO)
        self.assertIn("# Draft, revised", content, text)
        self.assertIn("The person's own line about Queequeg.", content)
        ops = [v["op"] for v in self.ws.history(INTRO)]
        self.assertIn("merge", ops)
        # The model was told what happened.
        last = json.dumps(fake.requests[-1]["body"]["messages"][-1])
        self.assertIn("merged", last)
        self.assertIn("The person chose to merge", last)

    def test_without_a_terminal_nothing_is_overwritten(self):
        fake = self.fake(self.prepare())
        before = self.ws.text(INTRO)
        run = self.ws.notes("agent", "Improve the draft", env=self.ws.anthropic_env(fake.url))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(self.ws.text(INTRO), before)
        self.assertIn("✗ write_file", run.stderr)
        self.assertIn("nobody is at the terminal to ask, so it was not overwritten", run.stderr)
        last = json.dumps(fake.requests[-1]["body"]["messages"][-1])
        self.assertIn("user_edited", last)
        self.assertIn("Nobody is at the terminal", last)


class BudgetAndFailureTests(AgentTestCase):
    def test_turn_budget_runs_out_then_resume_finishes(self):
        fake = self.fake([
            {"tools": [{"name": "append_file", "input": {"path": f"Journal/{today()}.md", "content": "budget entry one"}}]},
            {"tools": [{"name": "append_file", "input": {"path": f"Journal/{today()}.md", "content": "budget entry two"}}]},
            {"tools": [{"name": "append_file", "input": {"path": f"Journal/{today()}.md", "content": "budget entry three"}}]},
            {"text": "All three entries are in."},
        ])
        run = self.ws.notes("agent", "--max-turns", "2", "Log three entries", env=self.ws.anthropic_env(fake.url))
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("budget of 2 turns is used up", run.stderr)
        session = self.only_session()
        self.assertEqual((session["state"], session["stop_reason"], session["turns"]), ("interrupted", "max_turns", 2))
        self.assertEqual(len(fake.requests), 2)
        resumed = self.ws.notes("agent", "--resume", session["id"], "--max-turns", "10", env=self.ws.anthropic_env(fake.url))
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertIn("All three entries are in.", resumed.stdout)
        journal = self.ws.text(f"Journal/{today()}.md")
        for entry in ("budget entry one", "budget entry two", "budget entry three"):
            self.assertEqual(journal.count(entry), 1, journal)
        self.assertEqual(self.ws.sessions()[0]["turns"], 4)

    def test_token_budget(self):
        fake = self.fake([{"tools": [{"name": "search", "input": {"query": "whale"}}]}, {"text": "never reached"}])
        run = self.ws.notes("agent", "--max-tokens", "50", "Search", env=self.ws.anthropic_env(fake.url))
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("tokens is used up", run.stderr)
        self.assertEqual(self.only_session()["stop_reason"], "max_tokens")

    def test_429_then_success(self):
        fake = self.fake([{"status": 429, "retry_after": 0}, {"overloaded": True}, {"text": "Made it after the retries."}])
        run = self.ws.notes("agent", "Say hello", env=self.ws.anthropic_env(fake.url))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("Made it after the retries.", run.stdout)
        self.assertIn("API unavailable (429", run.stderr)
        self.assertIn("Overloaded", run.stderr)
        self.assertEqual(len(fake.requests), 3)
        self.assertEqual(self.only_session()["state"], "completed")

    def test_retries_exhausted_keep_a_resumable_checkpoint(self):
        fake = self.fake([{"status": 503}, {"status": 500}, {"status": 529}, {"text": "Back again."}])
        run = self.ws.notes("agent", "Say hello", env=self.ws.anthropic_env(fake.url))
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("the API kept failing", run.stderr)
        session = self.only_session()
        self.assertEqual((session["state"], session["stop_reason"]), ("interrupted", "api_unavailable"))
        resumed = self.ws.notes("agent", "--resume", session["id"], env=self.ws.anthropic_env(fake.url))
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertIn("Back again.", resumed.stdout)

    def test_refused_connection_is_offline_and_nothing_is_lost(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]  # closed again: nothing listens there
        before = self.ws.snapshot()
        run = self.ws.notes("agent", "Draft an introduction", env=self.ws.anthropic_env(f"http://127.0.0.1:{port}"))
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("offline", run.stderr)
        self.assertNotIn("Fatal error", run.stderr)
        self.assertEqual(self.ws.snapshot(), before)
        session = self.only_session()
        self.assertEqual((session["state"], session["stop_reason"]), ("interrupted", "offline"))
        self.assertEqual(self.ws.checkpoint(session["id"])["messages"][0]["content"][0]["text"], "Draft an introduction")

    def test_unauthorized_and_rejected(self):
        fake = self.fake([{"status": 401, "message": "invalid x-api-key"}, {"status": 400, "message": "messages: bad"}])
        run = self.ws.notes("agent", "Hi", env=self.ws.anthropic_env(fake.url))
        self.assertEqual(run.returncode, 2)
        self.assertIn("refused the key (invalid x-api-key); check ANTHROPIC_API_KEY", run.stderr)
        session = self.only_session()
        self.assertEqual(session["state"], "interrupted")
        again = self.ws.notes("agent", "--resume", session["id"], env=self.ws.anthropic_env(fake.url))
        self.assertEqual(again.returncode, 2)
        self.assertIn("rejected the request (400: messages: bad)", again.stderr)
        self.assertEqual(self.ws.sessions()[0]["state"], "failed")
        final = self.ws.notes("agent", "--resume", session["id"], env=self.ws.anthropic_env(fake.url))
        self.assertEqual(final.returncode, 2)
        self.assertIn("is failed and cannot be resumed", final.stderr)

    def test_no_provider_configured(self):
        run = self.ws.notes("agent", "Hi")
        self.assertEqual(run.returncode, 2)
        self.assertIn("no model provider is set up", run.stderr)
        self.assertEqual(self.ws.sessions(), [])


class CrashAndResumeTests(AgentTestCase):
    def test_kill_9_while_waiting_for_the_model_then_resume(self):
        journal = f"Journal/{today()}.md"
        fake = self.fake([
            {"tools": [{"name": "write_file", "input": {"path": "Research/kill-test.md", "content": "# Kill test\n\nwritten once\n"}}]},
            {"tools": [{"name": "append_file", "input": {"path": journal, "content": "kill-test journal entry"}}]},
            {"hang": True},
            {"text": "Finished after the crash."},
        ])
        proc = self.ws.start("agent", "Write and log", env=self.ws.anthropic_env(fake.url))
        fake.wait_for_requests(3)
        time.sleep(0.2)
        proc.kill()
        proc.communicate()
        session = self.only_session()
        self.assertEqual(session["state"], "running")  # what a crash leaves; resume knows the lock is free
        resumed = self.ws.notes("agent", "--resume", session["id"], env=self.ws.anthropic_env(fake.url))
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertIn("Finished after the crash.", resumed.stdout)
        # The resumed request carries the same conversation; no tool ran twice.
        self.assertEqual(fake.requests[3]["body"]["messages"], fake.requests[2]["body"]["messages"])
        self.assertEqual(len(self.creates("Research/kill-test.md")), 1)
        self.assertEqual(self.ws.text(journal).count("kill-test journal entry"), 1)
        self.assertEqual(self.ws.sessions()[0]["state"], "completed")

    def test_kill_9_right_after_a_tool_ran_is_not_run_again(self):
        fake = self.fake([
            {"tools": [{"name": "write_file", "input": {"path": "Research/once.md", "content": "# Once\n"}}]},
            {"text": "Checked; the file is there."},
        ])
        run = self.ws.notes("agent", "Write once", env=self.ws.anthropic_env(fake.url, NOTES_CRASH_AT="agent-tool-ran:write_file"))
        self.assertEqual(run.returncode, -signal.SIGKILL, run.stderr)
        self.assertTrue(self.ws.path("Research/once.md").exists())
        session = self.only_session()
        checkpoint = self.ws.checkpoint(session["id"])
        self.assertEqual(checkpoint["pending"][0]["status"], "started")
        resumed = self.ws.notes("agent", "--resume", session["id"], env=self.ws.anthropic_env(fake.url))
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertEqual(len(self.creates("Research/once.md")), 1)
        result = fake.requests[1]["body"]["messages"][-1]["content"][0]
        self.assertTrue(result["is_error"])
        self.assertIn("was not run again", result["content"])

    def test_sigint_saves_interrupted_and_resume_continues(self):
        fake = self.fake([{"hang": True}, {"text": "Resumed fine."}])
        proc = self.ws.start("agent", "Wait for it", env=self.ws.anthropic_env(fake.url))
        fake.wait_for_requests(1)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        self.assertEqual(proc.returncode, 130, err)
        session = self.only_session()
        self.assertEqual((session["state"], session["stop_reason"]), ("interrupted", "signal"))
        resumed = self.ws.notes("agent", "--resume", session["id"], env=self.ws.anthropic_env(fake.url))
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertIn("Resumed fine.", resumed.stdout)

    def test_one_process_per_session(self):
        fake = self.fake([{"hang": True}])
        proc = self.ws.start("agent", "Hold the lock", env=self.ws.anthropic_env(fake.url))
        try:
            fake.wait_for_requests(1)
            session = self.only_session()
            second = self.ws.notes("agent", "--resume", session["id"], env=self.ws.anthropic_env(fake.url))
            self.assertEqual(second.returncode, 2)
            self.assertIn("running in another notes process", second.stderr)
        finally:
            proc.kill()
            proc.communicate()


if __name__ == "__main__":
    unittest.main()
