import Testing

@testable import App

/// The readiness clock check: how far this server's clock may be from the storage server's.
@Suite struct ClockSkewTests {
    @Test(arguments: [
        // (storage's Date in seconds, our clock in ms, allowed s, problem expected)
        (Int64(1_000), Int64(1_000_000), 300, false),
        (1_000, 1_300_999, 300, false),  // 300 s ahead, within the allowance (whole seconds)
        (1_000, 1_301_000, 300, true),  // 301 s ahead
        (1_301, 1_000_000, 300, true),  // 301 s behind
        (1_300, 1_000_000, 300, false),
        (0, -1, 1, false),  // -1 ms is second -1
        (2, -1, 1, true),
    ])
    func allowance(server: Int64, nowMillis: Int64, maxSeconds: Int, problem: Bool) {
        #expect(
            (ClockSkew.problem(serverEpochSeconds: server, nowMillis: nowMillis, maxSeconds: maxSeconds) != nil)
                == problem)
    }

    @Test func theProblemSaysWhichWayAndByHowMuch() {
        #expect(
            ClockSkew.problem(serverEpochSeconds: 1_000, nowMillis: 8_200_000, maxSeconds: 300)
                == "this server's clock is 7200 s ahead of the storage server's (allowed: 300 s)")
        #expect(
            ClockSkew.problem(serverEpochSeconds: 8_200, nowMillis: 1_000_000, maxSeconds: 60)
                == "this server's clock is 7200 s behind the storage server's (allowed: 60 s)")
    }
}
