import Testing

@testable import System

#if canImport(Glibc)
    import Glibc
#endif

/// Whole-file reads: contents, the size limit at its edge, and the errors that name what failed.
@Suite(.serialized)
struct FileReaderTests {
    /// A fresh temporary file holding `bytes`; its path.
    static func temporaryFile(_ bytes: [UInt8]) -> String {
        var template = Array("/tmp/presignd-file-reader-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        precondition(descriptor >= 0, "mkstemp failed")
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "short write")
        close(descriptor)
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test func readsTheWholeFile() throws {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = Self.temporaryFile(bytes)
        defer { unlink(path) }
        #expect(try FileReader.readAll(atPath: path) == bytes)
    }

    @Test func emptyFileIsEmpty() throws {
        let path = Self.temporaryFile([])
        defer { unlink(path) }
        #expect(try FileReader.readAll(atPath: path) == [])
    }

    @Test func limitIsInclusive() throws {
        let path = Self.temporaryFile([UInt8](repeating: 7, count: 40_000))
        defer { unlink(path) }
        #expect(try FileReader.readAll(atPath: path, limit: 40_000).count == 40_000)
        #expect(throws: FileReadError.tooLarge(path: path, limit: 39_999)) {
            try FileReader.readAll(atPath: path, limit: 39_999)
        }
        #expect(throws: FileReadError.tooLarge(path: path, limit: 0)) {
            try FileReader.readAll(atPath: path, limit: 0)
        }
    }

    @Test func defaultLimitIsOneMebibyte() throws {
        #expect(FileReader.defaultLimit == 1 << 20)
        let path = Self.temporaryFile([UInt8](repeating: 1, count: (1 << 20) + 1))
        defer { unlink(path) }
        #expect(throws: FileReadError.tooLarge(path: path, limit: 1 << 20)) { try FileReader.readAll(atPath: path) }
    }

    @Test func missingFileCannotBeOpened() {
        let path = "/tmp/presignd-file-reader-does-not-exist/none"
        #expect(throws: FileReadError.cannotOpen(path: path, reason: "No such file or directory")) {
            try FileReader.readAll(atPath: path)
        }
    }

    @Test func directoryCannotBeRead() {
        #expect(throws: FileReadError.cannotRead(path: "/tmp", reason: "Is a directory")) {
            try FileReader.readAll(atPath: "/tmp")
        }
    }

    @Test func descriptionsLeaveThePathOut() {
        #expect(FileReadError.tooLarge(path: "/x", limit: 5).description == "larger than 5 bytes")
        #expect(FileReadError.cannotOpen(path: "/x", reason: "Permission denied").description == "Permission denied")
        #expect(FileReadError.cannotRead(path: "/x", reason: "Is a directory").description == "Is a directory")
    }
}
