import NotesTestSupport
import Testing

@testable import NotesCore

@Suite struct SHA256Tests {
    @Test func matchesTheNISTVectors() {
        #expect(
            SHA256.hex(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(of: [UInt8]())
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func hashesAMillionAsAndNonContiguousInput() {
        // FIPS 180-4's long-message vector, and the same bytes through the non-contiguous path.
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            SHA256.hex(of: million)
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256.hex(of: "abc".utf8.lazy.map { $0 }) == SHA256.hex(of: Array("abc".utf8)))
    }

    /// Inputs under 128 bytes are hashed by the portable code, longer ones by it too until
    /// the process has hashed a quarter megabyte, then by libcrypto: the portable code passes
    /// the NIST vectors at any length, and the two agree on every length around the switch
    /// and on long random inputs.
    @Test func thePortableCodeAndLibcryptoAgree() {
        func hex(_ digest: [UInt8]) -> String { SHA256.hexString(digest) }
        #expect(
            hex(SHA256.portableDigest(of: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(
            hex(
                SHA256.portableDigest(
                    of: Array(
                        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
                            .utf8)))
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        var generator = SeededGenerator(seed: 256)
        let bytes = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for length in Array(0...300) + [1_023, 4_096, 65_537, 70_000] {
            let input = Array(bytes.prefix(length))
            #expect(
                SHA256.libcryptoDigest(of: input) == SHA256.portableDigest(of: input),
                "length \(length)")
            #expect(
                SHA256.digest(of: input) == SHA256.portableDigest(of: input), "length \(length)")
        }
    }

    @Test func versionIsTheFirst16HexDigitsAndChangesWithTheBytes() {
        let a = ContentVersion(of: Array("hello\n".utf8))
        #expect(a.short.count == 16)
        #expect(a.digest.hasPrefix(a.short))
        #expect(ContentVersion(of: Array("hello\n".utf8)) == a)
        #expect(ContentVersion(of: Array("hello \n".utf8)) != a)
    }

    /// `prefix64` hashes a list of byte strings, each after its length (8 bytes, little
    /// endian), without joining them: the same as hashing the joined bytes; splitting the
    /// same characters differently gives another value.
    @Test func prefix64HashesLengthPrefixedPartsWithoutJoiningThem() {
        func joined(_ parts: [[UInt8]]) -> [UInt8] {
            parts.flatMap { part in
                (0..<8).map { UInt8(truncatingIfNeeded: part.count >> (8 * $0)) } + part
            }
        }
        func prefix64(_ parts: [[UInt8]]) -> Int64 {
            func go(_ i: Int, _ buffers: [UnsafeBufferPointer<UInt8>]) -> Int64 {
                i == parts.count
                    ? SHA256.prefix64(of: buffers)
                    : parts[i].withUnsafeBufferPointer { go(i + 1, buffers + [$0]) }
            }
            return go(0, [])
        }
        let cases: [[[UInt8]]] = [
            [Array("ab".utf8), Array("c".utf8)], [Array("a".utf8), Array("bc".utf8)],
            [[], [], Array("abc".utf8), []],
            [Array(repeating: 0x61, count: 100_000), Array("é 中".utf8)],
        ]
        var seen = Set<Int64>()
        for parts in cases {
            let expected = SHA256.digest(of: joined(parts)).prefix(8).reduce(Int64(0)) {
                $0 << 8 | Int64($1)
            }
            #expect(prefix64(parts) == expected)
            seen.insert(prefix64(parts))
        }
        #expect(seen.count == cases.count)
    }
}
