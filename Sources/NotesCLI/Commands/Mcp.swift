import ArgumentParser
import Dispatch
import Foundation
import NotesCore
import NotesIndex
import NotesMCP

extension NotesCommand {
    /// `notes mcp`: the agent's tools over the Model Context Protocol on stdio (SPEC §7).
    struct Mcp: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mcp",
            abstract: "Serve the workspace to an AI agent over MCP (stdio).",
            discussion: """
                Speaks the Model Context Protocol on stdin/stdout; logs go to stderr. The agent gets
                read_file, list_files, search, file_history, get_context, list_templates, write_file,
                append_file, edit_file, delete_file, move_file, restore_file, remember,
                new_from_template and fetch_url, all acting as "agent" under the read-first and
                user-edit guards, the path policy and protected paths.

                Register it with Claude Code:
                  claude mcp add notes -- notes mcp -w /path/to/workspace
                or in a client's JSON config:
                  {"mcpServers": {"notes": {"command": "notes", "args": ["mcp", "-w", "/path/to/workspace"]}}}
                See docs/mcp.md.
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Flag(name: .customLong("read-only"), help: "Offer only the reading tools.") var readOnly = false
        @Option(name: .long, help: ArgumentHelp("The agent's name in history (default: the client's name from the handshake).", valueName: "name"))
        var client: String?

        func run() throws {
            if isatty(0) == 1 {
                FileHandle.standardError.write(Data("notes mcp: serving MCP on stdin/stdout (start it from an MCP client; Ctrl-D to stop)\n".utf8))
            }
            let ws = try workspace.openWorkspace()
            let index = try workspace.openIndex(ws)
            // inotify tells the server which files changed, so a search costs no stat walk;
            // without it every search re-walks the workspace (SPEC §4.3).
            if let problem = index.watchForChanges() {
                FileHandle.standardError.write(Data("notes mcp: not watching the files (\(problem.message)); each search re-walks the workspace\n".utf8))
                _ = try index.refresh()
            }
            let server = NotesMCPServer(workspace: index.workspace, index: index, options: .init(readOnly: readOnly, client: client))
            let outcome = ServerOutcome()
            let done = DispatchSemaphore(value: 0)
            Task {
                do { try await server.run() } catch { outcome.set(error) }
                done.signal()
            }
            done.wait()
            if let error = outcome.error {
                throw NotesError(.internal, "the MCP server stopped: \(error)", hint: "run with NOTES_MCP_DEBUG=1 to see the protocol log on stderr")
            }
        }
    }
}

/// The error the server task ended with, handed to the waiting main thread.
private final class ServerOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    var error: (any Error)? { lock.lock(); defer { lock.unlock() }; return stored }
    func set(_ error: any Error) { lock.lock(); stored = error; lock.unlock() }
}
