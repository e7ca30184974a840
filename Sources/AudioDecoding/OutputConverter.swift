import Soxr

/// The conversion both decoders share: decoded float audio of any channel count and rate
/// is mixed to stereo (`ChannelMixer`), resampled to the output rate with soxr (HQ) when
/// the rates differ, converted to Int16 (×32768, rounded to nearest, clipped) and handed
/// to the sink.
package final class OutputConverter {
    let path: String
    let channels: Int
    private var resampler: Resampler?
    private var stereo: [Float] = []
    private var samples: [Int16] = []
    /// Output frames handed to the sink so far.
    package private(set) var written: Int64 = 0

    /// The source rates converted: below 4 kHz a header is damaged rather than audio, and a
    /// 1 Hz file converted to 48 kHz would make 48 000 frames of each frame read.
    package static let sourceRates = 4_000...768_000
    /// The channel counts mixed: more is no music file, and a decode chunk grows with them.
    package static let sourceChannels = 1...64

    /// Throws `.damaged` naming the file when its rate or channel count is outside what is converted.
    package static func check(rate: Int, channels: Int, path: String) throws(AudioDecodeError) {
        guard sourceChannels.contains(channels), sourceRates.contains(rate) else {
            throw AudioDecodeError(path: path, reason: .damaged(
                "\(channels) channel\(channels == 1 ? "" : "s") at \(rate) Hz (audio here is "
                    + "\(sourceChannels.lowerBound) to \(sourceChannels.upperBound) channels at "
                    + "\(spaced(sourceRates.lowerBound)) to \(spaced(sourceRates.upperBound)) Hz)"))
        }
    }

    /// `n` with its thousands apart: 768 000.
    private static func spaced(_ n: Int) -> String {
        n < 1_000 ? "\(n)" : spaced(n / 1_000) + " " + String(String(n % 1_000 + 1_000).dropFirst())
    }

    package init(path: String, inputRate: Int, channels: Int, outputRate: Int) throws(AudioDecodeError) {
        try Self.check(rate: inputRate, channels: channels, path: path)
        self.path = path
        self.channels = channels
        if inputRate != outputRate {
            do {
                resampler = try Resampler(inputRate: Double(inputRate), outputRate: Double(outputRate), channels: 2)
            } catch {
                throw AudioDecodeError(path: path, reason: .conversion(error.description))
            }
        }
    }

    /// Converts `frames` interleaved frames at the start of `input` and writes them to `sink`.
    package func push(_ input: UnsafeBufferPointer<Float>, frames: Int, into sink: some PCMSink) throws {
        stereo.removeAll(keepingCapacity: true)
        ChannelMixer.stereo(UnsafeBufferPointer(rebasing: input[0..<(frames * channels)]), channels: channels,
                            into: &stereo)
        do {
            try emit(resampler.map { try $0.process(stereo) } ?? stereo, into: sink)
        } catch let error as ResamplerError {
            throw AudioDecodeError(path: path, reason: .conversion(error.description))
        }
    }

    /// Drains the resampler's tail into `sink`; call once after the last `push`.
    package func finish(into sink: some PCMSink) throws {
        guard let resampler else { return }
        do {
            try emit(try resampler.flush(), into: sink)
        } catch let error as ResamplerError {
            throw AudioDecodeError(path: path, reason: .conversion(error.description))
        }
    }

    private func emit(_ floats: [Float], into sink: some PCMSink) throws {
        PCMConversion.int16(floats, into: &samples)
        try samples.withUnsafeBufferPointer { try sink.write($0) }
        written += Int64(floats.count / 2)
    }
}
