import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one URLSession of a client and its delegate, which routes upload progress to the handler of
/// each task. Tasks use completion handlers (so the same code runs on Darwin and on Linux's
/// FoundationNetworking, whose async `upload(for:fromFile:)` and task delegates differ); cancellation
/// of the Swift task cancels the URLSession task.
final class Transport: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [Int: ProgressHandler] = [:]
    private var sessionStorage: URLSession?

    init(configuration: URLSessionConfiguration) {
        super.init()
        sessionStorage = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    var session: URLSession { sessionStorage! }

    func invalidate() { session.finishTasksAndInvalidate() }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        lock.lock()
        let handler = handlers[task.taskIdentifier]
        lock.unlock()
        handler?(TransferProgress(bytesSent: totalBytesSent, totalBytes: totalBytesExpectedToSend))
    }

    /// The body of an upload: bytes in memory or a file (sent from the file, never read into memory).
    enum Body {
        case none
        case data(Data)
        case file(URL)
    }

    /// Runs one request; returns the body and the response. Network failures and cancellation are
    /// thrown as `PresignClientError`.
    func send(_ request: URLRequest, body: Body, progress: ProgressHandler? = nil) async throws -> (
        Data, HTTPURLResponse
    ) {
        try Task.checkCancellation()
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, HTTPURLResponse), Error>) in
                let done: @Sendable (Data?, URLResponse?, Error?) -> Void = { [weak self] data, response, error in
                    if let id = box.identifier { self?.forget(id) }
                    if let error {
                        continuation.resume(throwing: PresignClientError.from(error))
                    } else if let http = response as? HTTPURLResponse {
                        continuation.resume(returning: (data ?? Data(), http))
                    } else {
                        continuation.resume(throwing: PresignClientError.invalidResponse("no HTTP response"))
                    }
                }
                let task: URLSessionTask
                switch body {
                case .none: task = session.dataTask(with: request, completionHandler: done)
                case .data(let d): task = session.uploadTask(with: request, from: d, completionHandler: done)
                case .file(let f): task = session.uploadTask(with: request, fromFile: f, completionHandler: done)
                }
                if let progress {
                    lock.lock()
                    handlers[task.taskIdentifier] = progress
                    lock.unlock()
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    private func forget(_ id: Int) {
        lock.lock()
        handlers[id] = nil
        lock.unlock()
    }

    /// The task of one `send`, reachable from its cancellation handler (which may run first).
    final class TaskBox: @unchecked Sendable {
        private let lock = NSLock()
        private var task: URLSessionTask?
        private var cancelled = false

        var identifier: Int? {
            lock.lock()
            defer { lock.unlock() }
            return task?.taskIdentifier
        }

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
                "URL(string:) would change the presigned URL (\(url.absoluteString) for \(string)); refusing to send it")
        }
        return url
    }
}
