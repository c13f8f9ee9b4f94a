import Config
import Logging
import ObjectStore
import System

/// Aborts multipart uploads never completed: every upload whose key starts with one of the upload
/// types' literal key prefixes (ListMultipartUploads, page by page) and that began more than
/// `uppy.abortAfterSeconds` ago. Bounded per run: at most `maxAborts` aborts and `maxPages` pages per
/// prefix; what is left waits for the next run. Called from the janitor's loop.
final class MultipartJanitor: Sendable {
    private let storage: S3Client
    /// Where uploads are listed (no prefix of another: a key is looked at once).
    let prefixes: [String]
    private let abortAfterMs: Int64
    private let maxAborts: Int
    private let maxPages: Int
    private let nowMillis: @Sendable () -> Int64
    private let log: LogSink
    private let pageSize: Int

    init(
        storage: S3Client, prefixes: [String], abortAfterSeconds: Int, maxAborts: Int, maxPages: Int = 100,
        pageSize: Int = 1000, nowMillis: @escaping @Sendable () -> Int64, log: LogSink
    ) {
        self.storage = storage
        self.prefixes = MultipartJanitor.minimal(prefixes)
        self.abortAfterMs = Int64(abortAfterSeconds) * 1000
        self.maxAborts = maxAborts
        self.maxPages = maxPages
        self.pageSize = pageSize
        self.nowMillis = nowMillis
        self.log = log
    }

    /// The literal key prefixes of `types`' key templates.
    static func prefixes(of types: [UploadTypeConfig]) -> [String] {
        types.compactMap { KeyTemplate($0.keyTemplate)?.literalPrefix }
    }

    /// `prefixes` without any that another one covers (`""` covers all), sorted.
    static func minimal(_ prefixes: [String]) -> [String] {
        let sorted = Set(prefixes).sorted()
        var out: [String] = []
        for p in sorted where !out.contains(where: { p.hasPrefix($0) }) { out.append(p) }
        return out
    }

    /// One run: how many uploads were aborted. A failure ends the run (logged); the next run retries.
    @discardableResult
    func sweep() -> Int {
        let cutoffSeconds = (nowMillis() - abortAfterMs) / 1000
        var aborted = 0
        for prefix in prefixes {
            var keyMarker: String?
            var uploadIdMarker: String?
            var pages = 0
            do {
                repeat {
                    let page = try storage.listMultipartUploads(
                        prefix: prefix, keyMarker: keyMarker, uploadIdMarker: uploadIdMarker, maxUploads: pageSize)
                    pages += 1
                    for upload in page.uploads where upload.initiated < cutoffSeconds {
                        if aborted >= maxAborts { return aborted }
                        do {
                            try storage.abortMultipartUpload(key: upload.key, uploadId: upload.uploadId)
                        } catch .multipart(.noSuchUpload) {
                            // Completed or aborted since it was listed.
                        }
                        aborted += 1
                    }
                    keyMarker = page.nextKeyMarker
                    uploadIdMarker = page.nextUploadIdMarker
                } while keyMarker != nil && pages < maxPages
            } catch {
                log.warn("multipart janitor pass stopped", ["prefix": prefix, "error": "\(error)"])
                return aborted
            }
        }
        return aborted
    }
}
