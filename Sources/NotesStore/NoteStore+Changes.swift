import NotesCore

/// The mutating operations (docs/spec.md §6, §7): each validates the path, takes the lock, asks
/// the guard (``WriteGuard``: write, merge, propose or refuse), stamps, and commits through
/// ``NoteStore/commit(_:bytes:operation:author:proposal:)``. Who the author is matters to the
/// guard only.
extension NoteStore {
    /// Creates or replaces a file with `content` (`write_file`, `notes write`).
    public func write(
        _ raw: String, content: String, options: ChangeOptions = ChangeOptions(), by author: Author
    ) throws(NotesError) -> ChangeResult {
        let (path, rule) = try resolve(raw, for: author, .create)
        try checkSize(content.utf8.count, path)
        try WriteGuard.checkContent(Array(content.utf8), path: path, by: author)
        return try locked { () throws(NotesError) -> ChangeResult in
            let target = try open(path, create: !options.dryRun)
            try target.checkWritable()
            let check = guardFor(target, author: author, rule: rule)
            guard let current = target.bytes else {
                if case .refuse(let error) = check.decideMissing(
                    expected: options.expectedVersion, path: path)
                {
                    throw error
                }
                return try create(
                    target, bytes: Array(content.utf8), rule: rule, options: options,
                    author: author, operation: .create)
            }
            if author.actor == .agent, content.contains("\u{FFFD}"),
                String(validating: current, as: UTF8.self) == nil
            {
                throw NotesError(
                    .invalidArgument,
                    "\(path) is not UTF-8 text and this content has U+FFFD where its other bytes are: writing it would lose them; nothing was written",
                    hint:
                        "ask the person to convert the file to UTF-8 (iconv -f latin1 -t utf-8), then read it again",
                    details: ErrorDetails(path: path.relative, currentVersion: target.version))
            }
            if options.mustNotExist {
                throw NotesError(
                    .invalidArgument, "\(path) already exists; nothing was written",
                    hint: "choose another title or path",
                    details: ErrorDetails(path: path.relative, currentVersion: target.version))
            }
            // Keep the file's conventions: its line breaks and its BOM; text without front
            // matter keeps the file's, as the guard says.
            var proposed = check.keepingFrontMatter(
                TextChange.adapt(content, to: TextChange.newline(of: current)),
                always: options.keepFrontMatter)
            if current.starts(with: [0xEF, 0xBB, 0xBF]), !proposed.starts(with: [0xEF, 0xBB, 0xBF])
            {
                proposed = [0xEF, 0xBB, 0xBF] + proposed
            }
            if let decision = check.decideAppendOnly(
                proposed, onConflict: options.onConflict, baseVersion: options.expectedVersion)
            {
                // A proposal writes nothing: the person accepts it with `notes review`.
                return try act(on: decision, target, operation: .write, author: author)
            }
            return try change(
                target, to: proposed, rule: rule, options: options, author: author,
                operation: .write, what: "write_file")
        }
    }

    /// Appends `content` at the end, or at the end of the section under heading `section`
    /// (`append_file`, `notes append`). Never conflicts; creates the file when missing.
    public func append(
        _ raw: String, content: String, section: String? = nil, includeDiff: Bool = false,
        by author: Author
    ) throws(NotesError) -> ChangeResult {
        let (path, rule) = try resolve(raw, for: author, .append)
        return try lockedRereading { () throws(NotesError) -> ChangeResult in
            let target = try open(path, create: true)
            try target.checkWritable()
            let markdown = FileFormat(path: path.relative) == .markdown
            let bytes = try TextChange.append(
                content, to: target.bytes ?? [], section: section, markdown: markdown,
                path: path.relative)
            return try commitAppend(
                target, bytes: bytes, rule: rule, author: author, what: "append_file",
                includeDiff: includeDiff)
        }
    }

    /// Commits the result of an append (`append`, `remember`, `journal`), under the lock:
    /// creates a missing file, turns the change into a proposal under policy `ask`, keeps
    /// the person's sections, and grows the agent's baseline by what it added.
    func commitAppend(
        _ target: Target, bytes: [UInt8], rule: AccessRule, author: Author, what: String,
        includeDiff: Bool = false
    ) throws(NotesError) -> ChangeResult {
        try checkSize(bytes.count, target.path)
        guard target.bytes != nil else {
            return try create(
                target, bytes: bytes, rule: rule, options: ChangeOptions(includeDiff: includeDiff),
                author: author, operation: .append)
        }
        let check = guardFor(target, author: author, rule: rule)
        let decision = check.decideAppend(bytes, what: what)
        guard case .write = decision else {
            return try act(on: decision, target, operation: .append, author: author)
        }
        return try finish(
            target, bytes: bytes, operation: .append, author: author, includeDiff: includeDiff,
            agentBase: nextAgentBase(target, decidedBy: check, proposed: bytes, confirmed: false))
    }

