import Foundation
import NotesTestSupport
import Testing

/// The tests tagged `reliability` skip themselves in a plain `swift test` and run only through
/// scripts/reliability, which selects them by name: a tagged test missing from its list would
/// never run anywhere. This checks that the list names exactly the tagged tests.
@Suite struct ReliabilityTagTests {
    @Test func scriptsReliabilityNamesEveryTaggedTest() throws {
        var tagged = Set<String>()
        let tests = Repository.root + "/Tests"
        let walker = try #require(FileManager.default.enumerator(atPath: tests))
        let pattern = try Regex(#"@Test\([^)\n]*\.tags\(\.reliability\)[^\n]*?func (\w+)"#)
        while let name = walker.nextObject() as? String {
            guard name.hasSuffix(".swift"),
                let text = try? String(contentsOfFile: tests + "/" + name, encoding: .utf8)
            else { continue }
            for match in text.matches(of: pattern) {
                if let function = match.output[1].substring { tagged.insert(String(function)) }
            }
        }
        let script = try String(
            contentsOfFile: Repository.root + "/scripts/reliability", encoding: .utf8)
        let line = try #require(
            script.split(separator: "\n").first { $0.hasPrefix("tagged=\"") },
            "scripts/reliability has no tagged=\"…\" line")
        let listed = Set(
            line.dropFirst("tagged=\"".count).dropLast().split(separator: "|").map(String.init))
        #expect(!tagged.isEmpty)
        #expect(
            listed == tagged,
            "tagged but not listed: \(tagged.subtracting(listed).sorted()); listed but not tagged: \(listed.subtracting(tagged).sorted())"
        )
    }
}
