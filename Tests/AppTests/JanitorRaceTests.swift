import Config
import Crypto
import Foundation
import Records
import RecordsTestSupport
import SigV4
import Synchronization
import System
import TestSupport
import Testing
import Uploads

@testable import ObjectStore

/// Issue 22: the janitor racing late confirmations. The lifecycle's own parts (issuer, intent writer,
/// confirmer, janitor) over the real RGW and each real records backend, with the janitor's grace at 0 so
/// it sweeps each intent the moment its URL expires while confirmations arrive around that moment. At
/// the end every acknowledged record has its object, and each key has exactly one outcome.
/// Not `.heavy`: its two minutes are spent waiting for URLs to expire (three clients, one sweeper, on
/// their own threads), and what it asserts holds whatever the timing; in the heavy gate it held two of
/// its four places for the whole race.
@Suite("Janitor racing late confirmations")
struct JanitorRaceTests {
    /// How long the race runs: PRESIGN_TEST_JANITOR_RACE_SECONDS (a shorter local run), else 120 s.
    static var raceSeconds: Int {
        Int(ProcessInfo.processInfo.environment["PRESIGN_TEST_JANITOR_RACE_SECONDS"] ?? "") ?? 120
    }

    /// How one confirmation ended.
    enum Outcome: Equatable {
        case recorded(id: String, objectKey: String)
        case expired
        case notFound
        case failed(String)
    }

