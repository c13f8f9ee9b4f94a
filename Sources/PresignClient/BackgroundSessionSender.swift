#if canImport(Darwin)
    import Foundation

    /// Darwin's background transfer: every part handed to a background `URLSession` at once, each as an
    /// upload-from-file task (the only kind a background session runs) from a part file written into
    /// `partsDirectory` (the app's container, or an app group's) and removed when storage accepted it.
    /// The system sends the parts while the app is suspended or gone; `urlSession(_:task:willBeginDelayedRequest:completionHandler:)`
    /// asks `resign` for a fresh URL when a delayed task would start with an expired one.
    ///
    /// The app delegate hands the system's completion handler over:
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` sets
    /// `backgroundEventsDone`, called when the session has delivered every event
    /// (`urlSessionDidFinishEvents(forBackgroundURLSession:)`). Not run by the Linux tests (no background
    /// sessions there): `ForegroundSender` drives the same state machine.
    public final class BackgroundSessionSender: NSObject, PartSender, URLSessionTaskDelegate, @unchecked Sendable {
        /// The session's identifier (the same on every launch, so a relaunch reconnects to its tasks).
        public let identifier: String
        /// Where part files are written.
        public let partsDirectory: URL
        /// A fresh URL for a part (`PresignClient.signUploadParts`), for delayed tasks.
        public var resign: (@Sendable (Int) async throws -> SignedPart)?
        /// The system's handler of `handleEventsForBackgroundURLSession`, called once the events are in.
        public var backgroundEventsDone: (() -> Void)?
        private let lock = NSLock()
        private var waiting: [Int: (part: Int, file: URL, done: @Sendable (Result<Int, Error>) -> Void)] = [:]
        private var session: URLSession!

        /// A sender of the background session `identifier`, shared with an app group's container when
        /// `sharedContainerIdentifier` is given.
        public init(identifier: String, sharedContainerIdentifier: String? = nil, partsDirectory: URL) {
            self.identifier = identifier
            self.partsDirectory = partsDirectory
            super.init()
            let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
            configuration.sharedContainerIdentifier = sharedContainerIdentifier
            configuration.sessionSendsLaunchEvents = true
            configuration.isDiscretionary = false
            session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        }

        public func send(
            _ parts: [SignedPart], of file: URL, state: BackgroundUploadState,
            sent: @escaping @Sendable (Int) async -> Void
        ) async throws {
            try FileManager.default.createDirectory(at: partsDirectory, withIntermediateDirectories: true)
            try await withThrowingTaskGroup(of: Int.self) { group in
                // Every task created before any is awaited: the system schedules them all.
                for part in parts {
                    let range = state.range(of: part.partNumber)
                    let partFile = partsDirectory.appendingPathComponent(
                        "\(state.uploadId.hashValue)-\(part.partNumber)")
                    try Self.copy(file, offset: range.offset, length: range.length, to: partFile)
                    let request = try PresignClient.storageRequest(
                        method: "PUT", url: part.url, headers: [:], contentLength: range.length)
                    let task = session.uploadTask(with: request, fromFile: partFile)
                    group.addTask { [self] in
                        try await withCheckedThrowingContinuation { continuation in
                            lock.lock()
                            waiting[task.taskIdentifier] = (
                                part.partNumber, partFile, { continuation.resume(with: $0) }
                            )
                            lock.unlock()
                            task.resume()
                        }
                    }
                }
                while let done = try await group.next() { await sent(done) }
            }
        }

        /// Writes `length` bytes of `file` from `offset` to `target` (the part file a background task
        /// uploads), read in 1 MiB pieces.
        static func copy(_ file: URL, offset: Int64, length: Int64, to target: URL) throws {
            let input = try FileHandle(forReadingFrom: file)
            defer { try? input.close() }
            FileManager.default.createFile(atPath: target.path, contents: nil)
            let output = try FileHandle(forWritingTo: target)
            defer { try? output.close() }
            try input.seek(toOffset: UInt64(offset))
            var left = length
            while left > 0 {
                let piece = try input.read(upToCount: Int(min(left, 1 << 20))) ?? Data()
                if piece.isEmpty { throw PresignClientError.file("\(file.path): short read (the file changed?)") }
                try output.write(contentsOf: piece)
                left -= Int64(piece.count)
            }
        }

        public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            lock.lock()
            let entry = waiting.removeValue(forKey: task.taskIdentifier)
            lock.unlock()
            guard let entry else { return }
            let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
            if error == nil && status == 200 {
                try? FileManager.default.removeItem(at: entry.file)
                entry.done(.success(entry.part))
            } else if let error {
                entry.done(.failure(PresignClientError.from(error)))
            } else {
                entry.done(.failure(PresignClientError.storage(status: status, code: nil, message: nil)))
            }
        }

        public func urlSession(
            _ session: URLSession, task: URLSessionTask, willBeginDelayedRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLSession.DelayedRequestDisposition, URLRequest?) -> Void
        ) {
            lock.lock()
            let part = waiting[task.taskIdentifier]?.part
            lock.unlock()
            guard let part, let resign else {
                completionHandler(.continueLoading, nil)
                return
            }
            Task {
                guard let fresh = try? await resign(part), let url = URL(string: fresh.url) else {
                    completionHandler(.continueLoading, nil)
                    return
                }
                var renewed = request
                renewed.url = url
                completionHandler(.useNewRequest, renewed)
            }
        }

        public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
            let handler = backgroundEventsDone
            backgroundEventsDone = nil
            DispatchQueue.main.async { handler?() }
        }
    }
#endif
