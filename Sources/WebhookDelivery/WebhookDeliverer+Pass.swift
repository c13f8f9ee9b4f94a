import HTTPClient
import Records
import Synchronization

extension WebhookDeliverer {
    /// One attempt's result: the delivery and how the attempt ended.
    struct Settled: Sendable {
        /// The delivery as it was taken.
        let delivery: WebhookDelivery
        /// How the attempt ended.
        let attempt: WebhookAttempt
        /// Whether it failed without an answer from the endpoint (a refused or broken connection, a
        /// timeout).
        let unreachable: Bool
    }

    /// The longest an unreachable endpoint is left alone, in milliseconds: its return is noticed within
    /// this time whatever the retry schedule.
    static let maxHoldMs: Int64 = 60_000

    /// One pass for `endpoint`: rounds of due deliveries while the fence holds, until none is due or, under
    /// a lease, a round was not full (the rest waits for the next pass, `pollIntervalMs` later, so that a
    /// steady trickle of events is settled in a few writes a second instead of one per event: the writes
    /// share the store's writer with the API's commits); then, at most once a minute, the prune of
    /// finished deliveries past retention.
    ///
    /// An endpoint that answered no attempt of a whole round (every connection refused, broken or timed
    /// out) is held: no delivery to it is taken until the hold ends (the retry schedule's delay for the
    /// number of such rounds in a row, at most `maxHoldMs`), and the next round is the probe. A dead
    /// endpoint so costs a round per hold, not an attempt per event; any answer ends the holds.
    func runPass(_ endpoint: WebhookEndpoint, fence: DeliveryFence, pool: SenderPool) {
        let heldUntil = holds.withLock { $0[endpoint.name]?.untilMs ?? 0 }
        if now() < heldUntil {
            prune()
            return
        }
        while fence.holds {
            let due: [WebhookDelivery]
            do throws(RecordsError) {
                due = try store.dueWebhookDeliveries(endpoint: endpoint.name, nowMs: now(), limit: options.batchSize)
            } catch {
                events(.storeFailed(endpoint: endpoint.name, error: "\(error)"))
                return
            }
            if due.isEmpty { break }
            let results = Mutex<[Settled]>([])
            pool.runAll(
                due.map { delivery in
                    { [self] in
                        // A request that could outlast the lease is not started (the next pass, or the next
                        // holder, sends it).
                        guard fence.holds(forAtLeastMs: Int64(options.timeoutMs) + 1000) else { return }
                        let (attempt, unreachable) = attempt(delivery, to: endpoint)
                        results.withLock {
                            $0.append(Settled(delivery: delivery, attempt: attempt, unreachable: unreachable))
                        }
                    }
                })
            let settled = results.withLock { $0 }
            guard settle(settled, endpoint: endpoint, fence: fence) else { return }
            if !settled.isEmpty && settled.allSatisfy(\.unreachable) {
                hold(endpoint)
                break
            }
            holds.withLock { $0[endpoint.name] = nil }
            guard settled.count == due.count else { return }
            if case .lease = fence, due.count < options.batchSize { break }
        }
        prune()
    }

    /// Holds `endpoint` after another round it did not answer.
    private func hold(_ endpoint: WebhookEndpoint) {
        let nowMs = now()
        let unit = random()
        let (until, rounds) = holds.withLock { (holds) -> (Int64, Int) in
            let rounds = (holds[endpoint.name]?.rounds ?? 0) + 1
            let delay = options.schedule.delayMs(afterAttempt: rounds, unit: unit) ?? options.schedule.maxMs
            let hold = EndpointHold(untilMs: nowMs + min(delay, Self.maxHoldMs), rounds: rounds)
            holds[endpoint.name] = hold
            return (hold.untilMs, rounds)
        }
        events(.endpointHeld(endpoint: endpoint.name, untilMs: until, rounds: rounds))
    }

    /// Sends `delivery` once and says how the attempt ended: 2xx delivered; else due again after the
    /// schedule's backoff, or failed when it was the last attempt; and whether the endpoint answered.
    func attempt(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint) -> (WebhookAttempt, unreachable: Bool) {
        let number = delivery.attempts + 1
        let failure: DeliveryFailure
        switch send(delivery, to: endpoint) {
        case .success: return (.delivered, false)
        case .failure(let f): failure = f
        }
        guard let delayMs = options.schedule.delayMs(afterAttempt: number, unit: random()) else {
            return (.failed(error: failure.description), failure.unreachable)
        }
        return (.retry(dueAtMs: now() + delayMs, error: failure.description), failure.unreachable)
    }

