#!/usr/bin/env python3
"""Search latency of two builds in one run: whole-process `notes search` p50 by words and
hybrid, and the MCP `search` tool's p50 (official Python client), the builds alternating so
both meet the same load. Each build gets its own copy of an embedded workspace (a build
whose parser version differs would rebuild the other's index).

    .venv/bin/python bench/search_ab.py --side before=/tmp/old:/tmp/sem-old --side after=/tmp/new:/tmp/sem-new

Whole-process figures are the p50 over every run (queries × rounds) and the mean CPU time
(user + system) a search took. A side is NAME=BINDIR:WORKDIR, BINDIR holding `notes` and `notes-mcp`, WORKDIR holding `ws/`
and `index/` (bench/search_semantic.py --workdir makes one)."""

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import time

QUERIES = ["whale", "how did the whaling industry decline", "harpoon rope", "storm at sea", "captain's log entries",
           "white whale", "what do sailors eat on a long voyage", "lamp oil", "island", "why did the ship sink"]


def env(workdir):
    return dict(os.environ, NOTES_INDEX_DIR=workdir + "/index", NO_COLOR="1", NOTES_NO_PROGRESS="1")


def process_run(bindir, workdir, mode, query):
    """One whole-process search: its wall time and the CPU time (user + system) it took, in ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([bindir + "/notes", "-w", workdir + "/ws", "search", "--mode", mode, "--limit", "10", "--", query],
                   env=env(workdir), capture_output=True)
    wall = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    return wall, cpu


async def mcp_p50(bindir, workdir, mode, calls):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    params = StdioServerParameters(command=bindir + "/notes", args=["-w", workdir + "/ws", "mcp"], env=env(workdir))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for i in range(10):
                await session.call_tool("search", {"query": QUERIES[i % len(QUERIES)], "limit": 10, "mode": mode})
            latencies = []
            for i in range(calls):
                t = time.perf_counter()
                result = await session.call_tool("search", {"query": QUERIES[i % len(QUERIES)], "limit": 10, "mode": mode})
                latencies.append((time.perf_counter() - t) * 1000)
                if result.is_error:
                    raise SystemExit(f"MCP search failed: {result.content}")
            return statistics.median(latencies)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", action="append", required=True, help="NAME=BINDIR:WORKDIR")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=60, help="MCP calls per mode per round")
    args = ap.parse_args()
    sides = {}
    for side in args.side:
        name, _, dirs = side.partition("=")
        bindir, _, workdir = dirs.partition(":")
        sides[name] = (os.path.abspath(bindir), os.path.abspath(workdir))
    results = {}
    cpu = {}
    names = list(sides)
    for r in range(args.rounds):
        # Whole-process runs alternate build by build for every query (the order reversed
        # every other round), so a change of load meets every build alike.
        for query in QUERIES:
            for name in (names if r % 2 == 0 else names[::-1]):
                bindir, workdir = sides[name]
                for mode in ("lexical", "hybrid"):
                    wall, used = process_run(bindir, workdir, mode, query)
                    results.setdefault((name, "process", mode), []).append(wall)
                    cpu.setdefault((name, mode), []).append(used)
        for name, (bindir, workdir) in sides.items():
            for mode in ("lexical", "hybrid"):
                results.setdefault((name, "mcp", mode), []).append(asyncio.run(mcp_p50(bindir, workdir, mode, args.calls)))
    print("| build | whole-process p50 lexical | hybrid | hybrid / lexical | CPU per search lexical | hybrid "
          "| MCP p50 lexical | MCP hybrid |")
    print("|---|---|---|---|---|---|---|---|")
    for name in sides:
        m = {key[1:]: statistics.median(v) for key, v in results.items() if key[0] == name}
        lexical, hybrid = m[("process", "lexical")], m[("process", "hybrid")]
        print(f"| {name} | {lexical:.1f} ms | {hybrid:.1f} ms | {hybrid / lexical:.2f} | "
              f"{statistics.mean(cpu[(name, 'lexical')]):.1f} ms | {statistics.mean(cpu[(name, 'hybrid')]):.1f} ms | "
              f"{m[('mcp', 'lexical')]:.1f} ms | {m[('mcp', 'hybrid')]:.1f} ms |")


if __name__ == "__main__":
    main()
