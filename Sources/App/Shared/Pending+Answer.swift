import HTTPServer
import Uploads

extension Pending where Value == Response {
    /// The handler's result for an answer that waits for its intent: at once when nothing is to be
    /// stored (a HEAD), else deferred (no worker held, the loop never waits) until the intent is
    /// stored; `refusal` renders why it was not (a 503 with `Retry-After`, in the route's dialect).
    func result(refusal: @escaping @Sendable (UploadError) -> Response) -> HandlerResult {
        if isKept { return .respond(value) }
        return .deferred { responder in answer(responder, refusal: refusal) }
    }

    /// Answers `responder` with the value once the intent is stored, else with `refusal`'s answer; on
    /// this thread when nothing is to be stored.
    func answer(_ responder: Responder, refusal: @escaping @Sendable (UploadError) -> Response) {
        keep { [value] error in
            if let error { responder.respond(refusal(error)) } else { responder.respond(value) }
        }
    }
}
