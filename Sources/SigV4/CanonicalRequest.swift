import Crypto

/// SigV4 task 1 for a request given by its parts: the canonical request, as the header signer writes it
/// for the server's own calls and as explain mode rebuilds it for a URL it checks. (The presigner writes
/// the same lines straight into its stack block, in the order of the URL it builds: `Presigner+Presigning`.)
///
/// `METHOD \n URI \n QUERY \n HEADER-LINES \n \n SIGNED-NAMES \n PAYLOAD`, the query encoded per SigV4
/// (`URIEncoding`) and sorted by encoded name, then value, byte by byte.
public enum CanonicalRequest {
    /// Writes the canonical request. `canonicalURI` is already encoded; `query` holds raw names and
    /// values; `headers` are lower-case names and normalised values in signing order.
    public static func append(
        method: String, canonicalURI: String, query: [(name: String, value: String)],
        headers: [(name: String, value: String)], signedNames: String, payload: String, to buffer: inout [UInt8]
    ) {
        var encoded = [(name: [UInt8], value: [UInt8])]()
        encoded.reserveCapacity(query.count)
        for (name, value) in query {
            var pair = (name: [UInt8](), value: [UInt8]())
            URIEncoding.append(name, keepingSlash: false, to: &pair.name)
            URIEncoding.append(value, keepingSlash: false, to: &pair.value)
            encoded.append(pair)
        }
        append(
            method: method, canonicalURI: Array(canonicalURI.utf8), encodedQuery: encoded, headers: headers,
            signedNames: signedNames, payload: payload, to: &buffer)
    }

    /// `append` with the query already encoded (the header signer checks and encodes it first).
    static func append(
        method: String, canonicalURI: [UInt8], encodedQuery: [(name: [UInt8], value: [UInt8])],
        headers: [(name: String, value: String)], signedNames: String, payload: String, to buffer: inout [UInt8]
    ) {
        buffer.write(utf8: method)
        buffer.append(UInt8(ascii: "\n"))
        buffer.append(contentsOf: canonicalURI)
        buffer.append(UInt8(ascii: "\n"))
        appendQuery(encodedQuery, to: &buffer)
        buffer.append(UInt8(ascii: "\n"))
        for header in headers {
            buffer.write(utf8: header.name)
            buffer.append(UInt8(ascii: ":"))
            buffer.write(utf8: header.value)
            buffer.append(UInt8(ascii: "\n"))
        }
        buffer.append(UInt8(ascii: "\n"))
        buffer.write(utf8: signedNames)
        buffer.append(UInt8(ascii: "\n"))
        buffer.write(utf8: payload)
    }

    /// Writes `name=value&...` for encoded `pairs`, sorted by name, then value (SigV4's canonical query).
    static func appendQuery(_ pairs: [(name: [UInt8], value: [UInt8])], to output: inout [UInt8]) {
        let sorted = pairs.sorted {
            $0.name != $1.name
                ? Presigner.precedes($0.name, $1.name) : Presigner.precedes($0.value, $1.value)
        }
        for (index, pair) in sorted.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "&")) }
            output.append(contentsOf: pair.name)
            output.append(UInt8(ascii: "="))
            output.append(contentsOf: pair.value)
        }
    }

    /// The text of the canonical request (explain mode shows it).
    public static func text(
        method: String, canonicalURI: String, query: [(name: String, value: String)],
        headers: [(name: String, value: String)], signedNames: String, payload: String
    ) -> String {
        var buffer: [UInt8] = []
        append(
            method: method, canonicalURI: canonicalURI, query: query, headers: headers, signedNames: signedNames,
            payload: payload, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}

extension Presigner {
    /// SigV4 task 2 for `canonicalRequest` at `epochSeconds`: the string to sign, written by the
    /// signer's own `appendStringToSign` (its scope: this signer's region and service).
    public func stringToSign(canonicalRequest: String, epochSeconds: Int64) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(stringToSignMaximumCount)
        appendStringToSign(
            date: AmzDate(epochSeconds: epochSeconds), canonicalRequestHash: SHA256.hash(canonicalRequest),
            to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// SigV4 tasks 3 and 4: the signature of `stringToSign` with this signer's key for the day of
    /// `epochSeconds` (the same derived-key cache the signer uses).
    public func signature(stringToSign: String, epochSeconds: Int64) -> SHA256Digest {
        keyCache.key(for: AmzDate(epochSeconds: epochSeconds)).authenticate(stringToSign)
    }
}
