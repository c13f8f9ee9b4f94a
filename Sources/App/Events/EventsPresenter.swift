import HTTPServer
import Records
import StoreEvents

/// How the events routes answer: `{"code","message"}` with the status each failure has, and
/// `Retry-After` on the 503s (a store that retries comes back later). An authenticated delivery that
/// holds nothing usable is not a failure: it is answered 200 and counted by the processor.
struct EventsPresenter: Sendable {
    /// The answer to an accepted delivery.
    static func accepted(id: Int64?) -> Response {
        var body = #"{"accepted":true"#
        if let id { body += #","id":\#(id)"# }
        body += "}"
        return .json(200, Array(body.utf8))
    }

    /// The answer to `failure`.
    func response(for failure: EventsError) -> Response {
        let (status, code, message) = Self.parts(failure)
        var response = Response.error(status, code: code, message: message)
        if status == 503 { response.headers.append(("Retry-After", "5")) }
        if status == 401 { response.headers.append(("WWW-Authenticate", #"Bearer realm="presignd-events""#)) }
        return response
    }

    /// The status, code and message of `failure` (never a secret: the reasons name no token).
    static func parts(_ failure: EventsError) -> (Int, String, String) {
        switch failure {
        case .delivery(.malformed(let detail)): return (400, "MALFORMED_EVENT", String(detail.prefix(200)))
        case .delivery(.tooLarge(_, let limit)):
            return (413, "EVENT_TOO_LARGE", "an event delivery is at most \(limit) bytes")
        case .delivery(.unauthenticated): return (401, "UNAUTHORIZED", "the delivery does not prove its sender")
        case .delivery(.certificateUnavailable):
            return (503, "CERTIFICATE_UNAVAILABLE", "the signing certificate could not be fetched; deliver again")
        case .inbox(.invalidArgument): return (413, "EVENT_TOO_LARGE", "the delivery is over the inbox's limit")
        case .inbox: return (503, "STORE_UNAVAILABLE", "the event inbox is not available; deliver again")
        case .subscription:
            return (503, "SUBSCRIPTION_NOT_CONFIRMED", "the subscription could not be confirmed; send it again")
        }
    }
}
