import ArgumentParser
import Foundation
import NotesCore

/// `notes`: a Markdown workspace shared by a person and an AI agent.
@main
struct NotesCommand: ParsableCommand {
    static let version = ProductVersion.number

    static let configuration = CommandConfiguration(
        commandName: "notes",
        abstract: "Search and keep a Markdown workspace shared by you and an AI agent.",
        discussion: """
            The files are the data; the search index is a cache kept outside the workspace.
            The workspace is -w DIR, else $NOTES_WORKSPACE, else the nearest folder above
            the current one that holds .notes/.

            Examples:
              notes search whale
              notes search 'white whale' kind:research --limit 5
              notes list Research --tree
              notes read Research/moby-dick/introduction.md
              echo "- a thought" | notes append Journal/2026-11-21.md
              notes history Research/moby-dick/introduction.md
              notes review

            notes --version prints the version.
            """,
        subcommands: [
            Search.self, Read.self, List.self, Status.self, Index.self, Init.self,
            Write.self, Append.self, Edit.self, Remove.self, Move.self, Restore.self,
            History.self, Diff.self, Log.self, Review.self, GarbageCollect.self,
            Journal.self, Remember.self, Context.self, New.self, Templates.self, Mcp.self,
            Agent.self, Fetch.self, Watch.self, Model.self, Related.self,
        ])

    /// `-w`, `--index-dir` and `--color` before the command (`notes -w DIR read …`): the
    /// commands' own groups of the same type take these values, and the completion scripts
    /// know them there.
    @OptionGroup var workspace: WorkspaceOptions

    /// Runs the command line with the exit-status contract of docs/spec.md §12: errors are one line
    /// `notes: <what went wrong> (<what to do>)` on stderr and exit 2; `--json` errors are
    /// JSON on stdout with the same codes as the agent tools.
    static func main() {
        StandardStreams.prepare()
        StandardStreams.sendNoticesToStandardError()
        let wantsJSON = CommandLine.arguments.contains { $0 == "--json" || $0 == "--jsonl" }
        var name = ""
        // The command as typed, for an error ArgumentParser raises before naming it.
        var typedCommand = ""
        do {
            let arguments = rewrite(Array(CommandLine.arguments.dropFirst()))
            typedCommand = arguments.first ?? ""
            // `--version` is the root's own, not `CommandConfiguration.version`, which
            // ArgumentParser would also list in every command's help, beside `restore`'s
            // `--version VERSION`.
            if arguments == ["--version"] {
                Terminal.write("notes \(version) (commit \(BuildInfo.commit))\n")
                finishOutput(command: "", status: 0)
            }
            try checkCommand(arguments)
            try checkHelpTopic(arguments)
            var command = try parseAsRoot(arguments)
            name = type(of: command).configuration.commandName ?? ""
            try command.run()
            finishOutput(command: name, status: 0)
        } catch let error as NotesError {
            fail(error, json: wantsJSON)
        } catch let labeled as LabeledConflicts {
            fail(labeled.error, json: wantsJSON, sides: labeled.sides)
        } catch let exit as ExitCode {
            finishOutput(command: name, status: exit.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            let message =
                message(for: error).split(separator: "\n").first.map(String.init)
                ?? "invalid arguments"
            let cleaned = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
            // In free text, a word shaped like an option can be meant as text.
            let freeText =
                freeTextCommands[typedCommand] != nil && cleaned.hasPrefix("Unknown option")
            // A value of a kind the message does not describe: an example.
            let age = cleaned.contains(" <age>'")
            fail(
                NotesError(
                    .invalidArgument, cleaned.prefix(1).lowercased() + cleaned.dropFirst(),
                    hint: age
                        ? "an age is a number and a unit, such as 90s, 30m, 12h, 7d, 2w or 1y"
                        : freeText
                            ? "to write it as text, put the text after `--`: `notes \(typedCommand) -- …`; `notes help \(typedCommand)` lists the options"
                            : "see `notes help`"), json: wantsJSON)
        }
    }

    /// `notes help TOPIC`: ArgumentParser prints the general help for a topic it does not know
    /// (exit 0); an unknown topic is an error like any other bad input.
    static func checkHelpTopic(_ arguments: [String]) throws {
        guard arguments.first == "help", arguments.count > 1, !arguments[1].hasPrefix("-") else {
            return
        }
        let names = configuration.subcommands.map { $0._commandName }
        guard names.contains(arguments[1]) else {
            throw NotesError(
                .invalidArgument, "no help topic '\(arguments[1])'",
                hint: "the commands are: \(names.filter { $0 != "help" }.joined(separator: ", "))")
        }
    }

    /// The arguments as ArgumentParser should see them: global options after the command,
    /// free text taken as typed, `-word` an excluded term in search queries only, and a
    /// negative number the value of the option before it.
    static func rewrite(_ arguments: [String]) -> [String] {
        joiningNegativeValues(
            negatingDashedWords(takingFreeTextAsTyped(hoistingGlobalOptions(arguments))))
    }

    /// The options that take a number. ArgumentParser reads `--limit -1` as the option
    /// `--limit` without its value and a flag `-1` ("missing value for '--limit'"); joined as
    /// `--limit=-1`, the value reaches the command, whose check says what it accepts.
    static let numberOptions: Set<String> = [
        "--limit", "--offset", "--max-turns", "--max-tokens", "--timeout", "--max-bytes", "--poll",
        "--debounce",
    ]

    static func joiningNegativeValues(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            if arg == "--" {
                result += arguments[i...]
                break
            }
            if numberOptions.contains(arg), i + 1 < arguments.count,
                arguments[i + 1].hasPrefix("-"), Double(arguments[i + 1]) != nil
            {
                result.append(arg + "=" + arguments[i + 1])
                i += 2
            } else {
                result.append(arg)
                i += 1
            }
        }
        return result
    }

