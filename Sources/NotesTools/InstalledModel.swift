import Foundation
import NotesEmbedding
import NotesIndex

/// The embedding model is the index's ``TextEmbedder``: the index stores and compares
/// vectors, the model makes them.
extension EmbeddingModel: TextEmbedder {
    public var paraphraseSimilarity: Float? { InstalledModel.paraphraseSimilarity }
}

/// The installed embedding model, for the command line, `notes watch`, the MCP server and
/// the built-in agent.
public enum InstalledModel {
    /// all-MiniLM-L6-v2 puts a paraphrase of a question above ~0.75 and related texts at
    /// 0.3–0.6 (`NOTES_PARAPHRASE_SIMILARITY` overrides it, for tuning on the question sets):
    /// see ``TextEmbedder/paraphraseSimilarity``.
    public static let paraphraseSimilarity: Float = {
        if let text = ProcessInfo.processInfo.environment["NOTES_PARAPHRASE_SIMILARITY"],
            let value = Float(text)
        {
            return value
        }
        return 0.75
    }()

    /// The model when one is installed and loads; nil otherwise (searches then run by
    /// words alone, never failing for want of a model).
    /// - Parameter threads: threads for embedding many passages (one for a query).
    public static func load(threads: Int? = nil) -> EmbeddingModel? {
        guard ModelLocation.installed() != nil else { return nil }
        return try? ModelLocation.load(threads: threads)
    }

    /// The installed model loaded only when first used (nil when none is installed): a
    /// search touches it only once it knows vectors exist, so a command on a workspace that
    /// was never embedded does not pay for loading the model.
    public static func lazy(threads: Int? = nil) -> (any TextEmbedder)? {
        guard ModelLocation.installed() != nil else { return nil }
        return LazyModel(threads: threads)
    }

    /// Why search by meaning is unavailable, for `notes status` and `get_context`: nil when
    /// a model is installed and loads.
    public static func unavailableReason() -> String? {
        guard ModelLocation.installed() != nil else {
            return
                "no embedding model installed: search runs by words only (\(ModelLocation.installHint))"
        }
        do {
            _ = try ModelLocation.load(threads: 1)
            return nil
        } catch {
            return "the embedding model does not load (\(error)): search runs by words only"
        }
    }
}
