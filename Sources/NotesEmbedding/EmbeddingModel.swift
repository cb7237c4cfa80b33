import COpenBLAS
import CVectorKernels
import Dispatch
import Foundation

/// A BERT sentence-embedding model (all-MiniLM-L6-v2) run on the CPU: WordPiece ids →
/// embeddings + LayerNorm → N × (self-attention, GELU feed-forward) → mean pooling over the
/// text's tokens → L2 normalisation. Matrix products go through `cblas_sgemm`, or for a few
/// tokens through CVectorKernels (``directRows``); OpenBLAS is opened by the first batch that
/// needs it, so embedding a search's query never loads it, and when it does not load the
/// built-in kernels do every product (slower for passages, the same vectors).
///
/// The weights stay in the memory-mapped `model.safetensors`: nothing is copied at load.
///
/// Thread-safe: everything is immutable after `init`, and each `embed` call works in
/// buffers of its own, so several threads may call `embed` at once.
public final class EmbeddingModel: @unchecked Sendable {
    /// Length of each vector (384).
    public let dimensions: Int
    /// Texts are cut to this many tokens, `[CLS]` and `[SEP]` included (256, as
    /// sentence-transformers' `max_seq_length` for this model).
    public let maxTokens: Int
    /// The folder the model was read from.
    public let directory: URL
    /// Names the model and a digest of its configuration and tensor layout, so that stored
    /// vectors can tell when the model changed (`ModelLocation.identifier`).
    public let identifier: String
    /// The tokenizer (vocab.txt).
    public let tokenizer: WordPieceTokenizer
    /// Threads `embed` uses for a call with several batches.
    public let threads: Int

    private let config: BERTConfig
    private let tensors: SafeTensors
    private let wordEmbeddings: UnsafeBufferPointer<Float>
    private let positionEmbeddings: UnsafeBufferPointer<Float>
    private let typeEmbedding: UnsafeBufferPointer<Float>
    private let embeddingNorm: (gamma: UnsafeBufferPointer<Float>, beta: UnsafeBufferPointer<Float>)
    private let layers: [Layer]

    /// Tokens per forward batch (sequences are packed, not padded): large enough for BLAS to
    /// run at full speed, small enough to keep the working set in a few MB.
    static let batchTokens = 2048

