@testable import NotesCore
import Testing

@Suite struct SHA256Tests {
    @Test func matchesTheNISTVectors() {
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: [UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func hashesAMillionAsAndNonContiguousInput() {
        // FIPS 180-4's long-message vector, and the same bytes through the non-contiguous path.
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hex(of: million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256.hex(of: "abc".utf8.lazy.map { $0 }) == SHA256.hex(of: Array("abc".utf8)))
    }

    @Test func versionIsTheFirst16HexDigitsAndChangesWithTheBytes() {
        let a = ContentVersion(of: Array("hello\n".utf8))
        #expect(a.short.count == 16)
        #expect(a.digest.hasPrefix(a.short))
        #expect(ContentVersion(of: Array("hello\n".utf8)) == a)
        #expect(ContentVersion(of: Array("hello \n".utf8)) != a)
    }
}
