import Foundation
import NotesEmbedding
import NotesTestSupport
import Testing

/// The basic tokenizer and WordPiece over a tiny vocabulary made here (no model needed).
@Suite struct NotesEmbeddingTokenizerTests {
    static let pieces = [
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
        "cafe", "naive", "resume", "un", "##aff", "##able", "!", ",", ".", "?", "-", "'",
        "hello", "world", "the", "whale", "##s", "后", "台", "a", "##b", "$", "(", ")",
    ]

    func tokenizer() throws -> WordPieceTokenizer {
        try WordPieceTokenizer(tokens: Self.pieces)
    }

    func id(_ piece: String) -> Int32 { Int32(Self.pieces.firstIndex(of: piece)!) }

    @Test func accentsAreStrippedAndTextLowerCased() throws {
        #expect(try tokenizer().basicTokens("Café NAÏVE Résumé") == ["cafe", "naive", "resume"])
        // Decomposed input gives the same words.
        #expect(try tokenizer().basicTokens("Cafe\u{301}") == ["cafe"])
    }

    @Test func punctuationIsSplitOff() throws {
        #expect(try tokenizer().basicTokens("Hello, world!") == ["hello", ",", "world", "!"])
        #expect(
            try tokenizer().basicTokens("it's $5 (ok)—fine") == [
                "it", "'", "s", "$", "5", "(", "ok", ")", "—", "fine",
            ])
        #expect(try tokenizer().basicTokens("«quoted»") == ["«", "quoted", "»"])
    }

    @Test func cjkIdeographsAreWordsOfTheirOwn() throws {
        #expect(try tokenizer().basicTokens("后台abc执行") == ["后", "台", "abc", "执", "行"])
        // Hangul and kana are not split per character.
        #expect(try tokenizer().basicTokens("한국어 カタカナ") == ["한국어", "カタカナ"])
    }

    @Test func controlCharactersAndOddSpacesAreCleaned() throws {
        #expect(try tokenizer().basicTokens("a\u{0}b\u{200B}c\u{7}d") == ["abcd"])
        #expect(
            try tokenizer().basicTokens("one\u{A0}two\tthree\r\nfour\u{3000}five") == [
                "one", "two", "three", "four", "five",
            ])
        #expect(try tokenizer().basicTokens(" \n\t ").isEmpty)
    }

    @Test func wordPieceTakesTheLongestMatchFromTheLeft() throws {
        let t = try tokenizer()
        #expect(t.pieces("unaffable") == [id("un"), id("##aff"), id("##able")])
        #expect(t.pieces("whales") == [id("whale"), id("##s")])
        // A word that cannot be spelled is one [UNK], not a partial match.
        #expect(t.pieces("whalez") == [t.unknownID])
        #expect(t.pieces("后台") == [id("后"), id("台")])
    }

    @Test func overlongWordsAreUnknown() throws {
        let t = try tokenizer()
        // 100 characters are spelled; 101 are one [UNK].
        #expect(
            t.pieces("a" + String(repeating: "b", count: 99)) == [id("a")]
                + Array(repeating: id("##b"), count: 99))
        #expect(t.pieces("a" + String(repeating: "b", count: 100)) == [t.unknownID])
    }

    @Test func encodeAddsSpecialsAndCuts() throws {
        let t = try tokenizer()
        #expect(
            t.encode("hello world", maxLength: 256) == [t.clsID, id("hello"), id("world"), t.sepID])
        #expect(
            t.encode("hello world the whale", maxLength: 4) == [
                t.clsID, id("hello"), id("world"), t.sepID,
            ])
        // A word's pieces are cut in the middle, as the reference tokenizer does.
        #expect(t.encode("whales", maxLength: 3) == [t.clsID, id("whale"), t.sepID])
        #expect(t.encode("", maxLength: 256) == [t.clsID, t.sepID])
        // Special tokens written in the text are kept, as the reference tokenizer does.
        #expect(
            t.encode("hello [SEP] world", maxLength: 256) == [
                t.clsID, id("hello"), t.sepID, id("world"), t.sepID,
            ])
    }

    @Test func missingSpecialTokensAreAnError() {
        #expect(throws: EmbeddingError.self) { try WordPieceTokenizer(tokens: ["a", "b"]) }
    }
}

