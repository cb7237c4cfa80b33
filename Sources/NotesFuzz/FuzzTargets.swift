import Foundation
import NotesCore
import NotesIndex
import NotesTools

/// The fuzz targets (docs/reliability.md). Each takes arbitrary bytes, runs them through
/// one parser of untrusted input and traps on a broken invariant; a thrown `NotesError`
/// with a stable code is a correct answer, not a finding.
enum FuzzTarget: String, CaseIterable {
    /// The query language → FTS5 MATCH, run against a real index: SQLite must never reject
    /// what the translator produced.
    case query
    /// Front matter split, parse and provenance stamping: the body is never changed.
    case frontmatter
    /// MCP tool arguments: JSON → the typed argument decoder of every tool.
    case arguments

    func run(_ bytes: [UInt8]) {
        switch self {
        case .query: Self.query(bytes)
        case .frontmatter: Self.frontMatter(bytes)
        case .arguments: Self.arguments(bytes)
        }
    }

    // MARK: query

    /// A small real index, made once per process.
    nonisolated(unsafe) static var index: NoteIndex?

    static func sharedIndex() -> NoteIndex {
        if let index { return index }
        let folder = NSTemporaryDirectory() + "notes-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(
            atPath: folder + "/ws/Research", withIntermediateDirectories: true)
        try?
            "---\ntitle: Whale notes\ntags: [sea, ships]\n---\n# Whale\n\nThe white whale and the sea.\n"
            .write(toFile: folder + "/ws/Research/whale.md", atomically: true, encoding: .utf8)
        try? "# Journal\n\nA day at sea with \"quotes\" and NEAR(words) col:x -y ^z *.\n".write(
            toFile: folder + "/ws/journal.md", atomically: true, encoding: .utf8)
        do {
            let made = try NoteIndex(
                workspace: try Workspace(root: folder + "/ws"), directory: folder + "/index")
            _ = try made.refresh()
            index = made
            return made
        } catch {
            fatalError("fuzz setup: \(error)")
        }
    }

    static func query(_ bytes: [UInt8]) {
        let text = String(decoding: bytes.prefix(100_000), as: UTF8.self)
        let index = sharedIndex()
        let query: SearchQuery
        do {
            query = try SearchQuery(
                parsing: text, isMetadataKey: { _ in false }, now: 1_800_000_000)
        } catch {
            // Bad syntax is `invalid_argument`; a folder filter that leaves the workspace
            // (`in:/etc`, `in:../x`) is `outside_workspace`, as for any path (docs/spec.md §10).
            guard error.code == .invalidArgument || error.code == .outsideWorkspace else {
                fatalError("query parse: unexpected \(error.code): \(error.message)")
            }
            return
        }
        do {
            _ = try index.search(query)
        } catch {
            // Text with no word to search for is refused as such, by design.
            if error.code == .invalidArgument && query.terms.isEmpty { return }
            // The translator let through something FTS5 rejects: a finding.
            fatalError("search failed for \(text.debugDescription.prefix(300)): \(error.message)")
        }
    }

    // MARK: front matter

    static func frontMatter(_ bytes: [UInt8]) {
        let input = Array(bytes.prefix(1 << 20))
        let split = FrontMatterBlock.split(input)
        if case .present(let block) = split {
            precondition(
                block.yaml.lowerBound >= 0 && block.yaml.upperBound <= block.bodyOffset
                    && block.bodyOffset <= input.count, "block out of range")
            _ = try? FrontMatter.parse(input[block.yaml])
        }
        let values = [
            (key: "last_modified_by", value: "agent"),
            (key: "last_modified_at", value: "2026-01-01T00:00:00Z"),
        ]
        let outcome = ProvenanceStamp.apply(values, to: input, addBlock: true)
        guard case .stamped(let stamped) = outcome else { return }
        // The body after the front matter is byte-identical, and the stamp reads back.
        guard case .present(let after) = FrontMatterBlock.split(stamped) else {
            fatalError("stamped bytes have no front matter block")
        }
        let body: ArraySlice<UInt8>
        if case .present(let before) = split {
            body = input[before.bodyOffset...]
        } else {
            // a new block goes after the BOM
            body = input.starts(with: [0xEF, 0xBB, 0xBF]) ? input[3...] : input[...]
        }
        precondition(stamped[after.bodyOffset...].elementsEqual(body), "stamping changed the body")
        if let parsed = try? FrontMatter.parse(stamped[after.yaml]) {
            precondition(parsed.provenance.lastModifiedBy == .agent, "the stamp does not read back")
        }
    }

    // MARK: tool arguments

    static func arguments(_ bytes: [UInt8]) {
        guard bytes.count < 1 << 20, let value = try? JSONValue.parse(Data(bytes)),
            case .object(let values) = value
        else { return }
        for tool in ToolCatalog.all {
            let names = Set(tool.parameters.map(\.name)).union(["edits", "variables"])
            guard let args = try? ToolArguments(tool: tool.name, values: values, parameters: names)
            else { continue }
            for parameter in tool.parameters {
                check { () throws(NotesError) in _ = try args.string(parameter.name) }
                check { () throws(NotesError) in _ = try args.int(parameter.name, in: 0...1_000) }
                check { () throws(NotesError) in _ = try args.bool(parameter.name) }
                check { () throws(NotesError) in _ = try args.strings(parameter.name) }
                check { () throws(NotesError) in _ = try args.stringMap(parameter.name) }
            }
            check { () throws(NotesError) in
                _ = try args.objects(
                    "edits", fields: ["old_text", "new_text"], maxCount: 64, maxBytes: 1 << 20)
            }
        }
    }

    /// A decoder may refuse, with a code an agent can act on; anything else is a finding.
    static func check(_ body: () throws(NotesError) -> Void) {
        do {
            try body()
        } catch {
            precondition(
                [.invalidArgument, .tooLarge].contains(error.code),
                "unexpected \(error.code): \(error.message)")
        }
    }
}

#if FUZZING
    /// libFuzzer's entry point; the target comes from `NOTES_FUZZ_TARGET`.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        FuzzTarget.selected.run(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    /// SwiftPM links executables with `main` aliased to `<module>_main`; hand control to libFuzzer's driver.
    @_cdecl("NotesFuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
        -> CInt
    {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
    }
#else
    /// Without libFuzzer: replays inputs (files or folders of files) through a target, the
    /// regression check CI runs on `fuzz/regressions/` and the seed corpus.
    ///
    ///   NotesFuzz TARGET PATH...
    @main
    struct ReplayInputs {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                FileHandle.standardError.write(
                    Data(
                        "usage: NotesFuzz {\(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|"))} FILE_OR_FOLDER...\n"
                            .utf8))
                exit(2)
            }
            var count = 0
            for path in arguments.dropFirst() {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                    continue
                }
                let files =
                    isFolder.boolValue
                    ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
                        .map { path + "/" + $0 } : [path]
                for file in files {
                    guard let data = FileManager.default.contents(atPath: file) else { continue }
                    target.run(Array(data))
                    count += 1
                }
            }
            print("\(target.rawValue): \(count) inputs replayed, no finding")
        }
    }
#endif

extension FuzzTarget {
    static var selected: FuzzTarget {
        guard let name = ProcessInfo.processInfo.environment["NOTES_FUZZ_TARGET"],
            let target = FuzzTarget(rawValue: name)
        else {
            fatalError(
                "set NOTES_FUZZ_TARGET to one of: \(allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return target
    }
}
