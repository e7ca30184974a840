@testable import SHA256Hash
@testable import SegmanceLibrary
import Testing

/// Known vectors from FIPS 180-4 / NIST CSHA and the boundaries of the padding rule.
@Suite(.tags(.unit)) struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        ("The quick brown fox jumps over the lazy dog",
         "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"),
    ])
    func knownVectors(input: String, digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
    }

    @Test func oneMillionAs() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { chunk.withUnsafeBytes { hasher.update($0) } }
        #expect(hasher.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Feeding the same bytes in uneven pieces gives the digest of feeding them at once,
    /// across every padding boundary (55, 56, 63, 64, 65 bytes…).
    @Test(arguments: [1, 7, 55, 56, 63, 64, 65, 119, 120, 128, 1000])
    func piecewiseEqualsWhole(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.hex(bytes)
        var hasher = SHA256()
        var offset = 0
        var step = 1
        while offset < bytes.count {
            let end = min(bytes.count, offset + step)
            bytes[offset..<end].withUnsafeBytes { hasher.update($0) }
            offset = end
            step = step * 3 % 17 + 1
        }
        #expect(hasher.finalize().hex == whole)
    }

    @Test func samplesHashAsTheirLittleEndianBytes() {
        let samples: [Int16] = [1, -2, 0x1234, .min, .max]
        var hasher = SHA256()
        samples.withUnsafeBufferPointer { hasher.update($0) }
        let bytes: [UInt8] = [1, 0, 0xFE, 0xFF, 0x34, 0x12, 0x00, 0x80, 0xFF, 0x7F]
        #expect(hasher.finalize().hex == SHA256.hex(bytes))
    }

    /// The CPU's SHA instructions and the Swift code give the same digest, for every length
    /// around the block and padding boundaries and for long inputs fed in uneven pieces.
    @Test(.enabled(if: SHA256.instructionsAvailable, "this CPU has no SHA instructions: only the Swift code runs"),
          arguments: [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 1000, 4096, 100_003])
    func instructionsAgreeWithSwift(length: Int) {
        var seed: UInt32 = UInt32(length) &+ 12345
        let bytes = (0..<length).map { _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: seed >> 24)
        }
        var fast = SHA256(accelerated: true), portable = SHA256(accelerated: false)
        #expect(fast.accelerated && !portable.accelerated)
        var offset = 0, step = 1
        while offset < bytes.count {
            let end = min(bytes.count, offset + step)
            bytes[offset..<end].withUnsafeBytes { fast.update($0) }
            bytes[offset..<end].withUnsafeBytes { portable.update($0) }
            offset = end
            step = step * 7 % 5003 + 1
        }
        #expect(fast.finalize() == portable.finalize())
    }

    @Test(.enabled(if: SHA256.instructionsAvailable, "this CPU has no SHA instructions: only the Swift code runs"))
    func instructionsMatchAKnownVector() {
        var hasher = SHA256(accelerated: true)
        Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8).withUnsafeBytes { hasher.update($0) }
        #expect(hasher.finalize().hex == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
