import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// Decodes one stream of a `MediaInput` (libavcodec). Owns its `AVCodecContext`.
/// Not thread-safe.
public final class StreamDecoder {
    /// What `receive(_:)` found.
    public enum Output: Equatable, Sendable {
        /// A frame was decoded into the frame passed.
        case frame
        /// The decoder wants the next packet.
        case needsInput
        /// Drained: every frame has been returned.
        case end
    }

    public let path: String
    /// FFmpeg's name of the decoder ("aac", "alac", "libopus").
    public let decoderName: String
    private var context: UnsafeMutablePointer<AVCodecContext>?

    /// Opens the decoder for stream `index` of `input` (`avcodec_find_decoder`,
    /// `avcodec_parameters_to_context`, `avcodec_open2`).
    public init(_ input: MediaInput, stream index: Int) throws(FFmpegError) {
        path = input.path
        guard let stream = input.stream(index), let parameters = stream.pointee.codecpar else {
            throw FFmpegError(function: "avcodec_find_decoder", path: input.path, message: "no stream \(index)")
        }
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw FFmpegError(function: "avcodec_find_decoder", path: input.path,
                              message: "no decoder for codec \(name)", code: cffmpeg_error_decoder_not_found())
        }
        decoderName = String(cString: codec.pointee.name)
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: cffmpeg_error_posix(ENOMEM), function: "avcodec_alloc_context3", path: input.path)
        }
        self.context = context
        var code = avcodec_parameters_to_context(context, parameters)
        guard code >= 0 else { throw FFmpegError(code: code, function: "avcodec_parameters_to_context", path: path) }
        context.pointee.pkt_timebase = stream.pointee.time_base
        // Audio decoders gain nothing from threads; one thread keeps a hostile file's cost bounded.
        context.pointee.thread_count = 1
        code = avcodec_open2(context, codec, nil)
        guard code >= 0 else { throw FFmpegError(code: code, function: "avcodec_open2", path: path) }
    }

    deinit {
        avcodec_free_context(&context)
    }

    /// Sends a packet to the decoder (`avcodec_send_packet`); nil starts draining. False
    /// when the decoder holds frames to `receive` first (then send the packet again).
    public func send(_ packet: Packet?) throws(FFmpegError) -> Bool {
        let code = avcodec_send_packet(context, packet?.pointer)
        if code == cffmpeg_error_posix(EAGAIN) { return false }
        // EOF: already draining; nothing more goes in.
        if code < 0 && code != cffmpeg_error_eof() {
            throw FFmpegError(code: code, function: "avcodec_send_packet", path: path)
        }
        return true
    }

    /// Takes the next decoded frame, if one is ready (`avcodec_receive_frame`).
    public func receive(_ frame: Frame) throws(FFmpegError) -> Output {
        let code = avcodec_receive_frame(context, frame.pointer)
        if code == 0 { return .frame }
        if code == cffmpeg_error_posix(EAGAIN) { return .needsInput }
        if code == cffmpeg_error_eof() { return .end }
        throw FFmpegError(code: code, function: "avcodec_receive_frame", path: path)
    }
}
