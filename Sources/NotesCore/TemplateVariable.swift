import Foundation
import Yams

/// A variable a template takes beyond the built-in ones.
public struct TemplateVariable: Codable, Sendable, Equatable {
    public var name: String
    public var description: String
    public var required: Bool
}
