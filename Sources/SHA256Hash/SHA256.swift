import CSHA256

/// SHA-256 (FIPS 180-4), streaming: the content hash that names the media store's files
/// (see `MediaKey`). With the CPU's SHA instructions (x86-64 SHA extensions, `CSHA256`)
/// when it has them, ~1.4 GB/s on this machine (`segmance-bench library`); else in Swift,
/// ~200 MB/s in a release build.
public struct SHA256: Sendable {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// Bytes not yet hashed (less than one block).
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// Whether the blocks go through the CPU's SHA instructions.
    let accelerated: Bool

    /// Whether this CPU has the SHA instructions the hasher uses when it can.
    public static let instructionsAvailable = segmance_sha256_blocks_available() != 0

    public init() { self.init(accelerated: Self.instructionsAvailable) }

    /// A hasher that uses the CPU's SHA instructions only when `accelerated` (and the CPU
    /// has them): tests compare both ways of computing.
    init(accelerated: Bool) {
        self.accelerated = accelerated && Self.instructionsAvailable
        pending.reserveCapacity(64)
    }

    /// The digest of `bytes` in lower-case hex.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256()
        let array = Array(bytes)
        array.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize().hex
    }

    /// Hashes more bytes.
    public mutating func update(_ data: UnsafeRawBufferPointer) {
        guard var base = data.baseAddress else { return }
        var count = data.count
        length &+= UInt64(count)
        if !pending.isEmpty {
            let take = min(64 - pending.count, count)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            base += take
            count -= take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0.baseAddress!, blocks: 1) }
            pending.removeAll(keepingCapacity: true)
        }
        let blocks = count / 64
        if blocks > 0 { compress(base, blocks: blocks) }
        let rest = count - blocks * 64
        if rest > 0 { pending.append(contentsOf: UnsafeRawBufferPointer(start: base + blocks * 64, count: rest)) }
    }

    /// Hashes more 16-bit samples, as the little-endian bytes stored on disk.
    public mutating func update(_ samples: UnsafeBufferPointer<Int16>) {
        #if _endian(little)
        update(UnsafeRawBufferPointer(samples))
        #else
        for s in samples { withUnsafeBytes(of: s.littleEndian) { update($0) } }
        #endif
    }

    /// The 32-byte digest. The hasher is spent afterwards.
    public mutating func finalize() -> Digest {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        let padding = (pending.count + 1 + 8 <= 64 ? 64 : 128) - pending.count - 1 - 8
        tail += [UInt8](repeating: 0, count: padding)
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        let block = pending + tail
        block.withUnsafeBytes { compress($0.baseAddress!, blocks: block.count / 64) }
        pending.removeAll()
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7] {
            out += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                    UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        return Digest(bytes: out)
    }

    /// A finished digest.
    public struct Digest: Hashable, Sendable, CustomStringConvertible {
        public let bytes: [UInt8]
        /// Lower-case hexadecimal, 64 characters.
        public var hex: String {
            let digits = Array("0123456789abcdef".utf8)
            var chars: [UInt8] = []
            chars.reserveCapacity(64)
            for b in bytes {
                chars.append(digits[Int(b >> 4)])
                chars.append(digits[Int(b & 15)])
            }
            return String(decoding: chars, as: UTF8.self)
        }
        public var description: String { hex }
    }

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private mutating func compress(_ data: UnsafeRawPointer, blocks: Int) {
        if accelerated {
            // A tuple of eight UInt32 is laid out as the C function's uint32_t[8].
            withUnsafeMutableBytes(of: &h) { state in
                segmance_sha256_blocks(state.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                       data.assumingMemoryBound(to: UInt8.self), blocks)
            }
            return
        }
        var (h0, h1, h2, h3, h4, h5, h6, h7) = h
        Self.k.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                for block in 0..<blocks {
                    let p = data + block * 64
                    for i in 0..<16 {
                        w[i] = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                    }
                    for i in 16..<64 {
                        let x = w[i - 15], y = w[i - 2]
                        let s0 = Self.rotr(x, 7) ^ Self.rotr(x, 18) ^ (x >> 3)
                        let s1 = Self.rotr(y, 17) ^ Self.rotr(y, 19) ^ (y >> 10)
                        w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                    }
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, hh = h7
                    for i in 0..<64 {
                        let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                        let ch = (e & f) ^ (~e & g)
                        let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                        let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                        let maj = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = s0 &+ maj
                        hh = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ t2
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d
                    h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= hh
                }
            }
        }
        h = (h0, h1, h2, h3, h4, h5, h6, h7)
    }
}
