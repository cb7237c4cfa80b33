import NotesCore

/// The guard (docs/spec.md §6.2) for one change by one author at one path: read-first, stale
/// versions, the agent's path policy (append-only, ask), the person's lines and sections.
/// It decides — write, merge, propose or refuse (``GuardDecision``) — and ``NoteStore``
/// acts, never asking who the author is: the agent is held to every rule, the person only
/// to the version they name (a script's compare-and-swap) and to the lines notes stamps.
///
/// "The person's lines" are the lines of the current file that differ from the version the
/// agent last wrote in full (its baseline, from history); with no baseline every line is
/// the person's. A call is refused with `user_edited` only when it would remove or change
/// one of those lines, so an agent may still edit its own lines or add text.
struct WriteGuard {
    /// Who makes the change.
    let author: Author
    /// The path policy's rule for the author at this path (``PathPolicy``; the person's is
    /// always `write`).
    let rule: AccessRule
    let path: String
    /// The file's bytes ([] when it does not exist).
    let current: [UInt8]
    let currentVersion: String
    let pathHistory: PathHistory
    /// The stated `last_modified_by` of the file's front matter (used when the log has no
    /// record of the file).
    let statedLastModifiedBy: Actor?
    let history: HistoryStore

    /// Whether the person changed the file since the agent last wrote it in full.
    var userEdited: Bool {
        if let last = pathHistory.last, last.after != nil {
            return pathHistory.userChangedSinceBaseline || last.after != currentVersion
        }
        return statedLastModifiedBy != .agent
    }

    /// Refuses a call without a version (`read_required`) or with one that is not the
    /// file's (`stale_version`, with a diff of what changed since when the store has it).
    func requireVersion(_ expected: String?, operation: String) throws(NotesError) {
        guard let expected, !expected.isEmpty else {
            throw NotesError(
                .readRequired,
                "\(path) already exists and \(operation) needs the version you read. Call read_file on \(path), then retry with expected_version set to the version it returns.",
                hint: "read the file first",
                details: ErrorDetails(
                    path: path, currentVersion: currentVersion,
                    options: ["read_file then retry with expected_version"]))
        }
        guard expected == currentVersion else { throw stale(expected) }
    }

    /// Whether the author is held to the agent's rules.
    private var guarded: Bool { author.actor == .agent }

    /// The version precondition of a call: an agent must give the version it read and it
    /// must match; the person's version is optional (a script's compare-and-swap).
    func checkPrecondition(_ expected: String?, operation: String) throws(NotesError) {
        if guarded {
            try requireVersion(expected, operation: operation)
        } else if let expected, expected != currentVersion {
            throw stale(expected)
        }
    }

    /// The `stale_version` refusal for `expected`.
    func stale(_ expected: String) -> NotesError {
        let looksLikeVersion = expected.count == 16 && expected.allSatisfy(\.isHexDigit)
        let diff = history.object(expected).flatMap {
            Self.diff($0, current, "\(path)@\(expected)", "\(path)@\(currentVersion)")
        }
        let why =
            looksLikeVersion
            ? "\(path) changed since you read it (you had version \(expected), it is now \(currentVersion))."
            : "'\(expected)' is not a version of \(path) (it is now \(currentVersion))."
        return NotesError(
            .staleVersion,
            "\(why) Read it again, redo your change on the new text, and retry with expected_version \(currentVersion).",
            hint: "read the file again",
            details: ErrorDetails(
                path: path, currentVersion: currentVersion, expectedVersion: expected, diff: diff,
                options: [
                    "read_file and redo the change",
                    "edit_file when your edit does not touch the changed lines",
                ]))
    }

    /// A diff for a refusal, left out for files over the diff size limit.
    static func diff(_ old: [UInt8], _ new: [UInt8], _ oldLabel: String, _ newLabel: String)
        -> String?
    {
        max(old.count, new.count) <= ChangeOptions.diffMaxBytes
            ? LineDiff.unified(old, new, oldLabel: oldLabel, newLabel: newLabel) : nil
    }

    /// Line indices of the current file that the person wrote (see the type's comment).
    func personLines() -> Set<Int> {
        let lines = ByteLines(current)
        guard let baseline = pathHistory.agentBaseline, let base = history.object(baseline) else {
            return Set(0..<lines.count)
        }
        return LineDiff.addedLines(ByteLines(base), lines)
    }

