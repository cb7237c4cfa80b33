import CSystemCalls
import Foundation

/// The kernel asked to write a file's dirty pages out while it is still being built.
///
/// A first build fsyncs its private database before renaming it into place; started batch by
/// batch, the writing overlaps the parsing, and the fsync finds little left to wait for. Only
/// a hint: it changes no durability, and where it cannot be had (no such call, the file will
/// not open) nothing happens.
final class Writeback: Sendable {
    private let descriptor: Int32

    init(path: String) {
        #if canImport(Glibc)
            descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        #else
            descriptor = Darwin.open(path, O_RDONLY | O_CLOEXEC)
        #endif
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Starts writing what is dirty now, without waiting for it.
    @Sendable func start() {
        if descriptor >= 0 { _ = notes_start_writeback(descriptor) }
    }
}
