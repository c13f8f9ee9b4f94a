/// Who holds, or held, the right to settle one intent: the row a claim writes (schema version 7).
///
/// A claim is fenced by its `token` (a fresh random value per claim, chosen by the claimant): every write
/// that settles the intent names the token, and a write whose token no longer holds changes nothing. A
/// claim whose lease ran out can be taken over by another claimant with a new token.
public struct IntentClaim: Sendable, Equatable {
    /// Where a claim stands.
    public enum State: String, Sendable, Equatable {
        /// Held: the claimant is settling the intent (until `leaseUntilMs`, then others may take it over).
        case claimed
        /// Settled by a record (`recordId`).
        case recorded
        /// Settled by the janitor: the intent expired, its objects were deleted, the intent removed.
        case expired
    }

    /// The intent's image key.
    public var imageKey: String
    /// The `createdAtMs` of the intent claimed: a re-issued key (a new intent) is a new generation, which an
    /// old finished claim does not bind.
    public var intentCreatedAtMs: Int64
    /// Who claimed it (`ClaimRequest.Claimant`'s raw value: `confirm`, `janitor`, `event`, `reconciler`).
    public var claimant: String
    /// The fence token of the claim.
    public var token: String
    /// Where it stands.
    public var state: State
    /// Until when the claim is held; after it, another claimant may take it over.
    public var leaseUntilMs: Int64
    /// When it was claimed (by this token).
    public var claimedAtMs: Int64
    /// When it last changed.
    public var updatedAtMs: Int64
    /// The record that settled it (`recorded`).
    public var recordId: String?
    /// Why it was settled that way, when the claimant said (`expired`: e.g. `unconfirmed`).
    public var reason: String?

    /// A claim from its fields.
    public init(
        imageKey: String, intentCreatedAtMs: Int64, claimant: String, token: String, state: State,
        leaseUntilMs: Int64, claimedAtMs: Int64, updatedAtMs: Int64, recordId: String? = nil, reason: String? = nil
    ) {
        self.imageKey = imageKey
        self.intentCreatedAtMs = intentCreatedAtMs
        self.claimant = claimant
        self.token = token
        self.state = state
        self.leaseUntilMs = leaseUntilMs
        self.claimedAtMs = claimedAtMs
        self.updatedAtMs = updatedAtMs
        self.recordId = recordId
        self.reason = reason
    }
}
