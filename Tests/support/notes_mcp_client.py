"""An initialised session of the official Python MCP client (the `mcp` package) on the built
`notes mcp`, as an agent would hold one, and the calls the tests make through it."""

import contextlib
import json
import os

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from notes_testing import NO_MODEL, Workspace, notes_binary


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
