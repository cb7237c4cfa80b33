import Foundation

// The model's arithmetic besides the matrix products, row by row over raw buffers: the
// embeddings' and layers' LayerNorm, GELU, softmax, and a few tokens' attention.

/// Every row of `matrix` set to `row`.
@inline(__always)
func fillRows(
    _ matrix: UnsafeMutablePointer<Float>, rows: Int, with row: UnsafePointer<Float>, width: Int,
    stride: Int? = nil
) {
    let stride = stride ?? width
    for r in 0..<rows { (matrix + r * stride).update(from: row, count: width) }
}

/// `out = LayerNorm(input + bias + residual)` row by row (`out` may be `input` or `residual`).
func layerNorm(
    _ input: UnsafeMutablePointer<Float>, rows: Int, width: Int, residual: UnsafePointer<Float>?,
    bias: UnsafePointer<Float>?, gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>,
    eps: Float,
    into out: UnsafeMutablePointer<Float>
) {
    let inverseWidth = 1 / Float(width)
    for r in 0..<rows {
        let row = input + r * width
        if let bias, let residual {
            let skip = residual + r * width
            for j in 0..<width { row[j] += bias[j] + skip[j] }
        } else if let bias {
            for j in 0..<width { row[j] += bias[j] }
        }
        let mean = sum(row, width) * inverseWidth
        let inverseDeviation =
            1 / (squaredDeviations(row, width, from: mean) * inverseWidth + eps).squareRoot()
        let target = out + r * width
        for j in 0..<width { target[j] = (row[j] - mean) * inverseDeviation * gamma[j] + beta[j] }
    }
}

/// One head's attention without OpenBLAS (a query's few tokens, or any text when OpenBLAS does
/// not load): `into` row i = softmax(scale · qᵢ · Kᵀ) · V, where q, k and v rows are `stride`
/// floats apart.
func smallAttention(
    q: UnsafePointer<Float>, k: UnsafePointer<Float>, v: UnsafePointer<Float>, stride: Int,
    length: Int, width: Int, scale: Float, scores: UnsafeMutablePointer<Float>,
    into out: UnsafeMutablePointer<Float>, outStride: Int
) {
    for i in 0..<length {
        for j in 0..<length {
            scores[i * length + j] = scale * dot(q + i * stride, k + j * stride, width)
        }
    }
    softmaxRows(scores, rows: length, width: length)
    for i in 0..<length {
        let row = out + i * outStride
        row.update(repeating: 0, count: width)
        for j in 0..<length {
            let weight = scores[i * length + j]
            let value = v + j * stride
            for t in 0..<width { row[t] += weight * value[t] }
        }
    }
}

/// Softmax of each row, in place.
func softmaxRows(_ matrix: UnsafeMutablePointer<Float>, rows: Int, width: Int) {
    for r in 0..<rows {
        let row = matrix + r * width
        let top = maximum(row, width)
        for j in 0..<width { row[j] = fastExp(row[j] - top) }
        let inverse = 1 / sum(row, width)
        for j in 0..<width { row[j] *= inverse }
    }
}

// Reductions in 8 lanes: the compiler does not vectorise a float sum or maximum itself (it
// may not reorder them), and these run for every row of every layer.

@inline(__always)
private func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
}

@inline(__always)
private func sum(_ p: UnsafePointer<Float>, _ n: Int) -> Float {
    var lanes = SIMD8<Float>(repeating: 0)
    var j = 0
    while j + 8 <= n {
        lanes += load8(p + j)
        j += 8
    }
    var total = lanes.sum()
    while j < n {
        total += p[j]
        j += 1
    }
    return total
}

@inline(__always)
private func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
    var lanes = SIMD8<Float>(repeating: 0)
    var j = 0
    while j + 8 <= n {
        lanes += load8(a + j) * load8(b + j)
        j += 8
    }
    var total = lanes.sum()
    while j < n {
        total += a[j] * b[j]
        j += 1
    }
    return total
}

@inline(__always)
private func squaredDeviations(_ p: UnsafePointer<Float>, _ n: Int, from mean: Float) -> Float {
    var lanes = SIMD8<Float>(repeating: 0)
    let m = SIMD8<Float>(repeating: mean)
    var j = 0
    while j + 8 <= n {
        let d = load8(p + j) - m
        lanes += d * d
        j += 8
    }
    var total = lanes.sum()
    while j < n {
        total += (p[j] - mean) * (p[j] - mean)
        j += 1
    }
    return total
}

@inline(__always)
private func maximum(_ p: UnsafePointer<Float>, _ n: Int) -> Float {
    var lanes = SIMD8<Float>(repeating: -.infinity)
    var j = 0
    while j + 8 <= n {
        let v = load8(p + j)
        lanes.replace(with: v, where: v .> lanes)
        j += 8
    }
    var top = lanes.max()
    while j < n {
        top = max(top, p[j])
        j += 1
    }
    return top
}

/// GELU of `values + bias` (each row), the erf form BERT uses: x · ½(1 + erf(x/√2)), in place.
func gelu(
    _ values: UnsafeMutablePointer<Float>, rows: Int, width: Int, bias: UnsafePointer<Float>
) {
    let inverseRoot2: Float = 0.70710678118654752
    for r in 0..<rows {
        let row = values + r * width
        for j in 0..<width {
            let x = row[j] + bias[j]
            row[j] = 0.5 * x * (1 + fastErf(x * inverseRoot2))
        }
    }
}

/// eˣ for x ≤ 0 (softmax's shifted scores, erf's −z²): 2^(x·log₂e) split into the nearest
/// integer power, put in the exponent bits, and a degree-6 polynomial (least-squares fit)
/// for 2^f on the rest f ∈ [−½, ½]; relative error < 1e-7 in float. No library call and
/// no checked conversion, so loops over it vectorise.
@inline(__always)
func fastExp(_ x: Float) -> Float {
    let t = max(x, -87) * 1.44269504088896341
    // Round to the nearest integer by adding and removing 1.5·2²³ (exact in float).
    let shifted = t + 12_582_912
    let n = shifted - 12_582_912
    let f = t - n
    var p: Float = 1.5363371208e-04
    p = p * f + 1.3394689768e-03
    p = p * f + 9.6183650919e-03
    p = p * f + 5.5503423159e-02
    p = p * f + 2.4022648816e-01
    p = p * f + 6.9314719919e-01
    p = p * f + 1.0
    // 2ⁿ: the low mantissa bits of `shifted` hold n (two's complement), so n + 127 is the
    // biased exponent.
    let biased = (shifted.bitPattern &+ 127) & 0xFF
    return p * Float(bitPattern: biased << 23)
}

/// erf(x), Abramowitz & Stegun 7.1.26: 1 − t·P(t)·e^(−x²) with t = 1/(1 + 0.3275911·|x|);
/// absolute error < 1.5e-7 in exact arithmetic, < 6e-7 measured in float against math.erf.
@inline(__always)
func fastErf(_ x: Float) -> Float {
    let z = abs(x)
    let t = 1 / (1 + 0.3275911 * z)
    var p: Float = 1.061405429
    p = p * t - 1.453152027
    p = p * t + 1.421413741
    p = p * t - 0.284496736
    p = p * t + 0.254829592
    let r = 1 - p * t * fastExp(-z * z)
    return x < 0 ? -r : r
}
