import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Another process holding the index's write lock past the busy timeout (a long rebuild in
/// place, a stuck writer): commands say so in one line and what to do, and never replace
/// the database under the other process (it would go on writing into an unlinked file).
/// Real binary; the lock is held by Python's sqlite3 in a process of its own.
@Suite(.serialized) struct IndexBusyTests {
    /// A Python process holding `BEGIN IMMEDIATE` on `database` until told to commit a
    /// `meta` row it adds.
    final class LockHolder {
        let companion: PythonCompanion

        init(database: String) throws {
            companion = try PythonCompanion(
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
                c.execute("BEGIN IMMEDIATE")
                print("locked", flush=True)
                sys.stdin.readline()
                c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('probe', 'kept')")
                c.execute("COMMIT")
                print("committed", flush=True)
                """, arguments: [database])
            #expect(companion.readLine() == "locked")
        }

        /// Commits the row and ends; returns what the process said.
        func commit() -> String {
            companion.send("go")
            let said = companion.readLine()
            companion.waitUntilExit()
            return said
        }
    }

    let environment = ["NOTES_BUSY_TIMEOUT": "0.3"]

    @Test func aCommandThatMustWriteSaysTheIndexIsBusy() throws {
        let dir = TemporaryDirectory(prefix: "notes-busy")
        let ws = dir.copy(tree: Repository.sampleWorkspace, to: "ws")
        let index = dir.path + "/index"
        #expect(run(Repository.notesBinary, ["-w", ws, "--index-dir", index, "index"]).status == 0)
        let holder = try LockHolder(database: index + "/index.sqlite")
        // the refresh must write
        dir.write("ws/Research/new-note.md", "# New\n\nA harpoon and a whale.\n")
        let human = run(
            Repository.notesBinary, ["-w", ws, "--index-dir", index, "search", "whale", "-l"],
            environment: environment)
        #expect(human.status != 0)
        let lines = human.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(human.stderr)")
        #expect(
            human.stderr.contains("busy") && human.stderr.contains("another process"),
            "\(human.stderr)")
        #expect(
            !human.stderr.contains("--rebuild"),
            "rebuilding cannot help while another process writes: \(human.stderr)")
        let json = run(
            Repository.notesBinary, ["-w", ws, "--index-dir", index, "search", "whale", "--json"],
            environment: environment)
        let error = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(
            (error?["error"] as? [String: Any])?["code"] as? String == "busy",
            "\(json.stdout) \(json.stderr)")
        let message = (error?["error"] as? [String: Any])?["message"] as? String
        #expect(message?.contains("busy") == true, "\(json.stdout)")
        #expect(holder.commit() == "committed")
        // Once the other process is through, the same command works.
        let after = run(
            Repository.notesBinary, ["-w", ws, "--index-dir", index, "search", "harpoon", "-l"])
        #expect(
            after.status == 0 && after.stdout.contains("Research/new-note.md"),
            "\(after.stdout) \(after.stderr)")
    }

    @Test func checkingABusyIndexNeverReplacesIt() throws {
        let dir = TemporaryDirectory(prefix: "notes-busy-check")
        let ws = dir.copy(tree: Repository.sampleWorkspace, to: "ws")
        let index = dir.path + "/index"
        let database = index + "/index.sqlite"
        #expect(run(Repository.notesBinary, ["-w", ws, "--index-dir", index, "index"]).status == 0)
        let before = inode(database)
        #expect(before != 0)
        let holder = try LockHolder(database: database)
        let check = run(
            Repository.notesBinary, ["-w", ws, "--index-dir", index, "index", "--check"],
            environment: environment)
        #expect(check.status != 0, "a check that could not run is not a pass: \(check.stdout)")
        #expect(check.stderr.contains("busy"), "\(check.stderr)")
        #expect(
            !check.stdout.contains("damaged"), "a busy index is not a damaged one: \(check.stdout)")
        // The holder's write lands in the live database: it was not deleted under it.
        #expect(holder.commit() == "committed")
        #expect(inode(database) == before, "the database was replaced")
        let read = run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT value FROM meta WHERE key='probe'\").fetchone())",
                database,
            ])
        #expect(read.stdout == "('kept',)\n", "\(read.stdout) \(read.stderr)")
    }
}
