import Foundation
import NotesCore

/// Proposals as one JSON file each in `.notes/proposals/`.
public struct ProposalStore: Sendable {
    let workspace: Workspace

    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    static let folder = [".notes", "proposals"]

    /// Stores a proposal and returns it with its new id (`p-YYYYMMDD-xxxx`).
    func save(
        path: String, operation: ChangeOperation, baseVersion: String?, content: String,
        author: Author, reason: String
    ) throws(NotesError) -> Proposal {
        let folder = try FolderHandle.openOwn(root: workspace.root, components: Self.folder)
        let now = Timestamp.now()
        let day = Timestamp.format(now).prefix(10).replacingOccurrences(of: "-", with: "")
        var id = ""
        repeat {
            id =
                "p-\(day)-" + String(UInt16.random(in: 0...UInt16.max), radix: 16).leftPadded(to: 4)
        } while FileSystem.exists(file(id))
        let proposal = Proposal(
            id: id, path: path, operation: operation, baseVersion: baseVersion, content: content,
            createdAt: Timestamp.format(now), actor: author.actor, client: author.client,
            reason: reason)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(proposal)) ?? Data()
        try folder.replace(id + ".json", with: Array(data) + [0x0A], mode: nil)
        return proposal
    }

    private func file(_ id: String) -> String { workspace.stateDirectory + "/proposals/\(id).json" }

    /// Pending proposals, oldest first.
    public func list() -> [Proposal] {
        let names =
            (try? FileManager.default.contentsOfDirectory(
                atPath: workspace.stateDirectory + "/proposals")) ?? []
        return names.filter { $0.hasSuffix(".json") }
            .compactMap { proposal(String($0.dropLast(5))) }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// The proposal `id`, if pending.
    public func proposal(_ id: String) -> Proposal? {
        guard !id.isEmpty, !id.contains("/"), !id.hasPrefix("."),
            let bytes = try? FileBytes.read(path: file(id), maxBytes: 64 << 20)
        else { return nil }
        return try? JSONDecoder().decode(Proposal.self, from: Data(bytes))
    }

    /// Removes a proposal once it has been accepted or rejected.
    func remove(_ id: String) throws(NotesError) {
        let folder = try FolderHandle.openOwn(root: workspace.root, components: Self.folder)
        try folder.remove(id + ".json")
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
