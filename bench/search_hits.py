#!/usr/bin/env python3
"""The size of an MCP `search` hit (issue 32, item 10: <= ~300 characters on average at the
default limit) and whether its snippets can be passed back as `edit_file`'s old_text,
measured through the official Python MCP client over real questions, for each binary given.

    .venv/bin/python bench/search_hits.py NOTES [OTHER_NOTES ...] --corpus sample
    .venv/bin/python bench/search_hits.py NOTES ... --corpus dendron --workspace ../shared/corpora/dendron-vault/vault
    .venv/bin/python bench/search_hits.py NOTES ... --corpus gen10k --workspace WS --index-dir INDEX

The workspace (and the index, when given: an embedded one makes the searches hybrid; an
index another build's schema made is rebuilt, without its vectors) is copied to a scratch
folder first; the tracked sample-workspace/ is never searched in place.
Questions: `sample` asks bench/questions/sample.tsv's; `dendron` and `gen10k` ask the fixed
lists below. Every search is at the default limit (no `limit` argument). Without an index
dir the model is switched off (NOTES_MODEL_DIR), so a search is by words and the same in
every run.

Prints a Markdown table, one row per binary: questions, hits, characters of the whole answer
per hit (what the model reads, divided by the hits), characters of a hit alone (its compact
JSON), snippets per hit, snippet text per hit, and the share of snippets whose text occurs
in the file exactly once (usable verbatim as old_text) and at least once.
"""
import argparse
import asyncio
import csv
import json
import os
import shutil
import tempfile
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample-workspace"
DENDRON_QUERIES = [
    "how do I create a new note", "publish my notes to github pages", "schema templates",
    "rename a note and update links", "backlinks", "daily journal", "sync vaults with git",
    "lookup bar shortcuts", "markdown preview", "tags and frontmatter",
]
GEN_QUERIES = [
    "whale", "how did the whaling industry decline", "harpoon rope", "storm at sea", "captain's log entries",
    "white whale", "what do sailors eat on a long voyage", "lamp oil", "island", "why did the ship sink",
]


def questions(corpus: str) -> list[str]:
    if corpus == "sample":
        lines = [l for l in (ROOT / "bench/questions/sample.tsv").read_text().splitlines() if l and not l.startswith("#")]
        return [row["question"] for row in csv.DictReader(lines, delimiter="\t")]
    return DENDRON_QUERIES if corpus == "dendron" else GEN_QUERIES


async def measure(binary: str, ws: Path, index: Path, asks: list[str], env: dict) -> dict:
    params = StdioServerParameters(command=binary, args=["mcp", "-w", str(ws), "--index-dir", str(index)], env=env)
    answer_chars = hit_chars = snippets = snippet_chars = once = present = hits = 0
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for ask in asks:
                result = await session.call_tool("search", {"query": ask})
                text = "".join(c.text for c in result.content if c.type == "text")
                assert not result.is_error, (ask, text)
                answer_chars += len(text)
                for hit in json.loads(text)["hits"]:
                    hits += 1
                    hit_chars += len(json.dumps(hit, separators=(",", ":"), ensure_ascii=False))
                    source = (ws / hit["path"]).read_text(errors="replace")
                    # Snippets as a list (up to 3), or the best one's fields in the hit itself.
                    for snippet in hit.get("snippets", [hit] if "text" in hit else []):
                        quoted = snippet["text"]
                        snippets += 1
                        snippet_chars += len(quoted)
                        count = source.count(quoted)
                        once += count == 1
                        present += count >= 1
    n = max(hits, 1)
    return {"questions": len(asks), "hits": hits, "answer_chars_per_hit": round(answer_chars / n),
            "hit_chars": round(hit_chars / n), "snippets_per_hit": round(snippets / n, 2),
            "snippet_chars_per_hit": round(snippet_chars / n),
            "verbatim_once": f"{100 * once / max(snippets, 1):.0f}%", "verbatim": f"{100 * present / max(snippets, 1):.0f}%"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--corpus", choices=["sample", "dendron", "gen10k"], default="sample")
    parser.add_argument("--workspace", help="the workspace (copied first); default: sample-workspace/")
    parser.add_argument("--index-dir", help="an index of it to copy (an embedded one makes searches hybrid)")
    args = parser.parse_args()
    temp = Path(tempfile.mkdtemp(prefix="notes-search-hits-"))
    try:
        ws, index = temp / "ws", temp / "index"
        shutil.copytree(args.workspace or SAMPLE, ws, symlinks=True)
        env = {**os.environ, "NO_COLOR": "1", "NOTES_NO_PROGRESS": "1"}
        if args.index_dir:
            shutil.copytree(args.index_dir, index)
        else:
            env["NOTES_MODEL_DIR"] = "/nonexistent/notes-bench-no-model"
        asks = questions(args.corpus)
        rows = [(b, asyncio.run(measure(os.path.abspath(b), ws, index, asks, env))) for b in args.binaries]
        keys = list(rows[0][1])
        print(f"corpus: {args.corpus}; default limit; " + ("hybrid (embedded index)" if args.index_dir else "by words"))
        print("| binary | " + " | ".join(keys) + " |")
        print("|---" * (len(keys) + 1) + "|")
        for b, row in rows:
            print(f"| {b} | " + " | ".join(str(v) for v in row.values()) + " |")
    finally:
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
