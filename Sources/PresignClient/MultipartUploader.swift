import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The parts of a file: numbers from 1, offsets and lengths.
public struct PartPlan: Sendable, Equatable {
    public struct Part: Sendable, Equatable {
        public var number: Int
        public var offset: Int64
        public var length: Int
    }

    public let fileSize: Int64
    public let partSize: Int
    public let parts: [Part]

    /// S3's rules: at least 5 MiB per part (but the last), at most 10,000 parts (the part size grows to
    /// fit, as Uppy does); an empty file is one empty part.
    public init(fileSize: Int64, partSize requested: Int) {
        let minimum = 5 * 1024 * 1024
        var size = max(requested, minimum)
        let needed = Int((fileSize + 9_999) / 10_000)
        if needed > size { size = needed }
        self.fileSize = fileSize
        self.partSize = size
        var parts: [Part] = []
        var offset: Int64 = 0
        var number = 1
        repeat {
            let length = Int(min(Int64(size), fileSize - offset))
            parts.append(Part(number: number, offset: offset, length: length))
            offset += Int64(length)
            number += 1
        } while offset < fileSize
        self.parts = parts
    }
}

/// What is saved between runs (a small JSON file the caller names), so an interrupted upload resumes.
public struct MultipartState: Sendable, Equatable, Codable {
    public var version: Int = 1
    public var filePath: String
    public var fileSize: Int64
    public var fileModified: Double
    public var partSize: Int
    public var upload: MultipartUpload
    /// ETags of the parts done, by part number (as text: JSON object keys).
    public var etags: [String: String]

    public static func load(_ url: URL) -> MultipartState? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(MultipartState.self, from: data)
    }

    /// Whether this state is of `file` as it is now (same path, size, modification time and part
    /// size).
    public func matches(file: URL, size: Int64, modified: Double, partSize: Int) -> Bool {
        isOf(file: file, size: size, modified: modified) && self.partSize == partSize
    }

    /// Whether this state is of `file` as it is now (same path, size and modification time), so the
    /// parts it lists are parts of the file and can be resumed, whatever part size is asked for now: a
    /// resumed upload keeps the part size its parts were cut at.
    public func isOf(file: URL, size: Int64, modified: Double) -> Bool {
        change(file: file, size: size, modified: modified) == nil
    }

    /// What differs between the file this state was saved for and `file` as it is now (its path, size
    /// or modification time), in words; nil when nothing does.
    public func change(file: URL, size: Int64, modified: Double) -> String? {
        if filePath != file.path { return "the state is of \(filePath), not \(file.path)" }
        if fileSize != size { return "its size is now \(size) bytes, was \(fileSize)" }
        if fileModified != modified {
            func time(_ t: Double) -> String {
                ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: t))
            }
            return "it was modified at \(time(modified)), after the state of \(time(fileModified))"
        }
        return nil
    }

    /// Written to a temporary file and renamed, so a kill never leaves half a state file.
    public func save(_ url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw PresignClientError.file("cannot write the state file \(url.path): \(error.localizedDescription)")
        }
    }
}

/// Options of a multipart upload.
public struct MultipartOptions: Sendable {
    /// Files larger than this go in parts (Uppy's default: more than 100 MiB).
    public var threshold: Int64
    /// Bytes per part (at least 5 MiB; grows so that no file needs more than 10,000 parts).
    public var partSize: Int
    /// Parts in flight at once: memory is bounded by `concurrency × partSize`.
    public var concurrency: Int
    /// Back-off for each part and each route call.
    public var retry: RetryPolicy
    /// Which failures are retried, re-signed or restart the upload.
    public var classifier: FailureClassifier
    /// How often the upload may start again with a new key and upload id when the server says it is gone.
    public var maxRestarts: Int
    /// Whether the file's size and SHA-256 are declared at creation (the file is read once for them
    /// first; the server refuses a size over the type's limit before any part, and proves the SHA-256 at
    /// completion) and each part's MD5 is signed into its URL (storage refuses other bytes, and the part
    /// is read from the file again).
    public var checksums: Bool

    public static let defaultThreshold: Int64 = 100 * 1024 * 1024

    public init(
        threshold: Int64 = MultipartOptions.defaultThreshold, partSize: Int = 8 * 1024 * 1024, concurrency: Int = 4,
        retry: RetryPolicy = RetryPolicy(), classifier: FailureClassifier = FailureClassifier(), maxRestarts: Int = 2,
        checksums: Bool = true
    ) {
        self.threshold = threshold
        self.partSize = partSize
        self.concurrency = max(1, concurrency)
        self.retry = retry
        self.classifier = classifier
        self.maxRestarts = maxRestarts
        self.checksums = checksums
    }
}

