"""Bad input (reliability plan C.16, C.19-C.24) through the real binary: hostile front
matter, cmark's pathological shapes, odd encodings and line endings, special files named
`.md`, huge files and lines, and sync-client debris. Nothing may crash, block or run away
with memory; bodies stay searchable; malformed bytes are never rewritten."""

import json
import os
import socket
import sys
import time
import unittest
from pathlib import Path

from support import Workspace, notes, notes_with_peak_rss, one_clean_line, scaled, version_of


BOMB = "---\n" + "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8)) + "---\nbody bombword\n"

FRONT_MATTER = {
    "fm-list.md": b"---\n- a\n- b\n---\nbody listword\n",
    "fm-scalar.md": b"---\njust a scalar\n---\nbody scalarword\n",
    "fm-empty.md": b"---\n---\nbody emptyfmword\n",
    "fm-unterminated.md": b"---\ntitle: never closed\nbody unterminatedword\n",
    "fm-crlf.md": b"---\r\ntitle: Crlf Title\r\n---\r\nbody crlfword\r\n",
    "fm-bom.md": b"\xef\xbb\xbf---\ntitle: Bom Title\n---\nbody bomword\n",
    "fm-duplicate.md": b"---\ntitle: first\ntitle: second\n---\nbody duplicateword\n",
    "fm-tabs.md": b"---\ntitle:\tx\n\tbad: indent\n---\nbody tabword\n",
    "fm-bomb.md": BOMB.encode(),
    "fm-merge-loop.md": b"---\na: &a\n  b: 1\n  <<: *a\n---\nbody mergeword\n",
    "fm-deep.md": b"---\nk: " + b"[" * 5000 + b"]" * 5000 + b"\n---\nbody deepword\n",
    "fm-huge.md": b"---\nk: |\n" + b"  filler line of a huge front matter block\n" * 250_000 + b"---\nbody hugefmword\n",
    "fm-tags.md": b"---\nk: !!binary aGVsbG8=\nu: !custom thing\ntitle: !!str Tagged\n---\nbody tagword\n",
    "fm-invalid-utf8.md": b"---\ntitle: \xff\xfe broken\n---\nbody invalidfmword\n",
    "fm-provenance-garbage.md": b"---\ncreated_by: [1, 2]\ncreated_at: not-a-date\nlast_modified_by: robot\n---\nbody garbageprovword\n",
}

PATHOLOGICAL = {  # cmark's pathological shapes, large
    "cm-quotes.md": b"> " * 50_000 + b"quoteword\n",
    "cm-brackets.md": b"[" * 50_000 + b"bracketword" + b"]" * 50_000 + b"\n",
    "cm-emphasis.md": b"*a **a " * 30_000 + b"emphword\n",
    "cm-backticks.md": b"".join(b"`" * i + b"x" for i in range(1, 3000)) + b" tickword\n",
    "cm-links.md": b"[a](b " * 30_000 + b"linkword\n",
    "cm-refdefs.md": b"".join(b"[r%d]: /u%d\n" % (i, i) for i in range(30_000)) + b"\nrefword [r1]\n",
    "cm-lists.md": b"".join(b"  " * i + b"- item\n" for i in range(3000)) + b"listnestword\n",
    "cm-html.md": b"<a " * 30_000 + b"htmlword\n",
    "cm-entities.md": b"&#" * 30_000 + b" entityword\n",
    "cm-tables.md": b"| a |\n|---|\n" + b"| x |\n" * 30_000 + b"tableword\n",
}

ENCODINGS = {
    "enc-utf16.md": "\ufeff# UTF-16 title\n\nutf16word\n".encode("utf-16-le"),
    "enc-latin1.md": "# Caf\u00e9 latin\n\nlatinword na\u00efve\n".encode("latin-1"),
    "enc-nul.md": b"# Nul\n\nnulword\x00\x00 hidden\n",
    "enc-png.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + os.urandom(2000),
    "enc-empty.md": b"",
}


class HostileFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ws = Workspace()
        bad = cls.ws.root / "bad"
        bad.mkdir()
        for name, data in {**FRONT_MATTER, **PATHOLOGICAL, **ENCODINGS}.items():
            (bad / name).write_bytes(data)
        cls.originals = {name: data for name, data in {**FRONT_MATTER, **PATHOLOGICAL, **ENCODINGS}.items()}
        started = time.monotonic()
        cls.index, cls.peak_mb = notes_with_peak_rss("index", "--json", ws=cls.ws, timeout=300)
        cls.index_seconds = time.monotonic() - started

    @classmethod
    def tearDownClass(cls):
        cls.ws.cleanup()

    def test_indexing_finishes_with_bounded_time_and_memory(self):
        # Bounded time: the run's timeout (300 s) fails the test if indexing hangs; how fast
        # it is is measured in bench/, not asserted here.
        self.assertEqual(self.index.returncode, 0, self.index.stderr)
        self.assertLess(self.peak_mb, 400)
        report = json.loads(self.index.stdout)
        print(f"\nhostile corpus: {len(self.originals)} files indexed in {self.index_seconds:.2f} s, "
              f"peak RSS {self.peak_mb} MB, {len(report['diagnostics'])} diagnostics", file=sys.stderr)

    def test_bodies_stay_searchable(self):
        words = {"fm-list.md": "listword", "fm-scalar.md": "scalarword", "fm-empty.md": "emptyfmword",
                 "fm-unterminated.md": "unterminatedword", "fm-crlf.md": "crlfword", "fm-bom.md": "bomword",
                 "fm-duplicate.md": "duplicateword", "fm-tabs.md": "tabword", "fm-bomb.md": "bombword",
                 "fm-merge-loop.md": "mergeword", "fm-deep.md": "deepword", "fm-huge.md": "hugefmword",
                 "fm-tags.md": "tagword", "fm-provenance-garbage.md": "garbageprovword",
                 "cm-quotes.md": "quoteword", "cm-brackets.md": "bracketword", "cm-emphasis.md": "emphword",
                 "cm-backticks.md": "tickword", "cm-links.md": "linkword", "cm-refdefs.md": "refword",
                 "cm-lists.md": "listnestword", "cm-html.md": "htmlword", "cm-entities.md": "entityword",
                 "cm-tables.md": "tableword"}
        for name, word in words.items():
            with self.subTest(name=name):
                result = notes("search", word, "-l", ws=self.ws, timeout=60)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertIn(f"bad/{name}", result.stdout.split(), f"{word} not found")
        # Front matter titles are read where they parse, with CRLF and a BOM too.
        listing = json.loads(notes("list", "bad", "--json", ws=self.ws, check=True).stdout)
        titles = {f["path"]: f.get("title") for f in listing["files"]}
        self.assertEqual(titles["bad/fm-crlf.md"], "Crlf Title")
        self.assertEqual(titles["bad/fm-bom.md"], "Bom Title")

    def test_problems_are_recorded_and_provenance_never_invented(self):
        status = json.loads(notes("status", "--json", ws=self.ws, check=True).stdout)
        flagged = {d["path"] for d in status["index"]["diagnostics"]}
        for name in ["fm-list.md", "fm-scalar.md", "fm-unterminated.md", "fm-deep.md", "fm-invalid-utf8.md", "enc-png.md", "enc-utf16.md"]:
            self.assertIn(f"bad/{name}", flagged, name)
        for name in ["fm-list.md", "fm-scalar.md", "fm-provenance-garbage.md", "fm-bomb.md"]:
            read = notes("read", f"bad/{name}", "--json", ws=self.ws)
            self.assertEqual(read.returncode, 0, read.stderr)
            provenance = json.loads(read.stdout)["provenance"]
            self.assertNotEqual(provenance.get("created_by"), "agent", (name, provenance))
            self.assertIsNone(provenance.get("created_at") if name != "fm-provenance-garbage.md" else None)

    def test_binary_and_invalid_text_is_refused_not_rewritten(self):
        for name in ["enc-png.md", "enc-utf16.md", "enc-latin1.md", "enc-nul.md", "fm-invalid-utf8.md"]:
            with self.subTest(name=name):
                path = self.ws.root / "bad" / name
                read = notes("read", f"bad/{name}", ws=self.ws)
                if name in ("enc-latin1.md", "fm-invalid-utf8.md"):
                    # Text with invalid bytes is shown as the index decoded it (U+FFFD), with
                    # one line on stderr saying so (issue 31 item 10); it is still never rewritten.
                    self.assertEqual(read.returncode, 0, read.stderr)
                    self.assertIn("\ufffd", read.stdout)
                    self.assertEqual(len(read.stderr.strip().splitlines()), 1, read.stderr)
                else:
                    self.assertEqual(read.returncode, 2)
                    one_clean_line(self, read, name)
                    self.assertIn("not UTF-8 text", read.stderr)
                for args in [("append", f"bad/{name}", "more"), ("edit", f"bad/{name}", "--old", "word", "--new", "WORD")]:
                    result = notes(*args, ws=self.ws)
                    self.assertNotEqual(result.returncode, 0, args)
                    one_clean_line(self, result, f"{args}")
                self.assertEqual(path.read_bytes(), self.originals[name], f"{name} was rewritten")

    def test_malformed_front_matter_is_kept_byte_for_byte_on_append(self):
        for name in ["fm-list.md", "fm-scalar.md", "fm-unterminated.md", "fm-duplicate.md", "fm-tabs.md", "fm-deep.md"]:
            with self.subTest(name=name):
                path = self.ws.root / "bad" / name
                before = path.read_bytes()
                result = notes("append", f"bad/{name}", "appended line", ws=self.ws)
                self.assertEqual(result.returncode, 0, result.stderr)
                after = path.read_bytes()
                # The malformed block is untouched; only the end grew.
                self.assertTrue(after.startswith(before.rstrip(b"\n")), name)
                self.assertTrue(after.rstrip().endswith(b"appended line"), name)


