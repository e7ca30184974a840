import Foundation

/// A tiny deterministic synthesizer for the demo stick: original music, no samples.
/// Drums (kick, snare, hi-hat), a bass line and chord pads over a chord progression.
struct DemoSynth {
    struct Section {
        /// Length in bars (4 beats each).
        var bars: Int
        var drums: Bool
        var bass: Bool
        /// Hi-hats on 16ths instead of 8ths.
        var busyHats: Bool
        /// Chord voicing an octave up.
        var high: Bool
    }

    var bpm: Double
    var rate: Int
    /// MIDI root notes of the chords, one per bar, cycled.
    var progression: [Int]
    /// Minor (true) or major (false) triad for each chord, cycled alongside.
    var minor: [Bool]
    var sections: [Section]
    /// Seed of the noise generator (snare, hats).
    var seed: UInt32 = 0x5EED

    var framesPerBeat: Int { Int((Double(rate) * 60 / bpm).rounded()) }
    var totalFrames: Int { sections.reduce(0) { $0 + $1.bars * 4 } * framesPerBeat }

    /// Renders interleaved stereo floats, peak-normalised to 0.8.
    func render() -> [Float] {
        var left = [Float](repeating: 0, count: totalFrames)
        var right = [Float](repeating: 0, count: totalFrames)
        var noise = NoiseGenerator(seed: seed)
        let beat = framesPerBeat
        var bar = 0
        var start = 0
        for section in sections {
            for _ in 0..<section.bars {
                let root = progression[bar % progression.count]
                let isMinor = minor[bar % minor.count]
                let barStart = start
                // Pad: a triad held for the bar.
                let third = isMinor ? 3 : 4
                let octave = section.high ? 12 : 0
                for (i, note) in [root + octave, root + third + octave, root + 7 + octave].enumerated() {
                    let pan: Float = [0.35, 0.5, 0.65][i]
                    tone(into: &left, &right, at: barStart, frames: beat * 4, frequency: midi(note),
                         gain: 0.07, attack: 0.05, decay: 3.0, harmonics: 3, pan: pan)
                }
                for b in 0..<4 {
                    let at = barStart + b * beat
                    if section.drums {
                        if b == 0 || b == 2 { kick(into: &left, &right, at: at) }
                        if b == 1 || b == 3 { snare(into: &left, &right, at: at, noise: &noise) }
                    }
                    let hats = section.busyHats ? 4 : 2
                    for h in 0..<hats {
                        hat(into: &left, &right, at: at + h * beat / hats, noise: &noise,
                            accent: h == 0 ? 1 : 0.6)
                    }
                    if section.bass {
                        // Root on the beat, fifth on the off-beat, octave lower.
                        tone(into: &left, &right, at: at, frames: beat / 2, frequency: midi(root - 12),
                             gain: 0.28, attack: 0.005, decay: 0.25, harmonics: 4, pan: 0.5)
                        tone(into: &left, &right, at: at + beat / 2, frames: beat / 2,
                             frequency: midi(root - 12 + (b == 3 ? 12 : 7)),
                             gain: 0.22, attack: 0.005, decay: 0.2, harmonics: 4, pan: 0.5)
                    }
                }
                bar += 1
                start += beat * 4
            }
        }
        let peak = max(left.map(abs).max() ?? 0, right.map(abs).max() ?? 0)
        let scale: Float = peak > 0 ? 0.8 / peak : 1
        var out = [Float](repeating: 0, count: totalFrames * 2)
        for i in 0..<totalFrames {
            out[2 * i] = left[i] * scale
            out[2 * i + 1] = right[i] * scale
        }
        return out
    }

    private func midi(_ note: Int) -> Double { 440 * pow(2, Double(note - 69) / 12) }

    /// A note of `harmonics` decaying partials with an attack/decay envelope.
    private func tone(into left: inout [Float], _ right: inout [Float], at start: Int, frames: Int,
                      frequency: Double, gain: Float, attack: Double, decay: Double,
                      harmonics: Int, pan: Float) {
        let end = min(left.count, start + frames)
        guard start < end else { return }
        let rate = Double(self.rate)
        let release = min(frames, Int(0.01 * rate))
        for i in start..<end {
            let t = Double(i - start) / rate
            var envelope = min(1, t / attack) * exp(-t / decay)
            let remaining = end - i
            if remaining < release { envelope *= Double(remaining) / Double(release) }
            var value = 0.0
            for h in 1...harmonics {
                value += sin(2 * .pi * frequency * Double(h) * t) / Double(h * h)
            }
            let sample = Float(value * envelope) * gain
            left[i] += sample * (1 - pan) * 2
            right[i] += sample * pan * 2
        }
    }

    private func kick(into left: inout [Float], _ right: inout [Float], at start: Int) {
        let frames = Int(0.35 * Double(rate))
        var phase = 0.0
        for i in start..<min(left.count, start + frames) {
            let t = Double(i - start) / Double(rate)
            let frequency = 50 + 100 * exp(-t / 0.03)
            phase += 2 * .pi * frequency / Double(rate)
            let sample = Float(sin(phase) * exp(-t / 0.12)) * 0.9
            left[i] += sample
            right[i] += sample
        }
    }

    private func snare(into left: inout [Float], _ right: inout [Float], at start: Int,
                       noise: inout NoiseGenerator) {
        let frames = Int(0.2 * Double(rate))
        for i in start..<min(left.count, start + frames) {
            let t = Double(i - start) / Double(rate)
            let body = sin(2 * .pi * 185 * t) * exp(-t / 0.04) * 0.4
            let rattle = Double(noise.next()) * exp(-t / 0.06) * 0.5
            let sample = Float(body + rattle) * 0.6
            left[i] += sample * 0.9
            right[i] += sample
        }
    }

    private func hat(into left: inout [Float], _ right: inout [Float], at start: Int,
                     noise: inout NoiseGenerator, accent: Float) {
        let frames = Int(0.05 * Double(rate))
        var previous: Float = 0
        for i in start..<min(left.count, start + frames) {
            let t = Double(i - start) / Double(rate)
            let white = noise.next()
            // First difference: a crude high-pass that leaves the sizzle.
            let sample = (white - previous) * Float(exp(-t / 0.015)) * 0.12 * accent
            previous = white
            left[i] += sample * 0.7
            right[i] += sample
        }
    }
}

/// A fixed-seed linear congruential generator: the same noise on every run.
struct NoiseGenerator {
    private var state: UInt32
    init(seed: UInt32) { state = seed }
    /// A value in -1...1.
    mutating func next() -> Float {
        state = state &* 1_664_525 &+ 1_013_904_223
        return Float(Int32(bitPattern: state)) / Float(Int32.max)
    }
}
