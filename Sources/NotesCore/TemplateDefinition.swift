import Foundation
import Yams

/// One template of the catalog (docs/spec.md §8.3): a file or a folder of files, where it goes, and
/// the variables it takes.
public struct TemplateDefinition: Encodable, Sendable, Equatable {
    public var name: String
    public var description: String
    /// Workspace-relative target path, itself a template (`Research/{{slug}}`).
    public var target: String
    /// A folder template creates several files below its target folder.
    public var isFolder: Bool
    public var variables: [TemplateVariable]
    /// Where its text is (absolute); not shown to agents.
    var sourcePath: String

    enum CodingKeys: String, CodingKey {
        case name, description, target, variables
        case isFolder = "folder"
    }
}
