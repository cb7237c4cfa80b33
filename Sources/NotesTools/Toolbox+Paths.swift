import Foundation
import NotesCore
import NotesIndex
import NotesSession
import NotesStore

/// Paths as an agent gives them, and what a `not_found` tells it (issue 32, items 3 and 8):
/// backslashes are refused, names are NFC-normalised on the way in, and a missing file's
/// answer says where it went (moved, deleted) or which path was probably meant. Every hint
/// names a tool, never a command line.
extension Toolbox {
    /// The path argument `name` (required), cleaned for the workspace.
    func pathArgument(_ args: ToolArguments, _ name: String = "path") throws(NotesError) -> String {
        try cleanPath(try args.requiredString(name), argument: name, tool: args.tool)
    }

    /// An optional path argument, cleaned.
    func optionalPath(_ args: ToolArguments, _ name: String = "path") throws(NotesError) -> String?
    {
        guard let raw = try args.string(name) else { return nil }
        return try cleanPath(raw, argument: name, tool: args.tool)
    }

    /// A path from outside a tool call (a `notes://` resource URI), cleaned the same way.
    public func agentPath(_ raw: String) throws(NotesError) -> String {
        try cleanPath(raw, argument: "uri", tool: "resources/read")
    }

    /// Refuses backslashes (a Windows-style path would become one file name with `\` in it)
    /// and returns the NFC form — unless the name exists on disk only in another form (a
    /// file saved on macOS, say), which is kept so the file can be reached.
    func cleanPath(_ raw: String, argument: String, tool: String) throws(NotesError) -> String {
        if raw.contains("\\") {
            let forward = raw.replacingOccurrences(of: "\\", with: "/")
            throw NotesError(
                .invalidArgument,
                "\(tool): '\(argument)' contains a backslash; workspace paths use forward slashes",
                hint: "pass \"\(forward)\"", details: ErrorDetails(path: forward))
        }
        let nfc = raw.precomposedStringWithCanonicalMapping
        if nfc.utf8.elementsEqual(raw.utf8) { return raw }
        if FileSystem.exists(workspace.absolutePath(raw))
            && !FileSystem.exists(workspace.absolutePath(nfc))
        {
            return raw
        }
        return nfc
    }

    /// The error an agent gets: a `not_found` for a path gains where the file went or which
    /// path was meant; hints that named a command line name tools instead.
    func agentFacing(_ error: NotesError, tool: String, arguments: [String: JSONValue]?)
        -> NotesError
    {
        var error = error
        if let hint = error.hint, hint.contains("`notes history") {
            error.hint = "file_history lists the versions it has"
        } else if let hint = error.hint,
            hint.hasPrefix("run `notes") || hint.hasPrefix("stop the other notes")
        {
            error.hint = "ask the person to " + hint  // only they have a command line
        } else if let hint = error.hint, hint.contains("`notes list`") {
            error.hint = "list_files shows what exists; search finds files by what they say"
        }
        // Only tools whose not_found is about the file at `path` (fetch_url's is the web's).
        guard error.code == .notFound, Self.fileTools.contains(tool) else { return error }
        let key = tool == "move_file" ? "from" : "path"
        guard case .string(let raw)? = arguments?[key], !raw.isEmpty,
            let cleaned = try? cleanPath(raw, argument: key, tool: tool)
        else { return error }
        return notFound(cleaned, original: error, tool: tool)
    }

    static let fileTools: Set<String> = [
        "read_file", "edit_file", "delete_file", "move_file", "restore_file", "file_history",
        "list_files",
    ]

