/// What `ClaimStore.claimIntent` found and did.
public enum ClaimOutcome: Sendable, Equatable {
    /// The claim is the caller's: new, the caller's own again (same token: the lease is renewed), or taken
    /// over from a claimant whose lease ran out (`tookOverFrom`, which may still be moving objects: settle
    /// idempotently, looking at both the upload and the permanent key).
    case won(IntentClaim, tookOverFrom: IntentClaim?)
    /// Another claimant holds a live claim: wait (bounded) and read `ClaimStore.claim` or the record again.
    case held(IntentClaim)
    /// The key has a record: answer from it (200 to its owner).
    case recorded(ImageRecord)
    /// The claim of this intent generation was settled without a record that still exists: `expired` (the
    /// janitor won: a confirmation answers 410 `INTENT_EXPIRED`) or `recorded` whose record was deleted since.
    case finished(IntentClaim)
}
