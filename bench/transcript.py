#!/usr/bin/env python3
"""Transcript benchmark (issue 32, "Measure"): a scripted drafting session of about 20 steps
driven through the official Python MCP client — orient, search, read, draft, the person
edits the draft on disk, merge, remember, journal — against a fresh copy of
sample-workspace/ per run, for each binary given. It reports the characters sent to the
model per tool and in all (the text content of every answer, and tools/list once per
session), the characters of a search hit on average, and the p50 latency per call.

Both binaries play the same session for the same information: every step asks for the same
thing, and where a binary refuses (an older `on_conflict: "merge"` that conflicts) the agent
recovers the way its answer says (read the file, rewrite around the person's lines), and
those calls count too. Each step's outcome is checked (the draft ends with the agent's and
the person's lines; the fact is in context.md once; the journal has the entry).

    .venv/bin/python bench/transcript.py NEW_NOTES [BASELINE_NOTES] [--runs N]

A binary needs `notes-mcp` beside it. Prints a Markdown table.
"""
import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample-workspace"
DRAFT_PATH = "Research/moby-dick/themes.md"
DRAFT = """# Themes of Moby-Dick

## Obsession

Ahab's hunt for the white whale bends every life on the Pequod to one purpose.

## Knowledge

The cetology chapters try to classify the whale and fail, on purpose.

## Friendship

Ishmael and Queequeg share a bed, a pipe and a fate.
"""
PERSON_PARAGRAPH = "\nFor class: pair this with chapter 10, \"A Bosom Friend\".\n"
PERSON_LINE = "Ahab's hunt for the white whale bends every life on the Pequod to one purpose — Starbuck sees it first."
PERSON_BELOW = "The person's note: chapter 32 is the one to read aloud.\n"


class Recorder:
    """Calls tools and records, per call, the characters of the answer and the time."""

    def __init__(self, session: ClientSession):
        self.s = session
        self.calls: list[tuple[str, int, float]] = []
        self.hits: list[list[str]] = []  # each search's files, to check both binaries found the same

    async def list_tools(self) -> list:
        start = time.perf_counter()
        tools = (await self.s.list_tools()).tools
        elapsed = time.perf_counter() - start
        text = json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in tools], separators=(",", ":"), ensure_ascii=False)
        self.calls.append(("tools/list", len(text), elapsed))
        return tools

    async def call(self, tool: str, **arguments) -> tuple[bool, dict]:
        start = time.perf_counter()
        result = await self.s.call_tool(tool, arguments)
        elapsed = time.perf_counter() - start
        text = "".join(c.text for c in result.content if c.type == "text")
        self.calls.append((tool, len(text), elapsed))
        try:
            payload = json.loads(text)
        except json.JSONDecodeError:
            payload = {"text": text}
        return not result.is_error, payload

    async def ok(self, tool: str, **arguments) -> dict:
        good, payload = await self.call(tool, **arguments)
        assert good, (tool, arguments, payload)
        return payload


