import Foundation
import NotesCore
import NotesIndex
import NotesSession
import NotesStore
import NotesTestSupport
import NotesTools
import Testing

/// A toolbox over a scratch workspace with a real index.
final class ToolboxFixture {
    let folder = TemporaryDirectory(prefix: "notes-tools")
    let indexFolder = TemporaryDirectory(prefix: "notes-tools-index")
    let toolbox: Toolbox

    init(files: [String: String] = [:], config: String = "# defaults\n", readOnly: Bool = false)
        throws
    {
        folder.write(".notes/config.yml", config)
        for (path, text) in files { folder.write(path, text) }
        let workspace = try Workspace(root: folder.path)
        toolbox = Toolbox(
            session: try WorkspaceSession(workspace: workspace, indexDirectory: indexFolder.path),
            client: "unit-test", readOnly: readOnly)
    }

    func text(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + path))).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// A successful call's result object.
    func ok(_ tool: String, _ arguments: [String: JSONValue] = [:]) throws -> [String: JSONValue] {
        let outcome = toolbox.call(tool, arguments: arguments)
        #expect(!outcome.isError, "\(tool) failed: \(outcome.text)")
        guard case .object(let object) = try JSONValue.parse(outcome.json) else {
            throw NotesError(.internal, "not an object")
        }
        return object
    }

    /// A failing call's error code.
    func code(_ tool: String, _ arguments: [String: JSONValue] = [:]) -> String? {
        let outcome = toolbox.call(tool, arguments: arguments)
        #expect(outcome.isError, "\(tool) should fail: \(outcome.text)")
        return outcome.errorCode
    }
}

