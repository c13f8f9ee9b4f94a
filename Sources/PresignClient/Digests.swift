import Foundation

/// The SHA-256 and MD5 of bytes, taken while they are read, as presignd wants them declared
/// (`checksumSHA256`, `contentMD5`: base64): our own implementations of FIPS 180-4 and RFC 1321 on
/// every platform (the client may use nothing but the toolchain; CryptoKit is an Apple SDK framework).
public struct Digests: Sendable {
    private var sha = SHA256State()
    private var md = MD5State()
    /// Whether the MD5 is taken too.
    public let takesMD5: Bool
    /// Bytes absorbed.
    public private(set) var count: Int64 = 0

    /// Nothing absorbed yet; the MD5 is taken only when `md5` is set.
    public init(md5: Bool = true) { takesMD5 = md5 }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        count += Int64(bytes.count)
        sha.update(bytes)
        if takesMD5 { md.update(bytes) }
    }

    /// Absorbs `data`.
    public mutating func update(_ data: Data) { data.withUnsafeBytes { update($0) } }

    /// The digests of everything absorbed, base64: the SHA-256, and the MD5 when taken.
    public func finish() -> (sha256: String, md5: String?) {
        var s = sha
        var m = md
        let shaBytes = Data(s.finalize())
        let mdBytes = takesMD5 ? Data(m.finalize()) : nil
        return (shaBytes.base64EncodedString(), mdBytes?.base64EncodedString())
    }

    /// The digests of `length` bytes of `file` from `offset` (the whole file by default), read 1 MiB at a
    /// time (never whole into memory); `(sha256, md5, bytes read)`.
    public static func of(file: URL, offset: Int64 = 0, length: Int64? = nil, md5: Bool = true) throws -> (
        sha256: String, md5: String?, size: Int64
    ) {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: file)
        } catch {
            throw PresignClientError.file("\(file.path): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        var digests = Digests(md5: md5)
        do {
            if offset > 0 { try handle.seek(toOffset: UInt64(offset)) }
            var left = length ?? Int64.max
            while left > 0 {
                let want = Int(min(left, 1 << 20))
                guard let chunk = try handle.read(upToCount: want), !chunk.isEmpty else { break }
                digests.update(chunk)
                left -= Int64(chunk.count)
            }
        } catch {
            throw PresignClientError.file("\(file.path): \(error.localizedDescription)")
        }
        if let length, digests.count != length {
            throw PresignClientError.file("\(file.path): short read at \(offset) (the file changed?)")
        }
        let (sha256, md5Digest) = digests.finish()
        return (sha256, md5Digest, digests.count)
    }
}

/// SHA-256 (FIPS 180-4) over 64-byte blocks.
struct SHA256State: BlockDigest, Sendable {
    static let bigEndianLength = true
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    var pending = [UInt8]()
    var length: UInt64 = 0

    /// The round constants: the first 32 bits of the fractional parts of the cube roots of the first
    /// 64 primes.
    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    mutating func finalize() -> [UInt8] {
        pad()
        var out: [UInt8] = []
        for word in [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7] {
            out += [
                UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word),
            ]
        }
        return out
    }

    /// Mixes one 64-byte block in. Written for unoptimized builds too (a debug build of the CLI hashes
    /// every byte it sends): `while` loops, pointer arithmetic and same-type `&>>`/`&<<`, which stay
    /// machine operations without the optimizer, where ranges, buffer subscripts and mixed-type shifts
    /// are calls.
    mutating func block(_ chunk: UnsafeRawBufferPointer) {
        h = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            let w = schedule.baseAddress!
            let bytes = chunk.baseAddress!
            var i = 0
            while i < 16 {
                w[i] = bytes.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self).bigEndian
                i &+= 1
            }
            while i < 64 {
                let x = w[i &- 15]
                let y = w[i &- 2]
                let s0 = (x &>> 7 | x &<< 25) ^ (x &>> 18 | x &<< 14) ^ (x &>> 3)
                let s1 = (y &>> 17 | y &<< 15) ^ (y &>> 19 | y &<< 13) ^ (y &>> 10)
                w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
                i &+= 1
            }
            var (a, b, c, d, e, f, g, hh) = h
            Self.k.withUnsafeBufferPointer { constants in
                let k = constants.baseAddress!
                var i = 0
                while i < 64 {
                    let s1 = (e &>> 6 | e &<< 26) ^ (e &>> 11 | e &<< 21) ^ (e &>> 25 | e &<< 7)
                    let ch = (e & f) ^ (~e & g)
                    let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                    let s0 = (a &>> 2 | a &<< 30) ^ (a &>> 13 | a &<< 19) ^ (a &>> 22 | a &<< 10)
                    let maj = (a & b) ^ (a & c) ^ (b & c)
                    hh = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ (s0 &+ maj)
                    i &+= 1
                }
            }
            return (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
        }
    }
}

