import Foundation
import NotesCore

/// Plain text of an HTML block: tags and comments removed, entities left as written.
enum HTMLText {
    static func strip(_ html: String) -> String {
        var out = ""
        var inTag = false
        var inComment = false
        let scalars = Array(html.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let s = scalars[i]
            if inComment {
                if s == "-", i + 2 < scalars.count, scalars[i + 1] == "-", scalars[i + 2] == ">" {
                    inComment = false
                    i += 3
                    continue
                }
                if s == "\n" { out.unicodeScalars.append(s) }
            } else if inTag {
                if s == ">" {
                    inTag = false
                    out += " "
                }
                if s == "\n" { out.unicodeScalars.append(s) }
            } else if s == "<" {
                if i + 3 < scalars.count, scalars[i + 1] == "!", scalars[i + 2] == "-",
                    scalars[i + 3] == "-"
                {
                    inComment = true
                    i += 4
                    continue
                }
                inTag = true
            } else {
                out.unicodeScalars.append(s)
            }
            i += 1
        }
        return out
    }
}
