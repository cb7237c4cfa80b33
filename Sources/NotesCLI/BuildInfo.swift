/// What `notes --version` says about the build. `scripts/build-release` writes the commit it
/// builds into this file for the build and puts it back afterwards; any other build says "dev".
enum BuildInfo {
    static let commit = "dev"
}
