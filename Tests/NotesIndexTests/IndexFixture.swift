import Foundation
import NotesCore
import NotesIndex
import NotesSession
import NotesTestSupport

/// A temporary workspace with its own temporary index.
final class IndexFixture: @unchecked Sendable {
    let dir = TemporaryDirectory()
    var root: String { dir.path + "/ws" }

    init(files: [String: String] = [:], filler: Int = 20) {
        dir.write("ws/.notes/config.yml", "")
        for (path, text) in files { dir.write("ws/" + path, text) }
        // BM25 needs a corpus: on a handful of documents common terms get ~zero IDF.
        for i in 0..<filler {
            dir.write(
                "ws/filler/f\(i).md",
                "# Filler \(i)\n\nunrelated text about gardens, trains and number \(i).\n")
        }
    }

    func write(_ path: String, _ text: String) { dir.write("ws/" + path, text) }

    func open(refreshingSoon: Bool = false) throws -> NoteIndex {
        try NoteIndex(
            workspace: Workspace(root: root), directory: dir.path + "/index",
            refreshingSoon: refreshingSoon)
    }

    /// The workspace opened as the commands open it: the index with the change history.
    func session() throws -> WorkspaceSession {
        try WorkspaceSession(workspace: Workspace(root: root), indexDirectory: dir.path + "/index")
    }

    func refreshed() throws -> NoteIndex {
        let index = try open()
        _ = try index.refresh()
        return index
    }

    func search(
        _ text: String, _ index: NoteIndex? = nil,
        configure: (inout SearchQuery) throws -> Void = { _ in }
    ) throws -> SearchResults {
        let index = try index ?? refreshed()
        var query = try SearchQuery(parsing: text, isMetadataKey: index.hasMetadataKey)
        try configure(&query)
        return try index.search(query)
    }
}
