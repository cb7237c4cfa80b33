"""Tests/agent's helpers: the shared ones of Tests/support (the built `notes`, scratch copies of
sample-workspace/), with what the agent and fetch tests add: fast retries, a clean network
environment, and the agent's sessions (standard library only)."""
import datetime
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

import notes_testing  # noqa: E402
from notes_testing import NO_MODEL, REPO, SAMPLE, notes_binary  # noqa: E402,F401

FAKE_KEY = "sk-ant-test-0123456789-never-stored"


class Workspace(notes_testing.Workspace):
    """The shared scratch workspace; `config` is added to the shipped settings."""

    prefix = "notes-agent-"

    def __init__(self, config: str | None = None):
        super().__init__()
        text = (self.root / ".notes" / "config.yml").read_text()
        # Fast retries for the tests; everything else as shipped.
        text += "agent:\n  retry_base_delay: 0.05\n  retry_attempts: 3\n  idle_timeout: 20\n"
        if config:
            text += config
        (self.root / ".notes" / "config.yml").write_text(text)

    def env(self, **extra) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
        env["NOTES_MODEL_DIR"] = NO_MODEL  # words alone unless a test opts in
        env.update({"NO_COLOR": "1", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                    "NOTES_INDEX_DIR": str(self.index)})
        for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
            env.pop(key, None)
        env.update(extra)
        return env

    def anthropic_env(self, url: str, **extra) -> dict:
        return self.env(ANTHROPIC_API_KEY=FAKE_KEY, ANTHROPIC_BASE_URL=url, **extra)

    def openai_env(self, url: str, **extra) -> dict:
        return self.env(OPENAI_BASE_URL=url, **extra)

    def notes(self, *args, env=None, stdin=subprocess.DEVNULL, timeout=120) -> subprocess.CompletedProcess:
        return subprocess.run([notes_binary(), "-w", str(self.root), *args], env=env or self.env(), stdin=stdin,
                              capture_output=True, text=True, timeout=timeout)

    def start(self, *args, env=None) -> subprocess.Popen:
        return subprocess.Popen([notes_binary(), "-w", str(self.root), *args], env=env or self.env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def sessions(self) -> list[dict]:
        return json.loads(self.notes("agent", "--list", "--json").stdout)

    def checkpoint(self, session_id: str) -> dict:
        return json.loads(self.text(f"Chats/{session_id}.json"))

    def history(self, relative: str) -> list[dict]:
        out = self.notes("history", relative, "--json")
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        return data["versions"] if isinstance(data, dict) else data

    def snapshot(self, skip=("Chats/",)) -> dict[str, str]:
        out = {}
        for p in sorted(self.root.rglob("*")):
            rel = str(p.relative_to(self.root))
            # .notes/history/objects keeps what an agent has read (the read-before-write guard).
            if p.is_file() and p.name != "lock" and not rel.startswith(skip) and not rel.startswith((".notes/agent/", ".notes/history/objects/")):
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
        return out

    def all_bytes(self) -> bytes:
        return b"".join(p.read_bytes() for p in self.root.rglob("*") if p.is_file())


def today() -> str:
    return datetime.date.today().isoformat()
