@testable import NotesCore
import Testing

@Suite struct SHA256Tests {
    @Test func matchesTheNISTVectors() {
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: [UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func givesTheSameDigestWhateverTheChunking() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var hasher = SHA256()
        for chunk in stride(from: 0, to: bytes.count, by: 37) {
            hasher.update(bytes[chunk..<min(chunk + 37, bytes.count)])
        }
        #expect(SHA256.hexString(hasher.finalize()) == SHA256.hex(of: bytes))
    }

    @Test func versionIsTheFirst16HexDigitsAndChangesWithTheBytes() {
        let a = ContentVersion(of: Array("hello\n".utf8))
        #expect(a.short.count == 16)
        #expect(a.digest.hasPrefix(a.short))
        #expect(ContentVersion(of: Array("hello\n".utf8)) == a)
        #expect(ContentVersion(of: Array("hello \n".utf8)) != a)
    }
}
