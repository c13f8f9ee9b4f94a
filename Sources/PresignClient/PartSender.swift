import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a `BackgroundUploader` sends parts: every part of `parts` PUT from its range of `file`; `sent`
/// is called once per part storage accepted (the uploader saves its state there). A part storage
/// refuses ends the call with its error; the parts sent before stay sent.
public protocol PartSender: Sendable {
    func send(
        _ parts: [SignedPart], of file: URL, state: BackgroundUploadState, sent: @escaping @Sendable (Int) async -> Void
    ) async throws
}

/// A foreground session (the process stays to the end): parts PUT `concurrency` at a time, each from
/// its range of the file (`PresignClient.uploadPart(fileAt:)`). What the Linux tests and the CLI run;
/// on Darwin `BackgroundSessionSender` hands them to the system instead.
public struct ForegroundSender: PartSender {
    public let client: PresignClient
    public var concurrency: Int

    public init(client: PresignClient, concurrency: Int = 4) {
        self.client = client
        self.concurrency = max(1, concurrency)
    }

    public func send(
        _ parts: [SignedPart], of file: URL, state: BackgroundUploadState, sent: @escaping @Sendable (Int) async -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            var next = parts.makeIterator()
            func add() -> Bool {
                guard let part = next.next() else { return false }
                let range = state.range(of: part.partNumber)
                group.addTask {
                    _ = try await client.uploadPart(
                        fileAt: file, offset: range.offset, length: Int(range.length), url: part.url)
                    return part.partNumber
                }
                return true
            }
            for _ in 0..<concurrency where !add() { break }
            while let done = try await group.next() {
                await sent(done)
                _ = add()
            }
        }
    }
}
