/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, so randomized tests repeat exactly and
/// a failing case can be replayed from its seed.
public struct SplitMix64: RandomNumberGenerator {
    /// The generator's whole state.
    public var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix64 {
    /// `count` bytes of the generator started from `seed`, eight per step (each step's 64 bits in
    /// little-endian order): the deterministic filler of the tests' large uploads. Written through a
    /// raw buffer, which the debug build the tests run in still makes fast (a byte per `next()` through
    /// `map` had cost seconds of CPU per upload).
    public static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { raw in
            let words = count / 8
            for i in 0..<words { raw.storeBytes(of: rng.next().littleEndian, toByteOffset: i * 8, as: UInt64.self) }
            var last = rng.next()
            for i in (words * 8)..<count {
                raw[i] = UInt8(truncatingIfNeeded: last)
                last >>= 8
            }
        }
        return out
    }
}
