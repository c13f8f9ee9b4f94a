/// What `RecordStore.fillSlot` changed when it filled a slot, handed to the caller's event maker inside the
/// transaction (the events it returns are written in it).
public struct SlotFill: Sendable, Equatable {
    /// The owner's slot.
    public var slot: String
    /// The record the slot names now.
    public var record: ImageRecord
    /// True when `record` was inserted by this call (it was not recorded before).
    public var inserted: Bool
    /// The record the slot named before, if any.
    public var previous: ImageRecord?
    /// True when `previous` was deleted (`deletePrevious`); false when there was none.
    public var previousDeleted: Bool

    /// A fill from its fields (`previousDeleted` only with a `previous`).
    public init(slot: String, record: ImageRecord, inserted: Bool, previous: ImageRecord?, previousDeleted: Bool) {
        self.slot = slot
        self.record = record
        self.inserted = inserted
        self.previous = previous
        self.previousDeleted = previousDeleted && previous != nil
    }
}
