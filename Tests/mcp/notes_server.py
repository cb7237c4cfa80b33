"""Tests/mcp's helpers: the shared ones of Tests/support (the built `notes`, scratch copies of
sample-workspace/, the official MCP client's session on `notes mcp`)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from notes_mcp_client import ToolError, call, fail, first_leaf, result_json, session  # noqa: E402,F401
from notes_testing import (  # noqa: E402,F401
    NO_MODEL, REPO, SAMPLE, Workspace, notes, notes_binary, rss_kb, server_pid)