    /// Reads config.json, vocab.txt and model.safetensors from `directory`.
    /// - Parameters:
    ///   - maxTokens: the cut, at most the model's `max_position_embeddings`; default 256.
    ///   - threads: worker threads for `embed` (default: the active processor count).
    public init(directory: URL, maxTokens: Int? = nil, threads: Int? = nil) throws(EmbeddingError) {
        self.directory = directory
        // Before any batch opens OpenBLAS, and before other threads of this model run.
        copenblas_prepare_environment()
        let config = try BERTConfig(file: directory.appendingPathComponent("config.json"))
        self.config = config
        self.tokenizer = try WordPieceTokenizer(
            vocabularyFile: directory.appendingPathComponent("vocab.txt"),
            lowercase: config.lowercase)
        guard tokenizer.pieceCount <= config.vocabSize else {
            throw EmbeddingError(
                "vocab.txt has \(tokenizer.pieceCount) pieces but config.json says \(config.vocabSize)",
                hint: "reinstall the model: `notes model install`")
        }
        let tensors = try SafeTensors(url: directory.appendingPathComponent("model.safetensors"))
        self.tensors = tensors
        self.dimensions = config.hidden
        self.maxTokens = min(maxTokens ?? 256, config.maxPositions)
        self.threads = max(1, threads ?? ProcessInfo.processInfo.activeProcessorCount)
        self.identifier = ModelLocation.identifier(
            name: ModelLocation.modelName, config: config.bytes, tensorHeader: tensors.headerBytes)

        let h = config.hidden
        // Checkpoints saved from BertModel name tensors `embeddings.…`; from BertForX, `bert.embeddings.…`.
        let prefix =
            tensors.entries["embeddings.word_embeddings.weight"] == nil
                && tensors.entries["bert.embeddings.word_embeddings.weight"] != nil ? "bert." : ""
        func t(_ name: String, _ shape: [Int]) throws(EmbeddingError) -> UnsafeBufferPointer<Float>
        {
            try tensors.floats(prefix + name, shape: shape)
        }
        wordEmbeddings = try t("embeddings.word_embeddings.weight", [config.vocabSize, h])
        positionEmbeddings = try t(
            "embeddings.position_embeddings.weight", [config.maxPositions, h])
        typeEmbedding = UnsafeBufferPointer(
            rebasing: try t("embeddings.token_type_embeddings.weight", [config.typeVocabSize, h])[
                0..<h])
        embeddingNorm = (
            try t("embeddings.LayerNorm.weight", [h]), try t("embeddings.LayerNorm.bias", [h])
        )
        var layers: [Layer] = []
        for i in 0..<config.layers {
            let p = "encoder.layer.\(i)."
            let projections = [
                try t(p + "attention.self.query.weight", [h, h]),
                try t(p + "attention.self.key.weight", [h, h]),
                try t(p + "attention.self.value.weight", [h, h]),
            ]
            let biases = [
                try t(p + "attention.self.query.bias", [h]),
                try t(p + "attention.self.key.bias", [h]),
                try t(p + "attention.self.value.bias", [h]),
            ]
            layers.append(
                Layer(
                    projections: Array(zip(projections, biases)),
                    attentionOut: try t(p + "attention.output.dense.weight", [h, h]),
                    attentionOutBias: try t(p + "attention.output.dense.bias", [h]),
                    attentionNorm: (
                        try t(p + "attention.output.LayerNorm.weight", [h]),
                        try t(p + "attention.output.LayerNorm.bias", [h])
                    ),
                    intermediate: try t(p + "intermediate.dense.weight", [config.intermediate, h]),
                    intermediateBias: try t(p + "intermediate.dense.bias", [config.intermediate]),
                    output: try t(p + "output.dense.weight", [h, config.intermediate]),
                    outputBias: try t(p + "output.dense.bias", [h]),
                    outputNorm: (
                        try t(p + "output.LayerNorm.weight", [h]),
                        try t(p + "output.LayerNorm.bias", [h])
                    )))
        }
        self.layers = layers
    }

    // MARK: - Tokens

    /// `[CLS] pieces… [SEP]`, cut to `maxTokens` (default: the model's `maxTokens`).
    public func tokenIDs(_ text: String, maxTokens: Int? = nil) -> [Int32] {
        tokenizer.encode(text, maxLength: min(maxTokens ?? self.maxTokens, config.maxPositions))
    }

    /// How many WordPiece tokens `text` has, without `[CLS]`/`[SEP]` and without a cut.
    public func tokenCount(_ text: String) -> Int {
        tokenizer.pieces(text).count
    }

    // MARK: - Embedding

    /// One L2-normalised vector of `dimensions` floats per text, in order.
    public func embed(_ texts: [String]) throws(EmbeddingError) -> [[Float]] {
        try embed(tokenIDs: texts.map { tokenIDs($0) })
    }

