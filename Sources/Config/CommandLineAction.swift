/// What the command line asks presignd to do.
public enum CommandLineAction: Sendable {
    /// Serve with this configuration.
    case run(PresigndConfig)
    /// Print `redactedJSON()` of this (valid) configuration and exit 0.
    case checkConfig(PresigndConfig)
    /// Print `ConfigLoader.version` and exit 0.
    case version
    /// Print this text and exit 0.
    case help(String)
}