@Suite struct ToolArgumentTests {
    @Test func unknownMissingAndMistypedArgumentsAreInvalid() throws {
        let f = try ToolboxFixture(files: ["a.md": "# A\n\nalpha\n"])
        #expect(
            f.code("read_file", ["path": .string("a.md"), "mode": .string("raw")])
                == "invalid_argument")
        #expect(f.code("read_file") == "invalid_argument")
        #expect(f.code("read_file", ["path": .int(1)]) == "invalid_argument")
        #expect(
            f.code("read_file", ["path": .string("a.md"), "limit": .double(2.5)])
                == "invalid_argument")
        #expect(
            f.code("search", ["query": .string("alpha"), "kind": .string("poem")])
                == "invalid_argument")
        #expect(
            f.code("search", ["query": .string("alpha"), "tags": .array([.int(3)])])
                == "invalid_argument")
        #expect(
            f.code(
                "edit_file",
                [
                    "path": .string("a.md"), "expected_version": .string("x"),
                    "edits": .array([.object(["old_text": .string("alpha")])]),
                ]) == "invalid_argument")
        #expect(f.code("frobnicate") == "invalid_argument")
        // A whole number sent as a double is accepted (some clients encode all numbers so).
        let page = try f.ok("read_file", ["path": .string("a.md"), "limit": .double(1)])
        #expect(page["lines"] == .int(1))
    }

    @Test func nestingPastTheLimitIsRefusedBeforeAnythingRuns() throws {
        let f = try ToolboxFixture()
        var deep = JSONValue.string("x")
        for _ in 0..<40 { deep = .array([deep]) }
        #expect(
            f.code(
                "write_file",
                ["path": .string("n.md"), "content": .string("x"), "expected_version": deep])
                == "invalid_argument")
        #expect(f.text("n.md") == nil)
    }

    @Test func contentOverTheWriteLimitIsTooLarge() throws {
        let f = try ToolboxFixture(config: "limits:\n  write_max_bytes: 1000\n")
        #expect(
            f.code(
                "write_file",
                [
                    "path": .string("big.md"),
                    "content": .string(String(repeating: "x", count: 1001)),
                ]) == "too_large")
        #expect(
            f.code(
                "append_file",
                [
                    "path": .string("big.md"),
                    "content": .string(String(repeating: "x", count: 1001)),
                ]) == "too_large")
        #expect(f.text("big.md") == nil)
    }

    @Test func errorsCarryTheGuardsDataFlattened() throws {
        let f = try ToolboxFixture(files: ["a.md": "# A\n\nalpha\n"])
        let outcome = f.toolbox.call(
            "write_file", arguments: ["path": .string("a.md"), "content": .string("new")])
        guard case .object(let error) = try JSONValue.parse(outcome.json) else {
            Issue.record("not an object")
            return
        }
        #expect(error["code"] == .string("read_required"))
        #expect(error["message"] != nil)
        #expect(error["path"] == .string("a.md"))
    }

    @Test func readOnlyToolboxOffersOnlyReadingTools() throws {
        let f = try ToolboxFixture(files: ["a.md": "# A\n"], readOnly: true)
        #expect(
            Set(f.toolbox.tools.map(\.name)) == [
                "read_file", "read_files", "list_files", "search", "related", "file_history",
                "get_context", "list_templates", "list_proposals",
            ])
        let outcome = f.toolbox.call(
            "append_file", arguments: ["path": .string("a.md"), "content": .string("x")])
        #expect(outcome.errorCode == "invalid_argument")
        #expect(outcome.text.contains("read-only"))
        #expect(f.text("a.md") == "# A\n")
    }

    @Test func everySchemaDeclaresItsArgumentsAndForbidsOthers() {
        var seen: [String: String] = [:]
        for tool in ToolCatalog.all {
            guard case .object(let schema) = tool.inputSchema,
                case .object(let properties)? = schema["properties"]
            else {
                Issue.record("\(tool.name) has no properties")
                continue
            }
            #expect(Set(properties.keys) == tool.parameterNames, "\(tool.name)")
            #expect(schema["additionalProperties"] == .bool(false))
            for (name, property) in properties {
                guard case .object(let fields) = property else {
                    Issue.record("\(tool.name).\(name) has no schema")
                    continue
                }
                // Described once where it is needed (issue 32: tools/list small, no
                // description repeated); a plain name and type need none.
                if case .string(let description)? = fields["description"] {
                    #expect(description.count > 10, "\(tool.name).\(name)")
                    #expect(
                        seen.updateValue("\(tool.name).\(name)", forKey: description) == nil,
                        "\(tool.name).\(name) repeats a description")
                }
            }
        }
        // The shared arguments are explained somewhere.
        for shared in ["path", "expected_version", "confirm_user_edits", "on_conflict"] {
            #expect(
                seen.values.contains { $0.hasSuffix(".\(shared)") },
                "\(shared) is described nowhere")
        }
    }
}

@Suite struct AgentVisibilityTests {
    @Test func protectedAndDeniedFilesNeverShowUpInSearchOrListing() throws {
        let f = try ToolboxFixture(
            files: [
                "notes/open.md": "# Open\n\nplankton everywhere\n",
                "secrets/token.md": "plankton secret\n",
                "private/diary.md": "plankton diary\n",
                "keys/id.key": "plankton key\n",
            ], config: "policy:\n  \"private/**\": deny\n")
        let hits = try f.ok("search", ["query": .string("plankton")])
        guard case .array(let list)? = hits["hits"] else {
            Issue.record("no hits array")
            return
        }
        let paths = list.compactMap { hit -> String? in
            if case .object(let o) = hit, case .string(let p)? = o["path"] { return p }
            return nil
        }
        #expect(paths == ["notes/open.md"])
        let listing = try f.ok("list_files", ["recursive": .bool(true)])
        #expect(!"\(listing)".contains("secrets"))
        #expect(!"\(listing)".contains("private"))
        #expect(f.code("list_files", ["path": .string("private")]) == "protected_path")
        #expect(f.code("read_file", ["path": .string("private/diary.md")]) == "policy_denied")
        let root = try f.ok("list_files")
        #expect(!"\(root)".contains("private") && !"\(root)".contains("secrets"))
    }
}

