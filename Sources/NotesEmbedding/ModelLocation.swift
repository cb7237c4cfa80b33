import Foundation

/// Where the embedding model lives: `$NOTES_MODEL_DIR` (a folder holding the model's files
/// directly), else `$XDG_DATA_HOME/notes/models/all-MiniLM-L6-v2/`, else
/// `$HOME/.local/share/notes/models/all-MiniLM-L6-v2/`.
public enum ModelLocation {
    /// The model notes uses.
    public static let modelName = "all-MiniLM-L6-v2"
    /// The files a model folder must hold.
    public static let requiredFiles = ["config.json", "vocab.txt", "model.safetensors"]
    /// The small files installed with the model when present (tokenizer settings, the
    /// sentence-transformers pooling description).
    public static let optionalFiles = [
        "tokenizer_config.json", "tokenizer.json", "special_tokens_map.json",
        "sentence_bert_config.json", "config_sentence_transformers.json", "modules.json",
    ]
    /// How to install it, for messages.
    public static let installHint = "run `notes model install`"

    /// The folder the model is (or would be) in.
    public static func directory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let dir = environment["NOTES_MODEL_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir, isDirectory: true)
        }
        let data: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            data = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            data = home + "/.local/share"
        }
        return URL(fileURLWithPath: data, isDirectory: true)
            .appendingPathComponent("notes/models/\(modelName)", isDirectory: true)
    }

    /// The model's folder when every required file is there, else nil.
    public static func installed(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL? {
        let dir = directory(environment: environment)
        return missingFiles(in: dir).isEmpty ? dir : nil
    }

    /// The required files `folder` lacks (empty files count as missing).
    public static func missingFiles(in folder: URL) -> [String] {
        requiredFiles.filter { name in
            let path = folder.appendingPathComponent(name).path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                (attributes[.type] as? FileAttributeType) == .typeRegular,
                let size = attributes[.size] as? NSNumber
            else { return true }
            return size.intValue == 0
        }
    }

    /// The installed model, loaded; a one-line error saying how to install it when missing.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        threads: Int? = nil
    ) throws(EmbeddingError) -> EmbeddingModel {
        let dir = directory(environment: environment)
        let missing = missingFiles(in: dir)
        guard missing.isEmpty else {
            throw EmbeddingError(
                "the embedding model is not installed: \(dir.path) lacks \(missing.joined(separator: ", "))",
                hint: installHint)
        }
        return try EmbeddingModel(directory: dir, threads: threads)
    }

    /// `name@digest`: the model's name and 12 hex digits of a 64-bit FNV-1a digest of its
    /// config.json and its tensor header (names, shapes, byte ranges), so stored vectors can
    /// tell a different model or checkpoint from the one that made them. Not cryptographic.
    public static func identifier(name: String, config: [UInt8], tensorHeader: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in [config, [0], tensorHeader] {
            for byte in part {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        let hex = String(hash, radix: 16)
        return "\(name)@"
            + String((String(repeating: "0", count: max(0, 16 - hex.count)) + hex).prefix(12))
    }
}
