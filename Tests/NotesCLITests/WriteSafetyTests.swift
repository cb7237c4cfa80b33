import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Faults and load against the real binary (reliability plan A.1, B.8, B.9, B.14).
@Suite(.serialized) struct WriteSafetyTests {
    func bytes(_ path: String) -> [UInt8] {
        (FileManager.default.contents(atPath: path)).map(Array.init) ?? []
    }

    func version(_ bytes: [UInt8]) -> String { ContentVersion(of: bytes).short }

    func temporaryFiles(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasPrefix(".notes-tmp.")
        }
    }

    /// Runs `notes ARGUMENTS` held inside its write at `pause` (`NOTES_PAUSE_AT`, e.g.
    /// `intent-written:0.8`); `meanwhile` runs 0.3 s after it started, while it is held.
    /// Returns its exit status and standard error.
    func runHeld(_ arguments: [String], at pause: String, meanwhile: () throws -> Void) throws -> (
        status: Int32, stderr: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repository.notesBinary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["NOTES_PAUSE_AT": pause])
        { $1 }
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 0.3)
        try meanwhile()
        let message = String(
            decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    /// Appends `line` to the file at `path` in place, as an editor's save would change it.
    func editorAppends(_ line: String, to path: String) throws {
        let editor = try #require(FileHandle(forWritingAtPath: path))
        editor.seekToEndOfFile()
        editor.write(Data(line.utf8))
        try editor.close()
    }

    /// `kill -9` at random moments (50 rounds; 200 in CI, 1,000 in the soak) while `notes write` replaces a file of up to several
    /// MB: the file is always exactly the old or the new bytes, temp files are never listed
    /// and are cleaned by the next write, and every replaced version is in history.
    @Test(.tags(.reliability), .reliabilityRun) func killDuringWritesLeavesOldOrNewBytes() throws {
        let dir = TemporaryDirectory(prefix: "notes-kill")
        dir.write("ws/.notes/config.yml", "")
        let ws = dir.path + "/ws"
        let target = ws + "/Research/big.md"
        dir.write("ws/Research/big.md", "# start\n")
        var rng = SystemRandomNumberGenerator()
        // Sources of new content: distinct, from 0 bytes to 10 MB.
        var sources: [String] = [dir.write("src-empty.md", "")]
        for i in 0..<5 {
            let line = "line of version \(i) " + String(repeating: "x", count: 60) + "\n"
            sources.append(
                dir.write(
                    "src\(i).md",
                    String(repeating: line, count: [10, 1_000, 20_000, 60_000, 128_000][i])))
        }
        // Time one whole write, so kills land before, during and after the write protocol.
        let clock = Date()
        #expect(
            run(
                Repository.notesBinary,
                ["-w", ws, "write", "Research/big.md", "--from", sources[5]]
            ).status == 0)
        // The window follows the outcomes, so both keep happening however fast or loaded the
        // machine is: narrower after a write that completed, wider after a kill.
        var span = UInt32(max(0.02, Date().timeIntervalSince(clock) * 1.3) * 1e6)
        var seen = Set<String>([version(bytes(target))])
        var killed = 0
        var completed = 0
        for round in 0..<soakScaled(50, 1_000, campaign: 200) {
            let before = bytes(target)
            let source = sources[round % sources.count]
            let new = bytes(source)
            let process = try launchNotes(["-w", ws, "write", "Research/big.md", "--from", source])
            usleep(UInt32.random(in: 0...span, using: &rng))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal {
                killed += 1
                span = min(span + span / 8, 20_000_000)
            } else {
                #expect(process.terminationStatus == 0, "round \(round): the write failed")
                completed += 1
                span = max(span - span / 4, 1_000)
            }
            let after = bytes(target)
            #expect(
                after == before || after == new,
                "round \(round): the file is neither the old nor the new bytes")
            seen.insert(version(after))
            let listing = run(
                Repository.notesBinary,
                ["-w", ws, "--index-dir", dir.path + "/index", "list", "Research", "--json"])
            #expect(!listing.stdout.contains(".notes-tmp."))
        }
        // The next write completes any half-recorded change and removes dead writers' temp files.
        let final = run(
            Repository.notesBinary,
            ["-w", ws, "write", "Research/big.md", "--from", dir.write("final.md", "# final\n")])
        #expect(final.status == 0, "\(final.stderr)")
        #expect(temporaryFiles(in: ws + "/Research").isEmpty)
        // Every version the file had is retrievable from history.
        let history = run(
            Repository.notesBinary, ["-w", ws, "history", "Research/big.md", "--json"])
        for v in seen {
            #expect(
                FileManager.default.fileExists(
                    atPath: ws + "/.notes/history/objects/\(v.prefix(2))/\(v.dropFirst(2))"),
                "version \(v) missing from history")
        }
        #expect(history.status == 0)
        #expect(
            killed > 0 && completed > 0,
            "killed \(killed), completed \(completed): the rounds did not exercise both outcomes")
        print("kill test: \(killed) killed, \(completed) completed, \(seen.count) versions seen")
    }

    /// A crash after each step of the write protocol: the file is old or new, and the log
    /// has the change exactly when the file has the new bytes.
    @Test func crashAtEachStepIsRecoveredByTheNextWriter() throws {
        for step in ["history-stored", "intent-written", "temporary-synced", "renamed", "logged"] {
            let dir = TemporaryDirectory(prefix: "notes-crash")
            dir.write("ws/.notes/config.yml", "")
            let ws = dir.path + "/ws"
            dir.write("ws/a.txt", "old\n")
            let source = dir.write("new.txt", "new\n")
            let crashed = run(
                Repository.notesBinary, ["-w", ws, "write", "a.txt", "--from", source],
                environment: ["NOTES_CRASH_AT": step])
            #expect(crashed.status != 0, "\(step): the process was meant to die")
            let content = String(decoding: bytes(ws + "/a.txt"), as: UTF8.self)
            // Before the document's rename the file is old; from it on, new (the steps are
            // the document's, not those of the history object or intent written before it).
            #expect(
                content == (["renamed", "logged"].contains(step) ? "new\n" : "old\n"), "\(step)")
            // Any later writer first completes or discards the half-made change.
            #expect(run(Repository.notesBinary, ["-w", ws, "append", "b.txt", "x"]).status == 0)
            let log = run(Repository.notesBinary, ["-w", ws, "log", "a.txt", "--jsonl"]).stdout
            #expect(
                log.contains("\"after\":\"\(version(Array("new\n".utf8)))\"")
                    == (content == "new\n"), "\(step): log and file disagree")
            #expect(temporaryFiles(in: ws).isEmpty, "\(step)")
        }
    }

    /// An editor saves the file between an append's read and its rename (the append is held
    /// there: NOTES_PAUSE_AT): the guarded rename refuses, and the append reads again and
    /// appends again — appending never conflicts (docs/spec.md §6.2) — keeping the editor's text.
    @Test func anAppendMeetingAnEditorsSaveReadsAgainAndAppends() throws {
        let dir = TemporaryDirectory(prefix: "notes-append-race")
        dir.write("ws/.notes/config.yml", "")
        let ws = dir.path + "/ws"
        let path = dir.write("ws/notes.md", "# Notes\n\nfirst\n")
        _ = run(Repository.notesBinary, ["-w", ws, "append", "notes.md", "second"])
        let append = try runHeld(
            ["-w", ws, "append", "notes.md", "from notes"], at: "intent-written:0.8"
        ) {
            try editorAppends("an editor's line\n", to: path)
        }
        #expect(append.status == 0, "\(append.stderr)")
        let text = String(decoding: bytes(path), as: UTF8.self)
        #expect(text.contains("an editor's line\n") && text.hasSuffix("from notes\n"), "\(text)")
        // The editor's version went into history (as the person's) before the append.
        let log = run(Repository.notesBinary, ["-w", ws, "log", "notes.md", "--jsonl"]).stdout
        #expect(log.contains("\"op\":\"external\""), "\(log)")
    }

    /// The same for an exact-text edit: run again on the editor's version, the replaced text
    /// still matches once, so the edit applies and the editor's line stays.
    @Test func anEditMeetingAnEditorsSaveReadsAgainAndApplies() throws {
        let dir = TemporaryDirectory(prefix: "notes-edit-race")
        dir.write("ws/.notes/config.yml", "")
        let ws = dir.path + "/ws"
        let path = dir.write("ws/notes.md", "# Notes\n\nfirst line\nsecond line\n")
        let edit = try runHeld(
            ["-w", ws, "edit", "notes.md", "--old", "first line", "--new", "first line, edited"],
            at: "intent-written:0.8"
        ) {
            try editorAppends("an editor's line\n", to: path)
        }
        #expect(edit.status == 0, "\(edit.stderr)")
        let text = String(decoding: bytes(path), as: UTF8.self)
        #expect(text.contains("first line, edited\nsecond line\nan editor's line\n"), "\(text)")
    }

    /// `notes gc` while a restore of an old version is between its rename and its log line
    /// (held there: NOTES_PAUSE_AT). The restored version's object is old and, until that
    /// line exists, referenced by nothing recent: gc waits for the change (it takes the
    /// workspace lock) and keeps the version the file now has.
    @Test func gcDuringARestoreKeepsTheRestoredVersion() throws {
        let dir = TemporaryDirectory(prefix: "notes-gc-race")
        dir.write("ws/.notes/config.yml", "")
        let ws = dir.path + "/ws"
        for text in ["one\n", "two\n", "three\n"] {
            #expect(
                run(Repository.notesBinary, ["-w", ws, "write", "a.txt"], stdin: text).status == 0)
        }
        let first = version(Array("one\n".utf8))
        let object = ws + "/.notes/history/objects/\(first.prefix(2))/\(first.dropFirst(2))"
        #expect(FileManager.default.fileExists(atPath: object))
        // every record and object so far is older than gc's cutoff
        Thread.sleep(forTimeInterval: 2.2)
        var gc: ProcessResult?
        let restore = try runHeld(
            ["-w", ws, "restore", "a.txt", "--version", first], at: "renamed:1.0"
        ) {
            gc = run(Repository.notesBinary, ["-w", ws, "gc", "--older-than", "1s"])
        }
        #expect(restore.status == 0 && gc?.status == 0, "\(gc?.stderr ?? "")")
        #expect(bytes(ws + "/a.txt") == Array("one\n".utf8))
        #expect(
            FileManager.default.fileExists(atPath: object),
            "the file's current version was dropped from history")
        #expect(run(Repository.notesBinary, ["-w", ws, "index", "--check"]).status == 0)
    }

    /// Two processes doing read-modify-write cycles (300 each; 1,000 in CI and the soak) on the same files with the
    /// version they read as precondition: no lost update, and every acknowledged write is
    /// one history entry.
    @Test(.tags(.reliability), .reliabilityRun) func twoWritersLoseNoUpdate() throws {
        let dir = TemporaryDirectory(prefix: "notes-rmw")
        dir.write("ws/.notes/config.yml", "")
        let ws = dir.path + "/ws"
        let files = (0..<4).map { "shared/f\($0).md" }
        let cycles = soakScaled(300, 1_000, campaign: 1_000)
        for file in files { dir.write("ws/" + file, "# \(file)\n") }
        let stress = (Repository.notesBinary as NSString).deletingLastPathComponent + "/NotesStress"
        try #require(
            FileManager.default.isExecutableFile(atPath: stress),
            "build NotesStress first (scripts/test does)")
        let workers = try ["a", "b"].map { name -> (Process, Pipe) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: stress)
            process.arguments = [ws, String(cycles), name] + files
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            return (process, out)
        }
        var tokens: [String] = []
        var staleTotal = 0
        for (process, out) in workers {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let summary = try #require(
                try JSONSerialization.jsonObject(with: data) as? [String: Any])
            tokens += summary["written"] as? [String] ?? []
            staleTotal += summary["stale"] as? Int ?? 0
            #expect(
                (summary["failures"] as? [String] ?? ["?"]).isEmpty, "\(summary["failures"] ?? "")")
        }
        let final = files.map { String(decoding: bytes(ws + "/" + $0), as: UTF8.self) }.joined()
        for token in tokens { #expect(final.contains(token + "\n"), "lost update: \(token)") }
        let log = String(decoding: bytes(ws + "/.notes/history/log.jsonl"), as: UTF8.self)
        let writes = log.split(separator: "\n").filter { $0.contains("\"client\":\"stress-") }
        #expect(
            writes.count == tokens.count,
            "history has \(writes.count) writes for \(tokens.count) acknowledged")
        #expect(tokens.count + staleTotal == 2 * cycles)
        print(
            "two writers: \(tokens.count) writes acknowledged, \(staleTotal) refused as stale, 0 lost"
        )
    }

    /// What the history log says each path holds now (nil: deleted or moved away).
    func loggedVersions(_ ws: String) throws -> [String: String?] {
        var state: [String: String?] = [:]
        let log = String(decoding: bytes(ws + "/.notes/history/log.jsonl"), as: UTF8.self)
        for line in log.split(separator: "\n") where !line.isEmpty {
            let record = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try #require(record["path"] as? String)
            if let to = record["to"] as? String {
                state[path] = .some(nil)
                state[to] = .some(record["after"] as? String)
            } else {
                state[path] = .some(record["after"] as? String)
            }
        }
        return state
    }

    /// I/O errors (ENOSPC, EIO, EACCES) injected at the 1st, 2nd, … system call of the
    /// write path, once and persistently, for every kind of change (reliability plan B.12):
    /// the command fails with one line, the file is exactly the old bytes (and the message
    /// does not say otherwise) or exactly the new bytes (and the message says the change
    /// was made), the index never shows a change that did not happen, and the next write
    /// leaves the history log in agreement with the files and no temporary file behind.
    @Test(.tags(.reliability), .reliabilityRun) func ioErrorsAtEveryCallLeaveOldBytesOrSaySo()
        throws
    {
        let old = "---\ntitle: A\n---\n# A\n\nOLDTOKEN line\n"
        let new = "# A\n\nNEWTOKEN line\n"
        struct Change {
            let name: String
            let arguments: [String]
            let paths: [String]
        }
        let changes = [
            Change(
                name: "replace", arguments: ["write", "a.md", "--from", "SRC"], paths: ["a.md"]),
            Change(
                name: "create in new folders",
                arguments: ["write", "deep/new/b.md", "--from", "SRC"], paths: ["deep/new/b.md"]),
            Change(
                name: "append", arguments: ["append", "a.md", "NEWTOKEN appended"], paths: ["a.md"]),
            Change(name: "delete", arguments: ["rm", "a.md"], paths: ["a.md"]),
            Change(
                name: "move", arguments: ["mv", "a.md", "moved/c.md"],
                paths: ["a.md", "moved/c.md"]),
        ]
        var failures = 0
        var madeButFailed = 0
        var untouched = 0
        for change in changes {
            // The error number changes only the message: all three for the writes, EIO for the
            // rest. Every call is faulted in each sweep; in scripts/test one sweep, the error
            // numbers taking turns call by call; in CI and the soak one sweep per error number,
            // so every call meets each of them.
            let faults =
                change.name.hasPrefix("replace") || change.name.hasPrefix("create")
                ? ["EIO", "ENOSPC", "EACCES"] : ["EIO"]
            for sweep in 0..<soakScaled(1, faults.count, campaign: faults.count) {
                var ordinals = (1...60).map { "any:\($0):\(faults[(sweep + $0) % faults.count])" }
                ordinals.insert("any:1:\(faults[sweep]):always", at: 0)
                for spec in ordinals {
                    let dir = TemporaryDirectory(prefix: "notes-eio")
                    dir.write("ws/.notes/config.yml", "")
                    dir.write("ws/a.md", old)
                    let ws = dir.path + "/ws"
                    let index = dir.path + "/index"
                    let source = dir.write("new.md", new)
                    #expect(
                        run(Repository.notesBinary, ["-w", ws, "--index-dir", index, "index"])
                            .status == 0)
                    let files = { change.paths.map { self.bytes(ws + "/" + $0) } }
                    let before = files()
                    let arguments =
                        ["-w", ws, "--index-dir", index]
                        + change.arguments.map { $0 == "SRC" ? source : $0 }
                    let result = run(
                        Repository.notesBinary, arguments, environment: ["NOTES_FAIL_IO": spec])
                    if result.status == 0 {
                        #expect(
                            !spec.hasSuffix("always"),
                            "\(change.name) \(spec): succeeded although every call failed")
                        break  // past the last system call: the change went through
                    }
                    failures += 1
                    let label = "\(change.name) \(spec)"
                    let message = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
                    #expect(result.status == 2, "\(label): exit \(result.status)")
                    #expect(
                        message.hasPrefix("notes: ") && !message.contains("\n"),
                        "\(label): not one line: \(message)")
                    let after = files()
                    if after == before {
                        untouched += 1
                        #expect(
                            !message.contains("was made"),
                            "\(label): claims a change that did not happen: \(message)")
                        if change.name != "delete" && change.name != "move" {
                            let search = run(
                                Repository.notesBinary,
                                ["-w", ws, "--index-dir", index, "search", "NEWTOKEN", "-l"])
                            #expect(
                                search.stdout.isEmpty,
                                "\(label): the index shows a change that did not happen")
                        }
                    } else {
                        madeButFailed += 1
                        #expect(
                            message.contains("was made"),
                            "\(label): the files changed but the message does not say so: \(message)"
                        )
                    }
                    // The next write (no fault) completes or discards the half-made change.
                    #expect(
                        run(
                            Repository.notesBinary,
                            ["-w", ws, "--index-dir", index, "append", "other.md", "x"]
                        ).status == 0, "\(label)")
                    let logged = try loggedVersions(ws)
                    for path in change.paths {
                        let onDisk =
                            FileManager.default.fileExists(atPath: ws + "/" + path)
                            ? version(bytes(ws + "/" + path)) : nil
                        #expect(
                            (logged[path] ?? (path == "a.md" ? onDisk : nil)) == onDisk,
                            "\(label): log and \(path) disagree")
                    }
                    #expect(
                        !FileManager.default.fileExists(atPath: ws + "/.notes/history/intent.json"),
                        "\(label)")
                    let leftovers =
                        (FileManager.default.enumerator(atPath: ws)?.allObjects as? [String] ?? [])
                        .filter { $0.contains(".notes-tmp.") }
                    #expect(leftovers.isEmpty, "\(label): \(leftovers)")
                }
            }
        }
        #expect(
            failures > 50 && untouched > 0 && madeButFailed > 0,
            "the faults did not reach both sides of the rename")
        print(
            "I/O faults: \(failures) injected failures, \(untouched) left the files untouched, \(madeButFailed) failed after the change was visible and said so"
        )
    }
}
