import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// The built binaries copied alone into an empty folder, as an install or a download puts
/// them (issue 31): everything that uses templates works from the copy compiled in.
@Suite(.serialized) struct InstalledBinaryTests {
    let dir = TemporaryDirectory(prefix: "notes-installed")
    var bin: String { dir.path + "/bin" }
    /// No templates folder to be found: a fresh cache and home, no NOTES_TEMPLATES.
    var environment: [String: String] {
        [
            "NOTES_TEMPLATES": "", "XDG_CACHE_HOME": dir.path + "/cache",
            "HOME": dir.path + "/home",
            "NOTES_INDEX_DIR": dir.path + "/index", "NO_COLOR": "1", "NOTES_WORKSPACE": "",
        ]
    }

    init() throws {
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let built = (Repository.notesBinary as NSString).deletingLastPathComponent
        for name in ["notes", "notes-mcp"]
        where FileManager.default.fileExists(atPath: built + "/" + name) {
            try FileManager.default.copyItem(atPath: built + "/" + name, toPath: bin + "/" + name)
        }
    }

    func notes(_ arguments: String..., stdin: String? = nil) -> ProcessResult {
        run(bin + "/notes", arguments, environment: environment, directory: dir.path, stdin: stdin)
    }

    @Test func initNewAndTemplatesWorkFromACopiedBinary() throws {
        let created = notes("init", "ws")
        #expect(created.status == 0, "\(created.stderr)")
        for path in [".notes/config.yml", "context.md", "Research", "Journal", "Chats"] {
            #expect(FileManager.default.fileExists(atPath: dir.path + "/ws/" + path), "\(path)")
        }
        let listed = notes("-w", "ws", "templates")
        #expect(listed.status == 0, "\(listed.stderr)")
        for name in ["research", "introduction", "source", "journal", "context"] {
            #expect(listed.stdout.contains(name), "\(name)")
        }
        let topic = notes(
            "-w", "ws", "new", "research", "Moby Dick", "--var", "question=Why is the whale white?")
        #expect(topic.status == 0, "\(topic.stderr)")
        let intro = try String(
            contentsOfFile: dir.path + "/ws/Research/moby-dick/introduction.md", encoding: .utf8)
        #expect(intro.contains("Why is the whale white?"))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/ws/Research/moby-dick/sources"))
        #expect(notes("-w", "ws", "journal", "first entry").status == 0)
    }

    @Test func workspaceOverridesStillApplyOverTheBuiltInTemplates() throws {
        #expect(notes("init", "ws").status == 0)
        try FileManager.default.createDirectory(
            atPath: dir.path + "/ws/.notes/templates", withIntermediateDirectories: true)
        try "# {{title}} (house style)\n".write(
            toFile: dir.path + "/ws/.notes/templates/introduction.md", atomically: true,
            encoding: .utf8)
        let made = notes("-w", "ws", "new", "introduction", "Whales")
        #expect(made.status == 0, "\(made.stderr)")
        let text = try String(
            contentsOfFile: dir.path + "/ws/Research/whales/introduction.md", encoding: .utf8)
        #expect(text.contains("# Whales (house style)"))
    }

    @Test func theMCPTemplateToolsWorkFromACopiedBinary() throws {
        try #require(
            FileManager.default.fileExists(atPath: bin + "/notes-mcp"),
            "notes-mcp is built by scripts/test")
        #expect(notes("init", "ws").status == 0)
        let requests =
            [
                #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
                #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_templates","arguments":{}}}"#,
                #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"new_from_template","arguments":{"template":"introduction","variables":{"title":"Ahab"}}}}"#,
            ].joined(separator: "\n") + "\n"
        let session = notes("mcp", "-w", "ws", stdin: requests)
        let replies = session.stdout.split(separator: "\n").map(String.init)
        let list = try #require(
            replies.first { $0.contains(#""id":2"#) }, "\(session.stdout) \(session.stderr)")
        #expect(list.contains("research") && !list.contains("cannot find"), "\(list)")
        let made = try #require(replies.first { $0.contains(#""id":3"#) }, "\(session.stdout)")
        #expect(!made.contains(#""isError":true"#), "\(made)")
        #expect(
            FileManager.default.fileExists(atPath: dir.path + "/ws/Research/ahab/introduction.md"))
    }

    @Test func versionNamesTheCommit() {
        let version = notes("--version")
        #expect(version.status == 0)
        // "dev" for a plain build; scripts/build-release writes the commit it built.
        #expect(
            version.stdout.range(
                of: #"^notes \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}(-dirty)?|dev)\)\n$"#,
                options: .regularExpression) != nil, "\(version.stdout)")
    }

    @Test func scriptsInstallPutsBinariesManPageAndCompletionsUnderThePrefix() throws {
        let prefix = dir.path + "/prefix"
        let built = (Repository.notesBinary as NSString).deletingLastPathComponent
        try #require(
            FileManager.default.fileExists(atPath: built + "/notes-mcp"),
            "notes-mcp is built by scripts/test")
        let installed = run(
            Repository.root + "/scripts/install", ["--from", built, prefix],
            environment: environment)
        #expect(installed.status == 0, "\(installed.stderr)")
        for path in ["bin/notes", "bin/notes-mcp"] {
            #expect(FileManager.default.isExecutableFile(atPath: prefix + "/" + path), "\(path)")
        }
        let man = try String(contentsOfFile: prefix + "/share/man/man1/notes.1", encoding: .utf8)
        #expect(man.hasPrefix(".TH NOTES 1 "))
        for command in ["search", "append", "journal", "init", "mcp"] {
            #expect(man.contains(".SS notes " + command), "\(command)")
        }
        let completions = [
            "share/bash-completion/completions/notes", "share/zsh/site-functions/_notes",
            "share/fish/vendor_completions.d/notes.fish",
        ]
        for path in completions {
            let text = (try? String(contentsOfFile: prefix + "/" + path, encoding: .utf8)) ?? ""
            #expect(
                text.contains("search") && text.contains("workspace") && text.contains("journal"),
                "\(path)")
        }
        // The installed binary is complete on its own: a workspace from the built-in templates.
        let made = run(
            prefix + "/bin/notes", ["init", dir.path + "/fresh"], environment: environment,
            directory: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/fresh/.notes/config.yml"))
        // Bad input installs nothing.
        let relative = run(
            Repository.root + "/scripts/install", ["--from", built, "relative/prefix"],
            environment: environment, directory: dir.path)
        #expect(
            relative.status == 2 && !FileManager.default.fileExists(atPath: dir.path + "/relative"))
    }
}
