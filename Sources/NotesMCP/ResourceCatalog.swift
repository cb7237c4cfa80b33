import Foundation
import MCP
import NotesCore
import NotesIndex
import NotesSession
import NotesStore
import NotesTools

/// The workspace's files as MCP resources (docs/spec.md §7): `notes://context.md` first, then
/// every file the agent may see as `notes://PATH`, paged; reading one is `read_file`.
struct ResourceCatalog {
    let toolbox: Toolbox

    static let scheme = "notes://"

    static func uri(_ path: String) -> String {
        scheme + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
    }

    func page(cursor: String?, size: Int) throws -> ListResources.Result {
        let start =
            try cursor.map { raw -> Int in
                guard let n = Int(raw), n >= 0 else {
                    throw MCPError.invalidParams("unknown cursor '\(raw)'")
                }
                return n
            } ?? 0
        try toolbox.followWorkspace()
        try toolbox.refreshIndex()
        let policy = toolbox.workspace.config.policy
        let files = try toolbox.index.listing(folder: "", recursive: true, glob: nil, sort: .path)
            .files
            .filter { policy.rule(for: $0.path) != .deny }
        var resources: [Resource] = []
        if start == 0 {
            let context = files.first { $0.path == ContextFacts.path }
            resources.append(
                Resource(
                    name: "context.md", uri: Self.uri(ContextFacts.path),
                    title: "What the agent has learned about the person",
                    description:
                        "The agent's accumulated context (read it at the start of a session).",
                    mimeType: "text/markdown", size: context?.size))
        }
        let others = files.filter { $0.path != ContextFacts.path }
        let slice = others.dropFirst(start).prefix(size - resources.count)
        for file in slice {
            resources.append(
                Resource(
                    name: file.path, uri: Self.uri(file.path), title: file.title,
                    mimeType: Self.mimeType(file.path), size: file.size,
                    annotations: Resource.Annotations(lastModified: file.modified)))
        }
        let next = start + slice.count < others.count ? String(start + slice.count) : nil
        return ListResources.Result(resources: resources, nextCursor: next)
    }

    func read(uri: String) throws -> ReadResource.Result {
        guard uri.hasPrefix(Self.scheme) else {
            throw MCPError.invalidParams(
                "resource URIs look like notes://PATH, got \(uri.prefix(200))")
        }
        let encoded = String(uri.dropFirst(Self.scheme.count))
        let path = encoded.removingPercentEncoding ?? encoded
        do {
            try toolbox.followWorkspace()
            let result = try toolbox.store.read(try toolbox.agentPath(path), by: toolbox.author)
            return ReadResource.Result(contents: [
                .text(result.content, uri: uri, mimeType: Self.mimeType(path))
            ])
        } catch {
            if error.code == .notFound {
                throw MCPError.serverError(
                    code: -32002, message: "resource not found: \(uri.prefix(200))")
            }
            throw MCPError.invalidParams("\(error.code.rawValue): \(error.message)")
        }
    }

    static func mimeType(_ path: String) -> String {
        switch FileFormat(path: path) {
        case .markdown: "text/markdown"
        case .chat: "application/json"
        default: "text/plain"
        }
    }
}