    /// The person's lines that writing `proposed` would remove or change, in file order
    /// (blank lines and the provenance lines the tool maintains are not counted).
    func lostLines(_ proposed: [UInt8]) -> [Int] {
        let lines = ByteLines(current)
        let removed = LineDiff.removedLines(lines, ByteLines(proposed))
        let ignored = provenanceLines()
        return removed.intersection(personLines()).filter {
            !lines.isBlank($0) && !ignored.contains($0)
        }.sorted()
    }

    /// Front-matter lines holding the provenance keys.
    private func provenanceLines() -> Set<Int> {
        guard case .present(let block) = FrontMatterBlock.split(current) else { return [] }
        let lines = ByteLines(current)
        var result = Set<Int>()
        for i in 1..<max(1, block.lineCount - 1) where i < lines.count {
            let text = lines.text(i)
            if ProvenanceStamp.keys.contains(where: {
                text.hasPrefix($0 + ":") || text.hasPrefix($0 + " ")
            }) {
                result.insert(i)
            }
        }
        return result
    }

    /// The `user_edited` refusal for a call that would lose `lost` lines (`merged`: the
    /// call asked for a merge, and its result still would).
    func userEditedError(
        proposed: [UInt8], lost: [Int], operation: String, merged: Bool = false
    ) -> NotesError {
        let lines = ByteLines(current)
        let shown = lost.prefix(50).map { "\($0 + 1): \(lines.text($0))" }
        // Only ways the refused tool (or another tool, by name) can take.
        let ways: String
        let options: [String]
        switch operation {
        case _ where merged:
            ways =
                "on_conflict \"merge\" was tried and combining your text with theirs still drops those lines (your text leaves out lines they kept), so nothing was written. Use on_conflict \"propose\" to let them review it, edit_file on lines they did not change, append_file to add text, or ask them and retry with confirm_user_edits true only after they say yes."
            options = [
                "on_conflict: propose", "edit_file on lines the person did not change",
                "append_file", "confirm_user_edits: true (only after the person agrees)",
            ]
        case "delete":
            ways =
                "keep the file, or ask them and retry delete_file with confirm_user_edits true only after they say yes."
            options = ["keep the file", "confirm_user_edits: true (only after the person agrees)"]
        case "restore":
            ways =
                "use edit_file on lines they did not change, write_file with on_conflict \"merge\" or \"propose\" and the old version's text, or ask them to restore it."
            options = [
                "edit_file on lines the person did not change",
                "write_file with on_conflict: merge", "write_file with on_conflict: propose",
            ]
        default:
            ways =
                "use append_file to add text, edit_file on lines they did not change, on_conflict \"merge\" to combine your text with theirs, on_conflict \"propose\" to let them review it, or ask them and retry with confirm_user_edits true only after they say yes."
            options = [
                "append_file", "edit_file on lines the person did not change", "on_conflict: merge",
                "on_conflict: propose", "confirm_user_edits: true (only after the person agrees)",
            ]
        }
        return NotesError(
            .userEdited,
            "The person edited \(path) since you last wrote it, and this \(operation) would remove or change \(lost.count) of their line(s). Do not overwrite their work: \(ways)",
            hint: "the person's text is kept",
            details: ErrorDetails(
                path: path, currentVersion: currentVersion,
                diff: Self.diff(current, proposed, "\(path) (now)", "\(path) (your version)"),
                lostLines: shown,
                options: options))
    }

