import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one write path of the workspace (docs/spec.md §6), used by the CLI, the MCP server and the
/// built-in agent alike: path checks and policy, the agent's guard, provenance stamping,
/// history, and atomic writes under the workspace lock. Also reads files with effective
/// provenance, since that depends on the history.
public final class NoteStore: Sendable {
    public let workspace: Workspace
    public let history: HistoryStore
    public let proposals: ProposalStore

    public init(workspace: Workspace) {
        self.workspace = workspace
        self.history = HistoryStore(workspace: workspace)
        self.proposals = ProposalStore(workspace: workspace)
    }

    // MARK: Paths and policy

    /// What a call needs to do at a path.
    enum Access { case read, append, create, change, remove }

    /// Validates a path `author` wants to look at (its history, say): inside the workspace,
    /// and for an agent neither protected nor denied by policy.
    public func readablePath(_ raw: String, by author: Author) throws(NotesError) -> WorkspacePath {
        try resolve(raw, for: author, .read).path
    }

    /// Validates a path `author` wants to create or replace (before downloading into it,
    /// say): inside the workspace, and for an agent not protected, denied or read-only.
    public func writablePath(_ raw: String, by author: Author) throws(NotesError) -> WorkspacePath {
        try resolve(raw, for: author, .create).path
    }

    /// Validates `raw` for `author`: inside the workspace (docs/spec.md §10), not protected, and
    /// allowed by the agent's path policy. Returns the path and the policy rule.
    ///
    /// It looks at the actor because the path policy is about access, not about a change:
    /// it applies to an agent's reads as to its writes (a protected path is hidden from both),
    /// so it is decided here, before any guard; a change then goes to ``WriteGuard`` with the
    /// rule returned.
    func resolve(_ raw: String, for author: Author, _ access: Access) throws(NotesError) -> (
        path: WorkspacePath, rule: AccessRule
    ) {
        let path = try WorkspacePath(raw, in: workspace)
        guard !path.relative.isEmpty else {
            throw NotesError(
                .invalidArgument, "a file path is needed, not the workspace root",
                hint: "give a path such as Research/topic/notes.md")
        }
        let canonical = PathPolicy.canonical(path.relative)
        if canonical == ".notes" || canonical.hasPrefix(".notes/") {
            throw NotesError(
                .protectedPath, "\(path) is inside .notes/, the tool's own state",
                hint:
                    "edit .notes/config.yml in an editor; history is changed through notes commands"
            )
        }
        guard author.actor == .agent else { return (path, .write) }
        let policy = workspace.config.policy
        if policy.isProtected(path.relative) {
            throw NotesError(
                .protectedPath, "\(path) is a protected path that agents cannot see or change",
                hint: "ask the person to do it")
        }
        let rule = policy.rule(for: path.relative)
        let denied: Bool
        switch (access, rule) {
        case (_, .deny): denied = true
        case (.read, _): denied = false
        case (_, .read): denied = true
        case (.append, _): denied = false
        // creating is allowed under append
        case (.change, .append), (.remove, .append), (.remove, .ask): denied = true
        default: denied = false
        }
        if denied {
            let what =
                rule == .append
                ? "append-only for agents (use append_file)"
                : rule == .ask
                    ? "ask-first for agents (changes become proposals; deleting and moving are not offered)"
                    : rule == .read ? "read-only for agents" : "not available to agents"
            throw NotesError(
                .policyDenied, "\(path) is \(what) by the workspace policy",
                hint: "see policy: in .notes/config.yml",
                details: ErrorDetails(
                    path: path.relative, options: rule == .append ? ["append_file"] : []))
        }
        return (path, rule)
    }

    /// A file about to be changed, read under the lock through its folder's descriptor.
    struct Target {
        let path: WorkspacePath
        let folder: FolderHandle
        let name: String
        /// Current bytes and stat, nil when the file does not exist.
        let current: (bytes: [UInt8], info: stat)?
        /// The current version, hashed once.
        let version: String?
        var bytes: [UInt8]? { current?.bytes }
        var mode: mode_t? { current.map { $0.info.st_mode & 0o7777 } }
        /// The file's user and group, which a write keeps.
        var owner: (uid: uid_t, gid: gid_t)? { current.map { ($0.info.st_uid, $0.info.st_gid) } }

