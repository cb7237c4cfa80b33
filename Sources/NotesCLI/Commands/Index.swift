import ArgumentParser
import Foundation
import NotesCore
import NotesEmbedding
import NotesIndex
import NotesSession
import NotesStore
import NotesTools

extension NotesCommand {
    /// `notes index`: bring the search index up to date, or rebuild it (docs/spec.md §4.3).
    struct Index: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Update the search index now (every reading command also does this).",
            discussion: """
                Only changed files are re-read. With the embedding model installed (`notes
                model`), the passages of new and changed sections are then embedded for search
                by meaning (--no-embed skips it; interrupted, the next run continues).
                --rebuild starts from an empty index; the files are never touched. --check
                verifies the whole database and rebuilds it if it is damaged (damage a query
                meets is repaired on the spot anyway), and verifies every version in
                .notes/history, which is reported and never rebuilt (exit 1).
                """)

        @OptionGroup var workspace: WorkspaceOptions

        @Flag(name: .long, help: "Drop the index and build it again from the files.")
        var rebuild = false
        @Flag(
            name: .long,
            help: "Verify the index (rebuilt if damaged) and the history's stored versions.")
        var check = false
        @Flag(name: .long, help: "Print the report as JSON.")
        var json = false
        @Flag(name: .customLong("no-embed"), help: "Skip embedding passages for search by meaning.")
        var noEmbed = false

        func run() throws {
            let ws = try workspace.openWorkspace()
            let index = try workspace.openSession(ws, refreshingSoon: !rebuild && !check).index
            let progress = ProgressBar(label: rebuild ? "Rebuilding" : "Indexing")
            let damage = check ? try index.checkAndRepair() : []
            let report =
                rebuild
                ? try index.rebuild(progress: progress.update)
                : try index.refresh(progress: progress.update)
            progress.finish()
            // The words' summary first: embedding can take minutes.
            if !json && !check { Terminal.write(Self.summary(report) + "\n") }
            var skipped: String?
            let embedding = noEmbed || check ? nil : try Self.embed(index, skipped: &skipped)
            let damagedHistory = check ? HistoryStore(workspace: ws).damagedObjects() : []
            let logProblems = check ? HistoryStore(workspace: ws).logProblems() : []
            let missing = check ? HistoryStore(workspace: ws).missingObjects() : []
            if json {
                if check {
                    Terminal.write(
                        try JSONOutput.document(
                            CheckedReport(
                                report: report, indexDamage: damage,
                                damagedHistoryVersions: damagedHistory,
                                historyLogProblems: logProblems, missingHistoryVersions: missing)))
                    if !damagedHistory.isEmpty || !logProblems.isEmpty || !missing.isEmpty {
                        throw ExitCode(1)
                    }
                    return
                }
                return Terminal.write(
                    try JSONOutput.document(
                        IndexedReport(
                            report: report, embedding: embedding, embeddingSkipped: skipped)))
            }
            if !damage.isEmpty {
                Terminal.write(
                    Terminal.style(
                        "The index was damaged (\(damage[0])); rebuilt it from the files.", .yellow)
                        + "\n")
            } else if check {
                Terminal.write("Index verified: no damage.\n")
            }
            if check {
                if !missing.isEmpty {
                    Terminal.write(
                        Terminal.style(
                            "\(missing.count) version(s) named by the history log are missing from .notes/history/objects: ",
                            .red)
                            + missing.prefix(5).map {
                                "\(workspace.pathBase(index.workspace).display($0.path))@\($0.version)"
                            }.joined(separator: ", ") + (missing.count > 5 ? ", …" : "") + "\n")
                    Terminal.write(
                        "  `notes restore` cannot bring them back; restore .notes/history from a backup or sync copy.\n"
                    )
                }
                if damagedHistory.isEmpty && missing.isEmpty {
                    Terminal.write("History verified: every stored version matches its hash.\n")
                } else if damagedHistory.isEmpty {
                    Terminal.write("Every stored version matches its hash.\n")
                } else {
                    Terminal.write(
                        Terminal.style(
                            "\(damagedHistory.count) stored version(s) in .notes/history are damaged: ",
                            .red) + damagedHistory.prefix(5).joined(separator: ", ") + "\n")
                    Terminal.write(
                        "  They are kept as they are; restore .notes/history from a backup or sync copy to repair them.\n"
                    )
                }
                if let line = HistoryStore.describe(logProblems) {
                    Terminal.write(Terminal.style("History log: ", .red) + line + "\n")
                }
            }
            if check { Terminal.write(Self.summary(report) + "\n") }
            if let embedding { Terminal.write(Self.summary(embedding) + "\n") }
            for diagnostic in report.diagnostics.prefix(10) {
                Terminal.write(
                    Terminal.style("  warning: ", .yellow) + StatusText.describe(diagnostic) + "\n")
            }
            if report.diagnostics.count > 10 {
                Terminal.write(
                    Terminal.style(
                        "  … and \(report.diagnostics.count - 10) more (see `notes status`)", .dim)
                        + "\n")
            }
            if !damagedHistory.isEmpty || !logProblems.isEmpty || !missing.isEmpty {
                throw ExitCode(1)
            }
        }

        /// What the embedding pass did.
        struct EmbeddingReport: Encodable {
            let chunks: Int
            let seconds: Double
            let coverage: SemanticCoverage
        }

        /// `notes index --json`: the refresh's report, and the embedding pass's when it ran.
        struct IndexedReport: Encodable {
            let report: RefreshReport
            let embedding: EmbeddingReport?
            /// Why nothing was embedded although a model is installed (another command kept
            /// embedding this index past the wait).
            let embeddingSkipped: String?
            func encode(to encoder: any Encoder) throws {
                try report.encode(to: encoder)
                enum Key: String, CodingKey {
                    case embedding
                    case embeddingSkipped = "embedding_skipped"
                }
                var container = encoder.container(keyedBy: Key.self)
                try container.encodeIfPresent(embedding, forKey: .embedding)
                try container.encodeIfPresent(embeddingSkipped, forKey: .embeddingSkipped)
            }
        }

        /// Embeds the passages that have no vectors yet, with a progress bar and ETA on a
        /// terminal; nil when no model is installed (search then runs by words), or when
        /// another command kept embedding this index past the wait (said on stderr: the
        /// index itself is up to date, and that command stores the vectors).
        static func embed(_ index: NoteIndex, skipped: inout String?) throws -> EmbeddingReport? {
            guard let model = InstalledModel.load() else { return nil }
            let started = Date()
            let bar = ProgressBar(label: "Embedding")
            let chunks: Int
            do {
                chunks = try index.embedPending(with: model, progress: { bar.drawEmbedding($0) })
            } catch {
                guard error.code == .busy else { throw error }
                bar.finish()
                skipped = error.message
                StandardStreams.writeError(
                    "notes: not embedded here: \(error.message) (its vectors appear as it stores them; `notes index` again finishes any left)\n"
                )
                return nil
            }
            bar.finish()
            // Passages were embedded, so OpenBLAS was asked for: say when it was not there.
            if chunks > 0 && !BLAS.isAvailable {
                StandardStreams.writeError(
                    "notes: embedded without OpenBLAS, about three times slower (`notes model` says why; `apt-get install libopenblas0`)\n"
                )
            }
            return EmbeddingReport(
                chunks: chunks, seconds: Date().timeIntervalSince(started),
                coverage: try index.semanticCoverage())
        }

        static func summary(_ e: EmbeddingReport) -> String {
            var line =
                "Embedded \(grouped(e.chunks)) passage(s) in \(String(format: "%.1f", e.seconds)) s"
            if e.chunks > 0 && e.seconds > 0 {
                line += String(format: " (%.0f/s)", Double(e.chunks) / e.seconds)
            }
            return line
                + "; \(grouped(e.coverage.embeddedFiles)) of \(grouped(e.coverage.files)) files searchable by meaning"
        }

        /// `notes index --check --json`.
        struct CheckedReport: Encodable {
            let report: RefreshReport
            let indexDamage: [String]
            let damagedHistoryVersions: [String]
            let historyLogProblems: [HistoryStore.LogProblem]
            let missingHistoryVersions: [HistoryStore.MissingVersion]
            enum CodingKeys: String, CodingKey {
                case report, indexDamage = "index_damage", damagedHistoryVersions =
                    "damaged_history_versions", historyLogProblems = "history_log_problems"
                case missingHistoryVersions = "missing_history_versions"
            }
        }

        static func summary(_ r: RefreshReport) -> String {
            let rate = r.seconds > 0 ? Double(r.bytesParsed) / 1e6 / r.seconds : 0
            var parts = [
                "\(grouped(r.added)) added", "\(grouped(r.modified)) modified",
                "\(grouped(r.removed)) removed",
            ]
            if !r.renames.isEmpty { parts.append("\(r.renames.count) renamed") }
            if r.touched > 0 { parts.append("\(r.touched) touched (unchanged bytes)") }
            var line =
                "Indexed \(grouped(r.files)) files in \(String(format: "%.2f", r.seconds)) s: "
                + parts.joined(separator: ", ")
            if r.bytesParsed > 0 {
                line += String(format: "; parsed %@ (%.1f MB/s)", humanSize(r.bytesParsed), rate)
            }
            if !r.diagnostics.isEmpty { line += "; \(r.diagnostics.count) warning(s)" }
            return line
        }
    }
}
