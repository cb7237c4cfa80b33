import Foundation

/// Paths to stat: strings, or C strings in memory their owner keeps alive.
enum StatPaths {
    case strings([String])
    case pointers([UnsafePointer<CChar>], AnyObject)

    var count: Int {
        switch self {
        case .strings(let paths): paths.count
        case .pointers(let paths, _): paths.count
        }
    }
}
