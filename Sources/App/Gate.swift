import Config
import HTTPServer
import Synchronization

/// The way into every issue, confirm and records route: a per-address rate limit (before any token is
/// verified, so a flood of bad tokens is cheap to refuse), then the caller, then a per-user rate limit.
public final class Gate: Sendable {
    /// Which routes' limits apply.
    public enum Scope: Sendable {
        /// Issuing URLs (`/presigned-url`).
        case issue
        /// Confirming and reading records (`/images`).
        case confirm
    }

    struct Limits: Sendable {
        let perUser: RateLimiter
        let perAddress: RateLimiter
    }

    private let callers: any CallerResolver
    private let issue: Limits?
    private let confirm: Limits?
    /// The proxies whose `X-Forwarded-For` counts; empty: the header never counts.
    private let trustedProxies: [AddressRange]
    /// Requests refused with 429, by scope.
    let limitedIssue = Atomic<Int>(0)
    let limitedConfirm = Atomic<Int>(0)

    /// A gate with rate limits, or without (`limits` nil).
    /// `trustedProxies` empty: the client address is always the peer's.
    init(callers: any CallerResolver, issue: Limits?, confirm: Limits?, trustedProxies: [AddressRange]) {
        self.callers = callers
        self.issue = issue
        self.confirm = confirm
        self.trustedProxies = trustedProxies
    }

    /// A gate that only resolves the caller (no limits): for tests and `limits.enabled = false`.
    public convenience init(callers: any CallerResolver) {
        self.init(callers: callers, issue: nil, confirm: nil, trustedProxies: [])
    }

    /// The outcome of admitting a request.
    enum Admission {
        /// The caller may go on.
        case admitted(Caller)
        /// The answer instead (429, 401, 400), marked with the user id once it is known.
        case refused(Response)
    }

    /// The caller of `request`, or the response that refuses it (429, 401, 400).
    func admit(_ request: Request, _ scope: Scope) -> Admission {
        let limits = scope == .issue ? issue : confirm
        if let limits, case .limited(let after) = limits.perAddress.check(clientAddress(request)) {
            return .refused(tooMany(after, scope).response)
        }
        let caller: Caller
        switch callers.resolve(request) {
        case .success(let c): caller = c
        case .failure(let error): return .refused(error.response)
        }
        if let limits, case .limited(let after) = limits.perUser.check(caller.userId) {
            var refusal = tooMany(after, scope).response
            refusal.userId = caller.userId
            return .refused(refusal)
        }
        return .admitted(caller)
    }

    /// A handler that admits the caller, answers with `body` on the event loop (an `APIError` it
    /// throws becomes its response) and marks the response with the caller's user id for the access log.
    ///
    /// Nothing is allocated per request beyond what `body` allocates: `body` is captured once, here,
    /// and the closures below are not escaping.
    func route(
        _ scope: Scope, _ body: @escaping @Sendable (Caller, Request) throws(APIError) -> Response
    ) -> Handler {
        { [self] request in
            admitting(request, scope) { caller in
                .respond(Gate.answer(caller) { () throws(APIError) in try body(caller, request) })
            }
        }
    }

    /// A handler that admits the caller, checks the request with `validate` on the event loop, then
    /// runs `perform` on the worker pool; every response is marked with the caller's user id.
    ///
    /// A failure of `perform` is answered as `APIError(_:)` maps it (an `APIError` as it is, a storage
    /// failure as 502/503/504, anything else as the records store's 503). The worker's closure is the
    /// only allocation this adds per request: it captures `perform`, the caller and the validated work.
    func route<Work: Sendable>(
        _ scope: Scope, validate: @escaping @Sendable (Caller, Request) throws(APIError) -> Work,
        perform: @escaping @Sendable (Caller, Work) throws -> Response
    ) -> Handler {
        { [self] request in
            admitting(request, scope) { caller in
                let work: Work
                do throws(APIError) {
                    work = try validate(caller, request)
                } catch {
                    return .respond(Gate.answer(caller) { () throws(APIError) in throw error })
                }
                return .blocking {
                    Gate.answer(caller) { () throws(APIError) in
                        do {
                            return try perform(caller, work)
                        } catch {
                            throw APIError(error)
                        }
                    }
                }
            }
        }
    }