def body(text: str) -> str:
    """The text after front matter (what the agent writes back)."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end >= 0:
            return text[end + 5:]
    return text


async def session_script(r: Recorder, ws: Path) -> None:
    draft_file = ws / DRAFT_PATH
    # 1-2. Orientation.
    await r.list_tools()
    await r.ok("get_context")
    # 3-5. Find what the workspace says.
    # One-word queries: every binary finds the same files for them (an older binary reads
    # several words as all of them and finds fewer), so the hits carry the same information.
    r.hits.append([h["path"] for h in (await r.ok("search", query="whale"))["hits"]])
    r.hits.append([h["path"] for h in (await r.ok("search", query="cetology"))["hits"]])
    await r.ok("list_files", path="Research/moby-dick")
    # 6-8. Read: a note, the existing introduction, a page of the book.
    await r.ok("read_file", path="Research/moby-dick/notes.md")
    await r.ok("read_file", path="Research/moby-dick/introduction.md")
    await r.ok("read_file", path="Research/moby-dick/full_text.txt", offset=1, limit=60)
    # 9. Draft.
    created = await r.ok("write_file", path=DRAFT_PATH, content=DRAFT)
    # The person edits the draft in their editor: a paragraph at the end.
    draft_file.write_text(draft_file.read_text() + PERSON_PARAGRAPH)
    # 10-11. The agent rereads and sharpens one of its own lines.
    fresh = await r.ok("read_file", path=DRAFT_PATH)
    edited = await r.ok("edit_file", path=DRAFT_PATH, expected_version=fresh["version"],
                        edits=[{"old_text": "fail, on purpose.", "new_text": "fail, and the failure is the point."}])
    agents_text = body(fresh["content"]).replace("fail, on purpose.", "fail, and the failure is the point.")
    # The person rewords the first paragraph and adds a line below the friendship one.
    draft_file.write_text(draft_file.read_text()
                          .replace("Ahab's hunt for the white whale bends every life on the Pequod to one purpose.", PERSON_LINE)
                          .replace("a pipe and a fate.\n", "a pipe and a fate.\n" + PERSON_BELOW))
    # 12. The agent rewrites the friendship line and merges with the person's edits.
    revised = agents_text.replace("a pipe and a fate.", "a pipe and, in the end, a coffin.")
    good, answer = await r.call("write_file", path=DRAFT_PATH, content=revised, expected_version=edited["version"], on_conflict="merge")
    if not good:
        # What an agent does with merge_conflict: read, rewrite around the person's lines, write.
        assert answer.get("code") == "merge_conflict", answer
        now = await r.ok("read_file", path=DRAFT_PATH)
        redone = body(now["content"]).replace("a pipe and a fate.", "a pipe and, in the end, a coffin.")
        await r.ok("write_file", path=DRAFT_PATH, content=redone, expected_version=now["version"])
    text = draft_file.read_text()
    for line in (PERSON_LINE, PERSON_BELOW.strip(), PERSON_PARAGRAPH.strip(), "the failure is the point", "in the end, a coffin"):
        assert line in text, (line, text)
    # 13. A sources section at the end.
    await r.ok("append_file", path=DRAFT_PATH, content="## Sources\n\n- Research/moby-dick/sources/cetology-glossary.md")
    # 14-15. What was learned: one new fact, and one already known in other words.
    await r.ok("remember", fact="Uses the themes note to plan lessons for 16-year-olds.")
    await r.ok("remember", fact="Prefers primary sources to summaries")
    # 16. The journal.
    await r.ok("append_file", path="Journal/2026-11-21.md",
               content="## 10:30 — agent\n\nDrafted Research/moby-dick/themes.md; merged the person's edits.")
    # 17-19. Check the work: history, a search for the new note, the final text.
    await r.ok("file_history", path=DRAFT_PATH)
    r.hits.append([h["path"] for h in (await r.ok("search", query="Queequeg"))["hits"]])
    await r.ok("read_file", path=DRAFT_PATH)
    context = (ws / "context.md").read_text().lower()
    assert context.count("primary sources") >= 1 and "lessons for 16-year-olds" in context


async def run_once(binary: str) -> tuple[list[tuple[str, int, float]], list[list[str]]]:
    temp = Path(tempfile.mkdtemp(prefix="notes-transcript-"))
    try:
        ws = temp / "ws"
        shutil.copytree(SAMPLE, ws)
        params = StdioServerParameters(command=binary, args=["mcp", "-w", str(ws), "--index-dir", str(temp / "index")],
                                       env={**os.environ, "NO_COLOR": "1", "NOTES_MODEL_DIR": "/nonexistent/notes-bench-no-model"})
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                recorder = Recorder(s)
                await session_script(recorder, ws)
                return recorder.calls, recorder.hits
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    names = [f"{Path(b).resolve()}" for b in args.binaries]
    chars: dict[str, dict[str, int]] = {}
    counts: dict[str, dict[str, int]] = {}
    latency: dict[str, list[float]] = defaultdict(list)
    per_tool_latency: dict[tuple[str, str], list[float]] = defaultdict(list)
    hits: dict[str, list[list[str]]] = {}
    for run in range(args.runs):
        for binary in args.binaries:  # interleaved, so load on the machine hits both alike
            calls, hits[binary] = asyncio.run(run_once(binary))
            per_tool: dict[str, int] = defaultdict(int)
            per_count: dict[str, int] = defaultdict(int)
            for tool, n, seconds in calls:
                per_tool[tool] += n
                per_count[tool] += 1
                per_tool_latency[(binary, tool)].append(seconds)
                if tool != "tools/list":
                    latency[binary].append(seconds)
            chars[binary], counts[binary] = per_tool, per_count
    tools = sorted({t for b in args.binaries for t in chars[b]}, key=lambda t: (t != "tools/list", t))
    print(f"load average: {open('/proc/loadavg').read().split()[:3]}; {args.runs} runs per binary")
    for i, name in enumerate(names):
        print(f"binary {i + 1}: {name}")
    header = "| answer | " + " | ".join(f"binary {i + 1} chars (calls)" for i in range(len(names))) + " | " \
        + " | ".join(f"binary {i + 1} p50 ms" for i in range(len(names))) + " |"
    print(header)
    print("|---" * (2 * len(names) + 1) + "|")
    for tool in tools:
        print(f"| {tool} | " + " | ".join(f"{chars[b].get(tool, 0):,} ({counts[b].get(tool, 0)})" for b in args.binaries) + " | "
              + " | ".join(f"{statistics.median(per_tool_latency[(b, tool)]) * 1000:.1f}" if per_tool_latency[(b, tool)] else "–"
                           for b in args.binaries) + " |")
    totals = [sum(chars[b].values()) for b in args.binaries]
    blank = " | ".join("" for _ in args.binaries)
    print("| **total** | " + " | ".join(f"**{t:,}** ({sum(counts[b].values())})" for t, b in zip(totals, args.binaries)) + " | "
          + " | ".join(f"{statistics.median(latency[b]) * 1000:.1f} (every call)" for b in args.binaries) + " |")
    without = [sum(v for k, v in chars[b].items() if k != "tools/list") for b in args.binaries]
    print("| total without tools/list | " + " | ".join(f"{t:,}" for t in without) + " | " + blank + " |")
    for i, b in enumerate(args.binaries):
        n = sum(len(h) for h in hits[b])
        print(f"\nbinary {i + 1}: {n} search hits, {chars[b].get('search', 0) / max(n, 1):.0f} characters a hit (the whole answer)", end="")
    print()
    same = all(hits[b] == hits[args.binaries[0]] for b in args.binaries)
    print(f"\nthe searches found the same files in every binary: {'yes' if same else 'NO'}")
    if len(totals) > 1:
        print(f"binary 1 sends {100 * (1 - totals[0] / totals[1]):.0f}% fewer characters than binary 2 "
              f"({100 * (1 - without[0] / without[1]):.0f}% without tools/list)")


if __name__ == "__main__":
    main()
