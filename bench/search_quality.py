#!/usr/bin/env python3
"""Search quality on judged question sets: success@5 and MRR@10 (success@1 for known-item queries).

For every question set in bench/questions/*.tsv (tldr, sample, gutenberg) the harness copies the
corpus into a fresh temporary workspace (a folder with `.notes/` inside) per configuration, runs
`notes index`, then for every question `notes -w WS search --json --limit 10 [--mode M] -- QUESTION`
and scores `hits[].path` against the judged relevant paths. A built-in reference, `or-bm25`, is
computed in the same run: one SQLite FTS5 row per file (porter unicode61) over the raw text,
queried with the question's words ORed, ordered by bm25.

    bench/search_quality.py --config today=/work/baseline/notes \\
        --config lexical=.build/release/notes:lexical --config hybrid=.build/release/notes:hybrid

Python 3 standard library only. Deterministic (same binaries and corpora give the same figures).
"""

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPORA = REPO.parent / "shared" / "corpora"
SETS = ("tldr", "sample", "gutenberg")
REFERENCE = "or-bm25"
LIMIT = 10


# ---------------------------------------------------------------- question sets

def load_set(path):
    """Rows of a question TSV (comment lines start with '#'; the first other line is the header)."""
    header, rows, meta = None, [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            meta.append(line[1:].strip())
            continue
        if not line.strip():
            continue
        cols = line.split("\t")
        if header is None:
            header = cols
            continue
        row = dict(zip(header, cols))
        row["relevant"] = [p for p in row["relevant"].split(";") if p]
        rows.append(row)
    return rows, meta


def gutenberg_books(meta):
    """The book files named in the gutenberg set's header (the line after 'into the')."""
    text = " ".join(meta)
    return sorted(set(re.findall(r"[a-z0-9-]+\.txt", text)))


# ---------------------------------------------------------------- corpora

def corpus_files(name, args, meta):
    """(source root, sorted relative paths) of the files that make up a set's workspace."""
    if name == "tldr":
        root = Path(args.tldr)
        rel = [p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.is_file()]
    elif name == "sample":
        root = Path(args.sample)
        rel = [p.relative_to(root).as_posix() for p in root.rglob("*")
               if p.is_file() and ".notes" not in p.relative_to(root).parts]
    elif name == "gutenberg":
        root = Path(args.gutenberg)
        rel = gutenberg_books(meta)
        missing = [r for r in rel if not (root / r).is_file()]
        if missing:
            sys.exit(f"gutenberg books missing under {root}: {', '.join(missing)}")
    else:
        raise ValueError(name)
    return root, sorted(rel)


def make_workspace(dest, root, rel, name, args):
    dest.mkdir(parents=True)
    (dest / ".notes").mkdir()
    if name == "sample":  # keep the sample workspace's settings (ignore patterns), nothing else
        cfg = Path(args.sample) / ".notes" / "config.yml"
        if cfg.is_file():
            shutil.copyfile(cfg, dest / ".notes" / "config.yml")
    for r in rel:
        target = dest / r
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / r, target)


# ---------------------------------------------------------------- the or-bm25 reference

def or_query(question):
    words = re.findall(r"\w+", question.lower())
    seen, out = set(), []
    for w in words:
        if w not in seen:
            seen.add(w)
            out.append('"' + w + '"')
    return " OR ".join(out)


def run_reference(root, rel, questions):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE doc USING fts5(path UNINDEXED, body, tokenize='porter unicode61')")
    for r in rel:
        body = (root / r).read_bytes().decode("utf-8", errors="replace")
        db.execute("INSERT INTO doc(path, body) VALUES (?, ?)", (r, body))
    results = {}
    for q in questions:
        expr = or_query(q["question"])
        if not expr:
            results[q["id"]] = {"paths": [], "error": None}
            continue
        rows = db.execute("SELECT path FROM doc WHERE doc MATCH ? ORDER BY bm25(doc), path LIMIT ?",
                          (expr, LIMIT)).fetchall()
        results[q["id"]] = {"paths": [r[0] for r in rows], "error": None}
    db.close()
    return results


# ---------------------------------------------------------------- notes binaries

