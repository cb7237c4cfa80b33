import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The person's typing, kept when saving it failed (issue 34 item 1): the editor exited
/// non-zero, the disk was full or read-only, the workspace lock was held too long, or the
/// change collided with another one.
///
/// The copy goes to `.notes/recovery/<path with / as %2F>` (the edited text, readable as
/// it is) with a sidecar `….notes-base.json` naming the version and text the edit started
/// from, so `notes edit PATH --resume` applies the same rules as a normal save (a change
/// made meanwhile is merged). A collision on resume turns the copy into the person's text
/// with both versions between conflict markers, based on the file as it is then: once the
/// person has resolved the markers, the next `--resume` saves it. When the workspace cannot take the copy
/// (the disk that failed the save is full or read-only), the editor's own temporary file is
/// left where it is, with the sidecar beside it when possible, and its path is printed with
/// `--resume --from FILE`. The typing is removed only after it is in the file.
struct KeptEdit {
    /// Where the edited text is.
    let file: String
    let edited: String
    /// The text and version the edit started from ("" for a new file).
    let base: String
    let baseVersion: String

    static let sidecarSuffix = ".notes-base.json"

    private struct Sidecar: Codable {
        var path: String
        var version: String
        var text: String
    }

    static func folder(_ ws: Workspace) -> String { ws.stateDirectory + "/recovery" }

    static func name(for relative: String) -> String {
        relative.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(
            of: "/", with: "%2F")
    }

    /// Keeps `edited` for `relative`; returns the path of the kept copy. `temporary` is the
    /// editor's file holding the same text: it is the fallback when the workspace cannot
    /// take a copy (then the caller must not remove it).
    static func keep(
        _ edited: String, base: String, baseVersion: String, relative: String, in ws: Workspace,
        temporary: String?
    ) -> String? {
        let sidecar =
            (try? JSONEncoder().encode(Sidecar(path: relative, version: baseVersion, text: base)))
            .map { Array($0) } ?? []
        let folder = folder(ws)
        if mkdir(folder, 0o700) == 0 || errno == EEXIST {
            // An earlier kept edit of the same file is never overwritten: the next free name.
            var target = folder + "/" + name(for: relative)
            var n = 2
            while access(target, F_OK) == 0 || access(target + sidecarSuffix, F_OK) == 0 {
                let plain = name(for: relative) as NSString
                let ext = plain.pathExtension
                target =
                    folder + "/" + plain.deletingPathExtension + "~\(n)"
                    + (ext.isEmpty ? "" : "." + ext)
                n += 1
            }
            if writeWhole(target + sidecarSuffix, sidecar), writeWhole(target, Array(edited.utf8)) {
                return target
            }
            unlink(target + sidecarSuffix)
        }
        guard let temporary else { return nil }
        _ = writeWhole(temporary + sidecarSuffix, sidecar)
        return temporary
    }

    /// The kept edit of `relative` (or the one at `from`), if any.
    static func load(relative: String, in ws: Workspace, from: String?) -> KeptEdit? {
        let file = from ?? folder(ws) + "/" + name(for: relative)
        guard let data = FileManager.default.contents(atPath: file),
            let edited = String(data: data, encoding: .utf8)
        else { return nil }
        if let side = FileManager.default.contents(atPath: file + sidecarSuffix),
            let sidecar = try? JSONDecoder().decode(Sidecar.self, from: side)
        {
            return KeptEdit(
                file: file, edited: edited, base: sidecar.text, baseVersion: sidecar.version)
        }
        // No record of what the edit started from: the file as it is now is the base.
        return KeptEdit(file: file, edited: edited, base: "", baseVersion: "?")
    }

    /// The kept copy with `edited` (the person's text with a collision marked in it) based
    /// on `base` at `baseVersion` (the file as it is now), or nil when it cannot be written.
    /// The text goes first: a sidecar left behind still names the older base, and the
    /// markers keep that copy from being saved until they are resolved.
    func rewritten(_ edited: String, base: String, baseVersion: String, relative: String)
        -> KeptEdit?
    {
        guard
            let sidecar = try? JSONEncoder().encode(
                Sidecar(path: relative, version: baseVersion, text: base)),
            Self.writeWhole(file, Array(edited.utf8)),
            Self.writeWhole(file + Self.sidecarSuffix, Array(sidecar))
        else { return nil }
        return KeptEdit(file: file, edited: edited, base: base, baseVersion: baseVersion)
    }

    /// Removes the kept copy once its text is in the file.
    func discard() {
        unlink(file + Self.sidecarSuffix)
        unlink(file)
        let folder = (file as NSString).deletingLastPathComponent
        if (folder as NSString).lastPathComponent.hasPrefix("notes-edit-") { rmdir(folder) }
    }

    /// Writes `bytes` to `path` whole (temporary file, fsync, rename) or not at all.
    static func writeWhole(_ path: String, _ bytes: [UInt8]) -> Bool {
        let temporary = path + ".partial"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes {
                write(fd, $0.baseAddress! + written, bytes.count - written)
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            written += n
        }
        let ok = written == bytes.count && fsync(fd) == 0
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
