import Foundation
import GRDB
import NotesCore

extension NoteIndex {
    /// Files under `folder` (workspace-relative, "" for the root), optionally recursive and
    /// filtered by a glob on the path.
    public func listing(folder: String, recursive: Bool, glob: String?, sort: ListSort)
        throws(NotesError) -> Listing
    {
        try recoveringFromDamage { () throws(NotesError) -> Listing in
            try listingOnce(folder: folder, recursive: recursive, glob: glob, sort: sort)
        }
    }

    func listingOnce(folder: String, recursive: Bool, glob: String?, sort: ListSort)
        throws(NotesError) -> Listing
    {
        let order: String
        switch sort {
        case .path: order = "path"
        case .modified: order = "modified_ts DESC, path"
        case .created: order = "created_ts DESC, path"
        case .title: order = "title COLLATE NOCASE, path"
        case .size: order = "size DESC, path"
        }
        do {
            return try pool.read { db in
                var sql = "SELECT * FROM files"
                var args: [(any DatabaseValueConvertible)?] = []
                if !folder.isEmpty {
                    sql += " WHERE substr(path, 1, ?) = ?"
                    args += [folder.utf8.count + 1, folder + "/"]
                }
                sql += " ORDER BY \(order)"
                let prefix = folder.isEmpty ? "" : folder + "/"
                let matcher = glob.map { Glob($0) }
                var files: [FileEntry] = []
                var folderCounts: [String: Int] = [:]
                let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(args))
                while let row = try rows.next() {
                    let path: String = row["path"]
                    let rest = path.dropFirst(prefix.count)
                    if !recursive, let slash = rest.firstIndex(of: "/") {
                        folderCounts[prefix + rest[..<slash], default: 0] += 1
                        continue
                    }
                    if let matcher,
                        !(matcher.matches(path)
                            || (!matcher.isAnchored
                                && matcher.matches(String(path.split(separator: "/").last ?? ""))))
                    {
                        continue
                    }
                    files.append(
                        FileEntry(
                            path: path, kind: DocumentKind(rawValue: row["kind"]) ?? .note,
                            format: FileFormat(rawValue: row["format"]) ?? .other,
                            size: row["size"], title: row["title"], modified: row["modified_at"],
                            version: String((row["digest"] as String).prefix(16)),
                            provenance: Self.provenance(row), indexed: row["indexed"]))
                }
                let folders = folderCounts.keys.sorted().map {
                    FolderEntry(path: $0, files: folderCounts[$0]!)
                }
                return Listing(folder: folder, folders: glob == nil ? folders : [], files: files)
            }
        } catch {
            throw wrap(error)
        }
    }

    /// Counts, per-file diagnostics and the database size.
    public func status() throws(NotesError) -> IndexStatus {
        try recoveringFromDamage { () throws(NotesError) -> IndexStatus in try statusOnce() }
    }

    func statusOnce() throws(NotesError) -> IndexStatus {
        do {
            return try pool.read { db in
                var byKind: [String: Int] = [:]
                for row in try Row.fetchAll(
                    db, sql: "SELECT kind, COUNT(*) AS n FROM files GROUP BY kind")
                {
                    byKind[row["kind"]] = row["n"]
                }
                let files = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM files") ?? 0
                let indexed =
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM files WHERE indexed = 1") ?? 0
                let sections =
                    try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(section_count), 0) FROM files")
                    ?? 0
                let diagnostics = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT f.path AS path, d.code AS code, d.message AS message, d.line AS line
                        FROM diagnostics d JOIN files f ON f.id = d.file_id ORDER BY f.path
                        """
                ).map { row in
                    Diagnostic(
                        path: row["path"],
                        code: Diagnostic.Code(rawValue: row["code"]) ?? .unreadable,
                        message: row["message"], line: row["line"])
                }
                var size = 0
                for suffix in ["", "-wal"] {
                    var info = stat()
                    if stat(databasePath + suffix, &info) == 0 { size += Int(info.st_size) }
                }
                return IndexStatus(
                    files: files, indexed: indexed, sections: sections, byKind: byKind,
                    diagnostics: diagnostics,
                    databaseBytes: size, indexDirectory: directory)
            }
        } catch {
            throw wrap(error)
        }
    }
}
