import Foundation
import Yams

/// A front-matter value as written: a scalar's text, a list of scalars, or something
/// nested (kept only as a marker; nested values are not interpreted).
public enum FrontMatterValue: Hashable, Sendable {
    case scalar(String)
    case list([String])
    case nested

    /// The value's strings (one for a scalar, each item for a list).
    public var strings: [String] {
        switch self {
        case .scalar(let s): return [s]
        case .list(let items): return items
        case .nested: return []
        }
    }
}
