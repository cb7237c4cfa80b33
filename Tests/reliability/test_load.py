"""Load and concurrency (reliability plan A.1-A.3, A.6) with the real binary: the CLI and
an MCP server doing read-modify-write cycles on the same files, an editor that writes
without any lock, readers during writes, and an event storm under `notes watch`."""

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import unittest
from pathlib import Path

from support import SOAK, Workspace, call, notes, notes_binary, scaled, session, version_of

FILES = [f"shared/f{i}.md" for i in range(6)]


def log_records(ws: Workspace) -> list[dict]:
    path = ws.root / ".notes" / "history" / "log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def cli_cycles(ws: Workspace, cycles: int, worker: str, acknowledged: list, refused: list, failures: list, stop: threading.Event):
    """The person's side: `notes read --json`, then `notes write --expected-version`."""
    rng = random.Random(worker)
    for i in range(cycles):
        if stop.is_set():
            return
        path = rng.choice(FILES)
        read = notes("read", path, "--json", ws=ws)
        if read.returncode != 0:
            failures.append(f"read {path}: {read.stderr.strip()}")
            continue
        current = json.loads(read.stdout)
        token = f"{worker}-{i}"
        write = notes("write", path, "--expected-version", current["version"], "--json", ws=ws,
                      stdin=current["content"] + token + "\n")
        if write.returncode == 0:
            acknowledged.append((path, token))
        elif '"stale_version"' in write.stdout:
            refused.append(token)
        else:
            failures.append(f"write {path}: {write.stdout.strip()} {write.stderr.strip()}")


class TwoWriters(unittest.IsolatedAsyncioTestCase):
    """The CLI (as the person) and an MCP server (as the agent) on the same six files, plus
    an editor that rewrites them in place and by rename without taking any lock."""

    async def asyncSetUp(self):
        self.ws = Workspace()
        (self.ws.root / "shared").mkdir()
        for path in FILES:
            (self.ws.root / path).write_text(f"# {path}\n\n")

    async def asyncTearDown(self):
        self.ws.cleanup()

    async def test_no_update_is_lost(self):
        ws = self.ws
        cycles = scaled(50, 5000, 150)
        acknowledged, refused, failures = [], [], []
        stop = threading.Event()
        editor_versions: list[tuple[str, str]] = []

        def editor():
            # VS Code-style truncate + write, then vim-style write-new + rename, every 50 ms.
            rng = random.Random(7)
            n = 0
            while not stop.is_set():
                n += 1
                path = ws.root / rng.choice(FILES)
                try:
                    text = path.read_text() + f"editor-{n}\n"
                except FileNotFoundError:
                    continue
                if n % 2:
                    with open(path, "r+") as f:
                        f.truncate(0)
                        f.write(text)
                else:
                    tmp = path.with_name(f".{path.name}.swp")
                    tmp.write_text(text)
                    os.rename(tmp, path)
                editor_versions.append((str(path.relative_to(ws.root)), f"editor-{n}"))
                time.sleep(0.05)

        cli = threading.Thread(target=cli_cycles, args=(ws, cycles, "cli", acknowledged, refused, failures, stop))
        ed = threading.Thread(target=editor)
        agent_ack, agent_refused, agent_failures = [], [], []
        async with session(ws) as s:
            cli.start()
            ed.start()
            rng = random.Random(3)
            for i in range(cycles):
                path = rng.choice(FILES)
                current = await call(s, "read_file", path=path)
                token = f"agent-{i}"
                result = await s.call_tool("write_file", {"path": path, "content": current["content"] + token + "\n",
                                                          "expected_version": current["version"], "confirm_user_edits": True})
                payload = json.loads(result.content[0].text)
                if not result.is_error:
                    agent_ack.append((path, token))
                elif payload["code"] == "stale_version":
                    agent_refused.append(token)
                else:
                    agent_failures.append(payload)
            cli.join()
            stop.set()
            ed.join()
            final_search = {}
            for path, token in (agent_ack + acknowledged)[-40:]:
                hits = await call(s, "search", query=f'"{token}"', limit=5)
                final_search[token] = [h["path"] for h in hits["hits"]]
        self.assertEqual(failures, [])
        self.assertEqual(agent_failures, [])
        # No lost update: each acknowledged token is in its file (every write appends to what it read).
        finals = {path: (ws.root / path).read_text() for path in FILES}
        missing = [t for p, t in acknowledged + agent_ack if f"{t}\n" not in finals[p]]
        # The lock-ignoring editor may overwrite a token (its own read-modify-write raced
        # notes'): that version must still be in history, never gone.
        objects = ws.root / ".notes" / "history" / "objects"
        stored = "".join(o.read_text(errors="replace") for o in objects.rglob("*") if o.is_file()) if missing else ""
        lost = [t for t in missing if f"{t}\n" not in stored]
        self.assertEqual(lost, [], "acknowledged writes lost")
        # Every acknowledged write is one log record by its actor.
        records = log_records(ws)
        by_client = {}
        for r in records:
            by_client[(r["actor"], r["op"])] = by_client.get((r["actor"], r["op"]), 0) + 1
        agent_writes = sum(n for (actor, op), n in by_client.items() if actor == "agent" and op in ("write", "create"))
        self.assertEqual(agent_writes, len(agent_ack), by_client)
        # Every editor version that notes replaced is in history (logged as the person's outside edit).
        history_versions = {r.get("before") for r in records} | {r.get("after") for r in records}
        for r in records:
            if r.get("before"):
                self.assertTrue((objects / r["before"][:2] / r["before"][2:]).exists(), r)
        # Search answers from the files as they are now: every recent token still in its
        # file is found there; one the editor overwrote is not (it lives only in history).
        for (path, token) in (agent_ack + acknowledged)[-40:]:
            if f"{token}\n" in finals[path]:
                self.assertIn(path, final_search[token], f"{token} is in {path} but search misses it")
            else:
                self.assertNotIn(path, final_search[token], f"{token} was overwritten in {path} but search finds it")
        self.assertGreater(len(agent_ack), 0)
        self.assertGreater(len(acknowledged), 0)
        print(f"\ntwo writers + editor: agent {len(agent_ack)} written / {len(agent_refused)} stale; "
              f"cli {len(acknowledged)} written / {len(refused)} stale; editor {len(editor_versions)} writes; "
              f"0 lost ({len(missing)} overwritten by the editor, kept in history); {len(history_versions)} versions in history", file=sys.stderr)


