import Foundation
import Testing

@testable import PresignClient

/// A part's bytes taken from the file by offset (`PartBody`): the exact range at any offset, refused
/// when the file no longer holds it.
@Suite("PresignClient: a part's body from the file")
struct PartBodyTests {
    static func file(_ size: Int) throws -> (URL, Data) {
        var g: UInt64 = 0x2545_F491_4F6C_DD1D
        let bytes = (0..<size).map { _ -> UInt8 in
            g ^= g << 13
            g ^= g >> 7
            g ^= g << 17
            return UInt8(truncatingIfNeeded: g)
        }
        let url = URL(fileURLWithPath: NSTemporaryDirectory() + "presign-part-\(UUID().uuidString).bin")
        try Data(bytes).write(to: url)
        return (url, Data(bytes))
    }

    @Test(
        "the mapped range is exactly the file's bytes (page-aligned or not, up to the end)",
        arguments: [(0, 4096), (1, 4095), (4095, 2), (4097, 20_000), (123_457, 76_543), (199_999, 1)])
    func mappedRange(offset: Int, length: Int) throws {
        let (url, data) = try Self.file(200_000)
        defer { try? FileManager.default.removeItem(at: url) }
        let part = try PartBody.mapped(url, offset: Int64(offset), length: length)
        #expect(part.count == length)
        #expect(part == data.subdata(in: offset..<(offset + length)))
        #expect(try PartBody.read(url, offset: Int64(offset), length: length) == part)
    }

    @Test("an empty part is empty; a range past the end of the file (it shrank) is a file error")
    func emptyAndShort() throws {
        let (url, _) = try Self.file(10_000)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try PartBody.mapped(url, offset: 10_000, length: 0).isEmpty)
        for (offset, length) in [(9_000, 1_001), (10_001, 0), (-1, 10)] {
            #expect(throws: PresignClientError.self) {
                _ = try PartBody.mapped(url, offset: Int64(offset), length: length)
            }
        }
        #expect(throws: PresignClientError.self) { _ = try PartBody.read(url, offset: 9_000, length: 1_001) }
        let missing = url.appendingPathExtension("gone")
        #expect(throws: PresignClientError.self) { _ = try PartBody.mapped(missing, offset: 0, length: 1) }
    }
}