    /// Three-way merge of the agent's `proposed` text with the person's changes. The base is
    /// the agent's last written version, as written (docs/spec.md §6.2): its text derives from it,
    /// and the person's lines already in it are common to both sides. When the person has
    /// not edited since, `readBase` (the version the agent read) is the closer ancestor.
    /// (The agent's own text without the person's lines, ``PathHistory/agentBaseline``, is
    /// no merge base: against it the person's earlier lines look like a change of both sides.)
    func merge(_ proposed: [UInt8], readBase: String?) throws(NotesError) -> [UInt8] {
        let written = pathHistory.agentWritten ?? pathHistory.agentBaseline
        let baseVersion =
            userEdited
            ? written : (readBase.flatMap { history.object($0) == nil ? nil : $0 } ?? written)
        guard let baseVersion, let base = history.object(baseVersion) else {
            throw NotesError(
                .mergeConflict,
                "\(path) has no version written by you to merge from, so every line is the person's. Use on_conflict \"propose\" to let them review your text, or edit_file / append_file.",
                hint: "nothing was written",
                details: ErrorDetails(
                    path: path, currentVersion: currentVersion,
                    options: ["on_conflict: propose", "append_file", "edit_file"]))
        }
        switch ThreeWayMerge.merge(base: base, ours: proposed, theirs: current) {
        case .merged(let bytes):
            return bytes
        case .conflicts(let hunks):
            throw NotesError(
                .mergeConflict,
                "Your text and the person's edits to \(path) change the same lines in \(hunks.count) place(s), so nothing was written. Read the file, keep their wording in those places, and write again; or use on_conflict \"propose\" so they can review.",
                hint: "nothing was written",
                details: ErrorDetails(
                    path: path, currentVersion: currentVersion, conflicts: hunks,
                    options: ["read_file and rewrite around their changes", "on_conflict: propose"])
            )
        }
    }

    // MARK: Decisions

    /// A file that vanished since the caller read it: refused when the call named a version
    /// (an agent's empty version counts: it read a file that is gone), else nil (create it).
    func decideMissing(expected: String?, path display: WorkspacePath) -> GuardDecision? {
        guard let expected, guarded || !expected.isEmpty else { return nil }
        return .refuse(
            NotesError(
                .staleVersion, "\(display) no longer exists (you had version \(expected))",
                hint:
                    "it was deleted or moved; list_files, or write without expected_version to create it",
                details: ErrorDetails(path: path, expectedVersion: expected)))
    }

    /// A change of a path that is append-only for the author: proposed when the call asks
    /// for a proposal (a proposal writes nothing), else refused; nil when the path is not
    /// append-only for the author.
    func decideAppendOnly(_ proposed: [UInt8], onConflict: ConflictChoice, baseVersion: String?)
        -> GuardDecision?
    {
        guard guarded, rule == .append else { return nil }
        guard onConflict == .propose else { return .refuse(Self.appendOnly(path)) }
        return .propose(proposed, base: baseVersion, reason: "the path is append-only for agents")
    }

    /// A new file: proposed under the policy `ask`, else written.
    func decideCreate(_ bytes: [UInt8]) -> GuardDecision {
        guarded && rule == .ask
            ? .propose(bytes, base: nil, reason: "the path's policy is ask") : .write
    }

    /// An append to an existing file (`append_file`, `remember`, `journal`): proposed under
    /// the policy `ask`, refused when it reaches into the person's sections, else written.
    func decideAppend(_ bytes: [UInt8], what: String) -> GuardDecision {
        guard guarded else { return .write }
        if rule == .ask {
            return .propose(bytes, base: currentVersion, reason: "the path's policy is ask")
        }
        do {
            try UserSections.check(current: current, proposed: bytes, path: path, operation: what)
        } catch {
            return .refuse(error)
        }
        return .write
    }