@Suite struct RememberTests {
    @Test func factsAreAddedOnceAcrossPhrasingVariants() throws {
        let f = try ToolboxFixture()
        let first = try f.ok("remember", ["fact": .string("Prefers British spelling.")])
        #expect(first["duplicate"] == .bool(false))
        for variant in [
            "prefers british spelling", "  Prefers   British spelling!! ",
            "PREFERS BRITISH SPELLING", "Prefers British-spelling",
        ] {
            let again = try f.ok("remember", ["fact": .string(variant)])
            #expect(again["duplicate"] == .bool(true), "\(variant)")
        }
        let different = try f.ok(
            "remember",
            ["fact": .string("Prefers American spelling"), "section": .string("Preferences")])
        #expect(different["duplicate"] == .bool(false))
        let text = f.text("context.md") ?? ""
        #expect(text.components(separatedBy: "British spelling").count == 2)
        #expect(text.contains("## Learned\n\n- "))
        #expect(text.contains("## Preferences\n\n- "))
        #expect(text.contains("created_by: agent"))
    }

    @Test func aFactThePersonWroteIsAlreadyKnown() throws {
        let f = try ToolboxFixture(files: [
            "context.md": "# Context\n\n## About me <!-- user -->\n\n- I teach English.\n"
        ])
        let known = try f.ok("remember", ["fact": .string("I teach English")])
        #expect(known["duplicate"] == .bool(true))
        #expect(
            f.text("context.md") == "# Context\n\n## About me <!-- user -->\n\n- I teach English.\n"
        )
    }

    @Test func normalisationIgnoresMarkersDatesCaseAndPunctuation() {
        #expect(ContextFacts.normalised("- 2026-11-21: Likes whales.") == "likes whales")
        #expect(ContextFacts.normalised("3. likes   WHALES") == "likes whales")
        #expect(ContextFacts.normalised("* Likes whales!") == "likes whales")
        #expect(ContextFacts.normalised("Café au lait") == "café au lait")
        #expect(ContextFacts.normalised("...") == "")
    }
}

@Suite struct SessionContextTests {
    @Test func contextReportsThePersonsChangesAndItsOwnSize() throws {
        let big = "# Context\n\n" + String(repeating: "- a fact that takes some room\n", count: 40)
        let f = try ToolboxFixture(
            files: ["context.md": big, "Research/a.md": "# A\n"],
            config: "context:\n  max_bytes: 500\n")
        let context = try f.ok("get_context")
        guard case .object(let file)? = context["context"] else {
            Issue.record("no context")
            return
        }
        #expect(file["over_limit"] == .bool(true))
        #expect(file["note"] != nil)
        guard case .array(let changes)? = context["user_changes_since_last_session"] else {
            Issue.record("no changes")
            return
        }
        #expect("\(changes)".contains("Research/a.md"))
    }
}

@Suite struct UserSectionTests {
    static let context = """
        ---
        title: Context
        user_sections: ["Reading habits"]
        ---

        # Context

        ## About me <!-- user -->

        - I teach English.

        ## Learned

        - 2026-11-20: Likes whales.

        ## Reading habits

        - A chapter a night.
        """ + "\n"

    func fixture() throws -> ToolboxFixture {
        try ToolboxFixture(
            files: [
                "context.md": Self.context,
                "other.md": "# Other\n\n## Mine <!-- user -->\n\nkeep\n",
            ],
            config: "policy:\n  \"context.md\": write\n")
    }

    func version(_ f: ToolboxFixture, _ path: String) throws -> JSONValue {
        try f.ok("read_file", ["path": .string(path)])["version"] ?? .null
    }

