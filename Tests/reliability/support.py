"""Shared pieces of the reliability suite: the MCP session helpers of Tests/mcp, a soak
switch, and small process and file utilities. Everything runs the real binary."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

# Spawned `notes` search by words alone unless a test passes the installed model (NOTES_MODEL_DIR).
NO_MODEL = "/nonexistent/notes-test-no-model"

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))

from notes_server import (  # noqa: E402,F401  (re-exported for the tests)
    REPO, ToolError, Workspace, call, fail, first_leaf, notes_binary, result_json, rss_kb, server_pid, session)

# `scripts/reliability --soak` sets NOTES_SOAK=1: the same tests, run longer.
SOAK = os.environ.get("NOTES_SOAK") == "1"


def scaled(quick: int, soak: int) -> int:
    return soak if SOAK else quick


def notes(*args: str, ws=None, check: bool = False, env: dict | None = None, stdin: str | None = None,
          timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs the real binary (on `ws`, a Workspace, when given)."""
    prefix = ["-w", str(ws.root), "--index-dir", str(ws.index)] if ws is not None else []
    result = subprocess.run([notes_binary(), *prefix, *args], capture_output=True, text=True, timeout=timeout,
                            env={**os.environ, "NO_COLOR": "1", "NOTES_MODEL_DIR": NO_MODEL, **(env or {})}, input=stdin)
    if check and result.returncode != 0:
        raise AssertionError(f"notes {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


def version_of(data: bytes) -> str:
    """A file's version as notes computes it (16 hex digits of SHA-256)."""
    return hashlib.sha256(data).hexdigest()[:16]


def tree_digest(folder: Path) -> dict[str, str]:
    """Every entry below `folder`: files by content hash, links by target, folders by name."""
    out = {}
    for p in sorted(folder.rglob("*")):
        key = str(p.relative_to(folder))
        if p.is_symlink():
            out[key] = "-> " + os.readlink(p)
        elif p.is_file():
            out[key] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            out[key] = "dir"
    return out


def one_clean_line(test, result: subprocess.CompletedProcess, label: str):
    """A refused command prints one line on stderr, never a crash or a stack trace."""
    err = result.stderr.strip()
    test.assertTrue(err.startswith("notes: "), f"{label}: {err[:300]}")
    test.assertNotIn("\n", err, f"{label}: more than one line: {err[:300]}")
    for crash in ("Fatal error", "Stack dump", "Illegal instruction", "Segmentation"):
        test.assertNotIn(crash, result.stderr, label)


def notes_with_peak_rss(*args: str, ws=None, timeout: float = 300) -> tuple[subprocess.CompletedProcess, int]:
    """Runs the binary under a fresh Python parent, so the peak RSS measured (MB) is this
    process's alone and not the largest of every child this test run has reaped."""
    prefix = ["-w", str(ws.root), "--index-dir", str(ws.index)] if ws is not None else []
    probe = ("import resource,subprocess,sys\n"
             "r=subprocess.run(sys.argv[1:],capture_output=True,text=True)\n"
             "sys.stdout.write(r.stdout); sys.stderr.write(r.stderr)\n"
             "sys.stderr.write('\\nPEAK_RSS_KB=%d' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(r.returncode)\n")
    result = subprocess.run([sys.executable, "-c", probe, notes_binary(), *prefix, *args], capture_output=True, text=True,
                            timeout=timeout, env={**os.environ, "NO_COLOR": "1", "NOTES_MODEL_DIR": NO_MODEL})
    stderr, _, peak = result.stderr.rpartition("\nPEAK_RSS_KB=")
    result.stderr = stderr
    return result, int(peak or 0) // 1024

