#!/usr/bin/env python3
"""Search by meaning, measured: the first embedding of a workspace (time, passages/s), the
index's size without and with vectors, whole-process `notes search` p50 by words and hybrid,
and the MCP `search` tool's p50 by words and hybrid in one session (official Python client),
all in the same run on the same workspace.

    .venv/bin/python bench/search_semantic.py .build/release/notes --corpus gen10k
    .venv/bin/python bench/search_semantic.py .build/release/notes --workspace sample-workspace
    .venv/bin/python bench/search_semantic.py NEW --against OLD --corpus gen10k --workdir /tmp/sem-gen10k

gen10k is made by the workspace generator (scripts/gen-workspace.py when present, else
../shared/corpora/gen-workspace.py). Prints a Markdown table (and --json)."""

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
QUERIES = ["whale", "how did the whaling industry decline", "harpoon rope", "storm at sea", "captain's log entries",
           "white whale", "what do sailors eat on a long voyage", "lamp oil", "island", "why did the ship sink"]


def generator():
    for candidate in [REPO / "scripts" / "gen-workspace.py", REPO.parent / "shared" / "corpora" / "gen-workspace.py"]:
        if candidate.exists():
            return candidate
    raise SystemExit("no workspace generator found")


def du(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def notes(binary, ws, env, *args, check=True):
    p = subprocess.run([binary, "-w", str(ws), *args], env=env, capture_output=True, text=True)
    if check and p.returncode not in (0, 1):
        raise SystemExit(f"notes {' '.join(args)} failed: {p.stderr.strip()}")
    return p


def p50_process(binary, ws, env, mode, rounds):
    times = []
    for r in range(rounds):
        for q in QUERIES:
            t = time.perf_counter()
            notes(binary, ws, env, "search", "--mode", mode, "--limit", "10", "--", q)
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


async def p50_mcp(binary, ws, env, modes, calls):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    params = StdioServerParameters(command=binary, args=["-w", str(ws), "mcp"], env=env)
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for mode in modes:
                for i in range(10):
                    await session.call_tool("search", {"query": QUERIES[i % len(QUERIES)], "limit": 10, "mode": mode})
                latencies = []
                for i in range(calls):
                    t = time.perf_counter()
                    result = await session.call_tool("search", {"query": QUERIES[i % len(QUERIES)], "limit": 10, "mode": mode})
                    latencies.append(time.perf_counter() - t)
                    if result.isError if hasattr(result, "isError") else result.is_error:
                        raise SystemExit(f"MCP search failed: {result.content}")
                out[mode] = statistics.median(latencies) * 1000
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--corpus", help="genNk: a generated workspace of N thousand notes")
    ap.add_argument("--workspace", help="an existing workspace (copied first)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds over the queries for whole-process latency")
    ap.add_argument("--calls", type=int, default=100, help="MCP calls per mode")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--workdir", help="build the workspace and index here and keep them; reused when present")
    ap.add_argument("--against", help="a reference notes binary: its search latencies on the same index, measured "
                    "alternately with the binary's (same load), follow in a second row")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    temp = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="notes-semantic-bench-"))
    temp.mkdir(parents=True, exist_ok=True)
    try:
        ws = temp / "ws"
        if ws.exists():
            name = args.corpus or Path(args.workspace).name
        elif args.workspace:
            shutil.copytree(args.workspace, ws)
            name = Path(args.workspace).name
        else:
            n = int(args.corpus.removeprefix("gen").removesuffix("k")) * 1000
            subprocess.run([sys.executable, str(generator()), str(ws), "-n", str(n)], check=True, capture_output=True)
            name = args.corpus
        (ws / ".notes").mkdir(exist_ok=True)
        env = dict(os.environ, NOTES_INDEX_DIR=str(temp / "index"), NO_COLOR="1", NOTES_NO_PROGRESS="1")
        t = time.perf_counter()
        notes(binary, ws, env, "index", "--no-embed")
        lexical_index_s = time.perf_counter() - t
        size_words = du(temp / "index")
        t = time.perf_counter()
        report = json.loads(notes(binary, ws, env, "index", "--json").stdout)
        embed_s = time.perf_counter() - t
        embedding = report.get("embedding") or {}
        passages = embedding.get("chunks", 0)
        size_vectors = du(temp / "index")
        binaries = [binary] + ([os.path.abspath(args.against)] if args.against else [])
        process = {(b, m): [] for b in binaries for m in ("lexical", "hybrid")}
        for _ in range(args.rounds):  # alternately, so every binary meets the same load
            for b in binaries:
                for mode in ("lexical", "hybrid"):
                    process[(b, mode)].append(p50_process(b, ws, env, mode, 1))
        rows = []
        for b in binaries:
            lexical = statistics.median(process[(b, "lexical")])
            hybrid = statistics.median(process[(b, "hybrid")])
            mcp = asyncio.run(p50_mcp(b, ws, env, ["lexical", "hybrid"], args.calls))
            rows.append({
                "binary": "this" if b == binary else "against",
                "corpus": name, "files": report.get("files"), "passages": passages,
                "lexical_index_s": round(lexical_index_s, 2), "first_embedding_s": round(embed_s, 1),
                "passages_per_s": round(passages / embed_s, 1) if embed_s else None,
                "index_mb_words": round(size_words / 1e6, 1), "index_mb_with_vectors": round(size_vectors / 1e6, 1),
                "search_p50_ms_lexical": round(lexical, 1), "search_p50_ms_hybrid": round(hybrid, 1),
                "hybrid_over_lexical": round(hybrid / lexical, 2),
                "mcp_p50_ms_lexical": round(mcp["lexical"], 2), "mcp_p50_ms_hybrid": round(mcp["hybrid"], 2),
            })
        if args.json:
            print(json.dumps(rows))
        else:
            print("| " + " | ".join(rows[0]) + " |")
            print("|" + "---|" * len(rows[0]))
            for row in rows:
                print("| " + " | ".join(str(v) for v in row.values()) + " |")
    finally:
        if not args.workdir:
            shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
