import CVectorKernels
import NotesTestSupport
import Testing

/// CVectorKernels against plain double-precision sums, at every instruction-set level this
/// CPU runs, on shapes that leave remainders in every blocked loop.
@Suite struct VectorKernelsTests {
    var levels: [Int32] { Array(0...notes_kernel_level()) }

    @Test func productsEqualPlainSums() {
        var random = SeededGenerator(seed: 7)
        for (m, n, k) in [
            (1, 1, 1), (3, 5, 7), (4, 4, 16), (5, 9, 33), (10, 384, 384), (17, 6, 100),
        ] {
            let x = (0..<m * k).map { _ in Float.random(in: -1...1, using: &random) }
            let w = (0..<n * k).map { _ in Float.random(in: -1...1, using: &random) }
            let bias = (0..<n).map { _ in Float.random(in: -1...1, using: &random) }
            let stride = n + 3  // rows of the output apart by more than their width
            for level in levels {
                for adding in [false, true] {
                    var out = [Float](repeating: 9, count: m * stride)
                    if adding {
                        for i in 0..<m { for j in 0..<n { out[i * stride + j] = bias[j] } }
                    }
                    notes_products_nt(
                        level, Int32(m), Int32(n), Int32(k), x, w, adding ? 1 : 0, &out,
                        Int32(stride))
                    for i in 0..<m {
                        for j in 0..<n {
                            var sum = adding ? Double(bias[j]) : 0
                            for p in 0..<k { sum += Double(x[i * k + p]) * Double(w[j * k + p]) }
                            let got = Double(out[i * stride + j])
                            #expect(
                                abs(got - sum) <= 1e-4 * max(1, abs(sum)),
                                "level \(level) \(m)×\(n)×\(k) [\(i),\(j)]: \(got) vs \(sum)")
                        }
                        // The gap between rows is never written.
                        for j in n..<stride { #expect(out[i * stride + j] == 9) }
                    }
                }
            }
        }
    }

    @Test func int8DotsEqualPlainSums() {
        var random = SeededGenerator(seed: 11)
        for (count, dims) in [(1, 1), (3, 7), (4, 16), (9, 384), (13, 45), (6, 70), (5, 3000)] {
            let query = (0..<dims).map { _ in Float.random(in: -1...1, using: &random) }
            let rows = (0..<count * dims).map { _ in Int8.random(in: -127...127, using: &random) }
            let scales = (0..<count).map { _ in Float.random(in: 0.001...0.02, using: &random) }
            for level in levels {
                var out = [Float](repeating: 0, count: count)
                notes_int8_dots(level, query, rows, scales, count, Int32(dims), &out)
                // The AVX-512BW kernel rounds the query to 16-bit steps of its largest value:
                // each product may move by half a step times the row's byte.
                let step = Double(query.map(abs).max() ?? 0) / 32767
                for r in 0..<count {
                    var sum = 0.0
                    var rounding = 0.0
                    for p in 0..<dims {
                        sum += Double(query[p]) * Double(rows[r * dims + p])
                        rounding += abs(Double(rows[r * dims + p])) * step / 2
                    }
                    sum *= Double(scales[r])
                    rounding *= Double(scales[r])
                    #expect(
                        abs(Double(out[r]) - sum) <= 1e-5 * max(1, abs(sum)) + rounding,
                        "level \(level) \(count)×\(dims) row \(r): \(out[r]) vs \(sum)")
                }
            }
        }
    }

    @Test func int8DotsAtTheExtremesStayExact() {
        // Every byte at its largest and the query at its own: the 16-bit steps' sums are the
        // largest a row can make, and must not overflow. -128 is never stored, but a damaged
        // file may hold it.
        for dims in [384, 2048] {
            for sign in [Float(1), -1] {
                let query = [Float](repeating: sign * 0.75, count: dims)
                let rows =
                    [Int8](repeating: 127, count: 5 * dims) + [Int8](repeating: -128, count: dims)
                let scales = [Float](repeating: 0.01, count: 6)
                let largest = Double(sign) * 0.75 * Double(dims) * 0.01
                for level in levels {
                    var out = [Float](repeating: 0, count: 6)
                    notes_int8_dots(level, query, rows, scales, 6, Int32(dims), &out)
                    for r in 0..<6 {
                        let want = r < 5 ? largest * 127 : largest * -128
                        #expect(
                            abs(Double(out[r]) - want) <= 1e-4 * abs(want),
                            "level \(level) dims \(dims) row \(r): \(out[r]) vs \(want)")
                    }
                }
            }
        }
    }

    @Test func int8DotsOfAQueryWithoutFiniteStepsAreWhatArithmeticGives() {
        let dims = 64
        let rows = (0..<3 * dims).map { Int8(truncatingIfNeeded: $0 % 200 - 100) }
        let scales: [Float] = [0.01, 0.02, 0.03]
        for level in levels {
            for query in [
                [Float](repeating: 0, count: dims),
                [Float](repeating: 1e-42, count: dims),
                [Float.nan] + [Float](repeating: 0.5, count: dims - 1),
            ] {
                var out = [Float](repeating: 7, count: 3)
                notes_int8_dots(level, query, rows, scales, 3, Int32(dims), &out)
                for r in 0..<3 {
                    var sum = 0.0
                    for p in 0..<dims { sum += Double(query[p]) * Double(rows[r * dims + p]) }
                    sum *= Double(scales[r])
                    if sum.isNaN {
                        #expect(out[r].isNaN, "level \(level) row \(r): \(out[r])")
                    } else {
                        #expect(
                            abs(Double(out[r]) - sum) <= 1e-40, "level \(level) row \(r): \(out[r])"
                        )
                    }
                }
            }
        }
    }
}
