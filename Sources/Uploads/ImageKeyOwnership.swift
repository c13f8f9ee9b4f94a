import Records

/// Who holds an image key: the one answer both issuing (for a key the client chose) and confirming act on.
///
/// A key is held by its record once one exists; before that by its stored upload intent (a URL is
/// answered only once its intent is stored).
public struct ImageKeyOwnership: Sendable {
    /// What holds a key.
    public enum Holder: Sendable, Equatable {
        /// No URL was issued for the key (or its intent has been swept).
        case nobody
        /// A URL was issued, and nothing is recorded yet.
        case intent(UploadIntent)
        /// The key is recorded.
        case record(ImageRecord)
    }

    /// Whether a client-chosen image key may get a new upload URL.
    public enum Use: Sendable, Equatable {
        /// Never issued, issued to this caller, or issued to someone else whose URL has expired, and
        /// not recorded: a new URL may be issued.
        case free
        /// Already recorded: a new URL would let the confirmed object be overwritten.
        case recorded
        /// Issued to another user and not yet expired.
        case issuedToOther
    }

    /// Where records are.
    let store: any RecordStore
    /// Where intents are.
    let intents: IntentKeeper
    /// The time an intent's expiry is compared with.
    let nowMillis: @Sendable () -> Int64

    /// Ownership by the records of `store` and the intents of `intents`.
    public init(store: any RecordStore, intents: IntentKeeper, nowMillis: @escaping @Sendable () -> Int64) {
        self.store = store
        self.intents = intents
        self.nowMillis = nowMillis
    }

    /// The holder of `imageKey`: the record first, then the intent.
    public func holder(of imageKey: String) throws(UploadError) -> Holder {
        if let record = try UploadError.storing({ () throws(RecordsError) in try store.record(imageKey: imageKey) }) {
            return .record(record)
        }
        if let intent = try intents.intent(imageKey: imageKey) { return .intent(intent) }
        return .nobody
    }

    /// Whether `owner` may be issued a new URL for `imageKey`.
    public func use(of imageKey: String, by owner: String) throws(UploadError) -> Use {
        switch try holder(of: imageKey) {
        case .nobody: return .free
        case .record: return .recorded
        case .intent(let i): return i.ownerId != owner && i.expiresAtMs > nowMillis() ? .issuedToOther : .free
        }
    }
}
