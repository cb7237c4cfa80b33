"""A long agent session against `notes mcp`: a realistic mix of calls (search, read, list,
append, edit, write, get_context, history), with each call's latency and the server's
resident memory sampled as it goes. Used by test_long_session.py (which checks that
nothing fails and memory stays flat) and by bench/mcp-session (which prints the figures)."""

import statistics
import time

from notes_server import Workspace, call, notes_binary, rss_kb, server_pid, session

QUERIES = ["whale", "white whale", "harpoon*", "Queequeg", "\"call me Ishmael\"", "ahab -ship", "cetology", "Pequod kind:research"]
FILES = ["Research/moby-dick/introduction.md", "Research/moby-dick/notes.md", "reading-list.md", "context.md",
         "Research/moby-dick/sources/essex-disaster.md", "Journal/2026-11-19.md"]


async def run(calls: int = 1000, sample_every: int = 100) -> dict:
    ws = Workspace()
    try:
        return await _run(ws, calls, sample_every)
    finally:
        ws.cleanup()


async def _run(ws: Workspace, calls: int, sample_every: int) -> dict:
    latencies: dict[str, list[float]] = {}
    blocks: list[float] = []  # mean latency of each block of `sample_every` calls
    rss: list[tuple[int, int]] = []
    async with session(ws) as s:
        pid = server_pid(notes_binary())
        assert pid, "cannot find the notes mcp process"
        rss.append((0, rss_kb(pid)))
        # A steady state: edits and rewrites keep the draft the same size, so any slowdown
        # would come from the server, not from a growing file.
        draft = await call(s, "write_file", path="Research/long-session/draft.md", content="# Draft\n\n## State\n\nstate 0\n\n## Rewrite\n\nrewrite 0\n")
        version = draft["version"]
        state, rewrite = 0, 0
        block_start = time.perf_counter()
        for i in range(calls):
            kind = i % 10
            started = time.perf_counter()
            if kind in (0, 3, 6):
                tool = "search"
                await call(s, "search", query=QUERIES[i % len(QUERIES)], limit=10)
            elif kind in (1, 4, 8):
                tool = "read_file"
                await call(s, "read_file", path=FILES[i % len(FILES)])
            elif kind == 2:
                tool = "append_file"
                await call(s, "append_file", path="Journal/2026-11-21.md", content=f"- call {i}: still going")
            elif kind == 5:
                tool = "edit_file"
                result = await call(s, "edit_file", path="Research/long-session/draft.md", expected_version=version,
                                    edits=[{"old_text": f"state {state}", "new_text": f"state {i}"}])
                state = i
                version = result["version"]
            elif kind == 7:
                tool = "list_files"
                await call(s, "list_files", path="Research", recursive=True)
            else:
                tool = ["get_context", "file_history", "write_file"][(i // 10) % 3]
                if tool == "get_context":
                    await call(s, "get_context")
                elif tool == "file_history":
                    await call(s, "file_history", path="Research/moby-dick/introduction.md")
                else:
                    current = await call(s, "read_file", path="Research/long-session/draft.md")
                    result = await call(s, "write_file", path="Research/long-session/draft.md",
                                        content=current["content"].replace(f"rewrite {rewrite}", f"rewrite {i}"),
                                        expected_version=current["version"])
                    version, rewrite = result["version"], i
            latencies.setdefault(tool, []).append((time.perf_counter() - started) * 1000)
            if (i + 1) % sample_every == 0:
                blocks.append((time.perf_counter() - block_start) * 1000 / sample_every)
                block_start = time.perf_counter()
                rss.append((i + 1, rss_kb(pid)))
    return {"latencies": latencies, "blocks": blocks, "rss": rss, "calls": calls}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def report(stats: dict) -> str:
    lines = [f"{stats['calls']} tool calls in one MCP session ({notes_binary()})", "",
             f"{'tool':<14}{'calls':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"]
    for tool, values in sorted(stats["latencies"].items()):
        lines.append(f"{tool:<14}{len(values):>7}{statistics.median(values):>9.2f}{percentile(values, 95):>9.2f}{max(values):>9.2f}")
    lines.append("")
    lines.append("mean ms per call, by block of calls: " + " ".join(f"{b:.2f}" for b in stats["blocks"]))
    lines.append("server RSS (MB) after N calls:      " + " ".join(f"{n}:{kb / 1024:.1f}" for n, kb in stats["rss"]))
    return "\n".join(lines)