/// What a multipart upload did.
public struct MultipartResult: Sendable, Equatable {
    public var key: String
    public var uploadId: String
    public var location: String?
    public var bytes: Int64
    public var partCount: Int
    /// Parts uploaded by this run.
    public var partsUploaded: Int
    /// Parts found done on the server when resuming (not sent again).
    public var partsResumed: Int
    /// Times the upload started again with a new key and upload id.
    public var restarts: Int
    /// Part attempts (and route calls) that failed and were tried again.
    public var retries: Int
    /// The record the server made at completion (nil when it sent none).
    public var record: ImageRecord?
    /// The upload of an older state file that was aborted instead of resumed (the file changed since,
    /// or `resume` was false), so that it does not stay on storage; nil when there was none.
    public var abortedUploadId: String? = nil
    /// Why that upload was not resumed; nil when there was none.
    public var abortReason: AbortReason? = nil
    /// The bytes per part of this upload: a resumed one keeps its state's, whatever
    /// `MultipartOptions.partSize` asked for.
    public var partSize: Int = 0

    /// Why a state file's upload was aborted instead of resumed.
    public enum AbortReason: Sendable, Equatable {
        /// The file is not the one the state was saved for (`MultipartState.change`'s words).
        case fileChanged(String)
        /// `resume` was false (a restart asked for).
        case notResumed
    }
}

/// Uploads a file in parts through the multipart routes: parts taken from the file by offset for each
/// attempt (`PartBody`: at most `concurrency` parts in memory), each PUT to a freshly signed
/// URL with retries, the state saved after every part, resumed from the server's parts list, and
/// started again with a new key and upload id when the server says the upload is gone.
public struct MultipartUploader: Sendable {
    public let client: PresignClient
    public var options: MultipartOptions
    /// Sleeps between attempts (replaceable in tests).
    public var sleep: @Sendable (Double) async throws -> Void = { seconds in
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
    /// A random number in 0..<1 for the jitter.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    public init(client: PresignClient, options: MultipartOptions = MultipartOptions()) {
        self.client = client
        self.options = options
    }

    /// Uploads `file`. With `stateFile`, progress is saved there after every part; with `resume` and a
    /// state file of the same file (same path, size and modification time), the upload continues from
    /// the parts the server lists, in the state's part size (the parts sent were cut at it; another
    /// `options.partSize` applies to new uploads only). A state file's upload that is not resumed (the
    /// file changed since, or `resume` is false) is aborted on the server first, so it does not stay on
    /// storage, and `MultipartResult.abortReason` says why. The state file is removed once the upload
    /// is complete.
    public func upload(
        fileAt file: URL, filename: String? = nil, contentType: String, metadata: [String: String] = [:],
        stateFile: URL? = nil, resume: Bool = false, progress: ProgressHandler? = nil
    ) async throws -> MultipartResult {
        let size = try PresignClient.fileSize(file)
        let modified = Self.modificationTime(file)
        let name = filename ?? file.lastPathComponent
        var restarts = 0
        var retries = 0
        var resumed = 0

        // A new upload declares the file (a resumed one was declared when it was created).
        var declared: Declaration?
        func declaration() throws -> Declaration {
            if let declared { return declared }
            let made = try Declaration.of(file: file, checksums: options.checksums)
            declared = Declaration(size: made.size, checksumSHA256: made.checksumSHA256)
            return declared!
        }
        var state: MultipartState
        var aborted: String?
        var abortReason: MultipartResult.AbortReason?
        let saved = stateFile.flatMap(MultipartState.load)
        let change = saved?.change(file: file, size: size, modified: modified)
        let resuming = resume && saved != nil && change == nil
        // The parts already sent were cut at the state's part size: a resumed upload keeps it.
        let plan = PartPlan(fileSize: size, partSize: resuming ? saved!.partSize : options.partSize)
        if let saved, !resuming {
            // It can never be resumed now: abort it (best effort; the janitor aborts it in time otherwise).
            if (try? await client.abortMultipart(saved.upload)) != nil {
                aborted = saved.upload.uploadId
                abortReason = change.map { .fileChanged($0) } ?? .notResumed
            }
        }
        if resuming, let saved {
            state = saved
            do {
                let listed = try await withRetries(&retries) { try await client.listParts(saved.upload) }
                state.etags = Self.doneParts(listed, plan: plan)
                resumed = state.etags.count
            } catch let e as PresignClientError where options.classifier.action(for: e) == .restart {
                state = try await fresh(
                    plan, file: file, name: name, contentType: contentType, metadata: metadata,
                    declared: try declaration())
                restarts += 1
            }
        } else {
            state = try await fresh(
                plan, file: file, name: name, contentType: contentType, metadata: metadata, declared: try declaration())
        }
        while true {
            if let f = stateFile { try state.save(f) }
            let store = StateStore(state: state, file: stateFile)
            let tracker = ProgressTracker(total: size, handler: progress)
            for part in plan.parts where state.etags[String(part.number)] != nil { tracker.done(part.length) }
            tracker.report()
            do {
                let pending = plan.parts.filter { state.etags[String($0.number)] == nil }
                let partRetries = try await uploadParts(pending, file: file, store: store, tracker: tracker)
                retries += partRetries
                let etags = await store.state.etags
                let parts = plan.parts.map { (number: $0.number, etag: etags[String($0.number)]!) }
                let upload = state.upload
                let completed = try await withRetries(&retries) {
                    try await client.completeMultipart(upload, parts: parts)
                }
                if let f = stateFile { try? FileManager.default.removeItem(at: f) }
                return MultipartResult(
                    key: completed.key, uploadId: upload.uploadId, location: completed.location, bytes: size,
                    partCount: plan.parts.count, partsUploaded: pending.count, partsResumed: resumed,
                    restarts: restarts, retries: retries, record: completed.record, abortedUploadId: aborted,
                    abortReason: abortReason, partSize: plan.partSize)
            } catch let e as PresignClientError where options.classifier.action(for: e) == .restart {
                guard restarts < options.maxRestarts else { throw PresignClientError.uploadGone(code: e.serverCode) }
                restarts += 1
                resumed = 0
                state = try await fresh(
                    plan, file: file, name: name, contentType: contentType, metadata: metadata,
                    declared: try declaration())
            }
        }
    }

