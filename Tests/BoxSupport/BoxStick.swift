#if canImport(Glibc)
import Glibc
#endif

/// The content of the system tests' sticks: routines whose parts are pseudo-random noise,
/// so that no stretch of audio looks like any other — a capture shifted by one frame, or a
/// loop that wraps one period early, cannot pass for the right one.
public enum BoxStick {
    /// A routine folder to write.
    public struct Routine: Sendable {
        public var folder: String
        /// routine.toml, or nil for none.
        public var manifest: String?
        /// File name, seconds, sample rate of each part (stereo 16-bit WAV).
        public var parts: [(name: String, seconds: Double, rate: Int)]
        /// Parts longer than this many seconds repeat their first stretch of noise (cheap
        /// to make, the size is what matters); nil: noise throughout.
        public var repeatAfter: Double?

        public init(folder: String, manifest: String?, parts: [(name: String, seconds: Double, rate: Int)],
                    repeatAfter: Double? = nil) {
            self.folder = folder
            self.manifest = manifest
            self.parts = parts
            self.repeatAfter = repeatAfter
        }
    }

    /// "Box Test": three 20 s parts (Intro, Verse, Outro) at 48 kHz, a 3 s countdown. The Outro
    /// has a beat (120 BPM) and a loop from 0:04 to 0:06 with a lead-in of 2 beats (every pass
    /// after the first from 0:03) and a speed ramp of 80, 90, 100 %.
    public static let rehearsal = Routine(folder: "Box Test", manifest: """
        title = "Box Test"
        countdown = 3
        [[part]]
        file = "01 Intro.wav"
        [[part]]
        file = "02 Verse.wav"
        [[part]]
        file = "03 Outro.wav"
        tempo = 120
        loop = { a = "0:04", b = "0:06" }
        lead_in = "2 beats"
        ramp = { from = 80, step = 10, to = 100 }
        """, parts: [("01 Intro.wav", 20, 48_000), ("02 Verse.wav", 20, 48_000), ("03 Outro.wav", 20, 48_000)])

    /// Writes `routines` under `directory` (made if missing).
    public static func write(_ routines: [Routine], to directory: String) throws(BoxStickError) {
        try makeDirectory(directory)
        for (r, routine) in routines.enumerated() {
            let folder = directory + "/" + routine.folder
            try makeDirectory(folder)
            if let manifest = routine.manifest { try writeFile(folder + "/routine.toml", Array(manifest.utf8)) }
            for (p, part) in routine.parts.enumerated() {
                let frames = Int(part.seconds * Double(part.rate))
                let unique = min(frames, routine.repeatAfter.map { Int($0 * Double(part.rate)) } ?? frames)
                let block = noise(frames: unique, seed: UInt32(1 + r * 16 + p))
                var samples = block
                while samples.count < frames * 2 { samples += block.prefix(frames * 2 - samples.count) }
                try writeFile(folder + "/" + part.name, wav(samples, rate: part.rate))
            }
        }
    }

    /// Interleaved stereo noise, about a quarter of full scale, the two channels different.
    public static func noise(frames: Int, seed: UInt32) -> [Int16] {
        var state = seed &* 2_654_435_761 | 1
        return (0..<frames * 2).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return Int16(truncatingIfNeeded: Int32(bitPattern: state) >> 18)
        }
    }

    /// A 16-bit stereo WAV file's bytes.
    public static func wav(_ samples: [Int16], rate: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func u32(_ v: Int) { for k in 0..<4 { bytes.append(UInt8((v >> (8 * k)) & 0xFF)) } }
        func u16(_ v: Int) { for k in 0..<2 { bytes.append(UInt8((v >> (8 * k)) & 0xFF)) } }
        bytes += Array("RIFF".utf8); u32(36 + samples.count * 2); bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8); u32(16); u16(1); u16(2); u32(rate); u32(rate * 4); u16(4); u16(16)
        bytes += Array("data".utf8); u32(samples.count * 2)
        // Little-endian samples, as this machine stores them.
        samples.withUnsafeBytes { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func makeDirectory(_ path: String) throws(BoxStickError) {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw BoxStickError("mkdir \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(BoxStickError) {
        guard let file = fopen(path, "wb") else { throw BoxStickError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else {
            throw BoxStickError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}

public struct BoxStickError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
