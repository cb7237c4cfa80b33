import NotesCore
import Testing

@Suite struct FrontMatterTests {
    func split(_ text: String) -> FrontMatterBlock.Split { FrontMatterBlock.split(Array(text.utf8)) }

    @Test func findsTheBlockWithDashesOrDotsClosers() {
        guard case .present(let block) = split("---\ntitle: A\n---\nbody\n") else { Issue.record("no block"); return }
        #expect(block.lineCount == 3)
        #expect(block.bodyOffset == 17)
        guard case .present(let dots) = split("---\ntitle: A\n...\nbody\n") else { Issue.record("no block"); return }
        #expect(dots.lineCount == 3)
    }

    @Test func acceptsBOMAndCRLF() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("---\r\ntitle: A\r\n---\r\nbody\r\n".utf8)
        guard case .present(let block) = FrontMatterBlock.split(bytes) else { Issue.record("no block"); return }
        #expect(Array(bytes[block.yaml]) == Array("title: A\r\n".utf8))
        #expect(block.bodyOffset == bytes.count - 6)
    }

    @Test func reportsUnterminatedAndIgnoresOtherOpenings() {
        #expect(split("---\ntitle: A\nno close\n") == .unterminated)
        #expect(split("# Title\n---\n") == .none)
        #expect(split("----\nx\n----\n") == .none)
        #expect(split("") == .none)
    }

    @Test func keepsScalarsAsWritten() throws {
        let fm = try FrontMatter.parse(Array("created_at: 2024-01-15\nzip: 01234\nversion: 1.10\ndraft: no\n".utf8))
        #expect(fm["created_at"] == .scalar("2024-01-15"))
        #expect(fm["zip"] == .scalar("01234"))
        #expect(fm["version"] == .scalar("1.10"))
        #expect(fm["draft"] == .scalar("no"))
        #expect(fm.fields.map(\.key) == ["created_at", "zip", "version", "draft"])
    }

    @Test func readsTitleTagsAndProvenance() throws {
        let fm = try FrontMatter.parse(Array("""
            title: Moby
            tags: [whales, "#sea"]
            created_by: agent
            created_at: 2026-11-18T09:12:00Z
            last_modified_by: User
            """.utf8))
        #expect(fm.title == "Moby")
        #expect(fm.tags == ["whales", "sea"])
        #expect(fm.provenance == Provenance(createdBy: .agent, createdAt: "2026-11-18T09:12:00Z", lastModifiedBy: .user, lastModifiedAt: nil))
        let comma = try FrontMatter.parse(Array("tags: a, b c\n".utf8))
        #expect(comma.tags == ["a", "b", "c"])
    }

    @Test func rejectsWhatIsNotAMapping() {
        #expect(throws: FrontMatter.Problem.notMapping) { try FrontMatter.parse(Array("- a\n- b\n".utf8)) }
        #expect(throws: FrontMatter.Problem.notMapping) { try FrontMatter.parse(Array("just a scalar\n".utf8)) }
        #expect(throws: (any Error).self) { try FrontMatter.parse(Array("title: [unclosed\n".utf8)) }
    }

    @Test func refusesHugeOrDeepFrontMatterWithoutParsing() {
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(throws: (any Error).self) { try FrontMatter.parse(Array("a: \(deep)\n".utf8)) }
        let big = String(repeating: "k: v\n", count: 100_000)
        #expect(throws: (any Error).self) { try FrontMatter.parse(Array(big.utf8)) }
    }

    @Test func aliasBombDoesNotExpand() throws {
        var yaml = "a: &a [x, x, x, x, x, x, x, x, x]\n"
        for i in 1..<9 { yaml += "a\(i): &a\(i) [" + Array(repeating: i == 1 ? "*a" : "*a\(i - 1)", count: 9).joined(separator: ", ") + "]\n" }
        yaml += "title: bomb\n"
        let fm = try FrontMatter.parse(Array(yaml.utf8))
        #expect(fm.title == "bomb")
    }

    @Test func emptyBlockIsAnEmptyMapping() throws {
        #expect(try FrontMatter.parse([UInt8]()).fields.isEmpty)
    }
}
