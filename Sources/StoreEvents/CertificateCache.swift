import Crypto
import Synchronization

/// Signing certificates' keys by URL, fetched once and kept for `lifetimeMs` (at most `capacity` of them;
/// the oldest goes first). The fetch is injected (`fetch`: the certificate's PEM at a URL the policy
/// allowed; the server's does it over HTTPS), and so is the time.
public final class CertificateCache: Sendable {
    /// Fetches the PEM document at a URL; any error means the certificate could not be had.
    public typealias Fetch = @Sendable (_ url: String) throws -> [UInt8]

    /// The cached keys with when they were fetched.
    private let entries = Mutex<[String: (key: PublicKey, fetchedAtMs: Int64)]>([:])
    /// The fetch.
    private let fetch: Fetch
    /// How many certificates are kept.
    public let capacity: Int
    /// How long a certificate is kept.
    public let lifetimeMs: Int64
    /// How many fetches were made (tests and metrics).
    private let fetches = Atomic<Int>(0)

    /// A cache of at most `capacity` keys, each kept `lifetimeMs`, filled by `fetch`.
    public init(capacity: Int = 16, lifetimeMs: Int64 = 24 * 3600 * 1000, fetch: @escaping Fetch) {
        self.capacity = max(1, capacity)
        self.lifetimeMs = lifetimeMs
        self.fetch = fetch
    }

    /// How many fetches this cache made.
    public var fetchCount: Int { fetches.load(ordering: .relaxed) }

    /// The key of the certificate at `url` (already allowed by the policy): cached, or fetched now.
    public func key(for url: String, nowMs: Int64) throws(StoreEventsError) -> PublicKey {
        if let entry = entries.withLock({ $0[url] }), nowMs - entry.fetchedAtMs < lifetimeMs { return entry.key }
        fetches.add(1, ordering: .relaxed)
        let pem: [UInt8]
        do {
            pem = try fetch(url)
        } catch {
            throw .certificateUnavailable("fetching \(url.prefix(128)) failed: \(error)")
        }
        let key: PublicKey
        do throws(CryptoError) {
            key = try PublicKey.certificateKey(pem: pem)
        } catch {
            throw .certificateUnavailable("the document at \(url.prefix(128)) is not a usable certificate: \(error)")
        }
        entries.withLock { entries in
            entries[url] = (key, nowMs)
            while entries.count > capacity,
                let oldest = entries.min(by: { $0.value.fetchedAtMs < $1.value.fetchedAtMs })
            {
                entries[oldest.key] = nil
            }
        }
        return key
    }
}
