import Testing
import Uploads

/// `ReadWindow`: the signing instant is the start of the window that holds now, and the lifetime the
/// window plus the least life; the window shortened so that both fit in SigV4's 7 days.
@Suite("Read URL windows")
struct ReadWindowTests {
    /// (window, life, now, signed at, expires).
    static let cases: [(Int, Int, Int64, Int64, Int)] = [
        (3600, 3600, 1_795_942_771, 1_795_939_200, 7200),  // 08:59:31 -> 08:00:00
        (3600, 3600, 1_795_939_200, 1_795_939_200, 7200),  // on the boundary: its own window
        (3600, 3600, 1_795_942_799, 1_795_939_200, 7200),  // the window's last second
        (3600, 3600, 1_795_942_800, 1_795_942_800, 7200),  // the next window
        (2, 60, 1_795_942_771, 1_795_942_770, 62),
        (2, 60, 1_795_942_770, 1_795_942_770, 62),
        (86400, 600, 1_795_942_771, 1_795_910_400, 87000),  // the UTC day
        (7, 1, 20, 14, 8),  // a window that does not divide an hour
        (0, 3600, 1_795_942_771, 1_795_942_771, 3600),  // no window: the current second
        (0, 604_800, 1_795_942_771, 1_795_942_771, 604_800),
        // The window shortened to fit 7 days with the life.
        (604_000, 3600, 1_795_942_771, 1_795_942_771 - 1_795_942_771 % 601_200, 604_800),
        (3600, 604_800, 1_795_942_771, 1_795_942_771, 604_800),  // a life of 7 days leaves no window
    ]

    @Test("the window's start and the window plus the life", arguments: 0..<cases.count)
    func signing(_ index: Int) {
        let (window, life, now, signedAt, expires) = Self.cases[index]
        let got = ReadWindow(windowSeconds: window, lifeSeconds: life).signing(at: now)
        #expect(got.signedAt == signedAt)
        #expect(got.expires == expires)
    }

    @Test("every second of a window signs the same instant and lifetime, and leaves at least the life")
    func wholeWindow() {
        let window = ReadWindow(windowSeconds: 60, lifeSeconds: 30)
        let start: Int64 = 1_795_942_740
        for now in start..<(start + 60) {
            let got = window.signing(at: now)
            #expect(got.signedAt == start && got.expires == 90)
            #expect(got.signedAt + Int64(got.expires) - now >= 30)
        }
        #expect(window.signing(at: start + 60).signedAt == start + 60)
        #expect(window.signing(at: start - 1).signedAt == start - 60)
    }
}
