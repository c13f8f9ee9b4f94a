import Config
import Crypto
import JSON
import Records
import RecordsTestSupport
import SigV4
import Synchronization
import TestSupport
import Uploads
import UploadsTestSupport

/// The lifecycle's parts over an in-memory record store and object store, at a fixed time and with
/// numbered UUIDs; shuts its threads down when released.
final class LifecycleHarness {
    static let now: Int64 = 1_795_961_227_768

    let store = InMemoryRecordStore()
    let storage = InMemoryObjectStorage()
    let sink: RecordingIntentSink?
    let writer: IntentWriter
    let committer: GroupCommitter
    let keeper: IntentKeeper
    let catalog: UploadCatalog
    let ownership: ImageKeyOwnership
    let issuer: Issuer
    let confirmer: Confirmer
    let events = EventLog()
    /// The webhook events of the confirmer (`.off` unless made with `webhooks`).
    let webhooks: WebhookEvents
    /// The harness's clock and ids.
    let env: UploadEnvironment

    /// The lifecycle of `config`'s types; issued intents go to `sink` when given, else to the writer;
    /// `storeChecksums` says what storage checks of a declared digest; with `webhooks`, the confirmer's
    /// changes emit their webhook events to those endpoints (a record's members written as
    /// `{"id","imageKey","type"}`).
    init(
        config: PresigndConfig = .defaults, sink: RecordingIntentSink? = nil,
        storeChecksums: StoreChecksums = .preset(.custom), webhooks: [WebhookEndpointConfig] = []
    ) throws {
        self.sink = sink
        writer = IntentWriter(store: store, batchSize: 16, onError: { _ in })
        committer = GroupCommitter(store: store, maxBatch: 16)
        keeper = IntentKeeper(writer: writer, sink: sink)
        catalog = try UploadCatalog(config.types)
        let counter = Counter()
        let env = UploadEnvironment(nowMillis: { LifecycleHarness.now }, newUUID: { counter.next() })
        self.env = env
        self.webhooks = WebhookEvents(
            endpoints: webhooks,
            recordMembers: { record, w in
                w.key("id")
                w.string(record.id)
                w.key("imageKey")
                w.string(record.imageKey)
                w.key("type")
                w.string(record.type)
            }, env: env)
        ownership = ImageKeyOwnership(store: store, intents: keeper, nowMillis: env.nowMillis)
        let signer = RotatingPresigner(
            try Presigner(
                credentials: Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Secret("test-secret")),
                region: "us-east-1", endpoint: Endpoint(parsing: "http://127.0.0.1:9000"), addressing: .path))
        issuer = Issuer(
            catalog: catalog, signers: Issuer.Signers(pathStyle: signer, configured: signer), bucket: "uploads",
            intents: keeper, ownership: ownership, env: env, signIfNoneMatch: false, storeChecksums: storeChecksums)
        confirmer = Confirmer(
            catalog: catalog, ownership: ownership, intents: keeper, storage: storage, committer: committer,
            store: store, env: env, events: { [events] in events.append($0) }, webhooks: self.webhooks,
            storeChecksums: storeChecksums)
    }

    deinit {
        committer.shutdown()
        writer.shutdown()
    }

    /// Numbered UUIDs: `00000000-0000-4000-8000-00000000000n`.
    final class Counter: Sendable {
        private let n = Mutex(0)
        func next() -> String {
            let value = n.withLock { n -> Int in
                n += 1
                return n
            }
            let digits = String(value)
            return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
        }
    }

    /// The events reported so far.
    final class EventLog: Sendable {
        private let events = Mutex<[LifecycleEvent]>([])
        func append(_ e: LifecycleEvent) { events.withLock { $0.append(e) } }
        var all: [LifecycleEvent] { events.withLock { $0 } }
    }

    /// A 4x3 JPEG.
    static let jpeg: [UInt8] = TestImages.image(.jpeg, width: 4, height: 3)
}
