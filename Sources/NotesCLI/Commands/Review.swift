import ArgumentParser
import Foundation
import NotesCore
import NotesStore

extension PathBase {
    /// A proposal with its path as printed.
    func display(_ proposal: Proposal) -> Proposal {
        var shown = proposal
        shown.path = display(proposal.path)
        return shown
    }
}

extension NotesCommand {
    /// `notes review [ID]`: the agent's proposals (docs/spec.md §6.5).
    struct Review: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "review",
            abstract:
                "Review the agent's proposals: list them, show one's diff, accept, reject or merge it.",
            discussion: """
                  notes review                  list pending proposals
                  notes review p-20261121-1a2b  show what it changes
                  notes review p-20261121-1a2b --accept
                  notes review p-20261121-1a2b --merge   combine with changes made since
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "A proposal id.", completion: Completion.proposals) var id: String?
        @Flag(name: .long, help: "Write the proposal (the file must not have changed since).")
        var accept = false
        @Flag(name: .long, help: "Drop the proposal.") var reject = false
        @Flag(name: .long, help: "Three-way merge the proposal with the file's changes since.")
        var merge = false
        @OptionGroup var output: ChangeOutputOptions

        func validate() throws {
            if [accept, reject, merge].filter({ $0 }).count > 1 {
                throw ValidationError("choose one of --accept, --reject, --merge")
            }
            if id == nil && (accept || reject || merge) {
                throw ValidationError("give the proposal id to act on")
            }
        }

        func run() throws {
            let store = NoteStore(workspace: try workspace.openWorkspace())
            let base = workspace.pathBase(store.workspace)
            guard let id else {
                let pending = store.proposals.list()
                if output.json {
                    return Terminal.write(try JSONOutput.document(pending.map { base.display($0) }))
                }
                if pending.isEmpty { return Terminal.write("no pending proposals\n") }
                for p in pending {
                    let current = FileManager.default.contents(
                        atPath: store.workspace.absolutePath(p.path)
                    ).map { ContentVersion(of: Array($0)).short }
                    let state =
                        current == p.baseVersion
                        ? "" : Terminal.style("  (file changed since: use --merge)", .yellow)
                    Terminal.write(
                        "\(Terminal.style(p.id, .yellow))  \(p.createdAt)  \(p.client)  \(p.operation.rawValue)  \(base.display(p.path))\(state)\n"
                    )
                    Terminal.write(Terminal.style("    \(p.reason)\n", .dim))
                }
                return
            }
            if accept {
                return try ChangeRenderer.render(
                    try store.accept(id), verb: "accepted into", options: output,
                    base: workspace.pathBase(store.workspace))
            }
            if reject {
                return try ChangeRenderer.render(
                    try store.reject(id), verb: "rejected", options: output,
                    base: workspace.pathBase(store.workspace))
            }
            if merge {
                let merged = try LabeledConflicts.naming(
                    theirs: "yours (the file as you have it)", ours: "the agent's proposal"
                ) { try store.mergeProposal(id) }
                return try ChangeRenderer.render(
                    merged, verb: "merged into", options: output,
                    base: workspace.pathBase(store.workspace))
            }
            guard let proposal = store.proposals.proposal(id) else {
                throw NotesError(
                    .notFound, "no pending proposal '\(id)'", hint: "list them with `notes review`")
            }
            if output.json {
                return Terminal.write(try JSONOutput.document(base.display(proposal)))
            }
            Terminal.write(
                Terminal.style(
                    "\(proposal.id) · \(base.display(proposal.path)) · by \(proposal.actor.rawValue) (\(proposal.client)) · \(proposal.reason)\n",
                    .dim))
            let change = store.proposedChange(proposal)
            if change.fileChangedSince {
                Terminal.write(
                    Terminal.style(
                        "the file changed since the agent saw it: this is the agent's change to that version; `--merge` combines it with the file's changes, `--accept` would refuse\n",
                        .yellow))
            }
            Terminal.write(
                change.diff.isEmpty
                    ? "the proposal matches the file\n" : coloredDiff(change.diff) + "\n")
        }
    }
}
