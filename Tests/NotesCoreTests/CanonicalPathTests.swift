import NotesTestSupport
import Testing

@testable import NotesCore

@Suite struct CanonicalPathTests {
    /// The ASCII shortcut in `canonical` must give what full Unicode normalisation gives.
    @Test func asciiCanonicalFormEqualsTheUnicodeOne() {
        var random = SeededGenerator(seed: 77)
        let alphabet = Array("aZ09./-_~ GiT~1.gitSecrets\\#%".unicodeScalars)
        var checked = 0
        for _ in 0..<5_000 {
            var path = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...24, using: &random) {
                path.append(alphabet.randomElement(using: &random)!)
            }
            let text = String(path)
            #expect(PathPolicy.canonical(text) == PathPolicy.canonicalUnicode(text), "\(text)")
            checked += 1
        }
        for text in ["GIT~1/config", "a/Git~1/b", "git~1", "x/git~10", "Research/Moby.MD"] {
            #expect(PathPolicy.canonical(text) == PathPolicy.canonicalUnicode(text), "\(text)")
        }
        #expect(PathPolicy.canonical("GIT~1/Config") == ".git/config")
        #expect(checked == 5_000)
    }
}
