/// A small, seeded pseudo-random generator (SplitMix64): the same seed gives the same
/// sequence on every machine, so a failing fuzz case is replayed from its printed seed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random damage to a text, as a fuzzer does it: bit flips, truncations, deletions, random
/// bytes, and insertions of the punctuation TOML is made of.
public enum Mutations {
    /// TOML's punctuation and the characters next to it in a manifest.
    public static let punctuation: [UInt8] = Array("[]{}=,.\"'\\#\n\r:+-_ \t0e".utf8)

    /// The seed to use: `SEGMANCE_FUZZ_SEED` from the environment (to replay a run), else a fresh one.
    public static func seed(environment: [String: String]) -> UInt64 {
        environment["SEGMANCE_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
    }

    /// `text` with one to four random mutations.
    public static func mutate(_ text: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = text
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            if bytes.isEmpty { bytes = [UInt8(ascii: "[")] }
            let at = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<7, using: &generator) {
            case 0:
                bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
            case 1:
                bytes[at] = punctuation.randomElement(using: &generator) ?? 0x5B
            case 2:
                let count = Int.random(in: 1...3, using: &generator)
                bytes.insert(contentsOf: (0..<count).map { _ in punctuation.randomElement(using: &generator) ?? 0x5B }, at: at)
            case 3:
                bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &generator)))
            case 4:
                bytes.removeSubrange(at...)
            case 5:
                bytes.insert(UInt8.random(in: 0...255, using: &generator), at: at)
            default:
                // A stretch copied elsewhere: duplicate keys, headers, brackets.
                let end = min(bytes.count, at + Int.random(in: 1...40, using: &generator))
                let chunk = Array(bytes[at..<end])
                bytes.insert(contentsOf: chunk, at: Int.random(in: 0...bytes.count, using: &generator))
            }
        }
        return bytes
    }
}
