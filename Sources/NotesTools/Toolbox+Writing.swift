import NotesCore
import NotesStore

extension Toolbox {
    /// Largest `content` accepted: the workspace's write limit (over it: `too_large`).
    var contentLimit: Int { workspace.config.writeMaxBytes }

    func content(_ args: ToolArguments) throws(NotesError) -> String {
        let text = try args.requiredString("content", maxBytes: .max)
        guard text.utf8.count <= contentLimit else {
            throw NotesError(
                .tooLarge,
                "content is \(text.utf8.count) bytes, over the workspace's write limit of \(contentLimit) bytes",
                hint:
                    "split it into several files, or ask the person to raise limits.write_max_bytes"
            )
        }
        return text
    }

    func onConflict(_ args: ToolArguments) throws(NotesError) -> ConflictChoice {
        try args.choice("on_conflict", ["fail", "merge", "propose"]).flatMap(
            ConflictChoice.init(rawValue:)) ?? .fail
    }

    func writeFile(_ args: ToolArguments, _ author: Author) throws(NotesError) -> ChangeResult {
        let path = try pathArgument(args)
        let text = try content(args)
        let options = ChangeOptions(
            expectedVersion: try args.string("expected_version"), onConflict: try onConflict(args),
            confirmUserEdits: try args.bool("confirm_user_edits"))
        return try store.write(path, content: text, options: options, by: author)
    }

    func appendFile(_ args: ToolArguments, _ author: Author) throws(NotesError) -> ChangeResult {
        let path = try pathArgument(args)
        let text = try content(args)
        let section = try args.string("section")
        // On a journal page, text without its own heading becomes an entry in the journal's
        // format (`## 10:30 — agent`), the page made from the journal template when new.
        if section == nil, let day = NoteStore.journalDate(of: path), !Self.startsWithHeading(text)
        {
            let now = Timestamp.now()
            let header =
                day == Timestamp.localDateTime(now).date
                ? (try? catalog().render(
                    "journal", title: "Journal", variables: [:], actor: author.actor, now: now))?
                    .files.first?.text : nil
            let entry = try store.journal(text, header: header, day: day, by: author, now: now)
            var result = ChangeResult(path: entry.path)
            result.version = entry.version
            result.created = entry.created
            result.entry = entry.entry
            return result
        }
        return try store.append(path, content: text, section: section, by: author)
    }

    /// Whether the text's first non-blank line is a Markdown heading.
    static func startsWithHeading(_ text: String) -> Bool {
        text.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) }?.hasPrefix(
            "#") ?? false
    }

    func editFile(_ args: ToolArguments, _ author: Author) throws(NotesError) -> ChangeResult {
        let path = try pathArgument(args)
        let edits = try editList(args)
        let options = ChangeOptions(
            expectedVersion: try args.requiredString("expected_version"),
            onConflict: try onConflict(args),
            confirmUserEdits: try args.bool("confirm_user_edits"),
            dryRun: try args.bool("dry_run"), includeDiff: true)
        return try store.edit(path, edits: edits, options: options, by: author)
    }

    /// `edits`: each {old_text, new_text}, or {section, mode, new_text} (issue 32, item 5).
    func editList(_ args: ToolArguments) throws(NotesError) -> [TextEdit] {
        let fields = ["old_text", "new_text", "section", "mode"]
        let example =
            "{\"old_text\": \"…\", \"new_text\": \"…\"} or {\"section\": \"Heading\", \"mode\": \"append\", \"new_text\": \"…\"}"
        var edits: [TextEdit] = []
        for (i, item) in try args.objects(
            "edits", fields: fields, optional: Set(fields), maxCount: 100, maxBytes: contentLimit
        ).enumerated() {
            if let section = item["section"] {
                guard item["old_text"] == nil else {
                    throw NotesError(
                        .invalidArgument, "edit_file: edits[\(i)] has both old_text and section",
                        hint: "each item is \(example)")
                }
                let modes = SectionMode.allCases.map(\.rawValue)
                guard let raw = item["mode"], let mode = SectionMode(rawValue: raw) else {
                    throw NotesError(
                        .invalidArgument,
                        "edit_file: edits[\(i)].mode must be one of \(modes.joined(separator: ", "))",
                        hint: "e.g. \(example)")
                }
                guard let text = item["new_text"] ?? (mode == .replace ? "" : nil) else {
                    throw NotesError(
                        .invalidArgument,
                        "edit_file: edits[\(i)] needs new_text, the text to \(raw)",
                        hint: "each item is \(example)")
                }
                edits.append(TextEdit(section: section, mode: mode, text: text))
            } else {
                guard let old = item["old_text"], let new = item["new_text"], item["mode"] == nil
                else {
                    throw NotesError(
                        .invalidArgument,
                        "edit_file: edits[\(i)] needs old_text and new_text, or section and mode",
                        hint: "each item is \(example)")
                }
                edits.append(TextEdit(oldText: old, newText: new))
            }
        }
        return edits
    }

    func deleteFile(_ args: ToolArguments, _ author: Author) throws(NotesError) -> ChangeResult {
        let path = try pathArgument(args)
        let options = ChangeOptions(
            expectedVersion: try args.requiredString("expected_version"),
            confirmUserEdits: try args.bool("confirm_user_edits"))
        return try store.delete(path, options: options, by: author)
    }

    func moveFile(_ args: ToolArguments, _ author: Author) throws(NotesError) -> ChangeResult {
        let from = try pathArgument(args, "from")
        let to = try pathArgument(args, "to")
        let options = ChangeOptions(expectedVersion: try args.requiredString("expected_version"))
        return try store.move(from, to: to, options: options, by: author)
    }

    func restoreFile(_ args: ToolArguments, _ author: Author) throws(NotesError) -> ChangeResult {
        let path = try pathArgument(args)
        let version = try args.requiredString("version")
        return try store.restore(
            path, version: version,
            options: ChangeOptions(expectedVersion: try args.string("expected_version")), by: author
        )
    }

    func remember(_ args: ToolArguments, _ author: Author) throws(NotesError) -> RememberResult {
        let fact = try args.requiredString("fact", maxBytes: ContextFacts.maxFactBytes)
        return try store.remember(fact, section: try args.string("section"), by: author)
    }
}

