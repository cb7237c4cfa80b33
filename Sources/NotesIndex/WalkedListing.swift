import Foundation
import NotesCore
import NotesDocuments

extension Listing {
    /// `notes list` without the search index, when its folder cannot be used (``IndexFolder``):
    /// the files walked and read now, each shown as the index would show it from the file
    /// alone (title, kind, size, version, the front matter's provenance completed from the
    /// mtime; not the history log's corrections), with `indexed` false. Same folders, glob
    /// and order as ``NoteIndex/listing(folder:recursive:glob:sort:)``.
    public static func walking(
        _ workspace: Workspace, folder: String, recursive: Bool, glob: String?, sort: ListSort
    ) -> Listing {
        let scan = FileScanner(workspace: workspace).scan(below: folder)
        let prefix = folder.isEmpty ? "" : folder + "/"
        let matcher = glob.map { Glob($0) }
        var folderCounts: [String: Int] = [:]
        var picked: [ScannedFile] = []
        for file in scan.files {
            let rest = file.path.dropFirst(prefix.count)
            if !recursive, let slash = rest.firstIndex(of: "/") {
                folderCounts[prefix + rest[..<slash], default: 0] += 1
                continue
            }
            if let matcher,
                !(matcher.matches(file.path)
                    || (!matcher.isAnchored
                        && matcher.matches(String(file.path.split(separator: "/").last ?? ""))))
            {
                continue
            }
            picked.append(file)
        }
        let maxBytes = workspace.config.indexMaxBytes
        let root = workspace.root
        let chosen = picked
        let entries = ParallelSlots<FileEntry>(count: chosen.count)
        DispatchQueue.concurrentPerform(iterations: chosen.count) { i in
            let file = chosen[i]
            let processed = NoteIndex.process(
                PendingFile(file: file, known: nil), root: root, maxBytes: maxBytes)
            var digest = ""
            var title = DocumentParser.fileTitle(file.path)
            var stated = Provenance()
            switch processed.outcome {
            case .parsed(let d, let document, _, _):
                (digest, title, stated) = (d, document.title, document.provenance)
            case .listedOnly(let d, _):
                digest = d
            case .touched, .vanished:
                return
            }
            let mtime = Double(file.mtimeNanos) / 1e9
            let provenance = stated.effective(mtimeSeconds: mtime)
            entries.set(
                i,
                FileEntry(
                    path: file.path, kind: DocumentKind(path: file.path),
                    format: FileFormat(path: file.path), size: file.size,
                    title: title, modified: provenance.lastModifiedAt ?? Timestamp.format(mtime),
                    version: String(digest.prefix(16)), provenance: provenance, indexed: false))
        }
        var files = entries.values
        func time(_ text: String?) -> Double { text.flatMap(Timestamp.parse) ?? 0 }
        switch sort {
        case .path: files.sort { $0.path < $1.path }
        case .modified: files.sort { (time($0.modified), $1.path) > (time($1.modified), $0.path) }
        case .created:
            files.sort {
                (time($0.provenance.createdAt), $1.path) > (time($1.provenance.createdAt), $0.path)
            }
        case .title:
            files.sort { ($0.title.lowercased(), $0.path) < ($1.title.lowercased(), $1.path) }
        case .size: files.sort { ($0.size, $1.path) > ($1.size, $0.path) }
        }
        let folders = folderCounts.keys.sorted().map {
            FolderEntry(path: $0, files: folderCounts[$0]!)
        }
        return Listing(folder: folder, folders: glob == nil ? folders : [], files: files)
    }
}
