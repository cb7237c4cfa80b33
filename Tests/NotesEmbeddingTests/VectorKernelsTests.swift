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
        for (count, dims) in [(1, 1), (3, 7), (4, 16), (9, 384), (13, 45)] {
            let query = (0..<dims).map { _ in Float.random(in: -1...1, using: &random) }
            let rows = (0..<count * dims).map { _ in Int8.random(in: -127...127, using: &random) }
            let scales = (0..<count).map { _ in Float.random(in: 0.001...0.02, using: &random) }
            for level in levels {
                var out = [Float](repeating: 0, count: count)
                notes_int8_dots(level, query, rows, scales, count, Int32(dims), &out)
                for r in 0..<count {
                    var sum = 0.0
                    for p in 0..<dims { sum += Double(query[p]) * Double(rows[r * dims + p]) }
                    sum *= Double(scales[r])
                    #expect(
                        abs(Double(out[r]) - sum) <= 1e-4 * max(1, abs(sum)),
                        "level \(level) \(count)×\(dims) row \(r): \(out[r]) vs \(sum)")
                }
            }
        }
    }
}
