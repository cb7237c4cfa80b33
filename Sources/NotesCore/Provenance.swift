/// The four provenance keys of the shared-workspace convention (docs/spec.md §3.1).
///
/// Timestamps are kept as written (ISO 8601 text) so that output shows what the file says;
/// ``Timestamp/parse(_:)`` turns them into instants for filters and sorting.
public struct Provenance: Hashable, Sendable, Codable {
    public var createdBy: Actor?
    public var createdAt: String?
    public var lastModifiedBy: Actor?
    public var lastModifiedAt: String?

    public init(
        createdBy: Actor? = nil, createdAt: String? = nil, lastModifiedBy: Actor? = nil,
        lastModifiedAt: String? = nil
    ) {
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.lastModifiedBy = lastModifiedBy
        self.lastModifiedAt = lastModifiedAt
    }

    enum CodingKeys: String, CodingKey {
        case createdBy = "created_by", createdAt = "created_at"
        case lastModifiedBy = "last_modified_by", lastModifiedAt = "last_modified_at"
    }

    /// The provenance a reader should believe (docs/spec.md §3.1 "effective provenance").
    ///
    /// What the front matter says, completed from the file itself: a file that carries no
    /// provenance was put there by the person (every agent write goes through the tool and
    /// is stamped), so it reads as `user`, last modified at its mtime. When the tool knows
    /// the bytes it last wrote and the file differs (`editedOutsideTool`), the person edited
    /// it: `last_modified_by` is `user` at the file's mtime.
    public func effective(mtimeSeconds: Double, editedOutsideTool: Bool = false) -> Provenance {
        var result = self
        if result.createdBy == nil { result.createdBy = .user }
        if editedOutsideTool || result.lastModifiedBy == nil {
            result.lastModifiedBy = .user
            result.lastModifiedAt = Timestamp.format(mtimeSeconds)
        } else if result.lastModifiedAt == nil {
            result.lastModifiedAt = Timestamp.format(mtimeSeconds)
        }
        return result
    }
}
