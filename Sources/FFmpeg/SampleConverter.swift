import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// Converts decoded frames to interleaved 32-bit float (libswresample), keeping the
/// channels and rate the stream started with: only the sample layout changes (planar or
/// integer samples to interleaved float), unless a later frame arrives in another layout
/// or rate, which is then mixed and resampled to the first one's. Owns its `SwrContext`.
public final class SampleConverter {
    /// Channels and rate of the output (those of the frame the converter was made for).
    public let channels: Int
    public let sampleRate: Int
    private var context: OpaquePointer?
    private var outputLayout = AVChannelLayout()
    private var inputLayout = AVChannelLayout()
    private let inputFormat: Int32
    private let inputRate: Int32
    private let path: String

    /// A converter from `frame`'s layout, format and rate to interleaved float with
    /// `target`'s channels and rate (`frame`'s own when nil).
    public init(from frame: Frame, to target: SampleConverter? = nil, path: String) throws(FFmpegError) {
        self.path = path
        let source = frame.pointer
        inputFormat = source.pointee.format
        inputRate = source.pointee.sample_rate
        sampleRate = target?.sampleRate ?? Int(source.pointee.sample_rate)
        var code = av_channel_layout_copy(&inputLayout, &source.pointee.ch_layout)
        guard code >= 0 else { throw FFmpegError(code: code, function: "av_channel_layout_copy", path: path) }
        if let target {
            code = av_channel_layout_copy(&outputLayout, &target.outputLayout)
        } else {
            code = av_channel_layout_copy(&outputLayout, &source.pointee.ch_layout)
        }
        guard code >= 0 else { throw FFmpegError(code: code, function: "av_channel_layout_copy", path: path) }
        channels = Int(outputLayout.nb_channels)
        guard inputRate > 0, channels > 0, inputLayout.nb_channels > 0 else {
            throw FFmpegError(function: "swr_alloc_set_opts2", path: path,
                              message: "\(inputLayout.nb_channels) channels at \(inputRate) Hz",
                              code: cffmpeg_error_invalid_data())
        }
        code = swr_alloc_set_opts2(&context, &outputLayout, AV_SAMPLE_FMT_FLT, Int32(sampleRate),
                                   &inputLayout, AVSampleFormat(inputFormat), inputRate, 0, nil)
        guard code >= 0, context != nil else {
            throw FFmpegError(code: code, function: "swr_alloc_set_opts2", path: path)
        }
        code = swr_init(context)
        guard code >= 0 else { throw FFmpegError(code: code, function: "swr_init", path: path) }
    }

    deinit {
        swr_free(&context)
        av_channel_layout_uninit(&outputLayout)
        av_channel_layout_uninit(&inputLayout)
    }

    /// True when `frame` has the layout, format and rate this converter takes.
    public func accepts(_ frame: Frame) -> Bool {
        frame.pointer.pointee.format == inputFormat && frame.pointer.pointee.sample_rate == inputRate
            && av_channel_layout_compare(&frame.pointer.pointee.ch_layout, &inputLayout) == 0
    }

    /// Appends `frame`'s samples to `output` as interleaved float; returns the frames added.
    public func convert(_ frame: Frame, appendingTo output: inout [Float]) throws(FFmpegError) -> Int {
        let inCount = frame.pointer.pointee.nb_samples
        let capacity = Int(swr_get_out_samples(context, inCount))
        guard capacity > 0 else { return 0 }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: capacity * channels))
        let produced: Int32 = output.withUnsafeMutableBufferPointer { buffer in
            var out: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer.baseAddress! + start)
                .assumingMemoryBound(to: UInt8.self)
            let input = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data)
                .map { $0.assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
            return swr_convert(context, &out, Int32(capacity), input, inCount)
        }
        guard produced >= 0 else {
            output.removeLast(capacity * channels)
            throw FFmpegError(code: produced, function: "swr_convert", path: path)
        }
        output.removeLast((capacity - Int(produced)) * channels)
        return Int(produced)
    }
}
