import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// `files.hidden` (HiddenFiles): an agent's search leaves out what the policy hides, by the
/// flags when they were set under the searcher's own policy, by asking the policy otherwise,
/// and a refresh under a changed policy re-flags the files.
@Suite struct HiddenFilesTests {
    static let files = [
        "notes/whales.md": "# Whales\n\nThe sperm whale dives deep.\n",
        "private/diary.md": "# Diary\n\nI dreamt of a whale.\n",
        "keys/server.key": "whale key material\n",
        "notes/secrets/plan.md": "# Plan\n\nwhale plan\n",
    ]

    func agentSearch(_ fixture: IndexFixture, _ index: NoteIndex, _ text: String = "whale") throws
        -> [String]
    {
        try fixture.search(text, index) { $0.filters.hideProtected = true }.hits.map(\.path)
            .sorted()
    }

    func flags(_ fixture: IndexFixture) throws -> (policy: String?, hidden: [String]) {
        let db = try DatabaseQueue(
            path: fixture.dir.path + "/index/index.sqlite", configuration: .withTokenReplay)
        return try db.read { db in
            (
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'hidden_policy'"),
                try String.fetchAll(db, sql: "SELECT path FROM files WHERE hidden ORDER BY path")
            )
        }
    }

    @Test func theDefaultPolicyHidesKeysAndSecretsByFlag() throws {
        let fixture = IndexFixture(files: Self.files)
        let index = try fixture.refreshed()
        let stored = try flags(fixture)
        #expect(stored.policy == index.workspace.config.policy.fingerprint)
        #expect(stored.hidden == ["keys/server.key", "notes/secrets/plan.md"])
        #expect(try agentSearch(fixture, index) == ["notes/whales.md", "private/diary.md"])
        // A person's search hides nothing (a .key file is listed, not indexed); a filter-only
        // agent listing uses the flag too.
        #expect(
            try fixture.search("whale", index).hits.map(\.path).sorted() == [
                "notes/secrets/plan.md", "notes/whales.md", "private/diary.md",
            ])
        #expect(
            try fixture.search("in:notes", index).hits.map(\.path).sorted() == [
                "notes/secrets/plan.md", "notes/whales.md",
            ])
        #expect(try agentSearch(fixture, index, "in:notes") == ["notes/whales.md"])
    }

    @Test func aChangedPolicyIsObeyedBeforeAndAfterTheFilesAreReflagged() throws {
        let fixture = IndexFixture(files: Self.files)
        let before = try fixture.refreshed()
        let oldFingerprint = before.workspace.config.policy.fingerprint

        // The person denies private/** while nothing else changes.
        fixture.write(".notes/config.yml", "policy:\n  \"private/**\": deny\n")
        let after = try fixture.open()
        #expect(after.workspace.config.policy.fingerprint != oldFingerprint)
        // Flags are still the old policy's: the search asks the new policy per file.
        #expect(try flags(fixture).policy == oldFingerprint)
        let asked = try after.search(
            try SearchQuery(parsing: "whale", isMetadataKey: { _ in false })
                .hiding())
        #expect(asked.hits.map(\.path) == ["notes/whales.md"])
        #expect(asked.total == 1)

        // A refresh with no file changes re-flags under the new policy.
        _ = try after.refresh()
        let stored = try flags(fixture)
        #expect(stored.policy == after.workspace.config.policy.fingerprint)
        #expect(stored.hidden == ["keys/server.key", "notes/secrets/plan.md", "private/diary.md"])
        #expect(try agentSearch(fixture, after) == ["notes/whales.md"])

        // A process still running under the old policy writes: it re-flags for its policy,
        // and the new-policy reader, seeing another fingerprint, asks its own policy again.
        fixture.write("private/more.md", "# More\n\nanother whale\n")
        _ = try before.refresh()
        #expect(try flags(fixture).policy == oldFingerprint)
        #expect(try agentSearch(fixture, after) == ["notes/whales.md"])
        #expect(
            try agentSearch(fixture, before) == [
                "notes/whales.md", "private/diary.md", "private/more.md",
            ])
    }

    @Test func fingerprintsFollowWhatThePolicyHides() {
        #expect(PathPolicy().fingerprint == PathPolicy().fingerprint)
        #expect(PathPolicy(protected: ["*.secret"]).fingerprint != PathPolicy().fingerprint)
        #expect(
            PathPolicy(rules: [("a/**", .deny)]).fingerprint
                != PathPolicy(rules: [("a/**", .read)]).fingerprint)
        #expect(
            PathPolicy(rules: [("a/**", .deny), ("b/**", .deny)]).fingerprint
                != PathPolicy(rules: [("b/**", .deny), ("a/**", .deny)]).fingerprint)
    }
}

extension SearchQuery {
    fileprivate func hiding() -> SearchQuery {
        var copy = self
        copy.filters.hideProtected = true
        return copy
    }
}
