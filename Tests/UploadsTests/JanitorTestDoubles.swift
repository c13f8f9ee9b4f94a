import Foundation
import ObjectStore
import Synchronization
import System
import UploadsTestSupport

@testable import Uploads

/// A clock the test moves (milliseconds).
final class ManualClock: Sendable {
    private let ms: Atomic<Int64>
    init(_ start: Int64) { ms = Atomic(start) }
    var now: Int64 { ms.load(ordering: .relaxed) }
    func advance(_ by: Int64) { ms.add(by, ordering: .relaxed) }
}

/// The in-memory storage counting its DELETEs, holding the first one (`.first`) or each one (`.every`)
/// until `release()`; after it, none is held.
final class GatedStorage: ObjectStorage, @unchecked Sendable {
    /// Which DELETEs wait for `release()`.
    enum Hold: Sendable {
        case none
        case first
        case every
    }

    let inner: InMemoryObjectStorage
    /// DELETEs begun.
    let deletes = Atomic<Int>(0)
    private let hold: Hold
    /// Opened once by `release()`: each waiter passes the signal on to the next.
    private let gate = DispatchSemaphore(value: 0)
    private let released = Atomic<Bool>(false)

    init(_ inner: InMemoryObjectStorage, holding hold: Hold = .none) {
        self.inner = inner
        self.hold = hold
    }

    /// Lets the held DELETEs, and every later one, go.
    func release() {
        if !released.exchange(true, ordering: .relaxed) { gate.signal() }
    }

    func head(key: String) throws(ObjectStoreError) -> ObjectInfo? { try inner.head(key: key) }
    func copy(from source: String, to destination: String, contentType: String?, expecting: ObjectInfo?)
        throws(ObjectStoreError) -> ObjectInfo
    {
        try inner.copy(from: source, to: destination, contentType: contentType, expecting: expecting)
    }
    func readPrefix(key: String, maxBytes: Int) throws(ObjectStoreError) -> ObjectPrefix? {
        try inner.readPrefix(key: key, maxBytes: maxBytes)
    }
    func headWithChecksums(key: String) throws(ObjectStoreError) -> ObjectInfo? {
        try inner.headWithChecksums(key: key)
    }
    func digests(key: String, ifMatch: String?) throws(ObjectStoreError) -> ObjectDigests? {
        try inner.digests(key: key, ifMatch: ifMatch)
    }
    func read(key: String, ifMatch: String?, into sink: (UnsafeRawBufferPointer) throws(ObjectStoreError) -> Void)
        throws(ObjectStoreError) -> Int64?
    {
        try inner.read(key: key, ifMatch: ifMatch, into: sink)
    }
    func delete(key: String) throws(ObjectStoreError) {
        let number = deletes.add(1, ordering: .relaxed).newValue
        let held = hold == .every || (hold == .first && number == 1)
        if held && !released.load(ordering: .relaxed) {
            gate.wait()
            gate.signal()
        }
        try inner.delete(key: key)
    }
    func probeBucket() throws(ObjectStoreError) -> S3Client.BucketProbe { try inner.probeBucket() }
}
