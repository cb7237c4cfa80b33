import Foundation
import NotesCore
import NotesStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sessions in `Chats/`: new ids, atomic saves after every step, loading for
/// `--resume`, the list for `--list`, and a per-session lock so that one session runs in
/// one process at a time (a crashed process's lock is released by the kernel).
public struct ChatArchive: Sendable {
    public let store: NoteStore

    public init(store: NoteStore) {
        self.store = store
    }

    var root: String { store.workspace.root }

    /// A new id: the local date and a slug of the task (`2026-11-21-draft-an-introduction`),
    /// with a number added when taken.
    public func newID(task: String, now: Double) -> String {
        let words = TemplateText.slug(task).split(separator: "-").prefix(5).joined(separator: "-")
        let base =
            Timestamp.localDate(now) + (words.isEmpty ? "-session" : "-" + String(words.prefix(48)))
        var id = base
        var n = 2
        while FileSystem.exists(file(id)) {
            id = "\(base)-\(n)"
            n += 1
        }
        return id
    }

    func file(_ id: String) -> String { root + "/" + NoteStore.chatsFolder + "/" + id + ".json" }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }()

    /// Writes the session's checkpoint atomically.
    public func save(_ session: inout ChatSession, now: Double = Timestamp.now()) throws(NotesError)
    {
        session.updatedAt = Timestamp.format(now)
        let data: Data
        do {
            data = try Self.encoder.encode(session)
        } catch {
            throw NotesError(
                .internal, "cannot encode session \(session.id): \(error)",
                hint: "report this as a bug")
        }
        try store.saveChat(session.id + ".json", bytes: Array(data) + [0x0A])
    }

    /// The session `id` as last saved.
    public func load(_ id: String) throws(NotesError) -> ChatSession {
        guard Self.isValidID(id) else {
            throw NotesError(
                .invalidArgument, "'\(id.prefix(100))' is not a session id",
                hint: "see notes agent --list")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: file(id), maxBytes: 512 << 20)
        } catch {
            throw NotesError(
                .notFound, "no session \(id) in \(NoteStore.chatsFolder)/",
                hint: "see notes agent --list")
        }
        do {
            return try JSONDecoder().decode(ChatSession.self, from: Data(bytes))
        } catch {
            throw NotesError(
                .invalidArgument,
                "\(NoteStore.chatsFolder)/\(id).json is not a session checkpoint (\(Self.describe(error)))",
                hint: "it may have been edited by hand; start a new session")
        }
    }

    /// Every session checkpoint in `Chats/`, newest first (other JSON files are skipped).
    public func list() -> [ChatSession] {
        let folder = root + "/" + NoteStore.chatsFolder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let sessions = names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.compactMap {
            name -> ChatSession? in
            try? load(String(name.dropLast(5)))
        }
        return sessions.sorted {
            $0.updatedAt == $1.updatedAt ? $0.id > $1.id : $0.updatedAt > $1.updatedAt
        }
    }

    /// Ids are file names: letters, digits, `-`, `_`, `.` (not leading).
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 120 && !id.hasPrefix(".")
            && id.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                    || $0 == "-" || $0 == "_" || $0 == "."
            }
    }

    static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        if case DecodingError.keyNotFound(let key, _) = error { return "no \(key.stringValue)" }
        if case DecodingError.typeMismatch(_, let context) = error {
            return "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        }
        if case DecodingError.valueNotFound(_, let context) = error {
            return
                "missing value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        }
        return "\(error)"
    }

    /// Takes session `id`'s lock, or fails when another live process holds it.
    public func lock(_ id: String) throws(NotesError) -> SessionLock {
        let folder = store.workspace.stateDirectory + "/agent"
        try FileSystem.makeDirectories(folder)
        let path = folder + "/" + id + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw NotesError.system(
                code, "cannot open the session lock \(path) (\(String(cString: strerror(code))))",
                hint: "check permissions on .notes/", path: path)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw NotesError(
                .invalidArgument, "session \(id) is running in another notes process",
                hint: "wait for it to finish, or stop it with Ctrl-C")
        }
        return SessionLock(fd: fd)
    }
}

/// Held while a process runs a session; released on deinit or when the process dies.
public final class SessionLock: Sendable {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }
}