    /// Replaces exact text (`edit_file`, `notes edit --replace`). An agent's edit on a file
    /// changed since its read still applies when every `old_text` matches once and the
    /// changes since do not touch the edited lines.
    public func edit(
        _ raw: String, edits: [TextEdit], options: ChangeOptions = ChangeOptions(),
        by author: Author
    ) throws(NotesError) -> ChangeResult {
        // A proposal writes nothing, so an agent may propose an edit of an append-only path
        // (.create is .change but for append-only paths, which the guard refuses otherwise).
        let (path, rule) = try resolve(raw, for: author, .create)
        return try lockedRereading { () throws(NotesError) -> ChangeResult in
            let target = try open(path, create: false)
            try target.checkWritable()
            guard let current = target.bytes, let version = target.version else {
                throw notFound(path)
            }
            let check = guardFor(target, author: author, rule: rule)
            try WriteGuard.checkEdits(edits, path: path, by: author)
            let edited: [UInt8]
            let editedLines: [ClosedRange<Int>]
            do throws(NotesError) {
                (edited, editedLines) = try TextChange.apply(
                    edits, to: current, path: path.relative)
            } catch {
                // Text that no longer matches a file changed since the caller's version:
                // the change is the news (`stale_version`, with its diff), not the text.
                if let expected = options.expectedVersion, !expected.isEmpty, expected != version {
                    throw check.stale(expected)
                }
                throw error
            }
            if let decision = check.decideAppendOnly(
                edited, onConflict: options.onConflict, baseVersion: options.expectedVersion)
            {
                return try act(on: decision, target, operation: .edit, author: author)
            }
            try check.checkEditPrecondition(options.expectedVersion, editedLines: editedLines)
            try checkSize(edited.count, path)
            var relaxed = options
            relaxed.expectedVersion = version  // staleness was settled above
            relaxed.includeDiff = true  // edit_file returns its diff (docs/spec.md §7)
            return try change(
                target, to: edited, rule: rule, options: relaxed, author: author, operation: .edit,
                what: "edit_file")
        }
    }

