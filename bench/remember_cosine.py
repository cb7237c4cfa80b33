#!/usr/bin/env python3
"""Near-duplicate facts for `remember` (issue 32 item 9): precision and recall per threshold
of the embedding model's cosine on the labelled pairs in
Tests/Fixtures/remember/near-duplicates.tsv, for comparison with the lexical measure that
`remember` uses (ContextFacts.similarity; its sweep is printed by the Swift test
`RememberDuplicateTests`). Needs the model installed (`notes model install`).

    python3 bench/remember_cosine.py NOTES_BINARY
"""
import json
import math
import os
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PAIRS = os.path.join(ROOT, "Tests", "Fixtures", "remember", "near-duplicates.tsv")


def main(binary: str) -> None:
    rows = [line.rstrip("\n").split("\t") for line in open(PAIRS, encoding="utf-8") if line.strip() and not line.startswith("#")]
    texts = [t for _, a, b in rows for t in (a, b)]
    start = time.perf_counter()
    out = subprocess.run([binary, "model", "embed", "--json-input", "--threads", "1"], check=True, capture_output=True,
                         input="".join(json.dumps(t) + "\n" for t in texts), text=True).stdout
    elapsed = time.perf_counter() - start
    vectors = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(vectors) == len(texts), (len(vectors), len(texts))

    def cosine(x, y):
        dot = sum(a * b for a, b in zip(x, y))
        return dot / (math.sqrt(sum(a * a for a in x)) * math.sqrt(sum(b * b for b in y)))

    scored = [(int(label), cosine(vectors[2 * i], vectors[2 * i + 1]), a, b) for i, (label, a, b) in enumerate(rows)]
    print(f"{len(rows)} pairs ({sum(s[0] for s in scored)} same fact); `notes model embed` of {len(texts)} facts: {elapsed:.2f} s (model load included)")
    print("| cosine ≥ | precision | recall | false duplicates |")
    print("|---|---|---|---|")
    for threshold in [0.70, 0.75, 0.80, 0.85, 0.90, 0.95]:
        tp = sum(1 for l, s, *_ in scored if l and s >= threshold)
        fp = sum(1 for l, s, *_ in scored if not l and s >= threshold)
        fn = sum(1 for l, s, *_ in scored if l and s < threshold)
        precision = tp / (tp + fp) if tp + fp else 1.0
        print(f"| {threshold:.2f} | {precision:.2f} | {tp / (tp + fn):.2f} | {fp} |")
    print("\nhighest-scoring different facts:")
    for label, score, a, b in sorted((s for s in scored if not s[0]), key=lambda s: -s[1])[:5]:
        print(f"  {score:.3f}  {a} | {b}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "notes"))
