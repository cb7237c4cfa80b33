import ArgumentParser
import Foundation
import NotesCore
import NotesStore

/// What the shell completions (`notes --generate-completion-script bash|zsh|fish`) offer
/// besides command and option names (docs/cli.md "Shell completion"). Paths, template
/// names, proposal ids and versions are asked of `notes` itself when Tab is pressed
/// (ArgumentParser's `---completion` call back into the binary) and answered from the
/// workspace's folders and history as they are: no index is opened or refreshed, so a Tab
/// press costs a few directory reads.
enum Completion {
    /// Files and folders, typed as the commands take them (``PathBase``: relative to the
    /// current folder, or to the root with `-w`); the names the index leaves out (`.notes/`,
    /// every dot-name, editor debris, sync-conflict copies, the config's `ignore:`) are not
    /// offered.
    static let paths = CompletionKind.custom { words, _, prefix in
        Completion.workspacePaths(words: words, prefix: prefix, foldersOnly: false)
    }

    /// Folders only (`list DIR`, `search --in DIR`).
    static let folders = CompletionKind.custom { words, _, prefix in
        Completion.workspacePaths(words: words, prefix: prefix, foldersOnly: true)
    }

    /// The names `notes new` takes (the built-in templates and the workspace's overrides).
    static let templates = CompletionKind.custom { words, _, _ in
        let workspace = Completion.workspace(words: words)?.workspace
        guard let library = try? TemplateLibrary.locate(explicit: nil),
            let catalog = try? TemplateCatalog.load(library: library, workspace: workspace)
        else { return [] }
        return catalog.templates.map(\.name)
    }

    /// The ids of pending proposals (`notes review ID`).
    static let proposals = CompletionKind.custom { words, _, _ in
        guard let workspace = Completion.workspace(words: words)?.workspace else { return [] }
        return NoteStore(workspace: workspace).proposals.list().map(\.id)
    }

    /// The versions of the file the command line names (`diff PATH V1 V2`, `restore PATH
    /// --version V`), newest first, that history still holds a copy of (the log, not the index).
    static let versions = CompletionKind.custom { words, _, _ in
        guard let base = Completion.workspace(words: words),
            let typed = Completion.firstPath(in: words),
            let path = try? base.resolve(typed)
        else { return [] }
        let history = NoteStore(workspace: base.workspace).history
        var seen: Set<String> = []
        return history.history(of: path.relative).records.reversed().compactMap(\.after)
            .filter { seen.insert($0).inserted && history.hasObject($0) }
    }

    /// The options whose value is the next word.
    static let valueOptions: Set<String> = [
        "-w", "--workspace", "--index-dir", "--color", "--version", "--expected-version",
    ]

    /// The command's first argument that is neither an option nor an option's value
    /// (`notes -w DIR restore PATH --version …` → PATH).
    static func firstPath(in words: [String]) -> String? {
        var positionals: [String] = []
        var i = 1  // after the program's name
        while i < words.count {
            let word = unquoted(words[i])
            if word == "--" {
                positionals += words[(i + 1)...].map(unquoted)
                break
            }
            if valueOptions.contains(word) {
                i += 2
                continue
            }
            if !word.hasPrefix("-") { positionals.append(word) }
            i += 1
        }
        guard positionals.count > 1, !positionals[1].isEmpty else { return nil }
        return positionals[1]
    }

    /// The values of an option that takes one of a fixed set.
    static func values<T: CaseIterable & RawRepresentable>(_: T.Type) -> CompletionKind
    where T.RawValue == String {
        .list(T.allCases.map(\.rawValue))
    }

    /// The workspace the command line being completed names (`-w DIR`, `--workspace=DIR`,
    /// else `$NOTES_WORKSPACE`, else the folder above holding `.notes/`), with its base.
    static func workspace(words: [String]) -> PathBase? {
        var explicit: String?
        var i = 0
        while i < words.count {
            let word = unquoted(words[i])
            if word == "--" { break }
            if word == "-w" || word == "--workspace", i + 1 < words.count {
                explicit = unquoted(words[i + 1])
                i += 1
            } else if word.hasPrefix("--workspace=") {
                explicit = String(word.dropFirst("--workspace=".count))
            }
            i += 1
        }
        if let given = explicit, given == "~" || given.hasPrefix("~/") {
            explicit = NSHomeDirectory() + given.dropFirst()
        }
        let environment = ProcessInfo.processInfo.environment
        guard
            let workspace = try? Workspace.discover(
                explicit: explicit, environment: environment,
                currentDirectory: FileSystem.currentDirectory())
        else { return nil }
        let named = !(explicit ?? "").isEmpty || !(environment["NOTES_WORKSPACE"] ?? "").isEmpty
        return PathBase(workspace, named: named)
    }

    /// The entries of the folder `prefix` is in whose names begin with the rest of it, as
    /// `prefix` spells the folder; folders end with "/".
    static func workspacePaths(words: [String], prefix typed: String, foldersOnly: Bool)
        -> [String]
    {
        guard let base = workspace(words: words) else { return [] }
        let prefix = unquoted(typed)
        let slash = prefix.lastIndex(of: "/")
        let folderPart = slash.map { String(prefix[...$0]) } ?? ""
        let namePart = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        let root = base.workspace.root
        let relative: String
        if folderPart.hasPrefix("/") {
            let real = FileSystem.realPath(folderPart) ?? folderPart
            if real == root {
                relative = ""
            } else if real.hasPrefix(root + "/") {
                relative = String(real.dropFirst(root.count + 1))
            } else {
                return []
            }
        } else {
            guard let normalized = try? WorkspacePath.normalize(folderPart, from: base.folder)
            else { return [] }
            relative = normalized
        }
        let rules = IgnoreRules(globs: base.workspace.config.ignore)
        var walked = ""
        for component in relative.split(separator: "/") {
            walked += walked.isEmpty ? String(component) : "/" + component
            if rules.verdict(name: String(component), path: walked) != .include { return [] }
        }
        let folder = relative.isEmpty ? root : root + "/" + relative
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            return []
        }
        var candidates: [String] = []
        for name in names.filter({ $0.hasPrefix(namePart) }).sorted() {
            let path = relative.isEmpty ? name : relative + "/" + name
            guard rules.verdict(name: name, path: path) == .include else { continue }
            var info = stat()
            guard lstat(folder + "/" + name, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: candidates.append(folderPart + name + "/")
            case S_IFREG where !foldersOnly: candidates.append(folderPart + name)
            default: continue  // symlinks and special files: the walk does not follow them
            }
        }
        return candidates
    }

    /// A shell word as typed with its quoting taken off (`"My notes/a` → `My notes/a`,
    /// `My\ notes` → `My notes`).
    static func unquoted(_ word: String) -> String {
        var out = ""
        var quote: Character?
        var escaped = false
        for c in word {
            if escaped {
                out.append(c)
                escaped = false
            } else if c == "\\" && quote != "'" {
                escaped = true
            } else if let q = quote, c == q {
                quote = nil
            } else if quote == nil && (c == "'" || c == "\"") {
                quote = c
            } else {
                out.append(c)
            }
        }
        return out
    }
}
