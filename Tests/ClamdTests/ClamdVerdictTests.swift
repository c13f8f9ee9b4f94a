import Testing

@testable import Clamd

/// clamd's replies and the INSTREAM chunk header, read and written without a daemon.
@Suite struct ClamdVerdictTests {
    @Test func repliesAreReadAsVerdicts() throws {
        #expect(try ClamdVerdict.parse("stream: OK") == .clean)
        #expect(try ClamdVerdict.parse("stream: OK\0") == .clean)
        #expect(
            try ClamdVerdict.parse("stream: Eicar-Test-Signature FOUND\n") == .found(signature: "Eicar-Test-Signature"))
        #expect(
            try ClamdVerdict.parse("stream: Presignd.Test.Marker-1.UNOFFICIAL FOUND")
                == .found(signature: "Presignd.Test.Marker-1.UNOFFICIAL"))
        #expect(try ClamdVerdict.parse("INSTREAM size limit exceeded. ERROR") == .tooLarge)
    }

    @Test(arguments: ["", "PONG", "stream: FOUND", "stream: lstat() failed. ERROR", "OK", "stream: OK extra"])
    func otherRepliesAreProtocolErrors(reply: String) {
        #expect(throws: ClamdError.self) { try ClamdVerdict.parse(reply) }
    }

    @Test func chunkHeadersAreFourBytesBigEndian() {
        #expect(ClamdVerdict.chunkHeader(0) == [0, 0, 0, 0])
        #expect(ClamdVerdict.chunkHeader(65_536) == [0, 1, 0, 0])
        #expect(ClamdVerdict.chunkHeader(0x0102_0304) == [1, 2, 3, 4])
    }

    @Test func addressesAreParsedOrRefused() {
        #expect(ClamdAddress(parsing: "tcp://127.0.0.1:3310") == .tcp(host: "127.0.0.1", port: 3310))
        #expect(ClamdAddress(parsing: "tcp://[::1]:3310") == .tcp(host: "::1", port: 3310))
        #expect(ClamdAddress(parsing: "unix:/run/clamav/clamd.ctl") == .unix(path: "/run/clamav/clamd.ctl"))
        #expect(ClamdAddress(parsing: "tcp://[::1]:3310")?.description == "tcp://[::1]:3310")
        for bad in [
            "", "127.0.0.1:3310", "tcp://:3310", "tcp://host", "tcp://host:0", "tcp://host:70000", "unix:", "unix:rel",
        ] {
            #expect(ClamdAddress(parsing: bad) == nil, "\(bad)")
        }
    }
}
