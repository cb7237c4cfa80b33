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

        @Option(name: .long, help: ArgumentHelp("Poll every SECONDS instead of using inotify.", valueName: "seconds"))
        var poll: Double?
        @Option(name: .long, help: ArgumentHelp("Wait this long after the last event before refreshing.", valueName: "ms"))
        var debounce: Int = 30
        @Flag(name: .long, help: "Print one JSON object per refresh (JSON lines).")
        var json = false

        func run() throws {
            guard debounce >= 0, debounce <= 10_000 else {
                throw NotesError(.invalidArgument, "--debounce must be between 0 and 10000 ms", hint: "e.g. --debounce 30")
            }
            if let poll, !(poll >= 0.1 && poll <= 3600) {
                throw NotesError(.invalidArgument, "--poll must be between 0.1 and 3600 seconds", hint: "e.g. --poll 2")
            }
            let ws = try workspace.openWorkspace()
            let index = try workspace.openSession(ws).index
            let stop = StopPipe()
            var watcher: FolderWatcher?
            var fallbackReason: String?
            if poll == nil {
                do { watcher = try FolderWatcher(workspace: ws) } catch { fallbackReason = error.message }
            }
            let lease = try index.takeWatchLease(mode: watcher != nil ? "inotify" : "poll", configStamp: ws.configStamp)
            defer { withExtendedLifetime(lease) {} }

            let progress = ProgressBar(label: "Indexing")
            let first = try index.refresh(progress: progress.update)
            progress.finish()
            // New and changed passages are embedded on a thread of their own after each
            // refresh: a refresh never waits for the model.
            let embedding = BackgroundEmbedding(index: index)
            defer { embedding?.stop() }
            embedding?.kick()
            let interval = poll ?? 2
            if let watcher {
                report(first, reason: "start", note: "watching \(grouped(watcher.folderCount)) folders of \(ws.root) (Ctrl-C to stop)")
            } else {
                report(first, reason: "start", note: "polling \(ws.root) every \(interval) s" + (fallbackReason.map { " (\($0))" } ?? "") + " (Ctrl-C to stop)")
            }

            while !stop.requested {
                // Moved or deleted, the folder is no longer at the path every refresh uses:
                // watching on would index nothing, silently.
                guard ws.isStillAtItsPath else {
                    throw NotesError(.notFound, "the workspace folder \(ws.root) was moved or deleted while watching; stopped",
                                     hint: "run notes watch again in its new place")
                }
                // The person edited .notes/config.yml: new ignore rules decide what is
                // watched and indexed, new protected paths what agents may find.
                if ws.reloadConfigIfChanged() {
                    if watcher != nil {
                        do { watcher = try FolderWatcher(workspace: ws) } catch { watcher = nil; fallbackReason = error.message }
                    }
                    report(try index.refresh(), reason: "config", note: "settings changed (.notes/config.yml): rescanned everything"
                           + (watcher == nil && poll == nil ? "; polling every \(interval) s (\(fallbackReason ?? "inotify unavailable"))" : ""))
                    lease.update(mode: watcher != nil ? "inotify" : "poll", configStamp: ws.configStamp)
                }
                if let watcher {
                    // Wakes at least once a second to look at the config file (one stat).
                    guard watcher.wait(milliseconds: 1000, alsoWatching: stop.readEnd) else { continue }
                    // Debounce: collect until the events pause (or 10× the debounce passes).
                    var changes = watcher.read()
                    let deadline = Timestamp.now() + Double(debounce * 10) / 1000
                    while !stop.requested, Timestamp.now() < deadline, watcher.wait(milliseconds: Int32(debounce), alsoWatching: stop.readEnd) {
                        changes = merge(changes, watcher.read())
                    }
                    guard let changes else { continue }
                    switch changes {
                    case .overflow:
                        report(try index.refresh(), reason: "overflow", note: "event queue overflowed: rescanned everything")
                    case .paths(let paths):
                        let refreshed = try index.refresh(only: paths)
                        report(refreshed, reason: "change", note: nil)
                        if refreshed.changedAnything { embedding?.kick() }
                    }
                } else {
                    if stop.wait(seconds: interval) { break }
                    let refreshed = try index.refresh()
                    report(refreshed, reason: "poll", note: nil)
                    if refreshed.changedAnything { embedding?.kick() }
                }
            }
            if !json { FileHandle.standardError.write(Data("notes: stopped watching\n".utf8)) }
        }

        private func merge(_ a: FolderWatcher.Changes?, _ b: FolderWatcher.Changes?) -> FolderWatcher.Changes? {
            switch (a, b) {
            case (nil, let x), (let x, nil): return x
            case (.overflow, _), (_, .overflow): return .overflow
            case (.paths(let x), .paths(let y)): return .paths(x.union(y))
            }
        }

        private func report(_ r: RefreshReport, reason: String, note: String?) {
            if json {
                if let line = try? JSONOutput.line(WatchEvent(reason: reason, at: Timestamp.format(Timestamp.now()), report: r)) { Terminal.write(line) }
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
            Terminal.write("\(time)  \(what.joined(separator: ", ")) · \(grouped(r.files)) files · \(String(format: "%.0f", r.seconds * 1000)) ms\n")
            for d in r.diagnostics.prefix(5) { Terminal.write(Terminal.style("  warning: ", .yellow) + StatusText.describe(d) + "\n") }
        }
    }
}

/// One refresh as `notes watch --json` prints it.
struct WatchEvent: Encodable {
    var reason: String
    var at: String
    var report: RefreshReport
}

/// SIGINT/SIGTERM turned into a readable pipe, so the watch loop's `poll` wakes up.
final class StopPipe: @unchecked Sendable {
    let readEnd: Int32
    private let writeEnd: Int32
    private var sources: [any DispatchSourceSignal] = []

    init() {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC); _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
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

    /// Whether a stop was requested (does not block).
    var requested: Bool {
        var fd = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&fd, 1, 0) > 0
    }

    /// Sleeps up to `seconds`, returning early (true) on a stop request.
    func wait(seconds: Double) -> Bool {
        var fd = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&fd, 1, Int32(seconds * 1000)) > 0
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
