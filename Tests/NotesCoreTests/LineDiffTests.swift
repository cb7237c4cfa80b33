import NotesCore
import NotesTestSupport
import Testing

@Suite struct LineDiffTests {
    func lines(_ text: String) -> ByteLines { ByteLines(Array(text.utf8)) }

    @Test func byteLinesRoundTripExactly() {
        for text in ["", "a", "a\n", "a\r\nb", "a\n\nb\n", "\u{FEFF}x\r\n"] {
            #expect(ByteLines(Array(text.utf8)).lines.flatMap { $0 } == Array(text.utf8))
        }
    }

    @Test func matchesAreACommonSubsequence() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            let alphabet = ["a\n", "b\n", "c\n", "d\n"]
            let a = (0..<Int.random(in: 0...30, using: &rng)).map { _ in
                alphabet.randomElement(using: &rng)!
            }.joined()
            let b = (0..<Int.random(in: 0...30, using: &rng)).map { _ in
                alphabet.randomElement(using: &rng)!
            }.joined()
            let x = lines(a)
            let y = lines(b)
            let m = LineDiff.matches(x, y)
            for (i, j) in m { #expect(x.lines[i] == y.lines[j]) }
            for (p, q) in zip(m, m.dropFirst()) { #expect(p.0 < q.0 && p.1 < q.1) }
            // Length of the LCS by dynamic programming: Myers finds an optimal one.
            var dp = Array(repeating: Array(repeating: 0, count: y.count + 1), count: x.count + 1)
            for i in stride(from: x.count - 1, through: 0, by: -1) {
                for j in stride(from: y.count - 1, through: 0, by: -1) {
                    dp[i][j] =
                        x.lines[i] == y.lines[j]
                        ? dp[i + 1][j + 1] + 1 : max(dp[i + 1][j], dp[i][j + 1])
                }
            }
            #expect(m.count == dp[0][0])
        }
    }

    @Test func unifiedDiffShowsHunksWithContext() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n"
        let diff = LineDiff.unified(
            Array(old.utf8), Array(new.utf8), oldLabel: "a.md", newLabel: "b.md")
        #expect(
            diff == """
                --- a.md
                +++ b.md
                @@ -2,9 +2,10 @@
                 2
                 3
                 4
                -5
                +five
                 6
                 7
                 8
                 9
                 10
                +11

                """)
        #expect(LineDiff.unified(Array(old.utf8), Array(old.utf8)) == "")
        #expect(LineDiff.unified([], Array("x\n".utf8)).contains("@@ -0,0 +1 @@\n+x\n"))
        #expect(
            LineDiff.unified(Array("x".utf8), Array("y".utf8)).contains(
                "\\ No newline at end of file"))
    }
}

@Suite struct ThreeWayMergeTests {
    func merge(_ base: String, _ ours: String, _ theirs: String) -> ThreeWayMerge.Outcome {
        ThreeWayMerge.merge(
            base: Array(base.utf8), ours: Array(ours.utf8), theirs: Array(theirs.utf8))
    }

