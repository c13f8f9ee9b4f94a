import Crypto
import Synchronization

/// The SigV4 signing key of each UTC day, derived once and shared by every thread.
///
/// SigV4 task 3: kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service),
/// "aws4_request"). The two latest days are kept, so threads whose clocks straddle midnight do
/// not evict each other's key. A lookup holds the mutex only to copy a prepared `HMACKey` out.
final class SigningKeyCache: Sendable {
    /// One day's prepared signing key.
    struct Entry: Sendable {
        /// Days since the epoch.
        let day: Int64
        /// The prepared HMAC key of kSigning.
        let key: HMACKey
    }

    /// The HMAC key "AWS4" + secret, prepared once.
    private let rootKey: HMACKey
    /// The region, e.g. `ap-northeast-2`.
    private let region: String
    /// The service, e.g. `s3`.
    private let service: String
    /// The latest and the one before it.
    private let entries = Mutex<(latest: Entry?, previous: Entry?)>((nil, nil))

    /// A cache for `secret` in `region` and `service`.
    init(secret: Secret, region: String, service: String) {
        var keyBytes = Array("AWS4".utf8) + secret.unredactedBytes
        rootKey = HMACKey(key: keyBytes)
        for index in keyBytes.indices { keyBytes[index] = 0 }
        self.region = region
        self.service = service
    }

    /// The prepared signing key of `date`'s day.
    func key(for date: AmzDate) -> HMACKey {
        let day = date.daysSinceEpoch
        let cached: HMACKey? = entries.withLock { entries in
            if let latest = entries.latest, latest.day == day { return latest.key }
            if let previous = entries.previous, previous.day == day { return previous.key }
            return nil
        }
        if let cached { return cached }
        let entry = Entry(day: day, key: derive(date))
        entries.withLock { entries in
            guard entries.latest?.day != day, entries.previous?.day != day else { return }
            if let latest = entries.latest, latest.day > day {
                entries.previous = entry
            } else {
                entries.previous = entries.latest
                entries.latest = entry
            }
        }
        return entry.key
    }

    /// SigV4 task 3: the signing key of `date`'s day, prepared for HMAC.
    func derive(_ date: AmzDate) -> HMACKey {
        HMACKey(key: signingKeyBytes(date))
    }

    /// SigV4 task 3: the signing key of `date`'s day (kSigning itself, for tests).
    func signingKeyBytes(_ date: AmzDate) -> SHA256Digest {
        var dayText = [UInt8]()
        date.appendDay(to: &dayText)
        let dateKey = rootKey.authenticate(dayText)
        let regionKey = HMACKey(key: dateKey).authenticate(region)
        let serviceKey = HMACKey(key: regionKey).authenticate(service)
        return HMACKey(key: serviceKey).authenticate("aws4_request")
    }
}
