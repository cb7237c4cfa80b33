import Foundation
import NotesCore
import NotesIndex
import NotesSession
import NotesStore

/// One entry of `list_files`: a folder (with its file count) or a file, compactly: who
/// last changed the file as `by`, and `created_by` only when someone else created it.
struct ListedEntry: Encodable {
    var path: String
    var kind: String
    var files: Int?
    var size: Int?
    var title: String?
    var modified: String?
    var version: String?
    var by: String?
    var createdBy: String?

    enum CodingKeys: String, CodingKey {
        case path, kind, files, size, title, modified, version, by
        case createdBy = "created_by"
    }

    /// A file's title as list_files and search show it: nil when it is only the file's name
    /// (the path says it already).
    static func title(_ title: String, of path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
        return title.isEmpty || title == stem || title == name ? nil : title
    }
}

/// The answer to `list_files`: one page of entries (each with its full path, so the folder
/// listed is not repeated).
struct FileListing: Encodable {
    var entries: [ListedEntry]
    /// Entries in all pages.
    var total: Int
    /// More entries follow: pass `next_cursor` as `cursor` (absent on the last page).
    var truncated: Bool
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case entries, total, truncated
        case nextCursor = "next_cursor"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entries, forKey: .entries)
        try c.encode(total, forKey: .total)
        if truncated { try c.encode(true, forKey: .truncated) }
        try c.encodeIfPresent(nextCursor, forKey: .nextCursor)
    }
}

/// One version in `file_history`, newest first. `path` only when it is not the file asked
/// about (before a move); `previous_version` only when it is not the version of the entry
/// below it (the usual chain says it already).
struct HistoryEntry: Encodable {
    var version: String?
    var previousVersion: String?
    var operation: String
    var actor: String
    var client: String
    var time: String
    var path: String?
    var to: String?

    enum CodingKeys: String, CodingKey {
        case version, operation, actor, client, time, path, to
        case previousVersion = "previous_version"
    }
}

struct FileHistoryResult: Encodable {
    /// Only when it is not the path asked for (a name normalised on the way in).
    var path: String?
    /// The file's version now (nil when it does not exist).
    var currentVersion: String?
    var versions: [HistoryEntry]

    enum CodingKeys: String, CodingKey {
        case path, versions
        case currentVersion = "current_version"
    }
}

extension Toolbox {
    /// Entries per `list_files` page by default, and at most.
    static let listPage = 200
    static let listPageMax = 1_000
    /// Paths one `read_files` call reads at most; its answer holds at most this many
    /// read windows' bytes in all.
    static let readFilesMax = 20
    static let readFilesWindows = 4
    /// Below this much room left, the remaining paths are not read.
    static let readFilesSmallest = 4_096

    func readFile(_ args: ToolArguments, _ author: Author) throws(NotesError) -> ReadResult {
        let path = try pathArgument(args)
        let offset = try args.int("offset", in: 1...Int(Int32.max))
        let column = try args.int("column", in: 0...Int(Int32.max))
        let limit = try args.int("limit", in: 0...Int(Int32.max))
        return try read(
            path, offset: offset, column: column, limit: limit,
            window: workspace.config.readWindow, author)
    }

    /// One bounded read; a folder is pointed at list_files.
    func read(
        _ path: String, offset: Int?, column: Int? = nil, limit: Int?, window: ReadWindow,
        _ author: Author
    ) throws(NotesError) -> ReadResult {
        do {
            // Text that is not UTF-8 (Latin-1…) is read as search indexed it, with a note
            // (`encoding`); write_file refuses to save its U+FFFDs back over the bytes, edit_file
            // and append_file any change to it.
            return try store.read(
                path, offset: offset, column: column, limit: limit, window: window, lossy: true,
                by: author)
        } catch  where error.code == .notText {
            if let folder = try? WorkspacePath(path, in: workspace), !folder.relative.isEmpty,
                FileSystem.isDirectory(workspace.absolutePath(folder.relative))
            {
                throw NotesError(
                    .invalidArgument, "\(folder) is a folder, not a file",
                    hint: "list_files with path \"\(folder)\" shows what it holds",
                    details: ErrorDetails(
                        path: folder.relative,
                        options: [Self.call("list_files", ["path": "\(folder)"])]))
            }
            throw error
        }
    }