    @Test func combinesChangesToDifferentLines() {
        let base = "title\n\nagent para one\n\nagent para two\n\nagent para three\n"
        let ours = "title\n\nagent para one, revised\n\nagent para two\n\nagent para three\n"
        let theirs =
            "title\n\nagent para one\n\nagent para two\n\nThe person's own third paragraph.\n"
        #expect(
            merge(base, ours, theirs)
                == .merged(
                    Array(
                        "title\n\nagent para one, revised\n\nagent para two\n\nThe person's own third paragraph.\n"
                            .utf8)))
    }

    @Test func takesIdenticalChangesOnceAndInsertionsFromBothSides() {
        #expect(merge("a\nb\n", "a\nB\n", "a\nB\n") == .merged(Array("a\nB\n".utf8)))
        #expect(
            merge("a\nb\nc\n", "top\na\nb\nc\n", "a\nb\nc\nbottom\n")
                == .merged(Array("top\na\nb\nc\nbottom\n".utf8)))
    }

    @Test func reportsConflictingHunks() {
        guard case .conflicts(let hunks) = merge("a\nb\nc\n", "a\nours\nc\n", "a\ntheirs\nc\n")
        else {
            Issue.record("expected a conflict")
            return
        }
        #expect(hunks == [MergeConflict(line: 2, base: "b\n", ours: "ours\n", theirs: "theirs\n")])
    }

    @Test func keepsCRLFBytes() {
        #expect(
            merge("a\r\n-\r\nb\r\n", "a\r\n-\r\nB\r\n", "A\r\n-\r\nb\r\n")
                == .merged(Array("A\r\n-\r\nB\r\n".utf8)))
    }

    @Test func changesOnAdjacentLinesMerge() {
        // A paragraph inserted right below (or above) a reworded line touches no line the
        // rewording changed; nor do two rewordings of neighbouring lines.
        #expect(
            merge("a\nb\nc\n", "a\nB\nc\n", "a\nb\nnew\nc\n")
                == .merged(Array("a\nB\nnew\nc\n".utf8)))
        #expect(
            merge("a\nb\nc\n", "a\nB\nc\n", "a\nnew\nb\nc\n")
                == .merged(Array("a\nnew\nB\nc\n".utf8)))
        #expect(merge("a\nb\nc\n", "a\nB\nc\n", "a\nb\nC\n") == .merged(Array("a\nB\nC\n".utf8)))
        #expect(
            merge("a\nb\nc\n", "a\nc\n", "a\nb\nnew\nc\n") == .merged(Array("a\nnew\nc\n".utf8)))
    }

    @Test func theSameLinesInsertedByBothAreTakenOnce() {
        // At one point, one insertion holding the other at its start or end.
        #expect(merge("a\nb\n", "a\nb\nx\n", "a\nb\nx\ny\n") == .merged(Array("a\nb\nx\ny\n".utf8)))
        #expect(merge("a\nb\n", "a\nb\ny\n", "a\nb\nx\ny\n") == .merged(Array("a\nb\nx\ny\n".utf8)))
        // Beside the other side's change that already ends (or starts) with them.
        #expect(merge("a\nb\n", "A\nb\n\nx\n", "a\nB\n\nx\n") == .merged(Array("A\nB\n\nx\n".utf8)))
        #expect(
            merge("a\nb\nc\n", "a\nb\nx\nc\n", "a\nB\nx\nc\n")
                == .merged(Array("a\nB\nx\nc\n".utf8)))
        #expect(
            merge("a\nb\nc\n", "a\nx\nb\nc\n", "a\nx\nB\nc\n")
                == .merged(Array("a\nx\nB\nc\n".utf8)))
    }

    @Test func differentInsertionsAtOnePointTakeTheFilesFirst() {
        // The file's text (theirs) was there first; the incoming change's follows it.
        #expect(
            merge("a\nb\n", "a\nours\nb\n", "a\ntheirs\nb\n")
                == .merged(Array("a\ntheirs\nours\nb\n".utf8)))
        #expect(
            merge("a\n", "a\n\n## Section\n\ntext\n", "a\n\npara\n")
                == .merged(Array("a\n\npara\n\n## Section\n\ntext\n".utf8)))
    }

    @Test func aChangeThatGrowsWhereTheOtherInsertsConflicts() {
        // The reworded last line plus a new section could go above or below the paragraph
        // the other side appended: not one side's heading over the other's text.
        guard
            case .conflicts(let grown) = merge(
                "# M\n\nA.\n", "# M\n\nA, reworded.\n\n## S\n", "# M\n\nA.\n\npara\n")
        else {
            Issue.record("expected a conflict")
            return
        }
        #expect(
            grown == [
                MergeConflict(
                    line: 3, base: "A.\n", ours: "A, reworded.\n\n## S\n", theirs: "A.\n\npara\n")
            ])
    }

    @Test func onlyOverlappingChangesConflict() {
        // An insertion strictly inside lines the other side replaced.
        guard case .conflicts(let inside) = merge("a\nb\nc\nd\n", "a\nBC\nd\n", "a\nb\nnew\nc\nd\n")
        else {
            Issue.record("expected a conflict")
            return
        }
        #expect(
            inside == [MergeConflict(line: 2, base: "b\nc\n", ours: "BC\n", theirs: "b\nnew\nc\n")])
        // One side deletes a line the other changes.
        guard case .conflicts(let deleted) = merge("a\nb\nc\n", "a\nc\n", "a\nB\nc\n") else {
            Issue.record("expected a conflict")
            return
        }
        #expect(deleted == [MergeConflict(line: 2, base: "b\n", ours: "", theirs: "B\n")])
    }

    @Test func randomChangesOnDifferentLinesAllMerge() {
        // Each side rewords or inserts below its own distinct lines, neighbours included:
        // the merge holds every change of both.
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            let count = Int.random(in: 2...30, using: &rng)
            let base = (0..<count).map { "line \($0)\n" }
            var ours = base.map { [$0] }
            var theirs = base.map { [$0] }
            var expected = base.map { [$0] }
            for i in 0..<count where Bool.random(using: &rng) {
                let side = Int.random(in: 1...2, using: &rng)
                let name = side == 1 ? "ours" : "theirs"
                let change =
                    Bool.random(using: &rng)
                    ? ["\(name) reworded \(i)\n"] : [base[i], "\(name) inserted below \(i)\n"]
                if side == 1 { ours[i] = change } else { theirs[i] = change }
                expected[i] = change
            }
            #expect(
                merge(base.joined(), ours.joined().joined(), theirs.joined().joined())
                    == .merged(Array(expected.joined().joined().utf8)))
        }
    }

    @Test func randomMergesKeepEachSidesOnlyChanges() {
        // When the two sides change disjoint, separated lines, the merge contains both.
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<200 {
            let count = Int.random(in: 6...40, using: &rng)
            let base = (0..<count).map { "line \($0)\n" }
            let i = Int.random(in: 0..<(count / 2 - 1), using: &rng)
            let j = Int.random(in: (count / 2 + 1)..<count, using: &rng)
            var ours = base
            var theirs = base
            ours[i] = "ours \(i)\n"
            theirs[j] = "theirs \(j)\n"
            var expected = base
            expected[i] = ours[i]
            expected[j] = theirs[j]
            #expect(
                merge(base.joined(), ours.joined(), theirs.joined())
                    == .merged(Array(expected.joined().utf8)))
        }
    }
}
