/// One argument of a tool: its JSON schema and what it means, written for a model.
public struct ToolParameter: Sendable {
    public var name: String
    public var schema: [String: JSONValue]
    public var required: Bool

    public static func string(
        _ name: String, _ description: String?, required: Bool = false, choices: [String]? = nil
    ) -> ToolParameter {
        var schema: [String: JSONValue] = ["type": .string("string")]
        if let description { schema["description"] = .string(description) }
        if let choices { schema["enum"] = .array(choices.map(JSONValue.string)) }
        return ToolParameter(name: name, schema: schema, required: required)
    }

    public static func integer(
        _ name: String, _ description: String?, minimum: Int, maximum: Int? = nil
    ) -> ToolParameter {
        var schema: [String: JSONValue] = ["type": .string("integer"), "minimum": .int(minimum)]
        if let description { schema["description"] = .string(description) }
        if let maximum { schema["maximum"] = .int(maximum) }
        return ToolParameter(name: name, schema: schema, required: false)
    }

    public static func boolean(_ name: String, _ description: String?) -> ToolParameter {
        var schema: [String: JSONValue] = ["type": .string("boolean")]
        if let description { schema["description"] = .string(description) }
        return ToolParameter(name: name, schema: schema, required: false)
    }

    public static func strings(_ name: String, _ description: String) -> ToolParameter {
        ToolParameter(
            name: name,
            schema: [
                "type": .string("array"), "items": .object(["type": .string("string")]),
                "description": .string(description),
            ], required: false)
    }
}

/// A tool as a model sees it (docs/spec.md §7): name, description, argument schema and the hints
/// clients use to decide what needs the person's approval.
public struct ToolDefinition: Sendable {
    public var name: String
    /// A short human title ("Read a file").
    public var title: String
    public var description: String
    public var parameters: [ToolParameter]
    /// Only reads; safe to call at any time.
    public var readOnly: Bool
    /// May replace or remove the person's text (overwrite, delete, move).
    public var destructive: Bool
    /// Calling it twice with the same arguments has no further effect.
    public var idempotent: Bool
    /// Reaches outside the workspace (the web).
    public var openWorld: Bool = false
    /// Arguments whose schema is not a flat list of parameters (edit_file's edits).
    var extraSchema: [String: JSONValue] = [:]

    /// The JSON schema of the arguments, with no additional properties allowed.
    public var inputSchema: JSONValue {
        var properties: [String: JSONValue] = [:]
        for parameter in parameters { properties[parameter.name] = .object(parameter.schema) }
        for (name, schema) in extraSchema { properties[name] = schema }
        var schema: [String: JSONValue] = [
            "type": .string("object"), "properties": .object(properties),
            "additionalProperties": .bool(false),
        ]
        let required = parameters.filter(\.required).map(\.name) + extraRequired
        if !required.isEmpty { schema["required"] = .array(required.map(JSONValue.string)) }
        return .object(schema)
    }

    var extraRequired: [String] = []

    /// Every argument name the tool accepts.
    public var parameterNames: Set<String> { Set(parameters.map(\.name)).union(extraSchema.keys) }
}