class ReadersDuringWrites(unittest.TestCase):
    """Readers search and read while writers write (plan A.3): every read returns bytes
    that were written at some point, and no `database is locked` reaches anyone."""

    def setUp(self):
        self.ws = Workspace()
        (self.ws.root / "shared").mkdir()
        for path in FILES:
            (self.ws.root / path).write_text(f"# {path}\n\nversion 0\n")
        notes("index", ws=self.ws, check=True)

    def tearDown(self):
        self.ws.cleanup()

    def test_no_reader_sees_a_torn_file_or_a_locked_database(self):
        ws = self.ws
        # Each writer writes this many times; the readers read and search until both are done.
        writes_each = scaled(15, 3000, 60)
        done = threading.Event()
        written: set[str] = {version_of((ws.root / p).read_bytes()) for p in FILES}
        lock = threading.Lock()
        problems: list[str] = []
        counts = {"reads": 0, "searches": 0, "writes": 0}

        def writer(worker: int):
            for n in range(1, writes_each + 1):
                path = FILES[(n + worker) % len(FILES)]
                text = f"# {path}\n\nversion {worker}-{n} " + "padding " * random.randint(10, 3000) + "\n"
                with lock:
                    written.add(version_of(text.encode()))
                result = notes("write", path, ws=ws, stdin=text)
                if result.returncode != 0:
                    problems.append(f"write: {result.stderr.strip()}")
                counts["writes"] += 1

        def reader(worker: int):
            n = 0
            while n == 0 or not done.is_set():
                n += 1
                if n % 2:
                    result = notes("read", FILES[n % len(FILES)], "--json", ws=ws)
                    if result.returncode == 0:
                        content = json.loads(result.stdout)["content"]
                        with lock:
                            known = version_of(content.encode()) in written
                        if not known:
                            problems.append(f"read returned bytes nobody wrote: {content[:60]!r}")
                    counts["reads"] += 1
                else:
                    result = notes("search", "version", "-l", ws=ws)
                    counts["searches"] += 1
                if result.returncode != 0 or "locked" in result.stderr:
                    # --json errors go to stdout: keep both, and the exit status.
                    problems.append(f"reader: exit {result.returncode}: {result.stderr.strip()} {result.stdout.strip()[:300]}")

        writers = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
        readers = [threading.Thread(target=reader, args=(i,)) for i in range(scaled(4, 8))]
        for t in writers + readers:
            t.start()
        for t in writers:
            t.join()
        done.set()
        for t in readers:
            t.join()
        self.assertEqual(problems, [])
        print(f"\nreaders during writes: {counts}, 0 torn reads, 0 'database is locked'", file=sys.stderr)


