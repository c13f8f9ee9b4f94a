/// A header as SigV4 signs it: lower-case name, value trimmed with inner runs of spaces collapsed.
struct CanonicalHeader: Sendable {
    /// The lower-case name.
    let name: String
    /// The normalised value, which is also what the client must send.
    let value: String

    /// Names the signer sets itself, which a caller may not pass.
    static let reservedNames: Set<String> = [
        "host", "authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "x-amz-algorithm",
        "x-amz-credential", "x-amz-expires", "x-amz-signedheaders", "x-amz-signature",
    ]

    /// Lower-cases and checks the name, normalises and checks the value.
    ///
    /// Names are `a-z 0-9 - _ .` (every S3 header, and none of them needs URI encoding in
    /// `X-Amz-SignedHeaders`). Values are visible ASCII and spaces: a CR, LF or other control
    /// character could split the header the client sends, so it is refused rather than encoded.
    init(name rawName: String, value rawValue: String) throws(SigV4Error) {
        let name = rawName.lowercased()
        guard !name.isEmpty,
            name.utf8.allSatisfy({
                Endpoint.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: ".")
            })
        else { throw .invalidHeader(name: rawName, reason: "a header name is made of a-z, 0-9, -, _ and .") }
        guard !Self.reservedNames.contains(name) else {
            throw .invalidHeader(name: rawName, reason: "set by the signer itself")
        }
        var normalized = [UInt8]()
        var pendingSpace = false
        for byte in rawValue.utf8 {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                pendingSpace = !normalized.isEmpty
                continue
            }
            guard byte >= 0x21 && byte <= 0x7e else {
                throw .invalidHeader(name: rawName, reason: "values are visible ASCII and spaces only")
            }
            if pendingSpace { normalized.append(UInt8(ascii: " ")) }
            pendingSpace = false
            normalized.append(byte)
        }
        self.name = name
        self.value = String(decoding: normalized, as: UTF8.self)
    }

    /// `headers` canonicalised and sorted by name, with `host` added; duplicates are refused.
    static func canonicalize(_ headers: [(name: String, value: String)], host: String) throws(SigV4Error)
        -> [CanonicalHeader]
    {
        var result = [CanonicalHeader]()
        result.reserveCapacity(headers.count + 1)
        for (name, value) in headers {
            let header = try CanonicalHeader(name: name, value: value)
            guard !result.contains(where: { $0.name == header.name }) else {
                throw .invalidHeader(name: name, reason: "given twice")
            }
            result.append(header)
        }
        result.append(CanonicalHeader(trustedName: "host", value: host))
        result.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return result
    }

    /// A header the signer builds itself, taken as given.
    init(trustedName: String, value: String) {
        self.name = trustedName
        self.value = value
    }

    /// The name in the casing clients usually send: `Content-Type`, `Content-MD5`, `If-None-Match`;
    /// `x-amz-*` names stay lower case as AWS writes them.
    var displayName: String {
        if name.hasPrefix("x-amz-") { return name }
        return name.split(separator: "-", omittingEmptySubsequences: false).map { part in
            part == "md5" ? "MD5" : part.prefix(1).uppercased() + part.dropFirst()
        }.joined(separator: "-")
    }
}
