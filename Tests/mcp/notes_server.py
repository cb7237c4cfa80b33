"""Starts the built `notes mcp` on a copy of sample-workspace/ and talks to it with the
official Python MCP client (the `mcp` package), as an agent would."""

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

# Spawned `notes` search by words alone unless a test passes the installed model (NOTES_MODEL_DIR).
NO_MODEL = "/nonexistent/notes-test-no-model"

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample-workspace"


def notes_binary() -> str:
    """The binary under test: $NOTES_BIN, else the debug build."""
    path = os.environ.get("NOTES_BIN") or str(REPO / ".build" / "debug" / "notes")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"{path} is not built; run `swift build --product notes` (or set NOTES_BIN)")
    return path


class Workspace:
    """A scratch copy of the sample workspace with its own index folder, plus a sentinel
    folder outside it that no tool may touch or reveal."""

    def __init__(self, config: str | None = None):
        self.temp = Path(tempfile.mkdtemp(prefix="notes-mcp-"))
        self.root = self.temp / "ws"
        shutil.copytree(SAMPLE, self.root)
        if config is not None:
            (self.root / ".notes" / "config.yml").write_text(config)
        self.index = self.temp / "index"
        self.sentinel = self.temp / "sentinel"
        self.sentinel.mkdir()
        (self.sentinel / "secret.md").write_text("# Sentinel\n\nsentinel-canary-7f3a must never leave this folder\n")

    def path(self, relative: str) -> Path:
        return self.root / relative

    def snapshot(self) -> dict[str, str]:
        """Every file's hash, .notes/ included (history must not change on a refusal either)."""
        out = {}
        for p in sorted(self.root.rglob("*")):
            # .notes/lock is an empty lock file that any write attempt may create.
            if p.is_file() and not p.is_symlink() and p.name != "lock":
                out[str(p.relative_to(self.root))] = hashlib.sha256(p.read_bytes()).hexdigest()
        return out

    def sentinel_snapshot(self) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted(self.sentinel.iterdir())}

    def cleanup(self):
        shutil.rmtree(self.temp, ignore_errors=True)


@contextlib.asynccontextmanager
async def session(ws: Workspace, *extra_args: str, client_name: str = "pytest-agent", env: dict[str, str] | None = None):
    """An initialised ClientSession on `notes mcp -w WS` (`env`: extra environment for the server)."""
    params = StdioServerParameters(
        command=notes_binary(),
        args=["mcp", "-w", str(ws.root), "--index-dir", str(ws.index), *extra_args],
        env={**os.environ, "NO_COLOR": "1", "NOTES_MODEL_DIR": NO_MODEL, **(env or {})},
    )
    try:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, client_info=types.Implementation(name=client_name, version="1.0")) as s:
                await s.initialize()
                yield s
    except BaseExceptionGroup as group:
        # The client's task groups wrap a failed assertion: show the assertion itself.
        raise first_leaf(group) from None


def first_leaf(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


class ToolError(Exception):
    def __init__(self, payload: dict):
        super().__init__(json.dumps(payload))
        self.payload = payload
        self.code = payload.get("code")


def result_json(result) -> dict:
    """The structured result, checked against the JSON text (they must be the same)."""
    assert result.content and result.content[0].type == "text", result
    text = json.loads(result.content[0].text)
    assert isinstance(result.structured_content, dict), result.structured_content
    assert text == result.structured_content, (text, result.structured_content)
    return text


async def call(s: ClientSession, tool: str, **arguments) -> dict:
    """Calls a tool that must succeed."""
    result = await s.call_tool(tool, arguments)
    payload = result_json(result)
    if result.is_error:
        raise ToolError(payload)
    return payload


async def fail(s: ClientSession, tool: str, arguments: dict) -> dict:
    """Calls a tool that must fail; returns the error payload ({code, message, ...})."""
    result = await s.call_tool(tool, arguments)
    payload = result_json(result)
    assert result.is_error, f"{tool} {arguments} should have failed, got {payload}"
    assert isinstance(payload.get("code"), str) and isinstance(payload.get("message"), str), payload
    return payload


def server_pid(binary: str) -> int | None:
    """The pid of our `notes mcp` child (which execs `notes-mcp`, next to `notes`)."""
    me = os.getpid()
    executables = {os.path.realpath(binary), os.path.realpath(os.path.join(os.path.dirname(binary), "notes-mcp"))}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) != me:
                continue
            if os.path.realpath(f"/proc/{entry}/exe") in executables:
                return int(entry)
        except (OSError, IndexError, ValueError):
            continue
    return None


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
