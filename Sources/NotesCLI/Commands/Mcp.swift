import ArgumentParser
import Foundation
import NotesCore
import NotesTools

extension NotesCommand {
    /// `notes mcp`: the agent's tools over the Model Context Protocol on stdio (docs/spec.md §7).
    /// The server is its own executable, `notes-mcp`, installed next to `notes`: this
    /// command finds the workspace and the index folder and replaces itself with it (same
    /// process id, same stdin/stdout), so the CLI binary does not carry the MCP SDK and
    /// the networking libraries it links (Sources/NotesMCPMain).
    struct Mcp: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mcp",
            abstract: "Serve the workspace to an AI agent over MCP (stdio).",
            discussion: Self.discussion)

        /// The help's text; the tools named are the catalog's (``ToolCatalog/all``).
        static var discussion: String {
            let names = ToolCatalog.all.map(\.name)
            let tools =
                names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
            return wrapped(
                "Speaks the Model Context Protocol on stdin/stdout; logs go to stderr. The agent "
                    + "gets \(names.count) tools: \(tools), all acting as \"agent\" under the "
                    + "read-first and user-edit guards, the path policy and protected paths.")
                    + """


                    Register it with Claude Code:
                      claude mcp add notes -- notes mcp -w /path/to/workspace
                    or in a client's JSON config:
                      {"mcpServers": {"notes": {"command": "notes",
                                                "args": ["mcp", "-w", "/path/to/workspace"]}}}
                    See docs/mcp.md.
                    """
        }

        /// `text` in lines of at most `width` columns, broken between words.
        static func wrapped(_ text: String, width: Int = 79) -> String {
            var lines: [String] = []
            var line = ""
            for word in text.split(separator: " ") {
                if !line.isEmpty, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            if !line.isEmpty { lines.append(line) }
            return lines.joined(separator: "\n")
        }

        @OptionGroup var workspace: WorkspaceOptions
        @Flag(name: .customLong("read-only"), help: "Offer only the reading tools.") var readOnly =
            false
        @Option(
            name: .long,
            help: ArgumentHelp(
                "The agent's name in history (default: the client's name from the handshake).",
                valueName: "name"))
        var client: String?

        func run() throws {
            let ws = try workspace.openWorkspace()
            let directory = try ws.indexDirectory(
                override: workspace.indexDirectory, environment: ProcessInfo.processInfo.environment
            )
            let server = try Self.serverExecutable()
            var arguments = [server, "--root", ws.root, "--index-dir", directory]
            if readOnly { arguments.append("--read-only") }
            if let client { arguments += ["--client", client] }
            if isatty(0) == 1 {
                StandardStreams.writeError(
                    "notes mcp: serving MCP on stdin/stdout (start it from an MCP client; Ctrl-D to stop)\n"
                )
            }
            let argv = arguments.map { strdup($0) } + [nil]
            execv(server, argv)
            let code = errno
            throw NotesError.system(
                code, "cannot start the MCP server \(server): \(String(cString: strerror(code)))",
                hint: "reinstall notes so that notes-mcp sits next to notes")
        }

        /// `notes-mcp` in the folder of the running `notes` binary.
        static func serverExecutable() throws -> String {
            let executable =
                FileSystem.realPath("/proc/self/exe") ?? CommandLine.arguments.first ?? "notes"
            let folder = (executable as NSString).deletingLastPathComponent
            let server = folder + "/notes-mcp"
            guard access(server, X_OK) == 0 else {
                throw NotesError(
                    .notFound,
                    "the MCP server notes-mcp is not installed next to notes (\(server))",
                    hint:
                        "build it with scripts/build-release, or `swift build --product notes-mcp`")
            }
            return server
        }
    }
}
