/// The state of a `Monitor` seen from a body that may wait: every access goes through the pointer.
///
/// A body that waits must not hold the state as an `inout` argument: the compiler may assume an `inout`
/// value does not change during the call and keep it in registers across `wait()`, while other threads
/// change it meanwhile (seen: two threads given the same pooled connection in a release build). Reading
/// through the pointer on every access forces a reload after each wait.
@dynamicMemberLookup
public struct LockedState<State> {
    /// The monitor's state; valid only inside that monitor's `withLock`.
    let pointer: UnsafeMutablePointer<State>

    /// Reads or changes one property of the state.
    public subscript<T>(dynamicMember path: WritableKeyPath<State, T>) -> T {
        get { pointer.pointee[keyPath: path] }
        nonmutating _modify { yield &pointer.pointee[keyPath: path] }
    }

    /// The whole state.
    public var value: State {
        get { pointer.pointee }
        nonmutating _modify { yield &pointer.pointee }
    }
}