    /// A first word that names no command (`notes serch whale`) is refused as one: the
    /// nearest command is suggested (ArgumentParser would say "unexpected arguments").
    static func checkCommand(_ arguments: [String]) throws(NotesError) {
        guard let first = arguments.first, !first.hasPrefix("-") else { return }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        if first == "init" {
            // The root takes `-w` for every command; `init` makes a workspace of its argument.
            let options = arguments.prefix { $0 != "--" }
            if options.contains(where: {
                ["-w", "--workspace", "--index-dir"].contains($0)
                    || $0.hasPrefix("--workspace=") || $0.hasPrefix("--index-dir=")
            }) {
                throw NotesError(
                    .invalidArgument,
                    "notes init takes the folder to set up as its argument, not -w",
                    hint: "notes init DIR")
            }
        }
        guard !names.contains(first) else { return }
        if let near = CommandSuggestion.nearest(to: first, among: names) {
            throw NotesError(
                .invalidArgument, "unknown command '\(first)'",
                hint: "did you mean `notes \(near)`? `notes help` lists the commands")
        }
        throw NotesError(
            .invalidArgument, "unknown command '\(first)'",
            hint: "the commands are: \(names.filter { $0 != "help" }.joined(separator: ", "))")
    }

    /// The options of the commands that take free text (`append PATH TEXT…`, `journal TEXT…`,
    /// `remember TEXT…`): those that take a value, and flags.
    static let freeTextCommands: [String: (values: Set<String>, flags: Set<String>)] = [
        "append": (["--section"], ["--json", "--diff"]),
        "journal": ([], ["--json"]),
        "remember": (["--section"], ["--json"]),
    ]

