import NotesCore

/// Acting on proposals (docs/spec.md §6.5): the person accepts, rejects or merges what the agent
/// proposed. Accepting is the person's change (the log's actor is the person); the lines
/// the proposal changed become the agent's own text, and the person's other lines stay
/// theirs (``WriteGuard/agentTextAfterAccepting(_:)``).
extension NoteStore {
    /// What a proposal changes, as a diff: against the file as it is now, or, when the file
    /// changed since the proposal was made and that version is kept, against the version
    /// the proposal saw (`sinceChanged`): a diff against the file now would show the
    /// person's later lines as removed, which `--merge` keeps.
    public func proposedChange(_ proposal: Proposal) -> (diff: String, fileChangedSince: Bool) {
        let current =
            (try? FileBytes.read(
                path: workspace.absolutePath(proposal.path), maxBytes: Workspace.pagedReadMaxBytes))
            ?? []
        let proposed = Array(proposal.content.utf8)
        if let base = proposal.baseVersion, ContentVersion(of: current).short != base,
            let seen = history.object(base)
        {
            let diff = LineDiff.unified(
                seen, proposed, oldLabel: "\(proposal.path) (version \(base))",
                newLabel: "\(proposal.path) (proposal \(proposal.id))")
            return (diff, true)
        }
        let diff = LineDiff.unified(
            current, proposed, oldLabel: proposal.path,
            newLabel: "\(proposal.path) (proposal \(proposal.id))")
        return (diff, false)
    }

    /// Writes the proposal's text, if the file is still the version it was made against.
    public func accept(_ id: String, by person: Author = .person) throws(NotesError) -> ChangeResult
    {
        let proposal = try pending(id)
        return try locked { () throws(NotesError) -> ChangeResult in
            let target = try open(try WorkspacePath(proposal.path, in: workspace), create: true)
            guard target.version == proposal.baseVersion else {
                throw NotesError(
                    .staleVersion,
                    "\(proposal.path) changed since proposal \(id) was made; nothing was written",
                    hint:
                        "combine the two with `notes review \(id) --merge`, or drop it with --reject",
                    details: ErrorDetails(
                        path: proposal.path, currentVersion: target.version,
                        expectedVersion: proposal.baseVersion))
            }
            let result = try apply(
                proposal, bytes: Array(proposal.content.utf8), to: target, operation: .accept,
                by: person)
            try proposals.remove(id)
            return result
        }
    }

    /// Three-way merges the proposal with the changes made to the file since it was made.
    public func mergeProposal(_ id: String, by person: Author = .person) throws(NotesError)
        -> ChangeResult
    {
        let proposal = try pending(id)
        return try locked { () throws(NotesError) -> ChangeResult in
            let target = try open(try WorkspacePath(proposal.path, in: workspace), create: true)
            let ours = Array(proposal.content.utf8)
            let base: [UInt8]
            if let version = proposal.baseVersion {
                guard let stored = history.object(version) else {
                    throw NotesError(
                        .notFound,
                        "the version proposal \(id) was based on is no longer in history",
                        hint: "use --accept or --reject")
                }
                base = stored
            } else {
                base = []
            }
            switch ThreeWayMerge.merge(base: base, ours: ours, theirs: target.bytes ?? []) {
            case .merged(let bytes):
                var result = try apply(
                    proposal, bytes: bytes, to: target, operation: .merge, by: person)
                result.merged = true
                try proposals.remove(id)
                return result
            case .conflicts(let hunks):
                // Not "accept": it needs the version the proposal was made against.
                throw NotesError(
                    .mergeConflict,
                    "proposal \(id) and your \(proposal.path) as it is now change the same lines in \(hunks.count) place(s); nothing was written",
                    hint:
                        "keep yours with `notes review \(id) --reject`, or copy the wording you want from it with `notes edit \(proposal.path)` and then reject it",
                    details: ErrorDetails(
                        path: proposal.path, currentVersion: target.version, conflicts: hunks))
            }
        }
    }

    /// Drops a proposal; the file is not touched. The log keeps a line about it.
    public func reject(_ id: String, by person: Author = .person) throws(NotesError) -> ChangeResult
    {
        let proposal = try pending(id)
        return try locked { () throws(NotesError) -> ChangeResult in
            try proposals.remove(id)
            let version =
                (try? open(try WorkspacePath(proposal.path, in: workspace), create: false))?.version
            try history.append(
                ChangeRecord(
                    actor: person.actor, client: person.client, operation: .reject,
                    path: proposal.path,
                    before: version, after: version, proposal: id))
            var result = ChangeResult(path: proposal.path)
            result.version = version
            result.changed = false
            result.proposal = id
            return result
        }
    }

    private func pending(_ id: String) throws(NotesError) -> Proposal {
        guard let proposal = proposals.proposal(id) else {
            throw NotesError(
                .notFound, "no pending proposal '\(id)'", hint: "list them with `notes review`")
        }
        return proposal
    }

    /// Writes the accepted `bytes` as `person`'s change. A new file is the agent's text
    /// whole; over an existing file the agent's own text becomes the accepted lines
    /// without the person's untouched ones.
    private func apply(
        _ proposal: Proposal, bytes: [UInt8], to target: Target, operation: ChangeOperation,
        by person: Author
    ) throws(NotesError) -> ChangeResult {
        if target.bytes == nil {
            var options = ChangeOptions()
            options.templateText = true
            var result = try create(
                target, bytes: bytes, rule: .write, options: options, author: person,
                operation: operation)
            result.proposal = proposal.id
            return result
        }
        let own = guardFor(target, author: person, rule: .write).agentTextAfterAccepting(bytes)
        var result = try finish(
            target, bytes: bytes, operation: operation, author: person, proposal: proposal.id,
            agentBase: try history.store(own))
        result.proposal = proposal.id
        return result
    }

    /// Withdraws a pending proposal made by `author`'s kind of actor (an agent takes back
    /// its own suggestion before the person reviews it). Nothing in the workspace changes
    /// and nothing is logged: a proposal never changed a file.
    public func withdraw(_ id: String, by author: Author) throws(NotesError) -> Proposal {
        try locked { () throws(NotesError) -> Proposal in
            guard let proposal = proposals.proposal(id) else {
                throw NotesError(
                    .notFound, "no pending proposal '\(id.prefix(64))'",
                    hint:
                        "list_proposals shows the pending ones; the person may have reviewed it already"
                )
            }
            guard proposal.actor == author.actor else {
                throw NotesError(
                    .policyDenied,
                    "proposal \(id) was made by the \(proposal.actor.rawValue), not by you",
                    hint: "only your own proposals can be withdrawn")
            }
            try proposals.remove(id)
            return proposal
        }
    }
}
