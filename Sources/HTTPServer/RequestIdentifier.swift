/// Rules for request ids taken from clients.
public enum RequestIdentifier {
    /// 1 to 128 characters of `[A-Za-z0-9._:-]`.
    public static func isWellFormed(_ s: String) -> Bool {
        let u = s.utf8
        guard !u.isEmpty, u.count <= 128 else { return false }
        for b in u {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"),
                UInt8(ascii: "-"):
                continue
            default: return false
            }
        }
        return true
    }
}
