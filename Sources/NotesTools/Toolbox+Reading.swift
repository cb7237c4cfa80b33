import Foundation
import NotesCore
import NotesIndex
import NotesStore

/// One entry of `list_files`: a folder (with its file count) or a file.
struct ListedEntry: Encodable {
    var path: String
    var kind: String
    var files: Int?
    var size: Int?
    var title: String?
    var modified: String?
    var version: String?
    var provenance: Provenance?
}

/// The answer to `list_files`.
struct FileListing: Encodable {
    var path: String
    var entries: [ListedEntry]
    /// Entries before truncation.
    var total: Int
    var truncated: Bool
}

/// One version in `file_history`, newest first.
struct HistoryEntry: Encodable {
    var version: String?
    var previousVersion: String?
    var operation: String
    var actor: String
    var client: String
    var time: String
    var path: String
    var to: String?

    enum CodingKeys: String, CodingKey {
        case version, operation, actor, client, time, path, to
        case previousVersion = "previous_version"
    }
}

struct FileHistoryResult: Encodable {
    var path: String
    /// The file's version now (nil when it does not exist).
    var currentVersion: String?
    var versions: [HistoryEntry]

    enum CodingKeys: String, CodingKey {
        case path, versions
        case currentVersion = "current_version"
    }
}

extension Toolbox {
    /// Most entries `list_files` returns in one answer.
    static let listLimit = 1_000

    func readFile(_ args: ToolArguments, _ author: Author) throws(NotesError) -> ReadResult {
        let path = try args.requiredString("path")
        let offset = try args.int("offset", in: 1...Int(Int32.max))
        let limit = try args.int("limit", in: 0...Int(Int32.max))
        return try store.read(path, offset: offset, limit: limit, by: author)
    }

    func listFiles(_ args: ToolArguments) throws(NotesError) -> FileListing {
        let raw = try args.string("path") ?? ""
        let recursive = try args.bool("recursive")
        let glob = try args.string("glob")
        let folder = try WorkspacePath(raw, in: workspace)
        let policy = workspace.config.policy
        if !folder.relative.isEmpty {
            if policy.hidesFolder(folder.relative) {
                throw NotesError(.protectedPath, "\(folder) is a protected path that agents cannot see", hint: "list another folder")
            }
            guard FileSystem.isDirectory(workspace.absolutePath(folder.relative)) else {
                if FileSystem.exists(workspace.absolutePath(folder.relative)) {
                    throw NotesError(.invalidArgument, "\(folder) is a file, not a folder", hint: "use read_file to read it")
                }
                throw NotesError(.notFound, "no folder \(folder) in the workspace", hint: "call list_files without a path to see the top-level folders")
            }
        }
        _ = try index.refreshIfNeeded()
        let listing = try index.listing(folder: folder.relative, recursive: recursive || glob != nil, glob: glob, sort: .path)
        var entries: [ListedEntry] = []
        for sub in listing.folders where !policy.hidesFolder(sub.path) {
            entries.append(ListedEntry(path: sub.path, kind: "folder", files: sub.files))
        }
        for file in listing.files where policy.rule(for: file.path) != .deny {
            entries.append(ListedEntry(path: file.path, kind: file.kind.rawValue, size: file.size, title: file.title,
                                       modified: file.modified, version: file.version, provenance: file.provenance))
        }
        let total = entries.count
        if total > Self.listLimit { entries.removeLast(total - Self.listLimit) }
        return FileListing(path: folder.relative, entries: entries, total: total, truncated: total > Self.listLimit)
    }

    func search(_ args: ToolArguments) throws(NotesError) -> SearchResults {
        let text = try args.requiredString("query", maxBytes: SearchQuery.maxLength)
        let scope = try args.string("path")
        let tags = try args.strings("tags")
        let by = try args.choice("by", ["agent", "user"])
        let kind = try args.choice("kind", DocumentKind.allCases.map(\.rawValue))
        let limit = try args.int("limit", in: 1...100) ?? 10
        _ = try index.refreshIfNeeded()
        var query = try SearchQuery(parsing: text, isMetadataKey: index.hasMetadataKey)
        query.limit = limit
        query.filters.hideProtected = true
        if let scope, !scope.isEmpty {
            if scope.contains("*") || scope.contains("?") || scope.contains("[") {
                try query.applyFilter(key: "path", value: scope)
            } else {
                let folder = try WorkspacePath(scope, in: workspace)
                if !folder.relative.isEmpty { try query.applyFilter(key: "in", value: folder.relative) }
            }
        }
        for tag in tags { try query.applyFilter(key: "tag", value: tag) }
        if let by { try query.applyFilter(key: "by", value: by) }
        if let kind { try query.applyFilter(key: "kind", value: kind) }
        return try index.search(query)
    }

    func fileHistory(_ args: ToolArguments, _ author: Author) throws(NotesError) -> FileHistoryResult {
        let path = try store.readablePath(try args.requiredString("path"), by: author)
        let records = store.history.history(of: path.relative).records
        let bytes = try? FileBytes.read(path: workspace.absolutePath(path.relative), maxBytes: workspace.config.readMaxBytes, checkingLocation: true)
        if records.isEmpty && bytes == nil {
            throw NotesError(.notFound, "\(path) does not exist and has no history", hint: "check the path with list_files or search")
        }
        let versions = records.reversed().map { record in
            HistoryEntry(version: record.after, previousVersion: record.before, operation: record.operation.rawValue,
                         actor: record.actor.rawValue, client: record.client, time: record.time, path: record.path, to: record.to)
        }
        return FileHistoryResult(path: path.relative, currentVersion: bytes.map { ContentVersion(of: $0).short }, versions: versions)
    }
}