    /// A new upload on the server, declaring `declared`, and an empty state.
    private func fresh(
        _ plan: PartPlan, file: URL, name: String, contentType: String, metadata: [String: String],
        declared: Declaration
    ) async throws -> MultipartState {
        var ignored = 0
        let upload = try await withRetries(&ignored) {
            try await client.createMultipart(
                filename: name, contentType: contentType, metadata: metadata, declaring: declared)
        }
        return MultipartState(
            filePath: file.path, fileSize: plan.fileSize, fileModified: Self.modificationTime(file),
            partSize: plan.partSize, upload: upload, etags: [:])
    }

    /// Parts the server holds in full (their size matches the plan), by number.
    static func doneParts(_ listed: [ListedPart], plan: PartPlan) -> [String: String] {
        var out: [String: String] = [:]
        for p in listed {
            guard p.PartNumber >= 1, p.PartNumber <= plan.parts.count, !p.ETag.isEmpty else { continue }
            let expected = Int64(plan.parts[p.PartNumber - 1].length)
            if let s = p.Size, s != expected { continue }
            out[String(p.PartNumber)] = p.ETag
        }
        return out
    }

    /// Uploads `pending` with at most `concurrency` in flight; returns the retries made.
    private func uploadParts(
        _ pending: [PartPlan.Part], file: URL, store: StateStore, tracker: ProgressTracker
    ) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 0
            var retries = 0
            func add() {
                guard next < pending.count else { return }
                let part = pending[next]
                next += 1
                group.addTask { try await self.uploadOne(part, file: file, store: store, tracker: tracker) }
            }
            for _ in 0..<options.concurrency { add() }
            while let r = try await group.next() {
                retries += r
                add()
            }
            return retries
        }
    }

    /// One part: its MD5 read from the file (with `checksums`), sign, PUT from the file by offset (each
    /// attempt takes the bytes from the file again, so a part waiting for its retry holds none), retry;
    /// records the ETag. Returns its retries. A `BadDigest` (the bytes storage got are not the signed MD5)
    /// signs the part again from a fresh read of the file.
    private func uploadOne(_ part: PartPlan.Part, file: URL, store: StateStore, tracker: ProgressTracker)
        async throws -> Int
    {
        let upload = await store.state.upload
        var url: String?
        var md5: String?
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            do {
                if url == nil {
                    if options.checksums {
                        md5 = try Digests.of(file: file, offset: part.offset, length: Int64(part.length)).md5
                    }
                    url = try await client.signPart(upload, partNumber: part.number, md5: md5)
                }
                let etag = try await client.uploadPart(
                    fileAt: file, offset: part.offset, length: part.length, url: url!, md5: md5
                ) { p in
                    tracker.inFlight(part.number, p.bytesSent)
                }
                tracker.finished(part.number, part.length)
                try await store.markDone(part.number, etag: etag)
                return attempt - 1
            } catch {
                let e = PresignClientError.from(error)
                tracker.inFlight(part.number, 0)
                let action = options.classifier.action(for: e)
                switch action {
                case .fail, .restart: throw e
                case .retry, .resign:
                    guard attempt < options.retry.maxAttempts else { throw e }
                    if action == .resign { url = nil }
                    try await sleep(options.retry.delay(afterAttempt: attempt, unit: random()))
                }
            }
        }
    }

    /// A route call with retries on retryable failures (restart and final failures are thrown).
    private func withRetries<T>(_ retries: inout Int, _ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await body()
            } catch {
                let e = PresignClientError.from(error)
                let action = options.classifier.action(for: e)
                guard action == .retry || action == .resign, attempt < options.retry.maxAttempts else { throw e }
                retries += 1
                try await sleep(options.retry.delay(afterAttempt: attempt, unit: random()))
            }
        }
    }

    /// The file's modification time in whole seconds (0 when it cannot be read), as state files keep it.
    public static func modificationTime(_ file: URL) -> Double {
        let a = try? FileManager.default.attributesOfItem(atPath: file.path)
        return ((a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0).rounded()
    }
}

