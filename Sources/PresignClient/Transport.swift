import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one URLSession of a client and its delegate, which keeps the state of each task: its
/// continuation, the body received so far and its progress handler. Tasks are created without
/// completion handlers and finished from the delegate: on Linux, FoundationNetworking reports upload
/// progress (`didSendBodyData`) only to delegate-driven tasks, so the same code serves Darwin and Linux.
/// Cancellation of the Swift task cancels the URLSession task.
final class Transport: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var running: [Int: Running] = [:]
    private var sessionStorage: URLSession?

    /// One task in flight.
    private final class Running {
        let continuation: CheckedContinuation<(Data, HTTPURLResponse), Error>
        let progress: ProgressHandler?
        var body = Data()

        init(_ c: CheckedContinuation<(Data, HTTPURLResponse), Error>, _ p: ProgressHandler?) {
            continuation = c
            progress = p
        }
    }

    init(configuration: URLSessionConfiguration) {
        super.init()
        sessionStorage = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    var session: URLSession { sessionStorage! }

    func invalidate() { session.finishTasksAndInvalidate() }

    private func state(_ task: URLSessionTask) -> Running? {
        lock.lock()
        defer { lock.unlock() }
        return running[task.taskIdentifier]
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        state(task)?.progress?(TransferProgress(bytesSent: totalBytesSent, totalBytes: totalBytesExpectedToSend))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        running[dataTask.taskIdentifier]?.body.append(data)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        let r = running.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        guard let r else { return }
        if let error {
            r.continuation.resume(throwing: PresignClientError.from(error))
        } else if let http = task.response as? HTTPURLResponse {
            r.continuation.resume(returning: (r.body, http))
        } else {
            r.continuation.resume(throwing: PresignClientError.invalidResponse("no HTTP response"))
        }
    }

    /// The body of an upload: bytes in memory, a file (sent from the file, never read into memory), or
    /// a range of a file (a multipart part, `PartBody`).
    enum Body {
        case none
        case data(Data)
        case file(URL)
        case filePart(URL, offset: Int64, length: Int)
    }

    /// The task for `request` and `body` (not resumed).
    private func task(_ request: URLRequest, _ body: Body) throws -> URLSessionTask {
        switch body {
        case .none: return session.dataTask(with: request)
        case .data(let d): return session.uploadTask(with: request, from: d)
        case .file(let f): return session.uploadTask(with: request, fromFile: f)
        case .filePart(let f, let offset, let length):
            return try PartBody.uploadTask(session, request, file: f, offset: offset, length: length)
        }
    }

    /// Runs one request; returns the body and the response. Network failures and cancellation are
    /// thrown as `PresignClientError`.
    func send(_ request: URLRequest, body: Body, progress: ProgressHandler? = nil) async throws -> (
        Data, HTTPURLResponse
    ) {
        try Task.checkCancellation()
        let box = TaskBox()
        let task = try self.task(request, body)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(Data, HTTPURLResponse), Error>) in
                lock.lock()
                running[task.taskIdentifier] = Running(continuation, progress)
                lock.unlock()
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// The task of one `send`, reachable from its cancellation handler (which may run first).
    final class TaskBox: @unchecked Sendable {
        private let lock = NSLock()
        private var task: URLSessionTask?
        private var cancelled = false

        func set(_ t: URLSessionTask) {
            lock.lock()
            task = t
            let c = cancelled
            lock.unlock()
            if c { t.cancel() }
        }

        func cancel() {
            lock.lock()
            cancelled = true
            let t = task
            lock.unlock()
            t?.cancel()
        }
    }
}

/// The exact-URL rule: the request is built from `URL(string:)` of the string as received, and only
/// when that URL gives back the same bytes; nothing is rebuilt (no URLComponents, no queryItems).
public enum ExactURL {
    /// The URL for `string`, or `invalidResponse` when `URL(string:)` refuses it or would send other bytes.
    public static func make(_ string: String) throws -> URL {
        guard let url = URL(string: string) else {
            throw PresignClientError.invalidResponse("the presigned URL is not a valid URL: \(string)")
        }
        guard url.absoluteString == string else {
            throw PresignClientError.invalidResponse(
                "URL(string:) would change the presigned URL (\(url.absoluteString) for \(string)); refusing to send it"
            )
        }
        return url
    }
}
