import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// A modified or renamed file rewrites only the FTS rows whose texts changed
/// (`sections.fts_digest`, IndexWriter.deleteContent): an append to a long note re-inserts
/// its last section, a rename none. What is kept must be exactly what a fresh index holds.
@Suite struct FTSRowReuseTests {
    /// A note of `count` sections with a title from its first heading.
    static func longNote(_ name: String, sections count: Int, extra: String = "") -> String {
        var text = "---\ntags: [ocean]\n---\n# \(name) log\n\nOpening words about \(name).\n"
        for i in 1..<count {
            text +=
                "\n## Part \(i) of \(name)\n\nWhales and sailors in part \(i), \(name) \(extra).\n"
        }
        return text
    }

    /// Everything the index holds about the content, named by path and section ordinal (file
    /// ids differ between an index kept up to date and a fresh one): every token instance
    /// (term, column, offset), each section's row, each FTS row's texts.
    static func content(_ index: NoteIndex) throws -> [String] {
        let db = try DatabaseQueue(path: index.databasePath, configuration: .withTokenReplay)
        return try db.write { db in
            try db.execute(sql: "INSERT INTO fts(fts, rank) VALUES ('integrity-check', 1)")
            try db.execute(
                sql:
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, instance)"
            )
            let paths = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, path FROM files").map {
                    ($0[0] as Int64, $0[1] as String)
                })
            func name(_ rowid: Int64) -> String {
                "\(paths[rowid >> 24] ?? "?")#\(rowid & 0xFFFFFF)"
            }
            var out = try Row.fetchAll(db, sql: "SELECT term, doc, col, offset FROM temp.vocab").map
            {
                "token \($0[0] as String) \(name($0[1])) \($0[2] as String) \($0[3] as Int64)"
            }
            out += try Row.fetchAll(
                db, sql: "SELECT id, heading, level, line, aligned, fts_digest FROM sections"
            ).map {
                "section \(name($0[0])) \($0[1] as String) \($0[2] as Int) \($0[3] as Int) \($0[4] as Bool) \($0[5] as Int64)"
            }
            out += try Row.fetchAll(db, sql: "SELECT rowid, title, heading, tags, body FROM fts")
                .map {
                    "row \(name($0[0])) \($0[1] as String)|\($0[2] as String)|\($0[3] as String)|\($0[4] as String)"
                }
            // The per-file rows, numbered like sections (a file's rows are one id range).
            out += try Row.fetchAll(db, sql: "SELECT id, file_id, key, value FROM metadata").map {
                "metadata \(name($0[0])) \(paths[$0[1]] ?? "?") \($0[2] as String)=\($0[3] as String)"
            }
            out += try Row.fetchAll(
                db, sql: "SELECT id, file_id, kind, target, text, line FROM links"
            ).map {
                "link \(name($0[0])) \(paths[$0[1]] ?? "?") \($0[2] as String) \($0[3] as String) \($0[4] as String) \($0[5] as Int)"
            }
            out += try Row.fetchAll(db, sql: "SELECT id, file_id, code, message FROM diagnostics")
                .map {
                    "diagnostic \(name($0[0])) \(paths[$0[1]] ?? "?") \($0[2] as String) \($0[3] as String)"
                }
            out += try Row.fetchAll(db, sql: "SELECT file_id, tag FROM tags").map {
                "tag \(paths[$0[0]] ?? "?") \($0[1] as String)"
            }
            return out.sorted()
        }
    }

    @Test func anAppendRewritesTheLastSectionAndARenameNothing() throws {
        let f = IndexFixture(files: ["log.md": Self.longNote("voyage", sections: 30)], filler: 5)
        let index = try f.open()
        #expect(try index.refresh().added == 6)

        // Appending a line changes the last section only: one FTS row, four texts.
        let path = f.root + "/log.md"
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("A harpoon appended at the end.\n".utf8))
        try handle.close()
        let appended = try index.refresh()
        #expect(appended.modified == 1)
        #expect(appended.replayedTexts == 4)
        #expect(try f.search("harpoon", index).hits.map(\.path) == ["log.md"])

        // Moved to another folder, same bytes: the title comes from the heading, so no
        // FTS row changes.
        try FileManager.default.createDirectory(
            atPath: f.root + "/archive", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: path, toPath: f.root + "/archive/log.md")
        let renamed = try index.refresh()
        #expect(renamed.renames == [.init(from: "log.md", to: "archive/log.md")])
        #expect(renamed.replayedTexts == 0)
        #expect(try f.search("harpoon", index).hits.map(\.path) == ["archive/log.md"])

        // Two blank lines at the top: every section moves down two lines, no text changes;
        // the hits point at the new lines.
        let moved = f.root + "/archive/log.md"
        let text = try String(contentsOfFile: moved, encoding: .utf8)
        let before = try f.search("\"part 29\"", index).hits.first?.snippets.first?.line
        try text.replacingOccurrences(of: "# voyage log", with: "\n\n# voyage log").write(
            toFile: moved, atomically: false, encoding: .utf8)
        let shifted = try index.refresh()
        #expect(shifted.modified == 1 && shifted.replayedTexts == 0)
        let after = try f.search("\"part 29\"", index).hits.first?.snippets.first?.line
        #expect(before != nil && after == before.map { $0 + 2 })

        // A new tag is in every FTS row (the tags column): all rows are rewritten.
        try text.replacingOccurrences(of: "tags: [ocean]", with: "tags: [ocean, ships]").write(
            toFile: moved, atomically: false, encoding: .utf8)
        #expect(try index.refresh().replayedTexts == 4 * 30)
        #expect(try f.search("tag:ships whales", index).hits.map(\.path) == ["archive/log.md"])

        let fresh = try NoteIndex(
            workspace: Workspace(root: f.root), directory: f.dir.path + "/fresh")
        _ = try fresh.refresh()
        #expect(try Self.content(index) == Self.content(fresh))
    }

    /// Random edits (appends, inserted and removed sections, changed texts, titles and tags,
    /// renames, copies, deletes, new files), each followed by a refresh: the index kept up to
    /// date holds exactly what a fresh index of the same files holds.
    @Test(arguments: [UInt64(1), 2, 3])
    func randomEditsLeaveWhatAFreshIndexHolds(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var files: [String: [String]] = [:]  // path → its sections' lines
        func text(_ sections: [String]) -> String { sections.joined(separator: "\n\n") + "\n" }
        for i in 0..<8 {
            let path = "notes/n\(i).md"
            files[path] =
                ["---\ntitle: Note \(i)\ntags: [t\(i % 3)]\nstatus: s\(i)\n---\n# Note \(i)"]
                + (0..<Int.random(in: 3...12, using: &random)).map {
                    "## Part \($0)\n\nword\($0) sea \(i) [[n\(($0 + i) % 8)]] [site](https://example.com/\($0))"
                }
        }
        let f = IndexFixture(files: files.mapValues(text), filler: 0)
        let index = try f.open()
        _ = try index.refresh()
        var written = 0
        for step in 0..<25 {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let path = files.keys.sorted().randomElement(using: &random)!
                var sections = files[path]!
                switch Int.random(in: 0..<9, using: &random) {
                case 0: sections[sections.count - 1] += "\nappended line \(step)"
                case 1: sections.append("## Added \(step)\n\nnew words \(step)")
                case 2:
                    sections.insert(
                        "## Inserted \(step)\n\ninserted words",
                        at: Int.random(in: 1...sections.count, using: &random))
                case 3 where sections.count > 2:
                    sections.remove(at: Int.random(in: 1..<sections.count, using: &random))
                case 4:
                    let k = Int.random(in: 1..<max(2, sections.count), using: &random)
                    if k < sections.count {
                        sections[k] = sections[k].replacingOccurrences(
                            of: "sea", with: "ocean \(step)")
                    }
                case 5:
                    sections[0] = sections[0].replacingOccurrences(
                        of: "title: ", with: "title: Renamed ")
                case 6:
                    sections[0] = sections[0].replacingOccurrences(
                        of: "tags: [", with: "tags: [s\(step), "
                    )
                    .replacingOccurrences(of: "status: ", with: "owner: o\(step)\nstatus: ")
                case 7:
                    let to = "moved/m\(step)-\(path.split(separator: "/").last!)"
                    files[path] = nil
                    files[to] = sections
                    try FileManager.default.createDirectory(
                        atPath: f.root + "/moved", withIntermediateDirectories: true)
                    try FileManager.default.moveItem(
                        atPath: f.root + "/" + path, toPath: f.root + "/" + to)
                    continue
                default:
                    if files.count > 4, Bool.random(using: &random) {
                        files[path] = nil
                        try FileManager.default.removeItem(atPath: f.root + "/" + path)
                    } else {
                        // a copy: same bytes under a new path
                        files["copies/c\(step).md"] = sections
                        f.write("copies/c\(step).md", text(sections))
                    }
                    continue
                }
                files[path] = sections
                f.write(path, text(sections))
            }
            let report = try index.refresh()
            written += report.replayedTexts
            let fresh = try NoteIndex(
                workspace: Workspace(root: f.root), directory: f.dir.path + "/fresh-\(step)")
            let built = try fresh.refresh()
            #expect(built.added == files.count)
            #expect(try Self.content(index) == Self.content(fresh), "seed \(seed), step \(step)")
        }
        #expect(written > 0)
    }
}