        /// Refuses to change a file without write permission (issue 34): the person made it
        /// read-only, and a rename would replace it anyway. As root, a file nobody may write
        /// (no `w` bit at all); otherwise the kernel's answer for this user.
        func checkWritable() throws(NotesError) {
            guard let info = current?.info else { return }
            let writable =
                geteuid() == 0
                ? info.st_mode & 0o222 != 0 : faccessat(folder.fd, name, W_OK, AT_EACCESS) == 0
            guard !writable else { return }
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw NotesError(
                .ioError, "\(path.relative) is read-only (mode \(mode)); nothing was changed",
                hint: "make it writable (chmod u+w \(path.relative)) to change it",
                cause: .leftUnchanged)
        }

        init(
            path: WorkspacePath, folder: FolderHandle, name: String,
            current: (bytes: [UInt8], info: stat)?
        ) {
            self.path = path
            self.folder = folder
            self.name = name
            self.current = current
            self.version = current.map { ContentVersion(of: $0.bytes).short }
        }
    }

    /// Opens the folder of `path` (creating folders when `create`) and reads the file.
    func open(_ path: WorkspacePath, create: Bool) throws(NotesError) -> Target {
        var components = path.relative.split(separator: "/").map(String.init)
        let name = components.removeLast()
        let folder = try FolderHandle.open(
            root: workspace.root, components: components, create: create)
        let current = try folder.read(
            name, maxBytes: max(workspace.config.writeMaxBytes, Workspace.pagedReadMaxBytes))
        return Target(path: path, folder: folder, name: name, current: current)
    }

    /// Runs a change decided from the bytes it reads under the lock — an append
    /// (`append_file`, `notes append`, `journal`, `remember`) or an exact-text edit
    /// (`edit_file`, `notes edit --old/--new`) — again when another program saved the file
    /// between that read and the rename (the guarded rename refused, nothing was changed).
    /// Running it again decides afresh, as if the call had come a moment later: an append
    /// never conflicts (docs/spec.md §6.2); an edit applies when its text still matches once and,
    /// for an agent, the save did not touch the edited lines, and is refused as usual
    /// otherwise. Up to 5 tries, a few random milliseconds apart (an editor's save is one
    /// write; a program rewriting the file nonstop still gets `stale_version`).
    func lockedRereading<T>(_ body: () throws(NotesError) -> T) throws(NotesError) -> T {
        var tries = 1
        while true {
            do throws(NotesError) {
                return try locked(body)
            } catch  where error.code == .staleVersion && error.cause == .leftUnchanged && tries < 5
            {
                usleep(UInt32.random(in: 1_000...(4_000 << tries)))
                tries += 1
            }
        }
    }

    /// `notes gc`: drops history versions older than `cutoff` (seconds since the epoch) that
    /// nothing needs (``HistoryStore/prune(before:keep:)``: no newer record, no file's
    /// current version, no proposal's base). Under the workspace lock, after completing any
    /// half-recorded change: no write is between its rename and its log line meanwhile.
    public func pruneHistory(before cutoff: Double, dryRun: Bool = false) throws(NotesError) -> (
        objects: Int, bytes: Int
    ) {
        guard workspace.isInitialized else { return (0, 0) }
        return try locked { () throws(NotesError) -> (objects: Int, bytes: Int) in
            history.prune(
                before: cutoff, keep: Set(proposals.list().compactMap(\.baseVersion)),
                dryRun: dryRun)
        }
    }

