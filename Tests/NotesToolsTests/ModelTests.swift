import Foundation
import NotesCore
import NotesIndex
import NotesSession
import NotesStore
import NotesTestSupport
import NotesTools
import Testing

/// Property-based test of the write path (docs/guarantees.md G2, G3, G4, G8): random
/// sequences of agent tool calls (through the real `Toolbox`), the person's commands
/// (through `NoteStore`) and an editor writing files behind everyone's back, on a handful
/// of files, checked after every step against a model of what must hold:
///
/// - the person's lines are never removed by an agent call that did not carry
///   `confirm_user_edits` (every line the person adds is a fresh token, `P<n>`);
/// - a refused call leaves every file byte-identical;
/// - an agent call with a version that is not the file's, and no merge or proposal asked
///   for, is refused;
/// - the bytes every successful change replaced, and the bytes it left, are in history
///   (so any state can be brought back), and `restore` brings back exactly those bytes;
/// - search finds each token in exactly the files that hold it (index == files).
@Suite struct ModelTests {
    static let paths = ["a.md", "b.md", "notes/c.md", "notes/d.md", "deep/er/e.md"]

    static var seeds: [UInt64] {
        if let seed = ProcessInfo.processInfo.environment["NOTES_MODEL_SEED"].flatMap(UInt64.init) {
            return [seed]
        }
        return (1...UInt64(soakScaled(3, 200, campaign: 6))).map { $0 &* 7919 }
    }

    @Test(arguments: seeds)
    func randomOperationsKeepThePromises(seed: UInt64) throws {
        var run = try ModelRun(seed: seed)
        for step in 0..<soakScaled(250, 1_000) {
            try run.step(step)
            if run.failed { break }
        }
        #expect(run.steps > 0)
        print("model seed \(seed): \(run.summary)")
    }
}

/// One random run and the model it is checked against.
struct ModelRun {
    let folder = TemporaryDirectory(prefix: "notes-model")
    let indexFolder = TemporaryDirectory(prefix: "notes-model-index")
    let toolbox: Toolbox
    let store: NoteStore
    var random: SeededGenerator
    let seed: UInt64

    /// The version the agent last saw of each path, and the body it saw.
    var agentSeen: [String: (version: String, body: [String])] = [:]
    /// The person's tokens each file must keep against the agent.
    var personOwned: [String: Set<String>] = [:]
    var nextToken = 1
    var steps = 0
    var failed = false
    var counts: [String: Int] = [:]

    init(seed: UInt64) throws {
        self.seed = seed
        random = SeededGenerator(seed: seed)
        folder.write(".notes/config.yml", "# defaults\n")
        let workspace = try Workspace(root: folder.path)
        toolbox = Toolbox(
            session: try WorkspaceSession(workspace: workspace, indexDirectory: indexFolder.path),
            client: "model")
        store = NoteStore(workspace: workspace)
    }