    /// `read_files`: several files in one call, each in a read window, the answer at most
    /// `readFilesWindows` windows in all; a path that fails gets its error in its place.
    func readFiles(_ args: ToolArguments, _ author: Author) throws(NotesError) -> JSONValue {
        let raw = try args.strings("paths", maxCount: Self.readFilesMax)
        guard !raw.isEmpty else {
            throw NotesError(
                .invalidArgument, "read_files needs 'paths' (1 to \(Self.readFilesMax) paths)",
                hint: "e.g. {\"paths\": [\"a.md\", \"b.md\"]}")
        }
        var paths: [String] = []
        for one in raw { paths.append(try cleanPath(one, argument: "paths", tool: "read_files")) }
        let window = workspace.config.readWindow
        var budget = window.bytes * Self.readFilesWindows
        var files: [JSONValue] = []
        for path in paths {
            guard budget >= Self.readFilesSmallest else {
                files.append(
                    .object([
                        "path": .string(path), "code": .string("too_large"),
                        "message": .string(
                            "not read: this answer reached its \(window.bytes * Self.readFilesWindows / 1024) KB total"
                        ),
                        "hint": .string("read it with read_file"),
                    ]))
                continue
            }
            do {
                let result = try read(
                    path, offset: nil, limit: nil,
                    window: ReadWindow(lines: window.lines, bytes: min(window.bytes, budget)),
                    author)
                budget -= result.content.utf8.count
                files.append(
                    Self.json(
                        ReadAnswer(
                            result, asked: nil,
                            searchable: index.searchesInside(result.path))))
            } catch {
                var object: [String: JSONValue] = ["path": .string(path)]
                if case .object(let fields)? = try? JSONValue.parse(
                    ToolOutcome.failure(
                        agentFacing(error, tool: "read_file", arguments: ["path": .string(path)])
                    ).json)
                {
                    for (key, value) in fields where key != "path" { object[key] = value }
                }
                files.append(.object(object))
            }
        }
        return .object(["files": .array(files)])
    }

    static func json(_ value: some Encodable) -> JSONValue {
        (try? ToolOutcome.encoder.encode(value)).flatMap { try? JSONValue.parse($0) } ?? .null
    }

    /// For a folder that does not exist but names a dotted hierarchy (Dendron's
    /// `dendron.topic.note.md` files live side by side, not in folders), the glob that
    /// lists it.
    private func dottedHierarchyHint(_ folder: String) -> String? {
        let parent = (folder as NSString).deletingLastPathComponent
        let name = (folder as NSString).lastPathComponent
        guard
            let names = try? FileManager.default.contentsOfDirectory(
                atPath: workspace.absolutePath(parent)),
            names.contains(where: { $0.hasPrefix(name + ".") && $0 != name + ".md" })
        else { return nil }
        let path = parent.isEmpty ? "" : "path \"\(parent)\" and "
        return "its notes are files named \(name).*: list_files with \(path)glob \"\(name).*\""
    }