    /// Runs `body` holding the workspace lock, after completing any change a crashed
    /// writer left half-recorded.
    func locked<T>(_ body: () throws(NotesError) -> T) throws(NotesError) -> T {
        _ = try FolderHandle.openOwn(root: workspace.root, components: [".notes"])
        let lock = try WorkspaceLock(stateDirectory: workspace.stateDirectory)
        defer { withExtendedLifetime(lock) {} }
        try history.recover { [self] path in
            guard let path = try? WorkspacePath(path, in: workspace),
                let target = try? open(path, create: false)
            else { return nil }
            return target.version
        }
        return try body()
    }

    // MARK: Repairs

    /// Removes the temporary files of writers that are no longer running from every folder
    /// of the workspace, `.notes/` included and `.git/` not (`notes status --fix`, issue 34);
    /// a write removes those of its own folder. Returns their workspace-relative paths.
    public func removeLeftoverTemporaryFiles() -> [String] {
        var removed: [String] = []
        func sweep(_ components: [String]) {
            guard
                let folder = try? FolderHandle.open(
                    root: workspace.root, components: components, create: false)
            else { return }
            removed += folder.removeLeftovers().map(folder.path)
            for name in folder.names().sorted() where name != ".git" && folder.isFolder(name) {
                sweep(components + [name])
            }
        }
        sweep([])
        return removed.sorted()
    }

    // MARK: Committing

