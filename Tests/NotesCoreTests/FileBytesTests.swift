import Foundation
import NotesTestSupport
import Testing

@testable import NotesCore

@Suite struct FileBytesTests {
    /// A reader racing a writer that replaces the file by rename (what every notes write
    /// does) gets the old or the new bytes, never "not found": the descriptor of a file
    /// renamed over after it was opened is named "path (deleted)" by the kernel, which the
    /// location check must accept (it once answered `not_found` to `notes read` under load).
    @Test(.tags(.reliability), .reliabilityRun) func readsRacingAtomicReplacesSeeOldOrNewBytes()
        throws
    {
        let tmp = TemporaryDirectory()
        let path = (FileSystem.realPath(tmp.path) ?? tmp.path) + "/a.md"
        let versions = (0..<2).map {
            "version \($0)\n" + String(repeating: "x", count: 100 * ($0 + 1))
        }
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
                let bytes = try FileBytes.read(
                    path: path, maxBytes: 1 << 20, checkingLocation: true)
                let text = String(decoding: bytes, as: UTF8.self)
                if !versions.contains(text) { failures.append("torn: \(text.prefix(20))") }
            } catch {
                failures.append("\(error)")
            }
            reads += 1
        }
        stop.set()
        while writer.isExecuting { usleep(1000) }
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(reads) reads failed, e.g. \(failures.first ?? "")")
        #expect(reads > 1_000)
    }
}

@Suite(.serialized) struct FileBytesLocationTests {
    /// A canonical path whose folder was swapped for a symlink reads nothing, and a path
    /// whose last component is a symlink is not a regular file: with `openat2` refusing
    /// links in the kernel, and with the O_NOFOLLOW + /proc check where it is missing.
    @Test(arguments: [true, false]) func symlinksOnTheWayAreNeverFollowed(kernelRefuses: Bool)
        throws
    {
        let saved = NoSymlinkOpen.isAvailable
        NoSymlinkOpen.isAvailable = kernelRefuses
        defer { NoSymlinkOpen.isAvailable = saved }
        let tmp = TemporaryDirectory()
        let root = FileSystem.realPath(tmp.path) ?? tmp.path
        tmp.write("ws/notes/a.md", "mine\n")
        tmp.write("outside/a.md", "secret\n")
        tmp.write("outside/b.md", "secret\n")
        let path = root + "/ws/notes/a.md"
        #expect(
            try FileBytes.read(path: path, maxBytes: 1 << 20, checkingLocation: true)
                == Array("mine\n".utf8))

        // The folder is swapped for a link to somewhere else with a file of the same name.
        #expect(rename(root + "/ws/notes", root + "/ws/moved") == 0)
        #expect(symlink(root + "/outside", root + "/ws/notes") == 0)
        #expect(throws: FileBytes.Failure.notFound) {
            try FileBytes.read(path: path, maxBytes: 1 << 20, checkingLocation: true)
        }
        // Without the check the link would be followed: the test above means something.
        #expect(try FileBytes.read(path: path, maxBytes: 1 << 20) == Array("secret\n".utf8))

        // The file itself is a link.
        #expect(symlink(root + "/outside/b.md", root + "/ws/moved/b.md") == 0)
        for checking in [true, false] {
            #expect(throws: FileBytes.Failure.notRegularFile) {
                try FileBytes.read(
                    path: root + "/ws/moved/b.md", maxBytes: 1 << 20, checkingLocation: checking)
            }
        }
        #expect(throws: FileBytes.Failure.notFound) {
            try FileBytes.read(
                path: root + "/ws/moved/none.md", maxBytes: 1 << 20, checkingLocation: true)
        }
        if kernelRefuses {
            // This kernel has openat2 (Linux 5.6+, no seccomp filter hiding it): the
            // reads above took the one-call path.
            #expect(NoSymlinkOpen.isAvailable)
        }
    }
}

private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}