/// The answer to `list_templates`.
struct TemplateList: Encodable {
    var templates: [TemplateDefinition]
    var builtInVariables: [String]

    enum CodingKeys: String, CodingKey {
        case templates
        case builtInVariables = "built_in_variables"
    }
}

extension Toolbox {
    func catalog() throws(NotesError) -> TemplateCatalog {
        try TemplateCatalog.load(library: templateLibrary, workspace: workspace)
    }

    func listTemplates() throws(NotesError) -> TemplateList {
        TemplateList(
            templates: try catalog().templates, builtInVariables: TemplateCatalog.builtInVariables)
    }

    func newFromTemplate(_ args: ToolArguments, _ author: Author) throws(NotesError)
        -> TemplateResult
    {
        let name = try args.requiredString("template")
        var variables = try args.stringMap("variables")
        guard let title = variables.removeValue(forKey: "title"), !title.isEmpty else {
            throw NotesError(
                .invalidArgument, "new_from_template needs variables.title",
                hint: "e.g. {\"template\": \"research\", \"variables\": {\"title\": \"Moby Dick\"}}"
            )
        }
        let path = try optionalPath(args)
        let workspace = self.workspace
        let rendered = try catalog().render(
            name, title: title, variables: variables, actor: .agent, now: Timestamp.now(),
            path: path,
            isFolder: { FileSystem.isDirectory(workspace.absolutePath($0)) })
        return try store.create(rendered, by: author)
    }
}

/// A pending proposal as `list_proposals` shows it (its text stays in .notes/proposals/).
struct ProposalEntry: Encodable {
    var id: String
    var path: String
    var operation: String
    var createdAt: String
    var client: String
    var reason: String
    var baseVersion: String?

    init(_ proposal: Proposal) {
        id = proposal.id
        path = proposal.path
        operation = proposal.operation.rawValue
        createdAt = proposal.createdAt
        client = proposal.client
        reason = proposal.reason
        baseVersion = proposal.baseVersion
    }

    enum CodingKeys: String, CodingKey {
        case id, path, operation, client, reason
        case createdAt = "created_at", baseVersion = "base_version"
    }
}

struct ProposalList: Encodable {
    var proposals: [ProposalEntry]
}

struct WithdrawnProposal: Encodable {
    var withdrawn: ProposalEntry
}

extension Toolbox {
    /// `list_proposals`: the agents' proposals still waiting for the person, oldest first.
    func listProposals(_ author: Author) -> ProposalList {
        ProposalList(
            proposals: store.proposals.list().filter { $0.actor == author.actor }.map(
                ProposalEntry.init))
    }

    /// `withdraw_proposal`: takes back one of them.
    func withdrawProposal(_ args: ToolArguments, _ author: Author) throws(NotesError)
        -> WithdrawnProposal
    {
        WithdrawnProposal(
            withdrawn: ProposalEntry(
                try store.withdraw(try args.requiredString("id", maxBytes: 64), by: author)))
    }
}
