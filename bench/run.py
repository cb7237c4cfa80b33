#!/usr/bin/env python3
"""notes benchmark: indexing throughput, refresh and search latency, next to same-run baselines.

For each corpus it prints, all measured in this run on this machine:
  - full index (release `notes index --rebuild`): seconds, MB/s, peak RSS, index size on disk;
  - the FTS5 floor (../shared/bench/fts5_limit.py: raw text into one FTS5 table, no parsing)
    for the same files: MB/s and database size; and our ratio to it;
  - no-op refresh (`notes index` with nothing changed) and refresh after one edited file;
  - whole-process `notes search` latency (p50/p90 over several runs) for a query set, and
    ripgrep's time for the same word (`rg -i -l -c WORD`).
Medians of --runs runs with min and max. Load average is printed at start and end.

Usage: bench/run.py [--runs 5] [--corpus gutenberg --corpus gen10k ...] [--notes .build/release/notes]
Corpora: gutenberg, tldr, dendron (from ../shared/corpora), gen10k, gen100k (generated).
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.abspath(os.path.join(ROOT, "..", "shared"))
CORPORA = os.path.join(SHARED, "corpora")
FLOOR = os.path.join(SHARED, "bench", "fts5_limit.py")
QUERIES = ["whale", "white whale", '"white whale"', "harpo*", "whale kind:research"]


def sh(cmd, env=None, check=True):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, check=check)


def timed(cmd, env=None):
    """Runs cmd under /usr/bin/time -v; returns (seconds, peak RSS MB, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    return dt, (int(m.group(1)) / 1024 if m else float("nan")), p.stdout


def stats(values):
    return statistics.median(values), min(values), max(values)


def fmt(values, unit="s", scale=1.0):
    med, lo, hi = stats([v * scale for v in values])
    return "%.3f%s (%.3f–%.3f)" % (med, unit, lo, hi)


def prepare(name, work):
    """Returns a workspace folder for corpus `name`."""
    if name in ("gutenberg", "tldr", "dendron"):
        # A private copy: the refresh benchmark edits a file, and shared/ must stay intact.
        src = {"gutenberg": "gutenberg", "tldr": "tldr-pages", "dendron": "dendron-vault"}[name]
        out = os.path.join(work, name)
        if not os.path.isdir(out):
            shutil.copytree(os.path.join(CORPORA, src), out)
            subprocess.run(["chmod", "-R", "u+w", out], check=True)
        return out
    m = re.fullmatch(r"gen(\d+)k", name)
    if m:
        out = os.path.join(work, name)
        if not os.path.isdir(out):
            sh([sys.executable, os.path.join(CORPORA, "gen-workspace.py"), out, "-n", str(int(m.group(1)) * 1000)])
        return out
    sys.exit("unknown corpus " + name)


def corpus_bytes(root, exts=(".md", ".markdown", ".txt", ".json")):
    total = files = 0
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for n in names:
            if n.endswith(exts):
                total += os.path.getsize(os.path.join(d, n))
                files += 1
    return files, total


def bench_corpus(name, args, work):
    ws = prepare(name, work)
    index_dir = os.path.join(work, "index-" + name)
    env = dict(os.environ, NOTES_INDEX_DIR=index_dir, NO_COLOR="1", NOTES_NO_PROGRESS="1")
    notes = [args.notes, "-w", ws]
    files, nbytes = corpus_bytes(ws)
    row = {"corpus": name, "files": files, "mb": nbytes / 1e6}

    # Full index, several runs.
    secs, rss = [], []
    for _ in range(args.runs):
        shutil.rmtree(index_dir, ignore_errors=True)
        dt, peak, _ = timed(notes + ["index"], env)
        secs.append(dt)
        rss.append(peak)
    row["index_s"] = stats(secs)
    row["index_mbps"] = nbytes / 1e6 / statistics.median(secs)
    row["rss_mb"] = max(rss)
    row["index_bytes"] = sum(os.path.getsize(os.path.join(index_dir, f)) for f in os.listdir(index_dir))

    # The FTS5 floor on the same files (it reads .md and .txt).
    floor_db = os.path.join(work, "floor.db")
    floor = []
    floor_size = 0
    for _ in range(args.runs):
        out = sh([sys.executable, FLOOR, ws, "--db", floor_db, "--runs", "3", "--no-optimize", "--json"]).stdout
        res = json.loads(out.strip().splitlines()[-1])
        floor.append(res["mb_per_s"])
        floor_size = res["db_bytes"]
    row["floor_mbps"] = stats(floor)
    row["floor_bytes"] = floor_size

    # Refresh with nothing changed, then after one edit.
    noop = [timed(notes + ["index"], env)[0] for _ in range(args.runs * 2)]
    row["noop_s"] = stats(noop)
    victim = None
    for d, dirs, names in os.walk(ws):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for n in sorted(names):
            if n.endswith(".md"):
                victim = os.path.join(d, n)
                break
        if victim:
            break
    one = []
    if victim and os.access(victim, os.W_OK):
        original = open(victim, "rb").read()
        try:
            for i in range(args.runs * 2):
                with open(victim, "ab") as fh:
                    fh.write(b"\nbench edit %d\n" % i)
                one.append(timed(notes + ["index"], env)[0])
        finally:
            open(victim, "wb").write(original)
            timed(notes + ["index"], env)
    row["one_edit_s"] = stats(one) if one else None

    # Whole-process search latency (warm cache) and ripgrep for the same word.
    row["search"] = {}
    for q in QUERIES:
        lat = []
        for _ in range(args.runs * 4):
            t0 = time.perf_counter()
            subprocess.run(notes + ["search", q, "--limit", "10"], env=env, capture_output=True)
            lat.append(time.perf_counter() - t0)
        lat.sort()
        row["search"][q] = (statistics.median(lat), lat[int(len(lat) * 0.9) - 1])
    rg = []
    for _ in range(args.runs * 4):
        t0 = time.perf_counter()
        subprocess.run(["rg", "-i", "-c", "whale", ws], capture_output=True)
        rg.append(time.perf_counter() - t0)
    row["rg_s"] = statistics.median(rg)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--corpus", action="append")
    ap.add_argument("--notes", default=os.path.join(ROOT, ".build", "release", "notes"))
    ap.add_argument("--work", default=None, help="scratch folder (default: a temp dir)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(args.notes):
        sys.exit("build first: swift build -c release --product notes")
    work = args.work or tempfile.mkdtemp(prefix="notes-bench-")
    os.makedirs(work, exist_ok=True)
    corpora = args.corpus or ["gutenberg", "gen10k"]
    print("machine: %d cores, load %s; notes %s" % (os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg()), args.notes))
    rows = [bench_corpus(c, args, work) for c in corpora]
    print()
    print("| corpus | files | MB | index s (min–max) | MB/s | floor MB/s | ratio | peak RSS MB | index MB / floor MB | no-op refresh s | one-edit refresh s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        med, lo, hi = r["index_s"]
        fmed = r["floor_mbps"][0]
        one = r["one_edit_s"][0] if r["one_edit_s"] else float("nan")
        print("| %s | %d | %.1f | %.2f (%.2f–%.2f) | %.1f | %.1f | %.2f× | %.0f | %.1f / %.1f = %.2f× | %.3f | %.3f |" % (
            r["corpus"], r["files"], r["mb"], med, lo, hi, r["index_mbps"], fmed, r["index_mbps"] / fmed, r["rss_mb"],
            r["index_bytes"] / 1e6, r["floor_bytes"] / 1e6, r["index_bytes"] / max(r["floor_bytes"], 1), r["noop_s"][0], one))
    print()
    print("| corpus | query | notes search p50 ms | p90 ms | rg -i -c whale ms | p50 / rg |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        for q, (p50, p90) in r["search"].items():
            print("| %s | %s | %.1f | %.1f | %.1f | %.2f× |" % (r["corpus"], q, p50 * 1000, p90 * 1000, r["rg_s"] * 1000, p50 / r["rg_s"]))
    print()
    print("load at end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
