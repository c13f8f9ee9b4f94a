/// What `presignd explain URL [--header 'Name: value']... [--method M] [--error-xml FILE]` asks.
public struct ExplainArguments: Sendable, Equatable {
    /// The URL the client requested.
    public var url: String
    /// `--header` lines, `Name: value`, in order.
    public var headers: [String]
    /// `--method`, when given.
    public var method: String?
    /// `--error-xml`: a file holding storage's error answer.
    public var errorXMLPath: String?

    /// Arguments from their parts.
    public init(url: String, headers: [String] = [], method: String? = nil, errorXMLPath: String? = nil) {
        self.url = url
        self.headers = headers
        self.method = method
        self.errorXMLPath = errorXMLPath
    }
}