/// Reading safetensors files the test writes.
@Suite struct NotesEmbeddingSafeTensorsTests {
    /// A safetensors file with one F32 tensor `w` of shape [2, 3].
    static func file(headerPadding: Int = 0, dropDataBytes: Int = 0) -> [UInt8] {
        var header =
            #"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}"#
        header += String(repeating: " ", count: (8 - header.utf8.count % 8) % 8 + headerPadding)
        var bytes: [UInt8] = []
        var length = UInt64(header.utf8.count)
        for _ in 0..<8 {
            bytes.append(UInt8(length & 0xFF))
            length >>= 8
        }
        bytes += Array(header.utf8)
        for v: Float in [1, 2, 3, 4, 5, 6] {
            withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes += $0 }
        }
        return Array(bytes.dropLast(dropDataBytes))
    }

    @Test func readsATensorByName() throws {
        let dir = TemporaryDirectory()
        let path = dir.write("model.safetensors", bytes: Self.file())
        let tensors = try SafeTensors(url: URL(fileURLWithPath: path))
        withExtendedLifetime(tensors) {
            #expect(
                Array(
                    (try? tensors.floats("w", shape: [2, 3]))
                        ?? UnsafeBufferPointer(start: nil, count: 0)) == [1, 2, 3, 4, 5, 6])
        }
    }

    @Test func unalignedDataIsCopied() throws {
        let dir = TemporaryDirectory()
        let path = dir.write("model.safetensors", bytes: Self.file(headerPadding: 1))
        // The buffer lives as long as the SafeTensors value.
        let tensors = try SafeTensors(url: URL(fileURLWithPath: path))
        withExtendedLifetime(tensors) {
            #expect(
                Array(
                    (try? tensors.floats("w", shape: [2, 3]))
                        ?? UnsafeBufferPointer(start: nil, count: 0)) == [1, 2, 3, 4, 5, 6])
        }
    }

    @Test func missingOrIllShapedTensorsAreClearErrors() throws {
        let dir = TemporaryDirectory()
        let path = dir.write("model.safetensors", bytes: Self.file())
        let tensors = try SafeTensors(url: URL(fileURLWithPath: path))
        #expect { try tensors.floats("nope", shape: [2, 3]) } throws: { error in
            "\(error)".contains("model.safetensors has no tensor nope")
        }
        #expect { try tensors.floats("w", shape: [3, 2]) } throws: { error in
            "\(error)".contains("tensor w has shape [2, 3], expected [3, 2]")
        }
    }

    @Test func truncatedFilesAreClearErrors() throws {
        let dir = TemporaryDirectory()
        let whole = Self.file()
        let cut = dir.write("model.safetensors", bytes: Self.file(dropDataBytes: 4))
        #expect { try SafeTensors(url: URL(fileURLWithPath: cut)) } throws: { error in
            "\(error)".contains("model.safetensors is truncated")
                && "\(error)".contains("notes model install")
        }
        let headerOnly = dir.write("h/model.safetensors", bytes: Array(whole.prefix(20)))
        #expect { try SafeTensors(url: URL(fileURLWithPath: headerOnly)) } throws: { error in
            "\(error)".contains("model.safetensors is truncated")
        }
        let tiny = dir.write("t/model.safetensors", bytes: [1, 2, 3])
        #expect(throws: EmbeddingError.self) { try SafeTensors(url: URL(fileURLWithPath: tiny)) }
        #expect(throws: EmbeddingError.self) {
            try SafeTensors(url: URL(fileURLWithPath: dir.path + "/absent.safetensors"))
        }
    }
}

/// Where the model is looked for.
@Suite struct NotesEmbeddingLocationTests {
    @Test func folderRules() {
        #expect(
            ModelLocation.directory(environment: ["NOTES_MODEL_DIR": "/m", "HOME": "/h"]).path
                == "/m")
        #expect(
            ModelLocation.directory(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]).path
                == "/x/notes/models/all-MiniLM-L6-v2")
        #expect(
            ModelLocation.directory(environment: ["HOME": "/h"]).path
                == "/h/.local/share/notes/models/all-MiniLM-L6-v2")
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
        #expect(
            ModelLocation.directory(environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"]).path
                == "/h/.local/share/notes/models/all-MiniLM-L6-v2")
    }

    @Test func missingModelIsNilAndAClearError() {
        let dir = TemporaryDirectory()
        let env = ["NOTES_MODEL_DIR": dir.path + "/none"]
        #expect(ModelLocation.installed(environment: env) == nil)
        #expect { try ModelLocation.load(environment: env) } throws: { error in
            "\(error)".hasPrefix("the embedding model is not installed")
                && "\(error)".contains("notes model install")
        }
    }

    @Test func identifierNamesTheModelAndChangesWithIt() {
        let a = ModelLocation.identifier(
            name: "all-MiniLM-L6-v2", config: Array("{}".utf8), tensorHeader: [1])
        let b = ModelLocation.identifier(
            name: "all-MiniLM-L6-v2", config: Array("{ }".utf8), tensorHeader: [1])
        #expect(a.hasPrefix("all-MiniLM-L6-v2@") && a.count == "all-MiniLM-L6-v2@".count + 12)
        #expect(a != b)
    }
}
