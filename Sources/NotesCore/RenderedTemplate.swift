import Foundation
import Yams

/// A template rendered for one title: the files to create, workspace-relative.
public struct RenderedTemplate: Sendable, Equatable {
    public var template: String
    /// The main file (a folder template's first file) or the folder.
    public var path: String
    public var files: [(path: String, text: String)]

    public static func == (a: RenderedTemplate, b: RenderedTemplate) -> Bool {
        a.template == b.template && a.path == b.path && a.files.map(\.path) == b.files.map(\.path)
            && a.files.map(\.text) == b.files.map(\.text)
    }
}
