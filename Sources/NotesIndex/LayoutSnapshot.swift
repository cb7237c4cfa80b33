import Foundation
import GRDB
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A flat copy of what a whole-workspace refresh reads from the index before it can stat
/// anything: the known files (id, path, size, mtime, inode) and the folders' stamps. It
/// lives next to the database (`index.layout`), so a command can start statting the moment
/// it starts, on the other cores, while it opens the database; without it, the stats waited
/// for the database to open and for the rows to come out of SQLite
/// (docs/performance-history.md, fourteenth pass).
///
/// It is a cache of a cache, trusted only when it names the database's current layout:
/// every change to `files` or `folders` rows stores a new random token in `meta.layout`
/// (triggers: ``IndexSchema/createLayoutTriggers(_:)``), and a snapshot is used only when
/// its token is the one the database holds, read before any of its facts are believed.
///
/// A refresh that read the layout from the database writes a new snapshot when its writes
/// left that layout as it was, or only rewrote known files' stat facts; a refresh that
/// started from a snapshot and rewrote stat facts (an edit) updates those records and the
/// token in place, a few dozen bytes instead of the whole file. A refresh that added,
/// removed or moved files removes the snapshot; the next one writes the new layout. A
/// checksum guards against a torn or damaged file (it is written without `fsync`: a new
/// one renamed into place, an update in place with the checksum last); a snapshot that
/// fails any check is ignored, never an error.
final class LayoutSnapshot: @unchecked Sendable {
    /// The file's name in the index folder.
    static let fileName = "index.layout"

    /// The snapshot's path in the index folder `directory`.
    static func path(in directory: String) -> String { directory + "/" + fileName }

    /// Removes the snapshot in `directory` (the layout changed and no new one was written:
    /// the next command then reads the rows without first reading an outdated snapshot).
    static func remove(in directory: String) { unlink(path(in: directory)) }

    /// The `meta.layout` token of the database this is a copy of.
    let token: String
    /// The ignore rules the folder stamps were made under (``FolderStamps/fingerprint(_:)``).
    let fingerprint: String
    let folderCount: Int
    let fileCount: Int

    /// The whole file; records and strings are read from it in place.
    private let bytes: UnsafeMutableRawBufferPointer
    private let foldersAt: Int
    private let filesAt: Int
    private let stringsAt: Int
    /// The file it was read from (an update in place checks it is still that file).
    private var file: (device: UInt64, inode: UInt64) = (0, 0)

    private static let magic: UInt64 = 0x3253_4C53_4554_4F4E  // "NOTESLS2", little-endian
    private static let headerSize = 48
    private static let folderRecordSize = 24
    private static let fileRecordSize = 40

    private init(
        bytes: UnsafeMutableRawBufferPointer, folderCount: Int, fileCount: Int, stringsAt: Int,
        token: String, fingerprint: String
    ) {
        self.bytes = bytes
        self.folderCount = folderCount
        self.fileCount = fileCount
        self.token = token
        self.fingerprint = fingerprint
        foldersAt = Self.headerSize
        filesAt = foldersAt + folderCount * Self.folderRecordSize
        self.stringsAt = stringsAt
    }

    /// The snapshot in `bytes` (which it then owns), or nil when they fail a check.
    private static func checked(_ bytes: UnsafeMutableRawBufferPointer) -> LayoutSnapshot? {
        let size = bytes.count
        guard size >= headerSize, size % 8 == 0, load(UInt64.self, bytes, 0) == magic,
            load(UInt64.self, bytes, 8) == checksum(UnsafeRawBufferPointer(rebasing: bytes[16...]))
        else { return nil }
        let folders = load(UInt64.self, bytes, 16)
        let files = load(UInt64.self, bytes, 24)
        let tokenLength = load(UInt64.self, bytes, 32)
        let fingerprintLength = load(UInt64.self, bytes, 40)
        guard folders < 1 << 28, files < 1 << 28, tokenLength < 1 << 16, fingerprintLength < 1 << 24
        else { return nil }
        let filesAt = headerSize + Int(folders) * folderRecordSize
        let tokenAt = filesAt + Int(files) * fileRecordSize
        let stringsAt = tokenAt + Int(tokenLength) + Int(fingerprintLength)
        guard stringsAt <= size else { return nil }
        // Every path must lie inside the file and end with its NUL.
        for i in 0..<Int(folders) + Int(files) {
            let at =
                i < Int(folders)
                ? headerSize + i * folderRecordSize + 16
                : filesAt + (i - Int(folders)) * fileRecordSize + 32
            let offset = stringsAt + Int(load(UInt32.self, bytes, at))
            let length = Int(load(UInt32.self, bytes, at + 4))
            guard offset + length < size, bytes[offset + length] == 0 else { return nil }
        }
        let token = String(
            decoding: UnsafeRawBufferPointer(rebasing: bytes[tokenAt..<tokenAt + Int(tokenLength)]),
            as: UTF8.self)
        let fingerprint = String(
            decoding: UnsafeRawBufferPointer(
                rebasing: bytes[tokenAt + Int(tokenLength)..<stringsAt]), as: UTF8.self)
        return LayoutSnapshot(
            bytes: bytes, folderCount: Int(folders), fileCount: Int(files), stringsAt: stringsAt,
            token: token, fingerprint: fingerprint)
    }

