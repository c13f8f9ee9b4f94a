import Records

/// What an issuing call returns: the answer (a signed URL, a browser upload, a rendered response) and
/// the intent that must be stored before the answer may be given.
///
/// A front door answers `value` only from `keep`'s completion, which `IntentKeeper.handOff` calls once
/// the intent is committed (or with the reason it is not): so no URL is answered whose intent a crash
/// could lose or another instance could not find. A value with no intent (a HEAD, which answers no
/// URL) is kept at once.
public struct Pending<Value: Sendable>: Sendable {
    /// The answer to give once the intent is stored.
    public let value: Value
    /// The intent to store first; nil: nothing to store.
    let intent: UploadIntent?
    /// Where the intent goes.
    let keeper: IntentKeeper?

    /// `value`, to be answered once `intent` is stored by `keeper`.
    init(_ value: Value, intent: UploadIntent, keeper: IntentKeeper) {
        self.value = value
        self.intent = intent
        self.keeper = keeper
    }

    /// `value` with nothing to store: it may be answered at once.
    public init(kept value: Value) {
        self.value = value
        intent = nil
        keeper = nil
    }

    /// True when nothing has to be stored first (the value may be answered at once, on this thread).
    public var isKept: Bool { intent == nil }

    /// The same promise with `transform` applied to its value (rendering the answer before the commit).
    public func map<T: Sendable, E: Error>(_ transform: (Value) throws(E) -> T) throws(E) -> Pending<T> {
        let mapped = try transform(value)
        guard let intent, let keeper else { return Pending<T>(kept: mapped) }
        return Pending<T>(mapped, intent: intent, keeper: keeper)
    }

    /// Stores the intent (`IntentKeeper.handOff`), then calls `then` exactly once: nil when the value may
    /// be answered, else why not (no URL may be answered then). Never blocks: `then` runs later, on the
    /// intent writer's or its deadline thread (at once, on this thread, when nothing is to be stored or
    /// the queue refuses), and must not block either.
    public func keep(_ then: @escaping @Sendable (UploadError?) -> Void) {
        guard let intent, let keeper else { return then(nil) }
        keeper.handOff(intent, then: then)
    }
}
