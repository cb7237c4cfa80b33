#!/usr/bin/env python3
"""Alternating A/B timing of two or more `notes` binaries (issues 7 and 33).

Usage:
    bench/ab.py BIN_A BIN_B [BIN ...] --corpus FOLDER [--corpus FOLDER ...] [--rounds 12]
    bench/ab.py BIN_A BIN_B [BIN ...] -w WORKSPACE [--runs 30] [--cmd "search whale"] [--control]

With --corpus (the headline A/B, issue 33): every binary is timed on the four headline
figures of every corpus, in one run, and one table compares them with the first binary:
  index     first build (`notes index` into a new empty index directory), as MB/s of the
            corpus's .md/.txt bytes; words only (NOTES_MODEL_DIR points at no model)
  no-op     `notes index` with nothing changed, on one shared steady-state index
  search    whole-process `notes search QUERY --limit 10` p50 over the benchmark's queries,
            on that index
  MCP       p50 of `search` tool calls inside one MCP session per binary and round
            (bench/mcp_search.py with the official Python client from .venv; the binary's
            notes-mcp must sit next to it, as scripts/build-release leaves it)
Each round runs every binary once per figure in an order that rotates from round to round;
the first binary also runs a second time ("A again"): its difference from the first is the
noise floor of this run. Medians over rounds, with the quartiles.

Without --corpus, one command on one workspace:

Each round runs every binary once, in an order that rotates from round to round, after
reading the workspace's files (and, for commands other than `index`, the index's files)
into the page cache. Reports per binary the median wall time with its quartiles and the
median CPU time (user + sys of the process, from wait4), and each binary's difference from
the first.

- `--cmd index` (the default): a first build, into a new empty index directory each run.
- Any other command (`--cmd "search whale"`, `--cmd index` with `--shared-index`): every
  binary uses ONE index, built once beforehand by the first binary and refreshed in the
  steady state (folders older than the 2 s trust delay). Separate index files for each
  binary made differences of 1-2 ms appear that were only the files' layout and cache state.
- `--control` adds the first binary a second time (arm "A again"): the A/A difference is
  the noise floor of this run. On a shared 2-core VM, medians of 40 runs of a 25 ms search
  moved by up to 2 ms between blocks with the same binary (docs/performance-history.md,
  thirteenth pass): a difference smaller than the A/A one is not a result.

Needs only python3; binaries are run with NO_COLOR=1 and NOTES_NO_PROGRESS=1.
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ in the working tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import warm  # noqa: E402  (bench/run.py: the page-cache warming every timed step uses)


def measure(argv, env):
    """Runs one process; returns (wall ms, cpu ms, exit status)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, os.waitstatus_to_exitcode(status)


def quartiles(values):
    ordered = sorted(values)
    q = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else [ordered[0]] * 3
    return ordered[0], q[0], statistics.median(ordered), q[2], ordered[-1]


QUERIES = ["whale", "white whale", '"white whale"', "harpo*", "whale kind:research"]
HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.path.join(os.path.dirname(HERE), ".venv", "bin", "python")


def corpus_megabytes(root):
    total = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        total += sum(os.path.getsize(os.path.join(folder, n)) for n in names if n.endswith((".md", ".txt")))
    return total / 1e6


