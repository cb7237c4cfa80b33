import Foundation
import NotesTestSupport
import Testing

/// Search by meaning through the real binary and the installed model: `notes index` embeds,
/// a kill -9 mid-way loses nothing committed and the next run continues, a search without
/// the model runs by words, `--mode semantic` finds a note by meaning alone.
@Suite(
    .serialized,
    .enabled(
        if: Repository.installedModel != nil,
        "the embedding model is not installed (scripts/setup installs it)"))
struct EmbeddingCLITests {
    let dir = TemporaryDirectory()
    var root: String { dir.path + "/ws" }
    var indexDir: String { dir.path + "/index" }
    var withModel: [String: String] {
        [
            "NOTES_MODEL_DIR": Repository.installedModel ?? "", "NO_COLOR": "1",
            "NOTES_NO_PROGRESS": "1",
        ]
    }

    static let topics = [
        "The harbour master logged every ship that came in with the tide.",
        "Roses, tulips and daffodils filled the spring garden beds.",
        "The violinist practised scales for hours before the concert.",
        "A thunderstorm knocked out the power across the valley overnight.",
        "The bakery sold out of sourdough loaves before nine in the morning.",
    ]

    init() {
        dir.write("ws/.notes/config.yml", "")
        for i in 0..<160 {
            let topic = Self.topics[i % Self.topics.count]
            dir.write(
                "ws/notes/n\(i).md",
                "# Note \(i)\n\n\(topic)\n\nEntry number \(i) of the notebook, written on day \(i % 31 + 1).\n"
            )
        }
        dir.write(
            "ws/ocean/deep.md",
            "# Deep water\n\nA sperm whale dived below the research vessel and stayed down an hour.\n"
        )
    }

    func notes(_ arguments: [String], _ environment: [String: String]) -> ProcessResult {
        run(
            Repository.notesBinary, ["-w", root, "--index-dir", indexDir] + arguments,
            environment: environment)
    }