    /// Replacing the file's text with `proposed` (`write_file`, `edit_file`, `restore_file`):
    /// the person's sections, read-first and staleness, the person's lines (refused, merged
    /// or proposed as `onConflict` says), then the policy `ask`.
    func decideChange(
        _ proposed: [UInt8], options: ChangeOptions, operation: ChangeOperation, what: String
    ) -> GuardDecision {
        guard guarded else {
            if let expected = options.expectedVersion, expected != currentVersion {
                return .refuse(stale(expected))
            }
            return .write
        }
        do {
            // The person's own sections are policy: refused before versions and merges.
            if options.onConflict != .merge {
                try UserSections.check(
                    current: current, proposed: proposed, path: path, operation: what)
            }
            var stale = false
            do {
                try requireVersion(options.expectedVersion, operation: what)
            } catch  where error.code == .staleVersion && options.onConflict != .fail {
                stale = true
            }
            if stale && options.onConflict == .propose {
                return .propose(
                    proposed, base: options.expectedVersion,
                    reason: "the file changed since it was read")
            }
            var bytes = proposed
            if stale || userEdited {
                let lost = lostLines(proposed)
                if stale || (!lost.isEmpty && !options.confirmUserEdits) {
                    switch options.onConflict {
                    case .merge:
                        bytes = try merge(proposed, readBase: options.expectedVersion)
                        // The base can hold the person's lines (the agent wrote around them):
                        // a merge that drops them is still theirs to agree to.
                        let dropped = lostLines(bytes)
                        if !dropped.isEmpty && !options.confirmUserEdits {
                            return .refuse(
                                userEditedError(
                                    proposed: bytes, lost: dropped, operation: operation.rawValue,
                                    merged: true))
                        }
                    case .propose:
                        return .propose(
                            proposed, base: options.expectedVersion,
                            reason: "the person edited the file")
                    case .fail:
                        return .refuse(
                            userEditedError(
                                proposed: proposed, lost: lost, operation: operation.rawValue))
                    }
                }
            }
            if rule == .ask {
                return .propose(bytes, base: currentVersion, reason: "the path's policy is ask")
            }
            if options.onConflict == .merge {
                try UserSections.check(
                    current: current, proposed: bytes, path: path, operation: what)
            }
            return bytes == proposed ? .write : .merge(bytes)
        } catch {
            return .refuse(error)
        }
    }

    /// An exact-text edit's version check: an agent's edit on a file changed since its read
    /// (`expected`) still applies when the changes since avoid the lines it edits.
    func checkEditPrecondition(_ expected: String?, editedLines: [ClosedRange<Int>])
        throws(NotesError)
    {
        guard guarded, let expected, !expected.isEmpty, expected != currentVersion else {
            return try checkPrecondition(expected, operation: "edit_file")
        }
        guard let read = history.object(expected) else { throw stale(expected) }
        let changedSince = LineDiff.addedLines(ByteLines(read), ByteLines(current))
        if editedLines.contains(where: { range in range.contains { changedSince.contains($0) } }) {
            throw stale(expected)
        }
    }

    /// A restore over an existing file: an agent's named version must be the file's.
    func checkRestorePrecondition(_ expected: String?) throws(NotesError) {
        if guarded, let expected, expected != currentVersion { throw stale(expected) }
    }

    /// Deleting the file: the version precondition, then for an agent the person's lines
    /// (unless they confirmed) and sections.
    func decideDelete(_ options: ChangeOptions) -> GuardDecision {
        do {
            try checkPrecondition(options.expectedVersion, operation: "delete_file")
            guard guarded else { return .write }
            if userEdited, !options.confirmUserEdits {
                let lost = lostLines([])
                if !lost.isEmpty {
                    return .refuse(userEditedError(proposed: [], lost: lost, operation: "delete"))
                }
            }
            try UserSections.check(current: current, proposed: nil, path: path, operation: "delete")
            return .write
        } catch {
            return .refuse(error)
        }
    }

    /// The agent's own text after it turns the file's text into `proposed` while the
    /// person's edits are pending: the same change applied to the agent's last text (a
    /// three-way merge with the current text as base), so the person's lines stay theirs.
    /// Nil when the usual rule applies (the person's change, or no edit of theirs pending).
    func nextAgentBaseline(after proposed: [UInt8], confirmed: Bool) -> AgentBaseline? {
        guard guarded, userEdited else { return nil }
        if confirmed { return .agreed }
        let base = pathHistory.agentBaseline.flatMap { history.object($0) } ?? []
        switch ThreeWayMerge.merge(base: current, ours: proposed, theirs: base) {
        case .merged(let next): return .text(next)
        case .conflicts:
            // The change cannot be replayed on the agent's text (say, its first append to a
            // file the person wrote): its text so far plus the lines this change adds, so
            // those lines count as the agent's from now on.
            let added = LineDiff.addedLines(ByteLines(current), ByteLines(proposed))
            let proposedLines = ByteLines(proposed).lines
            var own = base
            if let last = own.last, last != 0x0A { own.append(0x0A) }
            for index in added.sorted() where index < proposedLines.count {
                own.append(contentsOf: proposedLines[index])
            }
            return .text(own)
        }
    }

