import Foundation
import TestSupport
import Testing

@testable import Clamd

/// The INSTREAM client against the real clamd (scripts/start-clamd.sh, only the project's signature),
/// and against a closed port and a listener that never answers.
@Suite struct ClamdClientTests {
    /// The shared clamd.
    static func client(chunkBytes: Int = 65_536, timeoutMs: Int = 10_000) throws -> ClamdClient {
        let address = try #require(ClamdAddress(parsing: try TestServices.clamdAddress()))
        return ClamdClient(address: address, timeoutMs: timeoutMs, chunkBytes: chunkBytes)
    }

    /// Scans `bytes` fed in pieces of `piece` bytes.
    static func scan(_ client: ClamdClient, _ bytes: [UInt8], piece: Int) throws(ClamdError) -> ClamdVerdict {
        try client.scan { (writer) throws(ClamdError) in
            var start = 0
            while start < bytes.count {
                let end = min(start + piece, bytes.count)
                var slice = Array(bytes[start..<end])
                let count = slice.count
                try slice.withUnsafeMutableBufferPointer { (buffer) throws(ClamdError) in
                    try writer.write(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
                }
                start = end
            }
        }
    }

    @Test func cleanBytesAreOKAndTheMarkerIsFoundAcrossChunkBoundaries() throws {
        let client = try Self.client(chunkBytes: 1024)
        try client.ping()
        let clean = [UInt8](repeating: 0x61, count: 300_000)
        #expect(try Self.scan(client, clean, piece: 7_000) == .clean)
        // The marker cut across two chunks of 1 KiB and two pieces of the feed.
        var infected = [UInt8](repeating: 0x62, count: 1_010) + ClamdDaemon.marker
        infected += [UInt8](repeating: 0x63, count: 5_000)
        let verdict = try Self.scan(client, infected, piece: 1_020)
        #expect(verdict == .found(signature: "Presignd.Test.Marker-1.UNOFFICIAL"))
        // An empty stream is clean.
        #expect(try Self.scan(client, [], piece: 1) == .clean)
    }

    @Test func theEICARStringIsNotFoundWithOnlyTheProjectsDatabase() throws {
        // clamd's engine has no built-in EICAR signature: the tests' database holds only our marker.
        let eicar = Array(#"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"#.utf8)
        #expect(try Self.scan(try Self.client(), eicar, piece: 100) == .clean)
    }

    @Test func aClosedPortIsUnreachable() throws {
        let closed = try ClosedPort()
        let client = ClamdClient(address: .tcp(host: "127.0.0.1", port: closed.port), timeoutMs: 2_000)
        #expect {
            try client.ping()
        } throws: { error in
            if case .unreachable = error as? ClamdError { return true }
            return false
        }
        let missing = ClamdClient(address: .unix(path: "/tmp/presignd-no-such-clamd-\(UUID()).ctl"), timeoutMs: 2_000)
        #expect(throws: ClamdError.self) { _ = try Self.scan(missing, [1, 2, 3], piece: 3) }
    }

    @Test func aListenerThatNeverAnswersTimesOut() throws {
        let silent = try LoopbackListener { connection in
            // Reads what comes and never answers, until the client gives up.
            while connection.fill() {}
        }
        defer { silent.stop() }
        let client = ClamdClient(address: .tcp(host: "127.0.0.1", port: silent.port), timeoutMs: 300)
        let started = Date()
        #expect {
            _ = try Self.scan(client, [UInt8](repeating: 1, count: 10), piece: 10)
        } throws: { error in
            if case .timeout = error as? ClamdError { return true }
            return false
        }
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func theUnixSocketOfTheSharedClamdWorksToo() throws {
        let env = ProcessInfo.processInfo.environment
        let socket = try #require(
            env["PRESIGN_TEST_CLAMD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }, "PRESIGN_TEST_CLAMD_SOCKET unset")
        let client = ClamdClient(address: .unix(path: socket), timeoutMs: 10_000)
        #expect(
            try Self.scan(client, ClamdDaemon.marker, piece: 4)
                == .found(signature: "Presignd.Test.Marker-1.UNOFFICIAL"))
    }
}
