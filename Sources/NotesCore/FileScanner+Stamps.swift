import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ScannedFile {
    /// The file at `path` with the stat facts a walk keeps.
    init(path: String, _ facts: StatFacts) {
        self.init(path: path, size: facts.size, mtimeNanos: facts.mtimeNanos, inode: facts.inode)
    }
}

extension FileScanner {
    /// Walks the workspace listing only the folders whose stamp moved (see ``FolderStamp``):
    /// every stamped folder is `lstat`ed by path, every known file in an unchanged folder is
    /// `lstat`ed by path, and changed, new or untrusted folders are listed as in ``scan(below:trustingChangesBefore:)``.
    /// A folder counts as unchanged only below unchanged (or freshly listed) parents, so a
    /// parent swapped for a symlink is noticed before anything below it is believed.
    ///
    /// Falls back to the full walk when there are no stamps, on a filesystem whose folder
    /// times are not trusted, or when the known files do not fit the known folders.
    public func scan(
        knowing known: KnownLayout, trustingChangesBefore: Int64, prefetched: StatPrefetch? = nil
    ) -> WorkspaceScan {
        let stamping = stampRules(trustBefore: trustingChangesBefore)
        let fullWalk = { scan(below: "", stamping: stamping) }
        guard stamping.trusted, !known.folders.isEmpty else { return fullWalk() }
        let stats =
            (prefetched
            ?? StatPrefetch.all(root: root, folders: known.folders.map(\.path), files: known.files))
            .results()
        guard stats.folders.count == known.folders.count, stats.files.count == known.files.count
        else {
            return fullWalk()
        }

        // 1. Each stamped folder's own state.
        let folders = known.folders
        var index: [String: Int] = [:]
        index.reserveCapacity(folders.count)
        for (i, folder) in folders.enumerated() { index[folder.path] = i }
        guard let top = index[""] else { return fullWalk() }
        var childrenOf = [[Int]](repeating: [], count: folders.count)
        for (i, folder) in folders.enumerated() where !folder.path.isEmpty {
            guard let parent = index[Self.parentPath(folder.path)] else { return fullWalk() }
            childrenOf[parent].append(i)
        }
        let unchanged = folders.indices.map { i in
            stats.folders[i].map { stamping.unchanged($0, since: folders[i]) } ?? false
        }

        // When most folders changed (a copied workspace, a restored backup), the parallel
        // full walk is faster than listing them one by one.
        if unchanged.count(where: { $0 }) * 2 < folders.count { return fullWalk() }

        // 2. From the top down: unchanged folders are believed, changed ones listed.
        var result = WorkspaceScan()
        var trusted = [Bool](repeating: false, count: folders.count)
        /// Visits folder `i`; `parent` is its parent's open descriptor when the parent was
        /// listed in this walk (the folder is then opened relative to it, with O_NOFOLLOW),
        /// nil when the parent was believed unchanged (opened by path, with a check that no
        /// symlink was crossed). Descriptors stay open only along the current branch.
        func visit(_ i: Int, parent: Int32?) {
            let folder = folders[i]
            if unchanged[i] {
                trusted[i] = true
                result.foldersSkipped += 1
                for child in childrenOf[i] { visit(child, parent: nil) }
                return
            }
            let opened =
                parent.map {
                    openChild(Self.lastName(folder.path), in: $0, path: folder.path, into: &result)
                } ?? openFolder(folder.path)
            guard let dir = opened else {
                result.goneFolders.append(folder.path)
                return
            }
            defer { closedir(dir) }
            var subfolders: [(name: String, path: String)] = []
            list(
                dir, relative: folder.path, stamping: stamping, into: &result,
                subfolders: &subfolders)
            let listedPaths = Set(subfolders.map(\.path))
            for child in childrenOf[i] where !listedPaths.contains(folders[child].path) {
                result.goneFolders.append(folders[child].path)
            }
            for sub in subfolders {
                if let child = index[sub.path] {
                    visit(child, parent: dirfd(dir))
                } else if let childDir = openChild(
                    sub.name, in: dirfd(dir), path: sub.path, into: &result)
                {
                    // A new folder: everything below it is new too.
                    walkOpen(childDir, relative: sub.path, stamping: stamping, into: &result)
                }
            }
        }
        visit(top, parent: nil)

        // 3. The known files of unchanged folders (already stat'ed by path).
        let everyFolderTrusted = result.listed.isEmpty && result.goneFolders.isEmpty
        var files: [ScannedFile] = []
        files.reserveCapacity(known.files.count + result.files.count)
        for (i, path) in known.files.enumerated() {
            if !everyFolderTrusted {
                guard let parent = index[Self.parentPath(path)] else {
                    // A file of a folder that has no stamp: the index's picture is not one
                    // this walk can build on.
                    if isIncluded(path) && !isBelowAny(path, result.goneFolders) {
                        return fullWalk()
                    }
                    continue
                }
                if !trusted[parent] { continue }  // listed, or gone
            }
            // Gone, or no longer a file: its folder's next listing confirms it.
            guard let facts = stats.files[i], facts.isRegularFile else { continue }
            files.append(ScannedFile(path: path, facts))
        }
        let matches = everyFolderTrusted && files.count == known.files.count
        var combined = WorkspaceScan(files: files)
        combined.append(result)
        combined.matchesKnownFiles = matches
        combined.stamped = true
        combined.settleUnreadable()
        return combined
    }

    /// The folder part of a workspace-relative path ("" for a top-level entry).
    public static func parentPath(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(path[..<slash])
    }

    static func lastName(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    private func isBelowAny(_ path: String, _ folders: [String]) -> Bool {
        folders.contains { $0.isEmpty || path.hasPrefix($0 + "/") }
    }
}
