import Crypto
import Foundation
import PresignClient
import Testing

/// The client's digests (`Digests`: our own SHA-256 and MD5)
/// against published vectors and against the server's OpenSSL digests, fed in pieces of every size.
@Suite struct DigestsTests {
    static func digests(_ bytes: [UInt8], pieces: Int = 1) -> (sha256: String, md5: String?) {
        var d = Digests()
        var start = 0
        let step = max(1, bytes.count / pieces)
        while start < bytes.count {
            let end = min(bytes.count, start + step)
            d.update(Data(bytes[start..<end]))
            start = end
        }
        return d.finish()
    }

    @Test("FIPS 180-4 and RFC 1321 vectors: the empty string, \"abc\", and a million a's")
    func vectors() {
        let empty = Self.digests([])
        #expect(empty.sha256 == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
        #expect(empty.md5 == "1B2M2Y8AsgTpgAmY7PhCfg==")
        let abc = Self.digests(Array("abc".utf8))
        #expect(
            abc.sha256 == Base64.encode(Hex.decode("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")!)
        )
        #expect(abc.md5 == Base64.encode(Hex.decode("900150983cd24fb0d6963f7d28e17f72")!))
        let million = Self.digests([UInt8](repeating: 0x61, count: 1_000_000), pieces: 7)
        #expect(
            million.sha256
                == Base64.encode(Hex.decode("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")!))
        #expect(million.md5 == Base64.encode(Hex.decode("7707d6ae4e027c70eea2a935c2296f21")!))
    }

    @Test("every length around the block size, in 1 to 5 pieces, equals OpenSSL's")
    func againstOpenSSL() {
        var g: UInt64 = 0x1234_5678
        for length in Array(0...200) + [1 << 16, (1 << 20) + 3] {
            let bytes = (0..<length).map { _ -> UInt8 in
                g = g &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: g >> 33)
            }
            let sha = Base64.encode(SHA256.hash(bytes).bytes)
            let md5 = Base64.encode(MD5.hash(bytes))
            for pieces in 1...5 {
                let got = Self.digests(bytes, pieces: pieces)
                #expect(got.sha256 == sha && got.md5 == md5, "\(length) bytes in \(pieces) pieces")
            }
        }
    }

    @Test("a file's range, read 1 MiB at a time; a range past its end is a short read")
    func fileRanges() throws {
        let bytes = (0..<(3 << 20) + 11).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 11) }
        let url = URL(fileURLWithPath: NSTemporaryDirectory() + "digests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(bytes).write(to: url)
        let whole = try Digests.of(file: url)
        #expect(whole.size == Int64(bytes.count) && whole.sha256 == Base64.encode(SHA256.hash(bytes).bytes))
        let part = try Digests.of(file: url, offset: 1 << 20, length: (1 << 20) + 5)
        #expect(part.md5 == Base64.encode(MD5.hash(Array(bytes[(1 << 20)..<((2 << 20) + 5)]))))
        #expect(throws: PresignClientError.self) { try Digests.of(file: url, offset: 3 << 20, length: 100) }
        let declared = try Declaration.of(file: url, checksums: false)
        #expect(declared == Declaration(size: Int64(bytes.count)))
    }
}
