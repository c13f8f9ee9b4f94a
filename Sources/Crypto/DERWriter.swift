/// The few DER encodings (ITU-T X.690) Crypto writes itself: enough for a SubjectPublicKeyInfo
/// (RFC 5280, section 4.1.2.7) built from JWK numbers.
enum DERWriter {
    /// The tag of an INTEGER.
    static let integerTag: UInt8 = 0x02
    /// The tag of a BIT STRING.
    static let bitStringTag: UInt8 = 0x03
    /// The tag of NULL.
    static let nullTag: UInt8 = 0x05
    /// The tag of an OBJECT IDENTIFIER.
    static let objectIdentifierTag: UInt8 = 0x06
    /// The tag of a constructed SEQUENCE.
    static let sequenceTag: UInt8 = 0x30

    /// `tag`, the definite length of `contents` (X.690, section 8.1.3), then `contents`.
    static func element(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var output = [tag]
        let count = contents.count
        if count < 0x80 {
            output.append(UInt8(count))
        } else {
            var lengthBytes: [UInt8] = []
            var remaining = count
            while remaining > 0 {
                lengthBytes.insert(UInt8(remaining & 0xff), at: 0)
                remaining >>= 8
            }
            output.append(0x80 | UInt8(lengthBytes.count))
            output += lengthBytes
        }
        return output + contents
    }

    /// A SEQUENCE of the already encoded `elements`.
    static func sequence(_ elements: [UInt8]...) -> [UInt8] {
        element(sequenceTag, elements.flatMap { $0 })
    }

    /// The unsigned big-endian `magnitude` as a minimal INTEGER (X.690, section 8.3): leading zero
    /// bytes dropped, one zero byte added when the top bit is set so the value stays positive.
    static func unsignedInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return element(integerTag, bytes)
    }

    /// A BIT STRING holding the whole bytes `contents` (no unused bits).
    static func bitString(_ contents: [UInt8]) -> [UInt8] {
        element(bitStringTag, [0] + contents)
    }

    /// An OBJECT IDENTIFIER from its already encoded contents.
    static func objectIdentifier(_ contents: [UInt8]) -> [UInt8] {
        element(objectIdentifierTag, contents)
    }

    /// NULL.
    static let null: [UInt8] = [nullTag, 0]

    /// rsaEncryption, 1.2.840.113549.1.1.1 (RFC 8017, appendix C).
    static let rsaEncryption: [UInt8] = objectIdentifier([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01])
    /// id-ecPublicKey, 1.2.840.10045.2.1 (RFC 5480, section 2.1.1).
    static let ecPublicKey: [UInt8] = objectIdentifier([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01])
    /// secp256r1 (P-256), 1.2.840.10045.3.1.7 (RFC 5480, section 2.1.1.1).
    static let secp256r1: [UInt8] = objectIdentifier([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07])
}
