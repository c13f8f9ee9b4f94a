/// Every problem found in one attempt to load the configuration (the caller prints them and exits 2).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The problems, in the order they were found; never empty.
    public var problems: [ConfigProblem]

    /// An error holding `problems`.
    public init(problems: [ConfigProblem]) {
        self.problems = problems
    }

    /// One problem per line.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
