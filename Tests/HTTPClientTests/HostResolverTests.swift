import Foundation
import Synchronization
import Testing

@testable import HTTPClient

/// Name resolution bounded by the caller's deadline, shared between callers and cached. The lookups
/// here are fakes that block until the test lets them go, so no test depends on a timing: a caller
/// that returns while its lookup is still blocked can only have returned at its deadline.
@Suite struct HostResolverTests {
    /// A lookup that counts its calls and blocks until `release()`.
    final class GatedLookup: @unchecked Sendable {
        let calls = Atomic<Int>(0)
        private let gate = DispatchSemaphore(value: 0)
        let answer: Result<[ResolvedAddress], HTTPClientError>

        init(_ answer: Result<[ResolvedAddress], HTTPClientError>) { self.answer = answer }

        var lookup: HostResolver.Lookup {
            { [self] _, _ in
                calls.add(1, ordering: .relaxed)
                gate.wait()
                return answer
            }
        }

        /// Lets `count` blocked or future lookups finish.
        func release(_ count: Int = 1) { for _ in 0..<count { gate.signal() } }
    }

    static let address = ResolvedAddress(
        family: AF_INET, bytes: [2, 0, 0, 80, 127, 0, 0, 1] + [UInt8](repeating: 0, count: 8))

    @Test func aLookupThatHangsCostsTheCallerOnlyItsDeadline() throws {
        let gated = GatedLookup(.success([Self.address]))
        let resolver = HostResolver(lookup: gated.lookup)
        #expect {
            try resolver.resolve(host: "hangs.example", port: 80, deadline: .after(milliseconds: 50))
        } throws: { error in
            guard case .timeout = error as? HTTPClientError else { return false }
            return true
        }
        // Still blocked: the caller left at its deadline. (On a busy host the lookup's thread may begin
        // only after the deadline passed: wait for it.)
        for _ in 0..<30_000 where gated.calls.load(ordering: .relaxed) == 0 { usleep(1_000) }
        #expect(gated.calls.load(ordering: .relaxed) == 1)
        gated.release()
        // Once it answers, the answer is there for the next caller, without another lookup.
        #expect(
            try resolver.resolve(host: "hangs.example", port: 80, deadline: .after(milliseconds: 5_000)) == [
                Self.address
            ])
        #expect(gated.calls.load(ordering: .relaxed) == 1)
    }

    @Test func concurrentCallersShareOneLookup() throws {
        let gated = GatedLookup(.success([Self.address]))
        // No cache: a caller arriving after the answer would start a lookup of its own and be counted.
        let resolver = HostResolver(cacheMilliseconds: 0, lookup: gated.lookup)
        let results = Mutex<[[ResolvedAddress]]>([])
        let group = DispatchGroup()
        // A thread each (Dispatch's pool on a 2-CPU machine starts only about two blocking jobs at once).
        for _ in 0..<8 {
            group.enter()
            Thread {
                if let a = try? resolver.resolve(host: "s3.example", port: 443, deadline: .after(milliseconds: 60_000))
                {
                    results.withLock { $0.append(a) }
                }
                group.leave()
            }.start()
        }
        // Wait until all eight wait on the one lookup (the event itself) and the lookup's own thread has
        // begun (a busy host may run it only after the callers piled up), then answer it.
        var piled = false
        for _ in 0..<30_000 where !piled {
            piled = resolver.waitingCallers == 8 && gated.calls.load(ordering: .relaxed) >= 1
            if !piled { usleep(1_000) }
        }
        #expect(piled, "eight callers wait on the lookup, which has begun")
        #expect(gated.calls.load(ordering: .relaxed) == 1)
        gated.release()
        group.wait()
        #expect(gated.calls.load(ordering: .relaxed) == 1)
        #expect(results.withLock { $0 } == Array(repeating: [Self.address], count: 8))
    }

    @Test func failuresAreNotKeptAndAnswersExpire() throws {
        let failing = GatedLookup(.failure(.connection("cannot resolve nx.example: Name or service not known")))
        failing.release(2)
        let resolver = HostResolver(lookup: failing.lookup)
        for _ in 0..<2 {
            #expect(throws: HTTPClientError.self) {
                try resolver.resolve(host: "nx.example", port: 80, deadline: .after(milliseconds: 5_000))
            }
        }
        #expect(failing.calls.load(ordering: .relaxed) == 2)
        let answering = GatedLookup(.success([Self.address]))
        answering.release(2)
        let expiring = HostResolver(cacheMilliseconds: 0, lookup: answering.lookup)
        _ = try expiring.resolve(host: "s3.example", port: 80, deadline: .after(milliseconds: 5_000))
        _ = try expiring.resolve(host: "s3.example", port: 80, deadline: .after(milliseconds: 5_000))
        #expect(answering.calls.load(ordering: .relaxed) == 2)
    }

    @Test func theSystemLookupFindsLocalhostAndRefusesANameThatCannotExist() {
        let local = try? HostResolver.systemLookup(host: "localhost", port: 9).get()
        #expect(local?.isEmpty == false)
        #expect(local?.allSatisfy { $0.family == AF_INET || $0.family == AF_INET6 } == true)
        // RFC 6761: .invalid never resolves.
        #expect((try? HostResolver.systemLookup(host: "no-such-host.invalid", port: 9).get()) == nil)
    }
}