    /// The vectors of already tokenized texts (each `[CLS] … [SEP]`, at most
    /// `max_position_embeddings` ids).
    public func embed(tokenIDs sequences: [[Int32]]) throws(EmbeddingError) -> [[Float]] {
        guard !sequences.isEmpty else { return [] }
        for ids in sequences {
            guard !ids.isEmpty, ids.count <= config.maxPositions else {
                throw EmbeddingError(
                    "a text has \(ids.count) tokens; the model takes 1 to \(config.maxPositions)",
                    hint: "cut it with tokenIDs(_:maxTokens:)")
            }
            for id in ids where id < 0 || Int(id) >= config.vocabSize {
                throw EmbeddingError(
                    "token id \(id) is outside the vocabulary (0..<\(config.vocabSize))",
                    hint: "use the model's own tokenizer")
            }
        }
        // Longest first, packed into batches of about `batchTokens` tokens.
        let order = sequences.indices.sorted { sequences[$0].count > sequences[$1].count }
        var grouped: [[Int]] = []
        var current: [Int] = []
        var tokens = 0
        for index in order {
            let n = sequences[index].count
            if !current.isEmpty && (tokens + n > Self.batchTokens || current.count >= 128) {
                grouped.append(current)
                current = []
                tokens = 0
            }
            current.append(index)
            tokens += n
        }
        if !current.isEmpty { grouped.append(current) }
        let batches = grouped

        let d = dimensions
        let output = UnsafeMutableBufferPointer<Float>.allocate(capacity: sequences.count * d)
        defer { output.deallocate() }
        let workers = min(threads, batches.count)
        // Each worker writes the rows of its own texts only.
        nonisolated(unsafe) let outputBase = output.baseAddress!
        let work: @Sendable (Int) -> Void = { [self] worker in
            let maxBatchTokens =
                stride(from: worker, to: batches.count, by: workers).map { b in
                    batches[b].reduce(0) { $0 + sequences[$1].count }
                }.max() ?? 0
            let longest =
                stride(from: worker, to: batches.count, by: workers).map { b in
                    sequences[batches[b][0]].count
                }.max() ?? 0
            let scratch = Scratch(tokens: maxBatchTokens, longest: longest, config: config)
            defer { scratch.deallocate() }
            for b in stride(from: worker, to: batches.count, by: workers) {
                forward(batches[b].map { sequences[$0] }, scratch: scratch) { i, vector in
                    (outputBase + batches[b][i] * d).update(from: vector, count: d)
                }
            }
        }
        if workers <= 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers, execute: work)
        }
        return (0..<sequences.count).map {
            Array(UnsafeBufferPointer(rebasing: output[($0 * d)..<(($0 + 1) * d)]))
        }
    }

    /// Inputs up to this many tokens (a search query) go through CVectorKernels' products,
    /// which read the weights in place; OpenBLAS first packs them, which costs more than the
    /// arithmetic for a few rows and less for a batch of passages.
    static let directRows = 16

    /// Whether a batch of `rows` tokens runs on CVectorKernels alone: a few tokens on a CPU
    /// they are written for, or any batch when OpenBLAS does not load (checked only then, so
    /// a query never opens it).
    static func isDirect(rows: Int, level: Int32) -> Bool {
        (rows <= directRows && level >= Int32(NOTES_KERNELS_AVX2.rawValue)) || !BLAS.isAvailable
    }

    /// `into` = X · Wᵀ for X of `rows` × `inputs` and a weight matrix of `outputs` rows (added
    /// to what `into` holds with `adding`), rows of `into` `stride` apart (default `outputs`).
    private func linear(
        _ x: UnsafePointer<Float>, rows: Int, inputs: Int, _ weight: UnsafeBufferPointer<Float>,
        outputs: Int, adding: Bool = false, into out: UnsafeMutablePointer<Float>,
        stride: Int? = nil, direct: Bool
    ) {
        let stride = stride ?? outputs
        if direct {
            notes_products_nt(
                notes_kernel_level(), Int32(rows), Int32(outputs), Int32(inputs), x,
                weight.baseAddress!,
                adding ? 1 : 0, out, Int32(stride))
        } else {
            copenblas_sgemm(
                noTrans, trans, Int32(rows), Int32(outputs), Int32(inputs), 1, x, Int32(inputs),
                weight.baseAddress!, Int32(inputs), adding ? 1 : 0, out, Int32(stride))
        }
    }

    /// One forward pass over sequences packed one after another (no padding: attention is
    /// computed within each sequence's own rows, so none is needed); `emit` gets each
    /// sequence's pooled, normalised vector.
    private func forward(
        _ batch: [[Int32]], scratch s: Scratch, emit: (Int, UnsafePointer<Float>) -> Void
    ) {
        let h = config.hidden
        let heads = config.heads
        let headSize = h / heads
        let inter = config.intermediate
        let eps = config.layerNormEps
        let rows = batch.reduce(0) { $0 + $1.count }
        let direct = Self.isDirect(rows: rows, level: notes_kernel_level())
        var offsets: [Int] = []
        var start = 0
        for ids in batch {
            offsets.append(start)
            start += ids.count
        }
        let x = s.hidden
        let qkv = s.qkv
        let ctx = s.context
        let a = s.residual
        let ff = s.intermediate
        let scores = s.scores

        // Embeddings: word + position + token type 0, then LayerNorm.
        for (n, ids) in batch.enumerated() {
            for (p, id) in ids.enumerated() {
                let row = x + (offsets[n] + p) * h
                let word = wordEmbeddings.baseAddress! + Int(id) * h
                let position = positionEmbeddings.baseAddress! + p * h
                let type = typeEmbedding.baseAddress!
                for j in 0..<h { row[j] = word[j] + position[j] + type[j] }
            }
        }
        layerNorm(
            x, rows: rows, width: h, residual: nil, bias: nil,
            gamma: embeddingNorm.gamma.baseAddress!, beta: embeddingNorm.beta.baseAddress!,
            eps: eps, into: x)

        let scale = 1 / Float(headSize).squareRoot()
        for layer in layers {
            // Q, K and V side by side in each token's row: [rows × 3h], block n = X · Wnᵀ + bn.
            for (n, projection) in layer.projections.enumerated() {
                fillRows(
                    qkv + n * h, rows: rows, with: projection.bias.baseAddress!, width: h,
                    stride: 3 * h)
                linear(
                    x, rows: rows, inputs: h, projection.weight, outputs: h, adding: true,
                    into: qkv + n * h, stride: 3 * h, direct: direct)
            }
            // Attention, per sequence and head, over that sequence's rows only.
            for (n, ids) in batch.enumerated() {
                let len = ids.count
                let base = qkv + offsets[n] * 3 * h
                for head in 0..<heads {
                    let q = base + head * headSize
                    let k = base + h + head * headSize
                    let v = base + 2 * h + head * headSize
                    let out = ctx + offsets[n] * h + head * headSize
                    if direct {
                        smallAttention(
                            q: q, k: k, v: v, stride: 3 * h, length: len, width: headSize,
                            scale: scale, scores: scores, into: out, outStride: h)
                        continue
                    }
                    copenblas_sgemm(
                        noTrans, trans, Int32(len), Int32(len), Int32(headSize),
                        scale, q, Int32(3 * h), k, Int32(3 * h), 0, scores, Int32(len))
                    softmaxRows(scores, rows: len, width: len)
                    copenblas_sgemm(
                        noTrans, noTrans, Int32(len), Int32(headSize), Int32(len),
                        1, scores, Int32(len), v, Int32(3 * h), 0, out, Int32(h))
                }
            }
            // Output projection + residual, LayerNorm.
            linear(
                ctx, rows: rows, inputs: h, layer.attentionOut, outputs: h, into: a, direct: direct)
            layerNorm(
                a, rows: rows, width: h, residual: x, bias: layer.attentionOutBias.baseAddress!,
                gamma: layer.attentionNorm.gamma.baseAddress!,
                beta: layer.attentionNorm.beta.baseAddress!, eps: eps, into: x)
            // Feed-forward: GELU(X · W1ᵀ + b1) · W2ᵀ + b2 + residual, LayerNorm.
            linear(
                x, rows: rows, inputs: h, layer.intermediate, outputs: inter, into: ff,
                direct: direct)
            gelu(ff, rows: rows, width: inter, bias: layer.intermediateBias.baseAddress!)
            linear(
                ff, rows: rows, inputs: inter, layer.output, outputs: h, into: a, direct: direct)
            layerNorm(
                a, rows: rows, width: h, residual: x, bias: layer.outputBias.baseAddress!,
                gamma: layer.outputNorm.gamma.baseAddress!,
                beta: layer.outputNorm.beta.baseAddress!, eps: eps, into: x)
        }

        // Mean over each sequence's tokens, then L2 normalisation.
        let pooled = s.pooled
        for (n, ids) in batch.enumerated() {
            pooled.update(repeating: 0, count: h)
            for p in 0..<ids.count {
                let row = x + (offsets[n] + p) * h
                for j in 0..<h { pooled[j] += row[j] }
            }
            var norm: Float = 0
            let inverseCount = 1 / Float(ids.count)
            for j in 0..<h {
                pooled[j] *= inverseCount
                norm += pooled[j] * pooled[j]
            }
            let inverseNorm = 1 / max(norm.squareRoot(), 1e-12)
            for j in 0..<h { pooled[j] *= inverseNorm }
            emit(n, pooled)
        }
    }
}

