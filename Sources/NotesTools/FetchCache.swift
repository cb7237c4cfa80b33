import Foundation
import NotesCore

/// What `notes fetch` remembers about each URL it fetched (`.notes/fetch-cache.json`): the
/// validators the server gave (ETag, Last-Modified) and the file and version written, so
/// a second fetch of an unchanged page is a 304 and writes nothing. A cache: losing it
/// only costs a full download.
struct FetchCache {
    struct Entry: Codable, Equatable {
        var path: String
        var version: String
        var etag: String?
        var lastModified: String?
        var fetchedAt: String

        enum CodingKeys: String, CodingKey {
            case path, version, etag
            case lastModified = "last_modified", fetchedAt = "fetched_at"
        }
    }

    let file: String
    private(set) var entries: [String: Entry] = [:]

    init(workspaceRoot: String) {
        file = workspaceRoot + "/.notes/fetch-cache.json"
        if let data = FileManager.default.contents(atPath: file),
            let decoded = try? JSONDecoder().decode([String: Entry].self, from: data)
        {
            entries = decoded
        }
    }

    subscript(url: String) -> Entry? { entries[url] }

    /// Records `entry` for `url` and saves the cache (temporary file + rename). A cache
    /// that cannot be saved is not an error: the next fetch downloads again.
    mutating func store(_ entry: Entry, for url: String) {
        entries[url] = entry
        if entries.count > 5_000,
            let oldest = entries.min(by: { $0.value.fetchedAt < $1.value.fetchedAt })?.key
        {
            entries[oldest] = nil
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(entries) else { return }
        try? FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? data.write(to: URL(fileURLWithPath: file), options: .atomic)
    }
}
