/// Receives decoded audio in the output format (interleaved stereo Int16), chunk by chunk:
/// a file in the media store for the importer, nothing at all for `segmance stick check`.
public protocol PCMSink: AnyObject {
    /// Called once before the first chunk with the frame count the header announces
    /// (an estimate for MP3 and resampled audio, capped).
    func begin(expectedFrames: Int)
    /// Takes interleaved stereo frames. A thrown error stops decoding and reaches the caller
    /// of `AudioDecoder.decode(_:into:)` unchanged.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
    /// How far decoding is: source frames read so far of the total the header announces.
    func progress(sourceFrames: Int64, of total: Int64)
}

extension PCMSink {
    public func begin(expectedFrames: Int) {}
    public func progress(sourceFrames: Int64, of total: Int64) {}
}

/// Counts the frames and forgets the audio: checking a stick without keeping anything.
public final class DiscardingSink: PCMSink {
    public private(set) var frames: Int64 = 0
    public init() {}
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws { frames += Int64(samples.count / 2) }
}

/// Float to the stored Int16 format: ×32768, rounded to nearest (even), clipped; NaN is
/// taken for the most negative value.
public enum PCMConversion {
    @inline(__always)
    public static func int16(_ value: Float) -> Int16 {
        var scaled = value * 32768
        scaled = scaled > -32768 ? scaled : -32768
        scaled = scaled < 32767 ? scaled : 32767
        // Adding 1.5 · 2^23 leaves the sum's unit in the last place at 1: the addition rounds
        // to an integer (nearest, ties to even) that the sum's low bits hold. Unlike
        // `rounded(.toNearestOrEven)`, which costs a libm call a sample on baseline x86-64,
        // this vectorises (a fifth of an import's conversion time was that call).
        return Int16(truncatingIfNeeded: (scaled + 12_582_912).bitPattern)
    }

    /// Converts every sample of `input` into `output` (resized to match).
    public static func int16(_ input: [Float], into output: inout [Int16]) {
        if output.count != input.count { output = [Int16](repeating: 0, count: input.count) }
        output.withUnsafeMutableBufferPointer { out in
            for i in 0..<input.count { out[i] = int16(input[i]) }
        }
    }
}
