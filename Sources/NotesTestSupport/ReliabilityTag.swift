import Testing

extension Tag {
    /// Crash rounds, kill loops, races run many times and soaks. A plain `swift test` skips
    /// them; `scripts/reliability` runs them, selecting them by name (this toolchain's `swift
    /// test --filter` does not take `tag:` yet; ReliabilityTagTests keeps the list exact), and
    /// `scripts/test` runs it (docs/reliability.md).
    @Tag public static var reliability: Self
}

extension Trait where Self == ConditionTrait {
    /// Enabled only in a reliability run (`NOTES_RELIABILITY=1`, which scripts/reliability
    /// sets, or `NOTES_SOAK=1`).
    public static var reliabilityRun: Self {
        .enabled(
            if: Repository.runsReliabilityRounds,
            "a crash round or soak: scripts/reliability runs it")
    }
}
