import CloudCredentials
import Crypto
import Foundation
import SigV4
import Synchronization
import Testing

/// A provider answering from a script, counting its calls.
final class ScriptedProvider: CredentialsProvider {
    let name = "scripted"
    /// The answers still to give; the last is repeated.
    private let answers: Mutex<[Result<ProvidedCredentials, CredentialsError>]>
    /// Calls so far.
    private let calls = Mutex(0)

    init(_ answers: [Result<ProvidedCredentials, CredentialsError>]) {
        self.answers = Mutex(answers)
    }

    var callCount: Int { calls.withLock { $0 } }

    /// Replaces the remaining answers with `answer`.
    func replace(with answer: Result<ProvidedCredentials, CredentialsError>) { answers.withLock { $0 = [answer] } }

    func fetch() throws(CredentialsError) -> ProvidedCredentials {
        calls.withLock { $0 += 1 }
        let answer = answers.withLock { answers in answers.count > 1 ? answers.removeFirst() : answers[0] }
        return try answer.get()
    }

    /// Temporary credentials named `id` expiring at `expiration`.
    static func credentials(_ id: String, expiration: Int64?) -> ProvidedCredentials {
        ProvidedCredentials(
            credentials: Credentials(
                accessKeyId: id, secretAccessKey: Secret("secret-\(id)"), sessionToken: Secret("token-\(id)"),
                expiration: expiration), provider: "scripted", origins: [])
    }
}

/// Collects what a refresher reports.
final class Recorder: Sendable {
    private let state = Mutex((events: [RefreshEvent](), rotations: [String]()))
    var events: [RefreshEvent] { state.withLock { $0.events } }
    var rotations: [String] { state.withLock { $0.rotations } }
    func record(_ event: RefreshEvent) { state.withLock { $0.events.append(event) } }
    func rotate(_ credentials: Credentials) { state.withLock { $0.rotations.append(credentials.accessKeyId) } }
}

/// The refresher, driven by an injected clock: no sleeping.
@Suite struct CredentialsRefresherTests {
    static let start = TestWorld.start
    static let failure = CredentialsError.transport(provider: "scripted", .timeout("connect"))

    /// A refresher over `provider` starting with credentials `A` expiring in an hour.
    static func refresher(_ world: TestWorld, _ provider: ScriptedProvider, _ recorder: Recorder)
        -> CredentialsRefresher
    {
        CredentialsRefresher(
            provider: provider, initial: ScriptedProvider.credentials("A", expiration: start + 3600),
            now: { world.now }, random: { _ in 60 }, onRotate: recorder.rotate, onEvent: recorder.record)
    }

