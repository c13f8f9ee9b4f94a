import Testing

@testable import App

/// Byte counts as error messages state them: exact, then in binary units.
@Suite("Byte count text")
struct ByteCountTextTests {
    /// (count, text).
    static let cases: [(Int64, String)] = [
        (0, "0 bytes"), (1, "1 byte"), (1000, "1000 bytes"), (1024, "1024 bytes (1 KiB)"),
        (1536, "1536 bytes (1.5 KiB)"), (10_485_760, "10485760 bytes (10 MiB)"),
        (20_971_520, "20971520 bytes (20 MiB)"), (5_368_709_120, "5368709120 bytes (5 GiB)"),
        (10_485_761, "10485761 bytes (10 MiB)"), (5_497_558_138_880, "5497558138880 bytes (5 TiB)"),
    ]

    @Test("exact bytes, then KiB to TiB with one decimal at most", arguments: 0..<cases.count)
    func text(_ index: Int) {
        let (count, expected) = Self.cases[index]
        #expect(ByteCountText.of(count) == expected)
    }

    @Test("the setting that raises a type's limit")
    func setting() {
        #expect(ByteCountText.maxBytesSetting(of: "PROFILE") == "types.PROFILE.maxBytes")
    }
}
