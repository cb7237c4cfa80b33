import CCrypto
import Foundation

/// SHA-256 (FIPS 180-4), used for content versions and rename detection.
///
/// Computed by OpenSSL's libcrypto, which uses the CPU's SHA extensions where present
/// (much faster than portable code), and hashing every file is part of indexing. libcrypto
/// is opened once a process
/// has hashed a quarter megabyte; until then, and for inputs under 128 bytes always (the
/// workspace path that names the index folder, small FTS rows), portable C code hashes, so a
/// command that hashes little never loads it (Sources/CCrypto/shim.h). Verified against the
/// NIST vectors, and the two implementations against each other, in the tests.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest<Bytes: Sequence>(of bytes: Bytes) -> [UInt8]
    where Bytes.Element == UInt8 {
        if let digest = bytes.withContiguousStorageIfAvailable({
            digest(UnsafeRawBufferPointer($0))
        }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { digest($0) }
    }

    /// The first 8 bytes, as a big-endian integer, of the digest of `parts`, each preceded
    /// by its length: a list of byte strings hashed without joining them (and no two lists
    /// hash the same input).
    public static func prefix64(of parts: [UnsafeBufferPointer<UInt8>]) -> Int64 {
        let empty: [UInt8] = [0]
        return empty.withUnsafeBufferPointer { placeholder in
            let pointers = parts.map { $0.baseAddress ?? placeholder.baseAddress }
            let lengths = parts.map(\.count)
            var out = [UInt8](repeating: 0, count: 32)
            let ok = out.withUnsafeMutableBufferPointer { digest in
                notes_sha256_parts(pointers, lengths, Int32(parts.count), digest.baseAddress)
            }
            if ok == 0 { unavailable() }
            return out.prefix(8).reduce(0) { $0 << 8 | Int64($1) }
        }
    }

    /// The digest of `bytes` as lowercase hex.
    public static func hex<Bytes: Sequence>(of bytes: Bytes) -> String
    where Bytes.Element == UInt8 {
        hexString(digest(of: bytes))
    }

    private static func digest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = out.withUnsafeMutableBufferPointer {
            notes_sha256(buffer.baseAddress, buffer.count, $0.baseAddress)
        }
        if ok == 0 { unavailable() }
        return out
    }

    /// Opens libcrypto on a thread of its own, for a caller about to hash more than the
    /// portable code's budget (a large refresh): hashing goes on with the portable code
    /// until it is ready, instead of waiting for the load mid-way. A failure to load
    /// is reported by the first hash that needs libcrypto.
    public static func prepareForMuchHashing() {
        let thread = Thread { _ = notes_crypto_load() }
        thread.name = "notes-libcrypto"
        thread.start()
    }

    /// Bytes the portable code hashes before libcrypto is opened (Sources/CCrypto/shim.h).
    public static let portableBudget = Int(notes_sha256_portable_budget())

    /// The digest by libcrypto alone, whatever the length (for the tests that compare it
    /// with the portable code's).
    static func libcryptoDigest(of bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer {
                notes_sha256_libcrypto(input.baseAddress, input.count, $0.baseAddress)
            }
        }
        if ok == 0 { unavailable() }
        return out
    }

    /// The digest by the portable code alone, whatever the length (for the tests that
    /// compare it with libcrypto's).
    static func portableDigest(of bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer {
                notes_sha256_portable_digest(input.baseAddress, input.count, $0.baseAddress)
            }
        }
        return out
    }

    private static let failing = NSLock()

    /// Ends the process with one line saying why: nothing that versions files can go on
    /// without SHA-256, and libcrypto fails only when it cannot be loaded (a machine without
    /// OpenSSL 3's runtime library) or cannot allocate. `_exit`, not `exit`: this may run on
    /// a parsing thread, and other threads must not meet static destructors half-way (an
    /// index write left open is rolled back or discarded like after any crash).
    private static func unavailable() -> Never {
        // Several parsing threads can fail at once: the first reports and exits, the others
        // wait here until the process is gone (never unlocked), so the person sees one line.
        failing.lock()
        let reason =
            notes_crypto_load().map { String(cString: $0) } ?? "libcrypto could not allocate memory"
        Notices.post(
            .fatal,
            "notes: cannot compute SHA-256: \(reason) (install OpenSSL 3's libcrypto: on Debian, apt-get install libssl3)"
        )
        _exit(2)
    }

    static func hexString(_ digest: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var chars: [UInt8] = []
        chars.reserveCapacity(digest.count * 2)
        for byte in digest {
            chars.append(digits[Int(byte >> 4)])
            chars.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: chars, as: UTF8.self)
    }
}
