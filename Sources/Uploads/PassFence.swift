/// What a background pass (the intent janitor, the multipart janitor, the reconciler, the event processor)
/// checks before each item it handles: whether it may go on. A pass that no longer holds stops where it
/// is, leaving the rest for the next pass.
///
/// The seam for running passes under a lease shared by several instances: whoever schedules a pass hands
/// it a fence that holds while its lease (and fencing token) does. Every write a pass makes to an intent
/// is fenced by that intent's claim as well, so a pass that overruns its lease settles nothing another
/// claimant holds.
public struct PassFence: Sendable {
    private let check: @Sendable () -> Bool

    /// A fence that holds while `check` says so.
    public init(_ check: @escaping @Sendable () -> Bool) { self.check = check }

    /// A fence that always holds: one instance, or passes whose every write is fenced by claims.
    public static let always = PassFence { true }

    /// Whether the pass may handle its next item.
    public var holds: Bool { check() }
}