    @Test func theAgentNeverChangesThePersonsSections() throws {
        let f = try fixture()
        func unchanged() {
            let text = f.text("context.md") ?? ""
            #expect(text.contains("## About me <!-- user -->\n\n- I teach English.\n\n## Learned"))
            #expect(text.hasSuffix("## Reading habits\n\n- A chapter a night.\n"))
        }
        // remember into the person's section, by marker or by front matter
        #expect(
            f.code("remember", ["fact": .string("Teaches maths"), "section": .string("About me")])
                == "policy_denied")
        #expect(
            f.code(
                "remember", ["fact": .string("Reads fast"), "section": .string("reading habits")])
                == "policy_denied")
        // append under their heading, or at the end while their section is last
        #expect(
            f.code(
                "append_file",
                [
                    "path": .string("context.md"), "content": .string("- x"),
                    "section": .string("About me"),
                ]) == "policy_denied")
        #expect(
            f.code("append_file", ["path": .string("context.md"), "content": .string("- x")])
                == "policy_denied")
        // edit a line of theirs
        let v = try version(f, "context.md")
        #expect(
            f.code(
                "edit_file",
                [
                    "path": .string("context.md"), "expected_version": v,
                    "edits": .array([
                        .object([
                            "old_text": .string("I teach English."),
                            "new_text": .string("I teach maths."),
                        ])
                    ]),
                ]) == "policy_denied")
        // rewrite the whole file without their sections, even with merge or a confirmation
        let rewrite = "# Context\n\n## Learned\n\n- 2026-11-20: Likes whales.\n"
        for extra: [String: JSONValue] in [
            [:], ["on_conflict": .string("merge")], ["confirm_user_edits": .bool(true)],
        ] {
            var args: [String: JSONValue] = [
                "path": .string("context.md"), "content": .string(rewrite), "expected_version": v,
            ]
            args.merge(extra) { $1 }
            // merge: their sections conflict with the rewrite, or the merged text would drop them
            let code = f.code("write_file", args)
            #expect(
                code == "policy_denied"
                    || (extra["on_conflict"] != nil && code == "merge_conflict"),
                "\(extra): \(code ?? "nil")")
        }
        #expect(
            f.code(
                "delete_file",
                [
                    "path": .string("context.md"), "expected_version": v,
                    "confirm_user_edits": .bool(true),
                ]) == "policy_denied")
        unchanged()
        // Its own section stays open to the agent.
        _ = try f.ok("remember", ["fact": .string("Prefers passages")])
        _ = try f.ok(
            "edit_file",
            [
                "path": .string("context.md"), "expected_version": try version(f, "context.md"),
                "edits": .array([
                    .object([
                        "old_text": .string("Prefers passages"),
                        "new_text": .string("Prefers passages to summaries"),
                    ])
                ]),
            ])
        unchanged()
        #expect(f.text("context.md")?.contains(": Prefers passages to summaries\n") == true)
        // Any Markdown file's marked section is the person's.
        let ov = try version(f, "other.md")
        #expect(
            f.code(
                "edit_file",
                [
                    "path": .string("other.md"), "expected_version": ov,
                    "edits": .array([
                        .object(["old_text": .string("keep"), "new_text": .string("gone")])
                    ]),
                ]) == "policy_denied")
    }

    @Test func thePersonMayChangeTheirSectionsAndTheAgentThenKeepsThem() throws {
        let f = try fixture()
        f.folder.write(
            "context.md",
            Self.context.replacingOccurrences(
                of: "I teach English.", with: "I teach English and drama."))
        _ = try f.ok("remember", ["fact": .string("Runs a drama club")])
        #expect(
            f.text("context.md")?.contains("- I teach English and drama.\n\n## Learned") == true)
    }
}

@Suite struct TemplateTests {
    static let library = TemplateLibrary(directory: Repository.root + "/templates")

