import Foundation
import NotesTestSupport
import Testing

@testable import NotesCore

/// The templates compiled into the binary (issue 31): the same bytes as templates/, and a
/// usable folder when no templates folder is found.
@Suite struct EmbeddedTemplatesTests {
    /// Fails when templates/ changed and `scripts/embed-templates` was not run.
    @Test func theEmbeddedCopyEqualsTheTemplatesFolderByteForByte() throws {
        let folder = Repository.root + "/templates"
        var onDisk: [String: [UInt8]] = [:]
        for relative in try FileManager.default.subpathsOfDirectory(atPath: folder)
        where !FileSystem.isDirectory(folder + "/" + relative) {
            onDisk[relative] = Array(
                try Data(contentsOf: URL(fileURLWithPath: folder + "/" + relative)))
        }
        #expect(onDisk.count >= 10)
        let embedded = Dictionary(
            uniqueKeysWithValues: TemplateLibrary.embeddedFiles.map { ($0.path, $0.bytes) })
        #expect(Set(embedded.keys) == Set(onDisk.keys), "run scripts/embed-templates")
        for (path, bytes) in onDisk {
            let same = embedded[path] == bytes
            #expect(same, "\(path) differs from its embedded copy: run scripts/embed-templates")
        }
    }

    @Test func withoutATemplatesFolderTheEmbeddedCopyIsWrittenToTheCacheAndChecked() throws {
        let tmp = TemporaryDirectory()
        let environment = ["XDG_CACHE_HOME": tmp.path + "/cache", "HOME": tmp.path + "/home"]
        let library = try #require(TemplateLibrary.embedded(environment: environment))
        #expect(library.directory.hasPrefix(tmp.path + "/cache/notes/templates-"))
        let config = library.directory + "/workspace/.notes/config.yml"
        #expect(FileSystem.exists(config))
        #expect(FileSystem.exists(library.directory + "/research/sources/.keep"))
        // A copy that was changed afterwards is not used: a fresh one is written in its place.
        try Data("planted: true\n".utf8).write(to: URL(fileURLWithPath: config))
        let again = try #require(TemplateLibrary.embedded(environment: environment))
        #expect(again.directory == library.directory)
        let bytes = try Data(
            contentsOf: URL(fileURLWithPath: again.directory + "/workspace/.notes/config.yml"))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("planted"))
    }

    /// Issue 34's fault 6, for the templates: a cache folder planted as a symbolic link (in a
    /// shared folder such as /tmp, by another user) is never written through.
    @Test func aCacheFolderThatIsASymbolicLinkIsPassedOver() throws {
        let tmp = TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: tmp.path + "/cache", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: tmp.path + "/elsewhere", withIntermediateDirectories: true)
        #expect(symlink(tmp.path + "/elsewhere", tmp.path + "/cache/notes") == 0)
        let environment = ["XDG_CACHE_HOME": tmp.path + "/cache", "HOME": tmp.path + "/home"]
        let library = try #require(TemplateLibrary.embedded(environment: environment))
        #expect(library.directory.hasPrefix(tmp.path + "/home/.cache/notes/templates-"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path + "/elsewhere") == [])
        for folder in ["/home/.cache", "/home/.cache/notes"] {
            var info = stat()
            #expect(lstat(tmp.path + folder, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700, "\(folder) is private")
        }
    }
}
