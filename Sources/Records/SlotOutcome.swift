/// What making a record the current one of an owner's slot did (`RecordStore.fillSlot`).
///
/// A slot is a named place an owner holds one image in ("profile", "quest:12"): the compatibility
/// routes replace a user's profile image or a quest's image through it.
public enum SlotOutcome: Sendable, Equatable {
    /// The record already is the slot's current one: an idempotent repeat, nothing changed.
    case unchanged(ImageRecord)
    /// The record now fills the slot (inserted now, or an existing record of the owner moved in);
    /// `previous` is the record it took the place of (nil when the slot was empty). When the call asked
    /// for it, `previous` was deleted in the same transaction and its object queued in the pending
    /// deletions; `objectToDelete` is then that object's key, for the caller to delete from storage
    /// and then pass to `finishObjectDeletions`.
    case filled(ImageRecord, previous: ImageRecord?, objectToDelete: String?)
    /// The image key is recorded by another owner; nothing changed.
    case recordedByAnotherUser(ImageRecord)
    /// The image key is recorded by this owner in another slot; nothing changed.
    case inAnotherSlot(ImageRecord, slot: String)
}