    /// Makes `bytes` the content of `target` (docs/spec.md §6.3/§6.4): previous and new versions
    /// into history, the intent noted, an atomic replace, then the log line.
    func commit(
        _ target: Target, bytes: [UInt8], operation: ChangeOperation, author: Author,
        proposal: String? = nil, agentBase: String? = nil
    ) throws(NotesError) -> ChangeRecord {
        try target.checkWritable()
        if let old = target.bytes, let version = target.version {
            try history.store(old, version: version, like: target.current?.info)
            // Someone changed the file outside notes since the last logged change (and no
            // refresh has noticed yet): log their version first, so history shows it.
            let known = history.history(of: target.path.relative)
            if known.last != nil, let info = target.current?.info,
                let record = known.outsideEditRecord(
                    path: target.path.relative, replacing: nil, version: version,
                    mtime: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
            {
                try history.append(record)
            }
        }
        let version = try history.store(bytes, like: target.current?.info)
        WriteFaults.reach(.historyStored)
        let record = ChangeRecord(
            actor: author.actor, client: author.client, operation: operation,
            path: target.path.relative,
            before: target.version, after: version, proposal: proposal,
            agentBase: agentBase == "" ? version : agentBase)
        try history.writeIntent(record)
        WriteFaults.reach(.intentWritten)
        target.folder.removeLeftovers()
        do throws(NotesError) {
            try target.folder.replace(
                target.name, with: bytes, mode: target.mode, owner: target.owner,
                expecting: .init(target.current?.info), protocolSteps: true)
        } catch {
            // Failed before the rename (nothing changed) or after it (the folder's flush).
            let now = (try? target.folder.read(target.name, maxBytes: Int.max)).flatMap { $0 }.map {
                ContentVersion(of: $0.bytes).short
            }
            if now == version && version != target.version {
                throw HistoryStore.madeButFailed(target.path.relative, error)
            }
            history.clearIntent()
            throw error
        }
        try history.logVisibleChange(record)
        WriteFaults.reach(.logged)
        history.clearIntent()
        return record
    }

    /// `bytes` with provenance stamped for `author` (Markdown only; docs/spec.md §3.1). The
    /// creation keys come from the file being replaced, never from the new text, so an
    /// agent cannot claim the person's authorship.
    func stamp(
        _ bytes: [UInt8], path: WorkspacePath, author: Author, replacing previous: [UInt8]?,
        warnings: inout [String]
    ) -> [UInt8] {
        guard FileFormat(path: path.relative) == .markdown else { return bytes }
        let now = Timestamp.format(Timestamp.now())
        var created = (by: author.actor.rawValue, at: now)
        if let previous {
            let stated = Self.statedProvenance(previous)
            let known = history.history(of: path.relative)
            created.by = (stated.createdBy ?? known.createdBy ?? .user).rawValue
            created.at = stated.createdAt ?? known.createdAt ?? now
        }
        let values = [
            ("created_by", created.by), ("created_at", created.at),
            ("last_modified_by", author.actor.rawValue), ("last_modified_at", now),
        ]
        let addBlock = previous == nil || workspace.config.stampExistingFiles
        switch ProvenanceStamp.apply(
            values.map { (key: $0.0, value: $0.1) }, to: bytes, addBlock: addBlock)
        {
        case .stamped(let stamped):
            return stamped
        case .unchanged(let reason):
            if reason != "file has no front matter" {
                warnings.append(
                    "provenance not stamped: \(reason); the front matter was left as it is")
            }
            return bytes
        }
    }

    /// The provenance a Markdown file's front matter states (empty when none or malformed).
    static func statedProvenance(_ bytes: [UInt8]) -> Provenance {
        guard case .present(let block) = FrontMatterBlock.split(bytes),
            let fm = try? FrontMatter.parse(bytes[block.yaml])
        else { return Provenance() }
        return fm.provenance
    }

    /// The agent's baseline after the change `check` decided turns `target`'s text into
    /// `proposed` (``WriteGuard/nextAgentBaseline(after:confirmed:)``), its text stored in
    /// the history. "" means "the new version" (the person agreed); nil means "the usual
    /// rule" (a new file, the person's own change, or no edit of theirs pending).
    func nextAgentBase(
        _ target: Target, decidedBy check: WriteGuard, proposed: [UInt8], confirmed: Bool
    ) -> String? {
        guard target.bytes != nil else { return nil }
        switch check.nextAgentBaseline(after: proposed, confirmed: confirmed) {
        case nil: return nil
        case .agreed: return ""
        case .text(let own): return (try? history.store(own)) ?? check.pathHistory.agentBaseline
        }
    }

    /// The guard for a change of `target` by `author` under the policy's `rule`.
    func guardFor(_ target: Target, author: Author, rule: AccessRule) -> WriteGuard {
        let bytes = target.bytes ?? []
        let stated =
            FileFormat(path: target.path.relative) == .markdown
            ? Self.statedProvenance(bytes) : Provenance()
        return WriteGuard(
            author: author, rule: rule, path: target.path.relative, current: bytes,
            currentVersion: target.version ?? "",
            pathHistory: history.history(of: target.path.relative),
            statedLastModifiedBy: stated.lastModifiedBy, history: history)
    }

    // MARK: Reading

    /// Effective provenance (docs/spec.md §3.1) of a file's bytes; see
    /// ``PathHistory/effective(stated:version:mtime:)``.
    public func effectiveProvenance(path: String, bytes: [UInt8], mtime: Double) -> Provenance {
        let stated =
            FileFormat(path: path) == .markdown ? Self.statedProvenance(bytes) : Provenance()
        return history.history(of: path).effective(
            stated: stated, version: ContentVersion(of: bytes).short, mtime: mtime)
    }

    /// Reads a file (docs/spec.md §5) with effective provenance. For an agent the path policy
    /// applies and the version read is kept in history, so a later `stale_version` can
    /// show what changed since and a stale `edit_file` can be checked line by line.
    /// `lossy`: text that is not valid UTF-8 is decoded as the index decodes it (``Workspace/read(_:offset:limit:window:lossy:provenance:)``).
    public func read(
        _ raw: String, offset: Int? = nil, column: Int? = nil, limit: Int? = nil,
        window: ReadWindow? = nil, lossy: Bool = false, by author: Author
    ) throws(NotesError) -> ReadResult {
        let (path, _) = try resolve(raw, for: author, .read)
        // The agent's reads, not its changes: the bytes it read are kept, so a later
        // `stale_version` can show what changed since and a stale edit be checked by line.
        let keepCopy = author.actor == .agent && workspace.isInitialized
        return try workspace.read(
            path, offset: offset, column: column, limit: limit, window: window, lossy: lossy
        ) { [self] bytes, mtime in
            if keepCopy { _ = try? history.store(bytes) }
            return effectiveProvenance(path: path.relative, bytes: bytes, mtime: mtime)
        }
    }
}
