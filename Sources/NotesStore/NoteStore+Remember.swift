import NotesCore

extension NoteStore {
    /// Adds `fact` to context.md as a dated bullet under `section` (default "Learned"),
    /// creating the file or the section when missing, unless the file already says it
    /// (docs/spec.md §8.1). The duplicate check and the append happen under the workspace lock, so
    /// two sessions remembering the same fact add it once.
    public func remember(
        _ fact: String, section: String? = nil, by author: Author, now: Double = Timestamp.now()
    ) throws(NotesError) -> RememberResult {
        let text = ContextFacts.clean(fact)
        guard !ContextFacts.normalised(text).isEmpty else {
            throw NotesError(
                .invalidArgument, "the fact is empty", hint: "pass the fact as one short sentence")
        }
        guard text.utf8.count <= ContextFacts.maxFactBytes else {
            throw NotesError(
                .tooLarge,
                "the fact is \(text.utf8.count) bytes; facts are at most \(ContextFacts.maxFactBytes)",
                hint: "remember one short sentence at a time")
        }
        let heading = ContextFacts.clean(
            section.map { String($0.drop { $0 == "#" }) } ?? ContextFacts.defaultSection)
        guard !heading.isEmpty else {
            throw NotesError(
                .invalidArgument, "the section name is empty",
                hint: "leave section out to use \"\(ContextFacts.defaultSection)\"")
        }
        let (path, rule) = try resolve(ContextFacts.path, for: author, .append)
        return try lockedRereading { () throws(NotesError) -> RememberResult in
            let target = try open(path, create: true)
            var result = RememberResult(
                path: path.relative, version: target.version, section: heading, duplicate: false)
            if let current = target.bytes, let line = ContextFacts.matching(text, in: current) {
                result.duplicate = true
                result.matching = String(line.drop { $0 == " " || $0 == "\t" })
                return result
            }
            try WriteGuard.checkFactSection(
                heading, in: target.bytes, path: path.relative, by: author)
            let line = ContextFacts.bullet(text, date: String(Timestamp.format(now).prefix(10)))
            let start = target.bytes ?? Array(ContextFacts.header.utf8)
            let bytes = try TextChange.append(
                line, to: start, section: heading, markdown: true, path: path.relative)
            let change = try commitAppend(
                target, bytes: bytes, rule: rule, author: author, what: "remember")
            result.version = change.version
            result.added = line
            if let current = target.bytes, let near = ContextFacts.neighbour(of: text, in: current)
            {
                if near.contradicts {
                    result.contradicts = near.line
                } else {
                    result.similar = near.line
                }
            }
            result.proposal = change.proposal
            return result
        }
    }
}