    /// The agent's own text once the person accepts `accepted` (a proposal, or its merge
    /// with the file) over the current text: the accepted text without the person's lines
    /// it left as they were. The lines the proposal changed or added become the agent's;
    /// the person's other lines stay theirs, so accepting one change lifts no protection.
    func agentTextAfterAccepting(_ accepted: [UInt8]) -> [UInt8] {
        let person = personLines()
        let lines = ByteLines(accepted)
        let theirs = Set(
            LineDiff.matches(ByteLines(current), lines).filter { person.contains($0.0) }.map(\.1))
        var own: [UInt8] = []
        for index in 0..<lines.count where !theirs.contains(index) {
            own.append(contentsOf: lines.lines[index])
        }
        return own
    }

    /// What the agent's baseline becomes after a change (``nextAgentBaseline(after:confirmed:)``).
    enum AgentBaseline: Equatable {
        /// The new version: the person agreed to the change.
        case agreed
        /// This text: the agent's last text with the change replayed on it.
        case text([UInt8])
    }

    /// An agent's whole-file text that names no front matter keeps the file's (title, tags,
    /// the person's keys, provenance); removing it takes an explicit edit. The person's
    /// text does the same when `always` (``ChangeOptions/keepFrontMatter``, `notes write`).
    func keepingFrontMatter(_ proposed: [UInt8], always: Bool = false) -> [UInt8] {
        guard guarded || always, FileFormat(path: path) == .markdown,
            case .none = FrontMatterBlock.split(proposed),
            case .present(let block) = FrontMatterBlock.split(current)
        else { return proposed }
        var head = Array(current[..<block.bodyOffset])
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { head.removeFirst(3) }
        return head + proposed
    }

    /// The content an author hands in whole: an agent's Markdown must not carry broken front
    /// matter (it could not be stamped, and would read as the person's file).
    static func checkContent(_ bytes: [UInt8], path: WorkspacePath, by author: Author)
        throws(NotesError)
    {
        guard author.actor == .agent, FileFormat(path: path.relative) == .markdown else { return }
        switch FrontMatterBlock.split(bytes) {
        case .none: return
        case .unterminated:
            throw NotesError(
                .invalidArgument, "the content's front matter has no closing '---'",
                hint: "close the YAML block with a line '---'")
        case .present(let block):
            do { _ = try FrontMatter.parse(bytes[block.yaml]) } catch {
                throw NotesError(
                    .invalidArgument, "the content's front matter is not a valid YAML mapping",
                    hint: "fix the YAML between the '---' lines")
            }
        }
    }

    /// Exact-text edits by the person may not change the provenance lines notes writes
    /// (``NoteStore/refuseProvenanceEdits(_:path:)``); an agent's are stamped over anyway.
    static func checkEdits(_ edits: [TextEdit], path: WorkspacePath, by author: Author)
        throws(NotesError)
    {
        if author.actor == .user { try NoteStore.refuseProvenanceEdits(edits, path: path.relative) }
    }

    /// A fact remembered under `heading` of context.md (``NoteStore/remember``): an agent
    /// may read the person's sections, never add to them.
    static func checkFactSection(
        _ heading: String, in current: [UInt8]?, path: String, by author: Author
    ) throws(NotesError) {
        guard author.actor == .agent, let current, UserSections(current, path: path).owns(heading)
        else { return }
        throw NotesError(
            .policyDenied,
            "the section \"\(heading)\" of context.md belongs to the person; agents may read it, never add to it",
            hint:
                "remember it under a section of your own (the default is \"\(ContextFacts.defaultSection)\")",
            details: ErrorDetails(path: path, options: ["remember without section"]))
    }

    /// A move's destination must be writable for the author (the person's always is).
    static func checkMoveDestination(_ to: WorkspacePath, rule: AccessRule, by author: Author)
        throws(NotesError)
    {
        if author.actor == .agent, rule != .write {
            throw NotesError(
                .policyDenied, "\(to) is not writable for agents by the workspace policy",
                hint: "choose another destination")
        }
    }

    static func appendOnly(_ path: String) -> NotesError {
        NotesError(
            .policyDenied, "\(path) is append-only for agents",
            hint: "use append_file, or on_conflict \"propose\" to let the person review a change",
            details: ErrorDetails(path: path, options: ["append_file", "on_conflict: propose"]))
    }
}
