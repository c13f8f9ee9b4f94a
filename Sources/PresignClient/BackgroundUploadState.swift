import Foundation

/// What a `BackgroundUploader` keeps between launches (a small JSON file; put it in an app group's
/// container to share it with an extension): the file, the server's upload, every part's URL and
/// which parts storage confirmed. A relaunch trusts the server's word over it (`GET /uploads/{id}`).
public struct BackgroundUploadState: Sendable, Equatable, Codable {
    public var version: Int = 1
    public var filePath: String
    public var fileSize: Int64
    public var fileModified: Double
    public var uploadId: String
    public var key: String
    public var partSize: Int64
    /// Every part, with the URL last signed for it.
    public var parts: [SignedPart]
    /// The parts sent and answered 200 by storage.
    public var sent: Set<Int>

    /// The state of a new upload of `file`.
    public init(file: URL, size: Int64, modified: Double, created: NativeUploadCreated) {
        filePath = file.path
        fileSize = size
        fileModified = modified
        uploadId = created.uploadId
        key = created.key
        partSize = created.partSize
        parts = created.parts
        sent = []
    }

    /// The saved state at `url`, or nil (none, or unreadable: the upload starts afresh).
    public static func load(_ url: URL) -> BackgroundUploadState? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(BackgroundUploadState.self, from: data)
    }

    /// Written atomically (a relaunch reads the old state or the new one, never half of one).
    public func save(_ url: URL) throws {
        do {
            try JSONEncoder().encode(self).write(to: url, options: .atomic)
        } catch {
            throw PresignClientError.file("\(url.path): cannot save the upload state (\(error))")
        }
    }

    /// Whether this state is of `file` as it is now.
    public func isOf(file: URL, size: Int64, modified: Double) -> Bool {
        filePath == file.path && fileSize == size && fileModified == modified
    }

    /// The byte range of part `number` in the file.
    public func range(of number: Int) -> (offset: Int64, length: Int64) {
        let offset = Int64(number - 1) * partSize
        return (offset, min(partSize, fileSize - offset))
    }

    /// Takes fresh URLs in place of the old ones.
    public mutating func take(_ signed: [SignedPart]) {
        var byNumber: [Int: SignedPart] = [:]
        for p in signed { byNumber[p.partNumber] = p }
        parts = parts.map { byNumber[$0.partNumber] ?? $0 }
    }
}
