#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Synthesizes click sounds into preallocated storage (at init, never while rendering).
enum TickSynth {
    /// Frames a tick of this sound lasts at `sampleRate`; at least 1.
    static func length(of sound: TickSound, sampleRate: Int) -> Int {
        max(1, Int((sound.duration * Double(sampleRate)).rounded()))
    }

    /// Fills `length` mono samples. The phase is offset by half a frame so that the very
    /// first sample is non-zero: the onset is audible (and testable) at its exact frame.
    static func fill(_ out: UnsafeMutablePointer<Float>, length: Int, sound: TickSound,
                     sampleRate: Int) {
        let n = Double(length)
        for i in 0..<length {
            let t = Double(i)
            let phase = 2 * Double.pi * sound.frequency * (t + 0.5) / Double(sampleRate)
            // Exponential decay, tapered linearly to 0 so the burst ends without a step.
            let envelope = exp(-4 * t / n) * (1 - t / n)
            out[i] = sound.amplitude * Float(sin(phase) * envelope)
        }
    }
}