    func listFiles(_ args: ToolArguments) throws(NotesError) -> FileListing {
        let raw = try optionalPath(args) ?? ""
        let recursive = try args.bool("recursive")
        let tree = try args.bool("tree")
        let depthArgument = try args.int("depth", in: 1...64)
        let glob = try args.string("glob")
        let limit = try args.int("limit", in: 1...Self.listPageMax) ?? Self.listPage
        let start: Int
        if let cursor = try args.string("cursor") {
            guard let n = Int(cursor), n >= 0 else {
                throw NotesError(
                    .invalidArgument, "list_files: unknown cursor '\(cursor.prefix(40))'",
                    hint:
                        "pass the next_cursor of the previous answer, with the same other arguments"
                )
            }
            start = n
        } else {
            start = 0
        }
        let folder = try WorkspacePath(raw, in: workspace)
        let policy = workspace.config.policy
        if !folder.relative.isEmpty {
            if policy.hidesFolder(folder.relative) {
                throw NotesError(
                    .protectedPath, "\(folder) is a protected path that agents cannot see",
                    hint: "list another folder")
            }
            guard FileSystem.isDirectory(workspace.absolutePath(folder.relative)) else {
                if FileSystem.exists(workspace.absolutePath(folder.relative)) {
                    throw NotesError(
                        .invalidArgument, "\(folder) is a file, not a folder",
                        hint: "use read_file to read it")
                }
                throw NotesError(
                    .notFound, "no folder \(folder) in the workspace",
                    hint: dottedHierarchyHint(folder.relative)
                        ?? "call list_files without a path to see the top-level folders")
            }
        }
        let depth =
            tree
            ? (depthArgument ?? 3) : (recursive || glob != nil ? Int.max : (depthArgument ?? 1))
        // One level (the usual call) is the index's own listing, which builds entries only
        // for the folder's files and counts the rest by folder.
        let oneLevel = depth == 1 && !tree
        let listing: Listing
        do {
            try refreshIndex()
            listing = try index.listing(
                folder: folder.relative, recursive: !oneLevel, glob: glob, sort: .path)
        } catch  where error.cause == .indexUnusable {
            // The index's folder cannot be used (issue 34): the files are all there to walk.
            listing = Listing.walking(
                workspace, folder: folder.relative, recursive: !oneLevel, glob: glob, sort: .path)
        }
        let prefix = folder.relative.isEmpty ? "" : folder.relative + "/"
        var folderCounts: [String: Int] = [:]
        if oneLevel { for sub in listing.folders { folderCounts[sub.path] = sub.files } }
        var fileEntries: [ListedEntry] = []
        for file in listing.files
        where policy.rule(for: file.path) != .deny && !policy.isProtected(file.path) {
            let parts = file.path.dropFirst(prefix.count).split(separator: "/")
            if tree {
                // Every folder on the way down, to `depth`, counts the file.
                var sub = prefix
                for part in parts.dropLast().prefix(depth) {
                    sub += part
                    folderCounts[sub, default: 0] += 1
                    sub += "/"
                }
                continue
            }
            if parts.count > depth {
                folderCounts[prefix + parts.prefix(depth).joined(separator: "/"), default: 0] += 1
                continue
            }
            let provenance = file.provenance
            let by = provenance.lastModifiedBy?.rawValue
            let created = provenance.createdBy?.rawValue
            fileEntries.append(
                ListedEntry(
                    path: file.path, kind: file.kind.rawValue, size: file.size,
                    title: ListedEntry.title(file.title, of: file.path),
                    modified: file.modified, version: file.version, by: by,
                    createdBy: created == by ? nil : created))
        }
        var entries: [ListedEntry] = folderCounts.keys.sorted().filter { !policy.hidesFolder($0) }
            .map { ListedEntry(path: $0, kind: "folder", files: folderCounts[$0]) }
        entries += fileEntries
        let total = entries.count
        let page = Array(entries.dropFirst(start).prefix(limit))
        let next = start + page.count < total ? String(start + page.count) : nil
        return FileListing(entries: page, total: total, truncated: next != nil, nextCursor: next)
    }