def headline(arms, corpora, rounds, calls):
    """The four headline figures per corpus and arm; prints the table."""
    # Words only: with an installed model `notes index` would also embed every passage,
    # which is another figure (bench/embed.py).
    env = dict(os.environ, NO_COLOR="1", NOTES_NO_PROGRESS="1", NOTES_MODEL_DIR="/nonexistent/notes-ab-no-model")
    env.pop("NOTES_INDEX_DIR", None)
    mcp = os.path.exists(PYTHON)
    if not mcp:
        print(f"ab.py: no {PYTHON} (scripts/setup makes it): MCP figures left out", file=sys.stderr)
    names = [name for name, _ in arms]
    short = [n.split(":")[0] for n in names]
    print(f"{rounds} alternating rounds per corpus; every binary once per figure per round, order rotating;"
          f" load {os.getloadavg()[0]:.2f} at the start")
    for name, binary in arms:
        print(f"- {name}")
    print()
    print("Each cell: the median (p25–p75). \"vs A\": the median of the ratios of runs paired in the same"
          " round (and query), which cancels the machine's drift; in brackets the same for CPU time"
          " (user + sys of the process; MCP: none). Positive = better, negative = worse.")
    print()
    print("| corpus | figure | " + " | ".join(short) + " | " + " | ".join(f"{n} vs A" for n in short[1:]) + " |")
    print("|---|---|" + "---|" * (2 * len(names) - 1), flush=True)
    work = tempfile.mkdtemp(prefix="notes-ab-")
    try:
        for corpus in corpora:
            workspace = os.path.abspath(corpus)
            megabytes = corpus_megabytes(workspace)
            figures = {"index": {}, "noop": {}, "search": {}, "mcp": {}, "index_cpu": {}, "noop_cpu": {}, "search_cpu": {}}
            for figure in figures.values():
                for name, _ in arms:
                    figure[name] = []
            shared = os.path.join(work, "shared")
            shutil.rmtree(shared, ignore_errors=True)
            steady = dict(env, NOTES_INDEX_DIR=shared)
            subprocess.run([arms[0][1], "index", "-w", workspace], env=steady, stdout=subprocess.DEVNULL, check=True)
            time.sleep(2.5)  # folders older than the index's trust delay, then one refresh records their stamps
            subprocess.run([arms[0][1], "index", "-w", workspace], env=steady, stdout=subprocess.DEVNULL, check=True)
            for r in range(rounds):
                order = arms[r % len(arms):] + arms[:r % len(arms)]
                for name, binary in order:
                    fresh = os.path.join(work, "fresh")
                    shutil.rmtree(fresh, ignore_errors=True)
                    warm(workspace)
                    wall, cpu, status = measure([binary, "index", "-w", workspace], dict(env, NOTES_INDEX_DIR=fresh))
                    if status != 0:
                        sys.exit(f"ab.py: {binary} index failed on {workspace}")
                    figures["index"][name].append(megabytes / (wall / 1000))
                    figures["index_cpu"][name].append(cpu)
                shutil.rmtree(os.path.join(work, "fresh"), ignore_errors=True)
                for name, binary in order:
                    warm(workspace, shared)
                    wall, cpu, _ = measure([binary, "index", "-w", workspace], steady)
                    figures["noop"][name].append(wall)
                    figures["noop_cpu"][name].append(cpu)
                for query in QUERIES:
                    for name, binary in order:
                        wall, cpu, _ = measure([binary, "search", query, "--limit", "10", "-w", workspace], steady)
                        figures["search"][name].append(wall)
                        figures["search_cpu"][name].append(cpu)
                if mcp:
                    for name, binary in order:
                        out = subprocess.run([PYTHON, os.path.join(HERE, "mcp_search.py"), binary, workspace, str(calls)],
                                             env=steady, capture_output=True, text=True)
                        if out.returncode != 0:
                            sys.exit(f"ab.py: MCP session of {binary} failed: {out.stderr[-500:]}")
                        figures["mcp"][name].append(json.loads(out.stdout.strip().splitlines()[-1])["p50_ms"])
                print(f"… {os.path.basename(workspace)}: round {r + 1}/{rounds}", file=sys.stderr, flush=True)
            print_rows(os.path.basename(workspace.rstrip("/")), megabytes, figures, names)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nload {os.getloadavg()[0]:.2f} at the end")


