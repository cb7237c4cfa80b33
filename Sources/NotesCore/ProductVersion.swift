/// The version of notes, one for every face of it: `notes --version`, the MCP server's
/// `serverInfo`, and the built-in agent.
public enum ProductVersion {
    public static let number = "0.1.0"
}
