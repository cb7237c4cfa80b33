import NotesCore

/// The arguments of one tool call, checked against the tool's declared parameters: an
/// unknown name, a wrong type, a missing required value or an absurdly large or deep value
/// is an `invalid_argument` error before anything touches the workspace (docs/spec.md §7).
public struct ToolArguments: Sendable {
    /// Deepest nesting accepted anywhere in the arguments (the deepest legitimate one,
    /// `edit_file`'s edits, is 3).
    public static let maxDepth = 16
    /// Longest string accepted for a name-like argument (paths, queries, sections).
    public static let maxNameBytes = 4096

    /// Names agents use for a tool's parameters, and the parameter meant.
    static let usualNames = [
        "in": "path", "folder": "path", "dir": "path", "directory": "path", "file": "path",
        "q": "query", "text": "query", "max": "limit", "count": "limit",
    ]

    let tool: String
    let values: [String: JSONValue]

    /// Validates `values` against `parameters` (the names the tool declares).
    public init(tool: String, values: [String: JSONValue], parameters: Set<String>)
        throws(NotesError)
    {
        self.tool = tool
        self.values = values
        let unknown = values.keys.filter { !parameters.contains($0) }.sorted()
        if !unknown.isEmpty {
            let known = parameters.sorted().joined(separator: ", ")
            // The name an agent most likely meant (the CLI's `--in` is the tool's `path`).
            let meant = unknown.compactMap { name in
                Self.usualNames[name].flatMap {
                    parameters.contains($0) ? "\($0) for \(name)" : nil
                }
            }
            throw NotesError(
                .invalidArgument,
                "\(tool) has no argument \(unknown.map { "'\($0)'" }.joined(separator: ", "))",
                hint: known.isEmpty
                    ? "call \(tool) with no arguments"
                    : (meant.isEmpty ? "" : "use \(meant.joined(separator: ", ")); ")
                        + "its arguments are: \(known)")
        }
        for (name, value) in values where value.depth > Self.maxDepth {
            throw NotesError(
                .invalidArgument,
                "\(tool): argument '\(name)' is nested \(value.depth) levels deep",
                hint: "pass plain values as the tool's schema describes")
        }
    }

    /// A string argument exactly as passed, unchecked (nil when absent or not a string): for
    /// telling what an answer need not repeat.
    func given(_ name: String) -> String? {
        if case .string(let s)? = values[name] { return s }
        return nil
    }

    /// A string argument; `required` ones must be present and non-null.
    public func string(
        _ name: String, required: Bool = false, maxBytes: Int = ToolArguments.maxNameBytes
    ) throws(NotesError) -> String? {
        switch values[name] {
        case nil, .null?:
            if required { throw missing(name, "a string") }
            return nil
        case .string(let s)?:
            if s.utf8.count > maxBytes {
                throw NotesError(
                    .invalidArgument,
                    "\(tool): '\(name)' is \(s.utf8.count) bytes long (at most \(maxBytes))",
                    hint: "pass a shorter \(name)")
            }
            return s
        case let other?:
            throw mistyped(name, "a string", other)
        }
    }

    /// A required string argument.
    public func requiredString(_ name: String, maxBytes: Int = ToolArguments.maxNameBytes)
        throws(NotesError) -> String
    {
        guard let s = try string(name, required: true, maxBytes: maxBytes) else {
            throw missing(name, "a string")
        }
        return s
    }

    /// An integer argument within `range`.
    public func int(_ name: String, in range: ClosedRange<Int>) throws(NotesError) -> Int? {
        let number: Int
        switch values[name] {
        case nil, .null?: return nil
        case .int(let i)?: number = i
        case .double(let d)? where d.rounded() == d && abs(d) < 1e15: number = Int(d)
        case let other?: throw mistyped(name, "an integer", other)
        }
        guard range.contains(number) else {
            throw NotesError(
                .invalidArgument,
                "\(tool): '\(name)' must be between \(range.lowerBound) and \(range.upperBound), got \(number)",
                hint: "pass a value in that range")
        }
        return number
    }

    /// A boolean argument (absent = `false`).
    public func bool(_ name: String) throws(NotesError) -> Bool {
        switch values[name] {
        case nil, .null?: return false
        case .bool(let b)?: return b
        case let other?: throw mistyped(name, "true or false", other)
        }
    }

    /// One of `choices`.
    public func choice(_ name: String, _ choices: [String]) throws(NotesError) -> String? {
        guard let s = try string(name) else { return nil }
        guard choices.contains(s) else {
            throw NotesError(
                .invalidArgument,
                "\(tool): '\(name)' must be one of \(choices.joined(separator: ", ")), got '\(s)'",
                hint: "pick one of those values")
        }
        return s
    }