    /// Free text is taken as typed (issue 31): `notes append Journal/today.md "- read
    /// chapter 32"`, `notes journal I will search -later`. The command's own options (and
    /// `-w`, `--workspace`, `--index-dir`, `--color`, `-h`, `--help`) are options before the
    /// text and after it; between two words of the text they are text too (`notes journal
    /// use -w DIR to pick the folder` writes all of it: read as an option, `-w` took words
    /// out of the entry and wrote it to another folder). Every other argument is text,
    /// whatever it starts with, and so is any argument holding a space (`"--json is
    /// cool"`); the text is passed after `--`. A word that looks like a long option
    /// (`--sectoin`) and is none is refused as unknown wherever it stands.
    static func takingFreeTextAsTyped(_ arguments: [String]) -> [String] {
        guard let command = arguments.first, let known = freeTextCommands[command] else {
            return arguments
        }
        let values = known.values.union(["-w", "--workspace", "--index-dir", "--color"])
        let flags = known.flags.union(["-h", "--help"])
        // Each argument in order: an option (as ArgumentParser is to get it, and as typed)
        // or a word of the text.
        enum Part {
            case option(passed: [String], typed: [String])
            case unknown(String)
            case text(String)
        }
        var parts: [Part] = []
        var i = 1
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if arg == "--" {
                parts += arguments[i...].map { .text($0) }
                break
            }
            if values.contains(arg), i < arguments.count {
                // `--section=VALUE`, so that a value starting with "-" stays a value.
                let passed = arg.hasPrefix("--") ? [arg + "=" + arguments[i]] : [arg, arguments[i]]
                parts.append(.option(passed: passed, typed: [arg, arguments[i]]))
                i += 1
            } else if flags.contains(arg) || values.contains(arg)
                || values.contains(String(arg.prefix { $0 != "=" }))
            {
                // `--workspace=/Users/me/My Notes` too: its value may hold spaces.
                parts.append(.option(passed: [arg], typed: [arg]))
            } else if arg.contains(where: \.isWhitespace) {
                parts.append(.text(arg))
            } else if arg.hasPrefix("--"), arg.dropFirst(2).first?.isLetter == true {
                // An unknown long option, wherever it stands: ArgumentParser refuses it
                // (`--sectoin Learned` at the end is a typo, not text).
                parts.append(.unknown(arg))
            } else {
                parts.append(.text(arg))
            }
        }
        // The text's words (`append`'s first is the file's path, not text).
        let words = parts.indices.filter { if case .text = parts[$0] { true } else { false } }
            .dropFirst(command == "append" ? 1 : 0)
        let (first, last) = (words.first, words.last)
        var options: [String] = []
        var text: [String] = []
        for (n, part) in parts.enumerated() {
            switch part {
            case .text(let word): text.append(word)
            case .unknown(let option): options.append(option)
            case .option(let passed, let typed):
                if let first, let last, n > first && n < last {
                    text += typed
                } else {
                    options += passed
                }
            }
        }
        return [command] + options + (text.isEmpty ? [] : ["--"] + text)
    }

    /// Options that name the workspace, `--color` and `--json` may come before the
    /// subcommand (`notes -w DIR search whale`, `notes --json status`); ArgumentParser wants
    /// them after it, so they are moved there.
    static func hoistingGlobalOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            if ["-w", "--workspace", "--index-dir", "--color"].contains(arg),
                i + 1 < arguments.count
            {
                leading += [arg, arguments[i + 1]]
                i += 2
            } else if arg.hasPrefix("--workspace=") || arg.hasPrefix("--index-dir=")
                || arg.hasPrefix("--color=") || arg == "--json"
            {
                leading.append(arg)
                i += 1
            } else {
                break
            }
        }
        guard !leading.isEmpty, i < arguments.count else { return arguments }
        return [arguments[i]] + leading + arguments[(i + 1)...]
    }

    /// `notes search whale -ship`: a single-dash word after `search` is an excluded search
    /// term, not a bundle of short flags (`-s -h -i -p` would print the help). It is passed
    /// on as `NOT ship`. One-letter flags (`-l`, `-w`) and negative numbers keep their meaning.
    static func negatingDashedWords(_ arguments: [String]) -> [String] {
        // Only when the command is `search` (not a word "search" in a journal entry).
        guard arguments.first == "search" else { return arguments }
        let search = 0
        var result = Array(arguments[...search])
        var afterDoubleDash = false
        var takesValue = false
        for arg in arguments[(search + 1)...] {
            defer {
                takesValue =
                    !afterDoubleDash && ["-w"].contains(arg)
                    || (arg.hasPrefix("--") && !arg.contains("=")
                        && Search.valueOptions.contains(arg))
            }
            if arg == "--" { afterDoubleDash = true }
            if !afterDoubleDash && !takesValue && arg.count > 2 && arg.hasPrefix("-")
                && !arg.hasPrefix("--") && Double(arg) == nil
            {
                result += ["NOT", String(arg.dropFirst())]
            } else {
                result.append(arg)
            }
        }
        return result
    }

    /// Commands whose work is a change to the files (their output only reports it).
    static let changingCommands: Set<String> = [
        "write", "append", "edit", "rm", "mv", "restore", "journal", "remember", "new", "review",
        "gc", "init", "index", "context",
    ]

    /// Ends a command whose work is done, deciding what an output error means (issue 34
    /// item 4; docs/decisions.md D186). A reader that closed the
    /// pipe (EPIPE: `| head`) wanted no more: the work's status, quietly. Otherwise (ENOSPC,
    /// EBADF, EIO): a changing command's change was made, so its status stands and stderr
    /// says the report was lost; for a command whose work is its output (search, read, list,
    /// log, status…) the output is lost: exit 2.
    static func finishOutput(command: String, status: Int32) -> Never {
        guard let failure = StandardStreams.outputFailure, failure != EPIPE else {
            Foundation.exit(status)
        }
        if changingCommands.contains(command) {
            let done =
                ["index", "gc", "init"].contains(command)
                ? "the work was done" : "the change was made"
            StandardStreams.writeError(
                "notes: \(done), but its report could not be written to standard output (\(String(cString: strerror(failure))))\n"
            )
            Foundation.exit(status)
        }
        StandardStreams.writeError(
            "notes: the output could not be written to standard output (\(String(cString: strerror(failure)))) (check where it goes: a full disk, a closed descriptor)\n"
        )
        Foundation.exit(2)
    }

    /// `sides`: what the conflicts' `theirs` and `ours` are, in the person's words.
    static func fail(
        _ error: NotesError, json: Bool,
        sides: LabeledConflicts.Sides = .init(theirs: "the file now", ours: "the change")
    ) -> Never {
        let error = PersonWording.forPerson(error)
        if json {
            struct Body: Encodable {
                var code: String, message: String, hint: String?, details: ErrorDetails?
            }
            let body = [
                "error": Body(
                    code: error.code.rawValue, message: error.message, hint: error.hint,
                    details: error.details)
            ]
            if !StandardStreams.writeOutput(((try? JSONOutput.line(body)) ?? "{}\n")) {
                StandardStreams.writeError("notes: \(error.description)\n")
            }
        } else {
            StandardStreams.writeError("notes: \(error.description)\n")
            // A refusal's diff or conflicts help the person decide what to do.
            if let details = error.details {
                if let conflicts = details.conflicts {
                    let width = max(sides.theirs.count, sides.ours.count) + 1
                    func label(_ text: String) -> String {
                        (text + ":").padding(toLength: width, withPad: " ", startingAt: 0)
                    }
                    for c in conflicts.prefix(10) {
                        StandardStreams.writeError(
                            "  conflict at line \(c.line):\n    \(label(sides.theirs)) \(c.theirs.trimmingCharacters(in: .newlines))\n    \(label(sides.ours)) \(c.ours.trimmingCharacters(in: .newlines))\n"
                        )
                    }
                } else if let diff = details.diff, !diff.isEmpty {
                    StandardStreams.writeError(diff)
                }
            }
        }
        Foundation.exit(2)
    }
}

/// A `merge_conflict` with the names of its two sides for the person: a merge's `theirs` is
/// the file on disk and `ours` the incoming text, which are "yours" and "the agent's
/// proposal" in `notes review`, and the other way round in `notes edit`.
struct LabeledConflicts: Error {
    struct Sides {
        var theirs: String
        var ours: String
    }
    var error: NotesError
    var sides: Sides

    /// Runs `body`, naming the sides of a `merge_conflict` it throws.
    static func naming<T>(theirs: String, ours: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as NotesError where error.code == .mergeConflict {
            throw LabeledConflicts(error: error, sides: Sides(theirs: theirs, ours: ours))
        }
    }
}
