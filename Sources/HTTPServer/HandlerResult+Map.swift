/// Changing a handler's answer whatever form it takes.
extension HandlerResult {
    /// The same result with `transform` applied to its response: at once, on the worker, or when the
    /// deferred answer is given (a wrapper adding headers, such as CORS, works on every form).
    public func map(_ transform: @escaping @Sendable (Response) -> Response) -> HandlerResult {
        switch self {
        case .respond(let r):
            return .respond(transform(r))
        case .blocking(let work):
            return .blocking { transform(work()) }
        case .deferred(let start):
            return .deferred { responder in
                // Let go unanswered, the wrapper lets `responder` go too, which answers for itself.
                start(Responder { responder.respond(transform($0)) })
            }
        case .blockingDeferred(let start):
            return .blockingDeferred { responder in start(Responder { responder.respond(transform($0)) }) }
        }
    }
}
