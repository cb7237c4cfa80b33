import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// An embedder that takes its time, and says when it first starts: a background pass is
/// then known to hold the lease.
final class SlowEmbedder: TextEmbedder, @unchecked Sendable {
    let inner = ConceptEmbedder()
    let started = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var calls = 0
    var identifier: String { inner.identifier }
    var dimensions: Int { inner.dimensions }

    func embed(_ texts: [String]) throws -> [[Float]] {
        let first = lock.withLock {
            calls += 1
            return calls == 1
        }
        if first { started.signal() }
        usleep(30_000)
        return try inner.embed(texts)
    }
}

/// One process at a time embeds an index (``EmbeddingLease``); flocks taken through two
/// descriptors conflict within one process too, so two `NoteIndex` values on one folder
/// stand for two processes.
@Suite struct EmbeddingLeaseTests {
    static let files: [String: String] = Dictionary(
        uniqueKeysWithValues: (0..<12).map { i in
            (
                "notes/n\(i).md",
                "# Note \(i)\n\nA gale and a whale, number \(i).\n\n## More\n\nThe car in the garden \(i).\n"
            )
        })

    let fixture = IndexFixture(files: EmbeddingLeaseTests.files, filler: 0)

    func storedPassages(_ index: NoteIndex) throws -> Int {
        try DatabaseQueue(path: index.databasePath).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM chunks")!
        }
    }

    @Test func aBackgroundPassRunsOnlyWhenNoOtherEmbeds() throws {
        let index = try fixture.refreshed()
        let other = EmbeddingLease.ifFree(directory: index.directory)
        #expect(other != nil)
        let embedder = ConceptEmbedder()
        let ran = try index.embedPendingInBackground(with: embedder, shouldStop: { false })
        #expect(ran == false)
        #expect(embedder.embedded.isEmpty)
        #expect(try storedPassages(index) == 0)
        withExtendedLifetime(other) {}
    }

    @Test func aBackgroundPassYieldsToACommandAndNoPassageIsEmbeddedTwice() throws {
        let background = try fixture.refreshed()
        let command = try fixture.open()
        let slow = SlowEmbedder()
        let ran = Locked<Bool?>(nil)
        let thread = Thread {
            ran.withLock { $0 = try? background.embedPendingInBackground(with: slow) { false } }
        }
        thread.start()
        slow.started.wait()
        let fast = ConceptEmbedder()
        let embedded = try command.embedPending(with: fast)
        while ran.withLock({ $0 }) == nil { usleep(1000) }
        // The background pass stopped after its batch and said so; the command did the rest.
        #expect(ran.withLock { $0 } == false)
        #expect(embedded > 0)
        let texts = slow.inner.embedded + fast.embedded
        #expect(Set(texts).count == texts.count)
        #expect(try storedPassages(command) == texts.count)
        let coverage = try command.semanticCoverage()
        #expect(coverage.embeddedFiles == coverage.files)
    }

    @Test func aCommandWaitsBoundedForAnotherCommandAndNamesIt() throws {
        let index = try fixture.refreshed()
        var holder: EmbeddingLease? = try EmbeddingLease.waiting(directory: index.directory)
        #expect(holder?.isWanted == false)
        do {
            _ = try EmbeddingLease.waiting(directory: index.directory, timeout: 0.2)
            Issue.record("a second command took the lease while the first held it")
        } catch {
            #expect(error.code == .busy)
            #expect(error.message.contains("pid \(getpid())"))
            #expect(error.message.contains("embedding"))
        }
        holder = nil
        let after = try EmbeddingLease.waiting(directory: index.directory, timeout: 0.2)
        withExtendedLifetime(after) {}
    }

    @Test func aHolderSeesAWaitingCommandWhichGetsTheLeaseOnceItLetsGo() throws {
        let index = try fixture.refreshed()
        var holder = EmbeddingLease.ifFree(directory: index.directory)
        #expect(holder != nil)
        let taken = Locked<Bool?>(nil)
        let waiter = Thread {
            let lease = try? EmbeddingLease.waiting(directory: index.directory, timeout: 10)
            taken.withLock { $0 = lease != nil }
        }
        waiter.start()
        var seen = false
        for _ in 0..<5000 where !seen {
            seen = holder?.isWanted ?? false
            if !seen { usleep(1000) }
        }
        #expect(seen)
        holder = nil
        while taken.withLock({ $0 }) == nil { usleep(1000) }
        #expect(taken.withLock { $0 } == true)
    }
}
