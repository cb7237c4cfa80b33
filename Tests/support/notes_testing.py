"""What every Python test suite (Tests/mcp, Tests/agent, Tests/watch, Tests/reliability) needs
to run the real `notes` binary: the binary itself (refused when it is older than the sources
it was built from), scratch copies of sample-workspace/, running a command, the soak switch
and small file utilities. Standard library only; the MCP client session is in
notes_mcp_client.py (it needs the official `mcp` package).

A suite's folder puts this folder on sys.path (its support module does, or the test file
itself), so `python -m unittest` works from the suite's folder as scripts/test runs it."""

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample-workspace"

# Spawned `notes` search by words alone unless a test passes the installed model (NOTES_MODEL_DIR).
NO_MODEL = "/nonexistent/notes-test-no-model"

# `scripts/reliability --soak` sets NOTES_SOAK=1: the same tests, run longer.
SOAK = os.environ.get("NOTES_SOAK") == "1"
# CI's `.ci/run` sets NOTES_CAMPAIGN=1: the loops of rounds, kills and races that scripts/test
# runs smaller run at CI's longer size (docs/decisions.md D256).
CAMPAIGN = os.environ.get("NOTES_CAMPAIGN") == "1"

CRASH_MARKERS = ("Fatal error", "Stack dump", "Illegal instruction", "Segmentation")


def scaled(quick: int, soak: int, campaign: int | None = None) -> int:
    """`quick` normally (scripts/test), `campaign` (when given) under NOTES_CAMPAIGN=1 (CI),
    `soak` under NOTES_SOAK=1."""
    if SOAK:
        return soak
    if CAMPAIGN and campaign is not None:
        return campaign
    return quick


@functools.lru_cache(maxsize=None)
def stale_sources(binary: str) -> str | None:
    """Why a binary built in this repository's .build is older than its sources (the first
    source file found newer than it), or None when it is current or was not built here.

    The sources are those of the modules SwiftPM linked into it, read from its link file
    list (`.build/debug/<product>.product/Objects.LinkFileList`)."""
    path = Path(binary).resolve()
    build = (REPO / ".build").resolve()
    if build not in path.parents:
        return None
    link_list = path.parent / f"{path.name}.product" / "Objects.LinkFileList"
    if not link_list.is_file():
        return None
    built = path.stat().st_mtime
    modules = {Path(line.strip()).parent.name.removesuffix(".build") for line in link_list.read_text().splitlines() if line.strip()}
    for module in sorted(modules):
        folder = REPO / "Sources" / module
        if not folder.is_dir():
            continue  # a dependency's module, not ours
        for source in folder.rglob("*"):
            if source.is_file() and source.stat().st_mtime > built:
                return f"{path} is older than {source.relative_to(REPO)}"
    return None


def notes_binary() -> str:
    """The binary under test: $NOTES_BIN, else the debug build. Refused (RuntimeError) when it
    is missing or older than its sources, so a stale binary can never pass the tests; the
    MCP server (`notes-mcp`, which `notes mcp` runs) is checked with it."""
    path = os.environ.get("NOTES_BIN") or str(REPO / ".build" / "debug" / "notes")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"{path} is not built; run `swift build --product notes` (or set NOTES_BIN)")
    for binary in (path, os.path.join(os.path.dirname(path), "notes-mcp")):
        if os.access(binary, os.X_OK) and (reason := stale_sources(binary)):
            raise RuntimeError(f"{reason}: run `swift build --product notes && swift build --product notes-mcp` "
                               "(scripts/test does) before these tests")
    return path


def notes_env(**extra: str) -> dict:
    """The environment a test runs `notes` in: no colours, no embedding model."""
    return {**os.environ, "NO_COLOR": "1", "NOTES_MODEL_DIR": NO_MODEL, **extra}


def notes(*args: str, ws=None, check: bool = False, env: dict | None = None, stdin: str | None = None,
          timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs the real binary (on `ws`, a Workspace, when given)."""
    prefix = ["-w", str(ws.root), "--index-dir", str(ws.index)] if ws is not None else []
    result = subprocess.run([notes_binary(), *prefix, *args], capture_output=True, text=True, timeout=timeout,
                            env=notes_env(**(env or {})), input=stdin)
    if check and result.returncode != 0:
        raise AssertionError(f"notes {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


class Workspace:
    """A scratch copy of the sample workspace with its own index folder, plus a sentinel
    folder outside it that no tool may touch or reveal. `config` replaces
    `.notes/config.yml`; `copy=False` starts from an empty folder."""

    prefix = "notes-test-"

    def __init__(self, config: str | None = None, copy: bool = True):
        self.temp = Path(tempfile.mkdtemp(prefix=self.prefix))
        self.root = self.temp / "ws"
        if copy:
            shutil.copytree(SAMPLE, self.root)
        else:
            self.root.mkdir()
        if config is not None:
            (self.root / ".notes").mkdir(exist_ok=True)
            (self.root / ".notes" / "config.yml").write_text(config)
        self.index = self.temp / "index"
        self.sentinel = self.temp / "sentinel"
        self.sentinel.mkdir()
        (self.sentinel / "secret.md").write_text("# Sentinel\n\nsentinel-canary-7f3a must never leave this folder\n")

    def path(self, relative: str) -> Path:
        return self.root / relative

    def text(self, relative: str) -> str:
        return self.path(relative).read_text()

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
    for crash in CRASH_MARKERS:
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
                            timeout=timeout, env=notes_env())
    stderr, _, peak = result.stderr.rpartition("\nPEAK_RSS_KB=")
    result.stderr = stderr
    return result, int(peak or 0) // 1024


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


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    """A process's resident memory in KB (`field="VmHWM"`: its peak since it started or since
    `reset_peak_rss`)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak_rss(pid: int):
    """Starts a process's peak resident memory (VmHWM) again from its current size."""
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")
