import Foundation

/// The prompts a client can offer the person (docs/spec.md §7: `draft_introduction(topic)`,
/// `daily_review`): ready-made tasks that use the tools the way the workspace expects.
public enum AgentPrompts {
    public struct Prompt: Sendable {
        public var name: String
        public var title: String
        public var description: String
        /// Argument name → (description, required).
        public var arguments: [(name: String, description: String, required: Bool)]
    }

    public static let all: [Prompt] = [
        Prompt(
            name: "draft_introduction", title: "Draft an introduction",
            description:
                "Draft Research/<topic>/introduction.md from what the workspace already holds, for the person to refine.",
            arguments: [("topic", "The research topic, e.g. \"Moby Dick\".", true)]),
        Prompt(
            name: "daily_review", title: "Daily review",
            description:
                "Review what changed today, summarise it in today's journal, and remember what you learned.",
            arguments: []),
    ]

    /// The text of prompt `name` with `arguments`, or nil for an unknown prompt.
    public static func render(_ name: String, arguments: [String: String], today: String) -> String?
    {
        switch name {
        case "draft_introduction":
            let topic = (arguments["topic"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let slug = topic.lowercased().split { !$0.isLetter && !$0.isNumber }.joined(
                separator: "-")
            let folder = "Research/\(slug.isEmpty ? "topic" : slug)"
            return """
                Draft an introduction to \(topic.isEmpty ? "the topic" : topic) for me.

                1. Call get_context to see what you know about me and what changed recently.
                2. Use search (content) and list_files (names) to find what the workspace already holds about \(topic.isEmpty ? "it" : topic), \
                and read_file the most relevant notes and sources.
                3. Write \(folder)/introduction.md: a title, a short overview, the key themes with pointers to the notes they come from, \
                and open questions. If the file exists, read it first: I may have refined your earlier draft, so change it with \
                edit_file on lines I did not write, or stop and ask me; never overwrite my text.
                4. append_file a one-line entry to Journal/\(today).md saying what you drafted and from which notes.
                5. remember anything you learned about my interests or preferences.
                """
        case "daily_review":
            return """
                Review today (\(today)) in this workspace.

                1. Call get_context: note what I changed since your last session and any proposals waiting for my review.
                2. read_file the notes I changed and search for related notes.
                3. append_file to Journal/\(today).md a short summary under a heading "Review": what changed, open threads, \
                suggested next steps. Do not edit my notes.
                4. remember new facts about my work or preferences (one short sentence each).
                """
        default:
            return nil
        }
    }
}
