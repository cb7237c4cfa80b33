import ArgumentParser
import Foundation
import NotesCore
import NotesDocuments
import NotesIndex
import NotesTools

extension NotesCommand {
    /// `notes search`: ranked full-text search with filters (docs/spec.md §4).
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search the workspace's text, ranked, with snippets.",
            discussion: """
                Plain words rank the files holding most of them first: a whole question works,
                and common words need not match. "exact phrase", AND, OR, -word, NOT word and
                prefix* keep their exact meaning. With the embedding model installed and the
                workspace embedded (`notes index`), files are also found by meaning (--mode).
                Filters (also flags):
                  in:DIR  path:GLOB  tag:T  by:agent|user  edited-by:agent|user
                  kind:research|journal|chat|context|note  title:WORD
                  created:2026-01-01..  modified:7d  and any front-matter key:value.
                An empty query lists recent documents. Exit status: 0 hits, 1 none, 2 error.

                Examples:
                  notes search whale
                  notes search '"white whale" -ship' in:Research/moby-dick
                  notes search harpoon --kind research --sort modified --json
                  notes search whale --format '{{path}}:{{line}}: {{snippet}}'
                """)

        /// Long options that take a value (their value may start with "-").
        static let valueOptions: Set<String> = [
            "--workspace", "--index-dir", "--in", "--path", "--tag", "--by", "--edited-by",
            "--kind", "--title",
            "--created", "--modified", "--meta", "--sort", "--limit", "--format", "--mode",
            "--color",
        ]

        @OptionGroup var workspace: WorkspaceOptions

        @Argument(help: "The query (several words are joined).")
        var query: [String] = []

        @Option(
            name: .customLong("in"),
            help: ArgumentHelp("Only files under this folder.", valueName: "dir"),
            completion: Completion.folders)
        var folder: [String] = []
        @Option(
            name: .customLong("path"),
            help: ArgumentHelp(
                "Only paths matching this glob (* within a folder, ** across).", valueName: "glob"))
        var pathGlob: [String] = []
        @Option(name: .long, help: ArgumentHelp("Only files with this tag.", valueName: "tag"))
        var tag: [String] = []
        @Option(
            name: .customLong("by"),
            help: ArgumentHelp("Only files created by agent or user.", valueName: "actor"),
            completion: Completion.values(Actor.self))
        var createdBy: String?
        @Option(
            name: .customLong("edited-by"),
            help: ArgumentHelp("Only files last modified by agent or user.", valueName: "actor"),
            completion: Completion.values(Actor.self))
        var editedBy: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Only documents of this kind: research, journal, chat, context, note.",
                valueName: "kind"), completion: Completion.values(DocumentKind.self))
        var kind: [String] = []
        @Option(
            name: .long, help: ArgumentHelp("Word(s) that must be in the title.", valueName: "text")
        )
        var title: String?
        @Option(
            name: .long,
            help: ArgumentHelp("Created when: >=2026-01-01, <7d, 2026-11-21 …", valueName: "when"))
        var created: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Modified when: <7d (within a week), >=2026-01-01 …", valueName: "when"))
        var modified: String?
        @Option(
            name: .customLong("meta"),
            help: ArgumentHelp("Front-matter key=value.", valueName: "key=value"))
        var metadata: [String] = []

        @Option(
            name: .long,
            help: ArgumentHelp(
                "By words (lexical), by meaning (semantic) or both (hybrid; the default when the workspace has been embedded).",
                valueName: "mode"), completion: Completion.values(SearchMode.self))
        var mode: String?

        @Option(
            name: .long, help: "Order: relevance, modified, created, path, title.",
            completion: Completion.values(SearchSort.self))
        var sort: String = "relevance"
        @Option(
            name: .long, help: "Most files to show (default 20; with -l every match; 0: no limit).")
        var limit: Int?

        @Flag(name: .long, help: "One JSON document.")
        var json = false
        @Flag(name: .long, help: "One JSON hit per line.")
        var jsonl = false
        @Flag(
            name: [.customShort("l"), .customLong("paths")],
            help: "Only the paths of matching files.")
        var paths = false
        @Option(
            name: .long,
            help: ArgumentHelp(
                "A line per hit from a template: {{path}} {{title}} {{line}} {{section}} {{snippet}} {{score}} {{version}} {{kind}} {{created_by}} {{last_modified_by}} …",
                valueName: "template"))
        var format: String?

        func validate() throws {
            if let limit, limit < 0 {
                throw ValidationError("--limit must be 0 (no limit) or more")
            }
            let outputs = [
                (json, "--json"), (jsonl, "--jsonl"), (paths, "-l"), (format != nil, "--format"),
            ].filter(\.0).map(\.1)
            if outputs.count > 1 {
                throw ValidationError(
                    "\(outputs.joined(separator: " and ")) cannot be combined (choose one output format)"
                )
            }
            if let mode, SearchMode(rawValue: mode) == nil {
                throw ValidationError("unknown mode '\(mode)' (use lexical, semantic or hybrid)")
            }
            guard SearchSort(rawValue: sort) != nil else {
                throw ValidationError(
                    "unknown sort '\(sort)' (use relevance, modified, created, path or title)")
            }
            // A misspelt placeholder would print nothing in its place on every line.
            if let format {
                if let unknown = Self.template(format).tagNames.first(where: {
                    !Self.fieldNames.contains($0)
                }) {
                    let known = Self.fieldNames.map { "{{\($0)}}" }.joined(separator: " ")
                    let meant = CommandSuggestion.nearest(to: unknown, among: Self.fieldNames)
                    throw ValidationError(
                        "--format has no placeholder {{\(unknown)}} "
                            + (meant.map { "(did you mean {{\($0)}}?)" } ?? "(use \(known))"))
                }
            }
        }

        func run() throws {
            let (index, _) = try workspace.openFreshIndex()
            // `in:`, `--in`, `path:` and `--path` are typed relative to the base, as printed paths are.
            let base = workspace.pathBase(index.workspace)
            var search = try SearchQuery(
                parsing: query.joined(separator: " "), isMetadataKey: index.hasMetadataKey,
                pathBase: base.folder)
            search.sort = SearchSort(rawValue: sort) ?? .relevance
            // -l lists every match unless --limit says otherwise; --limit 0 is no limit.
            switch limit {
            case nil: search.limit = paths ? Int.max : 20
            case 0?: search.limit = Int.max
            case let n?: search.limit = n
            }
            // An absolute path inside the workspace names its folder from anywhere.
            for value in folder {
                try search.applyFilter(
                    key: "in",
                    value: value.hasPrefix("/")
                        ? base.display(try base.resolve(value).relative) : value)
            }
            for value in pathGlob { try search.applyFilter(key: "path", value: value) }
            for value in tag { try search.applyFilter(key: "tag", value: value) }
            for value in kind { try search.applyFilter(key: "kind", value: value) }
            if let createdBy { try search.applyFilter(key: "by", value: createdBy) }
            if let editedBy { try search.applyFilter(key: "edited-by", value: editedBy) }
            if let title { try search.applyFilter(key: "title", value: title) }
            if let created { try search.applyFilter(key: "created", value: created) }
            if let modified { try search.applyFilter(key: "modified", value: modified) }
            for pair in metadata {
                guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                    throw NotesError(
                        .invalidArgument, "--meta needs key=value, got '\(pair)'",
                        hint: "e.g. --meta status=draft")
                }
                try search.applyFilter(
                    key: String(pair[..<eq]).lowercased(),
                    value: String(pair[pair.index(after: eq)...]))
            }
            // A path that does not exist is a mistake, not "no hits" (`--in` and `in:` alike;
            // a file is a path prefix too).
            if let folder = index.missingFolder(search) {
                throw base.noSuchPath(folder)
            }
            if let file = index.unsearchedFile(search) {
                throw index.unsearchedFileError(
                    file, shown: base.display(file),
                    hint: "`notes read \(base.display(file))` prints it")
            }
            search.withSnippets = !paths
            search.mode = mode.flatMap(SearchMode.init(rawValue:))
            if search.mode != .lexical {
                search.embedder = InstalledModel.lazy(threads: 1)
            }
            var results = try index.search(search)
            for i in results.hits.indices {
                results.hits[i].path = base.display(results.hits[i].path)
            }
            try render(results)
            if results.hits.isEmpty {
                // A terminal says so; a script reads the exit status (1, as grep).
                if Terminal.stderrIsTTY && !json && !jsonl {
                    StandardStreams.writeError("notes: no matches\n")
                }
                throw ExitCode(1)
            }
        }

        private func render(_ results: SearchResults) throws {
            if json { return Terminal.write(try JSONOutput.document(results)) }
            if jsonl {
                return Terminal.write(try results.hits.map { try JSONOutput.line($0) }.joined())
            }
            if paths {
                Terminal.write(results.hits.map { $0.path + "\n" }.joined())
                return reportMore(results)
            }
            if let format {
                let template = Self.template(format)
                Terminal.write(
                    results.hits.map { template.render(Self.fields($0)) + "\n" }.joined())
                return reportMore(results)
            }
            var out = ""
            if let semantic = results.semantic, results.mode != .lexical, !semantic.isComplete {
                out +=
                    Terminal.style(
                        "By meaning in \(grouped(semantic.embeddedFiles)) of \(grouped(semantic.files)) files (`notes index` embeds the rest).",
                        .dim) + "\n"
            }
            if results.matching == .mostWords, let words = results.words {
                let note =
                    words.count > 1
                    ? "Not every hit has all of: \(words.joined(separator: " ")); ranked by how many they have."
                    : "Hits without the word \(words[0]) are found by meaning."
                out += Terminal.style(note, .dim) + "\n\n"
            }
            for (i, hit) in results.hits.enumerated() {
                if i > 0 && !(hit.snippets.isEmpty && results.hits[i - 1].snippets.isEmpty) {
                    out += "\n"
                }
                out += HitRenderer.header(hit) + "\n"
                var lastSection: String?
                for snippet in hit.snippets {
                    if !snippet.section.isEmpty && snippet.section != lastSection
                        && snippet.section != snippet.text
                    {
                        out += "  " + Terminal.style(snippet.section, .cyan) + "\n"
                    }
                    lastSection = snippet.section
                    out +=
                        "  " + Terminal.style("\(snippet.line):", .green) + " "
                        + HitRenderer.highlight(snippet) + "\n"
                }
            }
            Terminal.write(out)
            reportMore(results)
        }

        /// "N more file(s) match" on standard error (so the output holds only hits) when
        /// the limit cut the list.
        private func reportMore(_ results: SearchResults) {
            guard results.total > results.hits.count else { return }
            let more =
                (results.totalAtLeast == true ? "at least " : "")
                + "\(grouped(results.total - results.hits.count)) more file(s) match; use --limit N to see more, --limit 0 for all."
            StandardStreams.writeError(more + "\n")
        }

        /// `--format`'s template, `\\n` and `\\t` expanded.
        static func template(_ format: String) -> TemplateText {
            TemplateText(
                format.replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(
                    of: "\\t", with: "\t"))
        }

        /// The placeholders `--format` fills and each one's value for a hit, in the order
        /// `--help` and errors list them: one table, so a name cannot be listed and not filled.
        static let placeholders: [(name: String, value: @Sendable (SearchHit) -> String)] = [
            ("path", { $0.path }),
            ("title", { $0.title }),
            ("line", { $0.snippets.first.map { String($0.line) } ?? "" }),
            ("section", { $0.snippets.first?.section ?? "" }),
            ("snippet", { $0.snippets.first?.text ?? "" }),
            ("score", { $0.score.map { String($0) } ?? "" }),
            ("version", { $0.version }),
            ("kind", { $0.kind.rawValue }),
            ("size", { String($0.size) }),
            ("created_by", { $0.provenance.createdBy?.rawValue ?? "" }),
            ("created_at", { $0.provenance.createdAt ?? "" }),
            ("last_modified_by", { $0.provenance.lastModifiedBy?.rawValue ?? "" }),
            ("last_modified_at", { $0.provenance.lastModifiedAt ?? "" }),
        ]

        static var fieldNames: [String] { placeholders.map(\.name) }

        /// A hit's value for each placeholder.
        static func fields(_ hit: SearchHit) -> [String: String] {
            Dictionary(uniqueKeysWithValues: placeholders.map { ($0.name, $0.value(hit)) })
        }
    }
}

