import Crypto
import Testing

/// `Secret` never shows its value through printing, interpolation, reflection or debugging.
struct SecretTests {
    static let value = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

    @Test("interpolation, description and debugDescription are redacted")
    func printing() {
        let secret = Secret(Self.value)
        #expect("\(secret)" == "<redacted>")
        #expect(String(describing: secret) == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        #expect(secret.debugDescription == "<redacted>")
        #expect("\([secret])".contains("<redacted>"))
        #expect(!"\([secret])".contains("wJalr"))
        #expect(!"\(Optional(secret) as Any)".contains("wJalr"))
    }

    @Test("dump shows nothing of the value, also inside a containing struct")
    func dumping() {
        struct Holder { let id = "AKIAIOSFODNN7EXAMPLE"; let secret = Secret(SecretTests.value) }
        var dumped = ""
        dump(Holder(), to: &dumped)
        #expect(dumped.contains("AKIAIOSFODNN7EXAMPLE"))
        #expect(!dumped.contains("wJalr"))
        #expect(!dumped.contains("storage"))
    }

    @Test("the value is reachable only through the explicit accessors")
    func access() {
        let secret = Secret(Self.value)
        #expect(secret.unredacted == Self.value)
        #expect(secret.unredactedBytes == Array(Self.value.utf8))
        #expect(secret.withUnsafeBytes { Array($0) } == Array(Self.value.utf8))
        #expect(!secret.isEmpty)
        #expect(Secret("").isEmpty)
        #expect(Secret(bytes: [0x61]) == Secret("a"))
    }
}
