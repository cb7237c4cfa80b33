import Foundation
import NotesCore
import NotesStore
import NotesTestSupport
import Testing

/// A workspace with a store, an agent and the person.
final class StoreFixture {
    let folder = TemporaryDirectory(prefix: "notes-store")
    let store: NoteStore
    let agent = Author(.agent, client: "test-agent")
    let person = Author.person

    init(config: String? = nil) throws {
        folder.write(".notes/config.yml", config ?? "# defaults\n")
        store = NoteStore(workspace: try Workspace(root: folder.path))
    }

    var root: String { folder.path }

    func text(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: root + "/" + path))).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    func bytes(_ path: String) -> [UInt8]? {
        (try? Data(contentsOf: URL(fileURLWithPath: root + "/" + path))).map(Array.init)
    }

    /// The person editing a file in an editor (outside the tool).
    func editOutside(_ path: String, _ transform: (String) -> String) {
        folder.write(path, transform(text(path) ?? ""))
    }

    /// The error code of a call that must fail.
    func code(_ body: () throws -> Any) -> NotesError.Code? {
        error(body)?.code
    }

    func error(_ body: () throws -> Any) -> NotesError? {
        do {
            _ = try body()
            return nil
        } catch let error as NotesError { return error } catch {
            return NotesError(.internal, "\(error)")
        }
    }

    /// The agent writes a new file and returns its version.
    @discardableResult
    func agentCreates(_ path: String, _ content: String) throws -> String {
        try #require(try store.write(path, content: content, by: agent).version)
    }

    func version(_ path: String) -> String? { bytes(path).map { ContentVersion(of: $0).short } }
}

let draft = """
    # Moby Dick

    Agent paragraph one about the whale.

    Agent paragraph two about Ahab.

    Agent paragraph three about the sea.

    """

@Suite struct GuardTests {
    @Test func createStampsAndRecordsTheRealActor() throws {
        let f = try StoreFixture()
        // The agent claims the person wrote it: provenance comes from the real actor.
        let result = try f.store.write(
            "Research/intro.md",
            content: "---\ntitle: Intro\ncreated_by: user\nlast_modified_by: user\n---\n" + draft,
            by: f.agent)
        #expect(result.created)
        let text = try #require(f.text("Research/intro.md"))
        #expect(text.hasPrefix("---\ntitle: Intro\ncreated_by: agent\nlast_modified_by: agent\n"))
        #expect(text.contains("created_at: "))
        #expect(result.version == f.version("Research/intro.md"))
        let read = try f.store.read("Research/intro.md", by: f.agent)
        #expect(read.provenance.createdBy == .agent && read.provenance.lastModifiedBy == .agent)
        let records = f.store.history.history(of: "Research/intro.md").records
        #expect(records.map(\.operation) == [.create] && records.first?.client == "test-agent")
    }

