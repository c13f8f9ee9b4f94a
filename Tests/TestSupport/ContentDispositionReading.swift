/// The Content-Disposition check of `scripts/boto3_read_urls.py`: values in, what Python's `email`
/// package reads from each out (the disposition, the filename, every parameter).
public enum ContentDispositionReading {
    /// What the script reads: Content-Disposition values to parse.
    public struct Input: Codable, Sendable {
        /// The header values, in order.
        public var dispositions: [String]

        /// An input of these values.
        public init(dispositions: [String]) { self.dispositions = dispositions }
    }

    /// What it answers for each value.
    public struct Output: Codable, Sendable {
        /// What Python read from one value.
        public struct Reading: Codable, Sendable {
            /// `inline` or `attachment`, when it found one.
            public var disposition: String?
            /// The filename it read (from `filename*` when present), when any.
            public var filename: String?
            /// Every parameter as a `[name, value]` pair.
            public var params: [[String]]
        }
        /// One reading per input value, in order.
        public var parsed: [Reading]
    }

    /// Python's readings of `values`.
    public static func read(_ values: [String]) throws -> [Output.Reading] {
        let out: Output = try PythonScript.run("boto3_read_urls.py", input: Input(dispositions: values))
        return out.parsed
    }
}
