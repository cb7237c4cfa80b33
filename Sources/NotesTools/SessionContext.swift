import Foundation
import NotesCore
import NotesIndex
import NotesSession
import NotesStore

/// What `get_context` answers (docs/spec.md §7, §8.1): what an agent needs at the start of a
/// session — context.md, the shape of the workspace, what the person changed since the
/// agent's last action, proposals awaiting review and the index's state. Each fact once
/// (issue 32, item 10): a field at its usual value is left out (`exists` and `over_limit`
/// only when they are the exception, an edit's `operation`, empty lists and zero counts),
/// and the rules of the workspace are the server's instructions and the tools'
/// descriptions, not repeated here.
struct SessionContext: Encodable {
    /// context.md (its path goes without saying).
    struct ContextFile: Encodable {
        var exists: Bool
        var content: String?
        var version: String?
        var size: Int
        var maxBytes: Int
        var overLimit: Bool
        var note: String?

        enum CodingKeys: String, CodingKey {
            case exists, content, version, size, note
            case maxBytes = "max_bytes", overLimit = "over_limit"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            if !exists { try c.encode(false, forKey: .exists) }
            try c.encodeIfPresent(content, forKey: .content)
            try c.encodeIfPresent(version, forKey: .version)
            try c.encode(size, forKey: .size)
            try c.encode(maxBytes, forKey: .maxBytes)
            if overLimit { try c.encode(true, forKey: .overLimit) }
            try c.encodeIfPresent(note, forKey: .note)
        }
    }

    struct Overview: Encodable {
        var files: Int
        var byKind: [String: Int]
        var folders: [FolderEntry]
        /// Files at the top level (up to 50).
        var topLevelFiles: [String]

        enum CodingKeys: String, CodingKey {
            case files, folders
            case byKind = "by_kind", topLevelFiles = "top_level_files"
        }
    }

    /// A change by the person; `operation` only when it is not an edit.
    struct Change: Encodable {
        var path: String
        var operation: String
        var time: String
        var version: String?

        enum CodingKeys: String, CodingKey { case path, operation, time, version }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(path, forKey: .path)
            if operation != "edit" { try c.encode(operation, forKey: .operation) }
            try c.encode(time, forKey: .time)
            try c.encodeIfPresent(version, forKey: .version)
        }
    }

    struct PendingProposal: Encodable {
        var id: String
        var path: String
        var operation: String
        var createdAt: String
        var reason: String

        enum CodingKeys: String, CodingKey {
            case id, path, operation, reason
            case createdAt = "created_at"
        }
    }

    /// The index: files indexed (of the overview's `files`), problems and what the refresh
    /// at this call found, when there were any, and search by meaning.
    struct IndexState: Encodable {
        var indexed: Int
        var problems: Int
        var refreshed: [String: Int]
        /// Search by meaning: "by meaning in N of M files", or why search runs by words alone.
        var semantic: String

        enum CodingKeys: String, CodingKey { case indexed, problems, refreshed, semantic }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(indexed, forKey: .indexed)
            if problems > 0 { try c.encode(problems, forKey: .problems) }
            let found = refreshed.filter { $0.value > 0 }
            if !found.isEmpty { try c.encode(found, forKey: .refreshed) }
            try c.encode(semantic, forKey: .semantic)
        }
    }

    var workspace: String
    var now: String
    var context: ContextFile
    var overview: Overview
    /// When the agent last changed anything before this session (nil: never).
    var lastAgentActivity: String?
    var userChanges: [Change]
    var moreUserChanges: Int
    var pendingProposals: [PendingProposal]
    var index: IndexState

    enum CodingKeys: String, CodingKey {
        case workspace, now, context, overview, index
        case lastAgentActivity = "last_agent_activity", userChanges =
            "user_changes_since_last_session"
        case moreUserChanges = "more_user_changes", pendingProposals = "pending_proposals"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(workspace, forKey: .workspace)
        try c.encode(now, forKey: .now)
        try c.encode(context, forKey: .context)
        try c.encode(overview, forKey: .overview)
        try c.encodeIfPresent(lastAgentActivity, forKey: .lastAgentActivity)
        try c.encode(userChanges, forKey: .userChanges)
        if moreUserChanges > 0 { try c.encode(moreUserChanges, forKey: .moreUserChanges) }
        if !pendingProposals.isEmpty { try c.encode(pendingProposals, forKey: .pendingProposals) }
        try c.encode(index, forKey: .index)
    }
}

extension Toolbox {
    /// Most changes by the person listed in get_context.
    static let changesShown = 25