    func search(_ args: ToolArguments) throws(NotesError) -> SearchAnswer {
        let text = try args.requiredString("query", maxBytes: SearchQuery.maxLength)
        let scope = try args.string("path")
        let tags = try args.strings("tags")
        let by = try args.choice("by", ["agent", "user"])
        let kind = try args.choice("kind", DocumentKind.allCases.map(\.rawValue))
        let limit = try args.int("limit", in: 1...100) ?? 10
        let mode = try args.choice("mode", SearchMode.allCases.map(\.rawValue)).flatMap(
            SearchMode.init(rawValue:))
        try refreshIndex()
        var query = try SearchQuery(parsing: text, isMetadataKey: index.hasMetadataKey)
        query.limit = limit
        query.filters.hideProtected = true
        query.mode = mode
        if mode != .lexical { query.embedder = embedding?.model }
        if let scope, !scope.isEmpty {
            if scope.contains("*") || scope.contains("?") || scope.contains("[") {
                try query.applyFilter(key: "path", value: scope)
            } else {
                let folder = try WorkspacePath(scope, in: workspace)
                if !folder.relative.isEmpty {
                    try query.applyFilter(key: "in", value: folder.relative)
                }
            }
        }
        for tag in tags { try query.applyFilter(key: "tag", value: tag) }
        if let by { try query.applyFilter(key: "by", value: by) }
        if let kind { try query.applyFilter(key: "kind", value: kind) }
        // A file search does not look inside: say so and offer to read it, unless the
        // agent may not know it is there.
        if let file = index.unsearchedFile(query), !workspace.config.policy.isProtected(file),
            workspace.config.policy.rule(for: file) != .deny
        {
            var error = index.unsearchedFileError(file, hint: "read_file reads it in pages")
            error.details = ErrorDetails(
                path: file, options: [Self.call("read_file", ["path": file])])
            throw error
        }
        if let folder = index.missingFolder(query) {
            let policy = workspace.config.policy
            if policy.isProtected(folder) || policy.hidesFolder(folder) {
                throw NotesError(
                    .protectedPath, "\(folder) is a protected path that agents cannot see",
                    hint: "search another folder, or without path")
            }
            // A near miss among the folders the agent may see (`Jornal`, `journal`).
            let suggestions = nearMisses(folder, folders: true)
            if !suggestions.isEmpty {
                let shown = suggestions.map { "\"\($0)\"" }.joined(separator: " or ")
                throw NotesError(
                    .notFound,
                    "there is no folder or file \(folder) in the workspace; did you mean \(shown)?",
                    hint: "search with path \"\(suggestions[0])\"",
                    details: ErrorDetails(
                        path: folder,
                        options: suggestions.map {
                            Self.call("search", ["query": text, "path": $0])
                        },
                        didYouMean: suggestions))
            }
            throw NotesError(
                .notFound, "there is no folder or file \(folder) in the workspace",
                hint: "list_files shows the folders; search without path to search everywhere")
        }
        let detail = try args.bool("detail")
        return SearchAnswer(try index.search(query), detail: detail) { hit in
            quotedFiles.file(hit.path, version: hit.version) {
                try? FileBytes.read(
                    path: workspace.absolutePath(hit.path),
                    maxBytes: workspace.config.readMaxBytes, checkingLocation: true)
            }
        }
    }

    func related(_ args: ToolArguments, _ author: Author) throws(NotesError) -> RelatedNotes {
        let path = try store.readablePath(try pathArgument(args), by: author)
        let limit = try args.int("limit", in: 1...50) ?? 10
        try refreshIndex()
        do {
            return try index.related(to: path.relative, limit: limit, hideProtected: true)
        } catch
            where error.cause == .notEmbeddedYet && embedding != nil
            && embedding?.lastError == nil
        {
            // This server embeds in the background and its passes succeed: the vectors are
            // on their way (a failing pass keeps the error that says what to do).
            throw NotesError(
                .busy,
                "\(path.relative) is not embedded yet: the workspace is being embedded in the background (\(semanticState()))",
                hint: "retry related in a minute; search finds notes by their words meanwhile")
        }
    }

    func fileHistory(_ args: ToolArguments, _ author: Author) throws(NotesError)
        -> FileHistoryResult
    {
        let path = try store.readablePath(try pathArgument(args), by: author)
        let records = store.history.history(of: path.relative).records
        let bytes = try? FileBytes.read(
            path: workspace.absolutePath(path.relative), maxBytes: workspace.config.readMaxBytes,
            checkingLocation: true)
        if records.isEmpty && bytes == nil {
            throw NotesError(
                .notFound, "\(path) does not exist and has no history",
                hint: "check the path with list_files or search")
        }
        var versions = records.reversed().map { record in
            HistoryEntry(
                version: record.after, previousVersion: record.before,
                operation: record.operation.rawValue,
                actor: record.actor.rawValue, client: record.client, time: record.time,
                path: record.path == path.relative ? nil : record.path, to: record.to)
        }
        for i in versions.indices.dropLast()
        where versions[i].previousVersion == versions[i + 1].version {
            versions[i].previousVersion = nil
        }
        return FileHistoryResult(
            path: path.relative == args.given("path") ? nil : path.relative,
            currentVersion: bytes.map { ContentVersion(of: $0).short },
            versions: versions)
    }

    /// A tool call as an agent would write it, for an error's `options`: `name {"k": "v"}`.
    static func call(_ name: String, _ arguments: [String: String]) -> String {
        let json =
            (try? JSONSerialization.data(
                withJSONObject: arguments, options: [.sortedKeys, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return name + " "
            + json.replacingOccurrences(of: "\":\"", with: "\": \"")
            .replacingOccurrences(of: "\",\"", with: "\", \"")
    }
}