def run_notes(binary, ws, env, argv, timeout):
    return subprocess.run([binary, "-w", str(ws)] + argv, env=env, capture_output=True, text=True,
                          timeout=timeout)


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def binary_env(binary):
    """The binary a wrapper script runs (`exec BINARY "$@"`): wrappers that only set ranking
    knobs (NOTES_PLAIN_RANKING, NOTES_MEANING_FLOOR, NOTES_FUSION_WORDS) share the index and
    vectors their binary built."""
    try:
        with open(binary, "rb") as f:
            head = f.read(4096)
    except OSError:
        return ""
    if not head.startswith(b"#!"):
        return ""
    import re as _re
    m = _re.search(rb"exec\s+(\S+)", head)
    return m.group(1).decode("utf-8", "replace") if m else head.decode("utf-8", "replace")


def run_config(binary, mode, ws, cache, questions, args):
    """{question id: {"paths": [...], "error": str|None}}, or a string saying why unavailable."""
    env = dict(os.environ)
    env["NOTES_INDEX_DIR"] = str(cache / "index")
    env["XDG_CACHE_HOME"] = str(cache / "xdg-cache")
    env["NO_COLOR"] = "1"
    env.pop("NOTES_WORKSPACE", None)
    t0 = time.monotonic()
    p = run_notes(binary, ws, env, ["index"], args.index_timeout)
    index_seconds = time.monotonic() - t0
    if p.returncode != 0:
        return f"`notes index` failed (exit {p.returncode}): {first_line(p.stderr) or first_line(p.stdout)}", None
    mode_args = ["--mode", mode] if mode else []
    results = {}
    for n, q in enumerate(questions):
        argv = ["search", "--json", "--limit", str(LIMIT)] + mode_args + ["--", q["question"]]
        try:
            p = run_notes(binary, ws, env, argv, args.search_timeout)
        except subprocess.TimeoutExpired:
            results[q["id"]] = {"paths": [], "error": "timeout"}
            continue
        if p.returncode == 1 and not p.stdout.strip():
            results[q["id"]] = {"paths": [], "error": None}
            continue
        if p.returncode not in (0, 1):
            err = first_line(p.stderr) or first_line(p.stdout)
            if mode and n == 0 and ("mode" in err.lower() or "unknown option" in err.lower()
                                    or "unexpected argument" in err.lower()):
                return f"mode '{mode}' unavailable: {err}", index_seconds
            results[q["id"]] = {"paths": [], "error": f"exit {p.returncode}: {err}"}
            continue
        try:
            doc = json.loads(p.stdout)
            paths = [h["path"] for h in doc.get("hits", [])]
        except (ValueError, KeyError, TypeError) as e:
            results[q["id"]] = {"paths": [], "error": f"unreadable --json output: {e}"}
            continue
        results[q["id"]] = {"paths": paths[:LIMIT], "error": None}
    return results, index_seconds


# ---------------------------------------------------------------- scoring

def rank_of_first_relevant(paths, relevant):
    rel = set(relevant)
    for i, p in enumerate(paths[:LIMIT]):
        if p in rel:
            return i + 1
    return None


def score(questions, results):
    """Metrics per split ('dev', 'test', 'all') and kind."""
    out = {}
    for split in ("dev", "test", "all"):
        for kind in ("question", "known-item"):
            qs = [q for q in questions if q["kind"] == kind and (split == "all" or q["split"] == split)]
            if not qs:
                continue
            ranks = [rank_of_first_relevant(results[q["id"]]["paths"], q["relevant"]) for q in qs]
            n = len(qs)
            m = {
                "n": n,
                "success@1": sum(1 for r in ranks if r is not None and r <= 1) / n,
                "success@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
                "mrr@10": sum(1.0 / r for r in ranks if r is not None) / n,
                "zero_hits": sum(1 for q in qs if not results[q["id"]]["paths"]),
                "errors": sum(1 for q in qs if results[q["id"]]["error"]),
            }
            out.setdefault(split, {})[kind] = {k: (round(v, 4) if isinstance(v, float) else v)
                                               for k, v in m.items()}
    return out


def fmt(v):
    return f"{v:.3f}"


