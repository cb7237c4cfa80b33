import Foundation
import NotesCore
import NotesTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A damaged, truncated, foreign or half-written index database (reliability plan B.10,
/// B.13): detected, rebuilt from the files, the files never touched, no error reaching the
/// person. Real binary, real SQLite files.
@Suite(.serialized) struct IndexDamageTests {
    /// A workspace copy with a built index, and the answer a healthy index gives.
    struct Fixture {
        let dir = TemporaryDirectory(prefix: "notes-damage")
        let ws: String
        let index: String
        let expected: String
        let treeBefore: String

        init() {
            ws = dir.copy(tree: Repository.sampleWorkspace, to: "ws")
            index = dir.path + "/index"
            _ = run(Repository.notesBinary, ["-w", ws, "--index-dir", index, "index"])
            expected =
                run(
                    Repository.notesBinary,
                    ["-w", ws, "--index-dir", index, "search", "whale", "-l"]
                ).stdout
            treeBefore = Self.tree(ws)
        }

        var database: String { index + "/index.sqlite" }

        func search() -> ProcessResult {
            run(Repository.notesBinary, ["-w", ws, "--index-dir", index, "search", "whale", "-l"])
        }

        /// Every path and its bytes' digest, `.notes/` excluded (history may grow).
        static func tree(_ root: String) -> String {
            let items =
                (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter
            { !$0.hasPrefix(".notes") }.sorted()
            return items.map { item in
                item + ":"
                    + (FileManager.default.contents(atPath: root + "/" + item).map {
                        ContentVersion(of: Array($0)).short
                    } ?? "dir")
            }.joined(separator: "\n")
        }
    }

    func overwrite(_ path: String, at offset: UInt64, with bytes: [UInt8]) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
    }

    func truncate(_ path: String, to size: Int) { _ = Glibc.truncate(path, off_t(size)) }

    /// Damage a query meets is repaired on the spot: the command answers correctly.
    @Test(arguments: [
        "empty", "100 bytes", "half", "garbage", "zeroed header", "foreign workspace",
        "other database",
    ])
    func damageIsRebuiltOnTheSpot(_ damage: String) throws {
        let f = Fixture()
        let size = Int(
            (try FileManager.default.attributesOfItem(atPath: f.database)[.size] as? NSNumber)?
                .intValue ?? 0)
        #expect(size > 100_000 && !f.expected.isEmpty)
        switch damage {
        case "empty": truncate(f.database, to: 0)
        case "100 bytes": truncate(f.database, to: 100)
        case "half": truncate(f.database, to: size / 2)
        case "garbage":
            try Data((0..<size).map { _ in UInt8.random(in: 0...255) }).write(
                to: URL(fileURLWithPath: f.database))
        case "zeroed header":
            try overwrite(f.database, at: 0, with: [UInt8](repeating: 0, count: 100))
        case "foreign workspace":
            // The index of another workspace, put where this one's belongs.
            let other = f.dir.path + "/other"
            f.dir.write("other/elsewhere.md", "# Elsewhere\n\nno cetaceans\n")
            _ = run(
                Repository.notesBinary,
                ["-w", other, "--index-dir", f.dir.path + "/other-index", "index"])
            try FileManager.default.removeItem(atPath: f.database)
            try FileManager.default.copyItem(
                atPath: f.dir.path + "/other-index/index.sqlite", toPath: f.database)
        case "other database":
            try FileManager.default.removeItem(atPath: f.database)
            let made = run(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table t(x)'); c.execute(\"insert into t values ('whale')\"); c.commit()",
                    f.database,
                ])
            try #require(made.status == 0, "python3 sqlite3: \(made.stderr)")
        default: Issue.record("unknown damage \(damage)")
        }
        let result = f.search()
        #expect(result.status == 0, "\(damage): \(result.stderr)")
        #expect(result.stdout == f.expected, "\(damage): wrong answer after the rebuild")
        #expect(
            !result.stderr.contains("Fatal") && !result.stderr.contains("error:"),
            "\(damage): \(result.stderr)")
        #expect(Fixture.tree(f.ws) == f.treeBefore, "\(damage): the workspace changed")
        let check = run(
            Repository.notesBinary,
            ["-w", f.ws, "--index-dir", f.index, "index", "--check", "--json"])
        let verdict =
            try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any]
        #expect(
            check.status == 0 && (verdict?["index_damage"] as? [String]) == [],
            "\(damage): \(check.stdout)")
    }

    /// Random byte runs written over random pages (8 rounds; 20 in CI, 100 in the soak):
    /// `notes index --check` finds what no query touched and rebuilds; commands never fail or
    /// crash on the way.
    @Test func flippedPagesAreFoundByCheckAndRebuilt() throws {
        var rebuilt = 0
        // Indexed once; every round damages a byte-identical copy of that healthy index folder
        // (same workspace path, which the index records, so the copy is not foreign).
        let f = Fixture()
        let pristine = f.dir.copy(tree: f.index, to: "pristine-index")
        let rounds = soakScaled(8, 100, campaign: 20)
        for round in 0..<rounds {
            if round > 0 {
                try FileManager.default.removeItem(atPath: f.index)
                try FileManager.default.copyItem(atPath: pristine, toPath: f.index)
            }
            let size = UInt64(
                (try FileManager.default.attributesOfItem(atPath: f.database)[.size] as? NSNumber)?
                    .intValue ?? 0)
            for _ in 0..<8 {
                let page = UInt64.random(in: 1..<(size / 4096))
                try overwrite(
                    f.database, at: page * 4096 + UInt64.random(in: 0..<4000),
                    with: (0..<64).map { _ in UInt8.random(in: 0...255) })
            }
            // Whatever the damage, a query exits cleanly (an answer, or a rebuild then an answer).
            let first = f.search()
            #expect(first.status == 0, "round \(round): \(first.stderr)")
            #expect(!first.stderr.contains("Fatal"), "round \(round): \(first.stderr)")
            let check = run(
                Repository.notesBinary, ["-w", f.ws, "--index-dir", f.index, "index", "--check"])
            #expect(check.status == 0, "round \(round): \(check.stdout) \(check.stderr)")
            if check.stdout.contains("was damaged") { rebuilt += 1 }
            #expect(f.search().stdout == f.expected, "round \(round): wrong answer after --check")
            #expect(Fixture.tree(f.ws) == f.treeBefore, "round \(round): the workspace changed")
        }
        #expect(rebuilt > 0, "no round damaged anything --check could see")
        print(
            "flipped pages: \(rebuilt) of \(rounds) damaged databases found by --check and rebuilt")
    }

    /// `kill -9` at random moments of a full index and of an incremental one, the WAL and
    /// shared-memory files sometimes deleted after: the next command reaches index == files.
    @Test func aSearchDuringAFirstBuildWaitsForTheWholeIndex() throws {
        let dir = TemporaryDirectory(prefix: "notes-first-build")
        let ws = dir.path + "/ws"
        let index = dir.path + "/index"
        for i in 0..<3_000 {
            dir.write(
                "ws/n\(i / 100)/note\(i).md",
                "# Note \(i)\n\nword\(i) "
                    + String(repeating: "filler text for the index ", count: 40) + "\n")
        }
        let builder = try launchNotes(["-w", ws, "--index-dir", index, "index"])
        // Wait until the builder is writing its private file, then search.
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: index + "/index.sqlite.building")
            && builder.isRunning && Date() < deadline
        { usleep(2_000) }
        let sawBuild = builder.isRunning
        let search = run(
            Repository.notesBinary,
            ["-w", ws, "--index-dir", index, "search", "word2999", "--json"])
        builder.waitUntilExit()
        #expect(builder.terminationStatus == 0)
        #expect(search.status == 0, "\(search.stderr)")
        #expect(search.stdout.contains("n29/note2999.md"))
        if sawBuild {
            #expect(
                search.stderr.contains(
                    "waiting for another notes process to finish building the search index"))
        }
        print(
            "first build: the search \(sawBuild ? "started during the build and waited" : "started after the build")"
        )
        let status = run(
            Repository.notesBinary, ["-w", ws, "--index-dir", index, "status", "--json"])
        #expect(status.stdout.contains("\"files\" : 3000"))
        #expect(!FileManager.default.fileExists(atPath: index + "/index.sqlite.building"))
    }

    @Test(.tags(.reliability), .reliabilityRun) func firstBuildsStartedTogetherAgree() throws {
        let dir = TemporaryDirectory(prefix: "notes-first-builds")
        let ws = dir.path + "/ws"
        // 700 notes: more than the 500 files of a bulk refresh (NoteIndex.bulkFiles), so a first
        // build is written aside.
        for i in 0..<700 {
            dir.write("ws/n\(i / 100)/note\(i).md", "# Note \(i)\n\nword\(i) some text\n")
        }
        for round in 0..<soakScaled(4, 40) {
            let index = dir.path + "/index\(round)"
            // Three commands on a new index at once: at most one builds aside, the others
            // write in place or wait for it; none may see the file swapped under it.
            let processes = try (0..<3).map { n in
                try launchNotes(
                    ["-w", ws, "--index-dir", index]
                        + (n == 2 ? ["search", "word600", "-l"] : ["index"]))
            }
            for process in processes { process.waitUntilExit() }
            #expect(
                processes.allSatisfy { $0.terminationStatus == 0 },
                "round \(round): \(processes.map(\.terminationStatus))")
            let check = run(
                Repository.notesBinary,
                ["-w", ws, "--index-dir", index, "index", "--check", "--json"])
            #expect(
                check.status == 0 && check.stdout.contains("\"index_damage\" : [\n\n  ]"),
                "round \(round): \(check.stdout.prefix(400)) \(check.stderr)")
            let status = run(
                Repository.notesBinary, ["-w", ws, "--index-dir", index, "status", "--json"])
            #expect(
                status.stdout.contains("\"files\" : 700"),
                "round \(round): \(status.stdout.prefix(300))")
            #expect(
                run(
                    Repository.notesBinary,
                    ["-w", ws, "--index-dir", index, "search", "word634", "-l"]
                ).stdout == "n6/note634.md\n")
            #expect(!FileManager.default.fileExists(atPath: index + "/index.sqlite.building"))
        }
    }

    @Test(.tags(.reliability), .reliabilityRun) func killsDuringIndexingAndALostWALConverge() throws
    {
        let dir = TemporaryDirectory(prefix: "notes-kill-index")
        let ws = dir.path + "/ws"
        let index = dir.path + "/index"
        // 700 notes: a full index takes long enough to be killed in the middle, and is more than
        // the 500 files of a bulk refresh (NoteIndex.bulkFiles), so a fresh build (written
        // aside, then renamed into place).
        for i in 0..<700 {
            dir.write(
                "ws/n\(i / 100)/note\(i).md",
                "---\ntitle: Note \(i)\n---\n# Note \(i)\n\nword\(i) "
                    + String(repeating: "filler text for the index ", count: 40) + "\n")
        }
        let clock = Date()
        _ = run(Repository.notesBinary, ["-w", ws, "--index-dir", index, "index", "--rebuild"])
        // Kills land at a random moment within the time one rebuild took. A run that finished
        // before its kill tested nothing, so the window halves after one: the rounds keep
        // killing mid-way however fast or loaded the machine is.
        var span = UInt32(max(0.05, Date().timeIntervalSince(clock)) * 1e6)
        var killed = 0
        let rounds = soakScaled(20, 500, campaign: 30)
        for round in 0..<rounds {
            // Half the rounds: edit some 30 files first, so the killed refresh is incremental.
            if round % 2 == 1 {
                for i in stride(from: round, to: 700, by: 24) {
                    dir.write(
                        "ws/n\(i / 100)/note\(i).md", "# Note \(i)\n\nword\(i) round\(round)\n")
                }
            }
            let process = try launchNotes(
                ["-w", ws, "--index-dir", index, "index"] + (round % 2 == 0 ? ["--rebuild"] : []))
            usleep(UInt32.random(in: 0...span))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal {
                killed += 1
            } else {
                span = max(1_000, span / 2)
            }
            if round % 5 == 4 {
                for suffix in ["-wal", "-shm"] { unlink(index + "/index.sqlite" + suffix) }
            }
            // The next command converges: every file found by its unique word, with its current text.
            let probe = (round * 37) % 700
            let hit = run(
                Repository.notesBinary,
                ["-w", ws, "--index-dir", index, "search", "word\(probe)", "--json"])
            #expect(hit.status == 0, "round \(round): \(hit.stderr)")
            #expect(
                hit.stdout.contains("n\(probe / 100)/note\(probe).md"),
                "round \(round): note\(probe) not found")
            #expect(
                !FileManager.default.fileExists(atPath: index + "/index.sqlite.building"),
                "round \(round): a killed build's file was left")
            let status = run(
                Repository.notesBinary, ["-w", ws, "--index-dir", index, "status", "--json"])
            #expect(
                status.stdout.contains("\"files\" : 700"),
                "round \(round): \(status.stdout.prefix(300))")
        }
        // A last check: the database is sound and agrees with the files.
        let check = run(
            Repository.notesBinary, ["-w", ws, "--index-dir", index, "index", "--check", "--json"])
        #expect(check.status == 0)
        #expect(!check.stdout.contains("database disk image"), "\(check.stdout)")
        // Round r (odd) last wrote note r: its text must be the indexed one.
        for round in stride(from: max(1, (rounds - 29) | 1), to: rounds, by: 2) {
            let edited = run(
                Repository.notesBinary,
                ["-w", ws, "--index-dir", index, "search", "round\(round)", "-l"]
            ).stdout
            #expect(
                edited.contains("n\(round / 100)/note\(round).md"),
                "round\(round): the last edit of note\(round) is not indexed")
        }
        #expect(killed > 0, "no run was killed mid-way: the rounds tested nothing")
        print("indexing kills: \(killed) of \(rounds) runs killed, index == files after each")
    }

    /// History is never rebuilt: a damaged stored version is reported by `notes index
    /// --check` (exit 1, the version named) and left as it is.
    @Test func damagedHistoryIsReportedNeverRebuilt() throws {
        let f = Fixture()
        let source = f.dir.write("new.md", "# New\n\nreplacement\n")
        #expect(
            run(
                Repository.notesBinary,
                ["-w", f.ws, "--index-dir", f.index, "write", "reading-list.md", "--from", source]
            ).status == 0)
        let objects = f.ws + "/.notes/history/objects"
        let prefix = try #require(
            try FileManager.default.contentsOfDirectory(atPath: objects).sorted().first)
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: objects + "/" + prefix).first)
        let object = objects + "/" + prefix + "/" + name
        chmod(object, 0o644)
        try Data("bit rot\n".utf8).write(to: URL(fileURLWithPath: object))
        let healthy = run(
            Repository.notesBinary,
            ["-w", f.ws, "--index-dir", f.index, "index", "--check", "--json"])
        #expect(healthy.status == 1, "\(healthy.stdout)")
        let report =
            try JSONSerialization.jsonObject(with: Data(healthy.stdout.utf8)) as? [String: Any]
        #expect((report?["damaged_history_versions"] as? [String]) == [prefix + name])
        #expect(
            String(decoding: FileManager.default.contents(atPath: object) ?? Data(), as: UTF8.self)
                == "bit rot\n", "the damaged version was touched")
    }
}