/// Human rendering of search hits.
enum HitRenderer {
    /// `path  title  · by agent · edited by user 2026-11-21`
    static func header(_ hit: SearchHit) -> String {
        var line = Terminal.style(hit.path, .magenta)
        if hit.title != DocumentParser.fileTitle(hit.path) {
            line += "  " + Terminal.style(hit.title, .bold)
        }
        line += "  " + Terminal.style(provenance(hit.provenance), .dim)
        if hit.matchedBy == .meaning {
            line += "  " + Terminal.style("by meaning", .yellow)
        } else if let missing = hit.missing {
            line += "  " + Terminal.style("missing: " + missing.joined(separator: " "), .dim)
        }
        return line
    }

    static func provenance(_ p: Provenance) -> String {
        let created = p.createdBy?.rawValue ?? "user"
        let edited = p.lastModifiedBy?.rawValue ?? "user"
        let when = (p.lastModifiedAt ?? "").prefix(10)
        return created == edited
            ? "· \(created) · \(when)" : "· by \(created) · edited by \(edited) \(when)"
    }

    /// The snippet with its matches in bold red (plain on a pipe).
    static func highlight(_ snippet: Snippet) -> String {
        guard Terminal.color, !snippet.spans.isEmpty else { return snippet.text }
        let scalars = Array(snippet.text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var position = 0
        for span in snippet.spans where span[0] >= position && span[1] <= scalars.count {
            out.append(contentsOf: scalars[position..<span[0]])
            out.append(contentsOf: "\u{1B}[1;31m".unicodeScalars)
            out.append(contentsOf: scalars[span[0]..<span[1]])
            out.append(contentsOf: "\u{1B}[0m".unicodeScalars)
            position = span[1]
        }
        out.append(contentsOf: scalars[position...])
        return String(out)
    }
}
