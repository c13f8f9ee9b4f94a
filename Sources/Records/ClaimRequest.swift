/// One claimant asking to settle one intent (`ClaimStore.claimIntent`).
public struct ClaimRequest: Sendable, Equatable {
    /// The paths that settle intents.
    public enum Claimant: String, Sendable, Equatable, CaseIterable {
        /// `POST /images` (and the routes that confirm as it does).
        case confirm
        /// The intent janitor, deleting an expired intent's objects.
        case janitor
        /// The store's own upload event (RGW, MinIO, SNS).
        case event
        /// The reconciler's sweep of the upload prefixes.
        case reconciler
    }

    /// The intent's image key.
    public var imageKey: String
    /// The `createdAtMs` of the intent the claimant read (its generation).
    public var intentCreatedAtMs: Int64
    /// Who asks.
    public var claimant: Claimant
    /// A fresh random token for this claim (a UUID); the claimant names it in every later write.
    public var token: String
    /// Now, in epoch milliseconds.
    public var nowMs: Int64
    /// How long the claim holds before another claimant may take it over; longer than the slowest step
    /// the claimant takes while holding it (a copy of the largest object), or renewed
    /// (`ClaimStore.renewClaim`) before it runs out.
    public var leaseMs: Int64

    /// A request from its fields.
    public init(
        imageKey: String, intentCreatedAtMs: Int64, claimant: Claimant, token: String, nowMs: Int64, leaseMs: Int64
    ) {
        self.imageKey = imageKey
        self.intentCreatedAtMs = intentCreatedAtMs
        self.claimant = claimant
        self.token = token
        self.nowMs = nowMs
        self.leaseMs = leaseMs
    }
}
