import Crypto
import Testing

/// HMAC-SHA256 against RFC 4231 ("Identifiers and Test Vectors for HMAC-SHA-224, ..."), section 4.
struct HMACKeyTests {
    /// One RFC 4231 test case.
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var testDescription: String { name }
    }

    /// RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (case 5 truncates the output and is not used here).
    static let vectors: [Vector] = [
        Vector(
            name: "RFC 4231 case 1", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(
            name: "RFC 4231 case 2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(
            name: "RFC 4231 case 3", key: [UInt8](repeating: 0xaa, count: 20),
            data: [UInt8](repeating: 0xdd, count: 50),
            mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(
            name: "RFC 4231 case 4", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
            mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(
            name: "RFC 4231 case 6", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(
            name: "RFC 4231 case 7", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("RFC 4231 vectors", arguments: vectors)
    func rfc4231(vector: Vector) {
        let key = HMACKey(key: vector.key)
        #expect(key.authenticate(vector.data).hex == vector.mac)
        #expect(HMACKey(key: Secret(bytes: vector.key)).authenticate(vector.data).hex == vector.mac)
    }

    @Test("a prepared key gives the same MAC every time, and different messages differ")
    func reuse() {
        let key = HMACKey(key: Array("Jefe".utf8))
        let first = key.authenticate("what do ya want for nothing?")
        let second = key.authenticate("what do ya want for nothing?")
        #expect(first == second)
        #expect(first.hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(key.authenticate("what do ya want for nothing!") != first)
    }

    @Test("a digest used as a key equals the same bytes as a key")
    func digestAsKey() {
        let digest = SHA256.hash("abc")
        #expect(HMACKey(key: digest).authenticate("m") == HMACKey(key: digest.bytes).authenticate("m"))
    }

    @Test("a key never prints its pad states")
    func redaction() {
        let key = HMACKey(key: Array("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".utf8))
        var dumped = ""
        dump(key, to: &dumped)
        #expect("\(key)" == "<redacted>")
        #expect(String(reflecting: key) == "<redacted>")
        #expect(!dumped.contains("inner") && !dumped.contains("outer") && !dumped.contains("context"))
    }
}
