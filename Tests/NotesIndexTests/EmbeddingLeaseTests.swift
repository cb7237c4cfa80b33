import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// An embedder whose first batch waits at a gate the test opens: a background pass is then
/// known to hold the lease, and to be inside a batch, until the test lets it go on.
final class GatedEmbedder: TextEmbedder, @unchecked Sendable {
    let inner = ConceptEmbedder()
    let started = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var calls = 0
    var identifier: String { inner.identifier }
    var dimensions: Int { inner.dimensions }

    func embed(_ texts: [String]) throws -> [[Float]] {
        let first = lock.withLock {
            calls += 1
            return calls == 1
        }
        if first {
            started.signal()
            _ = gate.wait(timeout: .now() + 30)
        }
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
        let gated = GatedEmbedder()
        let ran = Locked<Result<Bool, NotesError>?>(nil)
        Thread {
            let outcome = Result { () throws(NotesError) -> Bool in
                try background.embedPendingInBackground(with: gated) { false }
            }
            ran.withLock { $0 = outcome }
        }.start()
        #expect(gated.started.wait(timeout: .now() + 30) == .success)
        // The command waits for the lease; once it says so, the first batch may finish.
        let fast = ConceptEmbedder()
        let embedded = Locked<Result<Int, NotesError>?>(nil)
        Thread {
            let outcome = Result { () throws(NotesError) -> Int in
                try command.embedPending(with: fast)
            }
            embedded.withLock { $0 = outcome }
        }.start()
        var waiting = false
        for _ in 0..<30_000 where !waiting {
            waiting = EmbeddingLease.isWanted(directory: command.directory)
            if !waiting { usleep(1000) }
        }
        #expect(waiting)
        gated.gate.signal()
        for _ in 0..<30_000 where ran.withLock({ $0 }) == nil || embedded.withLock({ $0 }) == nil {
            usleep(1000)
        }
        // The background pass stopped after its batch and said so; the command did the rest.
        #expect(try ran.withLock({ $0 })?.get() == false)
        #expect(try (embedded.withLock({ $0 })?.get() ?? 0) > 0)
        let texts = gated.inner.embedded + fast.embedded
        #expect(Set(texts).count == texts.count)
        #expect(try storedPassages(command) == texts.count)
        let coverage = try command.semanticCoverage()
        #expect(coverage.embeddedFiles == coverage.files)
    }

    @Test func aBackgroundPassDoesNotStartWhileACommandWaits() throws {
        let index = try fixture.refreshed()
        // What a waiting command holds: a shared lock on embed.wanted.
        let fd = open(
            index.directory + "/" + EmbeddingLease.wantedFileName, O_RDWR | O_CREAT, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_SH | LOCK_NB) == 0)
        #expect(EmbeddingLease.ifFree(directory: index.directory) == nil)
        let embedder = ConceptEmbedder()
        let ran = try index.embedPendingInBackground(with: embedder) { false }
        #expect(ran == false)
        #expect(embedder.embedded.isEmpty)
        flock(fd, LOCK_UN)
        #expect(EmbeddingLease.ifFree(directory: index.directory) != nil)
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
