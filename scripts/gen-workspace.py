#!/usr/bin/env python3
"""Writes a synthetic notes workspace of N files (standard library only, deterministic).

    scripts/gen-workspace.py OUT_DIR [-n 1000] [--seed 42] [--huge-mb 5]

The layout is the one `notes init` and an agent produce:

    OUT_DIR/context.md
    OUT_DIR/Research/<topic>/introduction.md, notes.md, sources/<name>.md (some .txt)
    OUT_DIR/Journal/YYYY-MM-DD.md
    OUT_DIR/Chats/<id>.json
    OUT_DIR/Research/edge-cases/   files that a parser must survive (listed in EDGE_CASES)

Markdown files carry front matter with the provenance keys (created_by, created_at,
last_modified_by, last_modified_at) and tags in the three YAML shapes (flow list, block
list, bare string), sometimes title, aliases and status. The prose draws words with the
frequencies of the public-domain book committed in sample-workspace/ (Moby-Dick), so term
statistics are Zipfian like real text: headings, paragraphs, lists, quotes, code fences,
[[wikilinks]], relative links and URLs; about 3% of the notes use CRLF line endings.

N counts every file written (edge cases included). The same N, seed and book always give
the same bytes. Nothing outside this repository is read.
"""

import argparse
import datetime as dt
import json
import os
import random
import re
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOOK = os.path.join(ROOT, "sample-workspace", "Research", "moby-dick", "full_text.txt")
START = dt.datetime(2019, 1, 1, tzinfo=dt.timezone.utc)
SPREAD = 7 * 365 * 86400  # creation times fall in 2019..2025

EDGE_CASES = [
    "empty.md", "front-matter-only.md", "non-mapping-front-matter.md", "invalid-front-matter.md",
    "unterminated-front-matter.md", "invalid-utf8.md", "bom-crlf.md", "long-line.md",
    "name with spaces & \u00fcn\u00efc\u00f6d\u00e9.md", "huge-note.md",
]


def word_frequencies(book=BOOK):
    """(words, cumulative counts), most frequent first, from the committed book's body."""
    with open(book, encoding="utf-8") as fh:
        text = fh.read()
    # Only the book itself, without the Project Gutenberg header and licence.
    start, end = text.find("*** START OF"), text.find("*** END OF")
    if start >= 0 and end > start:
        text = text[text.find("\n", start) + 1:end]
    counts = Counter(re.findall(r"[a-z]+(?:'[a-z]+)?", text.lower()))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    words, cumulative, total = [], [], 0
    for word, count in ranked:
        total += count
        words.append(word)
        cumulative.append(total)
    return words, cumulative


