import COpenSSL
import Crypto
import Testing

/// Reading OpenSSL's error queue: real errors from a failed parse, and the condensed form.
@Suite(.serialized)
struct OpenSSLErrorsTests {
    /// Makes libcrypto queue errors: DER that is not a public key.
    static func queueErrors() {
        let der: [UInt8] = [0x30, 0x03, 0x02, 0x01]
        der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            #expect(d2i_PUBKEY(nil, &cursor, buffer.count) == nil)
        }
    }

    @Test func drainReadsEveryQueuedErrorAndEmptiesTheQueue() {
        OpenSSLErrors.clear()
        #expect(OpenSSLErrors.drain() == OpenSSLErrors.noneQueued)
        Self.queueErrors()
        let lines = OpenSSLErrors.drainLines()
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("error:") })
        #expect(OpenSSLErrors.drainLines().isEmpty)
        Self.queueErrors()
        #expect(OpenSSLErrors.drain().hasPrefix("error:"))
        #expect(OpenSSLErrors.drain() == OpenSSLErrors.noneQueued)
    }

    @Test func oldestKeepsTheFirstFailureAndEmptiesTheQueue() {
        OpenSSLErrors.clear()
        Self.queueErrors()
        Self.queueErrors()
        let oldest = OpenSSLErrors.oldest()
        #expect(oldest.hasPrefix("error:"))
        #expect(OpenSSLErrors.oldest() == OpenSSLErrors.noneQueued)
    }

    @Test func drainCondensedNamesLibraryAndReason() {
        OpenSSLErrors.clear()
        Self.queueErrors()
        let text = OpenSSLErrors.drainCondensed(ifNone: "unknown error")
        #expect(!text.hasPrefix("error:"))
        #expect(text.contains(": "))
        #expect(OpenSSLErrors.drainCondensed(ifNone: "unknown error") == "unknown error")
    }

    /// What `condense` makes of OpenSSL 3 lines (shapes copied from real queues).
    @Test(arguments: [
        ([String](), "unknown error"),
        (["error:80000002:system library::No such file or directory"], "system library: No such file or directory"),
        (
            [
                "error:80000002:system library::No such file or directory",
                "error:10080002:BIO routines::system lib",
                "error:0A080002:SSL routines::system lib",
            ], "system library: No such file or directory"
        ),
        (["error:0A080002:SSL routines::system lib"], "SSL routines: system lib"),
        (
            ["error:1E08010C:DECODER routines::unsupported", "error:1E08010C:DECODER routines::unsupported"],
            "DECODER routines: unsupported"
        ),
        (["not an OpenSSL line"], "not an OpenSSL line"),
        (
            ["error:0480006C:PEM routines::no start line", "error:0A00014D:SSL routines::PEM lib"],
            "PEM routines: no start line"
        ),
    ])
    func condense(lines: [String], expected: String) {
        #expect(OpenSSLErrors.condense(lines, ifNone: "unknown error") == expected)
    }
}
