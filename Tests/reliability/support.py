"""Tests/reliability's helpers: the shared ones of Tests/support (the built `notes`, scratch
copies of sample-workspace/, the MCP client session, the soak switch, file utilities)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from notes_mcp_client import ToolError, call, fail, first_leaf, result_json, session  # noqa: E402,F401
from notes_testing import (  # noqa: E402,F401
    NO_MODEL, REPO, SOAK, Workspace, notes, notes_binary, notes_with_peak_rss, one_clean_line, reset_peak_rss, rss_kb,
    scaled, server_pid, tree_digest, version_of)
