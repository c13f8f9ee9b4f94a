import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Large files from phones through the server's native multipart API (`POST /uploads`): every part URL
/// signed up front, so every part task can be created at once (a background `URLSession` runs only
/// upload-from-file tasks and relaunches the app with growing delays); the state saved after each part;
/// on relaunch the server is asked what it holds (`GET /uploads/{id}`) and only what is missing is
/// signed again and sent. The server completes an upload whose parts are all there even if the app never
/// runs again; the uploader completes it itself when it is still running (the same record either way).
///
/// An upload the server no longer knows (404 `NO_SUCH_UPLOAD`: aborted, expired, or storage lost it,
/// seed 002's failure) or one the server aborted is started again with a new key and upload id, at most
/// `restarts` times.
public struct BackgroundUploader: Sendable {
    public let client: PresignClient
    /// The upload type (`VIDEO`); nil: the server's default.
    public var type: String?
    /// The part size asked for; nil: the server's choice.
    public var partSize: Int64?
    /// How many times an upload the server lost is started again.
    public var restarts: Int = 2

    public init(client: PresignClient, type: String? = nil, partSize: Int64? = nil) {
        self.client = client
        self.type = type
        self.partSize = partSize
    }

    /// What an upload did.
    public struct Result: Sendable {
        public var record: ImageRecord
        public var uploadId: String
        /// Parts sent by this call.
        public var partsSent: Int
        /// Parts storage already held when this call began (sent by an earlier launch).
        public var partsResumed: Int
        /// Uploads the server had lost, started again.
        public var restarted: Int
    }

    /// Uploads `file` (resuming the upload saved in `stateFile` when it is of this file as it is now),
    /// its parts sent by `sender` (a foreground session by default), and returns the record. The state
    /// file is removed once the record is made.
    public func upload(
        fileAt file: URL, contentType: String, stateFile: URL, sender: (any PartSender)? = nil
    ) async throws -> Result {
        let sender = sender ?? ForegroundSender(client: client)
        let size = try PresignClient.fileSize(file)
        let modified = MultipartUploader.modificationTime(file)
        var state = BackgroundUploadState.load(stateFile).flatMap {
            $0.isOf(file: file, size: size, modified: modified) ? $0 : nil
        }
        var restarted = 0
        while true {
            do {
                let r = try await attempt(
                    &state, file: file, size: size, modified: modified, contentType: contentType, stateFile: stateFile,
                    sender: sender)
                try? FileManager.default.removeItem(at: stateFile)
                return Result(
                    record: r.record, uploadId: r.uploadId, partsSent: r.sent, partsResumed: r.resumed,
                    restarted: restarted)
            } catch let error as PresignClientError where Self.isGone(error) && restarted < restarts {
                // The server's word: start again with a new key and upload id.
                state = nil
                restarted += 1
            }
        }
    }

    /// Whether `error` says the upload is gone for good (start a new one).
    static func isGone(_ error: PresignClientError) -> Bool {
        switch error {
        case .server(404, "NO_SUCH_UPLOAD", _, _), .uploadGone: return true
        case .storage(404, "NoSuchUpload", _): return true
        default: return false
        }
    }

    /// One upload from `state` (nil: a new one) to its record.
    private func attempt(
        _ state: inout BackgroundUploadState?, file: URL, size: Int64, modified: Double, contentType: String,
        stateFile: URL, sender: any PartSender
    ) async throws -> (record: ImageRecord, uploadId: String, sent: Int, resumed: Int) {
        var current: BackgroundUploadState
        var toSend: [SignedPart]
        var resumed = 0
        if let saved = state {
            let status = try await client.uploadStatus(saved.uploadId)
            switch status.state {
            case "completed":
                if let record = status.record { return (record, saved.uploadId, 0, saved.parts.count) }
            case "uploading": break
            default: throw PresignClientError.uploadGone(code: status.state)
            }
            current = saved
            let missing = Set(status.missingParts)
            current.sent = Set(current.parts.map(\.partNumber)).subtracting(missing)
            resumed = current.sent.count
            toSend =
                missing.isEmpty ? [] : try await client.signUploadParts(saved.uploadId, parts: missing.sorted()).parts
            current.take(toSend)
        } else {
            let created = try await client.createUpload(
                type: type, contentType: contentType, filename: file.lastPathComponent, size: size, partSize: partSize)
            current = BackgroundUploadState(file: file, size: size, modified: modified, created: created)
            toSend = created.parts
        }
        state = current
        try current.save(stateFile)
        let keeper = StateKeeper(current, file: stateFile)
        do {
            try await sender.send(toSend, of: file, state: current) { n in await keeper.sent(n) }
        } catch {
            state = await keeper.state
            throw error
        }
        state = await keeper.state
        let record = try await client.completeUpload(current.uploadId)
        return (record, current.uploadId, toSend.count, resumed)
    }
}

/// The state as parts finish, saved after each.
actor StateKeeper {
    private(set) var state: BackgroundUploadState
    let file: URL

    init(_ state: BackgroundUploadState, file: URL) {
        self.state = state
        self.file = file
    }

    func sent(_ number: Int) {
        state.sent.insert(number)
        // A state not saved costs a part sent again on relaunch, never a wrong upload: the server's word
        // (ListParts) decides what is missing.
        try? state.save(file)
    }
}