    @Test func refreshesFifteenMinutesAndTheJitterBeforeExpiry() {
        let world = TestWorld()
        let recorder = Recorder()
        let provider = ScriptedProvider([.success(ScriptedProvider.credentials("B", expiration: Self.start + 7200))])
        let refresher = Self.refresher(world, provider, recorder)
        let due = Self.start + 3600 - 900 - 60
        #expect(refresher.nextRefresh == due)
        #expect(refresher.current()?.accessKeyId == "A")

        world.set(due - 1)
        #expect(!refresher.refreshIfDue())
        #expect(provider.callCount == 0)

        world.set(due)
        #expect(refresher.refreshIfDue())
        #expect(provider.callCount == 1)
        #expect(refresher.current()?.accessKeyId == "B")
        #expect(recorder.rotations == ["B"])
        #expect(refresher.nextRefresh == Self.start + 7200 - 960)
        #expect(
            recorder.events == [
                .refreshed(
                    provider: "scripted", changed: true, expiration: Self.start + 7200,
                    nextRefresh: Self.start + 7200 - 960)
            ])
        #expect(refresher.refreshCount == 1 && refresher.failureCount == 0)
    }

    @Test func keepsTheOldCredentialsUntilTheyReallyExpireWhenRefreshesFail() {
        let world = TestWorld()
        let recorder = Recorder()
        let provider = ScriptedProvider([.failure(Self.failure)])
        let refresher = Self.refresher(world, provider, recorder)
        world.set(Self.start + 3600 - 960)
        #expect(refresher.refreshIfDue())
        #expect(refresher.current()?.accessKeyId == "A", "still valid: kept")
        #expect(refresher.hasValidCredentials)
        #expect(refresher.failureCount == 1)
        guard case .refreshFailed(_, let error, 1, let retryAt, Self.start + 3600) = recorder.events.last else {
            Issue.record("expected a refresh warning, got \(recorder.events)"); return
        }
        #expect(error == Self.failure)
        #expect(retryAt == world.now + 10, "equal jitter: 5 + min(60, 5) with the injected random")

        // Keep failing until past the expiration.
        var attempts = 1
        while world.now < Self.start + 3600 {
            world.set(refresher.nextRefresh!)
            #expect(refresher.refreshIfDue())
            attempts += 1
        }
        #expect(refresher.failureCount == attempts)
        #expect(refresher.current() == nil, "expired credentials are never handed out")
        #expect(!refresher.hasValidCredentials)
        #expect(refresher.held?.credentials.accessKeyId == "A")
        #expect(
            recorder.events.filter { if case .expired = $0 { return true } else { return false } } == [
                .expired(provider: "scripted", expiration: Self.start + 3600)
            ])
        #expect(recorder.rotations.isEmpty)

        // A later success brings valid credentials back.
        provider.replace(with: .success(ScriptedProvider.credentials("C", expiration: world.now + 3600)))
        world.set(refresher.nextRefresh!)
        #expect(refresher.refreshIfDue())
        #expect(refresher.current()?.accessKeyId == "C")
        #expect(recorder.rotations == ["C"])
    }

    @Test func theSameCredentialsAgainAreNotARotation() {
        let world = TestWorld()
        let recorder = Recorder()
        let same = ScriptedProvider.credentials("A", expiration: Self.start + 3600)
        let provider = ScriptedProvider([.success(same)])
        let refresher = Self.refresher(world, provider, recorder)
        world.set(Self.start + 3600 - 960)
        #expect(refresher.refreshIfDue())
        #expect(recorder.rotations.isEmpty)
        #expect(refresher.nextRefresh == world.now + 60, "asked again after the minimum interval")
        #expect(
            recorder.events == [
                .refreshed(
                    provider: "scripted", changed: false, expiration: Self.start + 3600, nextRefresh: world.now + 60)
            ])
    }

    @Test func startsWithoutCredentialsAndFetchesAtOnce() {
        let world = TestWorld()
        let recorder = Recorder()
        let provider = ScriptedProvider([
            .failure(Self.failure), .success(ScriptedProvider.credentials("B", expiration: Self.start + 900)),
        ])
        let refresher = CredentialsRefresher(
            provider: provider, initial: nil, now: { world.now }, random: { _ in 0 }, onRotate: recorder.rotate,
            onEvent: recorder.record)
        #expect(!refresher.hasValidCredentials && refresher.current() == nil)
        #expect(refresher.refreshIfDue())
        #expect(!refresher.hasValidCredentials)
        #expect(
            recorder.events.last
                == .refreshFailed(
                    provider: "scripted", error: Self.failure, consecutiveFailures: 1, retryAt: Self.start + 5,
                    heldExpiration: nil))
        world.advance(5)
        #expect(refresher.refreshIfDue())
        #expect(refresher.current()?.accessKeyId == "B")
        #expect(recorder.rotations == ["B"])
    }

    @Test func longTermKeysAreNeverRefreshed() {
        let world = TestWorld()
        let provider = ScriptedProvider([.failure(Self.failure)])
        let refresher = CredentialsRefresher(
            provider: provider, initial: ScriptedProvider.credentials("STATIC", expiration: nil), now: { world.now },
            random: { _ in 0 })
        world.advance(365 * 86_400)
        #expect(refresher.nextRefresh == nil)
        #expect(!refresher.refreshIfDue())
        #expect(refresher.current()?.accessKeyId == "STATIC")
        #expect(provider.callCount == 0)
    }

    @Test func rotationReachesTheSignerBeforeCurrentReturnsIt() {
        let world = TestWorld()
        let seen = Mutex<String?>(nil)
        let holder = Mutex<CredentialsRefresher?>(nil)
        let provider = ScriptedProvider([.success(ScriptedProvider.credentials("B", expiration: Self.start + 7200))])
        let refresher = CredentialsRefresher(
            provider: provider, initial: ScriptedProvider.credentials("A", expiration: Self.start + 3600),
            now: { world.now }, random: { _ in 0 },
            onRotate: { _ in seen.withLock { $0 = holder.withLock { $0 }?.current()?.accessKeyId } })
        holder.withLock { $0 = refresher }
        world.set(refresher.nextRefresh!)
        refresher.refreshIfDue()
        #expect(seen.withLock { $0 } == "A", "during onRotate, current() still gave the old credentials")
        #expect(refresher.current()?.accessKeyId == "B")
        holder.withLock { $0 = nil }
    }

    @Test func theBackgroundThreadRefreshesWhenDueAndStops() async throws {
        let world = TestWorld()
        let recorder = Recorder()
        let provider = ScriptedProvider([.success(ScriptedProvider.credentials("B", expiration: Self.start + 7200))])
        // The refresh thread's kernel task (from /proc/thread-self, read inside the rotation it runs).
        let refreshTask = Mutex<String?>(nil)
        let refresher = CredentialsRefresher(
            provider: provider, initial: ScriptedProvider.credentials("A", expiration: Self.start + 3600),
            now: { world.now }, random: { _ in 60 },
            onRotate: { credentials in
                refreshTask.withLock { $0 = Self.currentTask() }
                recorder.rotate(credentials)
            }, onEvent: recorder.record)
        world.set(refresher.nextRefresh!)
        refresher.start()
        var waited = 0
        while recorder.rotations.isEmpty && waited < 3000 {
            try await Task.sleep(nanoseconds: 10_000_000)
            waited += 1
        }
        #expect(recorder.rotations == ["B"], "the thread refreshed when due")
        let task = try #require(refreshTask.withLock { $0 }, "the rotation ran on the refresh thread")
        #expect(task != Self.currentTask(), "not on the test's thread")
        refresher.stop()
        #expect(provider.callCount == 1, "refreshed once, then waiting for the next due time")
        #expect(refresher.current()?.accessKeyId == "B")
        // Stopped means the thread is gone (the event itself), not that nothing happened for a while:
        // its task leaves /proc once it has exited (at the latest just after the join returns).
        var gone = false
        for _ in 0..<3000 where !gone {
            gone = !FileManager.default.fileExists(atPath: "/proc/self/" + task)
            if !gone { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        #expect(gone, "the refresh thread (\(task)) ended when stop() returned")
    }

    /// `task/<tid>` of the calling thread, from the `/proc/thread-self` link (`<pid>/task/<tid>`).
    static func currentTask() -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else {
            return nil
        }
        let parts = target.split(separator: "/")
        guard parts.count == 3, parts[1] == "task" else { return nil }
        return "task/" + parts[2]
    }
}