    /// `not_found` for `raw`, with what the log and the workspace's names say about it.
    func notFound(_ raw: String, original: NotesError, tool: String) -> NotesError {
        guard let path = try? WorkspacePath(raw, in: workspace), !path.relative.isEmpty,
            !FileSystem.exists(workspace.absolutePath(path.relative))
        else {
            var error = original
            if error.hint?.contains("`notes") ?? false {
                error.hint = "list_files shows what exists; search finds files by what they say"
            }
            return error
        }
        let relative = path.relative
        // Gone while the log says it is there: the person removed or moved it outside notes
        // (logged now, as get_context would).
        if store.history.history(of: relative).versionLeft(at: relative) != nil {
            noteFilesRemovedOutside()
        }
        // Moved or deleted, by the log.
        switch store.history.whereabouts(of: relative) {
        case .moved(let current, let record)
        where workspace.config.policy.rule(for: current) != .deny
            && !workspace.config.policy.isProtected(current):
            return NotesError(
                .notFound,
                "\(relative) was moved to \(current) (\(record.madeBy), \(record.time))",
                hint: "\(tool) with path \"\(current)\"",
                details: ErrorDetails(
                    path: relative, options: [Self.call(tool, ["path": current])],
                    movedTo: current))
        case .deleted(let version, let record):
            return NotesError(
                .notFound,
                "\(relative) was deleted (\(record.madeBy), \(record.time)); its last version \(version) is kept in history",
                hint:
                    "restore_file with path \"\(relative)\" and version \"\(version)\" brings it back",
                details: ErrorDetails(
                    path: relative,
                    options: [
                        Self.call("restore_file", ["path": relative, "version": version]),
                        "file_history",
                    ],
                    restorableVersion: version))
        default:
            break
        }
        // A near miss among the names the agent may see (list_files wants a folder).
        let suggestions = nearMisses(relative, folders: tool == "list_files")
        if !suggestions.isEmpty {
            let shown = suggestions.map { "\"\($0)\"" }.joined(separator: " or ")
            return NotesError(
                .notFound, "no file at \(relative); did you mean \(shown)?",
                hint: "\(tool) with path \"\(suggestions[0])\"",
                details: ErrorDetails(
                    path: relative, options: suggestions.map { Self.call(tool, ["path": $0]) },
                    didYouMean: suggestions))
        }
        // list_files' own answer knows folders (a dotted hierarchy's glob).
        if tool == "list_files", original.hint != nil { return original }
        return NotesError(
            .notFound, original.message.isEmpty ? "no file at \(relative)" : original.message,
            hint: "list_files shows what exists; search finds files by what they say",
            details: ErrorDetails(path: relative, options: ["list_files", "search"]))
    }

    /// Paths the agent probably meant by `wanted`: another case, a missing or different
    /// extension, the other Unicode normalisation, one letter off, or the same name in
    /// another folder. At most 5, best first.
    func nearMisses(_ wanted: String, folders: Bool = false) -> [String] {
        _ = try? refreshIndex()
        guard
            let listed = try? index.listing(folder: "", recursive: true, glob: nil, sort: .path)
                .files.map(\.path)
        else { return [] }
        // For a folder, the folders that hold the files.
        let candidates =
            folders
            ? Set(
                listed.flatMap { path in
                    let parts = path.split(separator: "/").dropLast()
                    return parts.indices.map { parts[...$0].joined(separator: "/") }
                }
            ).sorted() : listed
        let policy = workspace.config.policy
        let lower = wanted.lowercased()
        let stem = Self.withoutExtension(lower)
        let name = String(lower.split(separator: "/").last ?? "")
        var ranked: [(rank: Int, path: String)] = []
        for candidate in candidates
        where policy.rule(for: candidate) != .deny && !policy.isProtected(candidate)
            && !(folders && policy.hidesFolder(candidate))
        {
            guard !candidate.utf8.elementsEqual(wanted.utf8) else { continue }
            let folded = candidate.lowercased()
            let rank: Int
            if folded == lower {
                rank = 0  // case, or the other Unicode normalisation (String == is canonical)
            } else if Self.withoutExtension(folded) == lower
                || Self.withoutExtension(folded) == stem
            {
                rank = 1  // the extension left out or wrong
            } else if Self.oneEditApart(Array(folded), Array(lower)) {
                rank = 2
            } else if !name.isEmpty, folded.split(separator: "/").last.map(String.init) == name {
                rank = 3  // right name, another folder
            } else {
                continue
            }
            ranked.append((rank, candidate))
        }
        return ranked.sorted { ($0.rank, $0.path) < ($1.rank, $1.path) }.prefix(5).map(\.path)
    }

    static func withoutExtension(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return path }
        return String(path[..<dot])
    }

    /// Whether one insertion, deletion or substitution turns `a` into `b`.
    static func oneEditApart(_ a: [Character], _ b: [Character]) -> Bool {
        guard abs(a.count - b.count) <= 1 else { return false }
        var i = 0
        var j = 0
        var edits = 0
        while i < a.count && j < b.count {
            if a[i] == b[j] {
                i += 1
                j += 1
                continue
            }
            edits += 1
            if edits > 1 { return false }
            if a.count > b.count {
                i += 1
            } else if a.count < b.count {
                j += 1
            } else {
                i += 1
                j += 1
            }
        }
        edits += (a.count - i) + (b.count - j)
        return edits == 1
    }
}