    @Test func everyChangeOfAnExistingFileNeedsTheVersionRead() throws {
        let f = try StoreFixture()
        try f.agentCreates("a.md", draft)
        let before = f.bytes("a.md")
        #expect(f.code { try f.store.write("a.md", content: "x", by: f.agent) } == .readRequired)
        #expect(
            f.code {
                try f.store.edit(
                    "a.md", edits: [TextEdit(oldText: "one", newText: "1")], by: f.agent)
            } == .readRequired)
        #expect(f.code { try f.store.delete("a.md", by: f.agent) } == .readRequired)
        #expect(f.code { try f.store.move("a.md", to: "b.md", by: f.agent) } == .readRequired)
        for garbage in [
            "0000000000000000", "not-a-version", "'; DROP TABLE",
            String(repeating: "f", count: 5000),
        ] {
            let options = ChangeOptions(expectedVersion: garbage)
            #expect(
                f.code { try f.store.write("a.md", content: "x", options: options, by: f.agent) }
                    == .staleVersion)
            #expect(
                f.code {
                    try f.store.edit(
                        "a.md", edits: [TextEdit(oldText: "one", newText: "1")], options: options,
                        by: f.agent)
                } == .staleVersion)
            #expect(
                f.code { try f.store.delete("a.md", options: options, by: f.agent) }
                    == .staleVersion)
            #expect(
                f.code { try f.store.move("a.md", to: "b.md", options: options, by: f.agent) }
                    == .staleVersion)
            #expect(
                f.code {
                    try f.store.restore(
                        "a.md", version: f.version("a.md"), options: options, by: f.agent)
                } == .staleVersion)
        }
        #expect(f.bytes("a.md") == before)
        #expect(f.store.history.history(of: "a.md").records.count == 1)
    }

    @Test func staleVersionCarriesTheCurrentVersionAndADiff() throws {
        let f = try StoreFixture()
        let v1 = try f.agentCreates("a.md", draft)
        _ = try f.store.read("a.md", by: f.agent)
        f.editOutside("a.md") {
            $0.replacingOccurrences(of: "about Ahab", with: "about Captain Ahab")
        }
        let error = try #require(
            f.error {
                try f.store.write(
                    "a.md", content: draft + "more\n", options: ChangeOptions(expectedVersion: v1),
                    by: f.agent)
            })
        #expect(error.code == .staleVersion)
        #expect(error.details?.currentVersion == f.version("a.md"))
        #expect(error.details?.diff?.contains("+Agent paragraph two about Captain Ahab.") == true)
    }

    @Test func thePersonsEditsAreNeverOverwrittenSilently() throws {
        let f = try StoreFixture()
        try f.agentCreates("intro.md", draft)
        f.editOutside("intro.md") {
            $0.replacingOccurrences(
                of: "Agent paragraph three about the sea.", with: "My own words about the sea.")
        }
        let afterEdit = f.bytes("intro.md")
        let read = try f.store.read("intro.md", by: f.agent)
        #expect(read.provenance.lastModifiedBy == .user)
        // An overwrite based on the agent's old draft would drop the person's line.
        let rewrite = draft.replacingOccurrences(
            of: "Agent paragraph one", with: "Revised paragraph one")
        let error = try #require(
            f.error {
                try f.store.write(
                    "intro.md", content: rewrite,
                    options: ChangeOptions(expectedVersion: read.version), by: f.agent)
            })
        #expect(error.code == .userEdited)
        #expect(
            error.details?.lostLines?.contains { $0.contains("My own words about the sea.") }
                == true)
        #expect(error.details?.options?.contains("on_conflict: merge") == true)
        #expect(f.bytes("intro.md") == afterEdit)
        // Delete is refused too; move is not (it loses no text).
        #expect(
            f.code {
                try f.store.delete(
                    "intro.md", options: ChangeOptions(expectedVersion: read.version), by: f.agent)
            } == .userEdited)
        // An edit on the agent's own lines is allowed; on the person's line it is refused.
        let ok = try f.store.edit(
            "intro.md", edits: [TextEdit(oldText: "about Ahab", newText: "about the captain")],
            options: ChangeOptions(expectedVersion: read.version), by: f.agent)
        #expect(ok.changed && f.text("intro.md")?.contains("My own words about the sea.") == true)
        let refused = f.error {
            try f.store.edit(
                "intro.md", edits: [TextEdit(oldText: "My own words", newText: "Better words")],
                options: ChangeOptions(expectedVersion: ok.version), by: f.agent)
        }
        #expect(refused?.code == .userEdited)
        // Appending never conflicts, and does not make the person's lines the agent's.
        let appended = try f.store.append(
            "intro.md", content: "A note from the agent.", by: f.agent)
        #expect(
            f.code {
                try f.store.write(
                    "intro.md", content: rewrite,
                    options: ChangeOptions(expectedVersion: appended.version), by: f.agent)
            } == .userEdited)
        // With the person's consent the agent may overwrite.
        let confirmed = try f.store.write(
            "intro.md", content: rewrite,
            options: ChangeOptions(expectedVersion: appended.version, confirmUserEdits: true),
            by: f.agent)
        #expect(confirmed.changed && f.text("intro.md")?.contains("Revised paragraph one") == true)
        // Every replaced version is in history.
        for record in f.store.history.history(of: "intro.md").records {
            if let v = record.before { #expect(f.store.history.object(v) != nil) }
        }
        #expect(f.store.history.object(ContentVersion(of: afterEdit ?? []).short) != nil)
    }

    @Test func aTouchOrIdenticalRewriteIsNotAnEdit() throws {
        let f = try StoreFixture()
        let v = try f.agentCreates("a.md", draft)
        let bytes = try #require(f.bytes("a.md"))
        f.folder.write("a.md", bytes: bytes)  // a formatter rewrote the same bytes
        #expect(f.version("a.md") == v)
        let result = try f.store.write(
            "a.md", content: draft + "added\n", options: ChangeOptions(expectedVersion: v),
            by: f.agent)
        #expect(result.changed)
        // Writing the same text again changes nothing and logs nothing.
        let count = f.store.history.records().count
        let again = try f.store.write(
            "a.md", content: draft + "added\n",
            options: ChangeOptions(expectedVersion: result.version), by: f.agent)
        #expect(!again.changed || f.store.history.records().count == count + 1)
    }

    @Test func mergeCombinesTheAgentsTextWithThePersonsEdits() throws {
        let f = try StoreFixture()
        let v1 = try f.agentCreates("intro.md", draft)
        f.editOutside("intro.md") {
            $0.replacingOccurrences(
                of: "Agent paragraph three about the sea.", with: "My own words about the sea.")
        }
        let agentsNext = try #require(f.text("intro.md")).replacingOccurrences(
            of: "My own words about the sea.", with: "Agent paragraph three about the sea."
        )
        .replacingOccurrences(
            of: "Agent paragraph one about the whale.", with: "A sharper first paragraph.")
        let merged = try f.store.write(
            "intro.md", content: agentsNext,
            options: ChangeOptions(expectedVersion: v1, onConflict: .merge), by: f.agent)
        #expect(merged.merged)
        let text = try #require(f.text("intro.md"))
        #expect(
            text.contains("A sharper first paragraph.")
                && text.contains("My own words about the sea."))
        #expect(f.store.history.history(of: "intro.md").records.last?.operation == .merge)
    }

    @Test func mergeThatConflictsWritesNothingAndReturnsTheHunks() throws {
        let f = try StoreFixture()
        let v1 = try f.agentCreates("intro.md", draft)
        f.editOutside("intro.md") {
            $0.replacingOccurrences(of: "about Ahab", with: "about Ahab, as I see him")
        }
        let before = f.bytes("intro.md")
        let agentsNext = draft.replacingOccurrences(of: "about Ahab", with: "about the captain")
        let error = try #require(
            f.error {
                try f.store.write(
                    "intro.md", content: agentsNext,
                    options: ChangeOptions(expectedVersion: v1, onConflict: .merge), by: f.agent)
            })
        #expect(error.code == .mergeConflict)
        let hunk = try #require(error.details?.conflicts?.first)
        #expect(
            hunk.ours.contains("about the captain") && hunk.theirs.contains("as I see him")
                && hunk.base.contains("about Ahab."))
        #expect(f.bytes("intro.md") == before)
        // A file the agent never wrote has nothing to merge from.
        f.folder.write("mine.md", "The person's file.\n")
        let mine = try f.store.read("mine.md", by: f.agent)
        #expect(
            f.code {
                try f.store.write(
                    "mine.md", content: "x\n",
                    options: ChangeOptions(expectedVersion: mine.version, onConflict: .merge),
                    by: f.agent)
            } == .mergeConflict)
    }

    @Test func theMergeBaseIsTheAgentsLastWrittenVersion() throws {
        // Issue 32's sequence: the agent's edit_file wrote around the person's first
        // paragraph, so that paragraph is in the base and only the later changes are the
        // person's; a merge keeps all of it, and the person's lines stay theirs.
        let f = try StoreFixture()
        try f.agentCreates("intro.md", draft)
        f.editOutside("intro.md") { $0 + "\nThe person's first paragraph.\n" }
        let read = try f.store.read("intro.md", by: f.agent)
        let edited = try f.store.edit(
            "intro.md", edits: [TextEdit(oldText: "about Ahab.", newText: "about Ahab, revised.")],
            options: ChangeOptions(expectedVersion: read.version), by: f.agent)
        let agentsText = try #require(f.text("intro.md"))
        f.editOutside("intro.md") {
            $0.replacingOccurrences(of: "about the whale.", with: "about the whale, in my words.")
                + "\nThe person's second paragraph.\n"
        }
        let merged = try f.store.write(
            "intro.md",
            content: agentsText.replacingOccurrences(
                of: "about the sea.", with: "about the sea, sharpened."),
            options: ChangeOptions(expectedVersion: edited.version, onConflict: .merge), by: f.agent
        )
        #expect(merged.merged)
        let text = try #require(f.text("intro.md"))
        for line in [
            "about the whale, in my words.", "about Ahab, revised.", "about the sea, sharpened.",
            "The person's first paragraph.", "The person's second paragraph.",
        ] {
            #expect(text.contains(line), "\(line) is missing from the merge")
        }
        // A merge that would drop the person's lines (they are in the base) is refused.
        let now = try #require(f.version("intro.md"))
        let dropped = text.replacingOccurrences(of: "\nThe person's first paragraph.\n", with: "")
        #expect(
            f.code {
                try f.store.write(
                    "intro.md", content: dropped,
                    options: ChangeOptions(expectedVersion: edited.version, onConflict: .merge),
                    by: f.agent)
            } == .userEdited)
        #expect(f.version("intro.md") == now)
    }

    @Test func proposalsAreStoredAndReviewed() throws {
        let f = try StoreFixture()
        try f.agentCreates("intro.md", draft)
        f.editOutside("intro.md") { $0 + "My closing line.\n" }
        let read = try f.store.read("intro.md", by: f.agent)
        let proposed = try f.store.write(
            "intro.md", content: "# Rewritten\n",
            options: ChangeOptions(expectedVersion: read.version, onConflict: .propose), by: f.agent
        )
        let id = try #require(proposed.proposal)
        #expect(!proposed.changed && f.text("intro.md")?.contains("My closing line.") == true)
        #expect(f.store.proposals.list().map(\.id) == [id])
        #expect(
            f.store.proposedChange(try #require(f.store.proposals.proposal(id))).diff.contains(
                "+# Rewritten"))
        let accepted = try f.store.accept(id)
        #expect(accepted.changed && f.text("intro.md")?.contains("# Rewritten") == true)
        #expect(f.store.proposals.list().isEmpty)
        #expect(f.store.history.history(of: "intro.md").records.last?.operation == .accept)
        // A stale proposal cannot be accepted, but merges when it does not collide.
        let v = try #require(f.version("intro.md"))
        let second = try f.store.write(
            "intro.md", content: "# Rewritten\n\nAgent addition.\n",
            options: ChangeOptions(expectedVersion: "0123456789abcdef", onConflict: .propose),
            by: f.agent)
        let id2 = try #require(second.proposal)
        _ = v
        f.editOutside("intro.md") { $0 }
        let third = try f.store.write(
            "intro.md", content: "# Rewritten\n\nThird.\n",
            options: ChangeOptions(expectedVersion: "0123456789abcdef", onConflict: .propose),
            by: f.agent)
        let rejected = try f.store.reject(try #require(third.proposal))
        #expect(!rejected.changed && f.store.proposals.list().map(\.id) == [id2])
        let merged = try f.store.mergeProposal(id2)
        #expect(merged.merged && f.text("intro.md")?.contains("Agent addition.") == true)
    }

    @Test func aStaleEditStillAppliesAwayFromTheChangedLines() throws {
        let f = try StoreFixture()
        let v1 = try f.agentCreates("a.md", draft)
        _ = try f.store.read("a.md", by: f.agent)
        // Another session of the agent changed paragraph three.
        let other = try f.store.edit(
            "a.md", edits: [TextEdit(oldText: "about the sea", newText: "about the ocean")],
            options: ChangeOptions(expectedVersion: v1), by: f.agent)
        #expect(other.changed)
        let ok = try f.store.edit(
            "a.md", edits: [TextEdit(oldText: "about the whale", newText: "about Moby Dick")],
            options: ChangeOptions(expectedVersion: v1), by: f.agent)
        #expect(
            ok.changed && f.text("a.md")?.contains("about the ocean") == true
                && f.text("a.md")?.contains("about Moby Dick") == true)
        // ...but not on the changed lines.
        #expect(
            f.code {
                try f.store.edit(
                    "a.md", edits: [TextEdit(oldText: "about the ocean", newText: "x")],
                    options: ChangeOptions(expectedVersion: v1), by: f.agent)
            } == .staleVersion)
    }

    @Test func editErrorsAreClear() throws {
        let f = try StoreFixture()
        let v = try f.agentCreates("a.md", "x\nrepeat\nrepeat\n")
        let options = ChangeOptions(expectedVersion: v)
        #expect(
            f.error {
                try f.store.edit(
                    "a.md", edits: [TextEdit(oldText: "repeat", newText: "y")], options: options,
                    by: f.agent)
            }?.message.contains("2 times") == true)
        #expect(
            f.error {
                try f.store.edit(
                    "a.md", edits: [TextEdit(oldText: "absent", newText: "y")], options: options,
                    by: f.agent)
            }?.code == .invalidArgument)
        #expect(
            f.error { try f.store.edit("a.md", edits: [], options: options, by: f.agent) }?.code
                == .invalidArgument)
        #expect(
            f.error {
                try f.store.edit(
                    "nope.md", edits: [TextEdit(oldText: "a", newText: "b")], options: options,
                    by: f.agent)
            }?.code == .notFound)
        let dry = try f.store.edit(
            "a.md", edits: [TextEdit(oldText: "x\n", newText: "z\n")],
            options: ChangeOptions(expectedVersion: v, dryRun: true), by: f.agent)
        #expect(dry.dryRun && dry.diff?.contains("+z") == true && f.version("a.md") == v)
    }
}
