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
        /// Uppy Companion's routes (`/s3/params`, `/s3/multipart` but its abort): a budget of its own,
        /// sized for a batch of files sent at once (Uppy never retries a create or params request).
        case uppy
        /// Never rate-limited, only the caller resolved: aborting a multipart upload (a 429 there would
        /// leave the upload open on storage until its janitor).
        case unlimited
    }

    struct Limits: Sendable {
        let perUser: any RequestLimiter
        let perAddress: any RequestLimiter
    }

    private let callers: any CallerResolver
    private let issue: Limits?
    private let confirm: Limits?
    private let uppy: Limits?
    /// The proxies whose `X-Forwarded-For` counts; empty: the header never counts.
    private let trustedProxies: [AddressRange]
    /// Requests refused with 429, by scope.
    let limitedIssue = Atomic<Int>(0)
    let limitedConfirm = Atomic<Int>(0)
    let limitedUppy = Atomic<Int>(0)
    /// The synchronisation of shared limits with the store (PostgreSQL), started and stopped with the
    /// application; nil when the limits are this process's own.
    let sync: RateLimitSync?

    /// A gate with rate limits, or without (`limits` nil).
    /// `trustedProxies` empty: the client address is always the peer's.
    init(
        callers: any CallerResolver, issue: Limits?, confirm: Limits?, uppy: Limits? = nil,
        trustedProxies: [AddressRange], sync: RateLimitSync? = nil
    ) {
        self.callers = callers
        self.sync = sync
        self.issue = issue
        self.confirm = confirm
        self.uppy = uppy
        self.trustedProxies = trustedProxies
    }

    /// A gate that only resolves the caller (no limits): for tests and `limits.enabled = false`.
    public convenience init(callers: any CallerResolver) {
        self.init(callers: callers, issue: nil, confirm: nil, uppy: nil, trustedProxies: [])
    }

    /// The outcome of admitting a request.
    enum Admission {
        /// The caller may go on.
        case admitted(Caller)
        /// Refused (429, 401, 400): the typed refusal, for the route's own dialect to render, and the
        /// user id once it is known (for the access log).
        case refused(APIError, userId: String?)
    }

    /// The caller of `request`, or why it is refused (429, 401, 400).
    func admit(_ request: Request, _ scope: Scope) -> Admission {
        let limits: Limits?
        switch scope {
        case .issue: limits = issue
        case .confirm: limits = confirm
        case .uppy: limits = uppy
        case .unlimited: limits = nil
        }
        if let limits, case .limited(let after) = limits.perAddress.check(clientAddress(request)) {
            return .refused(tooMany(after, scope), userId: nil)
        }
        let caller: Caller
        switch callers.resolve(request) {
        case .success(let c): caller = c
        case .failure(let error): return .refused(error, userId: nil)
        }
        if let limits, case .limited(let after) = limits.perUser.check(caller.userId) {
            return .refused(tooMany(after, scope), userId: caller.userId)
        }
        return .admitted(caller)
    }

    private func tooMany(_ seconds: Int, _ scope: Scope) -> APIError {
        switch scope {
        case .issue: limitedIssue.wrappingAdd(1, ordering: .relaxed)
        case .confirm, .unlimited: limitedConfirm.wrappingAdd(1, ordering: .relaxed)
        case .uppy: limitedUppy.wrappingAdd(1, ordering: .relaxed)
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
