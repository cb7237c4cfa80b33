import Foundation
import NotesCore
import NotesDocuments

/// Byte-level text changes that keep the file's own conventions: its line endings (an
/// agent's `\n` becomes `\r\n` in a CRLF file), its BOM, and every byte outside the change.
/// Matching is on exact bytes, so Unicode look-alikes (NFC/NFD) never match each other.
enum TextChange {
    static let lf: [UInt8] = [0x0A], crlf: [UInt8] = [0x0D, 0x0A], cr: [UInt8] = [0x0D]

    /// The file's line break: CRLF when its first line ends so, CR when the file has
    /// carriage returns and no line feed at all (classic Mac), else LF.
    static func newline(of bytes: [UInt8]) -> [UInt8] {
        if ProvenanceStamp.usesCRLF(bytes) { return crlf }
        if !bytes.contains(0x0A), bytes.contains(0x0D) { return cr }
        return lf
    }

    /// `text` with every lone `\n` turned into `newline`.
    static func adapt(_ text: String, to newline: [UInt8]) -> [UInt8] {
        let bytes = Array(text.utf8)
        if newline == cr {
            // CRLF and LF both become CR.
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            for (i, b) in bytes.enumerated() where !(b == 0x0A && i > 0 && bytes[i - 1] == 0x0D) {
                out.append(b == 0x0A ? 0x0D : b)
            }
            return out
        }
        guard newline == crlf else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 32)
        for (i, b) in bytes.enumerated() {
            if b == 0x0A, i == 0 || bytes[i - 1] != 0x0D { out.append(0x0D) }
            out.append(b)
        }
        return out
    }

    /// Checks that `bytes` are UTF-8 text, so a change never writes U+FFFD over bytes it
    /// could not decode.
    static func requireText(_ bytes: [UInt8], path: String) throws(NotesError) {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
        guard !body.contains(0), String(validating: body, as: UTF8.self) != nil else {
            throw NotesError(
                .notText, "\(path) is not UTF-8 text, so it cannot be edited or appended to",
                hint: "the file is left as it is")
        }
    }

    /// Start offsets of `needle` in `haystack`.
    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> [Int] {
        guard let first = needle.first, needle.count <= haystack.count else { return [] }
        var found: [Int] = []
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            guard let start = haystack[i...last].firstIndex(of: first) else { break }
            if haystack[start..<(start + needle.count)].elementsEqual(needle) {
                found.append(start)
            }
            i = start + 1
        }
        return found
    }

    /// Applies `edits` to `bytes`. Each `oldText` must occur exactly once in the file as it
    /// is (edits do not see each other's results) and edits may not overlap. Returns the
    /// new bytes and, per edit, the 0-based lines of the original it replaced.
    static func apply(_ edits: [TextEdit], to bytes: [UInt8], path: String) throws(NotesError) -> (
        bytes: [UInt8], lines: [ClosedRange<Int>]
    ) {
        guard !edits.isEmpty else {
            throw NotesError(
                .invalidArgument, "no edits given", hint: "pass edits as [{old_text, new_text}]")
        }
        try requireText(bytes, path: path)
        let newline = newline(of: bytes)
        var spans: [(range: Range<Int>, replacement: [UInt8])] = []
        for (n, edit) in edits.enumerated() {
            let label = edits.count > 1 ? "edit \(n + 1): " : ""
            if let section = edit.section {
                spans.append(
                    try sectionSpan(
                        section, mode: edit.mode ?? .replace, text: edit.newText, in: bytes,
                        path: path, newline: newline, label: label))
                continue
            }
            guard !edit.oldText.isEmpty else {
                throw NotesError(
                    .invalidArgument, "\(label)old_text is empty",
                    hint: "quote the exact text to replace; use append_file to add text")
            }
            var old = Array(edit.oldText.utf8)
            var found = occurrences(of: old, in: bytes)
            var replacement = Array(edit.newText.utf8)
            if found.isEmpty, newline == crlf {
                old = adapt(edit.oldText, to: crlf)
                found = occurrences(of: old, in: bytes)
                replacement = adapt(edit.newText, to: crlf)
            }
            if found.isEmpty {
                throw NotesError(
                    .invalidArgument, "\(label)old_text was not found in \(path)",
                    hint: "read the file again and copy the exact text, including whitespace")
            }
            if found.count > 1 {
                throw NotesError(
                    .invalidArgument, "\(label)old_text occurs \(found.count) times in \(path)",
                    hint: "include more surrounding text so it matches exactly once")
            }
            spans.append((found[0]..<(found[0] + old.count), replacement))
        }
        let ordered = spans.sorted { $0.range.lowerBound < $1.range.lowerBound }
        for (a, b) in zip(ordered, ordered.dropFirst())
        where a.range.upperBound > b.range.lowerBound {
            throw NotesError(
                .invalidArgument, "two edits overlap in \(path)", hint: "combine them into one edit"
            )
        }
        var result = bytes
        for span in ordered.reversed() {
            result.replaceSubrange(span.range, with: span.replacement)
        }
        let lineStarts = lineNumbers(bytes)
        let lines = spans.map { span in
            lineStarts(
                span.range.lowerBound)...lineStarts(
                    max(span.range.lowerBound, span.range.upperBound - 1))
        }
        return (result, lines)
    }

    /// Where `section` is among `headings`: it must occur once, its text compared without
    /// #s, case and surrounding spaces.
    static func headingIndex(
        _ section: String, in headings: [DocumentHeading], path: String, label: String
    ) throws(NotesError) -> Int {
        func key(_ s: String) -> String {
            s.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
        }
        let wanted = key(section)
        let matches = headings.indices.filter { key(headings[$0].text) == wanted }
        guard matches.count == 1, let index = matches.first else {
            let known = headings.prefix(30).map { "\"\($0.text)\"" }.joined(separator: ", ")
            if matches.isEmpty {
                throw NotesError(
                    .invalidArgument, "\(label)\(path) has no heading \"\(section)\"",
                    hint: known.isEmpty
                        ? "the file has no headings; use old_text, or append_file with section to create one"
                        : "its headings: \(known)")
            }
            throw NotesError(
                .invalidArgument, "\(label)\(path) has \(matches.count) headings \"\(section)\"",
                hint: "use old_text and new_text to say which")
        }
        return index
    }

    /// The byte range a section edit replaces and what it puts there. The heading must occur
    /// once (its text compared without #s, case and surrounding spaces); blank lines keep
    /// Markdown blocks apart.
    static func sectionSpan(
        _ section: String, mode: SectionMode, text: String, in bytes: [UInt8], path: String,
        newline: [UInt8],
        label: String
    ) throws(NotesError) -> (range: Range<Int>, replacement: [UInt8]) {
        guard FileFormat(path: path) == .markdown else {
            throw NotesError(
                .invalidArgument,
                "\(label)section edits are for Markdown files; \(path) is not one",
                hint: "use old_text and new_text")
        }
        let headings = DocumentParser.parse(path: path, bytes: bytes).document?.headings ?? []
        let index = try headingIndex(section, in: headings, path: path, label: label)
        // Where each line starts; a line runs to the next start (or the end).
        var starts: [Int] = bytes.isEmpty ? [] : [0]
        for (i, b) in bytes.enumerated() where b == 0x0A && i + 1 < bytes.count {
            starts.append(i + 1)
        }
        let count = starts.count
        func start(_ line: Int) -> Int { line < count ? starts[line] : bytes.count }
        func blank(_ line: Int) -> Bool {
            guard line >= 0, line < count else { return false }
            return bytes[start(line)..<start(line + 1)].allSatisfy {
                $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A
            }
        }
        let heading = headings[index]
        var bodyStart = min(heading.line, count)  // heading.line is 1-based: the line after it
        // A setext heading's underline belongs to the heading.
        if bodyStart < count,
            bytes[start(bodyStart)..<start(bodyStart + 1)].allSatisfy({
                [0x3D, 0x2D, 0x20, 0x0D, 0x0A].contains($0)
            }),
            !blank(bodyStart)
        {
            bodyStart += 1
        }
        let end = min(
            headings[(index + 1)...].first { $0.level <= heading.level }.map { $0.line - 1 }
                ?? count, count)
        var content = adapt(text, to: newline)
        if !content.isEmpty, content.last != newline.last { content += newline }
        // A file without a final line break gets one before anything added at its end.
        let lead: [UInt8] = bytes.last.map { $0 != 0x0A && $0 != 0x0D } ?? false ? newline : []
        /// `content` put at line `at`, a blank line on each side where a block would touch another.
        func insertion(at line: Int) -> (range: Range<Int>, replacement: [UInt8]) {
            var block: [UInt8] = line >= count ? lead : []
            if line > 0, !blank(line - 1) { block += newline }
            block += content
            if line < count, !blank(line) { block += newline }
            return (start(line)..<start(line), block)
        }
        switch mode {
        case .replace:
            var block: [UInt8] = bodyStart >= count ? lead : []
            if !content.isEmpty { block += newline + content }
            if end < count { block += newline }
            return (start(bodyStart)..<start(end), block)
        case .append:
            var at = end
            while at > bodyStart, blank(at - 1) { at -= 1 }
            return insertion(at: at)
        case .prepend:
            var at = bodyStart
            while at < end, blank(at) { at += 1 }
            return insertion(at: at)
        case .insertAfter:
            return insertion(at: end)
        }
    }

    /// A function from byte offset to 0-based line number in `bytes`.
    static func lineNumbers(_ bytes: [UInt8]) -> (Int) -> Int {
        var breaks: [Int] = []
        for (i, b) in bytes.enumerated() where b == 0x0A { breaks.append(i) }
        return { offset in
            var low = 0
            var high = breaks.count
            while low < high {
                let mid = (low + high) / 2
                if breaks[mid] < offset { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    /// `bytes` with `content` appended: at the end, or at the end of the section under the
    /// heading `section` (created at the end when missing). Markdown gets a blank line
    /// between blocks so a paragraph is not glued to the one before it.
    static func append(
        _ content: String, to bytes: [UInt8], section: String?, markdown: Bool, path: String
    ) throws(NotesError) -> [UInt8] {
        try requireText(bytes, path: path)
        let newline = bytes.isEmpty ? lf : newline(of: bytes)
        var addition = adapt(content, to: newline)
        if addition.last != newline.last { addition += newline }
        var lines = ByteLines(bytes).lines.map(Array.init)
        if let last = lines.indices.last, lines[last].last != newline.last {
            lines[last] += newline
        }
        func blank(_ line: [UInt8]) -> Bool {
            line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        }
        func listItem(_ line: [UInt8]) -> Bool {
            let text = String(decoding: line, as: UTF8.self).drop { $0 == " " }
            return text.hasPrefix("- ") || text.hasPrefix("* ") || text.hasPrefix("+ ")
                || text.first?.isNumber == true && text.contains(". ")
        }
        func insert(at index: Int) -> [UInt8] {
            var block: [[UInt8]] = []
            if markdown, index > 0, !blank(lines[index - 1]),
                !(listItem(lines[index - 1]) && listItem(addition))
            {
                block.append(newline)
            }
            block.append(addition)
            if markdown, index < lines.count, !blank(lines[index]) { block.append(newline) }
            var out = lines
            out.insert(contentsOf: block, at: index)
            return out.flatMap { $0 }
        }
        guard let section, !section.isEmpty else { return insert(at: lines.count) }
        guard markdown else {
            throw NotesError(
                .invalidArgument, "section is for Markdown files; \(path) is not one",
                hint: "append without a section")
        }
        let wanted = section.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
        let (document, _) = DocumentParser.parse(path: path, bytes: bytes)
        let headings = document?.headings ?? []
        if let index = headings.firstIndex(where: {
            $0.text.trimmingCharacters(in: .whitespaces).lowercased() == wanted
        }) {
            let heading = headings[index]
            let end =
                headings[(index + 1)...].first { $0.level <= heading.level }.map { $0.line - 1 }
                ?? lines.count
            var at = min(end, lines.count)
            while at > heading.line, blank(lines[at - 1]) { at -= 1 }
            return insert(at: at)
        }
        var out = lines
        if let last = out.last, !blank(last) { out.append(newline) }
        out.append(
            Array("## \(section.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces))".utf8)
                + newline)
        out.append(newline)
        out.append(addition)
        return out.flatMap { $0 }
    }
}
