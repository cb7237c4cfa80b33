import Foundation
import NotesTestSupport
import Testing

@testable import NotesCore

@Suite struct WorkspaceTests {
    @Test func discoveryPrefersFlagThenEnvironmentThenNearestNotesFolder() throws {
        let tmp = TemporaryDirectory()
        tmp.write("outer/.notes/config.yml", "")
        tmp.write("outer/inner/deep/x.md", "x")
        tmp.write("other/y.md", "y")
        let fromAncestor = try Workspace.discover(
            explicit: nil, environment: [:], currentDirectory: tmp.path + "/outer/inner/deep")
        #expect(fromAncestor.root == tmp.path + "/outer")
        let fromEnv = try Workspace.discover(
            explicit: nil, environment: ["NOTES_WORKSPACE": tmp.path + "/other"],
            currentDirectory: tmp.path + "/outer")
        #expect(fromEnv.root == tmp.path + "/other")
        let fromFlag = try Workspace.discover(
            explicit: "other", environment: ["NOTES_WORKSPACE": "/nonexistent"],
            currentDirectory: tmp.path)
        #expect(fromFlag.root == tmp.path + "/other")
        #expect(!fromFlag.isInitialized)
    }

    @Test func noWorkspaceIsAClearError() {
        let tmp = TemporaryDirectory()
        #expect(throws: NotesError.self) {
            try Workspace.discover(explicit: nil, environment: [:], currentDirectory: tmp.path)
        }
        do {
            _ = try Workspace.discover(explicit: nil, environment: [:], currentDirectory: tmp.path)
        } catch {
            #expect(error.code == .notFound)
            #expect(error.hint?.contains("notes init") == true)
        }
    }

    @Test func indexDirectoryIsOutsideTheWorkspaceAndPerRoot() throws {
        let tmp = TemporaryDirectory()
        tmp.write("a/n.md", "")
        tmp.write("b/n.md", "")
        let a = try Workspace(root: tmp.path + "/a")
        let b = try Workspace(root: tmp.path + "/b")
        let env = ["XDG_CACHE_HOME": "/cache"]
        #expect(try a.indexDirectory(override: nil, environment: env).hasPrefix("/cache/notes/a-"))
        #expect(
            try a.indexDirectory(override: nil, environment: env)
                != b.indexDirectory(override: nil, environment: env))
        #expect(
            try a.indexDirectory(override: nil, environment: ["HOME": "/home/u"]).hasPrefix(
                "/home/u/.cache/notes/"))
        #expect(
            try a.indexDirectory(override: nil, environment: ["NOTES_INDEX_DIR": "/idx"]) == "/idx")
        #expect(
            try a.indexDirectory(override: "/flag", environment: ["NOTES_INDEX_DIR": "/idx"])
                == "/flag")
    }

    /// Issue 34: without HOME or XDG_CACHE_HOME the index goes under the user's own home from
    /// the password database, never a shared /tmp/.cache another user could prepare.
    @Test func withoutHomeTheIndexGoesToTheUsersOwnHome() throws {
        let tmp = TemporaryDirectory()
        tmp.write("a/n.md", "")
        let a = try Workspace(root: tmp.path + "/a")
        let home = try #require(Workspace.homeFromPasswordDatabase())
        let directory = try a.indexDirectory(override: nil, environment: [:])
        #expect(directory.hasPrefix(home + "/.cache/notes/a-"))
        #expect(!directory.hasPrefix("/tmp"))
        #expect(
            try a.indexDirectory(override: nil, environment: ["HOME": ""]).hasPrefix(
                home + "/.cache/notes/"))
    }

    @Test func pathsCannotLeaveTheRoot() throws {
        let tmp = TemporaryDirectory()
        tmp.write("root/notes.md", "n")
        tmp.write("root_evil/secret.md", "s")
        try FileManager.default.createSymbolicLink(
            atPath: tmp.path + "/root/out", withDestinationPath: tmp.path + "/root_evil")
        let ws = try Workspace(root: tmp.path + "/root")
        #expect(try WorkspacePath("./a//b/../notes.md", in: ws).relative == "a/notes.md")
        for bad in [
            "../root_evil/secret.md", "/etc/passwd", "a/../../x", "x\u{0}y", "out/secret.md",
            "out/new.md", "~/x",
        ] {
            #expect(throws: NotesError.self, "\(bad) must be refused") {
                try WorkspacePath(bad, in: ws)
            }
        }
    }

    @Test func pathsTypedFromAFolderMayClimbOutOfItButNotOutOfTheRoot() throws {
        #expect(
            try WorkspacePath.normalize("../Journal/today.md", from: "Research")
                == "Journal/today.md")
        #expect(
            try WorkspacePath.normalize("moby-dick/*.md", from: "Research")
                == "Research/moby-dick/*.md")
        #expect(
            try WorkspacePath.normalize(".", from: "Research/moby-dick") == "Research/moby-dick")
        #expect(try WorkspacePath.normalize("..", from: "Research") == "")
        #expect(try WorkspacePath.normalize("notes.md", from: "") == "notes.md")
        for bad in ["../../x", "/etc/passwd", "~/x", "a\u{0}b"] {
            #expect(throws: NotesError.self, "\(bad) must be refused") {
                try WorkspacePath.normalize(bad, from: "Research")
            }
        }
    }
    @Test func ignoreRulesSkipDebrisAndSpotConflictCopies() {
        let rules = IgnoreRules(globs: [Glob("*.draft.md"), Glob("Archive/**")])
        for name in [
            ".git", ".notes", "a.md.swp", "a.md~", ".#a.md", "x.icloud", "x.tmp", "4913",
            "~syncthing~a.md.tmp", "Thumbs.db", "desktop.ini", "Icon\r", "~$report.md",
        ] {
            #expect(rules.verdict(name: name, path: name) == .ignore, "\(name)")
        }
        #expect(rules.verdict(name: "x.draft.md", path: "a/x.draft.md") == .ignore)
        #expect(rules.verdict(name: "y.md", path: "Archive/2020/y.md") == .ignore)
        #expect(
            rules.verdict(
                name: "a.sync-conflict-20260101-120000-ABCDEFG.md",
                path: "a.sync-conflict-20260101-120000-ABCDEFG.md") == .conflictCopy)
        #expect(
            rules.verdict(
                name: "a (Ann's conflicted copy 2026-01-01).md",
                path: "a (Ann's conflicted copy 2026-01-01).md") == .conflictCopy)
        #expect(rules.verdict(name: "notes.md", path: "notes.md") == .include)
        // Suffixes in any case; names that only look similar are kept.
        for name in ["A.MD.SWP", "Draft.TMP", "x.iCloud", "ü.Part"] {
            #expect(rules.verdict(name: name, path: name) == .ignore, "\(name)")
        }
        for name in [
            "tmp.md", "swp-notes.md", "conflict-resolution.md", "Conflicts of interest.md", "ü.md",
            "49134.md", "Thumbs.db.md", "~report.md",
        ] {
            #expect(rules.verdict(name: name, path: name) == .include, "\(name)")
        }
        #expect(
            rules.verdict(name: "a (Conflict 2026-01-01).md", path: "a (Conflict 2026-01-01).md")
                == .conflictCopy)
        #expect(
            IgnoreRules.conflictBase(of: "R/a.sync-conflict-20260101-120000-ABCDEFG.md") == "R/a.md"
        )
        #expect(IgnoreRules.conflictBase(of: "a (Ann's conflicted copy 2026-01-01).md") == "a.md")
    }

    @Test func scannerListsRegularFilesOnlyAndNeverOpensFIFOs() throws {
        let tmp = TemporaryDirectory()
        tmp.write("a.md", "a")
        tmp.write("sub/b.txt", "b")
        tmp.write(".git/config", "x")
        tmp.write("c.md.swp", "x")
        tmp.write("a.sync-conflict-20260101-120000-X.md", "x")
        #expect(mkfifo(tmp.path + "/pipe.md", 0o644) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: tmp.path + "/link.md", withDestinationPath: "/etc/hostname")
        let scan = FileScanner(root: tmp.path, rules: IgnoreRules()).scan()
        #expect(scan.files.map(\.path).sorted() == ["a.md", "sub/b.txt"])
        #expect(scan.conflictCopies == ["a.sync-conflict-20260101-120000-X.md"])
        #expect(scan.skipped.map(\.path) == ["pipe.md"])
    }

    /// A folder large enough to be stat'ed on every core gives what a small one does: every
    /// file with its own stat facts, in the folder's listing order, ignored names, links
    /// and conflict copies handled as in any folder, and its sub-folders walked.
    @Test func aLargeFlatFolderIsStatedInParallelWithTheSameAnswer() throws {
        let tmp = TemporaryDirectory()
        let count = FileScanner.parallelStatThreshold * 2 + 77
        for i in 0..<count { tmp.write("flat/n\(i).md", String(repeating: "x", count: i % 50)) }
        tmp.write("flat/n1.md.swp", "x")
        tmp.write("flat/z.sync-conflict-20260101-120000-X.md", "x")
        tmp.write("flat/inner/deep.md", "deep")
        #expect(mkfifo(tmp.path + "/flat/pipe.md", 0o644) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: tmp.path + "/flat/link.md", withDestinationPath: "/etc/hostname")
        try FileManager.default.createSymbolicLink(
            atPath: tmp.path + "/flat/linked-folder", withDestinationPath: "/etc")
        let scan = FileScanner(root: tmp.path, rules: IgnoreRules()).scan()
        let expected = Set((0..<count).map { "flat/n\($0).md" } + ["flat/inner/deep.md"])
        #expect(scan.files.count == expected.count)
        #expect(Set(scan.files.map(\.path)) == expected)
        for file in scan.files where file.path.hasPrefix("flat/n") {
            let i = Int(file.path.dropFirst("flat/n".count).dropLast(".md".count))!
            #expect(file.size == i % 50)
            var info = stat()
            #expect(
                lstat(tmp.path + "/" + file.path, &info) == 0 && UInt64(info.st_ino) == file.inode)
        }
        #expect(scan.conflictCopies == ["flat/z.sync-conflict-20260101-120000-X.md"])
        #expect(scan.skipped.map(\.path) == ["flat/pipe.md"])
        // The folder's own files in its listing order (what readdir gives), then the sub-folder.
        let listing = try FileManager.default.contentsOfDirectory(atPath: tmp.path + "/flat")
            .filter { $0.hasPrefix("n") && $0.hasSuffix(".md") }.map { "flat/" + $0 }
        #expect(Array(scan.files.map(\.path).prefix(count)) == listing)
        #expect(scan.files.last?.path == "flat/inner/deep.md")
        // The same answer twice: the schedule does not show.
        #expect(FileScanner(root: tmp.path, rules: IgnoreRules()).scan().files == scan.files)
    }

    @Test func configReportsUnknownKeysWithTheirLine() {
        let config = WorkspaceConfig.parse(
            "ignore:\n  - \"*.bak\"\ncolour: blue\nlimits:\n  index_max_bytes: -3\n",
            sourcePath: ".notes/config.yml")
        #expect(config.ignore.map(\.pattern) == ["*.bak"])
        #expect(config.diagnostics.count == 2)
        #expect(config.diagnostics[0].message.contains("colour") && config.diagnostics[0].line == 3)
        #expect(config.diagnostics[1].line == 5)
    }

    @Test func readReturnsLinesVersionAndProvenance() throws {
        let tmp = TemporaryDirectory()
        tmp.write(
            "n.md",
            "---\ncreated_by: agent\nlast_modified_by: agent\nlast_modified_at: 2026-01-01T00:00:00Z\n---\none\r\ntwo\r\nthree\r\n"
        )
        tmp.write("bin.md", bytes: [0x89, 0x50, 0x4E, 0x47, 0, 0, 1])
        let ws = try Workspace(root: tmp.path)
        let whole = try ws.read(WorkspacePath("n.md", in: ws))
        #expect(whole.totalLines == 8)
        #expect(whole.provenance.createdBy == .agent && whole.provenance.lastModifiedBy == .agent)
        #expect(whole.version.count == 16)
        let page = try ws.read(WorkspacePath("n.md", in: ws), offset: 7, limit: 5)
        #expect(page.content == "two\r\nthree\r\n")  // the file's bytes, CRLF kept (issue 32)
        #expect(page.lines == 2)
        #expect(
            throws: NotesError(
                .notText, "bin.md is not UTF-8 text", hint: "binary files are listed but not read")
        ) {
            try ws.read(WorkspacePath("bin.md", in: ws))
        }
    }

    @Test func templatesRenderVariablesAndSlugs() {
        let t = TemplateText("# {{ title }}\n{{date}} by {{{actor}}} {{missing}}.")
        #expect(
            t.render(["title": "Moby", "date": "2026-11-21", "actor": "user"])
                == "# Moby\n2026-11-21 by user .")
        #expect(t.variables == ["title", "date", "actor", "missing"])
        #expect(TemplateText.slug("Moby Dick; or The Whale") == "moby-dick-or-the-whale")
        #expect(TemplateText.slug("!!!") == "untitled")
    }
}