class Prose:
    """Sentences drawn once from the word frequencies; bodies are picks from that pool."""

    def __init__(self, rng, words, cumulative, pool_size):
        self.rng = rng
        # Words for titles, tags and slugs: past the function words, at least four letters.
        self.content = [w for w in words[120:5000] if len(w) >= 4 and "'" not in w]
        draws = rng.choices(words, cum_weights=cumulative, k=pool_size * 12)
        self.pool = []
        at = 0
        for _ in range(pool_size):
            length = rng.randint(4, 20)
            if at + length > len(draws):
                at = 0
            chunk = draws[at:at + length]
            at += length
            if length > 8 and rng.random() < 0.3:
                chunk[length // 2] += ","
            sentence = " ".join(chunk)
            self.pool.append(sentence[0].upper() + sentence[1:] + rng.choice("......?!;"))

    def sentences(self, k):
        return " ".join(self.rng.choices(self.pool, k=k))

    def words(self, low, high):
        return " ".join(self.rng.choices(self.content, k=self.rng.randint(low, high)))

    def title(self, low=2, high=5):
        return self.words(low, high).title()

    def slug(self, low=1, high=3):
        return self.words(low, high).replace(" ", "-")


def timestamp(seconds, rng):
    moment = START + dt.timedelta(seconds=seconds)
    r = rng.random()
    if r < 0.04:
        return moment.astimezone(dt.timezone(dt.timedelta(hours=-5))).isoformat()
    if r < 0.06:
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def front_matter(rng, prose, tags, title=None, created=None):
    created = rng.randrange(SPREAD) if created is None else created
    modified = created + int(rng.expovariate(1 / (15 * 86400)))
    lines = ["---"]
    if title is not None and rng.random() < 0.3:
        lines.append("title: " + (json.dumps(title) if rng.random() < 0.25 else title))
    lines.append("created_by: " + ("agent" if rng.random() < 0.5 else "user"))
    lines.append("created_at: " + timestamp(created, rng))
    lines.append("last_modified_by: " + ("agent" if rng.random() < 0.45 else "user"))
    lines.append("last_modified_at: " + timestamp(modified, rng))
    chosen = sorted(set(rng.sample(tags, rng.randint(0, 3))))
    shape = rng.random()
    if not chosen:
        lines.append("tags: []")
    elif shape < 0.5:
        lines.append("tags: [" + ", ".join(chosen) + "]")
    elif shape < 0.85:
        lines += ["tags:"] + ["  - " + t for t in chosen]
    else:
        lines.append("tags: " + chosen[0])
    if rng.random() < 0.05:
        lines.append("aliases: [" + prose.words(1, 2) + "]")
    if rng.random() < 0.1:
        lines.append("status: " + rng.choice(["draft", "active", "done"]))
    lines.append("---")
    return lines


def markdown_body(rng, prose, title, links, size):
    lines = ["# " + title, ""]
    while size > 0:
        r = rng.random()
        if r < 0.12:
            lines += ["## " + prose.title(1, 4), ""]
        elif r < 0.22:
            lines += ["- " + prose.sentences(1) for _ in range(rng.randint(2, 5))] + [""]
            size -= 3
        elif r < 0.26:
            lines += ["%d. %s" % (i + 1, prose.sentences(1)) for i in range(rng.randint(2, 4))] + [""]
            size -= 3
        elif r < 0.30:
            lines += ["> " + prose.sentences(rng.randint(1, 2)), ""]
            size -= 1
        elif r < 0.32:
            name = prose.words(1, 2).replace(" ", "_")
            lines += ["```python", "def %s(value):" % name, "    return value  # " + prose.words(2, 4), "```", ""]
        elif r < 0.40 and links:
            lines += [prose.sentences(1) + " See " + rng.choice(links) + ".", ""]
            size -= 1
        else:
            k = rng.randint(2, 6)
            lines += [prose.sentences(k), ""]
            size -= k
    return lines


def save(path, lines, crlf=False):
    newline = "\r\n" if crlf else "\n"
    data = (newline.join(lines) + newline).encode("utf-8")
    with open(path, "wb") as fh:
        fh.write(data)
    return len(data)


def generate(out, n, seed=42, huge_mb=5.0):
    rng = random.Random(seed)
    words, cumulative = word_frequencies()
    prose = Prose(rng, words, cumulative, pool_size=max(20000, min(150000, n * 4)))
    tags = sorted(set(prose.slug(1, 2) for _ in range(250)))
    written = Counter()

    budget = max(n - len(EDGE_CASES) - 1, 3)    # files besides the edge cases and context.md
    journal_count = min(budget // 5, 7300)     # 20%, at most 20 years of days
    chat_count = budget // 10
    research_count = budget - journal_count - chat_count
    topic_count = max(1, research_count // 12)
    per_topic = [0] * topic_count
    for i in range(research_count - 2 * topic_count):
        per_topic[i % topic_count] += 1
    rng.shuffle(per_topic)
    topics = []
    while len(topics) < topic_count:
        name = prose.slug(1, 3)
        if name not in topics:
            topics.append(name)

    os.makedirs(os.path.join(out, "Research"), exist_ok=True)
    for topic, source_count in zip(topics, per_topic):
        folder = os.path.join(out, "Research", topic)
        os.makedirs(os.path.join(folder, "sources"), exist_ok=True)
        sources = ["%s-%d" % (prose.slug(1, 2), j) for j in range(source_count)]
        neighbours = [rng.choice(topics) for _ in range(3)]
        links = (["[[Research/%s/notes]]" % t for t in neighbours] + ["[[%s]]" % neighbours[0]]
                 + ["[%s](sources/%s.md)" % (prose.words(1, 3), s) for s in sources[:3]]
                 + ["<https://example.org/%s/%s>" % (topic, prose.slug(1, 2))])
        created = rng.randrange(SPREAD)
        name = topic.replace("-", " ").title()
        for file_name, size, title in (("introduction.md", rng.randint(4, 16), name + ": Introduction"),
                                       ("notes.md", int(rng.lognormvariate(3.1, 0.7)), name + " Notes")):
            lines = front_matter(rng, prose, tags, title, created) + markdown_body(rng, prose, title, links, size)
            save(os.path.join(folder, file_name), lines, rng.random() < 0.03)
            written["research"] += 1
        for source in sources:
            title = prose.title(2, 6)
            size = int(rng.lognormvariate(2.5, 0.8))
            if rng.random() < 0.08:  # a plain-text source without front matter
                lines = [title, "=" * len(title), ""] + [prose.sentences(rng.randint(2, 5)) + "\n" for _ in range(max(1, size // 4))]
                save(os.path.join(folder, "sources", source + ".txt"), lines, rng.random() < 0.03)
            else:
                url = "<https://example.org/%s>" % prose.slug(2, 3)
                lines = front_matter(rng, prose, tags, title) + markdown_body(rng, prose, title, links[:2] + [url], size)
                save(os.path.join(folder, "sources", source + ".md"), lines, rng.random() < 0.03)
            written["sources"] += 1

    journal = os.path.join(out, "Journal")
    os.makedirs(journal, exist_ok=True)
    first_day = dt.date(2006, 1, 1)
    for offset in sorted(rng.sample(range(7300), journal_count)):
        day = first_day + dt.timedelta(days=offset)
        seconds = int((dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc) - START).total_seconds()) + rng.randrange(86400)
        links = ["[[Research/%s/notes]]" % rng.choice(topics), "[[Journal/%s]]" % (day - dt.timedelta(days=1)).isoformat()]
        title = day.isoformat()
        lines = front_matter(rng, prose, tags, title, seconds) + markdown_body(rng, prose, title, links, int(rng.lognormvariate(2.2, 0.7)))
        save(os.path.join(journal, title + ".md"), lines, rng.random() < 0.03)
        written["journal"] += 1

    chats = os.path.join(out, "Chats")
    os.makedirs(chats, exist_ok=True)
    for _ in range(chat_count):
        chat_id = "%08x-%04x" % (rng.getrandbits(32), rng.getrandbits(16))
        created = rng.randrange(SPREAD)
        messages = [{"role": "user" if m % 2 == 0 else "assistant",
                     "content": prose.sentences(rng.randint(1, 3 if m % 2 == 0 else 7)),
                     "ts": timestamp(created + 45 * m, rng)} for m in range(rng.randint(2, 10))]
        chat = {"id": chat_id, "title": prose.title(2, 6), "created_at": timestamp(created, rng), "messages": messages}
        with open(os.path.join(chats, chat_id + ".json"), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(json.dumps(chat, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        written["chats"] += 1

    lines = front_matter(rng, prose, tags, "Workspace context") + ["# Workspace context", "", prose.sentences(3), "", "## Topics", ""]
    lines += ["- [[Research/%s/introduction]]" % t for t in topics[:200]]
    save(os.path.join(out, "context.md"), lines)
    written["context"] += 1

    edge = os.path.join(out, "Research", "edge-cases")
    os.makedirs(edge, exist_ok=True)
    header = "\n".join(front_matter(rng, prose, tags, "edge")) + "\n"
    contents = {
        "empty.md": b"",
        "front-matter-only.md": header.encode(),
        "non-mapping-front-matter.md": ("---\n- a list\n- not a mapping\n---\n# A list, not a mapping\n\n%s\n" % prose.sentences(2)).encode(),
        "invalid-front-matter.md": ("---\ntitle: [never closed\ncreated_at: : :\n\tindent: tab\n---\n# Broken YAML\n\n%s\n" % prose.sentences(2)).encode(),
        "unterminated-front-matter.md": ("---\ncreated_by: user\ntags: [open]\n# No closing line\n\n%s\n" % prose.sentences(2)).encode(),
        "invalid-utf8.md": header.encode() + b"# Stray bytes\n\nwhale \xff\xfe caf\xc3\x28 " + prose.sentences(2).encode() + b" \xe2\x82\n",
        "bom-crlf.md": b"\xef\xbb\xbf" + (header + "# BOM and CRLF\n\n" + prose.sentences(3) + "\n").replace("\n", "\r\n").encode(),
        "long-line.md": ("# One long line\n\n" + prose.sentences(2500))[:200000].encode(),
        "name with spaces & \u00fcn\u00efc\u00f6d\u00e9.md": (header + "# \u00dcn\u00efc\u00f6d\u00e9\n\nna\u00efve caf\u00e9 \u65e5\u672c\u8a9e \U0001F40B whale. " + prose.sentences(2) + "\n").encode(),
    }
    target, parts, size, section = int(huge_mb * 1024 * 1024), [header, "# A very large note\n\n"], 0, 0
    while size < target:
        if section % 40 == 0:
            parts.append("## Part %d: %s\n\n" % (section // 40 + 1, prose.title(1, 3)))
        paragraph = prose.sentences(rng.randint(3, 7)) + "\n\n"
        parts.append(paragraph)
        size += len(paragraph)
        section += 1
    contents["huge-note.md"] = "".join(parts).encode()
    for name in EDGE_CASES:
        with open(os.path.join(edge, name), "wb") as fh:
            fh.write(contents[name])
        written["edge-cases"] += 1

    total = sum(written.values())
    print("%s: %d files (%s), seed %d" % (out, total, ", ".join("%s %d" % kv for kv in sorted(written.items())), seed))
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="the folder to write (created; files already there are overwritten)")
    parser.add_argument("-n", "--notes", type=int, default=1000, help="how many files (default 1000, at least 20)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--huge-mb", type=float, default=5.0, help="size of Research/edge-cases/huge-note.md in MB (default 5)")
    args = parser.parse_args()
    if args.notes < 20:
        parser.error("-n must be at least 20")
    if not os.path.isfile(BOOK):
        sys.exit("gen-workspace.py: %s is missing (it is part of the repository)" % BOOK)
    generate(args.out, args.notes, args.seed, args.huge_mb)


if __name__ == "__main__":
    main()