    func context(_ author: Author) throws(NotesError) -> SessionContext {
        let report = try refreshIndex()
        let status = try index.status()
        let policy = workspace.config.policy

        // context.md
        let limit = workspace.config.contextMaxBytes
        var file = SessionContext.ContextFile(
            exists: false, size: 0, maxBytes: limit, overLimit: false)
        do {
            let read = try store.read(ContextFacts.path, by: author)
            file.exists = true
            file.content = read.content
            file.version = read.version
            file.size = read.size
            file.overLimit = read.size > limit
            if file.overLimit {
                file.note =
                    "context.md is \(read.size) bytes, over the \(limit)-byte budget: propose a condensed version for the person to review: write_file with path context.md, this version as expected_version and on_conflict \"propose\" (a proposal writes nothing; they accept it with notes review)."
            }
        } catch  where error.code == .notFound {
            file.note = "No context.md yet: use remember to record what you learn about the person."
        }

        // The shape of the workspace.
        let root = try index.listing(folder: "", recursive: false, glob: nil, sort: .path)
        let overview = SessionContext.Overview(
            files: status.files, byKind: status.byKind,
            folders: root.folders.filter { !policy.hidesFolder($0.path) },
            topLevelFiles: Array(
                root.files.map(\.path).filter { policy.rule(for: $0) != .deny }.prefix(50)))

        // Files the person removed or moved outside notes, logged as their change now (a
        // refresh logs those it sees go; the agent's files written since the last refresh
        // the index never held).
        noteFilesRemovedOutside()
        // What the person changed since the agent's last action before this session.
        let records = store.history.records()
        let lastAgent = records.last {
            $0.actor == .agent && (Timestamp.parse($0.time) ?? 0) < sessionStart
        }
        let since = lastAgent.flatMap { Timestamp.parse($0.time) }
        var changes: [String: SessionContext.Change] = [:]
        for record in records
        where record.actor == .user && policy.rule(for: record.resultPath) != .deny {
            // Log times have whole seconds: a change in the same second as the agent's counts.
            guard let time = Timestamp.parse(record.time), since.map({ time >= $0 }) ?? true else {
                continue
            }
            changes[record.resultPath] = SessionContext.Change(
                path: record.resultPath, operation: record.operation.rawValue, time: record.time,
                version: record.after)
        }
        var recent = SearchQuery()
        recent.filters.editedBy = .user
        recent.filters.hideProtected = true
        if let since {
            recent.filters.modified = [DateFilter(comparison: .atOrAfter, instant: since)]
        }
        recent.sort = .modified
        recent.limit = Self.changesShown
        let edited = try index.search(recent)
        for hit in edited.hits where changes[hit.path] == nil {
            // A file the person made since (or, in a first session, never changed after
            // making it) was created, not edited.
            let created = hit.provenance.createdAt.flatMap(Timestamp.parse)
            let isNew: Bool
            if let since {
                isNew = created.map { $0 >= since } ?? false
            } else {
                isNew = hit.provenance.createdAt == hit.provenance.lastModifiedAt
            }
            changes[hit.path] = SessionContext.Change(
                path: hit.path, operation: isNew ? "create" : "edit",
                time: hit.provenance.lastModifiedAt ?? "", version: hit.version)
        }
        let sorted = changes.values.sorted { ($0.time, $0.path) > ($1.time, $1.path) }
        // The index's page is `changesShown` long; its total counts every file edited since.
        let changedFiles = max(sorted.count, edited.total)

        let proposals = store.proposals.list().map {
            SessionContext.PendingProposal(
                id: $0.id, path: $0.path, operation: $0.operation.rawValue, createdAt: $0.createdAt,
                reason: $0.reason)
        }
        let state = SessionContext.IndexState(
            indexed: status.indexed, problems: status.diagnostics.count,
            refreshed: [
                "added": report.added, "modified": report.modified,
                "removed": report.removed + report.renames.count,
            ],
            semantic: semanticState())
        return SessionContext(
            workspace: (workspace.root as NSString).lastPathComponent,
            now: Timestamp.format(Timestamp.now()),
            context: file, overview: overview, lastAgentActivity: lastAgent?.time,
            userChanges: Array(sorted.prefix(Self.changesShown)),
            moreUserChanges: max(0, changedFiles - Self.changesShown),
            pendingProposals: proposals, index: state)
    }
}

extension Toolbox {
    /// Logs the files the history left in place that are gone (``HistoryStore/missingFiles()``)
    /// as removed by the person, or moved where a file now holds the same version.
    func noteFilesRemovedOutside() {
        let missing = store.history.missingFiles()
        guard !missing.isEmpty else { return }
        _ = try? refreshIndex()  // where a moved file now is
        let listed =
            (try? index.listing(folder: "", recursive: true, glob: nil, sort: .path).files) ?? []
        var byVersion: [String: String] = [:]
        for file in listed where byVersion[file.version] == nil {
            byVersion[file.version] = file.path
        }
        store.history.noteRemovals(
            missing.map {
                OutsideRemoval(path: $0.path, version: $0.version, movedTo: byVersion[$0.version])
            })
    }

    /// One line on search by meaning for get_context.
    func semanticState() -> String {
        guard embedding != nil, let coverage = try? index.semanticCoverage() else {
            return InstalledModel.unavailableReason() ?? "search runs by words only"
        }
        if coverage.embeddedFiles == 0 {
            return
                "by meaning: not embedded yet (embedding in the background); search runs by words meanwhile"
        }
        return "by meaning in \(coverage.embeddedFiles) of \(coverage.files) files"
            + (coverage.isComplete ? "" : " (the rest are being embedded)")
    }
}
