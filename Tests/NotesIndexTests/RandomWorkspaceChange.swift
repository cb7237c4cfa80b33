import Foundation
import NotesCore
import Testing

/// One random change of a kind a person, an editor or a sync client makes, for the seeded
/// sequences that check the index against a full walk after every refresh
/// (`FolderStampTests`, `LayoutSnapshotTests`).
enum RandomWorkspaceChange {
    /// Makes change `step`, of a kind drawn from `kinds`: 0 a new file, 1 an edit, 2 a
    /// deleted file, 3 new nested folders, 4 a moved folder, 5 a deleted folder, 6 a moved
    /// file, 7 a same-size rewrite within the same second (unless `sameSizeRewrites` is
    /// false); any other: only `settle()`.
    static func make(
        step: Int, kinds: Range<Int>, sameSizeRewrites: Bool = true, in fixture: IndexFixture,
        random: inout SeededGenerator, settle: () -> Void
    ) {
        let fm = FileManager.default
        let root = fixture.root
        let layout = FileScanner(workspace: try! Workspace(root: root)).scan()
        let allFolders = layout.listed.map(\.stamp.path)
        let allFiles = layout.files.map(\.path)
        let folder = allFolders.randomElement(using: &random) ?? ""
        let prefix = folder.isEmpty ? "" : folder + "/"
        switch Int.random(in: kinds, using: &random) {
        case 0: fixture.write(prefix + "n\(step).md", "# N\(step)\n\nword\(step)\n")
        case 1:
            if let file = allFiles.randomElement(using: &random) {
                fixture.write(file, "# Edited \(step)\n\nchanged\(step)\n")
            }
        case 2:
            if let file = allFiles.randomElement(using: &random) {
                try? fm.removeItem(atPath: root + "/" + file)
            }
        case 3: fixture.write(prefix + "d\(step)/e\(step)/f.md", "# F\n\nnested\(step)\n")
        case 4:
            if !folder.isEmpty, let target = allFolders.randomElement(using: &random),
                !target.hasPrefix(folder)
            {
                try? fm.moveItem(
                    atPath: root + "/" + folder,
                    toPath: root + "/" + (target.isEmpty ? "" : target + "/") + "m\(step)")
            }
        case 5:
            if !folder.isEmpty && folder != "filler" {
                try? fm.removeItem(atPath: root + "/" + folder)
            }
        case 6:
            if let file = allFiles.randomElement(using: &random),
                let target = allFolders.randomElement(using: &random)
            {
                try? fm.moveItem(
                    atPath: root + "/" + file,
                    toPath: root + "/" + (target.isEmpty ? "" : target + "/") + "r\(step).md")
            }
        case 7 where sameSizeRewrites:
            if let file = allFiles.randomElement(using: &random) {  // same size, same second
                let path = root + "/" + file
                if var bytes = fm.contents(atPath: path), !bytes.isEmpty {
                    bytes[bytes.count - 1] = bytes[bytes.count - 1] == 0x0A ? 0x20 : 0x0A
                    #expect(
                        fm.createFile(atPath: path, contents: bytes), "could not rewrite \(file)")
                }
            }
        default: settle()
        }
    }
}
