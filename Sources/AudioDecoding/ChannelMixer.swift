/// Converts interleaved float frames of any channel count to interleaved stereo.
enum ChannelMixer {
    /// 1/sqrt(2): the centre and surround weight of an ITU-R BS.775 style downmix.
    private static let minus3dB: Float = 0.70710678

    /// Appends the stereo version of `input` (interleaved, `channels` per frame) to `output`.
    /// Mono goes to both sides; 5.1 (L R C LFE Ls Rs, the WAV order) is mixed as
    /// L + 0.707 C + 0.707 Ls, normalised so a full-scale source cannot clip, LFE dropped;
    /// any other layout: L = mean of the even channels, R = mean of the odd ones.
    static func stereo(_ input: UnsafeBufferPointer<Float>, channels: Int, into output: inout [Float]) {
        let frames = input.count / channels
        output.reserveCapacity(output.count + frames * 2)
        switch channels {
        case 1:
            for f in 0..<frames {
                output.append(input[f])
                output.append(input[f])
            }
        case 2:
            output.append(contentsOf: input[0..<(frames * 2)])
        case 6:
            let norm = 1 / (1 + 2 * minus3dB)
            for f in 0..<frames {
                let s = f * 6
                let centre = minus3dB * input[s + 2]
                output.append((input[s] + centre + minus3dB * input[s + 4]) * norm)
                output.append((input[s + 1] + centre + minus3dB * input[s + 5]) * norm)
            }
        default:
            let evens = Float((channels + 1) / 2)
            let odds = Float(channels / 2)
            for f in 0..<frames {
                var left: Float = 0
                var right: Float = 0
                for c in 0..<channels {
                    if c % 2 == 0 { left += input[f * channels + c] } else { right += input[f * channels + c] }
                }
                output.append(left / evens)
                output.append(right / odds)
            }
        }
    }
}