    /// The provenance lines (`created_by`, `created_at`, `last_modified_by`,
    /// `last_modified_at`) are written by notes from the real actor and the history: an edit
    /// that changes them would be stamped back and report "edited" having changed nothing
    /// (issue 34 item 11). It is refused, saying why.
    static func refuseProvenanceEdits(_ edits: [TextEdit], path: String) throws(NotesError) {
        func provenance(_ text: String) -> [String] {
            text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).compactMap { raw in
                var line = raw.drop { $0 == " " || $0 == "\t" }
                while let last = line.last, last == " " || last == "\t" || last == "\r" {
                    line = line.dropLast()
                }
                return ProvenanceStamp.keys.contains { line.hasPrefix($0 + ":") }
                    ? String(line) : nil
            }
        }
        for edit in edits where provenance(edit.oldText) != provenance(edit.newText) {
            throw NotesError(
                .invalidArgument,
                "the edit changes provenance lines (\(ProvenanceStamp.keys.joined(separator: ", "))) of \(path); notes writes those from who really changed the file and when, so nothing was changed",
                hint: "edit the other lines; `notes history \(path)` shows who changed it")
        }
    }

    /// Deletes a file, keeping its bytes in history so `restore` brings it back.
    public func delete(_ raw: String, options: ChangeOptions = ChangeOptions(), by author: Author)
        throws(NotesError) -> ChangeResult
    {
        let (path, _) = try resolve(raw, for: author, .remove)
        return try locked { () throws(NotesError) -> ChangeResult in
            let target = try open(path, create: false)
            try target.checkWritable()
            guard let current = target.bytes, let version = target.version else {
                throw notFound(path)
            }
            if case .refuse(let error) = guardFor(target, author: author, rule: .write)
                .decideDelete(options)
            {
                throw error
            }
            var result = ChangeResult(path: path.relative)
            result.previousVersion = version
            result.restorableVersion = version
            if options.includeDiff || options.dryRun {
                result.diff = diff(current, [], path.relative, "/dev/null", &result)
            }
            if options.dryRun {
                result.dryRun = true
                return result
            }
            try history.store(current, version: version, like: target.current?.info)
            let record = ChangeRecord(
                actor: author.actor, client: author.client, operation: .delete, path: path.relative,
                before: version, after: nil)
            try history.writeIntent(record)
            do throws(NotesError) {
                try target.folder.remove(target.name)
            } catch {
                if case .missing = target.folder.entry(target.name) {
                    throw HistoryStore.madeButFailed(path.relative, error)
                }
                history.clearIntent()
                throw error
            }
            try history.logVisibleChange(record)
            history.clearIntent()
            return result
        }
    }

    /// Renames a file inside the workspace; the target must not exist.
    public func move(
        _ raw: String, to rawTarget: String, options: ChangeOptions = ChangeOptions(),
        by author: Author
    ) throws(NotesError) -> ChangeResult {
        let (from, _) = try resolve(raw, for: author, .remove)
        let (to, toRule) = try resolve(rawTarget, for: author, .change)
        try WriteGuard.checkMoveDestination(to, rule: toRule, by: author)
        guard from != to else {
            throw NotesError(
                .invalidArgument, "\(from) and \(to) are the same path", hint: "give a new name")
        }
        return try locked { () throws(NotesError) -> ChangeResult in
            let source = try open(from, create: false)
            guard let version = source.version else { throw notFound(from) }
            try guardFor(source, author: author, rule: .write).checkPrecondition(
                options.expectedVersion, operation: "move_file")
            var components = to.relative.split(separator: "/").map(String.init)
            let name = components.removeLast()
            let folder = try FolderHandle.open(
                root: workspace.root, components: components, create: true)
            var result = ChangeResult(path: to.relative)
            result.from = from.relative
            result.version = version
            result.previousVersion = version
            let record = ChangeRecord(
                actor: author.actor, client: author.client, operation: .move, path: from.relative,
                to: to.relative, before: version, after: version)
            try history.store(source.bytes ?? [], version: version)
            try history.writeIntent(record)
            do throws(NotesError) {
                try source.folder.move(source.name, to: folder, as: name)
            } catch {
                if case .missing = source.folder.entry(source.name) {
                    throw HistoryStore.madeButFailed(from.relative, error)
                }
                history.clearIntent()
                throw error
            }
            try history.logVisibleChange(record)
            history.clearIntent()
            return result
        }
    }

    /// Brings back `version` of a file (default: the version before the last change, or the
    /// deleted file). A restore is itself a change and can be undone. The bytes come back
    /// exactly as they were (no restamping); the log records who restored them.
    public func restore(
        _ raw: String, version requested: String? = nil, options: ChangeOptions = ChangeOptions(),
        by author: Author
    ) throws(NotesError) -> ChangeResult {
        let (path, rule) = try resolve(raw, for: author, .change)
        return try locked { () throws(NotesError) -> ChangeResult in
            let target = try open(path, create: true)
            try target.checkWritable()
            let version: String
            if let requested {
                version = try versionTypedShort(requested, of: path.relative)
            } else {
                version = try previousVersion(of: path, current: target.version)
            }
            guard let bytes = history.object(version) else {
                if history.logNames(version, of: path.relative) {
                    throw NotesError(
                        .notFound,
                        "version \(version) of \(path) is named in its history, but its stored copy is missing or damaged in .notes/history/objects (deleted, or removed by `notes gc`); nothing was changed",
                        hint:
                            "restore .notes/history from a backup or sync copy; `notes index --check` lists every missing version"
                    )
                }
                throw NotesError(
                    .notFound, "version \(version) of \(path) is not in the history",
                    hint: "see `notes history \(path)`")
            }
            guard target.bytes != nil else {
                return try create(
                    target, bytes: bytes, rule: rule, options: options, author: author,
                    operation: .restore, stamped: false)
            }
            try guardFor(target, author: author, rule: rule).checkRestorePrecondition(
                options.expectedVersion)
            var relaxed = options
            relaxed.expectedVersion = target.version
            return try change(
                target, to: bytes, rule: rule, options: relaxed, author: author,
                operation: .restore, what: "restore_file", stamped: false)
        }
    }

    /// The version of `path`'s history that `typed` begins, when it is a prefix of at least
    /// 4 hex digits of exactly one (as `git` takes a short hash); else `typed` as it is.
    func versionTypedShort(_ typed: String, of path: String) throws(NotesError) -> String {
        guard (4..<16).contains(typed.count) else { return typed }
        let prefix = typed.lowercased()
        let versions = Set(
            history.history(of: path).records.flatMap { [$0.after, $0.before].compactMap { $0 } })
        let matching = versions.filter { $0.hasPrefix(prefix) }.sorted()
        if matching.count > 1 {
            throw NotesError(
                .invalidArgument,
                "version \(typed) of \(path) could be any of \(matching.joined(separator: ", "))",
                hint: "type more of it")
        }
        return matching.first ?? typed
    }

    /// The version a plain `restore PATH` brings back.
    public func previousVersion(of path: WorkspacePath, current: String?) throws(NotesError)
        -> String
    {
        let records = history.history(of: path.relative).records
        for record in records.reversed() {
            for candidate in [record.after, record.before] {
                if let candidate, candidate != current, history.object(candidate) != nil {
                    return candidate
                }
            }
        }
        if records.isEmpty {
            throw NotesError(
                .notFound,
                "\(path) has no history: notes keeps the versions of files changed through it, or that it saw change",
                hint: FileSystem.exists(workspace.absolutePath(path.relative))
                    ? "there is no earlier version to bring back"
                    : "check the path: `notes list` shows the files")
        }
        throw NotesError(
            .notFound, "the history has no earlier version of \(path)",
            hint: "see `notes history \(path)`")
    }

    // MARK: Shared steps

    /// Creates a file that does not exist yet (never conflicts).
    func create(
        _ target: Target, bytes: [UInt8], rule: AccessRule, options: ChangeOptions, author: Author,
        operation: ChangeOperation, stamped: Bool = true
    ) throws(NotesError) -> ChangeResult {
        let decision = guardFor(target, author: author, rule: rule).decideCreate(bytes)
        guard case .write = decision else {
            return try act(on: decision, target, operation: operation, author: author)
        }
        var result = ChangeResult(path: target.path.relative)
        var warnings = conflictCopyWarnings(target)
        let final =
            stamped
            ? stamp(bytes, path: target.path, author: author, replacing: nil, warnings: &warnings)
            : bytes
        result.created = true
        if options.includeDiff || options.dryRun {
            result.diff = diff([], final, "/dev/null", target.path.relative, &result)
        }
        result.warnings = warnings
        if options.dryRun {
            result.dryRun = true
            result.version = ContentVersion(of: final).short
            return result
        }
        result.version = try commit(
            target, bytes: final, operation: operation == .append ? .create : operation,
            author: author,
            agentBase: options.templateText ? "" : nil
        ).after
        return result
    }

    /// Replaces an existing file's text with `proposed` after the agent's guard.
    func change(
        _ target: Target, to proposed: [UInt8], rule: AccessRule, options: ChangeOptions,
        author: Author, operation: ChangeOperation, what: String, stamped: Bool = true
    ) throws(NotesError) -> ChangeResult {
        let current = target.bytes ?? []
        var bytes = proposed
        var merged = false
        let check = guardFor(target, author: author, rule: rule)
        switch check.decideChange(proposed, options: options, operation: operation, what: what) {
        case .write: break
        case .merge(let combined):
            bytes = combined
            merged = true
        case let decision:
            return try act(on: decision, target, operation: operation, author: author)
        }
        if bytes == current {
            var result = ChangeResult(path: target.path.relative)
            result.version = target.version
            result.previousVersion = target.version
            result.changed = false
            return result
        }
        let agentBase =
            options.dryRun
            ? nil
            : nextAgentBase(
                target, decidedBy: check, proposed: bytes, confirmed: options.confirmUserEdits)
        var result = try finish(
            target, bytes: bytes, operation: merged ? .merge : operation, author: author,
            stamped: stamped, dryRun: options.dryRun,
            includeDiff: options.includeDiff, agentBase: agentBase)
        result.merged = merged
        return result
    }

    /// A sync client left conflict copies of this file (`a.sync-conflict-….md`, `a (… conflicted
    /// copy …).md`): the write goes ahead, and the caller hears that another version exists.
    func conflictCopyWarnings(_ target: Target) -> [String] {
        let copies = target.folder.names().filter {
            IgnoreRules.isConflictCopy($0) && IgnoreRules.conflictBase(of: $0) == target.name
        }
        return copies.sorted().map {
            "a sync conflict copy of this file exists: \(target.folder.path($0)); merge it by hand, notes never deletes it"
        }
    }

    /// Stamps and commits `bytes` over an existing file.
    func finish(
        _ target: Target, bytes: [UInt8], operation: ChangeOperation, author: Author,
        stamped: Bool = true, dryRun: Bool = false,
        includeDiff: Bool = false, proposal: String? = nil, agentBase: String? = nil
    ) throws(NotesError) -> ChangeResult {
        var result = ChangeResult(path: target.path.relative)
        var warnings = conflictCopyWarnings(target)
        let final =
            stamped
            ? stamp(
                bytes, path: target.path, author: author, replacing: target.bytes,
                warnings: &warnings) : bytes
        result.previousVersion = target.version
        result.warnings = warnings
        if includeDiff || dryRun {
            // The change asked for: the provenance stamp every write adds is left out (it
            // would be a hunk of its own whenever the clock has moved on).
            result.diff = diff(
                target.bytes ?? [], bytes, "\(target.path)@\(target.version ?? "")",
                target.path.relative, &result)
        }
        if dryRun {
            result.dryRun = true
            result.version = ContentVersion(of: final).short
            return result
        }
        if let before = target.bytes, final == before {
            // Stamping gave back the very bytes (a repeat within the same second): no change,
            // and no log line whose before and after are one version.
            result.version = target.version
            result.changed = false
            return result
        }
        result.version = try commit(
            target, bytes: final, operation: operation, author: author, proposal: proposal,
            agentBase: agentBase
        ).after
        return result
    }

    /// Carries out a guard's decision that writes nothing: stores the proposal, or throws the
    /// refusal. (``GuardDecision/write`` and ``GuardDecision/merge(_:)`` are the caller's.)
    func act(
        on decision: GuardDecision, _ target: Target, operation: ChangeOperation, author: Author
    ) throws(NotesError) -> ChangeResult {
        switch decision {
        case .propose(let content, let base, let reason):
            return try propose(
                target, content: content, operation: operation, baseVersion: base, author: author,
                reason: reason)
        case .refuse(let error):
            throw error
        case .write, .merge:
            throw NotesError(
                .internal, "the guard's decision to write \(target.path) reached the proposal step",
                hint: "this is a bug; please report it")
        }
    }

    /// Stores `content` as a proposal instead of writing it (docs/spec.md §6.5).
    func propose(
        _ target: Target, content: [UInt8], operation: ChangeOperation, baseVersion: String?,
        author: Author, reason: String
    ) throws(NotesError) -> ChangeResult {
        if let current = target.bytes, let version = target.version {
            try history.store(current, version: version, like: target.current?.info)
        }
        // The base must be a version whose bytes are kept, so the proposal can be merged later.
        let base = baseVersion.flatMap { history.object($0) == nil ? nil : $0 } ?? target.version
        guard let text = String(validating: content, as: UTF8.self) else {
            throw NotesError(
                .notText, "the proposed text for \(target.path) is not UTF-8",
                hint: "nothing was stored")
        }
        let proposal = try proposals.save(
            path: target.path.relative, operation: operation, baseVersion: base,
            content: text, author: author, reason: reason)
        var result = ChangeResult(path: target.path.relative)
        result.version = target.version
        result.previousVersion = target.version
        result.changed = false
        result.proposal = proposal.id
        result.diff = diff(
            target.bytes ?? [], content, target.path.relative, "\(target.path) (proposed)", &result)
        result.warnings = [
            "stored as proposal \(proposal.id) for the person to review (\(reason)); the file is unchanged"
        ]
        return result
    }

    /// A unified diff, or nil with a warning when the texts are too large to diff cheaply.
    func diff(
        _ old: [UInt8], _ new: [UInt8], _ oldLabel: String, _ newLabel: String,
        _ result: inout ChangeResult
    ) -> String? {
        guard max(old.count, new.count) <= ChangeOptions.diffMaxBytes else {
            result.warnings.append(
                "no diff: the file is larger than \(ChangeOptions.diffMaxBytes >> 20) MB")
            return nil
        }
        return LineDiff.unified(old, new, oldLabel: oldLabel, newLabel: newLabel)
    }

    func checkSize(_ count: Int, _ path: WorkspacePath) throws(NotesError) {
        let limit = workspace.config.writeMaxBytes
        if count > limit {
            throw NotesError(
                .tooLarge,
                "the new content of \(path) is \(count) bytes, over the \(limit)-byte limit",
                hint: "split it into several files, or raise limits.write_max_bytes")
        }
    }

    func notFound(_ path: WorkspacePath) -> NotesError {
        NotesError(
            .notFound, "no file at \(path)", hint: "check the path with list_files or `notes list`")
    }
}
