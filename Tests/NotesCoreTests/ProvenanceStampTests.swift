import Foundation
import NotesCore
import NotesTestSupport
import Testing

@Suite struct ProvenanceStampTests {
    let agentNow: [(key: String, value: String)] = [
        ("created_by", "agent"), ("created_at", "2026-11-21T09:30:00Z"),
        ("last_modified_by", "agent"), ("last_modified_at", "2026-11-21T09:30:00Z"),
    ]

    func stamp(_ text: String, addBlock: Bool = false) -> String? {
        guard
            case .stamped(let bytes) = ProvenanceStamp.apply(
                agentNow, to: Array(text.utf8), addBlock: addBlock)
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func editsOnlyTheProvenanceLines() {
        let text = """
            ---
            # the person's comment
            title: 'Moby Dick'   # quoted
            tags: [whales, sea]
            created_by: user
            last_modified_by: user  # set by hand

            last_modified_at: 2024-01-15
            ---
            Body *stays*.

            """
        #expect(
            stamp(text) == """
                ---
                # the person's comment
                title: 'Moby Dick'   # quoted
                tags: [whales, sea]
                created_by: agent
                last_modified_by: agent  # set by hand

                last_modified_at: 2026-11-21T09:30:00Z
                created_at: 2026-11-21T09:30:00Z
                ---
                Body *stays*.

                """)
    }

    @Test func keepsCRLFAndBOM() {
        let text = "\u{FEFF}---\r\ntitle: A\r\ncreated_by: user\r\n---\r\nbody\r\n"
        let stamped = stamp(text)
        #expect(
            stamped
                == "\u{FEFF}---\r\ntitle: A\r\ncreated_by: agent\r\ncreated_at: 2026-11-21T09:30:00Z\r\nlast_modified_by: agent\r\nlast_modified_at: 2026-11-21T09:30:00Z\r\n---\r\nbody\r\n"
        )
    }

    @Test func addsABlockOnlyWhenAsked() {
        #expect(stamp("# Title\n") == nil)
        #expect(stamp("# Title\n", addBlock: true)?.hasPrefix("---\ncreated_by: agent\n") == true)
        #expect(
            stamp("\u{FEFF}# T\r\n", addBlock: true)?.hasPrefix(
                "\u{FEFF}---\r\ncreated_by: agent\r\n") == true)
    }

    @Test func neverRewritesMalformedOrUnusualFrontMatter() {
        for text in [
            "---\ntitle: [unclosed\n---\nbody\n",  // invalid YAML
            "---\n- a list\n---\nbody\n",  // not a mapping
            "---\ntitle: no close\nbody\n",  // unterminated
            "---\ncreated_by: user\ncreated_by: user\n---\n",  // duplicate key
            "---\n{title: flow, created_by: user}\n---\n",  // flow mapping
            "---\ncreated_at: >\n  2024-01-01\n---\n",  // multi-line value
        ] {
            #expect(stamp(text) == nil, "stamped: \(text)")
        }
    }

    /// Random front matter (keys, comments, quoting, flow lists, blank lines, CRLF, BOM)
    /// and random bodies: stamping keeps every non-provenance byte.
    @Test func propertyOnlyProvenanceLinesChange() {
        var rng = SeededGenerator(seed: 2026)
        let values = [
            "plain", "'single quoted: x'", "\"double # not comment\"", "[a, b]", "1.10",
            "2024-01-15", "yes", "~", "\"\"",
        ]
        let bodies = [
            "", "# Heading\n\nText with --- inside.\n", "---\nnot front matter\n",
            "café naïve 日本語\n", "no newline at end",
        ]
        var stampedCount = 0
        for _ in 0..<500 {
            let crlf = Bool.random(using: &rng)
            let bom = Bool.random(using: &rng)
            var lines: [String] = []
            for k in 0..<Int.random(in: 0...6, using: &rng) {
                switch Int.random(in: 0...5, using: &rng) {
                case 0: lines.append("# comment \(k)")
                case 1: lines.append("")
                case 2:
                    lines.append(
                        ProvenanceStamp.keys.randomElement(using: &rng)! + ": " + [
                            "user", "agent", "2024-01-01",
                        ].randomElement(using: &rng)!)
                default:
                    lines.append(
                        "key\(k): " + values.randomElement(using: &rng)!
                            + (Bool.random(using: &rng) ? "  # note" : ""))
                }
            }
            let nl = crlf ? "\r\n" : "\n"
            let body = bodies.randomElement(using: &rng)!.replacingOccurrences(of: "\n", with: nl)
            let text =
                (bom ? "\u{FEFF}" : "") + "---" + nl + lines.map { $0 + nl }.joined() + "---" + nl
                + body
            let original = Array(text.utf8)
            guard
                case .stamped(let result) = ProvenanceStamp.apply(
                    agentNow, to: original, addBlock: false)
            else { continue }
            stampedCount += 1
            // The body is byte-identical.
            guard case .present(let before) = FrontMatterBlock.split(original),
                case .present(let after) = FrontMatterBlock.split(result)
            else {
                Issue.record("block lost")
                continue
            }
            #expect(Array(original[before.bodyOffset...]) == Array(result[after.bodyOffset...]))
            // Every non-provenance line of the block is still there, in order, byte for byte.
            func others(_ bytes: [UInt8], _ block: FrontMatterBlock) -> [ArraySlice<UInt8>] {
                ByteLines(Array(bytes[block.yaml])).lines.filter { line in
                    !ProvenanceStamp.keys.contains { line.starts(with: Array(($0 + ":").utf8)) }
                }
            }
            #expect(others(original, before) == others(result, after))
            #expect(
                Array(result.prefix(before.yaml.lowerBound))
                    == Array(original.prefix(before.yaml.lowerBound)))
            // And the provenance reads as stamped.
            let parsed = try? FrontMatter.parse(result[after.yaml])
            #expect(
                parsed?.provenance
                    == Provenance(
                        createdBy: .agent, createdAt: "2026-11-21T09:30:00Z",
                        lastModifiedBy: .agent, lastModifiedAt: "2026-11-21T09:30:00Z"))
        }
        #expect(stampedCount > 300)
    }
}

