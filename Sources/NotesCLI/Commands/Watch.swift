import ArgumentParser
import Dispatch
import Foundation
import NotesCore
import NotesIndex
import NotesSession
import NotesTools

#if canImport(Glibc)
    import Glibc
#endif

extension NotesCommand {
    /// `notes watch`: keep the index fresh as files change (docs/spec.md §4.3).
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Keep the search index fresh as files change, until Ctrl-C.",
            discussion: """
                Uses inotify: a saved file is searchable a few milliseconds after the
                editor closes it. New folders are watched as they appear; if the kernel's
                event queue overflows, everything is rescanned. Where inotify is not
                available (or with --poll) the workspace is re-walked every few seconds.
                While it runs, other notes commands skip their own stat walk.
                """)

        @OptionGroup var workspace: WorkspaceOptions

        @Option(
            name: .long,
            help: ArgumentHelp("Poll every SECONDS instead of using inotify.", valueName: "seconds")
        )
        var poll: Double?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Wait this long after the last event before refreshing.", valueName: "ms"))
        var debounce: Int = 30
        @Flag(name: .long, help: "Print one JSON object per refresh (JSON lines).")
        var json = false

        func run() throws {
            guard debounce >= 0, debounce <= 10_000 else {
                throw NotesError(
                    .invalidArgument, "--debounce must be between 0 and 10000 ms",
                    hint: "e.g. --debounce 30")
            }
            if let poll, !(poll >= 0.1 && poll <= 3600) {
                throw NotesError(
                    .invalidArgument, "--poll must be between 0.1 and 3600 seconds",
                    hint: "e.g. --poll 2")
            }
            let ws = try workspace.openWorkspace()
            let session = try workspace.openSession(ws)
            let stop = StopPipe()
            let progress = ProgressBar(label: "Indexing")
            // New and changed passages are embedded on a thread of their own after each
            // refresh: a refresh never waits for the model.
            var embedding: BackgroundEmbedding?
            defer { embedding?.finish() }
            let interval = poll ?? 2
            try session.keepFresh(
                WatchOptions(poll: poll, debounceMilliseconds: debounce), stoppingOn: stop.readEnd,
                progress: progress.update
            ) { round in
                let fallback = round.fallbackReason.map { " (\($0))" } ?? ""
                switch round.reason {
                case .start:
                    progress.finish()
                    embedding = BackgroundEmbedding(index: session.index)
                    embedding?.kick()
                    if let folders = round.watchedFolders {
                        report(
                            round,
                            note:
                                "watching \(grouped(folders)) folders of \(ws.root) (Ctrl-C to stop)"
                        )
                    } else {
                        report(
                            round,
                            note: "polling \(ws.root) every \(interval) s" + fallback
                                + " (Ctrl-C to stop)")
                    }
                case .config:
                    report(
                        round,
                        note: "settings changed (.notes/config.yml): rescanned everything"
                            + (round.watchedFolders == nil && poll == nil
                                ? "; polling every \(interval) s (\(round.fallbackReason ?? "inotify unavailable"))"
                                : ""))
                case .overflow:
                    report(round, note: "event queue overflowed: rescanned everything")
                case .change, .poll:
                    report(round, note: nil)
                    if round.report.changedAnything { embedding?.kick() }
                }
            }
            if !json { StandardStreams.writeError("notes: stopped watching\n") }
        }

        private func report(_ round: WatchRound, note: String?) {
            report(round.report, reason: round.reason.rawValue, note: note)
        }

        private func report(_ r: RefreshReport, reason: String, note: String?) {
            if json {
                if let line = try? JSONOutput.line(
                    WatchEvent(reason: reason, at: Timestamp.format(Timestamp.now()), report: r))
                {
                    Terminal.write(line)
                }
                return
            }
            if let note { Terminal.write(Terminal.style(note, .dim) + "\n") }
            guard r.changedAnything || reason == "start" else { return }
            let time = String(Timestamp.format(Timestamp.now()).dropFirst(11).prefix(8))
            var what: [String] = []
            if r.added > 0 { what.append("\(r.added) added") }
            if r.modified > 0 { what.append("\(r.modified) modified") }
            if r.removed > 0 { what.append("\(r.removed) removed") }
            if !r.renames.isEmpty { what.append("\(r.renames.count) renamed") }
            if r.touched > 0 { what.append("\(r.touched) touched") }
            if what.isEmpty { what.append("up to date") }
            Terminal.write(
                "\(time)  \(what.joined(separator: ", ")) · \(grouped(r.files)) files · \(String(format: "%.0f", r.seconds * 1000)) ms\n"
            )
            for d in r.diagnostics.prefix(5) {
                Terminal.write(
                    Terminal.style("  warning: ", .yellow) + StatusText.describe(d) + "\n")
            }
        }
    }
}

/// One refresh as `notes watch --json` prints it.
struct WatchEvent: Encodable {
    var reason: String
    var at: String
    var report: RefreshReport
}

/// SIGINT/SIGTERM turned into a readable pipe, so the watch loop's `poll` wakes up
/// (``WorkspaceSession/keepFresh(_:stoppingOn:progress:onRound:)``).
final class StopPipe: @unchecked Sendable {
    let readEnd: Int32
    private let writeEnd: Int32
    private var sources: [any DispatchSourceSignal] = []

    init() {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let end = writeEnd
            source.setEventHandler { _ = write(end, "x", 1) }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