def print_rows(corpus, megabytes, figures, names):
    """One corpus's rows of the table."""
    labels = {"index": ("index MB/s", True), "noop": ("no-op refresh ms", False),
              "search": ("search p50 ms (whole process)", False), "mcp": ("MCP search p50 ms", False)}
    for key, (label, higher_is_better) in labels.items():
        if not figures[key][names[0]]:
            continue
        cells, changes = [], []
        for name in names:
            _, q1, med, q3, _ = quartiles(figures[key][name])
            cells.append(f"{med:.1f} ({q1:.1f}–{q3:.1f})" if key != "mcp" else f"{med:.2f} ({q1:.2f}–{q3:.2f})")
            if name == names[0]:
                continue

            def gain(values, base, higher):
                ratios = [v / b for v, b in zip(values, base) if b > 0 and v > 0]
                ratio = statistics.median(ratios)
                return (ratio - 1) * 100 if higher else (1 / ratio - 1) * 100
            text = f"{gain(figures[key][name], figures[key][names[0]], higher_is_better):+.1f}%"
            cpu = figures.get(key + "_cpu")
            if cpu and cpu[names[0]]:
                text += f" (CPU {gain(cpu[name], cpu[names[0]], False):+.1f}%)"
            changes.append(text)
        print(f"| {corpus} ({megabytes:.1f} MB) | {label} | " + " | ".join(cells) + " | " + " | ".join(changes) + " |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("binaries", nargs="+", help="notes binaries to compare (the first is the baseline)")
    ap.add_argument("-w", "--workspace")
    ap.add_argument("--corpus", action="append", help="headline A/B: a workspace folder (repeatable)")
    ap.add_argument("--rounds", type=int, default=12, help="headline A/B: rounds per corpus (default 12)")
    ap.add_argument("--calls", type=int, default=40, help="headline A/B: MCP search calls per session (default 40)")
    ap.add_argument("--runs", type=int, default=30, help="rounds (each runs every binary once; default 30)")
    ap.add_argument("--cmd", default="index", help='the notes command and its arguments (default "index")')
    ap.add_argument("--shared-index", action="store_true", help="with --cmd index: time no-op refreshes of one index")
    ap.add_argument("--control", action="store_true", help="run the first binary twice (A/A: the noise floor)")
    a = ap.parse_args()

    for binary in a.binaries:
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            sys.exit(f"ab.py: {binary} is not an executable file (build with scripts/build-release)")
    if a.corpus:
        for corpus in a.corpus:
            if not os.path.isdir(corpus):
                sys.exit(f"ab.py: no such corpus folder: {corpus}")
        letters = "ABCDEFGH"
        arms = [(f"{letters[i]}: {b}", os.path.abspath(b)) for i, b in enumerate(a.binaries)]
        arms.append((f"A again: {a.binaries[0]}", os.path.abspath(a.binaries[0])))
        headline(arms, a.corpus, a.rounds, a.calls)
        return
    if not a.workspace:
        sys.exit("ab.py: give --corpus FOLDER (headline A/B) or -w WORKSPACE (one command)")
    workspace = os.path.abspath(a.workspace)
    if not os.path.isdir(workspace):
        sys.exit(f"ab.py: no such workspace folder: {workspace}")
    command = shlex.split(a.cmd)
    first_build = command[:1] == ["index"] and not a.shared_index
    arms = [(f"{i}: {b}", os.path.abspath(b)) for i, b in enumerate(a.binaries)]
    if a.control:
        arms.append((f"A again: {a.binaries[0]}", os.path.abspath(a.binaries[0])))

    work = tempfile.mkdtemp(prefix="notes-ab-")
    # Words only, as in the headline run: an installed model would make `index` embed too.
    env = dict(os.environ, NO_COLOR="1", NOTES_NO_PROGRESS="1", NOTES_MODEL_DIR="/nonexistent/notes-ab-no-model")
    try:
        shared = os.path.join(work, "index")
        if not first_build:
            # One index for every arm, in the steady state.
            env["NOTES_INDEX_DIR"] = shared
            subprocess.run([arms[0][1], "index", "-w", workspace], env=env, stdout=subprocess.DEVNULL, check=True)
            time.sleep(2.5)
            subprocess.run([arms[0][1], "index", "-w", workspace], env=env, stdout=subprocess.DEVNULL, check=True)
        results = {name: ([], []) for name, _ in arms}
        failures = 0
        for r in range(a.runs):
            order = arms[r % len(arms):] + arms[:r % len(arms)]
            for name, binary in order:
                if first_build:
                    index_dir = os.path.join(work, "fresh")
                    shutil.rmtree(index_dir, ignore_errors=True)
                    env["NOTES_INDEX_DIR"] = index_dir
                    warm(workspace)
                else:
                    warm(workspace, shared)
                wall, cpu, status = measure([binary] + command + ["-w", workspace], env)
                if status not in (0, 1):  # 1: a search with no hits
                    failures += 1
                results[name][0].append(wall)
                results[name][1].append(cpu)
        print(f"{a.runs} alternating rounds of `notes {a.cmd}` on {workspace}"
              f" ({'a new index each run' if first_build else 'one shared index, steady state'}); load {os.getloadavg()[0]:.2f}")
        print("| binary | wall median ms (p25-p75, min) | cpu median ms | wall vs first | cpu vs first |")
        print("|---|---|---|---|---|")
        base_wall = statistics.median(results[arms[0][0]][0])
        base_cpu = statistics.median(results[arms[0][0]][1])
        for name, _ in arms:
            walls, cpus = results[name]
            low, q1, med, q3, _ = quartiles(walls)
            cpu = statistics.median(cpus)
            print(f"| {name} | {med:.1f} ({q1:.1f}-{q3:.1f}, {low:.1f}) | {cpu:.1f} | {med - base_wall:+.1f} | {cpu - base_cpu:+.1f} |")
        if failures:
            print(f"warning: {failures} runs exited with an error status", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
