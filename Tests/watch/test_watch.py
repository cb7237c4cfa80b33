"""`notes watch` through the real binary (docs/spec.md §4.3, issue 7): a saved file becomes
searchable, new folders are followed, a kernel event-queue overflow triggers a full rescan,
--poll works without inotify, and SIGINT/SIGTERM stop it cleanly. Standard library only."""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from notes_testing import REPO, notes_binary  # noqa: E402


class Watcher:
    """A running `notes watch --json` whose reports are read line by line."""

    def __init__(self, root: Path, env: dict, *extra: str):
        self.proc = subprocess.Popen([notes_binary(), "-w", str(root), "watch", "--json", *extra], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.start = self.next_report(30)

    def next_report(self, timeout: float = 10) -> dict:
        ready, _, _ = select.select([self.proc.stdout], [], [], max(timeout, 0))
        if not ready:
            raise AssertionError("no report within %.0f s" % timeout)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("notes watch exited: %s" % self.proc.stderr.read())
        return json.loads(line)

    def wait_for(self, predicate, timeout: float = 10) -> dict:
        deadline = time.time() + timeout
        while time.time() < deadline:
            report = self.next_report(deadline - time.time())
            if predicate(report):
                return report
        raise AssertionError("no matching report")

    def stop(self, sig=signal.SIGINT) -> int:
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code


class WatchTests(unittest.TestCase):
    def setUp(self):
        self.temp = Path(tempfile.mkdtemp(prefix="notes-watch-"))
        self.root = self.temp / "ws"
        shutil.copytree(REPO / "sample-workspace", self.root)
        self.env = dict(os.environ, NOTES_INDEX_DIR=str(self.temp / "index"), NO_COLOR="1", NOTES_MODEL_DIR="/nonexistent/notes-test-no-model")
        self.env.pop("NOTES_FIELD_WEIGHTS", None)

    def tearDown(self):
        shutil.rmtree(self.temp, ignore_errors=True)

    def search(self, query: str) -> list[str]:
        out = subprocess.run([notes_binary(), "-w", str(self.root), "search", query, "-l"], env=self.env,
                             capture_output=True, text=True)
        return out.stdout.split()

    def test_saved_file_is_searchable_and_new_folders_are_followed(self):
        watcher = Watcher(self.root, self.env)
        try:
            self.assertEqual(watcher.start["reason"], "start")
            started = time.perf_counter()
            (self.root / "quokka.md").write_text("# Quokka\n\nquokkaword lives here\n")
            report = watcher.wait_for(lambda r: r["report"]["added"] == 1)
            latency = time.perf_counter() - started
            self.assertEqual(report["reason"], "change")
            self.assertLess(latency, 5, "a save must be indexed promptly (measured in bench/, not asserted tightly here)")
            self.assertEqual(self.search("quokkaword"), ["quokka.md"])

            # A folder tree created at once, files inside it before and after its watch exists.
            deep = self.root / "Projects" / "new" / "deep"
            deep.mkdir(parents=True)
            (deep / "first.md").write_text("wombatword one\n")
            watcher.wait_for(lambda r: r["report"]["added"] >= 1)
            (deep / "second.md").write_text("wombatword two\n")
            watcher.wait_for(lambda r: r["report"]["added"] >= 1)
            self.assertEqual(sorted(self.search("wombatword")), ["Projects/new/deep/first.md", "Projects/new/deep/second.md"])

            # Edits, renames and deletes.
            (self.root / "quokka.md").write_text("# Quokka\n\nnow about numbats\n")
            watcher.wait_for(lambda r: r["report"]["modified"] == 1)
            os.rename(self.root / "quokka.md", self.root / "Projects" / "quokka.md")
            watcher.wait_for(lambda r: r["report"]["renames"])
            shutil.rmtree(self.root / "Projects" / "new")
            watcher.wait_for(lambda r: r["report"]["removed"] == 2)
            self.assertEqual(self.search("numbats"), ["Projects/quokka.md"])
            self.assertEqual(self.search("wombatword"), [])
        finally:
            self.assertEqual(watcher.stop(), 0)

    def test_queue_overflow_rescans_everything(self):
        watcher = Watcher(self.root, self.env)
        try:
            # A watched folder first; then freeze the watcher and make more events than the
            # kernel queues (16384 by default: each new file is create + modify + close).
            storm = self.root / "storm"
            storm.mkdir()
            watcher.wait_for(lambda r: r["reason"] == "change")
            watcher.proc.send_signal(signal.SIGSTOP)
            count = 6000
            for i in range(count):
                (storm / f"n{i}.md").write_text(f"stormword number {i}\n")
            watcher.proc.send_signal(signal.SIGCONT)
            report = watcher.wait_for(lambda r: r["reason"] == "overflow", timeout=60)
            self.assertEqual(report["report"]["added"], count)
            listed = subprocess.run([notes_binary(), "-w", str(self.root), "search", "stormword", "--limit", "10000", "-l"],
                                    env=self.env, capture_output=True, text=True).stdout.split()
            self.assertEqual(len(listed), count)
        finally:
            self.assertEqual(watcher.stop(signal.SIGTERM), 0)

    def test_polling_fallback_and_one_watcher_per_index(self):
        watcher = Watcher(self.root, self.env, "--poll", "0.2")
        try:
            # While a watcher runs, a second one is refused with a clear message.
            second = subprocess.run([notes_binary(), "-w", str(self.root), "watch"], env=self.env, capture_output=True, text=True, timeout=30)
            self.assertEqual(second.returncode, 2)
            self.assertIn("another notes watch", second.stderr)
            self.assertEqual(len(second.stderr.strip().splitlines()), 1, second.stderr)
            (self.root / "polled.md").write_text("pollword\n")
            report = watcher.wait_for(lambda r: r["report"]["added"] == 1)
            self.assertEqual(report["reason"], "poll")
            self.assertEqual(self.search("pollword"), ["polled.md"])
        finally:
            self.assertEqual(watcher.stop(), 0)

    def test_an_edit_of_the_config_file_is_followed(self):
        # A folder ignored when the watch starts, then not, then again: the watcher loads
        # the settings again (it looks once a second), rescans, and watches the folder.
        config = self.root / ".notes" / "config.yml"
        ignoring = 'ignore:\n  - "Archive/**"\n'
        config.write_text(ignoring)
        (self.root / "Archive").mkdir()
        (self.root / "Archive" / "old.md").write_text("# Old\n\nnumbatword archived\n")
        watcher = Watcher(self.root, self.env)
        try:
            self.assertEqual(self.search("numbatword"), [])
            config.write_text('ignore:\n  - "*.draft.md"\n')
            # Whether or not the watcher has looked yet, a search follows the new rules (a
            # reader trusts the watcher only under the settings it loaded itself).
            self.assertEqual(self.search("numbatword"), ["Archive/old.md"])
            self.assertEqual(watcher.wait_for(lambda r: r["reason"] == "config")["reason"], "config")
            (self.root / "Archive" / "new.md").write_text("numbatword new\n")
            report = watcher.wait_for(lambda r: r["report"]["added"] == 1)
            self.assertEqual(report["reason"], "change", "the folder no longer ignored is watched")
            self.assertEqual(sorted(self.search("numbatword")), ["Archive/new.md", "Archive/old.md"])
            config.write_text(ignoring)
            report = watcher.wait_for(lambda r: r["reason"] == "config")
            self.assertEqual(report["report"]["removed"], 2)
            self.assertEqual(self.search("numbatword"), [])
        finally:
            self.assertEqual(watcher.stop(), 0)

    def test_a_moved_workspace_stops_the_watch_with_one_line(self):
        # Every refresh reads the files at the workspace's path: once the folder is moved
        # (or deleted) the watcher would index nothing, silently; it stops and says why.
        watcher = Watcher(self.root, self.env)
        os.rename(self.root, self.temp / "moved")
        code = watcher.proc.wait(timeout=10)
        out, err = watcher.proc.stdout.read(), watcher.proc.stderr.read()
        watcher.proc.stdout.close()
        watcher.proc.stderr.close()
        self.assertEqual(code, 2, out + err)
        # --json: the error is the last JSON line on stdout, with a code.
        error = json.loads(out.strip().splitlines()[-1])["error"]
        self.assertEqual(error["code"], "not_found")
        # Which check sees it first (the watch loop, or the check before each refresh) is a
        # race; either says the same: the folder was moved or deleted.
        self.assertIn("was moved or deleted", error["message"])
        # Without --json: one line on stderr.
        (self.temp / "moved").rename(self.root)
        plain = subprocess.Popen([notes_binary(), "-w", str(self.root), "watch"], env=self.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        plain.stdout.readline()  # "watching N folders of …" once it is running
        os.rename(self.root, self.temp / "moved")
        _, err = plain.communicate(timeout=10)
        self.assertEqual(plain.returncode, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("was moved or deleted", err)

    def test_bad_options_are_one_line_errors(self):
        for args in (["--poll", "0"], ["--debounce", "-5"]):
            out = subprocess.run([notes_binary(), "-w", str(self.root), "watch", *args], env=self.env, capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 2, args)
            self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)


if __name__ == "__main__":
    unittest.main()
