import Foundation
import NotesCore
import NotesStore

// A load generator for the concurrency tests (reliability plan A.1): one process doing
// read → modify → write cycles as an agent on a set of files through the library, with
// the version it read as the precondition. Prints one JSON summary line.
//
//   notes-stress WORKSPACE CYCLES WORKER FILE...

let arguments = CommandLine.arguments
guard arguments.count >= 5, let cycles = Int(arguments[2]) else {
    FileHandle.standardError.write(
        Data("usage: notes-stress WORKSPACE CYCLES WORKER FILE...\n".utf8))
    exit(2)
}
let worker = arguments[3]
let files = Array(arguments[4...])
let store: NoteStore
do {
    store = NoteStore(workspace: try Workspace(root: arguments[1]))
} catch {
    FileHandle.standardError.write(Data("notes-stress: \(error)\n".utf8))
    exit(2)
}
let agent = Author(.agent, client: "stress-\(worker)")
var written: [String] = []  // tokens whose write was acknowledged
var stale = 0
var failures: [String] = []
for cycle in 0..<cycles {
    let path = files[cycle % files.count]
    do {
        let read = try store.read(path, by: agent)
        let token = "token-\(worker)-\(cycle)"
        _ = try store.write(
            path, content: read.content + token + "\n",
            options: ChangeOptions(expectedVersion: read.version), by: agent)
        written.append(token)
    } catch {
        if error.code == .staleVersion {
            stale += 1
        } else {
            failures.append("\(error.code.rawValue): \(error.message)")
        }
    }
}
let summary: [String: Any] = [
    "worker": worker, "written": written, "stale": stale, "failures": failures,
]
let data = try! JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
FileHandle.standardOutput.write(data + Data("\n".utf8))
