import Foundation

/// The fields of config.json the forward pass needs (BERT).
struct BERTConfig: Sendable {
    var hidden: Int
    var layers: Int
    var heads: Int
    var intermediate: Int
    var vocabSize: Int
    var maxPositions: Int
    var typeVocabSize: Int
    var layerNormEps: Float
    var lowercase: Bool
    /// config.json's bytes (for the model's identifier).
    var bytes: [UInt8]

    init(file: URL) throws(EmbeddingError) {
        let name = file.lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw EmbeddingError("cannot read \(file.path)", hint: "run `notes model install`")
        }
        guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw EmbeddingError(
                "\(name) is not a JSON object", hint: "reinstall the model: `notes model install`")
        }
        func int(_ key: String, default value: Int? = nil) throws(EmbeddingError) -> Int {
            if let n = (json[key] as? NSNumber)?.intValue, n > 0 { return n }
            if let value { return value }
            throw EmbeddingError(
                "\(name) has no positive \(key)", hint: "reinstall the model: `notes model install`"
            )
        }
        if let type = json["model_type"] as? String, type != "bert" {
            throw EmbeddingError(
                "\(name) describes a \(type) model; only BERT models are supported",
                hint: "install all-MiniLM-L6-v2: `notes model install`")
        }
        if let act = json["hidden_act"] as? String, act != "gelu" {
            throw EmbeddingError(
                "\(name): activation \(act) is not supported (gelu only)",
                hint: "install all-MiniLM-L6-v2: `notes model install`")
        }
        hidden = try int("hidden_size")
        layers = try int("num_hidden_layers")
        heads = try int("num_attention_heads")
        intermediate = try int("intermediate_size")
        vocabSize = try int("vocab_size")
        maxPositions = try int("max_position_embeddings", default: 512)
        typeVocabSize = try int("type_vocab_size", default: 2)
        layerNormEps = (json["layer_norm_eps"] as? NSNumber)?.floatValue ?? 1e-12
        guard hidden % heads == 0 else {
            throw EmbeddingError(
                "\(name): hidden_size \(hidden) is not a multiple of num_attention_heads \(heads)",
                hint: "reinstall the model: `notes model install`")
        }
        // Uncased checkpoints; tokenizer_config.json's do_lower_case is checked by the caller.
        lowercase = true
        if let tokenizerConfig = try? Data(
            contentsOf: file.deletingLastPathComponent().appendingPathComponent(
                "tokenizer_config.json")),
            let object = try? JSONSerialization.jsonObject(with: tokenizerConfig) as? [String: Any],
            let lower = object["do_lower_case"] as? Bool
        {
            lowercase = lower
        }
        bytes = Array(data)
    }
}
