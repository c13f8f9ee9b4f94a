#if canImport(Glibc)
    import Glibc
#endif

/// Work put off to the end of the current event-loop turn: what one thread hands another (the intent
/// writer's wake-up, say) is handed over once per turn, after the loop has handled every event of its
/// `epoll_wait`, instead of once per request.
///
/// Why: on one core, waking the writer for the first intent of a turn lets it preempt the loop and
/// commit that intent alone, then wake the loop again: two context switches and a whole commit per
/// request. Waking it at the end of the turn hands it everything the turn queued, in one commit, and
/// adds at most one turn to the wait. On any other thread (a worker, a test) the action runs at once.
///
/// An event loop adopts a `TurnEndQueue` for its thread (`LoopTurn.adopt`) and runs it at the end of
/// each turn (`TurnEndQueue.runAll`); `LoopTurn.atTurnEnd` finds it through thread-specific data.
public enum LoopTurn {
    /// Makes `queue` the calling thread's: `atTurnEnd` calls on this thread add to it until `leave`.
    /// The caller keeps `queue` alive meanwhile.
    public static func adopt(_ queue: TurnEndQueue) {
        pthread_setspecific(turnKey, Unmanaged.passUnretained(queue).toOpaque())
    }

    /// Ends the adoption of the calling thread's queue (its actions must have run).
    public static func leave() {
        pthread_setspecific(turnKey, nil)
    }

    /// On a thread that adopted a queue: `action` runs once when its turn ends (added twice in a turn,
    /// it still runs once). On any other thread: now.
    public static func atTurnEnd(_ action: TurnEndAction) {
        if let pointer = pthread_getspecific(turnKey) {
            Unmanaged<TurnEndQueue>.fromOpaque(pointer).takeUnretainedValue().add(action)
        } else {
            action.run()
        }
    }
}

/// The key of the calling thread's `TurnEndQueue` (made once, never deleted).
private let turnKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
    return key
}()

/// Something to do at the end of an event-loop turn (`LoopTurn.atTurnEnd`); made once and reused, since
/// a turn runs each action once however often it was added.
public final class TurnEndAction: Sendable {
    /// The work.
    let body: @Sendable () -> Void

    /// An action that runs `body`.
    public init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    /// Runs it now.
    public func run() { body() }
}

/// One event loop's actions for the end of its turn; used on that loop's thread only.
public final class TurnEndQueue {
    /// The actions added in this turn, each once.
    private var actions: [TurnEndAction] = []

    /// An empty queue.
    public init() {}

    /// Adds `action` unless this turn has it already (a turn holds a handful at most).
    func add(_ action: TurnEndAction) {
        for queued in actions where queued === action { return }
        actions.append(action)
    }

    /// Whether an action waits for the end of the turn.
    public var isEmpty: Bool { actions.isEmpty }

    /// Runs the actions added in this turn, oldest first, and empties the queue (the loop, at the end of
    /// each turn). An action that adds another runs it in the same call.
    public func runAll() {
        var index = 0
        while index < actions.count {
            actions[index].run()
            index += 1
        }
        actions.removeAll(keepingCapacity: true)
    }
}
