import Logging
import WebhookDelivery

extension WebhookDeliveryEvent {
    /// Writes the event as its log line.
    func write(to log: LogSink) {
        switch self {
        case .leaseAcquired(let endpoint, let holder, let token, let tookOver):
            log.info(
                "webhook lease acquired",
                ["endpoint": endpoint, "holder": holder, "token": token, "tookOver": tookOver])
        case .leaseLost(let endpoint, let holder, let token):
            log.warn("webhook lease lost", ["endpoint": endpoint, "holder": holder, "token": token])
        case .storeFailed(let endpoint, let error):
            log.warn("webhook store call failed", ["endpoint": endpoint, "error": error, "retry": "next pass"])
        case .failedForGood(let endpoint, let eventId, let type, let attempts, let error):
            log.error(
                "webhook delivery failed for good",
                [
                    "endpoint": endpoint, "eventId": eventId, "type": type, "attempts": attempts, "error": error,
                    "redeliver": "POST /admin/webhooks/\(eventId)/redeliver",
                ])
        case .settlementsFencedOff(let endpoint, let count):
            log.warn("webhook attempts not settled: lease lost", ["endpoint": endpoint, "attempts": count])
        case .endpointHeld(let endpoint, let untilMs, let rounds):
            // Once per outage: the first round it did not answer (the rest only move the hold's end).
            if rounds == 1 {
                log.warn(
                    "webhook endpoint unreachable: deliveries held",
                    ["endpoint": endpoint, "untilMs": untilMs, "retry": "a round at most every 60 s until it answers"])
            }
        }
    }
}
