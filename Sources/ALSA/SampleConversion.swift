/// Converts interleaved Float32 samples (nominal range -1...1) to a PCM's format.
///
/// Integers: `x × 2^(bits-1)` rounded to nearest (halves away from zero), clipped to the
/// type's range, so 1.0 and above give the maximum and -1.0 and below the minimum;
/// NaN gives 0. Float: copied unchanged. Output is little-endian. No allocation.
public enum SampleConversion {
    /// One sample to S16.
    @inlinable
    public static func s16(_ sample: Float) -> Int16 {
        let scaled = (sample * 32_768).rounded()
        if scaled >= 32_767 { return .max }
        if scaled <= -32_768 { return .min }
        if scaled.isNaN { return 0 }
        return Int16(scaled)
    }

    /// One sample to S32 (computed in Double: Float's 24-bit mantissa cannot round to 32 bits).
    @inlinable
    public static func s32(_ sample: Float) -> Int32 {
        let scaled = (Double(sample) * 2_147_483_648).rounded()
        if scaled >= 2_147_483_647 { return .max }
        if scaled <= -2_147_483_648 { return .min }
        if scaled.isNaN { return 0 }
        return Int32(scaled)
    }

    /// Converts `count` samples from `source` into `destination`, which must hold
    /// `count × format.bytesPerSample` bytes.
    public static func convert(_ source: UnsafePointer<Float>, count: Int,
                               to format: PCMSampleFormat, into destination: UnsafeMutableRawPointer) {
        switch format {
        case .s16LE:
            let out = destination.bindMemory(to: Int16.self, capacity: count)
            for index in 0..<count { out[index] = s16(source[index]).littleEndian }
        case .s32LE:
            let out = destination.bindMemory(to: Int32.self, capacity: count)
            for index in 0..<count { out[index] = s32(source[index]).littleEndian }
        case .floatLE:
            let out = destination.bindMemory(to: UInt32.self, capacity: count)
            for index in 0..<count { out[index] = source[index].bitPattern.littleEndian }
        }
    }
}
