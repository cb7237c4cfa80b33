import Testing

@testable import NotesCore

@Suite struct FrontMatterTests {
    func split(_ text: String) -> FrontMatterBlock.Split {
        FrontMatterBlock.split(Array(text.utf8))
    }

    @Test func findsTheBlockWithDashesOrDotsClosers() {
        guard case .present(let block) = split("---\ntitle: A\n---\nbody\n") else {
            Issue.record("no block")
            return
        }
        #expect(block.lineCount == 3)
        #expect(block.bodyOffset == 17)
        guard case .present(let dots) = split("---\ntitle: A\n...\nbody\n") else {
            Issue.record("no block")
            return
        }
        #expect(dots.lineCount == 3)
    }

    @Test func acceptsBOMAndCRLF() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("---\r\ntitle: A\r\n---\r\nbody\r\n".utf8)
        guard case .present(let block) = FrontMatterBlock.split(bytes) else {
            Issue.record("no block")
            return
        }
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
        let fm = try FrontMatter.parse(
            Array("created_at: 2024-01-15\nzip: 01234\nversion: 1.10\ndraft: no\n".utf8))
        #expect(fm["created_at"] == .scalar("2024-01-15"))
        #expect(fm["zip"] == .scalar("01234"))
        #expect(fm["version"] == .scalar("1.10"))
        #expect(fm["draft"] == .scalar("no"))
        #expect(fm.fields.map(\.key) == ["created_at", "zip", "version", "draft"])
    }

    @Test func readsTitleTagsAndProvenance() throws {
        let fm = try FrontMatter.parse(
            Array(
                """
                title: Moby
                tags: [whales, "#sea"]
                created_by: agent
                created_at: 2026-11-18T09:12:00Z
                last_modified_by: User
                """.utf8))
        #expect(fm.title == "Moby")
        #expect(fm.tags == ["whales", "sea"])
        #expect(
            fm.provenance
                == Provenance(
                    createdBy: .agent, createdAt: "2026-11-18T09:12:00Z", lastModifiedBy: .user,
                    lastModifiedAt: nil))
        let comma = try FrontMatter.parse(Array("tags: a, b c\n".utf8))
        #expect(comma.tags == ["a", "b", "c"])
    }

    @Test func rejectsWhatIsNotAMapping() {
        #expect(throws: FrontMatter.Problem.notMapping) {
            try FrontMatter.parse(Array("- a\n- b\n".utf8))
        }
        #expect(throws: FrontMatter.Problem.notMapping) {
            try FrontMatter.parse(Array("just a scalar\n".utf8))
        }
        #expect(throws: (any Error).self) {
            try FrontMatter.parse(Array("title: [unclosed\n".utf8))
        }
    }

    @Test func refusesHugeOrDeepFrontMatterWithoutParsing() {
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(throws: (any Error).self) { try FrontMatter.parse(Array("a: \(deep)\n".utf8)) }
        let big = String(repeating: "k: v\n", count: 100_000)
        #expect(throws: (any Error).self) { try FrontMatter.parse(Array(big.utf8)) }
    }

    @Test func aliasBombDoesNotExpand() throws {
        var yaml = "a: &a [x, x, x, x, x, x, x, x, x]\n"
        for i in 1..<9 {
            yaml +=
                "a\(i): &a\(i) ["
                + Array(repeating: i == 1 ? "*a" : "*a\(i - 1)", count: 9).joined(separator: ", ")
                + "]\n"
        }
        yaml += "title: bomb\n"
        let fm = try FrontMatter.parse(Array(yaml.utf8))
        #expect(fm.title == "bomb")
    }

    @Test func emptyBlockIsAnEmptyMapping() throws {
        #expect(try FrontMatter.parse([UInt8]()).fields.isEmpty)
    }
}

