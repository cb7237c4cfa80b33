import ArgumentParser

/// `--color auto|always|never`, taken by every command that prints (through
/// ``WorkspaceOptions``, and by the commands without a workspace). It may also come before
/// the command (`notes --color always search whale`), like `-w`.
struct ColorOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Color the output: auto (on a terminal, unless NO_COLOR is set), always or never.",
            valueName: "when"))
    var color: ColorChoice = .auto

    /// Parsing is where the choice takes effect: the command's output, and any error it
    /// reports, follow it.
    func validate() throws { Terminal.use(color) }
}
