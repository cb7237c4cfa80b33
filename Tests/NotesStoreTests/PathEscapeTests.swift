import Foundation
import NotesCore
import NotesStore
import NotesTestSupport
import Testing

/// The path-escape corpus (reliability plan D.28–D.30) against every operation of the write
/// path, with a sentinel folder outside the root that must stay unchanged and never appear
/// in any output.
@Suite struct PathEscapeTests {
    static let secret = "SENTINEL-TOKEN-7f3a"

    /// A digest of every file (path and bytes) under `folder`.
    func treeDigest(_ folder: String) -> String {
        var entries: [String] = []
        if let walker = FileManager.default.enumerator(atPath: folder) {
            while let item = walker.nextObject() as? String {
                let path = folder + "/" + item
                let data =
                    FileManager.default.contents(atPath: path).map {
                        ContentVersion(of: Array($0)).digest
                    } ?? "dir"
                entries.append(item + ":" + data)
            }
        }
        return ContentVersion(of: Array(entries.sorted().joined(separator: "\n").utf8)).digest
    }

    @Test func noOperationEverLeavesTheRoot() throws {
        let base = TemporaryDirectory(prefix: "notes-escape")
        base.write("root/.notes/config.yml", "")
        base.write("root/inside.md", "inside\n")
        base.write("sentinel/secret.md", Self.secret + "\n")
        base.write("root_evil/s.md", Self.secret + " evil\n")
        let root = base.path + "/root"
        let sentinel = base.path + "/sentinel"
        let links: [(String, String)] = [
            ("link_out", "../sentinel"), ("file_link.md", "../sentinel/secret.md"),
            ("abs_link", sentinel),
            ("dangling.md", "../sentinel/missing.md"), ("loop1", "loop2"), ("loop2", "loop1"),
            ("inner_link.md", "inside.md"),
        ]
        for (name, target) in links {
            try FileManager.default.createSymbolicLink(
                atPath: root + "/" + name, withDestinationPath: target)
        }
        let before = (treeDigest(sentinel), treeDigest(base.path + "/root_evil"))

        let mustFail = [
            "../sentinel/secret.md", "a/../../sentinel/secret.md", "./../sentinel/secret.md",
            "a/b/../../../sentinel/secret.md", "..",
            "/etc/passwd", sentinel + "/secret.md", "~/.ssh/id_rsa", "//etc/passwd",
            "../root_evil/s.md", base.path + "/root_evil/s.md",
            "link_out/secret.md", "link_out/new.md", "link_out/sub/new.md", "file_link.md",
            "abs_link/secret.md", "abs_link/new.md",
            "dangling.md", "loop1/x.md", "a\u{0}b.md", "", ".", "inside.md/..",
        ]
        // Odd but inside the root: they may succeed, and must never reach the sentinel.
        let oddButInside = [
            "..\\sentinel\\secret.md", "%2e%2e/sentinel/secret.md", "..%2fsentinel.md",
            "\u{2025}/x.md", "a/\u{FF0E}\u{FF0E}/x.md", "inner_link.md",
        ]

        let store = NoteStore(workspace: try Workspace(root: root))
        let agent = Author(.agent, client: "escape-test")
        var outputs: [String] = []
        func attempt(_ label: String, _ body: () throws -> Any) -> NotesError.Code? {
            do {
                let value = try body()
                outputs.append(String(describing: value))
                return nil
            } catch let error as NotesError {
                outputs.append(error.description + String(describing: error.details))
                return error.code
            } catch {
                outputs.append(String(describing: error))
                return .internal
            }
        }
        let v = "0000000000000000"
        for path in mustFail + oddButInside {
            for actor in [agent, Author.person] {
                let codes: [(String, NotesError.Code?)] = [
                    ("read", attempt("read") { try store.read(path, by: actor) }),
                    (
                        "write",
                        attempt("write") { try store.write(path, content: "x\n", by: actor) }
                    ),
                    (
                        "overwrite",
                        attempt("overwrite") {
                            try store.write(
                                path, content: "x\n",
                                options: ChangeOptions(expectedVersion: v, confirmUserEdits: true),
                                by: actor)
                        }
                    ),
                    (
                        "append",
                        attempt("append") { try store.append(path, content: "x", by: actor) }
                    ),
                    (
                        "edit",
                        attempt("edit") {
                            try store.edit(
                                path, edits: [TextEdit(oldText: Self.secret, newText: "gone")],
                                options: ChangeOptions(expectedVersion: v), by: actor)
                        }
                    ),
                    (
                        "delete",
                        attempt("delete") {
                            try store.delete(
                                path,
                                options: ChangeOptions(expectedVersion: v, confirmUserEdits: true),
                                by: actor)
                        }
                    ),
                    (
                        "move from",
                        attempt("move") {
                            try store.move(
                                path, to: "moved.md", options: ChangeOptions(expectedVersion: v),
                                by: actor)
                        }
                    ),
                    (
                        "move to",
                        attempt("move") { try store.move("inside.md", to: path, by: actor) }
                    ),
                    (
                        "restore",
                        attempt("restore") { try store.restore(path, version: v, by: actor) }
                    ),
                ]
                if mustFail.contains(path) {
                    for (op, code) in codes {
                        #expect(code != nil, "\(op) '\(path)' by \(actor.actor) succeeded")
                        #expect(code != .internal, "\(op) '\(path)': \(outputs.last ?? "")")
                    }
                }
                // A successful odd-name operation must have stayed inside: undo moves of inside.md.
                if FileManager.default.fileExists(atPath: root + "/moved.md")
                    || !FileManager.default.fileExists(atPath: root + "/inside.md")
                {
                    base.write("root/inside.md", "inside\n")
                }
            }
        }
        #expect(
            (treeDigest(sentinel), treeDigest(base.path + "/root_evil")) == before,
            "the sentinel changed")
        #expect(
            !FileManager.default.fileExists(atPath: sentinel + "/new.md")
                && !FileManager.default.fileExists(atPath: sentinel + "/sub"))
        for output in outputs {
            #expect(
                !output.contains(Self.secret), "sentinel content in output: \(output.prefix(200))")
            #expect(!output.contains(sentinel), "sentinel path in output: \(output.prefix(200))")
        }
        // Symlinks in the root still point where they did.
        for (name, target) in links {
            #expect(
                (try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + name))
                    == target)
        }
    }
}