@Suite struct PathPolicyTests {
    @Test func protectsEveryCaseNormalisationAndHiddenForm() {
        let policy = PathPolicy()
        for path in [
            ".git/config", ".GIT/config", ".g\u{200C}it/config", "git~1/config",
            ".git/hooks/post-commit", ".env", ".env.local",
            ".notes/config.yml", ".NOTES/x", "a/secrets/key.txt", "server.pem", "Keys/id.KEY",
            "sub/.git/config",
        ] {
            #expect(policy.isProtected(path), "\(path)")
            #expect(policy.rule(for: path) == .deny)
        }
        for path in ["notes.md", "Research/git/config.md", "environment.md", "secretsauce.md"] {
            #expect(!policy.isProtected(path), "\(path)")
        }
    }

    @Test func rulesMatchFromTheRootWithConfigBeforeDefaults() {
        let policy = PathPolicy(
            protected: ["Private/**"],
            rules: [("Research/**/sources/**", .read), ("Drafts/**", .ask)])
        #expect(policy.rule(for: "Journal/2026-11-21.md") == .append)
        #expect(policy.rule(for: "context.md") == .append)
        #expect(policy.rule(for: "Research/context.md") == .write)
        #expect(policy.rule(for: "Research/moby/sources/a.md") == .read)
        #expect(policy.rule(for: "Drafts/x.md") == .ask)
        #expect(policy.rule(for: "private/diary.md") == .deny)
        #expect(PathPolicy.canonical("Cafe\u{301}/X.md") == "café/x.md")
    }
}

@Suite struct ConfigPolicyTests {
    @Test func readsPolicyProtectedAndLimits() {
        let config = WorkspaceConfig.parse(
            """
            protected:
              - "Private/**"
            policy:
              "Drafts/**": ask
              "Research/**": bogus
            limits:
              write_max_bytes: 1000
            stamp_existing_files: true
            """, sourcePath: "c.yml")
        #expect(config.policy.rule(for: "Drafts/a.md") == .ask)
        #expect(config.policy.isProtected("Private/a.md"))
        #expect(config.writeMaxBytes == 1000)
        #expect(config.stampExistingFiles)
        #expect(config.diagnostics.count == 1)
        #expect(config.diagnostics.first?.line == 5)
    }
}