/// The state of one upload, saved after every part.
actor StateStore {
    private(set) var state: MultipartState
    let file: URL?

    init(state: MultipartState, file: URL?) {
        self.state = state
        self.file = file
    }

    func markDone(_ number: Int, etag: String) throws {
        state.etags[String(number)] = etag
        if let file { try state.save(file) }
    }
}

/// Bytes of finished parts plus bytes in flight, reported as one progress.
final class ProgressTracker: @unchecked Sendable {
    private let lock = NSLock()
    private let total: Int64
    private let handler: ProgressHandler?
    private var finishedBytes: Int64 = 0
    private var flying: [Int: Int64] = [:]

    init(total: Int64, handler: ProgressHandler?) {
        self.total = total
        self.handler = handler
    }

    func done(_ length: Int) {
        lock.lock()
        finishedBytes += Int64(length)
        lock.unlock()
    }

    func inFlight(_ part: Int, _ bytes: Int64) {
        lock.lock()
        flying[part] = bytes
        lock.unlock()
        report()
    }

    func finished(_ part: Int, _ length: Int) {
        lock.lock()
        flying[part] = nil
        finishedBytes += Int64(length)
        lock.unlock()
        report()
    }

    func report() {
        guard let handler else { return }
        lock.lock()
        let sent = min(total, finishedBytes + flying.values.reduce(0, +))
        lock.unlock()
        handler(TransferProgress(bytesSent: sent, totalBytes: total))
    }
}

/// What `PresignClient.uploadFile` did: one PUT or a multipart upload, and the record.
public struct FileUploadOutcome: Sendable, Equatable {
    /// Where the object is (its permanent key once promoted).
    public var key: String
    /// The record the server made (nil only if a multipart completion sent none).
    public var record: ImageRecord?
    /// The multipart upload's details, nil for a single PUT.
    public var multipart: MultipartResult?
}

extension PresignClient {
    /// Uploads a file the way its size asks for: up to `options.threshold` one PUT from the file (POST
    /// form, declaring its size and digests) confirmed with `POST /images`; above it in parts through the
    /// multipart routes (resumable with `stateFile` and `resume`; the size and SHA-256 declared at
    /// creation, each part's MD5 signed), the record made by the server at completion. With
    /// `options.checksums` off, only the size is declared.
    public func uploadFile(
        _ file: URL, contentType: String, type: String? = nil, metadata: [String: String] = [:],
        options: MultipartOptions = MultipartOptions(), stateFile: URL? = nil, resume: Bool = false,
        progress: ProgressHandler? = nil
    ) async throws -> FileUploadOutcome {
        let size = try Self.fileSize(file)
        if size <= options.threshold {
            let record = try await uploadAndConfirm(
                fileAt: file, contentType: contentType, type: type, metadata: metadata.isEmpty ? nil : metadata,
                checksums: options.checksums, progress: progress)
            return FileUploadOutcome(key: record.key, record: record, multipart: nil)
        }
        var meta = metadata
        if let type { meta["uploadType"] = type }
        let r = try await MultipartUploader(client: self, options: options).upload(
            fileAt: file, contentType: contentType, metadata: meta, stateFile: stateFile, resume: resume,
            progress: progress)
        return FileUploadOutcome(key: r.key, record: r.record, multipart: r)
    }
}
