import Config
import Crypto
import HTTPServer
import Logging
import Records
import StoreEvents
import Synchronization
import Uploads

/// The store's own upload events, the front door: `POST {events.path}/rgw` (Ceph RGW's bucket-notification
/// push, authenticated by the topic's `OpaqueData`), `/minio` (MinIO's webhook, by its auth token), both
/// with `events.secret`, and `/sns` (AWS S3 through an SNS HTTPS subscription, by the message's signature
/// against its signing certificate, fetched over HTTPS from a host `events.snsCertificateHosts` allows,
/// for the topics of `events.snsTopicArns`).
///
/// Each authenticated delivery is inserted into the records store's inbox (one durable commit) and
/// answered 200 at once; the processor (`Uploads.EventProcessor`) records its uploads later, with
/// retries. A delivery that cannot be authenticated is 401; a body that is not JSON 400; one over
/// 256 KiB 413 (the server's own answer, before the body is read); the inbox unavailable 503 with
/// `Retry-After` (the store delivers again). An authenticated delivery holding nothing usable is still
/// 200: RGW retries a persistent topic head of line for ever. SNS's `SubscriptionConfirmation` is
/// confirmed by fetching its `SubscribeURL` (checked against the same host patterns).
final class EventsService: Sendable {
    /// The sources, as the inbox names them.
    enum Source: String, CaseIterable, Sendable {
        case rgw, minio, sns
    }

    private let path: String
    private let store: any LifecycleStore
    private let processor: EventProcessor?
    private let push: PushAuthenticator?
    private let sns: SNSVerifier?
    private let fetcher: HTTPSFetcher
    private let limits = InboxLimits()
    private let nowMillis: @Sendable () -> Int64
    private let log: LogSink
    private let presenter = EventsPresenter()
    /// Deliveries accepted into the inbox, by source.
    let received = Mutex<[String: Int]>([:])
    /// Deliveries refused, by reason (`unauthenticated`, `malformed`, `too-large`, `unavailable`).
    let refused = Mutex<[String: Int]>([:])
    /// SNS subscriptions confirmed.
    let subscriptionsConfirmed = Atomic<Int>(0)

    /// The routes of `config.events` over `store`'s inbox, waking `processor` when an event arrives; SNS
    /// certificates and confirmations are fetched trusting `caFile`.
    init(
        config: PresigndConfig, store: any LifecycleStore, processor: EventProcessor?, caFile: String,
        nowMillis: @escaping @Sendable () -> Int64, log: LogSink
    ) {
        let e = config.events
        path = e.path
        self.store = store
        self.processor = processor
        let parser = S3EventParser(bucket: config.s3.bucket)
        push = e.secret.map { PushAuthenticator(secret: $0, parser: parser) }
        let fetcher = HTTPSFetcher(caFile: caFile)
        self.fetcher = fetcher
        let policy = SigningCertPolicy(hostPatterns: e.snsCertificateHosts)
        sns =
            e.snsTopicArns.isEmpty
            ? nil
            : SNSVerifier(
                policy: policy, topicARNs: Set(e.snsTopicArns),
                certificates: CertificateCache { url in
                    do throws(HTTPSFetcher.Failure) { return try fetcher.get(url) } catch { throw error }
                })
        self.nowMillis = nowMillis
        self.log = log
    }

    /// The routes: `/rgw` and `/minio` with a secret, `/sns` with topics.
    func routes() -> [Route] {
        var routes: [Route] = []
        let limit = limits.maxBodyBytes
        if push != nil {
            routes.append(
                Route(.POST, path + "/rgw", maxBodyBytes: limit) { [self] request in
                    .blocking { self.answer(.rgw, request) }
                })
            routes.append(
                Route(.POST, path + "/minio", maxBodyBytes: limit) { [self] request in
                    .blocking { self.answer(.minio, request) }
                })
        }
        if sns != nil {
            routes.append(
                Route(.POST, path + "/sns", maxBodyBytes: limit) { [self] request in
                    .blocking { self.answer(.sns, request) }
                })
        }
        return routes
    }

    /// On a worker: the answer to one delivery through `source`'s door.
    func answer(_ source: Source, _ request: Request) -> Response {
        do throws(EventsError) {
            let id = try accept(source, request)
            return EventsPresenter.accepted(id: id)
        } catch {
            let reason: String
            switch error {
            case .delivery(.unauthenticated(let detail)):
                reason = "unauthenticated"
                log.warn("store event refused", ["source": source.rawValue, "reason": detail])
            case .delivery(.malformed): reason = "malformed"
            case .delivery(.tooLarge), .inbox(.invalidArgument): reason = "too-large"
            case .delivery(.certificateUnavailable(let detail)), .subscription(let detail):
                reason = "unavailable"
                log.warn("store event not taken yet", ["source": source.rawValue, "reason": detail])
            case .inbox(let failure):
                reason = "unavailable"
                log.warn("store event not taken yet", ["source": source.rawValue, "reason": "\(failure)"])
            }
            refused.withLock { $0[reason, default: 0] += 1 }
            return presenter.response(for: error)
        }
    }

    /// Authenticates the delivery and, when it carries events, puts it into the inbox: its id (nil for
    /// an SNS confirmation, which is answered here).
    func accept(_ source: Source, _ request: Request) throws(EventsError) -> Int64? {
        var message: SNSMessage?
        do throws(StoreEventsError) {
            switch source {
            case .rgw: _ = try push!.rgwPush(body: request.body)
            case .minio: _ = try push!.minioWebhook(authorization: request.header("Authorization"), body: request.body)
            case .sns: message = try sns!.verify(body: request.body, nowMs: nowMillis())
            }
        } catch {
            throw .delivery(error)
        }
        switch message?.kind {
        case .subscriptionConfirmation?:
            try confirm(message!)
            return nil
        case .unsubscribeConfirmation?:
            log.info("SNS subscription removed", ["topic": message!.topicARN])
            return nil
        case .notification?, nil: break
        }
        let id: Int64
        do throws(RecordsError) {
            id = try store.enqueueEvent(
                source: source.rawValue, body: request.body, receivedAtMs: nowMillis(), limits: limits)
        } catch {
            throw .inbox(error)
        }
        received.withLock { $0[source.rawValue, default: 0] += 1 }
        processor?.wake()
        return id
    }

    /// Confirms an SNS subscription: its `SubscribeURL` must be https on an allowed host; one GET of it.
    func confirm(_ message: SNSMessage) throws(EventsError) {
        guard let url = message.subscribeURL else { throw .delivery(.malformed("no SubscribeURL")) }
        if let refusal = sns!.policy.refusal(url: url) { throw .delivery(.unauthenticated(refusal)) }
        do throws(HTTPSFetcher.Failure) {
            _ = try fetcher.get(url)
        } catch {
            throw .subscription(error.description)
        }
        subscriptionsConfirmed.add(1, ordering: .relaxed)
        log.info("SNS subscription confirmed", ["topic": message.topicARN])
    }
}