    /// The outcomes of every key, filled by the clients' threads.
    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var byKey: [String: Outcome] = [:]
        func set(_ key: String, _ o: Outcome) { lock.withLock { byKey[key] = o } }
        var all: [String: Outcome] { lock.withLock { byKey } }
    }

    /// When, relative to its URL's expiry, the n-th confirmation is sent (ms): some early, most around the
    /// expiry, some after it.
    static let confirmOffsetsMs: [Int64] = [-900, -300, -150, -50, 0, 25, 50, 100, 200, 400]

    @Test(
        "for the race's time: no acknowledged record without its object, one outcome per key",
        arguments: Backend.allCases)
    func janitorRacesLateConfirmations(backend: Backend) async throws {
        let s3 = try TestEnvironment.s3()
        let store = try RecordStoreFactory.open(
            url: try await backend.recordsURL(dir: Temporary.directory()), poolSize: 8, busyTimeoutMs: 5000)
        try store.migrate()
        let storage = try s3.client(endpoint: s3.endpoint, maxRetries: 0)
        let env = UploadEnvironment(
            nowMillis: { Int64(Date().timeIntervalSince1970 * 1000) }, newUUID: { UUID().uuidString.lowercased() })
        let writer = IntentWriter(store: store, batchSize: 64, onError: { _ in })
        let committer = GroupCommitter(store: store, maxBatch: 64)
        defer {
            committer.shutdown()
            writer.shutdown()
        }
        let signer = RotatingPresigner(
            try Presigner(
                credentials: Credentials(accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey)),
                region: s3.region, endpoint: Endpoint(parsing: s3.endpoint), addressing: .path))
        var config = PresigndConfig.defaults
        config.s3.bucket = s3.bucket
        let lifecycle = try UploadLifecycle(
            config: config, store: store, committer: committer, writer: writer, storage: storage,
            signers: Issuer.Signers(pathStyle: signer, configured: signer), env: env, events: { _ in })
        // The binary's janitor, but with no grace: an intent goes as soon as its URL has expired, and both
        // the upload and its promoted copy are deleted.
        let janitor = Janitor(
            store: store, storage: storage, deleteObjects: true, batchSize: 20, intervalMs: 60_000, env: env,
            events: { _ in }, graceMs: 0)
        let types = try ["PROFILE", "FEED"].map {
            try lifecycle.catalog.checkNew(typeName: $0, ext: "jpg", chatroomId: nil)
        }
        let image = TestImages.jpeg(width: 6, height: 5)
        let deadline = Date().addingTimeInterval(Double(Self.raceSeconds))
        let outcomes = Outcomes()
        let running = Atomic<Int>(0)

        // The janitor sweeps in a loop until the clients are done.
        let sweeper = PThread(name: "race-janitor") {
            while Date() < deadline || running.load(ordering: .relaxed) > 0 {
                janitor.sweep()
                PThread.sleep(milliseconds: 5)
            }
        }
        // Clients: issue a URL valid 2 s, upload through storage, confirm at the n-th offset from expiry.
        let clients = 3
        running.store(clients, ordering: .relaxed)
        let threads = (0..<clients).map { c in
            PThread(name: "race-client-\(c)") {
                defer { running.subtract(1, ordering: .relaxed) }
                var n = c
                while Date() < deadline {
                    n += 1
                    let upload = types[n % types.count]
                    let pending: Pending<IssuedURL>
                    do {
                        pending = try lifecycle.issuer.issue(
                            upload, owner: "7", signing: .configured,
                            expires: 2, recordsIntent: true)
                    } catch {
                        outcomes.set("issue-\(c)-\(n)", .failed("issue: \(error)"))
                        continue
                    }
                    let stored = DispatchSemaphore(value: 0)
                    let refusal = Mutex<UploadError?>(nil)
                    pending.keep { error in
                        refusal.withLock { $0 = error }
                        stored.signal()
                    }
                    stored.wait()
                    let key = pending.value.key
                    if let error = refusal.withLock({ $0 }) {
                        outcomes.set(key, .failed("intent not stored: \(error)"))
                        continue
                    }
                    do {
                        try storage.put(key: key, bytes: image, contentType: "image/jpeg")
                    } catch {
                        outcomes.set(key, .failed("upload: \(error)"))
                        continue
                    }
                    let at = pending.value.expiresAtMs + Self.confirmOffsetsMs[n % Self.confirmOffsetsMs.count]
                    let wait = at - env.nowMillis()
                    if wait > 0 { PThread.sleep(milliseconds: Int(wait)) }
                    outcomes.set(key, Self.confirm(lifecycle.confirmer, key))
                }
            }
        }
        // The race runs for its seconds on its own threads; the test waits for them off the cooperative pool.
        _ = try await onThread {
            for t in threads { t.join() }
            sweeper.join()
        }
        // Every URL has expired now: a last sweep settles whatever is left, and must not touch a record.
        janitor.sweep()

        let all = outcomes.all
        var recorded = 0
        var refused = 0
        for (key, outcome) in all.sorted(by: { $0.key < $1.key }) {
            let record = try store.record(imageKey: key)
            switch outcome {
            case .recorded(let id, let objectKey):
                recorded += 1
                #expect(record?.id == id, "\(key): the acknowledged record is the stored one")
                #expect(try storage.head(key: objectKey) != nil, "\(key): acknowledged, but \(objectKey) is gone")
                #expect(Self.confirm(lifecycle.confirmer, key) == outcome, "\(key): confirmed again, the same record")
            case .expired, .notFound:
                refused += 1
                #expect(record == nil, "\(key): refused, yet recorded")
                let again = Self.confirm(lifecycle.confirmer, key)
                #expect(again == .expired || again == .notFound, "\(key): refused, then \(again)")
            case .failed(let why):
                Issue.record("\(key): \(why)")
            }
        }
        #expect(try store.expiredIntents(nowMs: env.nowMillis(), limit: 10).isEmpty, "the janitor left nothing")
        // The race happened: some confirmations were acknowledged, some came after the janitor.
        #expect(recorded > 0 && refused > 0, "\(recorded) recorded, \(refused) refused of \(all.count)")
    }

    /// One confirmation of `key` for its owner, as `POST /images` makes it.
    static func confirm(_ confirmer: Confirmer, _ key: String) -> Outcome {
        do throws(UploadError) {
            let c = try confirmer.confirm(Confirmation(imageKey: key), owner: "7")
            return .recorded(id: c.record.id, objectKey: c.record.objectKey)
        } catch {
            switch error {
            case .intentExpired: return .expired
            case .intentNotFound: return .notFound
            default: return .failed("confirm: \(error)")
            }
        }
    }
}