    @Test func everyShippedTemplateRendersWithAndWithoutItsOptionalVariables() throws {
        let catalog = try TemplateCatalog.load(library: Self.library, workspace: nil)
        #expect(
            catalog.templates.map(\.name) == [
                "research", "introduction", "source", "journal", "context",
            ])
        for template in catalog.templates {
            let all = Dictionary(
                uniqueKeysWithValues: template.variables.map { ($0.name, "VALUE-\($0.name)") })
            for values in [[:], all] {
                let rendered = try catalog.render(
                    template.name, title: "Moby Dick", variables: values, actor: .agent,
                    now: 1_763_700_000)
                #expect(!rendered.files.isEmpty)
                // Every optional variable given shows up somewhere in what was rendered.
                if !values.isEmpty {
                    let everything = rendered.files.map(\.text).joined()
                    for name in values.keys {
                        #expect(everything.contains("VALUE-\(name)"), "\(template.name): \(name)")
                    }
                }
                for file in rendered.files {
                    #expect(
                        !file.text.contains("{{") && !file.text.contains("}}"),
                        "\(template.name) \(file.path)")
                    #expect(
                        !file.text.contains("\n\n\n"),
                        "\(template.name) \(file.path): a blank line left by a section")
                    if file.path.hasSuffix(".md") && !file.text.isEmpty {
                        if case .present(let block) = FrontMatterBlock.split(Array(file.text.utf8))
                        {
                            #expect(throws: Never.self) {
                                _ = try FrontMatter.parse(Array(file.text.utf8)[block.yaml])
                            }
                        }
                    }
                    if values.isEmpty { #expect(!file.text.contains("VALUE-")) }
                }
            }
        }
    }

    @Test func sectionsRenderOnlyWhenTheirVariableIsSet() {
        let text = TemplateText(
            "a\n{{#x}}\nx is {{x}}\n{{/x}}\n{{^x}}\nno x\n{{/x}}\nb {{#y}}[{{y}}]{{/y}}c\n")
        #expect(text.render(["x": "1", "y": "2"]) == "a\nx is 1\nb [2]c\n")
        #expect(text.render([:]) == "a\nno x\nb c\n")
        #expect(text.sectionNames == ["x", "y"])
        #expect(!text.variables.contains { $0.hasPrefix("#") || $0.hasPrefix("/") })
    }

    @Test func theAgentCreatesFromTemplatesWithProvenance() throws {
        let folder = TemporaryDirectory(prefix: "notes-tools")
        let index = TemporaryDirectory(prefix: "notes-tools-index")
        folder.write(".notes/config.yml", "# defaults\n")
        let workspace = try Workspace(root: folder.path)
        let toolbox = Toolbox(
            session: try WorkspaceSession(workspace: workspace, indexDirectory: index.path),
            client: "t", templates: Self.library)
        let made = toolbox.call(
            "new_from_template",
            arguments: [
                "template": .string("research"),
                "variables": .object(["title": .string("Moby Dick")]),
            ])
        #expect(!made.isError, "\(made.text)")
        let intro =
            (try? String(
                contentsOfFile: folder.path + "/Research/moby-dick/introduction.md", encoding: .utf8
            )) ?? ""
        #expect(intro.contains("created_by: agent"))
        #expect(FileSystem.isDirectory(folder.path + "/Research/moby-dick/sources"))
        let again = toolbox.call(
            "new_from_template",
            arguments: [
                "template": .string("research"),
                "variables": .object(["title": .string("Moby Dick")]),
            ])
        #expect(again.errorCode == "invalid_argument" && again.text.contains("already exists"))
        #expect(
            toolbox.call("new_from_template", arguments: ["template": .string("research")])
                .errorCode == "invalid_argument")
        #expect(
            toolbox.call(
                "new_from_template",
                arguments: [
                    "template": .string("nope"), "variables": .object(["title": .string("x")]),
                ]
            ).errorCode == "not_found")
        // Templates cannot be used to write where the agent may not.
        #expect(
            toolbox.call(
                "new_from_template",
                arguments: [
                    "template": .string("introduction"), "path": .string(".git/x.md"),
                    "variables": .object(["title": .string("x")]),
                ]
            ).errorCode == "protected_path")
        let listed = toolbox.call("list_templates", arguments: [:])
        #expect(listed.text.contains("\"research\"") && listed.text.contains("\"question\""))
        #expect(!listed.text.contains(Repository.root), "no absolute paths in the answer")
    }
}
