extension Workspace {
    /// Largest file returned whole; larger ones need a line range.
    public static let readMaxBytes = 16 << 20
    /// Largest file read at all (for a line range).
    public static let pagedReadMaxBytes = 256 << 20

    /// Reads a text file. `offset` is the first line (1-based), `limit` the number of lines.
    /// `provenance` computes the effective provenance from the bytes read and the mtime
    /// (the history knows more than the front matter); by default the front matter's.
    /// A line range keeps the file's bytes (its line breaks, CRLF included): the pages of a
    /// file put together are the file. With `window`, the answer stops at the window's
    /// lines or bytes and says so (`truncated`, `next_offset`); a line longer than the
    /// window comes in pieces (`line_cut`, `next_column`), `column` (UTF-8 bytes into line
    /// `offset`) starting a page inside a line. An `offset` past the last line, or a
    /// `column` past its line's end or inside a character, is `invalid_argument`.
    /// With `lossy`, text that is not valid UTF-8 (a Latin-1 file, say) is decoded as the
    /// index decodes it (NotesDocuments' `DecodedText`: invalid bytes become U+FFFD) instead
    /// of refused, so what search finds can be read; binary files are still refused.
    public func read(
        _ path: WorkspacePath, offset: Int? = nil, column: Int? = nil, limit: Int? = nil,
        window: ReadWindow? = nil, lossy: Bool = false,
        provenance: ((_ bytes: [UInt8], _ mtime: Double) -> Provenance)? = nil
    ) throws(NotesError) -> ReadResult {
        let paged = offset != nil || column != nil || limit != nil || window != nil
        let maxBytes = paged ? Self.pagedReadMaxBytes : Self.readMaxBytes
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(
                path: absolutePath(path.relative), maxBytes: maxBytes, checkingLocation: true)
        } catch {
            switch error {
            case .notFound:
                throw NotesError(
                    .notFound, "no file at \(path)",
                    hint: "check the path with list_files or `notes list`")
            case .notRegularFile:
                throw NotesError(
                    .notText, "\(path) is not a regular file", hint: "only files can be read")
            case .tooLarge(let size):
                throw NotesError(
                    .tooLarge, "\(path) is \(size / 1_048_576) MB",
                    hint: paged
                        ? "the limit is \(maxBytes >> 20) MB"
                        : "read a line range with --offset and --limit")
            case .unreadable(let code):
                throw NotesError.system(
                    code, "cannot read \(path) (\(String(cString: strerror(code))))",
                    hint: "check the file's permissions")
            }
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let isBinary =
            body.prefix(8192).contains(0) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.starts(with: [0xFE, 0xFF])
        var invalidLine: Int?
        let text: String
        if !isBinary, let valid = String(validating: body, as: UTF8.self) {
            text = valid
        } else if !isBinary && lossy {
            text = String(decoding: body, as: UTF8.self)
            invalidLine = Self.firstInvalidUTF8Line(body)
        } else {
            throw NotesError(
                .notText, "\(path) is not UTF-8 text", hint: "binary files are listed but not read")
        }
        let mtime = FileSystem.modificationTime(absolutePath(path.relative)) ?? Timestamp.now()
        let effective: Provenance
        if let provenance {
            effective = provenance(bytes, mtime)
        } else {
            var stated = Provenance()
            if FileFormat(path: path.relative) == .markdown,
                case .present(let block) = FrontMatterBlock.split(bytes),
                let frontMatter = try? FrontMatter.parse(bytes[block.yaml])
            {
                stated = frontMatter.provenance
            }
            effective = stated.effective(mtimeSeconds: mtime)
        }
        // Where each line starts in the text's UTF-8 bytes (``LineEnds``).
        let utf8 = Array(text.utf8)
        var starts: [Int] = utf8.isEmpty ? [] : [0]
        for i in utf8.indices where i + 1 < utf8.count && LineEnds.endsLine(utf8, at: i) {
            starts.append(i + 1)
        }
        let totalLines = starts.count
        let first = max(1, offset ?? 1)
        var content: String
        var returned: Int
        var truncated: Bool? = nil
        var nextOffset: Int? = nil
        var cut = false
        var nextColumn: Int? = nil
        let skip = try Self.checkPlace(
            path, offset: first, column: column ?? 0, starts: starts, utf8: utf8)
        if !paged {
            content = text
            returned = totalLines
        } else {
            let wanted = max(0, limit ?? totalLines)
            let from = first - 1
            var end = from  // exclusive line index
            var bytes = 0
            while end < totalLines && end - from < wanted {
                let next = end + 1 < totalLines ? starts[end + 1] : utf8.count
                let size = next - starts[end] - (end == from ? skip : 0)
                if let window, end > from, end - from >= window.lines || bytes + size > window.bytes
                {
                    break
                }
                if let window, end == from, window.lines == 0 { break }
                bytes += size
                end += 1
            }
            returned = max(0, end - from)
            if returned == 0 {
                content = ""
            } else {
                let lower = starts[from] + skip
                var upper = end < totalLines ? starts[end] : utf8.count
                // One line longer than the window: its next bytes, cut at a character start
                // (at least one character), the rest in the next page.
                if let window, returned == 1, upper - lower > window.bytes {
                    let lineEnd = upper
                    upper = lower + window.bytes
                    while upper > lower && utf8[upper] & 0xC0 == 0x80 { upper -= 1 }
                    if upper == lower {
                        upper += 1
                        while upper < lineEnd && utf8[upper] & 0xC0 == 0x80 { upper += 1 }
                    }
                    cut = upper < lineEnd
                    if cut { nextColumn = upper - starts[from] }
                }
                content = String(decoding: utf8[lower..<upper], as: UTF8.self)
            }
            if window != nil {
                let more = from + returned < totalLines
                truncated = more || cut
                if cut {
                    nextOffset = first
                } else if more {
                    nextOffset = first + returned
                }
            }
        }
        var result = ReadResult(
            path: path.relative, content: content, version: ContentVersion(of: bytes).short,
            provenance: effective, size: bytes.count,
            totalLines: totalLines, offset: first, lines: returned, truncated: truncated,
            nextOffset: nextOffset)
        if cut { result.lineCut = true }
        if skip > 0 { result.column = skip }
        result.nextColumn = nextColumn
        result.invalidUTF8Line = invalidLine
        return result
    }