class EventStorm(unittest.TestCase):
    """10,000 file changes in about a second under `notes watch`, the inotify queue made to
    overflow (plan A.6): after quiescence the index equals the files."""

    def setUp(self):
        self.ws = Workspace()

    def tearDown(self):
        self.ws.cleanup()

    def test_index_equals_files_after_the_storm(self):
        ws = self.ws
        storm = ws.root / "storm"
        storm.mkdir()
        count = scaled(10_000, 50_000)
        for i in range(0, count, 2):
            (storm / f"s{i}.md").write_text(f"before{i}\n")
        notes("index", ws=ws, check=True)
        watcher = subprocess.Popen([notes_binary(), "-w", str(ws.root), "--index-dir", str(ws.index), "watch", "--json"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        rounds: list[dict] = []
        started_watching, rescanned = threading.Event(), threading.Event()

        def read_rounds():
            for line in watcher.stdout:
                rounds.append(json.loads(line))
                if rounds[-1]["reason"] == "start":
                    started_watching.set()
                if rounds[-1]["reason"] == "overflow":
                    rescanned.set()
            started_watching.set()
            rescanned.set()

        reader = threading.Thread(target=read_rounds)
        reader.start()
        try:
            self.assertTrue(started_watching.wait(120) and rounds, "notes watch did not start")
            files_before = rounds[0]["report"]["files"]
            # Pause the watcher so the kernel queue overflows, as a busy machine would.
            watcher.send_signal(signal.SIGSTOP)
            started = time.time()
            for i in range(count):
                path = storm / f"s{i}.md"
                if i % 4 == 0:
                    path.unlink(missing_ok=True)          # deleted
                elif i % 2 == 0:
                    path.write_text(f"after{i}\n")        # modified
                else:
                    path.write_text(f"created{i}\n")      # created
            storm_seconds = time.time() - started
            watcher.send_signal(signal.SIGCONT)
            # Quiescence: the watcher reports its rescan (the bound only keeps a hang from
            # hanging the suite).
            self.assertTrue(rescanned.wait(300), "no rescan reported after the overflow")
        finally:
            watcher.send_signal(signal.SIGCONT)
            watcher.send_signal(signal.SIGINT)
            watcher.wait(timeout=60)
            reader.join()
            err = watcher.stderr.read()
        self.assertEqual(watcher.returncode, 0, err)
        expected = {f"storm/s{i}.md" for i in range(count) if i % 4 != 0}
        overflow = [r for r in rounds if r["reason"] == "overflow"]
        self.assertTrue(overflow, rounds[-3:])
        # The watcher's own rescan indexed exactly the files there are now.
        self.assertEqual(overflow[-1]["report"]["files"], files_before - count // 4 + count // 2)
        listing = json.loads(notes("list", "storm", "--json", ws=ws, check=True).stdout)
        self.assertEqual({e["path"] for e in listing["files"]}, expected)
        for i in (1, 2, 3, 4, count - 2, count - 1):
            word = "created" if i % 2 else ("after" if i % 4 else None)
            hits = notes("search", f"{word}{i}" if word else f"before{i}", "-l", ws=ws).stdout.split()
            self.assertEqual(hits, [f"storm/s{i}.md"] if word else [], i)
        print(f"\nevent storm: {count} changes in {storm_seconds:.2f} s, overflow reported, index == files", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