    var summary: String {
        "\(steps) steps; "
            + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
                separator: ", ")
    }

    // MARK: The files

    func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: folder.path + "/" + path).map(Array.init)
    }

    func snapshot() -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for path in ModelTests.paths { result[path] = bytes(path) }
        return result
    }

    static func body(_ bytes: [UInt8]) -> [String] {
        var body = bytes
        if case .present(let block) = FrontMatterBlock.split(bytes) {
            body = Array(bytes[block.bodyOffset...])
        }
        return String(decoding: body, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: true
        ).map(String.init)
    }

    static func tokens(_ bytes: [UInt8]?, prefix: Character? = nil) -> Set<String> {
        guard let bytes else { return [] }
        return Set(
            body(bytes).filter { line in
                guard let first = line.first, first == "P" || first == "A",
                    line.dropFirst().allSatisfy(\.isNumber), line.count > 1
                else { return false }
                return prefix == nil || first == prefix
            })
    }

    mutating func token(_ prefix: String) -> String {
        defer { nextToken += 1 }
        return "\(prefix)\(nextToken)"
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

    // MARK: Checks

    mutating func fail(_ what: String, step: Int) {
        Issue.record("seed \(seed), step \(step): \(what)")
        failed = true
    }

    /// After a successful change at `path` that replaced `before`: both the old and the new
    /// bytes are in history.
    mutating func checkHistory(_ path: String, before: [UInt8]?, step: Int) {
        if let before, store.history.object(ContentVersion(of: before).short) == nil {
            fail("the bytes a change to \(path) replaced are not in history", step: step)
        }
        if let now = bytes(path), store.history.object(ContentVersion(of: now).short) == nil {
            fail("the current bytes of \(path) are not in history", step: step)
        }
    }

    /// The person's tokens are still where the model says they must be.
    mutating func checkPersonLines(step: Int, what: String) {
        for (path, owned) in personOwned {
            let missing = owned.subtracting(Self.tokens(bytes(path)))
            if !missing.isEmpty {
                fail(
                    "\(what) removed the person's lines \(missing.sorted()) from \(path)",
                    step: step)
            }
        }
    }

    /// Search finds a token in exactly the files that hold it.
    mutating func checkIndex(step: Int) throws {
        var holders: [String: Set<String>] = [:]
        for path in ModelTests.paths {
            for token in Self.tokens(bytes(path)) { holders[token, default: []].insert(path) }
        }
        guard !holders.isEmpty else { return }
        let token = pick(holders.keys.sorted())
        let outcome = toolbox.call(
            "search", arguments: ["query": .string(token), "limit": .int(20)])
        guard !outcome.isError,
            let answer = try JSONSerialization.jsonObject(with: outcome.json) as? [String: Any],
            let hits = answer["hits"] as? [[String: Any]]
        else {
            fail("search \(token) failed: \(outcome.text)", step: step)
            return
        }
        let found = Set(hits.compactMap { $0["path"] as? String })
        if found != holders[token] {
            fail(
                "search \(token) found \(found.sorted()), the files hold it in \(holders[token]!.sorted())",
                step: step)
        }
        counts["searches", default: 0] += 1
    }

    // MARK: Steps

    mutating func step(_ step: Int) throws {
        steps += 1
        let before = snapshot()
        switch random.next() % 100 {
        case 0..<14: agentRead()
        case 14..<30: try agentWrite(step, before)
        case 30..<38: try agentAppend(step, before)
        case 38..<48: try agentEdit(step, before)
        case 48..<52: try agentDelete(step, before)
        case 52..<56: try agentMove(step, before)
        case 56..<60: try agentRestore(step, before)
        case 60..<70: personWrite(step, before)
        case 70..<76: personAppend(step, before)
        case 76..<88: editorWrite(step, before)
        case 88..<92: personDelete(step, before)
        case 92..<96: personMove(step, before)
        default: personRestore(step, before)
        }
        try checkIndex(step: step)
    }

    mutating func agentRead() {
        let path = pick(ModelTests.paths)
        let outcome = toolbox.call("read_file", arguments: ["path": .string(path)])
        guard !outcome.isError,
            let answer = try? JSONSerialization.jsonObject(with: outcome.json) as? [String: Any],
            let version = answer["version"] as? String, let current = bytes(path)
        else { return }
        agentSeen[path] = (version, Self.body(current))
        counts["agent reads", default: 0] += 1
    }

    /// Calls an agent tool; on a refusal checks that nothing changed and that the code is
    /// one the call may give. Returns the answer on success.
    mutating func agentCall(
        _ tool: String, _ arguments: [String: JSONValue], step: Int, before: [String: [UInt8]],
        allowed: Set<String>
    ) throws -> [String: Any]? {
        let outcome = toolbox.call(tool, arguments: arguments)
        if outcome.isError {
            let code = outcome.errorCode ?? "?"
            counts["\(tool) refused \(code)", default: 0] += 1
            if !allowed.contains(code) {
                fail("\(tool) failed with \(code): \(outcome.text)", step: step)
            }
            if snapshot() != before {
                fail("\(tool) was refused (\(code)) but changed the files", step: step)
            }
            return nil
        }
        counts["\(tool) ok", default: 0] += 1
        return try JSONSerialization.jsonObject(with: outcome.json) as? [String: Any]
    }

    /// The version the agent will claim for `path`: usually what it saw, sometimes none.
    mutating func claimedVersion(_ path: String) -> String? {
        chance(5) ? nil : agentSeen[path]?.version
    }

    func currentVersion(_ path: String, in snapshot: [String: [UInt8]]) -> String? {
        snapshot[path].map { ContentVersion(of: $0).short }
    }

    mutating func afterAgentChange(
        _ path: String, _ answer: [String: Any], confirmed: Bool, before: [String: [UInt8]],
        step: Int, tool: String
    ) {
        if let version = answer["version"] as? String, let now = bytes(path) {
            if ContentVersion(of: now).short != version {
                fail("\(tool) answered version \(version) but \(path) holds another", step: step)
            }
            agentSeen[path] = (version, Self.body(now))
        }
        if confirmed { personOwned[path] = nil }
        checkPersonLines(step: step, what: tool)
        checkHistory(path, before: before[path], step: step)
    }

    mutating func agentWrite(_ step: Int, _ before: [String: [UInt8]]) throws {
        let path = pick(ModelTests.paths)
        var lines = agentSeen[path]?.body ?? []
        lines.removeAll { _ in chance(30) }
        for _ in 0..<(1 + random.next() % 2) {
            lines.insert(token("A"), at: Int(random.next() % UInt64(lines.count + 1)))
        }
        let content = lines.joined(separator: "\n") + "\n"
        let expected = claimedVersion(path)
        let conflict = pick(["fail", "fail", "merge", "propose"])
        let confirm = chance(5)
        var arguments: [String: JSONValue] = [
            "path": .string(path), "content": .string(content), "on_conflict": .string(conflict),
        ]
        if let expected { arguments["expected_version"] = .string(expected) }
        if confirm { arguments["confirm_user_edits"] = .bool(true) }
        let stale = before[path] != nil && expected != currentVersion(path, in: before)
        guard
            let answer = try agentCall(
                "write_file", arguments, step: step, before: before,
                allowed: ["stale_version", "read_required", "user_edited", "merge_conflict"])
        else { return }
        if answer["proposal"] is String {
            if snapshot() != before { fail("a proposal changed the files", step: step) }
            return
        }
        if stale && conflict == "fail" && (answer["changed"] as? Bool) != false {
            fail("write_file with a stale version (\(expected ?? "none")) was applied", step: step)
        }
        if (answer["merged"] as? Bool) != true, let now = bytes(path),
            (answer["changed"] as? Bool) != false, Self.body(now) != lines
        {
            fail("write_file wrote a body other than the one sent", step: step)
        }
        afterAgentChange(
            path, answer, confirmed: confirm, before: before, step: step, tool: "write_file")
    }

    mutating func agentAppend(_ step: Int, _ before: [String: [UInt8]]) throws {
        let path = pick(ModelTests.paths)
        let line = token("A")
        guard
            let answer = try agentCall(
                "append_file", ["path": .string(path), "content": .string(line + "\n")], step: step,
                before: before, allowed: [])
        else { return }
        if Self.body(bytes(path) ?? []).last != line {
            fail("append_file did not end \(path) with its text", step: step)
        }
        let beforeBody = before[path].map(Self.body) ?? []
        if Array(Self.body(bytes(path) ?? []).dropLast()) != beforeBody {
            fail("append_file changed the text before its own", step: step)
        }
        afterAgentChange(
            path, answer, confirmed: false, before: before, step: step, tool: "append_file")
    }

    mutating func agentEdit(_ step: Int, _ before: [String: [UInt8]]) throws {
        let path = pick(ModelTests.paths)
        guard let seen = agentSeen[path], !seen.body.isEmpty else { return }
        let old = pick(seen.body)
        let new = token("A")
        let confirm = chance(5)
        var arguments: [String: JSONValue] = [
            "path": .string(path), "expected_version": .string(seen.version),
            "edits": .array([.object(["old_text": .string(old), "new_text": .string(new)])]),
        ]
        if confirm { arguments["confirm_user_edits"] = .bool(true) }
        guard
            let answer = try agentCall(
                "edit_file", arguments, step: step, before: before,
                allowed: ["stale_version", "user_edited", "invalid_argument", "not_found"])
        else { return }
        let now = Self.body(bytes(path) ?? [])
        if !now.contains(new) {
            fail("edit_file succeeded but \(new) is not in \(path)", step: step)
        }
        afterAgentChange(
            path, answer, confirmed: confirm, before: before, step: step, tool: "edit_file")
    }

    mutating func agentDelete(_ step: Int, _ before: [String: [UInt8]]) throws {
        let path = pick(ModelTests.paths)
        guard let expected = claimedVersion(path) else { return }
        let confirm = chance(10)
        var arguments: [String: JSONValue] = [
            "path": .string(path), "expected_version": .string(expected),
        ]
        if confirm { arguments["confirm_user_edits"] = .bool(true) }
        let stale = expected != currentVersion(path, in: before)
        guard
            try agentCall(
                "delete_file", arguments, step: step, before: before,
                allowed: ["stale_version", "user_edited", "not_found"]) != nil
        else { return }
        if stale { fail("delete_file with a stale version was applied", step: step) }
        if bytes(path) != nil { fail("delete_file succeeded but \(path) exists", step: step) }
        if !confirm, let owned = personOwned[path], !owned.isEmpty {
            fail("delete_file removed the person's lines \(owned.sorted())", step: step)
        }
        personOwned[path] = nil
        agentSeen[path] = nil
        checkHistory(path, before: before[path], step: step)
    }

    mutating func agentMove(_ step: Int, _ before: [String: [UInt8]]) throws {
        let from = pick(ModelTests.paths)
        let to = pick(ModelTests.paths)
        guard from != to, let expected = claimedVersion(from) else { return }
        let stale = expected != currentVersion(from, in: before)
        guard
            try agentCall(
                "move_file",
                ["from": .string(from), "to": .string(to), "expected_version": .string(expected)],
                step: step,
                before: before,
                allowed: ["stale_version", "user_edited", "not_found", "invalid_argument"]) != nil
        else { return }
        if stale { fail("move_file with a stale version was applied", step: step) }
        if before[to] != nil { fail("move_file replaced the existing \(to)", step: step) }
        if bytes(from) != nil || bytes(to) != before[from] {
            fail("move_file did not move \(from)'s bytes to \(to)", step: step)
        }
        personOwned[to] = personOwned[from]
        personOwned[from] = nil
        agentSeen[to] = agentSeen[from]
        agentSeen[from] = nil
        checkPersonLines(step: step, what: "move_file")
    }

    /// A version from `path`'s history (any record's before or after).
    mutating func historicVersion(_ path: String) -> String? {
        let versions = store.history.history(of: path).records.flatMap { [$0.before, $0.after] }
            .compactMap { $0 }
        return versions.isEmpty ? nil : pick(versions)
    }

    mutating func agentRestore(_ step: Int, _ before: [String: [UInt8]]) throws {
        let path = pick(ModelTests.paths)
        guard let version = historicVersion(path) else { return }
        var arguments: [String: JSONValue] = ["path": .string(path), "version": .string(version)]
        if let expected = claimedVersion(path) { arguments["expected_version"] = .string(expected) }
        guard
            let answer = try agentCall(
                "restore_file", arguments, step: step, before: before,
                allowed: ["stale_version", "read_required", "user_edited", "not_found"])
        else { return }
        if bytes(path) != store.history.object(version) {
            fail("restore_file did not bring back exactly version \(version)", step: step)
        }
        afterAgentChange(
            path, answer, confirmed: false, before: before, step: step, tool: "restore_file")
    }

    // MARK: The person and the editor

    /// After the person's change at `path`: the lines they removed are no longer theirs to
    /// protect, the fresh tokens they added are.
    mutating func personChanged(_ path: String, added: Set<String>) {
        let now = Self.tokens(bytes(path), prefix: "P")
        let owned = (personOwned[path] ?? []).intersection(now).union(added.intersection(now))
        personOwned[path] = owned.isEmpty ? nil : owned
    }

    mutating func personWrite(_ step: Int, _ before: [String: [UInt8]]) {
        let path = pick(ModelTests.paths)
        var lines = before[path].map(Self.body) ?? []
        lines.removeAll { _ in chance(15) }
        let added = token("P")
        lines.insert(added, at: Int(random.next() % UInt64(lines.count + 1)))
        let content = lines.joined(separator: "\n") + "\n"
        person("write", path, added: [added], before: before, step: step) { store in
            _ = try store.write(path, content: content, by: .person)
        }
    }

    mutating func personAppend(_ step: Int, _ before: [String: [UInt8]]) {
        let path = pick(ModelTests.paths)
        let added = token("P")
        person("append", path, added: [added], before: before, step: step) { store in
            _ = try store.append(path, content: added + "\n", by: .person)
        }
    }

    /// Runs one of the person's commands on `path` (which must not fail), then updates the
    /// model and checks history.
    mutating func person(
        _ what: String, _ path: String, added: Set<String>, before: [String: [UInt8]], step: Int,
        _ command: (NoteStore) throws -> Void
    ) {
        do {
            try command(store)
            counts["person \(what)", default: 0] += 1
            personChanged(path, added: added)
            checkHistory(path, before: before[path], step: step)
        } catch {
            fail("the person's \(what) failed: \(error)", step: step)
        }
    }

    /// An editor rewriting the whole file (front matter and all) in place, without notes.
    mutating func editorWrite(_ step: Int, _ before: [String: [UInt8]]) {
        let path = pick(ModelTests.paths)
        var text = before[path].map { String(decoding: $0, as: UTF8.self) } ?? ""
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let added = token("P")
        lines = lines.filter { line in !(Self.tokens(Array(line.utf8)).count == 1 && chance(10)) }
        lines.insert(
            added,
            at: lines.isEmpty ? 0 : lines.count - Int(random.next() % UInt64(min(lines.count, 3))))
        text = lines.joined(separator: "\n") + "\n"
        let absolute = folder.path + "/" + path
        try? FileManager.default.createDirectory(
            atPath: (absolute as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: absolute, contents: Data(text.utf8)) else {
            fail("editor could not write", step: step)
            return
        }
        counts["editor write", default: 0] += 1
        personChanged(path, added: [added])
    }

    mutating func personDelete(_ step: Int, _ before: [String: [UInt8]]) {
        let path = pick(ModelTests.paths)
        guard before[path] != nil else { return }
        do {
            _ = try store.delete(path, by: .person)
            counts["person delete", default: 0] += 1
            personOwned[path] = nil
            checkHistory(path, before: before[path], step: step)
        } catch {
            fail("the person's delete failed: \(error)", step: step)
        }
    }

    mutating func personMove(_ step: Int, _ before: [String: [UInt8]]) {
        let from = pick(ModelTests.paths)
        let to = pick(ModelTests.paths)
        guard from != to, before[from] != nil else { return }
        do {
            _ = try store.move(from, to: to, by: .person)
            counts["person move", default: 0] += 1
            if before[to] != nil {
                fail("the person's move replaced the existing \(to)", step: step)
            }
            if bytes(to) != before[from] { fail("the person's move changed the bytes", step: step) }
            personOwned[to] = personOwned[from]
            personOwned[from] = nil
            agentSeen[from] = nil
        } catch {
            if before[to] == nil {
                fail("the person's move to a free path failed: \(error)", step: step)
            }
            if snapshot() != before { fail("a refused move changed the files", step: step) }
        }
    }

    mutating func personRestore(_ step: Int, _ before: [String: [UInt8]]) {
        let path = pick(ModelTests.paths)
        let version = chance(50) ? nil : historicVersion(path)
        do {
            let result = try store.restore(path, version: version, by: .person)
            counts["person restore", default: 0] += 1
            if let version, bytes(path) != store.history.object(version) {
                fail("restore did not bring back exactly \(version)", step: step)
            }
            if let now = result.version, ContentVersion(of: bytes(path) ?? []).short != now {
                fail("restore answered another version", step: step)
            }
            // Lines a restore brings back are the person's only if they still were.
            let now = Self.tokens(bytes(path), prefix: "P")
            let owned = (personOwned[path] ?? []).intersection(now)
            personOwned[path] = owned.isEmpty ? nil : owned
            checkHistory(path, before: before[path], step: step)
        } catch {
            if error.code != .notFound { fail("the person's restore failed: \(error)", step: step) }
            if snapshot() != before { fail("a refused restore changed the files", step: step) }
        }
    }
}
