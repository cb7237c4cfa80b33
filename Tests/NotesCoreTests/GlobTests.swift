import Testing

@testable import NotesCore

@Suite struct GlobTests {
    @Test func starStaysInsideOneFolder() {
        #expect(Glob("Research/*/intro*").matches("Research/moby-dick/introduction.md"))
        #expect(!Glob("Research/*/intro*").matches("Research/moby-dick/sources/intro.md"))
        #expect(Glob("*.md").matches("notes.md"))
        #expect(!Glob("*.md").matches("a/notes.md"))
    }

    @Test func globstarCrossesFolders() {
        #expect(Glob("Research/**/*.md").matches("Research/a/b/c.md"))
        #expect(Glob("Research/**/*.md").matches("Research/c.md"))
        #expect(Glob("**").matches("anything/at/all"))
        #expect(Glob("Archive/**").matches("Archive/2020/x.md"))
    }

    @Test func questionMarkAndClasses() {
        #expect(Glob("2026-11-?1.md").matches("2026-11-21.md"))
        #expect(Glob("[abc]*.md").matches("b.md"))
        #expect(!Glob("[!abc]*.md").matches("b.md"))
        #expect(Glob("x[0-9].txt").matches("x7.txt"))
    }

    @Test func caseInsensitiveWhenAsked() {
        #expect(Glob(".GIT/**", caseInsensitive: true).matches(".git/config"))
        #expect(!Glob(".GIT/**").matches(".git/config"))
    }

    @Test func literalsBetweenWildcardsMustAppear() {
        #expect(Glob("**/secrets/**").matches("a/secrets/b.md"))
        #expect(Glob("**/secrets/**").matches("secrets/b.md"))
        #expect(!Glob("**/secrets/**").matches("a/secret/b.md"))
        #expect(Glob("*x?ab*").matches("qxzab"))
        #expect(!Glob("*x?ab*").matches("qxzaab/ab"))
    }

    @Test func manyStarsStayFast() {
        let pattern = String(repeating: "*a", count: 40) + "b"
        let path = String(repeating: "a", count: 200)
        #expect(!Glob(pattern).matches(path))
    }
}

@Suite struct GlobPrefilterTests {
    /// The literal head/tail check before the dynamic program never changes an answer.
    @Test func prefilterAgreesWithTheDynamicProgram() {
        var g = SystemRandomNumberGenerator()
        let patternPieces = [
            "a", "b", ".", "/", "*", "**", "**/", "?", "[ab]", "[!a]", "x", ".pem", "git",
        ]
        let pathPieces = ["a", "b", ".", "/", "x", "ab", ".pem", "git", "é"]
        var matched = 0
        for _ in 0..<20_000 {
            let pattern = (0..<Int.random(in: 0...5, using: &g)).map { _ in
                patternPieces.randomElement(using: &g)!
            }.joined()
            let path = Array(
                (0..<Int.random(in: 0...6, using: &g)).map { _ in
                    pathPieces.randomElement(using: &g)!
                }.joined().utf8)
            let glob = Glob(pattern)
            let answer = glob.matches(bytes: path)
            #expect(
                answer == glob.matchesAfterPrefilter(path),
                "\(pattern) vs \(String(decoding: path, as: UTF8.self))")
            if answer { matched += 1 }
        }
        #expect(matched > 500)
    }
}