class LineEndings(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()

    def tearDown(self):
        self.ws.cleanup()

    def test_edits_and_appends_keep_line_endings_and_bom(self):
        cases = {
            "crlf.md": b"---\r\ntitle: C\r\n---\r\none\r\ntwo\r\nthree\r\n",
            "mixed.md": b"one\r\ntwo\nthree\r\n",
            "lone-cr.md": b"one\rtwo\rthree\r",
            "bom-crlf.md": b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n",
        }
        for name, data in cases.items():
            with self.subTest(name=name):
                path = self.ws.root / name
                path.write_bytes(data)
                edit = notes("edit", name, "--old", "two", "--new", "TWO", ws=self.ws)
                self.assertEqual(edit.returncode, 0, edit.stderr)
                after = path.read_bytes()
                newline = b"\r\n" if b"\r\n" in data else (b"\r" if b"\r" in data and b"\n" not in data else b"\n")
                if name != "crlf.md":  # no front matter: exactly one region changed
                    self.assertEqual(after, data.replace(b"two", b"TWO"), name)
                else:
                    self.assertIn(b"one\r\nTWO\r\nthree\r\n", after)
                    self.assertNotIn(b"\n", after.replace(b"\r\n", b""), "a bare LF appeared")
                append = notes("append", name, "four", ws=self.ws)
                self.assertEqual(append.returncode, 0, append.stderr)
                grown = path.read_bytes()
                self.assertTrue(grown.endswith(b"four" + newline), (name, grown[-20:]))
                self.assertEqual(grown.startswith(b"\xef\xbb\xbf"), data.startswith(b"\xef\xbb\xbf"))


class SpecialFiles(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()
        special = self.ws.root / "special"
        special.mkdir()
        os.mkfifo(special / "fifo.md")
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.bind(str(special / "socket.md"))
        os.symlink("/dev/zero", special / "zero.md")
        (special / "folder.md").mkdir()
        (special / "folder.md" / "inner.md").write_text("innerword\n")
        os.symlink("loop-b.md", special / "loop-a.md")
        os.symlink("loop-a.md", special / "loop-b.md")
        (special / "locked.md").write_text("lockedword\n")
        os.chmod(special / "locked.md", 0)
        # A 1 TB sparse file and a 60 MB single line, over the size caps.
        with open(special / "sparse.md", "wb") as f:
            f.truncate(1 << 40)
        (special / "longline.md").write_bytes(b"x" * (60 << 20) + b" longlineword\n")
        (special / "many-lines.md").write_bytes(b"".join(b"line %d\n" % i for i in range(scaled(1_000_000, 5_000_000))))

    def tearDown(self):
        self.sock.close()
        os.chmod(self.ws.root / "special" / "locked.md", 0o644)
        self.ws.cleanup()

    def test_special_files_never_block_and_huge_files_are_capped(self):
        # A special file that blocked the walk would hang indexing: the timeout fails the test.
        started = time.monotonic()
        index = notes("index", "--json", ws=self.ws, timeout=120)
        seconds = time.monotonic() - started
        self.assertEqual(index.returncode, 0, index.stderr)
        report = json.loads(index.stdout)
        reasons = {d["path"]: d["message"] for d in report["diagnostics"]}
        self.assertIn("special/fifo.md", reasons)
        self.assertIn("special/socket.md", reasons)
        self.assertIn("special/sparse.md", reasons)
        # The 60 MB line is under the 64 MB index cap: indexed, in bounded time.
        self.assertIn("special/longline.md", notes("search", "longlineword", "-l", ws=self.ws).stdout)
        self.assertIn("folder.md/inner.md", notes("search", "innerword", "-l", ws=self.ws).stdout)
        for name, code_text in [("fifo.md", "not a regular file"), ("socket.md", "not a regular file"), ("zero.md", "outside the workspace"),
                                ("loop-a.md", "broken symlink"), ("sparse.md", "MB")]:
            with self.subTest(name=name):
                read = notes("read", f"special/{name}", ws=self.ws, timeout=30)
                self.assertEqual(read.returncode, 2, read.stdout[:100])
                one_clean_line(self, read, name)
                self.assertIn(code_text, read.stderr)
        # A big file is read a page at a time.
        page = notes("read", "special/many-lines.md", "--offset", "500000", "--limit", "3", "--json", ws=self.ws)
        self.assertEqual(page.returncode, 0, page.stderr)
        self.assertEqual(json.loads(page.stdout)["content"], "line 499999\nline 500000\nline 500001\n")
        # Writes onto special files are refused, the files left as they are.
        for name in ["fifo.md", "zero.md", "loop-a.md", "folder.md"]:
            result = notes("write", f"special/{name}", ws=self.ws, stdin="x\n", timeout=30)
            self.assertEqual(result.returncode, 2, name)
            one_clean_line(self, result, name)
        self.assertTrue((self.ws.root / "special" / "zero.md").is_symlink())
        print(f"\nspecial files: indexed in {seconds:.2f} s; {len(reasons)} skipped with a reason", file=sys.stderr)


class SyncDebris(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()

    def tearDown(self):
        self.ws.cleanup()

    def test_debris_is_invisible_and_conflict_copies_are_reported(self):
        root = self.ws.root / "sync"
        root.mkdir()
        (root / "a.md").write_text("# A\n\nrealword\n")
        debris = ["a.sync-conflict-20260101-120000-ABCDEFG.md", "a (Ann's conflicted copy 2026-01-01).md", ".a.md.icloud",
                  ".syncthing.a.md.tmp", "~syncthing~a.md.tmp", ".dat.nosync1A.x", ".stversions/a.md", ".DS_Store",
                  ".a.md.swp", "4913", "a.md~"]
        for name in debris:
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("# Debris\n\ndebrisword\n")
        os.symlink("root@host.1234", root / ".#a.md")
        result = notes("index", "--json", ws=self.ws)
        self.assertEqual(result.returncode, 0, result.stderr)
        listing = notes("list", "sync", "--recursive", "--json", ws=self.ws, check=True)
        self.assertEqual([f["path"] for f in json.loads(listing.stdout)["files"]], ["sync/a.md"])
        self.assertEqual(notes("search", "debrisword", "-l", ws=self.ws).stdout.strip(), "")
        status = json.loads(notes("status", "--json", ws=self.ws, check=True).stdout)
        conflicts = json.dumps(status["conflict_copies"])
        self.assertIn("sync-conflict", conflicts)
        self.assertIn("conflicted copy", conflicts)
        # A write to a.md goes ahead with a warning naming the copies, which stay.
        write = notes("write", "sync/a.md", "--json", ws=self.ws, stdin="# A\n\nnew text\n")
        self.assertEqual(write.returncode, 0, write.stderr)
        warnings = " ".join(json.loads(write.stdout)["warnings"])
        self.assertIn("a.sync-conflict-20260101-120000-ABCDEFG.md", warnings)
        self.assertIn("conflicted copy", warnings)
        for name in debris:
            self.assertTrue((root / name).exists(), f"{name} was removed")


if __name__ == "__main__":
    unittest.main()