/// MD5 (RFC 1321) over 64-byte blocks; never for security, only the `Content-MD5` storage checks.
struct MD5State: BlockDigest, Sendable {
    static let bigEndianLength = false
    private var s: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    var pending = [UInt8]()
    var length: UInt64 = 0

    /// The per-round shift amounts.
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
        14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15,
        21, 6, 10, 15, 21,
    ]
    /// The constants: floor(|sin(i + 1)| × 2^32).
    private static let k: [UInt32] = (0..<64).map {
        UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296))
    }

    mutating func finalize() -> [UInt8] {
        pad()
        var out: [UInt8] = []
        for word in [s.0, s.1, s.2, s.3] {
            out += [
                UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word >> 16), UInt8(word >> 24),
            ]
        }
        return out
    }

    /// The message word each of the 64 steps takes.
    private static let wordIndex: [Int] = (0..<64).map { i in
        switch i {
        case 0..<16: i
        case 16..<32: (5 * i + 1) % 16
        case 32..<48: (3 * i + 5) % 16
        default: (7 * i) % 16
        }
    }

    /// Mixes one 64-byte block in; written as SHA-256's `block` is, for unoptimized builds too.
    mutating func block(_ chunk: UnsafeRawBufferPointer) {
        let m = chunk.baseAddress!
        var (a, b, c, d) = s
        Self.k.withUnsafeBufferPointer { constants in
            Self.shifts.withUnsafeBufferPointer { shiftTable in
                Self.wordIndex.withUnsafeBufferPointer { words in
                    let k = constants.baseAddress!
                    let shifts = shiftTable.baseAddress!
                    let g = words.baseAddress!
                    var i = 0
                    while i < 64 {
                        var f: UInt32
                        if i < 16 {
                            f = (b & c) | (~b & d)
                        } else if i < 32 {
                            f = (d & b) | (~d & c)
                        } else if i < 48 {
                            f = b ^ c ^ d
                        } else {
                            f = c ^ (b | ~d)
                        }
                        let word = UInt32(littleEndian: m.loadUnaligned(fromByteOffset: g[i] &* 4, as: UInt32.self))
                        f = f &+ a &+ k[i] &+ word
                        a = d
                        d = c
                        c = b
                        b = b &+ (f &<< shifts[i] | f &>> (32 &- shifts[i]))
                        i &+= 1
                    }
                }
            }
        }
        s = (s.0 &+ a, s.1 &+ b, s.2 &+ c, s.3 &+ d)
    }
}

/// A digest over 64-byte blocks whose padding ends with the message's length in bits (SHA-256, MD5):
/// the input's buffering into blocks and the padding are the same; the block function and the length's
/// byte order are each digest's own.
protocol BlockDigest {
    /// Input not yet a whole block.
    var pending: [UInt8] { get set }
    /// Bytes taken so far.
    var length: UInt64 { get set }
    /// Whether the padding's length is big-endian (SHA-256) or little-endian (MD5).
    static var bigEndianLength: Bool { get }
    /// Mixes one 64-byte block into the state.
    mutating func block(_ chunk: UnsafeRawBufferPointer)
}

extension BlockDigest {
    /// Takes `bytes`, a block at a time, keeping the rest for the next call.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var input = bytes[...]
        if !pending.isEmpty {
            let take = min(64 - pending.count, input.count)
            pending.append(contentsOf: input.prefix(take))
            input = input.dropFirst(take)
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { block($0) }
            pending.removeAll(keepingCapacity: true)
        }
        // Whole blocks straight from the input, by offset (slices cost calls per block in a debug build).
        let whole = UnsafeRawBufferPointer(rebasing: input)
        var offset = 0
        while whole.count &- offset >= 64 {
            block(UnsafeRawBufferPointer(start: whole.baseAddress! + offset, count: 64))
            offset &+= 64
        }
        pending.append(contentsOf: whole[offset...])
    }

    /// Takes the padding: 0x80, zeros up to 8 bytes before a block's end, the length in bits.
    mutating func pad() {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        tail += [UInt8](repeating: 0, count: (119 - Int(length % 64)) % 64)
        for i in 0..<8 {
            let shift = Self.bigEndianLength ? 56 - 8 * i : 8 * i
            tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        let saved = length
        tail.withUnsafeBytes { update($0) }
        length = saved
    }
}
