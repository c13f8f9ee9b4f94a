extension UploadCatalog {
    /// What a client declared of its object, checked against `type` (nil: unknown, reported elsewhere):
    /// a size that is a whole number, not negative, not 0 for a type of images, at most S3's 5 TiB and
    /// at most the type's `maxBytes`; digests that are the canonical base64 of their lengths. Returns the
    /// declaration (its members that passed) and the problems, in the order size, `contentMD5`,
    /// `checksumSHA256` (client B's member order).
    public func checkDeclared(_ d: DeclaredInput, type: UploadType?) -> (DeclaredContent, [UploadProblem]) {
        var problems: [UploadProblem] = []
        var content = DeclaredContent.none
        switch d.size {
        case nil: break
        case .malformed: problems.append(.sizeMalformed)
        case .tooLarge: problems.append(.sizeOverMaximum)
        case .bytes(let n):
            if n < 0 {
                problems.append(.sizeNegative(n))
            } else if n == 0, let type, type.config.holdsImages {
                problems.append(.sizeEmpty(type: type.config.name))
            } else if n > DeclaredContent.maxSize {
                problems.append(.sizeOverMaximum)
            } else if let type, n > type.config.maxBytes {
                problems.append(.sizeOverLimit(n, type: type.config.name, limit: type.config.maxBytes))
            } else {
                content.size = n
            }
        }
        for (digest, text) in [(DeclaredDigest.md5, d.contentMD5), (.sha256, d.checksumSHA256)] {
            guard let text else { continue }
            if let reason = digest.problem(with: text) {
                problems.append(.digestMalformed(digest, reason: reason))
            } else if digest == .md5 {
                content.contentMD5 = text
            } else {
                content.checksumSHA256 = text
            }
        }
        return (content, problems)
    }
}
