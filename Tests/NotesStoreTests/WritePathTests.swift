import Foundation
import NotesCore
import NotesStore
import NotesTestSupport
import Testing

@Suite struct WritePathTests {
    @Test func policyAndProtectedPathsForTheAgent() throws {
        let f = try StoreFixture(
            config:
                "policy:\n  \"Drafts/**\": ask\n  \"Sources/**\": read\n  \"Private/**\": deny\n")
        f.folder.write("Journal/2026-11-21.md", "- 09:00 person: started\n")
        f.folder.write("Sources/a.md", "source\n")
        f.folder.write("Private/diary.md", "secret\n")
        let journal = try f.store.read("Journal/2026-11-21.md", by: f.agent)
        #expect(
            f.code {
                try f.store.write(
                    "Journal/2026-11-21.md", content: "x",
                    options: ChangeOptions(expectedVersion: journal.version), by: f.agent)
            } == .policyDenied)
        #expect(
            f.code {
                try f.store.delete(
                    "Journal/2026-11-21.md",
                    options: ChangeOptions(expectedVersion: journal.version), by: f.agent)
            } == .policyDenied)
        #expect(
            try f.store.append(
                "Journal/2026-11-21.md", content: "- 09:05 agent: read the intro", by: f.agent
            ).changed)
        #expect(
            // creating is allowed
            try f.store.write("Journal/2026-11-22.md", content: "- new day\n", by: f.agent).created)
        #expect(
            f.code { try f.store.append("Sources/a.md", content: "x", by: f.agent) }
                == .policyDenied)
        #expect(f.code { try f.store.read("Private/diary.md", by: f.agent) } == .policyDenied)
        let proposed = try f.store.write("Drafts/new.md", content: "draft\n", by: f.agent)
        #expect(proposed.proposal != nil && f.text("Drafts/new.md") == nil)
        for path in [
            ".notes/config.yml", ".git/hooks/post-commit", ".GIT/config", ".g\u{200C}it/config",
            "git~1/config", ".env", ".env.local", "keys/server.pem", "a/secrets/b.md",
        ] {
            #expect(
                f.code { try f.store.write(path, content: "x", by: f.agent) } == .protectedPath,
                "\(path)")
            #expect(f.code { try f.store.read(path, by: f.agent) } == .protectedPath, "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: f.root + "/.git"))
        // The person may write where the agent may not, except the tool's own folder.
        #expect(try f.store.write("Sources/a.md", content: "mine\n", by: f.person).changed)
        #expect(
            f.code { try f.store.write(".notes/config.yml", content: "x", by: f.person) }
                == .protectedPath)
    }

    @Test func limitsAndNonText() throws {
        let f = try StoreFixture(config: "limits:\n  write_max_bytes: 100\n")
        #expect(
            f.code {
                try f.store.write(
                    "big.md", content: String(repeating: "x", count: 101), by: f.agent)
            } == .tooLarge)
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(" au lait\n".utf8)
        f.folder.write("latin1.md", bytes: latin1)
        let v = ContentVersion(of: latin1).short
        #expect(
            f.code {
                try f.store.edit(
                    "latin1.md", edits: [TextEdit(oldText: "lait", newText: "the")],
                    options: ChangeOptions(expectedVersion: v), by: f.agent)
            } == .notText)
        #expect(
            f.code { try f.store.append("latin1.md", content: "more", by: f.person) } == .notText)
        #expect(f.bytes("latin1.md") == latin1)
        #expect(
            f.code {
                try f.store.write("bad.md", content: "---\ntitle: [oops\n---\nx\n", by: f.agent)
            } == .invalidArgument)
    }

    @Test func editsAndAppendsKeepLineEndingsAndBOM() throws {
        let f = try StoreFixture()
        let original: [UInt8] =
            [0xEF, 0xBB, 0xBF] + Array("---\r\ntitle: T\r\n---\r\nline one\r\nline two\r\n".utf8)
        f.folder.write("crlf.md", bytes: original)
        _ = try f.store.edit(
            "crlf.md", edits: [TextEdit(oldText: "line one\nline two", newText: "line 1\nline 2")],
            by: f.person)
        _ = try f.store.append("crlf.md", content: "line three\nline four", by: f.person)
        let bytes = try #require(f.bytes("crlf.md"))
        #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF]))
        let text = String(decoding: bytes.dropFirst(3), as: UTF8.self)
        #expect(text.hasSuffix("line 1\r\nline 2\r\n\r\nline three\r\nline four\r\n"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(text.contains("last_modified_by: user\r\n"))
    }

    @Test func appendUnderAHeading() throws {
        let f = try StoreFixture()
        f.folder.write(
            "context.md",
            "# Context\n\n## About me <!-- user -->\n\nI study whales.\n\n## Learned\n\n- likes Melville\n\n## Other\n\ntext\n"
        )
        _ = try f.store.append(
            "context.md", content: "- prefers British spelling", section: "Learned", by: f.agent)
        #expect(
            f.text("context.md")?.contains(
                "## Learned\n\n- likes Melville\n- prefers British spelling\n\n## Other\n") == true)
        _ = try f.store.append(
            "context.md", content: "Fresh section text.", section: "## New Things", by: f.agent)
        #expect(
            f.text("context.md")?.hasSuffix("text\n\n## New Things\n\nFresh section text.\n")
                == true)
    }

    @Test func deleteMoveRestoreAndHistory() throws {
        let f = try StoreFixture()
        let v1 = try f.agentCreates("notes/a.md", "first\n")
        let v2 = try #require(
            try f.store.write(
                "notes/a.md", content: "second\n", options: ChangeOptions(expectedVersion: v1),
                by: f.agent
            ).version)
        let deleted = try f.store.delete(
            "notes/a.md", options: ChangeOptions(expectedVersion: v2), by: f.agent)
        #expect(deleted.restorableVersion == v2 && f.text("notes/a.md") == nil)
        let restored = try f.store.restore("notes/a.md", by: f.person)
        #expect(restored.version == v2 && f.version("notes/a.md") == v2)
        let older = try f.store.restore("notes/a.md", version: v1, by: f.person)
        #expect(older.version == v1)
        let moved = try f.store.move(
            "notes/a.md", to: "archive/a.md", options: ChangeOptions(expectedVersion: v1),
            by: f.agent)
        #expect(
            moved.from == "notes/a.md" && f.version("archive/a.md") == v1
                && f.text("notes/a.md") == nil)
        let ops = f.store.history.history(of: "archive/a.md").records.map(\.operation)
        #expect(ops == [.create, .write, .delete, .restore, .restore, .move])
        #expect(
            f.code { try f.store.move("archive/a.md", to: "archive/a.md", by: f.person) }
                == .invalidArgument)
        f.folder.write("taken.md", "x\n")
        #expect(
            f.code { try f.store.move("archive/a.md", to: "taken.md", by: f.person) }
                == .invalidArgument)
        // The person's script can use a version as a precondition too.
        #expect(
            f.code {
                try f.store.write(
                    "taken.md", content: "y\n",
                    options: ChangeOptions(expectedVersion: "0000000000000000"), by: f.person)
            } == .staleVersion)
    }

    @Test func gcDropsOnlyOldVersionsThatNothingNeeds() throws {
        let f = try StoreFixture()
        let v1 = try f.agentCreates("a.md", "one\n")
        let v2 = try #require(
            try f.store.write(
                "a.md", content: "two\n", options: ChangeOptions(expectedVersion: v1), by: f.agent
            ).version)
        // Nothing is older than a day: nothing goes.
        #expect(try f.store.pruneHistory(before: Timestamp.now() - 86400).objects == 0)
        // Everything is older than "in a second": only the current version stays.
        let freed = try f.store.pruneHistory(before: Timestamp.now() + 1)
        #expect(freed.objects >= 1)
        #expect(f.store.history.object(v1) == nil && f.store.history.object(v2) != nil)
        #expect(f.store.history.records().count == 2, "the log is kept whole")
    }

    @Test func leftoverTemporaryFilesOfDeadWritersAreRemoved() throws {
        let f = try StoreFixture()
        f.folder.write("dir/.notes-tmp.999999.abc", "partial")
        f.folder.write("dir/.notes-tmp.\(getpid()).live", "in progress")
        _ = try f.store.write("dir/a.md", content: "x\n", by: f.person)
        #expect(!FileManager.default.fileExists(atPath: f.root + "/dir/.notes-tmp.999999.abc"))
        #expect(FileManager.default.fileExists(atPath: f.root + "/dir/.notes-tmp.\(getpid()).live"))
    }

    @Test func externalEditsShowInEffectiveProvenance() throws {
        let f = try StoreFixture()
        try f.agentCreates("a.txt", "agent text\n")
        #expect(try f.store.read("a.txt", by: f.person).provenance.lastModifiedBy == .agent)
        f.editOutside("a.txt") { $0 + "person\n" }
        #expect(try f.store.read("a.txt", by: f.person).provenance.lastModifiedBy == .user)
    }
}
