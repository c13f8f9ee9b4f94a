/// An IP address or a CIDR block (`10.0.0.7`, `10.0.0.0/8`, `::1`, `fd00::/8`), as `limits.trustedProxies`
/// lists them. Pure parsing and matching, no system calls; an IPv4-mapped IPv6 address (`::ffff:10.0.0.7`)
/// is the IPv4 address it maps.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    /// The network's bytes (4 for IPv4, 16 for IPv6), host bits cleared.
    public let network: [UInt8]
    /// How many leading bits must match.
    public let prefixLength: Int

    /// Parses `text`; nil when it is neither an address nor `address/prefix` with a prefix in range.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = AddressRange.parseAddress(String(parts[0])) else { return nil }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), parts[1].count <= 3,
                let n = Int(parts[1]), n <= bits
            else { return nil }
            length = n
        }
        network = AddressRange.masked(address, length)
        prefixLength = length
    }

    /// True when `address` (4 or 16 bytes, as `parseAddress` gives) lies in the range.
    public func contains(_ address: [UInt8]) -> Bool {
        address.count == network.count && AddressRange.masked(address, prefixLength) == network
    }

    /// The range as written canonically (`10.0.0.0/8`).
    public var description: String {
        let text =
            network.count == 4
            ? network.map(String.init).joined(separator: ".")
            : stride(from: 0, to: 16, by: 2).map { String(Int(network[$0]) << 8 | Int(network[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        return "\(text)/\(prefixLength)"
    }

    /// The bytes of an IPv4 (dotted quad) or IPv6 address (RFC 4291 text, `::` allowed, a dotted quad as
    /// the last 32 bits allowed, no zone); an IPv4-mapped IPv6 address gives its 4 IPv4 bytes.
    public static func parseAddress(_ text: String) -> [UInt8]? {
        if !text.contains(":") { return parseIPv4(Substring(text)) }
        guard let v6 = parseIPv6(text) else { return nil }
        if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xFF && v6[11] == 0xFF { return Array(v6[12...]) }
        return v6
    }

    /// `bytes` with every bit after the first `length` cleared.
    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let keep = min(8, max(0, length - index * 8))
            return keep == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
    }

    /// Four decimal octets 0...255, no leading zeros beyond a lone 0.
    private static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                part.count == 1 || part.first != "0", let n = Int(part), n <= 255
            else { return nil }
            bytes.append(UInt8(n))
        }
        return bytes
    }

    /// Sixteen bytes from IPv6 text.
    private static func parseIPv6(_ text: String) -> [UInt8]? {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            if part.isEmpty { return [] }
            var bytes: [UInt8] = []
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, field) in fields.enumerated() {
                if index == fields.count - 1, field.contains(".") {
                    guard let v4 = parseIPv4(field) else { return nil }
                    bytes += v4
                    continue
                }
                guard (1...4).contains(field.count), field.allSatisfy({ $0.isHexDigit }),
                    let n = UInt16(field, radix: 16)
                else { return nil }
                bytes += [UInt8(n >> 8), UInt8(n & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