/// The plain reader (``FrontMatter/parsePlain``) must read exactly what Yams reads whenever
/// it answers at all, and must answer for the front matter notes actually carry.
@Suite struct PlainFrontMatterTests {
    static let keys = [
        "title", "tags", "created_by", "a", "x-y", "k.1", "_z", "1", "null", "é", "a b", "-k", "k:",
        "\"q\"", "&a k", "? k", "~",
    ]
    static let separators = [": ", ":", ":  ", " : ", ":\t", ": \t"]
    static let values = [
        "", "plain", "two words", "a  b", "x: y", "x:y", "x #c", "C#", "#c", "a,b", "a [b] {c}",
        "x:", "x :",
        "[a, b]", "[]", "[ ]", "[a, [b]]", "[a,,b]", "[ a ,b ]", "[a,]", "[a] x", "[a]]", "[a: b]",
        "[a#b]", "[#a]", "[-a]", "[a b]",
        "['x', \"y\"]", "['it''s']", "[\"a,b\"]", "['a' 'b']", "{a: b}",
        "'q'", "'it''s'", "'a' # c", "'open", "''", "\"q\"", "\"a\\nb\"", "\"\"", "\"a\"b\"",
        "'a'x",
        "&a x", "*a", "!t x", "|", ">-", "-", "- x", "-5", "...", "---", "=", "<x", ".5", "~", "%x",
        "@x", "`x`",
        "é ü", "😀", "a\u{0085}b", "a\u{2028}b", "\u{FEFF}x", "a\u{0090}", "null", "yes", "12:30",
        "2026-11-18T09:12:00Z", "x ", "a\u{7F}",
    ]
    static let otherLines = [
        "", "  ", "# comment", "  # c", "  indented: x", "...", "---", "\t", "x", "- a", "  - b",
        "-", "- ", "-  c", "- [x]",
        "- k: v", "  - - z", "   - q", "- 'q'", "- a # c", "  more text", "? x", "[a, b]",
    ]

    static func randomYAML(_ g: inout some RandomNumberGenerator) -> String {
        var lines: [String] = []
        for _ in 0..<Int.random(in: 0...7, using: &g) {
            if Int.random(in: 0..<10, using: &g) < 6 {
                let key =
                    Int.random(in: 0..<4, using: &g) == 0
                    ? keys.randomElement(using: &g)! : keys[Int.random(in: 0..<7, using: &g)]
                let separator =
                    Int.random(in: 0..<5, using: &g) == 0
                    ? separators.randomElement(using: &g)! : ": "
                lines.append(key + separator + values.randomElement(using: &g)!)
            } else {
                lines.append(otherLines.randomElement(using: &g)!)
            }
        }
        let newline = Int.random(in: 0..<5, using: &g) == 0 ? "\r\n" : "\n"
        return lines.joined(separator: newline) + (Bool.random(using: &g) ? newline : "")
    }

    @Test func answersExactlyAsYamsDoesWheneverItAnswers() {
        var g = SystemRandomNumberGenerator()
        var answered = 0
        var declined = 0
        for _ in 0..<20_000 {
            let yaml = Self.randomYAML(&g)
            let bytes = Array(yaml.utf8)
            guard let plain = FrontMatter.parsePlain(bytes) else {
                declined += 1
                continue
            }
            answered += 1
            let yams: FrontMatter
            do {
                yams = try FrontMatter.parseWithYams(bytes)
            } catch {
                Issue.record(
                    "plain reader answered for text Yams refuses (\(error)): \(yaml.debugDescription)"
                )
                continue
            }
            #expect(plain.fields.map(\.key) == yams.fields.map(\.key), "\(yaml.debugDescription)")
            #expect(
                plain.fields.map(\.value) == yams.fields.map(\.value), "\(yaml.debugDescription)")
        }
        // Neither side of the comparison is empty.
        #expect(answered > 2_000)
        #expect(declined > 2_000)
    }

    @Test func readsWhatNotesCarry() throws {
        let typical = [
            "created_by: agent\ncreated_at: 2019-08-22T11:19:43Z\nlast_modified_by: agent\nlast_modified_at: 2019-08-26T20:59:33Z\ntags: [atmosphere, imaginary-holmes, indicated]\naliases: [lake africa write]\n",
            "created_by: user\r\ncreated_at: 2016-04-23T20:22:35Z\r\ntags: []\r\n",
            "id: bw4uolri1b8xz580xpq3ely\ntitle: 2022-05-10 New User Tuesday\ndesc: ''\nupdated: 1652377081645\ncreated: 1652376991319\n",
            "title: Whales\ntags:\n  - sea\n  - \"#whales\"\n# a comment\nstatus: draft\n",
            "title: Moby Dick — the whale\n",
        ]
        for yaml in typical {
            let bytes = Array(yaml.utf8)
            let plain = try #require(FrontMatter.parsePlain(bytes), "\(yaml.debugDescription)")
            let yams = try FrontMatter.parseWithYams(bytes)
            #expect(plain.fields.map(\.key) == yams.fields.map(\.key))
            #expect(plain.fields.map(\.value) == yams.fields.map(\.value))
        }
    }
}