// MARK: - Kernels

private let noTrans = Int32(COPENBLAS_NO_TRANS)
private let trans = Int32(COPENBLAS_TRANS)

/// OpenBLAS, opened by the first batch that needs it (Sources/COpenBLAS/shim.h); without it
/// the built-in kernels do every product. It stays in the file that calls `copenblas_sgemm`:
/// the shim's state lives in `static inline` functions, of which a build that compiles files
/// separately (debug) gives each file its own copy.
public enum BLAS {
    /// Whether OpenBLAS loads (it is opened by the first call).
    public static var isAvailable: Bool { copenblas_load() == nil }

    /// What does a batch's matrix products, for `notes model`: "OpenBLAS (SkylakeX)", or why
    /// the built-in kernels do (opens OpenBLAS).
    public static var products: (openBLAS: Bool, description: String) {
        if let problem = copenblas_load() {
            return (false, "built-in kernels (OpenBLAS does not load: \(String(cString: problem)))")
        }
        return (true, "OpenBLAS (\(String(cString: copenblas_core_name())))")
    }
}

// MARK: - Parts

private struct Layer {
    /// The query, key and value projections: weight [h × h] and bias [h].
    var projections: [(weight: UnsafeBufferPointer<Float>, bias: UnsafeBufferPointer<Float>)]
    var attentionOut: UnsafeBufferPointer<Float>
    var attentionOutBias: UnsafeBufferPointer<Float>
    var attentionNorm: (gamma: UnsafeBufferPointer<Float>, beta: UnsafeBufferPointer<Float>)
    var intermediate: UnsafeBufferPointer<Float>
    var intermediateBias: UnsafeBufferPointer<Float>
    var output: UnsafeBufferPointer<Float>
    var outputBias: UnsafeBufferPointer<Float>
    var outputNorm: (gamma: UnsafeBufferPointer<Float>, beta: UnsafeBufferPointer<Float>)
}

/// One worker's buffers, sized for its largest batch.
private struct Scratch {
    let hidden: UnsafeMutablePointer<Float>
    let qkv: UnsafeMutablePointer<Float>
    let context: UnsafeMutablePointer<Float>
    let residual: UnsafeMutablePointer<Float>
    let intermediate: UnsafeMutablePointer<Float>
    let scores: UnsafeMutablePointer<Float>
    let pooled: UnsafeMutablePointer<Float>

    init(tokens: Int, longest: Int, config: BERTConfig) {
        let h = config.hidden
        hidden = .allocate(capacity: tokens * h)
        qkv = .allocate(capacity: tokens * 3 * h)
        context = .allocate(capacity: tokens * h)
        residual = .allocate(capacity: tokens * h)
        intermediate = .allocate(capacity: tokens * config.intermediate)
        scores = .allocate(capacity: max(1, longest * longest))
        pooled = .allocate(capacity: h)
    }

    func deallocate() {
        for p in [hidden, qkv, context, residual, intermediate, scores, pooled] { p.deallocate() }
    }
}
