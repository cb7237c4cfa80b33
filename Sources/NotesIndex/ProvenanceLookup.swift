import NotesCore

/// The effective provenance (docs/spec.md §3.1) of a file's bytes: what its front matter
/// states, corrected by what the change history says about that version.
public protocol ProvenanceLookup: Sendable {
    /// `stated` is the front matter's provenance, `version` the bytes' 16-hex-digit
    /// version, `mtime` the file's mtime in seconds.
    func effective(path: String, stated: Provenance, version: String, mtime: Double) -> Provenance
}
