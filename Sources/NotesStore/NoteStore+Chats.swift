import NotesCore

extension NoteStore {
    /// The folder of the built-in agent's conversations (docs/spec.md §9.2).
    public static let chatsFolder = "Chats"

    /// Saves the checkpoint `Chats/<name>` atomically (temporary file, fsync, rename,
    /// folder fsync): a crash leaves the previous checkpoint or this one. Checkpoints are
    /// the agent's own running record, rewritten after every step, so they are not
    /// versioned in history.
    public func saveChat(_ name: String, bytes: [UInt8]) throws(NotesError) {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), name.hasSuffix(".json")
        else {
            throw NotesError(
                .invalidArgument, "'\(name)' is not a chat file name", hint: "report this as a bug")
        }
        let folder = try FolderHandle.openOwn(root: workspace.root, components: [Self.chatsFolder])
        try folder.replace(name, with: bytes, mode: nil)
    }
}
