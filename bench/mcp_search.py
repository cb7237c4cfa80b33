"""Latency of the `search` tool inside one MCP session (issue 7: <= 5 ms p50), with the
official Python MCP client. Run with the project's .venv python:

    .venv/bin/python bench/mcp_search.py NOTES_BINARY WORKSPACE [CALLS]

NOTES_INDEX_DIR is passed through. Prints one JSON object: p50/p90 in ms over CALLS calls
after 10 warm-up calls, cycling through the benchmark's query set."""

import asyncio
import json
import os
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

QUERIES = ["whale", "white whale", '"white whale"', "harpo*", "whale kind:research"]


async def main(binary: str, workspace: str, calls: int) -> dict:
    params = StdioServerParameters(command=binary, args=["-w", workspace, "mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for i in range(10):
                await session.call_tool("search", {"query": QUERIES[i % len(QUERIES)], "limit": 10})
            latencies = []
            for i in range(calls):
                started = time.perf_counter()
                result = await session.call_tool("search", {"query": QUERIES[i % len(QUERIES)], "limit": 10})
                latencies.append(time.perf_counter() - started)
                if getattr(result, "is_error", False):
                    raise SystemExit("search failed: %s" % result.content)
    latencies.sort()
    return {"calls": calls, "p50_ms": statistics.median(latencies) * 1000, "p90_ms": latencies[int(len(latencies) * 0.9)] * 1000}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 200))))
