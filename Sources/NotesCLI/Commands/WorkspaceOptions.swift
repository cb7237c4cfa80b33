import ArgumentParser
import Foundation
import NotesCore
import NotesIndex
import NotesSession

/// Options every workspace command takes.
struct WorkspaceOptions: ParsableArguments {
    @Option(
        name: [.short, .customLong("workspace")],
        help: ArgumentHelp(
            "The workspace folder (default: $NOTES_WORKSPACE, else the nearest folder with .notes/).",
            valueName: "dir"), completion: .directory)
    var workspace: String?

    @Option(
        name: .customLong("index-dir"),
        help: ArgumentHelp(
            "Where to keep this device's search index (default: $NOTES_INDEX_DIR, else ~/.cache/notes/<name>-<id>).",
            valueName: "dir"), completion: .directory)
    var indexDirectory: String?

    @OptionGroup var style: ColorOption

    /// The workspace these options name.
    func openWorkspace() throws -> Workspace {
        try Workspace.discover(
            explicit: workspace, environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileSystem.currentDirectory())
    }

    /// The workspace and its index, brought up to date (docs/spec.md §4.3).
    func openFreshIndex(progressLabel: String = "Indexing") throws -> (NoteIndex, RefreshReport) {
        let workspace = try openWorkspace()
        let directory = try indexDirectory(of: workspace)
        // A live `notes watch` keeps the index fresh: no stat walk needed (docs/spec.md §4.3).
        if NoteIndex.isKeptFreshByWatcher(directory: directory, configStamp: workspace.configStamp)
        {
            return (
                try WorkspaceSession(workspace: workspace, indexDirectory: directory).index,
                RefreshReport()
            )
        }
        let index = try WorkspaceSession(
            workspace: workspace, indexDirectory: directory, refreshingSoon: true
        ).index
        let progress = ProgressBar(label: progressLabel)
        let report = try index.refresh(progress: progress.update)
        progress.finish()
        return (index, report)
    }

    /// `workspace` opened with its index (``WorkspaceSession``); `longLived` for a command
    /// that searches many times, `refreshingSoon` when the caller refreshes the whole
    /// workspace next (see ``NoteIndex/init(workspace:directory:longLived:refreshingSoon:waitForBuilders:ledger:)``).
    func openSession(_ workspace: Workspace, longLived: Bool = false, refreshingSoon: Bool = false)
        throws -> WorkspaceSession
    {
        try WorkspaceSession(
            workspace: workspace, indexDirectory: try indexDirectory(of: workspace),
            longLived: longLived, refreshingSoon: refreshingSoon)
    }

    /// Where the index of `workspace` lives (`--index-dir`, `NOTES_INDEX_DIR`, or the default).
    func indexDirectory(of workspace: Workspace) throws(NotesError) -> String {
        try workspace.indexDirectory(
            override: indexDirectory, environment: ProcessInfo.processInfo.environment)
    }

    /// The folder this command's paths are typed and printed relative to (``PathBase``).
    func pathBase(_ workspace: Workspace) -> PathBase {
        PathBase(workspace, options: self)
    }

    /// A path typed by the person, workspace-relative (``PathBase/resolve(_:)``).
    func resolve(_ raw: String, in workspace: Workspace) throws -> WorkspacePath {
        try pathBase(workspace).resolve(raw)
    }
}
