/// A file read for a person or an agent (SPEC §5): its text (or a line range of it), its
/// version, effective provenance and size.
public struct ReadResult: Sendable, Codable {
    public var path: String
    /// The requested lines (the whole file by default).
    public var content: String
    public var version: String
    public var provenance: Provenance
    public var size: Int
    /// Lines in the whole file, so an agent can page with `offset`/`limit`.
    public var totalLines: Int
    /// First line returned (1-based).
    public var offset: Int
    /// Lines returned.
    public var lines: Int

    enum CodingKeys: String, CodingKey {
        case path, content, version, provenance, size, offset, lines
        case totalLines = "total_lines"
    }
}

extension Workspace {
    /// Largest file returned whole; larger ones need a line range.
    public static let readMaxBytes = 16 << 20
    /// Largest file read at all (for a line range).
    public static let pagedReadMaxBytes = 256 << 20

    /// Reads a text file. `offset` is the first line (1-based), `limit` the number of lines.
    /// `provenance` computes the effective provenance from the bytes read and the mtime
    /// (the history knows more than the front matter); by default the front matter's.
    public func read(_ path: WorkspacePath, offset: Int? = nil, limit: Int? = nil,
                     provenance: ((_ bytes: [UInt8], _ mtime: Double) -> Provenance)? = nil) throws(NotesError) -> ReadResult {
        let paged = offset != nil || limit != nil
        let maxBytes = paged ? Self.pagedReadMaxBytes : Self.readMaxBytes
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: absolutePath(path.relative), maxBytes: maxBytes, checkingLocation: true)
        } catch {
            switch error {
            case .notFound: throw NotesError(.notFound, "no file at \(path)", hint: "check the path with list_files or `notes list`")
            case .notRegularFile: throw NotesError(.notText, "\(path) is not a regular file", hint: "only files can be read")
            case .tooLarge(let size):
                throw NotesError(.tooLarge, "\(path) is \(size / 1_048_576) MB", hint: paged ? "the limit is \(maxBytes >> 20) MB" : "read a line range with --offset and --limit")
            case .unreadable(let code): throw NotesError(.internal, "cannot read \(path) (\(String(cString: strerror(code))))", hint: "check the file's permissions")
            }
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard !body.prefix(8192).contains(0), let text = String(validating: body, as: UTF8.self) else {
            throw NotesError(.notText, "\(path) is not UTF-8 text", hint: "binary files are listed but not read")
        }
        let mtime = FileSystem.modificationTime(absolutePath(path.relative)) ?? Timestamp.now()
        let effective: Provenance
        if let provenance {
            effective = provenance(bytes, mtime)
        } else {
            var stated = Provenance()
            if FileFormat(path: path.relative) == .markdown, case .present(let block) = FrontMatterBlock.split(bytes),
               let frontMatter = try? FrontMatter.parse(bytes[block.yaml]) {
                stated = frontMatter.provenance
            }
            effective = stated.effective(mtimeSeconds: mtime)
        }
        var lines = text.lines()
        if lines.last == "" { lines.removeLast() }
        let first = max(1, offset ?? 1)
        let count = max(0, limit ?? lines.count)
        let content: String
        let returned: Int
        if !paged {
            content = text
            returned = lines.count
        } else {
            let slice = lines.dropFirst(first - 1).prefix(count)
            returned = slice.count
            content = slice.isEmpty ? "" : slice.joined(separator: "\n") + "\n"
        }
        return ReadResult(path: path.relative, content: content, version: ContentVersion(of: bytes).short,
                          provenance: effective, size: bytes.count,
                          totalLines: lines.count, offset: first, lines: returned)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileSystem {
    /// Modification time of `path` in seconds since the epoch.
    public static func modificationTime(_ path: String) -> Double? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }
}
