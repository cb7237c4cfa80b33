#!/usr/bin/env python3
"""Alternating A/B timing of two or more `notes` binaries on one workspace (issue 7).

Usage:
    bench/ab.py BIN_A BIN_B [BIN ...] -w WORKSPACE [--runs 30] [--cmd "search whale"] [--control]

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("binaries", nargs="+", help="notes binaries to compare (the first is the baseline)")
    ap.add_argument("-w", "--workspace", required=True)
    ap.add_argument("--runs", type=int, default=30, help="rounds (each runs every binary once; default 30)")
    ap.add_argument("--cmd", default="index", help='the notes command and its arguments (default "index")')
    ap.add_argument("--shared-index", action="store_true", help="with --cmd index: time no-op refreshes of one index")
    ap.add_argument("--control", action="store_true", help="run the first binary twice (A/A: the noise floor)")
    a = ap.parse_args()

    for binary in a.binaries:
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            sys.exit(f"ab.py: {binary} is not an executable file (build with scripts/build-release)")
    workspace = os.path.abspath(a.workspace)
    if not os.path.isdir(workspace):
        sys.exit(f"ab.py: no such workspace folder: {workspace}")
    command = shlex.split(a.cmd)
    first_build = command[:1] == ["index"] and not a.shared_index
    arms = [(f"{i}: {b}", os.path.abspath(b)) for i, b in enumerate(a.binaries)]
    if a.control:
        arms.append((f"A again: {a.binaries[0]}", os.path.abspath(a.binaries[0])))

    work = tempfile.mkdtemp(prefix="notes-ab-")
    env = dict(os.environ, NO_COLOR="1", NOTES_NO_PROGRESS="1")
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
