import Foundation
import NotesCore
import NotesIndex

/// What this session knows about watching its workspace.
enum WatchState {
    case notStarted
    case watching(FolderWatcher)
    case unavailable
}