    deinit {
        bytes.deallocate()
    }

    /// The snapshot in `directory`, or nil when there is none or it fails a check.
    ///
    /// `proceeding` is first given the token the file names (unchecked: only a match is
    /// read further, and the full read checks everything again); returning false stops there,
    /// so a snapshot of an older layout costs two small reads, not the whole file.
    static func read(directory: String, proceeding: (String) -> Bool = { _ in true })
        -> LayoutSnapshot?
    {
        let fd = open(path(in: directory), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= headerSize, info.st_size < 1 << 32 else {
            return nil
        }
        let size = Int(info.st_size)
        var header = [UInt64](repeating: 0, count: headerSize / 8)
        guard
            header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress!, headerSize, 0) })
                == headerSize,
            UInt64(littleEndian: header[0]) == magic
        else { return nil }
        let (folders, files, tokenLength) = (
            UInt64(littleEndian: header[2]), UInt64(littleEndian: header[3]),
            UInt64(littleEndian: header[4])
        )
        guard folders < 1 << 28, files < 1 << 28, tokenLength < 1 << 16 else { return nil }
        let tokenAt = headerSize + Int(folders) * folderRecordSize + Int(files) * fileRecordSize
        guard tokenAt + Int(tokenLength) <= size else { return nil }
        var tokenBytes = [UInt8](repeating: 0, count: Int(tokenLength))
        guard
            tokenBytes.withUnsafeMutableBytes({
                pread(fd, $0.baseAddress, Int(tokenLength), off_t(tokenAt))
            }) == Int(tokenLength),
            proceeding(String(decoding: tokenBytes, as: UTF8.self))
        else { return nil }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
        var done = 0
        while done < size {
            let got = Glibc.read(fd, bytes.baseAddress! + done, size - done)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                bytes.deallocate()
                return nil
            }
            done += got
        }
        guard let snapshot = checked(bytes) else {
            bytes.deallocate()
            return nil
        }
        snapshot.file = (UInt64(info.st_dev), UInt64(info.st_ino))
        return snapshot
    }

    /// Updates the file this snapshot was read from to the layout `token` names: the
    /// records of the files in `restatted` get their new stat facts, then the token, then
    /// the checksum (a reader between those writes finds a checksum that does not match).
    /// False when it cannot (the file was replaced or changed since, a record is missing,
    /// the token's length differs): then the caller writes a whole new one.
    func update(
        restatted: [Int64: (size: Int, mtimeNanos: Int64, inode: UInt64)], token newToken: String,
        directory: String
    ) -> Bool {
        let tokenAt = stringsAt - token.utf8.count - fingerprint.utf8.count
        guard newToken.utf8.count == token.utf8.count, tokenAt % 8 == 0, token.utf8.count % 8 == 0
        else { return false }
        let fd = open(Self.path(in: directory), O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        var onDisk = [UInt8](repeating: 0, count: token.utf8.count)
        guard fstat(fd, &info) == 0, (UInt64(info.st_dev), UInt64(info.st_ino)) == file,
            Int(info.st_size) == bytes.count,
            onDisk.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, $0.count, off_t(tokenAt)) })
                == onDisk.count,
            onDisk.elementsEqual(token.utf8)
        else { return false }
        var sum = Self.load(UInt64.self, bytes, 8)
        /// Replaces the word at `offset` in memory, keeping the checksum in step.
        func replace(_ word: UInt64, at offset: Int) {
            let index = UInt64((offset - 16) / 8)
            sum =
                sum &- Self.term(Self.load(UInt64.self, bytes, offset), index)
                &+ Self.term(word, index)
            bytes.storeBytes(of: word.littleEndian, toByteOffset: offset, as: UInt64.self)
        }
        var changed: [Int] = []  // record offsets
        for (id, facts) in restatted {
            guard let record = recordOffset(of: id) else { return false }
            replace(UInt64(bitPattern: Int64(facts.size)), at: record + 8)
            replace(UInt64(bitPattern: facts.mtimeNanos), at: record + 16)
            replace(facts.inode, at: record + 24)
            changed.append(record)
        }
        let tokenWords = Array(newToken.utf8)
        for i in stride(from: 0, to: tokenWords.count, by: 8) {
            let word = tokenWords[i..<i + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            replace(word, at: tokenAt + i)
        }
        bytes.storeBytes(of: sum.littleEndian, toByteOffset: 8, as: UInt64.self)
        func put(_ offset: Int, _ count: Int) -> Bool {
            pwrite(fd, bytes.baseAddress! + offset, count, off_t(offset)) == count
        }
        for record in changed where !put(record + 8, 24) { return false }
        return put(tokenAt, token.utf8.count) && put(8, 8)
    }

    /// Where file `id`'s record is (records are in id order, as the database lists its rows).
    private func recordOffset(of id: Int64) -> Int? {
        var low = 0
        var high = fileCount
        while low < high {
            let middle = (low + high) / 2
            let found = Self.load(Int64.self, bytes, filesAt + middle * Self.fileRecordSize)
            if found == id { return filesAt + middle * Self.fileRecordSize }
            if found < id { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The folders' paths and then the files', as NUL-terminated strings in this snapshot's
    /// memory (for ``StatPrefetch/stat(folders:files:keeping:)``), in record order.
    func pathPointers() -> (folders: [UnsafePointer<CChar>], files: [UnsafePointer<CChar>]) {
        let base = UnsafeRawPointer(bytes.baseAddress!)
        let folders = (0..<folderCount).map { i in
            (base + pathSpan(foldersAt + i * Self.folderRecordSize + 16).offset)
                .assumingMemoryBound(to: CChar.self)
        }
        let files = (0..<fileCount).map { i in
            (base + pathSpan(filesAt + i * Self.fileRecordSize + 32).offset).assumingMemoryBound(
                to: CChar.self)
        }
        return (folders, files)
    }

    /// What the index knew, as ``NoteIndex/knownFiles(_:stampRules:prefetch:)`` reads it
    /// from the database (without digests).
    func knownFiles(hiddenFlagsCurrent: Bool) -> KnownFiles {
        var folders: [FolderStamp] = []
        folders.reserveCapacity(folderCount)
        for i in 0..<folderCount {
            let at = foldersAt + i * Self.folderRecordSize
            folders.append(
                FolderStamp(
                    path: string(pathSpan(at + 16)), inode: Self.load(UInt64.self, bytes, at),
                    changeNanos: Self.load(Int64.self, bytes, at + 8)))
        }
        var files: [KnownFile] = []
        files.reserveCapacity(fileCount)
        for i in 0..<fileCount {
            let at = filesAt + i * Self.fileRecordSize
            files.append(
                KnownFile(
                    id: Self.load(Int64.self, bytes, at), path: string(pathSpan(at + 32)),
                    size: Int(Self.load(Int64.self, bytes, at + 8)),
                    mtimeNanos: Self.load(Int64.self, bytes, at + 16),
                    inode: Self.load(UInt64.self, bytes, at + 24), digest: ""))
        }
        var known = KnownFiles(
            files: files, folders: folders, hasDigests: false,
            hiddenFlagsCurrent: hiddenFlagsCurrent)
        known.layoutToken = token
        known.fromSnapshot = true
        return known
    }

    /// Writes the snapshot of `known` (read from the database, with its token) into
    /// `directory`: into a file of its own, then renamed over the old one. Failures are
    /// ignored (the next command reads the database instead).
    ///
    /// `restatted`: files (by id) whose rows this refresh rewrote with new stat facts, which
    /// replace the known ones.
    static func write(
        _ known: KnownFiles,
        restatted: [Int64: (size: Int, mtimeNanos: Int64, inode: UInt64)] = [:],
        token: String, fingerprint: String, directory: String
    ) {
        guard let folders = known.folders else { return }
        let files = known.files
        let pathBytes =
            folders.reduce(0) { $0 + $1.path.utf8.count + 1 }
            + files.reduce(0) { $0 + $1.path.utf8.count + 1 }
        let filesAt = headerSize + folders.count * folderRecordSize
        let tokenAt = filesAt + files.count * fileRecordSize
        let stringsAt = tokenAt + token.utf8.count + fingerprint.utf8.count
        guard pathBytes < 1 << 32 else { return }
        // Padded to whole words, which the checksum adds up.
        let bytes = UnsafeMutableRawBufferPointer.allocate(
            byteCount: (stringsAt + pathBytes + 7) / 8 * 8, alignment: 8)
        defer { bytes.deallocate() }
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
        }
        var pathAt = 0  // from `stringsAt`
        /// Copies `text` to `at` and returns the bytes copied.
        func copy(_ text: String, to at: Int) -> Int {
            var text = text
            return text.withUTF8 { utf8 in
                if let base = utf8.baseAddress {
                    (bytes.baseAddress! + at).copyMemory(from: base, byteCount: utf8.count)
                }
                return utf8.count
            }
        }
        func storePath(_ path: String, recordAt: Int) {
            let length = copy(path, to: stringsAt + pathAt)
            bytes[stringsAt + pathAt + length] = 0
            store(UInt32(pathAt), at: recordAt)
            store(UInt32(length), at: recordAt + 4)
            pathAt += length + 1
        }
        for (i, value) in [
            magic, 0, UInt64(folders.count), UInt64(files.count), UInt64(token.utf8.count),
            UInt64(fingerprint.utf8.count),
        ].enumerated() {
            store(value, at: i * 8)
        }
        for (i, folder) in folders.enumerated() {
            let at = headerSize + i * folderRecordSize
            store(folder.inode, at: at)
            store(folder.changeNanos, at: at + 8)
            storePath(folder.path, recordAt: at + 16)
        }
        for (i, file) in files.enumerated() {
            let at = filesAt + i * fileRecordSize
            let facts = restatted.isEmpty ? nil : restatted[file.id]
            store(file.id, at: at)
            store(Int64(facts?.size ?? file.size), at: at + 8)
            store(facts?.mtimeNanos ?? file.mtimeNanos, at: at + 16)
            store(facts?.inode ?? file.inode, at: at + 24)
            storePath(file.path, recordAt: at + 32)
        }
        _ = copy(token, to: tokenAt)
        _ = copy(fingerprint, to: tokenAt + token.utf8.count)
        store(checksum(UnsafeRawBufferPointer(rebasing: bytes[16...])), at: 8)
        CacheFile.replace(fileName, in: directory, with: UnsafeRawBufferPointer(bytes))
    }

    /// The database's current layout token (nil: none yet).
    static func currentToken(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'layout'")
    }

    /// A 64-bit checksum of `data` (whole words): the sum of each word mixed with its
    /// position, so that changing a few words updates it without reading the rest. Not
    /// cryptographic: it catches a torn or damaged file, which is all a cache needs.
    static func checksum(_ data: UnsafeRawBufferPointer) -> UInt64 {
        guard data.count % 8 == 0 else { return 0 }
        var sum: UInt64 = 0
        var at = 0
        while at < data.count {
            sum =
                sum
                &+ term(
                    UInt64(littleEndian: data.loadUnaligned(fromByteOffset: at, as: UInt64.self)),
                    UInt64(at / 8))
            at += 8
        }
        return sum
    }

    /// Word number `index`'s part of the checksum.
    @inline(__always)
    private static func term(_ word: UInt64, _ index: UInt64) -> UInt64 {
        var mixed = (word ^ (index &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 29
        return mixed &* 0x94D0_49BB_1331_11EB
    }

    // MARK: - Records

    private func pathSpan(_ at: Int) -> (offset: Int, length: Int) {
        (
            stringsAt + Int(Self.load(UInt32.self, bytes, at)),
            Int(Self.load(UInt32.self, bytes, at + 4))
        )
    }

    private func string(_ span: (offset: Int, length: Int)) -> String {
        String(
            decoding: UnsafeRawBufferPointer(
                rebasing: bytes[span.offset..<span.offset + span.length]), as: UTF8.self)
    }

    private static func load<T: FixedWidthInteger>(
        _ type: T.Type, _ bytes: UnsafeMutableRawBufferPointer, _ at: Int
    ) -> T {
        T(littleEndian: UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: at, as: T.self))
    }
}
