import NotesCore

/// The agent's guard (docs/spec.md §6.2) for one call on one existing file: read-first, stale
/// versions, and the person's edits. It decides; ``NoteStore`` acts.
///
/// "The person's lines" are the lines of the current file that differ from the version the
/// agent last wrote in full (its baseline, from history); with no baseline every line is
/// the person's. A call is refused with `user_edited` only when it would remove or change
/// one of those lines, so an agent may still edit its own lines or add text.
struct WriteGuard {
    let path: String
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
            throw NotesError(.readRequired,
                "\(path) already exists and \(operation) needs the version you read. Call read_file on \(path), then retry with expected_version set to the version it returns.",
                hint: "read the file first",
                details: ErrorDetails(path: path, currentVersion: currentVersion, options: ["read_file then retry with expected_version"]))
        }
        guard expected == currentVersion else { throw stale(expected) }
    }

    /// The version precondition of a call: an agent must give the version it read and it
    /// must match; the person's version is optional (a script's compare-and-swap).
    func checkPrecondition(_ expected: String?, actor: Actor, operation: String) throws(NotesError) {
        if actor == .agent {
            try requireVersion(expected, operation: operation)
        } else if let expected, expected != currentVersion {
            throw stale(expected)
        }
    }

    /// The `stale_version` refusal for `expected`.
    func stale(_ expected: String) -> NotesError {
        let looksLikeVersion = expected.count == 16 && expected.allSatisfy(\.isHexDigit)
        let diff = history.object(expected).flatMap { Self.diff($0, current, "\(path)@\(expected)", "\(path)@\(currentVersion)") }
        let why = looksLikeVersion
            ? "\(path) changed since you read it (you had version \(expected), it is now \(currentVersion))."
            : "'\(expected)' is not a version of \(path) (it is now \(currentVersion))."
        return NotesError(.staleVersion,
            "\(why) Read it again, redo your change on the new text, and retry with expected_version \(currentVersion).",
            hint: "read the file again",
            details: ErrorDetails(path: path, currentVersion: currentVersion, expectedVersion: expected, diff: diff,
                                  options: ["read_file and redo the change", "edit_file when your edit does not touch the changed lines"]))
    }

    /// A diff for a refusal, left out for files over the diff size limit.
    static func diff(_ old: [UInt8], _ new: [UInt8], _ oldLabel: String, _ newLabel: String) -> String? {
        max(old.count, new.count) <= ChangeOptions.diffMaxBytes ? LineDiff.unified(old, new, oldLabel: oldLabel, newLabel: newLabel) : nil
    }

    /// Line indices of the current file that the person wrote (see the type's comment).
    func personLines() -> Set<Int> {
        let lines = ByteLines(current)
        guard let baseline = pathHistory.agentBaseline, let base = history.object(baseline) else { return Set(0..<lines.count) }
        return LineDiff.addedLines(ByteLines(base), lines)
    }

    /// The person's lines that writing `proposed` would remove or change, in file order
    /// (blank lines and the provenance lines the tool maintains are not counted).
    func lostLines(_ proposed: [UInt8]) -> [Int] {
        let lines = ByteLines(current)
        let removed = LineDiff.removedLines(lines, ByteLines(proposed))
        let ignored = provenanceLines()
        return removed.intersection(personLines()).filter { !lines.isBlank($0) && !ignored.contains($0) }.sorted()
    }

    /// Front-matter lines holding the provenance keys.
    private func provenanceLines() -> Set<Int> {
        guard case .present(let block) = FrontMatterBlock.split(current) else { return [] }
        let lines = ByteLines(current)
        var result = Set<Int>()
        for i in 1..<max(1, block.lineCount - 1) where i < lines.count {
            let text = lines.text(i)
            if ProvenanceStamp.keys.contains(where: { text.hasPrefix($0 + ":") || text.hasPrefix($0 + " ") }) { result.insert(i) }
        }
        return result
    }

    /// The `user_edited` refusal for a call that would lose `lost` lines.
    func userEditedError(proposed: [UInt8], lost: [Int], operation: String) -> NotesError {
        let lines = ByteLines(current)
        let shown = lost.prefix(50).map { "\($0 + 1): \(lines.text($0))" }
        // Only ways the refused tool (or another tool, by name) can take.
        let ways: String
        let options: [String]
        switch operation {
        case "delete":
            ways = "keep the file, or ask them and retry delete_file with confirm_user_edits true only after they say yes."
            options = ["keep the file", "confirm_user_edits: true (only after the person agrees)"]
        case "restore":
            ways = "use edit_file on lines they did not change, write_file with on_conflict \"merge\" or \"propose\" and the old version's text, or ask them to restore it."
            options = ["edit_file on lines the person did not change", "write_file with on_conflict: merge", "write_file with on_conflict: propose"]
        default:
            ways = "use append_file to add text, edit_file on lines they did not change, on_conflict \"merge\" to combine your text with theirs, on_conflict \"propose\" to let them review it, or ask them and retry with confirm_user_edits true only after they say yes."
            options = ["append_file", "edit_file on lines the person did not change", "on_conflict: merge", "on_conflict: propose", "confirm_user_edits: true (only after the person agrees)"]
        }
        return NotesError(.userEdited,
            "The person edited \(path) since you last wrote it, and this \(operation) would remove or change \(lost.count) of their line(s). Do not overwrite their work: \(ways)",
            hint: "the person's text is kept",
            details: ErrorDetails(path: path, currentVersion: currentVersion,
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
        let baseVersion = userEdited ? written : (readBase.flatMap { history.object($0) == nil ? nil : $0 } ?? written)
        guard let baseVersion, let base = history.object(baseVersion) else {
            throw NotesError(.mergeConflict,
                "\(path) has no version written by you to merge from, so every line is the person's. Use on_conflict \"propose\" to let them review your text, or edit_file / append_file.",
                hint: "nothing was written",
                details: ErrorDetails(path: path, currentVersion: currentVersion, options: ["on_conflict: propose", "append_file", "edit_file"]))
        }
        switch ThreeWayMerge.merge(base: base, ours: proposed, theirs: current) {
        case .merged(let bytes):
            return bytes
        case .conflicts(let hunks):
            throw NotesError(.mergeConflict,
                "Your text and the person's edits to \(path) change the same lines in \(hunks.count) place(s), so nothing was written. Read the file, keep their wording in those places, and write again; or use on_conflict \"propose\" so they can review.",
                hint: "nothing was written",
                details: ErrorDetails(path: path, currentVersion: currentVersion, conflicts: hunks, options: ["read_file and rewrite around their changes", "on_conflict: propose"]))
        }
    }
}