    /// Checks that line `offset` exists (an empty file has line 1, empty) and that `column`
    /// is a character start inside it; returns `column`.
    static func checkPlace(
        _ path: WorkspacePath, offset: Int, column: Int, starts: [Int], utf8: [UInt8]
    ) throws(NotesError) -> Int {
        let total = starts.count
        guard offset <= max(total, 1) else {
            throw NotesError(
                .invalidArgument,
                "offset \(offset) is past the end: \(path) has \(total) line\(total == 1 ? "" : "s") (total_lines \(total))",
                hint: total == 0 ? "the file is empty" : "give an offset from 1 to \(total)")
        }
        guard column != 0 else { return 0 }
        let start = offset - 1 < total ? starts[offset - 1] : utf8.count
        let end = offset < total ? starts[offset] : utf8.count
        guard column > 0, column < end - start else {
            throw NotesError(
                .invalidArgument,
                "column \(column) is outside line \(offset) of \(path), which has \(end - start) bytes",
                hint: "pass the next_column of the previous answer, with its next_offset")
        }
        guard utf8[start + column] & 0xC0 != 0x80 else {
            throw NotesError(
                .invalidArgument,
                "column \(column) is inside a character of line \(offset) of \(path)",
                hint: "pass the next_column of the previous answer, with its next_offset")
        }
        return column
    }

    /// The 1-based line holding the first byte that is not UTF-8.
    public static func firstInvalidUTF8Line(_ bytes: ArraySlice<UInt8>) -> Int {
        var line = 1
        var lineStart = bytes.startIndex
        for i in bytes.indices where bytes[i] == 0x0A {
            if String(validating: bytes[lineStart..<i], as: UTF8.self) == nil { return line }
            line += 1
            lineStart = i + 1
        }
        return line
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
