import CFFmpeg

/// A decoded frame of audio (`AVFrame`), reused from frame to frame. Owns its pointer.
public final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    public init() throws(FFmpegError) {
        guard let frame = av_frame_alloc() else {
            throw FFmpegError(function: "av_frame_alloc", path: "", message: "out of memory")
        }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    /// Samples per channel in the frame.
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    public var channels: Int { Int(pointer.pointee.ch_layout.nb_channels) }
}