    func coverage() throws -> (embedded: Int, files: Int, passages: Int) {
        let status = notes(["status", "--json"], withModel)
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any],
            "\(status.stderr)")
        let semantic = try #require(json["semantic"] as? [String: Any])
        let c = try #require(semantic["coverage"] as? [String: Any])
        return (c["embedded_files"] as! Int, c["files"] as! Int, c["passages"] as! Int)
    }

    /// Rows of `chunks`, and distinct (section, passage) pairs among them.
    func chunkRows() -> (rows: Int, distinct: Int) {
        let result = run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                print(*c.execute("SELECT count(*), count(DISTINCT section_id || ':' || ordinal) FROM chunks").fetchone())
                """, indexDir + "/index.sqlite",
            ])
        let parts = result.stdout.split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return parts.count == 2 ? (parts[0], parts[1]) : (-1, -2)
    }

    @Test func killedMidWayTheNextRunContinuesAndNothingIsDoubled() throws {
        #expect(notes(["index", "--no-embed"], withModel).status == 0)
        #expect(try coverage().embedded == 0)
        let process = try launchNotes(
            ["-w", root, "--index-dir", indexDir, "index"], environment: withModel)
        // Wait until some passages are committed, then kill it.
        let deadline = Date().addingTimeInterval(120)
        var partial = 0
        while Date() < deadline {
            partial = chunkRows().rows
            if partial > 0 { break }
            usleep(50_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let afterKill = try coverage()
        #expect(
            afterKill.embedded > 0 && afterKill.embedded < afterKill.files,
            "killed after \(partial) rows: \(afterKill)")
        let rows = chunkRows()
        #expect(rows.rows == rows.distinct)

        let resumed = notes(["index"], withModel)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("Embedded "))
        let done = try coverage()
        #expect(done.embedded == done.files)
        let final = chunkRows()
        #expect(final.rows == final.distinct)
        // Exactly what a run that was never interrupted makes.
        #expect(notes(["index", "--rebuild"], withModel).status == 0)
        #expect(try coverage().passages == done.passages)
        // Nothing left to do.
        let again = notes(["index", "--json"], withModel)
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect((json["embedding"] as? [String: Any])?["chunks"] as? Int == 0)
    }

    @Test func anotherEmbedderPastTheWaitLeavesTheRefreshReportAndSaysWho() throws {
        #expect(notes(["index", "--no-embed"], withModel).status == 0)
        // This test process stands for another command embedding the index.
        let fd = open(indexDir + "/embed.lock", O_RDWR | O_CREAT, 0o600)
        #expect(fd >= 0)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        var waitBriefly = withModel
        waitBriefly["NOTES_LOCK_TIMEOUT"] = "0.3"
        let busy = notes(["index", "--json"], waitBriefly)
        #expect(busy.status == 0, "\(busy.stderr)")
        #expect(busy.stderr.contains("not embedded here: busy:"), "\(busy.stderr)")
        let report = try #require(
            JSONSerialization.jsonObject(with: Data(busy.stdout.utf8)) as? [String: Any],
            "\(busy.stdout)")
        #expect(report["embedding"] == nil && report["added"] != nil)
        let skipped = try #require(report["embedding_skipped"] as? String)
        #expect(skipped.hasPrefix("busy:") && skipped.contains("embedding of this index"))
        #expect(chunkRows().rows == 0)
        flock(fd, LOCK_UN)
        close(fd)
        #expect(notes(["index"], withModel).status == 0)
        let after = try coverage()
        #expect(after.embedded == after.files && after.passages > 0)
    }

    @Test func searchByMeaningAndWithoutAModel() throws {
        // context.md, whose text never says what it is, and a note that is near the question
        // by its words and title.
        dir.write(
            "ws/context.md",
            "# Context\n\n## About me\n\n- I teach English at a secondary school.\n- I prefer primary sources to summaries.\n"
        )
        dir.write(
            "ws/travel.md",
            "# Travel agent\n\nThe travel agent knows every hotel in Lisbon and books them for her clients.\n"
        )
        #expect(notes(["index"], withModel).status == 0)
        // What context.md is for is part of what it means (its title passage's role).
        let known = notes(
            ["search", "--mode", "semantic", "-l", "what does the agent know about me"], withModel)
        #expect(known.stdout.split(separator: "\n").first == "context.md", "\(known.stdout)")
        // By default too, though travel.md holds the question's words: a passage that says
        // what the question asks in other words puts its file first.
        let fused = notes(["search", "-l", "what does the agent know about me"], withModel)
        let fusedPaths = fused.stdout.split(separator: "\n")
        #expect(fusedPaths.first == "context.md", "\(fused.stdout)")
        #expect(fusedPaths.contains("travel.md"), "\(fused.stdout)")
        // Scores read in the order listed: the file put first scores 1, none above another
        // listed before it.
        let scored = notes(["search", "--json", "what does the agent know about me"], withModel)
        let scoredJSON = try #require(
            JSONSerialization.jsonObject(with: Data(scored.stdout.utf8)) as? [String: Any])
        let scores = try #require(scoredJSON["hits"] as? [[String: Any]]).compactMap {
            $0["score"] as? Double
        }
        #expect(scores.first == 1 && scores.count > 1, "\(scores)")
        #expect(zip(scores, scores.dropFirst()).allSatisfy { $0 >= $1 }, "\(scores)")
        // No word of the query is in the note.
        let semantic = notes(
            [
                "search", "--mode", "semantic", "--json", "--limit", "3",
                "cetacean diving under a boat",
            ], withModel)
        #expect(semantic.status == 0, "\(semantic.stderr)")
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(semantic.stdout.utf8)) as? [String: Any])
        let hits = try #require(json["hits"] as? [[String: Any]])
        #expect(hits.first?["path"] as? String == "ocean/deep.md")
        #expect(hits.first?["matched_by"] as? String == "meaning")
        #expect(json["mode"] as? String == "semantic")
        // One word of the question is searched for and no file has it: the answer says what
        // found the hits instead.
        let oneWord = notes(["search", "the cetacean"], withModel)
        #expect(
            oneWord.stdout.hasPrefix("Hits without the word cetacean are found by meaning.\n"),
            "\(oneWord.stdout)")
        #expect(oneWord.stdout.contains("ocean/deep.md"), "\(oneWord.stdout)")
        // Hybrid by default for several words; a single word keeps its exact meaning.
        let hybrid = notes(["search", "--json", "sourdough starter"], withModel)
        let hybridJSON = try #require(
            JSONSerialization.jsonObject(with: Data(hybrid.stdout.utf8)) as? [String: Any])
        #expect(hybridJSON["mode"] as? String == "hybrid")
        let word = notes(["search", "--json", "sourdough"], withModel)
        let wordJSON = try #require(
            JSONSerialization.jsonObject(with: Data(word.stdout.utf8)) as? [String: Any])
        #expect(wordJSON["mode"] as? String == "lexical")
        // Without the model: by words, never an error; asking for meaning is one line, exit 2.
        let noModel = ["NOTES_MODEL_DIR": Repository.noModel, "NO_COLOR": "1"]
        let lexical = notes(["search", "--json", "whale"], noModel)
        #expect(lexical.status == 0)
        #expect(lexical.stdout.contains("\"mode\" : \"lexical\""))
        let refused = notes(["search", "--mode", "semantic", "whale"], noModel)
        #expect(refused.status == 2)
        #expect(
            refused.stderr.split(separator: "\n").count == 1
                && refused.stderr.contains("notes model install"))
        let status = notes(["status"], noModel)
        #expect(status.stdout.contains("no embedding model installed"))
        // Related notes.
        let related = notes(["related", "notes/n0.md", "--limit", "5", "--json"], withModel)
        let relatedJSON = try #require(
            JSONSerialization.jsonObject(with: Data(related.stdout.utf8)) as? [String: Any])
        let near = try #require(relatedJSON["related"] as? [[String: Any]])
        #expect(near.count == 5 && !near.contains { $0["path"] as? String == "notes/n0.md" })
        // The notes on the same topic (every fifth) are nearest.
        #expect(near.allSatisfy { (($0["path"] as? String) ?? "").hasPrefix("notes/n") })
    }

    @Test func withoutOpenBLASTheBuiltInKernelsDoEveryProduct() throws {
        #expect(notes(["index"], withModel).status == 0)
        var noBLAS = withModel
        noBLAS["NOTES_OPENBLAS_LIBRARY"] = dir.path + "/no-such-libopenblas.so"
        // A query of a few tokens, and one longer than the built-in kernels' usual share.
        let short = notes(
            [
                "search", "--mode", "semantic", "--json", "--limit", "1",
                "cetacean diving under a boat",
            ],
            noBLAS)
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.stdout.contains("\"path\" : \"ocean/deep.md\""))
        let question =
            "where in all of these notes did someone write about a very large marine mammal that went deep below a ship used for science"
        let long = notes(["search", "--json", "--limit", "3", question], noBLAS)
        #expect(long.status == 0, "\(long.stderr)")
        let longJSON = try #require(
            JSONSerialization.jsonObject(with: Data(long.stdout.utf8)) as? [String: Any])
        #expect(longJSON["mode"] as? String == "hybrid")
        let hits = try #require(longJSON["hits"] as? [[String: Any]])
        #expect(hits.contains { $0["path"] as? String == "ocean/deep.md" })
        // Passages too, and the vectors are the ones OpenBLAS makes.
        dir.write(
            "ws/ocean/shallow.md", "# Shallow water\n\nSeals bask on the sandbank at low tide.\n")
        let index = notes(["index"], noBLAS)
        #expect(index.status == 0, "\(index.stderr)")
        #expect(index.stderr.contains("embedded without OpenBLAS"), "\(index.stderr)")
        #expect(try coverage().embedded == 162)
        let lines = EmbeddingCLITests.topics.joined(separator: "\n") + "\n"
        let with = run(
            Repository.notesBinary, ["model", "embed"], environment: withModel, stdin: lines)
        let without = run(
            Repository.notesBinary, ["model", "embed"], environment: noBLAS, stdin: lines)
        func vectors(_ out: String) -> [[Double]] {
            out.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Double]
            }
        }
        let a = vectors(with.stdout)
        let b = vectors(without.stdout)
        #expect(a.count == EmbeddingCLITests.topics.count && b.count == a.count)
        for (x, y) in zip(a, b) {
            #expect(zip(x, y).reduce(0) { $0 + $1.0 * $1.1 } > 0.9999)
        }
        // `notes model` says which does the work, and how to make it faster.
        let shown = notes(["model"], noBLAS)
        #expect(
            shown.stdout.contains("built-in kernels")
                && shown.stdout.contains("NOTES_OPENBLAS_LIBRARY names"))
        #expect(notes(["model"], withModel).stdout.contains("products    OpenBLAS"))
    }
}
