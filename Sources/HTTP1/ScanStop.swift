/// Why a head scan stopped before producing a head: it needs more bytes, or the bytes are invalid.
enum ScanStop: Error {
    /// The input ended before the head did (and no limit is exceeded yet).
    case incomplete
    /// The input is invalid.
    case failure(ParseError)

    /// A 400 with a fixed context.
    static func bad(_ context: String) -> ScanStop { .failure(.badRequest(context)) }
}
