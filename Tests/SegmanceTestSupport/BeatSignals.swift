import Foundation

/// Signals for beat detection: click tracks over a tone, noise, speech.
public enum BeatSignals {
    /// Interleaved stereo floats: a click every beat of `bpm` from `one` seconds, accented
    /// (louder, higher) every fourth beat from the first, over a two-note tone.
    public static func clickTrack(bpm: Double, seconds: Double, one: Double = 0.25, rate: Int = 48_000) -> [Float] {
        let frames = Int(seconds * Double(rate))
        var out = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let t = Double(i) / Double(rate)
            let v = Float(0.15 * sin(2 * .pi * 220 * t) + 0.08 * sin(2 * .pi * 330 * t))
            out[2 * i] = v
            out[2 * i + 1] = v
        }
        for (k, at) in clickTimes(bpm: bpm, seconds: seconds, one: one).enumerated() {
            let start = Int((at * Double(rate)).rounded())
            let accent = k % 4 == 0
            let amplitude = accent ? 0.55 : 0.3, frequency = accent ? 1500.0 : 1000.0
            for j in 0..<(rate / 50) where start + j < frames {
                let t = Double(j) / Double(rate)
                let v = Float(amplitude * sin(2 * .pi * frequency * t) * exp(-t / 0.004))
                out[2 * (start + j)] += v
                out[2 * (start + j) + 1] += v
            }
        }
        return out
    }

    /// The seconds of every click of `clickTrack`.
    public static func clickTimes(bpm: Double, seconds: Double, one: Double = 0.25) -> [Double] {
        stride(from: one, to: seconds, by: 60 / bpm).map { $0 }
    }

    /// Interleaved stereo floats of white noise (seeded, the same every run).
    public static func noise(seconds: Double, rate: Int = 48_000, amplitude: Float = 0.3) -> [Float] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<Int(seconds * Double(rate)) * 2).map { i in
            if i % 2 == 1 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
            return Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max) * amplitude
        }
    }

    /// A teacher speaking, rendered by espeak-ng into `path` (a mono WAV at its own rate).
    public static func speech(to path: String) throws {
        let text = """
            Welcome to the studio. Today we will work on the second eight of the chorus. Remember to \
            keep your shoulders down and your arms long. Listen for the accent on the three, and do \
            not rush the turn. When you are ready, we start from the top, slowly at first, and then \
            at full speed. Breathe out on the jump, land softly, and hold the last position until \
            the music stops. Again, from the beginning, with energy this time.
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-w", path, text]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "espeak-ng exited \(process.terminationStatus)"])
        }
    }
}