    /// One POST of `delivery` to `endpoint`, signed now; a connection that broke before any answer (a
    /// kept-alive one the endpoint had closed) is tried once more on a new one.
    func send(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint) -> Result<Void, DeliveryFailure> {
        var tries = 0
        while true {
            tries += 1
            let timestamp = now() / 1000
            var headers: [(name: String, value: String)] = [
                ("Content-Type", "application/json"), ("User-Agent", "presignd-webhooks"),
            ]
            headers += signer.headers(id: delivery.eventId, timestamp: timestamp, body: delivery.body)
            let request = HTTPRequest(
                method: "POST", target: endpoint.url.target, headers: headers, body: delivery.body)
            do throws(HTTPClientError) {
                let response = try client.send(request, to: endpoint.address)
                guard (200..<300).contains(response.status) else {
                    return .failure(DeliveryFailure("answered \(response.status)"))
                }
                return .success(())
            } catch {
                if case .connection = error, tries < 2 { continue }
                return .failure(DeliveryFailure(error.description, unreachable: error.isRetryable))
            }
        }
    }

    /// Writes the round's attempts in one write through `fence` (under a lease: one transaction committed
    /// without waiting for the disk, the successes in one statement; a settlement lost to a power cut is
    /// an attempt made again under the same event id), and counts them; false when the fence refused it
    /// (nothing written: the lease was lost) or the store failed.
    func settle(_ settled: [Settled], endpoint: WebhookEndpoint, fence: DeliveryFence) -> Bool {
        guard !settled.isEmpty else { return true }
        let nowMs = now()
        do throws(RecordsError) {
            switch fence {
            case .always:
                for item in settled {
                    _ = try store.settleWebhookDelivery(seq: item.delivery.seq, attempt: item.attempt, nowMs: nowMs)
                }
            case .lease(let pass):
                let outcome = try pass.fenced(durable: false) { (writes) throws(RecordsError) -> Bool in
                    var delivered: [Int64] = []
                    for item in settled {
                        if case .delivered = item.attempt {
                            delivered.append(item.delivery.seq)
                        } else {
                            _ = try writes.settleWebhookDelivery(
                                seq: item.delivery.seq, attempt: item.attempt, nowMs: nowMs)
                        }
                    }
                    _ = try writes.settleDelivered(seqs: delivered, nowMs: nowMs)
                    return true
                }
                guard case .done = outcome else {
                    events(.settlementsFencedOff(endpoint: endpoint.name, count: settled.count))
                    return false
                }
            }
        } catch {
            events(.storeFailed(endpoint: endpoint.name, error: "\(error)"))
            return false
        }
        for item in settled {
            switch item.attempt {
            case .delivered: delivered.add(1, ordering: .relaxed)
            case .retry: retried.add(1, ordering: .relaxed)
            case .failed(let error):
                failed.add(1, ordering: .relaxed)
                events(
                    .failedForGood(
                        endpoint: endpoint.name, eventId: item.delivery.eventId, type: item.delivery.type,
                        attempts: item.delivery.attempts + 1, error: error))
            }
        }
        return true
    }

    /// Removes finished deliveries past retention, at most once a minute per process (any endpoint's
    /// pass; overlapping prunes of two instances are harmless).
    func prune() {
        let nowMs = now()
        let last = prunedAtMs.load(ordering: .relaxed)
        guard nowMs - last >= Self.pruneIntervalMs,
            prunedAtMs.compareExchange(expected: last, desired: nowMs, ordering: .relaxed).exchanged
        else { return }
        do throws(RecordsError) {
            _ = try store.pruneWebhookDeliveries(finishedBeforeMs: nowMs - options.retentionMs, limit: 1000)
        } catch {
            events(.storeFailed(endpoint: "*", error: "\(error)"))
        }
    }

    /// Runs one pass for the endpoint named `name` in the calling thread, unfenced (one process: tests, and
    /// a drain of what is due). False when no such endpoint is configured.
    @discardableResult
    public func deliverDue(endpoint name: String) -> Bool {
        guard let endpoint = endpoints.first(where: { $0.name == name }) else { return false }
        let pool = SenderPool(count: options.concurrency, name: "presignd-webhook", nice: options.senderNice)
        defer { pool.stop() }
        runPass(endpoint, fence: .always, pool: pool)
        return true
    }
}

/// Why an attempt failed: a status, a timeout, a connection.
struct DeliveryFailure: Error, Sendable, CustomStringConvertible {
    /// One line.
    let description: String
    /// True when the endpoint gave no answer (a refused or broken connection, a timeout).
    let unreachable: Bool

    /// A failure described by `text`.
    init(_ text: String, unreachable: Bool = false) {
        description = text
        self.unreachable = unreachable
    }
}

/// An endpoint left alone after rounds it did not answer.
struct EndpointHold: Sendable {
    /// Until when no delivery to it is taken (epoch ms).
    let untilMs: Int64
    /// The rounds in a row it did not answer.
    let rounds: Int
}
