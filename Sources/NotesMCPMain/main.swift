import Dispatch
import Foundation
import NotesCore
import NotesIndex
import NotesMCP
import NotesSession

// `notes-mcp`: the MCP server's own executable, started by `notes mcp` (which finds the
// workspace and the index folder, then execs this next to itself).
//
// It is separate because the MCP SDK brings FoundationNetworking, and with it libcurl and
// its ~25 shared libraries, into any binary that links it: loading and relocating those
// would slow the start of every `notes` command (docs/performance-history.md). A server
// starts once per session.
//
//   notes-mcp --root DIR --index-dir DIR [--read-only] [--client NAME]

/// One line on stderr in the CLI's format, then exit 2.
func fail(_ message: String) -> Never {
    StandardStreams.writeError("notes: \(message)\n")
    exit(2)
}

// stdout is the protocol channel: the library's notices (a wait, a rebuild) go to stderr.
StandardStreams.sendNoticesToStandardError()

var root: String?
var indexDirectory: String?
var options = NotesMCPServer.Options()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--root": root = arguments.popFirst()
    case "--index-dir": indexDirectory = arguments.popFirst()
    case "--client": options.client = arguments.popFirst()
    case "--read-only": options.readOnly = true
    default:
        fail(
            "notes-mcp: unknown argument '\(argument)' (start the server with `notes mcp`; see `notes help mcp`)"
        )
    }
}
guard let root, let indexDirectory else {
    fail(
        "notes-mcp needs --root and --index-dir (start the server with `notes mcp`; see `notes help mcp`)"
    )
}

/// The error the server task ended with, handed to the waiting main thread.
final class ServerOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    var error: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    func set(_ error: any Error) {
        lock.lock()
        stored = error
        lock.unlock()
    }
}

do {
    let workspace = try Workspace(root: root)
    // `initialize` never waits on the index (issue 34): with a build running elsewhere
    // (perhaps stopped), the server starts at once and each tool call that needs the index
    // waits for the build, bounded, and answers `busy` naming it after the limit.
    let session = try WorkspaceSession(
        workspace: workspace, indexDirectory: indexDirectory, longLived: true,
        waitForBuilders: false)
    // inotify tells the server which files changed, so a search costs no stat walk;
    // without it every search re-walks the workspace (docs/spec.md §4.3).
    // A cache folder that cannot hold the index (full, read-only, not a folder) costs search
    // only: the server starts, reads and writes files, and search says why (issue 34).
    if let problem = session.index.unusableAtStart {
        StandardStreams.writeError(
            "notes mcp: search is unavailable (\(problem)); reading and writing files work\n")
    } else if session.index.isWaitingForABuild {
        StandardStreams.writeError(
            "notes mcp: another notes process is building the search index; tool calls that need it wait for it (each call refreshes by walking the workspace)\n"
        )
    } else if let problem = session.watchForChanges() {
        if problem.cause == .indexUnusable {
            StandardStreams.writeError(
                "notes mcp: search is unavailable (\(problem)); reading and writing files work\n")
        } else {
            StandardStreams.writeError(
                "notes mcp: not watching the files (\(problem.message)); each search re-walks the workspace\n"
            )
            do {
                _ = try session.index.refresh()
            } catch  where error.cause == .indexUnusable {
                StandardStreams.writeError(
                    "notes mcp: search is unavailable (\(error)); reading and writing files work\n")
            }
        }
    }
    let server = NotesMCPServer(session: session, options: options)
    let outcome = ServerOutcome()
    let done = DispatchSemaphore(value: 0)
    // Detached: top-level code is on the main actor, whose thread waits below.
    Task.detached {
        do { try await server.run() } catch { outcome.set(error) }
        done.signal()
    }
    done.wait()
    if let error = outcome.error {
        fail(
            "the MCP server stopped: \(error) (run with NOTES_MCP_DEBUG=1 to see the protocol log on stderr)"
        )
    }
} catch {
    fail(error.description)
}
