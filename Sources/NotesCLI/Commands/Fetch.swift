import ArgumentParser
import Foundation
import NotesCore
import NotesNetwork
import NotesStore
import NotesTools

extension NotesCommand {
    /// `notes fetch URL [--to PATH]`: download a page or a text into the workspace (docs/spec.md
    /// §9.4).
    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fetch",
            abstract: "Download a web page or text into the workspace (cached by ETag).",
            discussion: """
                http and https only; redirects followed; text only (Latin-1 becomes UTF-8).
                Markdown targets get source_url and fetched_at in their front matter.
                Fetching the same URL again downloads only if the page changed. Offline:
                nothing is written. Proxies: https_proxy / http_proxy / no_proxy.

                  notes fetch https://www.gutenberg.org/cache/epub/2701/pg2701.txt \\
                      --to Research/moby-dick/full_text.txt
                  notes fetch https://example.org/notes.md    # → Fetched/example.org/notes.md
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The page's address (http or https).") var url: String
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Where to save it (default: Fetched/<host>/<name>).", valueName: "path"),
            completion: Completion.paths) var to: String?
        @Option(
            name: .long,
            help: ArgumentHelp("Give up after this many seconds.", valueName: "seconds"))
        var timeout: Double = 60
        @Option(
            name: .customLong("max-bytes"),
            help: ArgumentHelp(
                "Refuse bodies larger than this (default: limits.write_max_bytes, 16 MB).",
                valueName: "n")) var maxBytes: Int?
        @Flag(name: .long, help: "Print the result as JSON.") var json = false

        func validate() throws {
            guard timeout > 0, timeout <= 3600 else {
                throw NotesError(.invalidArgument, "--timeout must be between 0 and 3600 seconds")
            }
            if let maxBytes, maxBytes <= 0 {
                throw NotesError(.invalidArgument, "--max-bytes must be positive")
            }
        }

        func run() throws {
            let ws = try workspace.openWorkspace()
            let store = NoteStore(workspace: ws)
            var fetcher = WebFetch(
                store: store, client: HTTPClient(userAgent: "notes/\(NotesCommand.version)"))
            fetcher.timeout = timeout
            if let maxBytes { fetcher.maxBytes = maxBytes }
            let target = try to.map { raw throws in try workspace.resolve(raw, in: ws).relative }
            var result = try fetcher.fetch(url, to: target, by: .person)
            result.path = workspace.pathBase(ws).display(result.path)
            if json { return Terminal.write(try JSONOutput.document(result)) }
            let size = humanSize(result.bytes)
            if result.cached {
                Terminal.write(
                    "unchanged since the last fetch (304): \(result.path), \(size)"
                        + Terminal.style("  version \(result.version)", .dim) + "\n")
            } else if !result.changed {
                Terminal.write(
                    "already up to date: \(result.path), \(size)"
                        + Terminal.style("  version \(result.version)", .dim) + "\n")
            } else {
                let moved =
                    result.finalURL != result.url
                    ? Terminal.style("  (from \(result.finalURL))", .dim) : ""
                Terminal.write(
                    "\(result.created ? "saved" : "updated") \(result.path), \(size)\(moved)"
                        + Terminal.style("  version \(result.version)", .dim) + "\n")
            }
            for warning in result.warnings { StandardStreams.writeError("notes: \(warning)\n") }
        }
    }
}
