#!/usr/bin/env python3
"""The floor of ranking by words: FTS5's own bm25() over every section a query matches, in C,
on a plain copy of an index's full-text table (the same rows and columns, FTS5's stock
`porter unicode61` tokenizer), beside the whole-process and MCP figures of bench/search_ab.py.

A plain-words query ranks every section holding any of its words (docs/search.md); for a
question over a large workspace that is thousands of sections, and bm25() over them is the
least any search ranking them with FTS5 can cost.

    .venv/bin/python bench/ranking_floor.py BINDIR WORKDIR

BINDIR holds `notes`; WORKDIR holds `ws/` and `index/` (bench/search_semantic.py --workdir).
The words of each query are the ones `notes search --json` reports it searched for."""

import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

from search_ab import QUERIES, env


def words_of(bindir, workdir, query):
    p = subprocess.run([bindir + "/notes", "-w", workdir + "/ws", "search", "--json", "--mode", "lexical",
                        "--limit", "1", "--", query], env=env(workdir), capture_output=True, text=True)
    answer = json.loads(p.stdout) if p.stdout.strip() else {}
    return answer.get("words") or [query.strip('"')]


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    bindir, workdir = sys.argv[1], sys.argv[2]
    source = sqlite3.connect(f"file:{workdir}/index/index.sqlite?mode=ro", uri=True)
    rows = source.execute("SELECT id, c0, c1, c2, c3 FROM fts_content").fetchall()
    with tempfile.TemporaryDirectory() as temp:
        db = sqlite3.connect(os.path.join(temp, "floor.sqlite"))
        db.execute("CREATE VIRTUAL TABLE f USING fts5(title, heading, tags, body, "
                   "tokenize = 'porter unicode61 remove_diacritics 2')")
        db.executemany("INSERT INTO f (rowid, title, heading, tags, body) VALUES (?, ?, ?, ?, ?)", rows)
        db.commit()
        print(f"{len(rows):,} sections\n")
        print("| query | words | sections matched | bm25 over them, p50 ms |")
        print("|---|---|---:|---:|")
        medians = []
        for query in QUERIES:
            words = words_of(bindir, workdir, query)
            match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
            times = []
            for _ in range(15):
                t = time.perf_counter()
                matched = db.execute("SELECT rowid, bm25(f, 10, 4, 6, 1) FROM f WHERE f MATCH ?", (match,)).fetchall()
                times.append(time.perf_counter() - t)
            medians.append(statistics.median(times) * 1000)
            print(f"| {query} | {' '.join(words)} | {len(matched):,} | {medians[-1]:.1f} |")
        print(f"\np50 over the queries: {statistics.median(medians):.1f} ms")


if __name__ == "__main__":
    main()
