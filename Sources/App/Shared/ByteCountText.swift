/// A byte count as error messages state it: the exact number, and in binary units when it is at least
/// 1 KiB (`10485760 bytes (10 MiB)`, `1536 bytes (1.5 KiB)`), so a reader can compare it with a setting.
enum ByteCountText {
    /// `count` in words.
    static func of(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var unit = -1
        var scaled = Double(count)
        while scaled >= 1024, unit < units.count - 1 {
            scaled /= 1024
            unit += 1
        }
        guard unit >= 0 else { return count == 1 ? "1 byte" : "\(count) bytes" }
        // One decimal at most, without a trailing ".0".
        let tenths = Int64((scaled * 10).rounded())
        let shown = tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
        return "\(count) bytes (\(shown) \(units[unit]))"
    }

    /// The setting that holds upload type `type`'s size limit.
    static func maxBytesSetting(of type: String) -> String { "types.\(type).maxBytes" }
}