def markdown(set_name, questions, configs, figures, unavailable, splits):
    counts = {s: {k: sum(1 for q in questions if q["kind"] == k and (s == "all" or q["split"] == s))
                  for k in ("question", "known-item")} for s in ("dev", "test", "all")}
    lines = [f"### {set_name}  (" + ", ".join(
        f"{s}: {counts[s]['question']} questions + {counts[s]['known-item']} known-item" for s in splits) + ")", ""]
    head = ["config"]
    for s in splits:
        head += [f"{s} S@5", f"{s} MRR@10"]
    for s in splits:
        head += [f"{s} known S@1"]
    head += ["zero-hit questions"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for name in configs:
        if name in unavailable:
            lines.append(f"| {name} | " + " | ".join(["n/a"] * (len(head) - 1)) + " |")
            continue
        f = figures[name]
        row = [name]
        for s in splits:
            q = f.get(s, {}).get("question")
            row += [fmt(q["success@5"]), fmt(q["mrr@10"])] if q else ["–", "–"]
        for s in splits:
            k = f.get(s, {}).get("known-item")
            row += [fmt(k["success@1"])] if k else ["–"]
        zs = [f.get(s, {}).get("question", {}).get("zero_hits", 0) for s in splits if s != "all"]
        errs = sum(f.get(s, {}).get("question", {}).get("errors", 0) + f.get(s, {}).get("known-item", {}).get("errors", 0)
                   for s in splits if s != "all")
        row += [str(sum(zs)) + (f" ({errs} errors)" if errs else "")]
        lines.append("| " + " | ".join(row) + " |")
    for name in configs:
        if name in unavailable:
            lines.append(f"\n{name}: {unavailable[name]}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main

def parse_config(text):
    if "=" not in text:
        raise argparse.ArgumentTypeError("--config takes NAME=BINARY[:MODE]")
    name, spec = text.split("=", 1)
    binary, mode = spec, None
    if ":" in spec:
        b, m = spec.rsplit(":", 1)
        if m and "/" not in m:
            binary, mode = b, m
    if name == REFERENCE:
        raise argparse.ArgumentTypeError(f"'{REFERENCE}' is the built-in reference; choose another name")
    return name, os.path.abspath(binary), mode


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", action="append", type=parse_config, default=[],
                    metavar="NAME=BINARY[:MODE]", help="a notes binary to measure, optionally with --mode MODE")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated subset of {','.join(SETS)}")
    ap.add_argument("--split", choices=("dev", "test", "both"), default="both",
                    help="which split to run (tune on dev; look at test only at the end)")
    ap.add_argument("--no-reference", action="store_true", help=f"skip the built-in {REFERENCE} reference")
    ap.add_argument("--questions", default=str(HERE / "questions"), help="folder with the question TSVs")
    ap.add_argument("--tldr", default=str(CORPORA / "tldr-pages" / "pages"))
    ap.add_argument("--sample", default=str(REPO / "sample-workspace"))
    ap.add_argument("--gutenberg", default=str(CORPORA / "gutenberg"))
    ap.add_argument("--workdir", help="where to build the workspaces (default: a temporary folder, removed)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary workspaces and indexes")
    ap.add_argument("--details", help="write per-question results (top paths, rank) as JSON lines here")
    ap.add_argument("--index-timeout", type=float, default=7200)
    ap.add_argument("--search-timeout", type=float, default=120)
    ap.add_argument("--json", action="store_true", help="print one JSON document instead of Markdown")
    args = ap.parse_args()

    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    for s in sets:
        if s not in SETS:
            ap.error(f"unknown set '{s}'")
    names = [c[0] for c in args.config]
    if len(set(names)) != len(names):
        ap.error("config names must be unique")
    for _, binary, _ in args.config:
        if not os.access(binary, os.X_OK):
            ap.error(f"not an executable: {binary}")
    splits = ["dev", "test"] if args.split == "both" else [args.split]
    order = names + ([] if args.no_reference else [REFERENCE])

    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="notes-search-quality-"))
    work.mkdir(parents=True, exist_ok=True)
    report = {"limit": LIMIT, "splits": splits, "configs": {}, "sets": {}}
    for name, binary, mode in args.config:
        report["configs"][name] = {"binary": binary, "mode": mode}
    if not args.no_reference:
        report["configs"][REFERENCE] = {"binary": None, "mode": None,
                                        "about": "SQLite FTS5 porter unicode61, one row per file, words ORed, bm25"}
    details = open(args.details, "w", encoding="utf-8") if args.details else None
    out_md = []
    kept = {}  # set name -> (questions, {config: results}, {config: why unavailable})
    try:
        for set_name in sets:
            questions, meta = load_set(Path(args.questions) / f"{set_name}.tsv")
            questions = [q for q in questions if q["split"] in splits]
            root, rel = corpus_files(set_name, args, meta)
            figures, unavailable, index_seconds = {}, {}, {}
            built = {}  # binary and environment -> the workspace already indexed (and embedded) with it
            last_use = {}
            for i, (name, binary, mode) in enumerate(args.config):
                last_use[binary_env(binary) or binary] = i
            for i, (name, binary, mode) in enumerate(args.config):
                key = binary_env(binary) or binary
                if key in built:
                    # Modes of one binary share its index: embedding a corpus takes minutes.
                    ws = built[key]
                else:
                    ws = work / f"{set_name}-{name}" / "ws"
                    if ws.exists():
                        shutil.rmtree(ws.parent)
                    make_workspace(ws, root, rel, set_name, args)
                    built[key] = ws
                print(f"[{set_name}] {name}: indexing {len(rel)} files, then {len(questions)} searches …",
                      file=sys.stderr, flush=True)
                results, secs = run_config(binary, mode, ws, ws.parent / "cache", questions, args)
                index_seconds[name] = round(secs, 2) if secs is not None else None
                if isinstance(results, str):
                    unavailable[name] = results
                    print(f"[{set_name}] {name}: {results}", file=sys.stderr)
                    continue
                figures[name] = score(questions, results)
                kept.setdefault(set_name, (questions, {}, unavailable))[1][name] = results
                if details:
                    write_details(details, set_name, name, questions, results)
                if not args.keep and last_use[key] == i:
                    shutil.rmtree(ws.parent, ignore_errors=True)
            if not args.no_reference:
                print(f"[{set_name}] {REFERENCE}: {len(rel)} files …", file=sys.stderr, flush=True)
                results = run_reference(root, rel, questions)
                figures[REFERENCE] = score(questions, results)
                kept.setdefault(set_name, (questions, {}, unavailable))[1][REFERENCE] = results
                if details:
                    write_details(details, set_name, REFERENCE, questions, results)
            report["sets"][set_name] = {
                "files": len(rel),
                "questions": {s: {k: sum(1 for q in questions if q["split"] == s and q["kind"] == k)
                                  for k in ("question", "known-item")} for s in splits},
                "figures": figures, "unavailable": unavailable, "index_seconds": index_seconds,
            }
            out_md.append(markdown(set_name, questions, order, figures, unavailable, splits))
        # Set (b) of issue 30 is the sample workspace and the Gutenberg books together.
        if "sample" in kept and "gutenberg" in kept:
            questions = kept["sample"][0] + kept["gutenberg"][0]
            figures, unavailable = {}, {}
            for name in order:
                parts = [kept[s][1].get(name) for s in ("sample", "gutenberg")]
                if None in parts:
                    unavailable[name] = "; ".join(kept[s][2][name] for s in ("sample", "gutenberg")
                                                  if name in kept[s][2]) or "not run"
                    continue
                figures[name] = score(questions, {**parts[0], **parts[1]})
            report["sets"]["sample+gutenberg"] = {"figures": figures, "unavailable": unavailable}
            out_md.append(markdown("sample+gutenberg (set b)", questions, order, figures, unavailable, splits))
    finally:
        if details:
            details.close()
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        print("S@5 = success@5 (a relevant file in the first five), MRR@10 = mean reciprocal rank of the first "
              "relevant file in the first ten, known S@1 = known-item queries answered first.\n")
        print("\n".join(out_md), end="")


def write_details(out, set_name, config, questions, results):
    for q in questions:
        r = results[q["id"]]
        out.write(json.dumps({
            "set": set_name, "config": config, "id": q["id"], "split": q["split"], "kind": q["kind"],
            "question": q["question"], "rank": rank_of_first_relevant(r["paths"], q["relevant"]),
            "paths": r["paths"], "relevant": q["relevant"], "error": r["error"],
        }, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
