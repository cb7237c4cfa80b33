import ArgumentParser
import Foundation
import NotesCore
import NotesIndex
import NotesStore
import NotesTools

extension NotesCommand {
    /// `notes status`: the workspace, index freshness, problems in files, and sync-conflict
    /// copies (docs/spec.md §2, §3.1).
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the workspace, the index, files with problems and sync-conflict copies."
        )

        @OptionGroup var workspace: WorkspaceOptions
        @Flag(name: .long, help: "Print the status as JSON.") var json = false
        @Flag(
            name: .long,
            help: "Remove the temporary files of notes processes that stopped mid-write.") var fix =
            false

        struct Report: Encodable {
            var root: String
            var initialized: Bool
            /// nil when the index cannot be used (``indexUnavailable`` says why).
            var index: IndexStatus?
            /// Why the index cannot be used and what to do (its folder is full, read-only…).
            var indexUnavailable: String?
            var refresh: RefreshReport
            var conflictCopies: [ConflictCopy]
            var configProblems: [Diagnostic]
            /// Search by meaning: the model and how many files have vectors.
            var semantic: SemanticState
            /// Lines of the history log that are not whole records (issue 34 item 2).
            var historyLogProblems: [HistoryStore.LogProblem]
            /// With `--fix`: the temporary files of stopped writers removed.
            var removedTemporaryFiles: [String]?

            enum CodingKeys: String, CodingKey {
                case root, initialized, index, refresh, semantic
                case indexUnavailable = "index_unavailable"
                case conflictCopies = "conflict_copies", configProblems = "config_problems",
                    historyLogProblems = "history_log_problems"
                case removedTemporaryFiles = "removed_temporary_files"
            }
        }

        struct SemanticState: Encodable {
            /// Why search runs by words alone (no model, or it does not load); nil when it can run by meaning.
            var unavailable: String?
            /// nil when the index cannot be used.
            var coverage: SemanticCoverage?
        }

        struct ConflictCopy: Encodable {
            var path: String
            var of: String
        }

        func run() throws {
            let ws = try workspace.openWorkspace()
            var status: IndexStatus?
            var refresh = RefreshReport()
            var coverage: SemanticCoverage?
            var unavailable: NotesError?
            do {
                let (index, report) = try workspace.openFreshIndex()
                (status, refresh, coverage) = (
                    try index.status(), report, try index.semanticCoverage()
                )
            } catch let error as NotesError where error.cause == .indexUnusable {
                unavailable = error  // the rest of the status needs no index (issue 34)
            }
            let base = workspace.pathBase(ws)
            let conflicts = refresh.conflictCopies.map {
                ConflictCopy(
                    path: base.display($0), of: base.display(IgnoreRules.conflictBase(of: $0)))
            }
            if status != nil { status!.diagnostics = status!.diagnostics.map { base.display($0) } }
            refresh.diagnostics = refresh.diagnostics.map { base.display($0) }
            let semantic = SemanticState(
                unavailable: InstalledModel.unavailableReason(), coverage: coverage)
            let report = Report(
                root: ws.root, initialized: ws.isInitialized, index: status,
                indexUnavailable: unavailable?.description, refresh: refresh,
                conflictCopies: conflicts, configProblems: ws.config.diagnostics,
                semantic: semantic,
                historyLogProblems: HistoryStore(workspace: ws).logProblems(),
                removedTemporaryFiles: fix
                    ? NoteStore(workspace: ws).removeLeftoverTemporaryFiles() : nil)
            if json { return Terminal.write(try JSONOutput.document(report)) }

            var out =
                Terminal.style("Workspace ", .bold) + ws.root
                + (ws.isInitialized
                    ? "" : Terminal.style("  (no .notes/ yet: `notes init` creates it)", .dim))
                + "\n"
            if let status {
                out +=
                    Terminal.style("Index     ", .bold) + status.indexDirectory + "  "
                    + Terminal.style(humanSize(status.databaseBytes), .dim) + "\n"
                let kinds = status.byKind.keys.sorted().map {
                    "\(grouped(status.byKind[$0]!)) \($0)"
                }.joined(separator: ", ")
                out +=
                    "          \(grouped(status.files)) files (\(grouped(status.indexed)) indexed, \(grouped(status.sections)) sections): \(kinds)\n"
                out +=
                    "          "
                    + (refresh.changedAnything
                        ? "brought up to date: " + NotesCommand.Index.summary(refresh)
                        : "up to date") + "\n"
            } else if let unavailable {
                out +=
                    Terminal.style("Index     ", .bold) + Terminal.style("unavailable: ", .yellow)
                    + unavailable.description + "\n"
                out += "          search cannot run; reading, writing, listing and history work\n"
            }
            if let reason = semantic.unavailable {
                out += Terminal.style("Meaning   ", .bold) + reason + "\n"
            } else if let c = semantic.coverage {
                out += Terminal.style("Meaning   ", .bold)
                out +=
                    "\(grouped(c.embeddedFiles)) of \(grouped(c.files)) files searchable by meaning"
                    + (c.isComplete
                        ? "" : Terminal.style("  (`notes index` embeds the rest)", .dim)) + "\n"
            }
            if !ws.config.diagnostics.isEmpty {
                out += "\n" + Terminal.style("Config problems", .yellow) + "\n"
                for d in ws.config.diagnostics { out += "  " + StatusText.describe(d) + "\n" }
            }
            let problems =
                (status?.diagnostics ?? [])
                + refresh.diagnostics.filter {
                    $0.code == .notRegularFile || $0.code == .unreadable
                }
            if !problems.isEmpty {
                out +=
                    "\n" + Terminal.style("Files with problems (\(problems.count))", .yellow) + "\n"
                for d in problems.prefix(50) { out += "  " + StatusText.describe(d) + "\n" }
                if problems.count > 50 {
                    out +=
                        Terminal.style("  … and \(problems.count - 50) more (use --json)", .dim)
                        + "\n"
                }
            }
            if let line = HistoryStore.describe(report.historyLogProblems) {
                out += "\n" + Terminal.style("History log", .yellow) + "\n  " + line + "\n"
            }
            if let removed = report.removedTemporaryFiles {
                out +=
                    "\n" + Terminal.style("Repairs", .yellow)
                    + "\n  removed \(removed.count) temporary files of notes processes that stopped mid-write\n"
                for path in removed.prefix(20) { out += "  " + Terminal.style(path, .dim) + "\n" }
            }
            if !conflicts.isEmpty {
                out +=
                    "\n"
                    + Terminal.style(
                        "Sync-conflict copies (\(conflicts.count), not indexed)", .yellow) + "\n"
                for c in conflicts {
                    out += "  \(c.path)  " + Terminal.style("conflicts with \(c.of)", .dim) + "\n"
                }
            }
            Terminal.write(out)
        }
    }
}

enum StatusText {
    static func describe(_ d: Diagnostic) -> String {
        d.path + (d.line.map { ":\($0)" } ?? "") + ": " + d.message
    }
}
