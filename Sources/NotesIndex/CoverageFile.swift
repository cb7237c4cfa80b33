import Foundation
import NotesCore

/// The last coverage a search counted (files with text, those with passages, those covered),
/// beside the database (`index.coverage`), so that a short command does not read every
/// file's row again while neither the vectors nor the files changed.
///
/// A cache like ``VectorFile`` and nothing more: its key is the `chunks_generation` and the
/// layout token it was counted under (the key ``NoteIndex/coverageCache`` uses in a
/// long-lived process), a reader whose database has another key ignores it, and it is
/// replaced whole (a new file renamed over it). Text: ``heading``, the key, then the four
/// counts, each on a line of its own.
enum CoverageFile {
    static let fileName = "index.coverage"
    /// Names what the counts mean: a release that counts otherwise (as D266 did) changes the
    /// number, so that it never reads an older release's count as its own.
    static let heading = "notes-coverage 2"

    /// The counts stored for `key`, or nil when there are none, they are for another key, or
    /// the file does not read whole.
    static func read(directory: String, key: String) -> NoteIndex.FilesWithText? {
        let fd = open(directory + "/" + fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid()
        else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
        guard count > 0, count < buffer.count else { return nil }
        let lines = String(decoding: buffer[..<count], as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 4, lines[0] == heading, lines[1] == key, lines[3].isEmpty else {
            return nil
        }
        let numbers = lines[2].split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 4, numbers.allSatisfy({ $0 >= 0 }),
            numbers[2] <= numbers[1], numbers[1] <= numbers[0], numbers[1] <= numbers[3]
        else { return nil }
        return NoteIndex.FilesWithText(
            files: numbers[0], withPassages: numbers[1], covered: numbers[2],
            passages: numbers[3])
    }

    /// Stores `counts` for `key` (a new file renamed over the old one). Best effort: a folder
    /// that cannot take it leaves the next search counting again.
    static func write(_ counts: NoteIndex.FilesWithText, key: String, directory: String) {
        guard !key.contains("\n") else { return }
        let text =
            "\(heading)\n\(key)\n\(counts.files) \(counts.withPassages) \(counts.covered) \(counts.passages)\n"
        // No fsync: a file torn by a crash does not parse, and the next search counts again.
        Array(text.utf8).withUnsafeBytes { CacheFile.replace(fileName, in: directory, with: $0) }
    }
}
