import NotesCore

/// Acting on proposals (docs/spec.md §6.5): the person accepts, rejects or merges what the agent
/// proposed. An accepted text is recorded as the agent's (it wrote it; the person agreed).
extension NoteStore {
    /// The diff of a proposal against the file as it is now.
    public func diff(of proposal: Proposal) -> String {
        let current =
            (try? FileBytes.read(
                path: workspace.absolutePath(proposal.path), maxBytes: Workspace.pagedReadMaxBytes))
            ?? []
        return LineDiff.unified(
            current, Array(proposal.content.utf8), oldLabel: proposal.path,
            newLabel: "\(proposal.path) (proposal \(proposal.id))")
    }

    /// Writes the proposal's text, if the file is still the version it was made against.
    public func accept(_ id: String, by person: Author = .person) throws(NotesError) -> ChangeResult
    {
        let proposal = try pending(id)
        return try locked { () throws(NotesError) -> ChangeResult in
            let target = try open(try WorkspacePath(proposal.path, in: workspace), create: true)
            guard target.version == proposal.baseVersion else {
                throw NotesError(
                    .staleVersion, "\(proposal.path) changed since proposal \(id) was made",
                    hint: "use `notes review \(id) --merge`, or --reject",
                    details: ErrorDetails(
                        path: proposal.path, currentVersion: target.version,
                        expectedVersion: proposal.baseVersion))
            }
            let result = try apply(
                proposal, bytes: Array(proposal.content.utf8), to: target, operation: .accept)
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
                var result = try apply(proposal, bytes: bytes, to: target, operation: .merge)
                result.merged = true
                try proposals.remove(id)
                return result
            case .conflicts(let hunks):
                throw NotesError(
                    .mergeConflict,
                    "proposal \(id) and the current \(proposal.path) change the same lines in \(hunks.count) place(s)",
                    hint: "accept or reject it, or edit the file yourself",
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

    private func apply(
        _ proposal: Proposal, bytes: [UInt8], to target: Target, operation: ChangeOperation
    ) throws(NotesError) -> ChangeResult {
        let author = Author(proposal.actor, client: proposal.client)
        if target.bytes == nil {
            var result = try create(
                target, bytes: bytes, rule: .write, options: ChangeOptions(), author: author,
                operation: operation)
            result.proposal = proposal.id
            return result
        }
        var result = try finish(
            target, bytes: bytes, operation: operation, author: author, proposal: proposal.id,
            agentBase: "")
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
