#!/usr/bin/env python3
"""How far the fusion's knobs could take hybrid search on the question sets: a bound.

Hybrid search fuses two sides per file: the words' score and the nearest passage's score by
meaning (docs/search.md, "Fusion"). This script replays that fusion in Python from a dump of
both sides for every question, checks that it reproduces the binary's answers, and then
scores every setting of a grid of knobs on each split. The best test-split figure over the
grid is what tuning could reach *if it looked at the test split*: when even that is short
of a target, no setting of these knobs meets it and a new signal (a better model) is needed.

The dump needs a build with the instrumentation of bench/fusion-dump.patch (never shipped):

    git worktree add --detach /tmp/wt-dump HEAD && cd /tmp/wt-dump
    git apply bench/fusion-dump.patch && swift build -c release --product notes
    touch /tmp/fusion.jsonl
    # a wrapper that sets NOTES_FUSION_DUMP=/tmp/fusion.jsonl, then the harness with it:
    bench/search_quality.py --split both --sets sample,gutenberg,tldr --config d=WRAPPER:hybrid
    bench/fusion_bound.py /tmp/fusion.jsonl

Each dump line: the query, the words side (path, key, whether its title holds every word),
and per embedded file its passage count, its eight best passage similarities and their mean.
"""
import argparse
import itertools
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import search_quality as sq  # noqa: E402

QUESTIONS = Path(__file__).resolve().parent / "questions"
SETB = ("sample", "gutenberg")

# The shipped knobs (NoteIndex+Fusion.swift, VectorTable.swift).
SHIPPED = dict(share=0.25, lo=0.05, power=2.0, floor=0.25, penalty=0.02, free=16, agg="max", weight=0.0)


def meaning_score(m, k):
    """A file's score by meaning: its best passage (or an aggregate) less its length penalty."""
    top = m["top"]
    if k["agg"] == "top2":
        s = top[0] + k["weight"] * ((top[1] if len(top) > 1 else 0.0) - top[0])
    elif k["agg"] == "mean":
        s = top[0] + k["weight"] * m["avg"]
    else:
        s = top[0]
    return s - k["penalty"] * math.log(max(1.0, m["n"] / k["free"]))


def fused(d, k, depth=100):
    """The first ten paths of the fused answer for one dumped question."""
    words_first = d["wordsFirst"]
    words = sorted(d["words"], key=lambda f: (f["s"], f["p"]))
    found_by_words = {f["p"] for f in words}
    scored = sorted(((meaning_score(m, k), m["top"][0], m["p"]) for m in d["meaning"]), key=lambda x: -x[0])[:depth]
    meaning = {p: (sc, sim) for sc, sim, p in scored if sim >= k["floor"] or p in found_by_words}
    top = max((v[0] for v in meaning.values()), default=0.0)
    span = max(1e-6, max(top, k["floor"]) - k["lo"])
    best_words = words[0]["s"] if words else 0.0
    share = 0.5 if words_first else k["share"]

    def by_words(key):
        return max(0.0, key / best_words) if best_words < 0 else 0.0

    def by_meaning(v):
        return min(1.0, max(0.0, (v[0] - k["lo"]) / span)) ** k["power"]

    slots = []
    for f in words:
        m = meaning.get(f["p"])
        score = share * by_words(f["s"]) + ((1 - share) * by_meaning(m) if m else 0.0)
        first = words_first or f["t"] or (m is not None and m[1] >= d["para"])
        slots.append((-score - (1 if first else 0), f["p"]))
    for p, m in meaning.items():
        if p not in found_by_words:
            first = (not words_first) and m[1] >= d["para"]
            slots.append((-(1 - share) * by_meaning(m) - (1 if first else 0), p))
    slots.sort()
    return [p for _, p in slots[:10]]


def evaluate(dump, sets, split, k):
    questions, results = [], {}
    for name in sets:
        qs, _ = sq.load_set(QUESTIONS / f"{name}.tsv")
        for q in qs:
            if q["split"] != split:
                continue
            if q["question"] not in dump:
                sys.exit(f"{q['id']} ({q['question']!r}) is not in the dump: dump every set and split scored")
            questions.append(q)
            results[q["id"]] = {"paths": fused(dump[q["question"]], k), "error": None}
    figures = sq.score(questions, results).get(split, {})
    asked = figures.get("question", {})
    return asked.get("success@5", 0.0), asked.get("mrr@10", 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dump", help="the NOTES_FUSION_DUMP file (JSON lines)")
    ap.add_argument("--details", help="the harness's --details file of the same build: checks the replay")
    a = ap.parse_args()
    dump = {}
    for line in open(a.dump):
        d = json.loads(line)
        # Keyed by the query's text: the same question in two sets is the same search.
        dump[d["q"]] = d
    if a.details:
        texts = {}
        for name in SETB + ("tldr",):
            for q in sq.load_set(QUESTIONS / f"{name}.tsv")[0]:
                texts[q["id"]] = q["question"]
        differ = checked = 0
        for line in open(a.details):
            r = json.loads(line)
            d = dump.get(texts.get(r["id"]))
            if d is None:
                continue
            checked += 1
            differ += fused(d, SHIPPED) != r["paths"][:10]
        print(f"replay: {checked} answers checked against the binary, {differ} differ")
    print("shipped knobs:")
    for sets, label in ((SETB, "set b"), (("tldr",), "tldr")):
        for split in ("dev", "test"):
            s5, mrr = evaluate(dump, sets, split, SHIPPED)
            print(f"  {label:6s} {split:4s} S@5 {s5:.3f}  MRR@10 {mrr:.3f}")
    grid = []
    for share, lo, power, penalty in itertools.product(
        (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.75, 1.0), (0.0, 0.05, 0.1, 0.2),
        (0.5, 1.0, 2.0, 3.0, 4.0), (0.0, 0.01, 0.02, 0.04)):
        grid.append(dict(SHIPPED, share=share, lo=lo, power=power, penalty=penalty))
    for agg, weight in (("top2", 0.1), ("top2", 0.2), ("top2", 0.3), ("mean", 0.1), ("mean", 0.3), ("mean", 1.0)):
        grid.append(dict(SHIPPED, agg=agg, weight=weight))
    rows = []
    for k in grid:
        rows.append((evaluate(dump, SETB, "test", k), evaluate(dump, SETB, "dev", k), k))
    rows.sort(key=lambda r: -r[0][1])
    print(f"set b, {len(grid)} settings; the best by test MRR@10 (what tuning on the test split could reach):")
    for test, dev, k in rows[:5]:
        knobs = {key: k[key] for key in ("share", "lo", "power", "penalty", "agg", "weight")}
        print(f"  test {test[0]:.3f} / {test[1]:.3f}   dev {dev[0]:.3f} / {dev[1]:.3f}   {knobs}")
    best_dev = max(rows, key=lambda r: r[1][1])
    print(f"  the best by dev MRR@10: dev {best_dev[1][1]:.3f}, its test {best_dev[0][1]:.3f}")


if __name__ == "__main__":
    main()