    /// A list of strings (a single string is accepted as a list of one).
    public func strings(_ name: String, maxCount: Int = 64) throws(NotesError) -> [String] {
        switch values[name] {
        case nil, .null?: return []
        case .string(let s)?: return [s]
        case .array(let items)?:
            guard items.count <= maxCount else {
                throw NotesError(
                    .invalidArgument,
                    "\(tool): '\(name)' has \(items.count) items (at most \(maxCount))",
                    hint: "pass fewer values")
            }
            var out: [String] = []
            for item in items {
                guard case .string(let s) = item, s.utf8.count <= Self.maxNameBytes else {
                    throw NotesError(
                        .invalidArgument, "\(tool): '\(name)' must be a list of strings",
                        hint: "e.g. [\"research\", \"whales\"]")
                }
                out.append(s)
            }
            return out
        case let other?:
            throw mistyped(name, "a list of strings", other)
        }
    }

    /// A list of objects, each with exactly the string fields `fields` (all required).
    public func objects(
        _ name: String, fields: [String], optional: Set<String> = [], maxCount: Int, maxBytes: Int
    ) throws(NotesError) -> [[String: String]] {
        guard case .array(let items)? = values[name] else {
            if values[name] == nil || values[name] == .null { throw missing(name, "a list") }
            throw mistyped(name, "a list", values[name] ?? .null)
        }
        guard !items.isEmpty, items.count <= maxCount else {
            throw NotesError(
                .invalidArgument,
                "\(tool): '\(name)' must hold 1 to \(maxCount) items, got \(items.count)",
                hint: "pass at least one item")
        }
        let example = "{" + fields.map { "\"\($0)\": \"…\"" }.joined(separator: ", ") + "}"
        var out: [[String: String]] = []
        for (i, item) in items.enumerated() {
            guard case .object(let object) = item else {
                throw NotesError(
                    .invalidArgument, "\(tool): \(name)[\(i)] must be an object \(example)",
                    hint: "pass objects with exactly those fields")
            }
            if let extra = object.keys.first(where: { !fields.contains($0) }) {
                throw NotesError(
                    .invalidArgument, "\(tool): \(name)[\(i)] has no field '\(extra)'",
                    hint: "each item is \(example)")
            }
            var entry: [String: String] = [:]
            for field in fields {
                if optional.contains(field), object[field] == nil || object[field] == .null {
                    continue
                }
                guard case .string(let s)? = object[field] else {
                    throw NotesError(
                        .invalidArgument, "\(tool): \(name)[\(i)].\(field) must be a string",
                        hint: "each item is \(example)")
                }
                guard s.utf8.count <= maxBytes else {
                    throw NotesError(
                        .tooLarge,
                        "\(tool): \(name)[\(i)].\(field) is \(s.utf8.count) bytes (at most \(maxBytes))",
                        hint: "make smaller edits")
                }
                entry[field] = s
            }
            out.append(entry)
        }
        return out
    }

    /// An object of string values (template variables).
    public func stringMap(_ name: String, maxCount: Int = 64) throws(NotesError) -> [String: String]
    {
        switch values[name] {
        case nil, .null?: return [:]
        case .object(let object)?:
            guard object.count <= maxCount else {
                throw NotesError(
                    .invalidArgument,
                    "\(tool): '\(name)' has \(object.count) entries (at most \(maxCount))",
                    hint: "pass fewer values")
            }
            var out: [String: String] = [:]
            for (key, value) in object {
                switch value {
                case .string(let s) where s.utf8.count <= Self.maxNameBytes: out[key] = s
                case .int(let i): out[key] = String(i)
                case .bool(let b): out[key] = String(b)
                default:
                    throw NotesError(
                        .invalidArgument, "\(tool): \(name).\(key) must be a short string",
                        hint: "pass text values")
                }
            }
            return out
        case let other?:
            throw mistyped(name, "an object", other)
        }
    }

    private func missing(_ name: String, _ type: String) -> NotesError {
        NotesError(
            .invalidArgument, "\(tool) needs '\(name)' (\(type))",
            hint: "call \(tool) again with \(name)")
    }

    private func mistyped(_ name: String, _ expected: String, _ got: JSONValue) -> NotesError {
        NotesError(
            .invalidArgument, "\(tool): '\(name)' must be \(expected), got \(got.typeName)",
            hint: "call \(tool) again with \(name) as \(expected)")
    }
}
