import Foundation
import NotesCore
import NotesTestSupport
import Testing

@Suite struct FileBytesTests {
    /// A reader racing a writer that replaces the file by rename (what every notes write
    /// does) gets the old or the new bytes, never "not found": the descriptor of a file
    /// renamed over after it was opened is named "path (deleted)" by the kernel, which the
    /// location check must accept (it once answered `not_found` to `notes read` under load).
    @Test func readsRacingAtomicReplacesSeeOldOrNewBytes() throws {
        let tmp = TemporaryDirectory()
        let path = (FileSystem.realPath(tmp.path) ?? tmp.path) + "/a.md"
        let versions = (0..<2).map { "version \($0)\n" + String(repeating: "x", count: 100 * ($0 + 1)) }
        try versions[0].write(toFile: path, atomically: false, encoding: .utf8)
        let stop = StopFlag()
        let writer = Thread {
            var n = 0
            while !stop.isSet {
                n += 1
                let temp = path + ".tmp"
                try? versions[n % 2].write(toFile: temp, atomically: false, encoding: .utf8)
                rename(temp, path)
            }
        }
        writer.start()
        var reads = 0
        var failures: [String] = []
        let deadline = Date().addingTimeInterval(Double(soakScaled(2, 60)))
        while Date() < deadline {
            do {
                let bytes = try FileBytes.read(path: path, maxBytes: 1 << 20, checkingLocation: true)
                let text = String(decoding: bytes, as: UTF8.self)
                if !versions.contains(text) { failures.append("torn: \(text.prefix(20))") }
            } catch {
                failures.append("\(error)")
            }
            reads += 1
        }
        stop.set()
        while writer.isExecuting { usleep(1000) }
        #expect(failures.isEmpty, "\(failures.count) of \(reads) reads failed, e.g. \(failures.first ?? "")")
        #expect(reads > 1_000)
    }
}

private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}