    /// What a check decides: the answer now, on the event loop, or work for the worker pool.
    enum Step<Work: Sendable> {
        /// Answer at once (a refusal, or work cheap enough for the loop).
        case now(Response)
        /// Run `perform` with this on the worker pool.
        case later(Work)
    }

    /// A handler that admits the caller, then lets `decide` answer on the event loop or hand work to
    /// the worker pool (`perform`, whose failures are mapped as in `route(_:validate:perform:)`): for
    /// routes whose usual case needs no blocking call (a part URL of an upload already checked).
    func route<Work: Sendable>(
        _ scope: Scope, decide: @escaping @Sendable (Caller, Request) throws(APIError) -> Step<Work>,
        perform: @escaping @Sendable (Caller, Work) throws -> Response
    ) -> Handler {
        { [self] request in
            admitting(request, scope) { caller in
                let step: Step<Work>
                do throws(APIError) {
                    step = try decide(caller, request)
                } catch {
                    return .respond(Gate.answer(caller) { () throws(APIError) in throw error })
                }
                switch step {
                case .now(let response):
                    return .respond(Gate.answer(caller) { () throws(APIError) in response })
                case .later(let work):
                    return .blocking {
                        Gate.answer(caller) { () throws(APIError) in
                            do {
                                return try perform(caller, work)
                            } catch {
                                throw APIError(error)
                            }
                        }
                    }
                }
            }
        }
    }

    /// `body(caller)` for an admitted caller, else the refusal.
    private func admitting(_ request: Request, _ scope: Scope, _ body: (Caller) -> HandlerResult) -> HandlerResult {
        switch admit(request, scope) {
        case .admitted(let caller): return body(caller)
        case .refused(let refusal): return .respond(refusal)
        }
    }

    /// The response of `body`, or of the error it throws, marked with the caller's user id.
    private static func answer(_ caller: Caller, _ body: () throws(APIError) -> Response) -> Response {
        var response: Response
        do throws(APIError) {
            response = try body()
        } catch {
            response = error.response
        }
        response.userId = caller.userId
        return response
    }

    private func tooMany(_ seconds: Int, _ scope: Scope) -> APIError {
        if scope == .issue {
            limitedIssue.wrappingAdd(1, ordering: .relaxed)
        } else {
            limitedConfirm.wrappingAdd(1, ordering: .relaxed)
        }
        return .rateLimited(retryAfterSeconds: seconds)
    }

    /// The client's address: the peer's IP; or, when the peer is a trusted proxy, the last
    /// `X-Forwarded-For` hop (over every such header, in order) that is not a trusted proxy itself, the
    /// first hop when all are. Hops left of the one a trusted proxy appended are the caller's own words and
    /// cannot be chosen unless every hop right of them is trusted.
    func clientAddress(_ request: Request) -> String {
        let peer = Gate.host(ofPeer: request.peer)
        guard !trustedProxies.isEmpty, isTrusted(peer) else { return peer }
        var hops: [Substring] = []
        for header in request.head.headers.all("X-Forwarded-For") {
            for hop in header.split(separator: ",") {
                let trimmed = hop.trimmingSpaces()
                if !trimmed.isEmpty { hops.append(trimmed) }
            }
        }
        guard let first = hops.first else { return peer }
        for hop in hops.reversed() where !isTrusted(String(hop)) { return String(hop) }
        return String(first)
    }

    /// True when `address` parses and lies in a trusted proxy range.
    private func isTrusted(_ address: String) -> Bool {
        guard let bytes = AddressRange.parseAddress(address) else { return false }
        return trustedProxies.contains { $0.contains(bytes) }
    }

    /// "1.2.3.4:5678" -> "1.2.3.4"; "[::1]:5678" -> "::1".
    static func host(ofPeer peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        if let colon = peer.lastIndex(of: ":") { return String(peer[..<colon]) }
        return peer
    }
}
