#!/usr/bin/env python3
"""Writes Tests/Fixtures/embedding/reference.json: token ids and embeddings of ~20 texts as the
reference implementation (sentence-transformers + the Hugging Face tokenizer) computes them
with all-MiniLM-L6-v2. Run once by hand, never by the tests:

    python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install sentence-transformers
    /tmp/refvenv/bin/python scripts/make-embedding-fixture.py [MODEL_DIR]

MODEL_DIR defaults to $NOTES_MODEL_DIR, else ~/.local/share/notes/models/all-MiniLM-L6-v2.
"""
import json
import os
import sys

from sentence_transformers import SentenceTransformer

LONG = (
    "The American whaling industry grew from a handful of coastal boats in the seventeenth "
    "century into a global fleet by the 1840s. Ships from New Bedford and Nantucket sailed "
    "for three or four years at a time, rounding Cape Horn to hunt sperm whales in the Pacific. "
    "Whale oil lit the lamps of Europe and America, and spermaceti made the finest candles. "
    "The crews were young, poorly paid and drawn from every port of the world; many deserted "
    "in the Azores, Hawaii or Tahiti. The decline came quickly: petroleum, discovered in "
    "Pennsylvania in 1859, made whale oil uneconomic within a decade, the Civil War sank or "
    "captured much of the fleet, and in 1871 thirty-three ships were lost in the Arctic ice. "
) * 3

TEXTS = [
    "how did the whaling industry decline",
    "How do I see which process listens on a port?",
    "What is the capital of France?",
    LONG,
    "Café naïve résumé — Ångström, Øresund, façade, jalapeño.",
    "后台执行命令并查看输出",
    "日本語のテキストと English mixed 한국어",
    "Hello!!! What's up??? (parentheses) [brackets] {braces} ... ¿Qué? «quotes»",
    "emoji 🐳 whales 🚢 and ships ✨",
    " ",
    "",
    "rg --files | fzf --preview 'bat {}'",
    "## Research/moby-dick/introduction.md › Open questions",
    "let x = foo_bar(baz, 42); // call_me_maybe()",
    "3.14159 1,000,000 2026-11-26 12:25 $19.99 50% 0x1F",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "a" * 120 + " tail",
    "Tab\tseparated\tvalues\r\nand a new line\u00a0with nbsp\u200bzero-width",
    "The quick brown fox jumps over the lazy dog.",
    "user@example.com https://example.org/path?q=1&r=2#frag",
]


def main():
    default = os.environ.get("NOTES_MODEL_DIR") or os.path.expanduser(
        "~/.local/share/notes/models/all-MiniLM-L6-v2")
    model_dir = sys.argv[1] if len(sys.argv) > 1 else default
    model = SentenceTransformer(model_dir, device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length
    tokenizer = model.tokenizer
    vectors = model.encode(TEXTS, batch_size=8, normalize_embeddings=False,
                           convert_to_numpy=True)
    cases = []
    for text, vec in zip(TEXTS, vectors):
        ids = tokenizer(text, truncation=True, max_length=model.max_seq_length)["input_ids"]
        cases.append({
            "text": text,
            "input_ids": ids,
            "embedding": [round(float(x), 6) for x in vec],
        })
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures",
                       "embedding", "reference.json")
    body = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "max_seq_length": model.max_seq_length,
        "generator": "scripts/make-embedding-fixture.py",
        "cases": cases,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(body, f, ensure_ascii=False, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} cases to {os.path.normpath(out)}")


if __name__ == "__main__":
    main()
