import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// An open container (MP4, Matroska, ASF, …) read by libavformat through a file descriptor:
/// FFmpeg sees the file's bytes and nothing else — no path, no protocol, no file beside it.
/// Owns its `AVFormatContext` (closed in `deinit`). Not thread-safe.
public final class MediaInput {
    /// What a hostile file may make libavformat do.
    public struct Limits: Sendable {
        /// Bytes read to identify the container (`probesize`).
        public var probeBytes: Int64
        /// Streams a container may declare (`max_streams`).
        public var maxStreams: Int32
        /// The demuxers allowed (`format_whitelist`, libavformat's names).
        public var formats: [String]

        public init(probeBytes: Int64 = 1 << 20, maxStreams: Int32 = 32,
                    formats: [String] = ["mov", "mp4", "m4a", "3gp", "3g2", "mj2", "matroska", "webm", "asf", "aac"]) {
            self.probeBytes = probeBytes
            self.maxStreams = maxStreams
            self.formats = formats
        }
    }

    /// A stream of the container, as its header describes it.
    public struct Stream: Equatable, Sendable {
        public enum Kind: Equatable, Sendable { case audio, video, subtitle, data, attachment, unknown }
        public var index: Int
        public var kind: Kind
        /// FFmpeg's codec name ("aac", "alac", "opus", "h264"; "none" when unknown).
        public var codecName: String
        /// The container's four-character code for the codec ("mp4a", "drms"), 0 when none.
        public var codecTag: UInt32
        public var sampleRate: Int
        public var channels: Int
        /// The stream's duration from the header, in seconds (nil when it gives none): the
        /// container's own figure for the stream, else its `DURATION` tag (Matroska files
        /// written by FFmpeg, "00:03:25.120000000").
        public var duration: Double?

        /// `codecTag` as its four characters ("mp4a").
        public var codecTagText: String {
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: codecTag >> (8 * $0)) }
            return bytes.allSatisfy { $0 >= 32 && $0 < 127 } ? String(decoding: bytes, as: UTF8.self) : ""
        }
    }

    /// The path the input was opened with (for messages).
    public let path: String
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let io: DescriptorIO

    private static let quiet: Void = av_log_set_level(AV_LOG_QUIET)

    /// Opens `path` and reads the container's header (`avformat_open_input`), within `limits`.
    public init(readingFrom path: String, limits: Limits = Limits()) throws(FFmpegError) {
        _ = Self.quiet
        let io = try DescriptorIO(path: path)
        guard var context = avformat_alloc_context() else {
            throw FFmpegError(code: cffmpeg_error_posix(ENOMEM), function: "avformat_alloc_context", path: path)
        }
        context.pointee.pb = io.context
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        context.pointee.probesize = limits.probeBytes
        context.pointee.max_streams = limits.maxStreams
        context.pointee.format_whitelist = av_strdup(limits.formats.joined(separator: ","))
        // Demuxers that would open another file or URL (playlists, references) are refused.
        context.pointee.io_open = { _, _, _, _, _ in cffmpeg_error_posix(EPERM) }
        var optional: UnsafeMutablePointer<AVFormatContext>? = context
        // No URL: FFmpeg identifies the container by its bytes, not by the name's extension.
        let code = avformat_open_input(&optional, "", nil, nil)
        guard code == 0, let opened = optional else {
            // avformat_open_input freed the context; `io` goes with this scope.
            throw FFmpegError(code: code, function: "avformat_open_input", path: path)
        }
        context = opened
        self.context = context
        self.io = io
        self.path = path
    }

    deinit {
        avformat_close_input(&context)
    }

    private var handle: UnsafeMutablePointer<AVFormatContext> { context! }

    /// libavformat's name for the container ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "asf").
    public var formatName: String {
        handle.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
    }

    /// The container's duration in seconds, nil when unknown.
    public var duration: Double? {
        let value = handle.pointee.duration
        return value == cffmpeg_nopts_value() || value <= 0 ? nil : Double(value) / Double(AV_TIME_BASE)
    }

    /// True when `duration` is only a guess from the bit rate (raw ADTS AAC).
    public var durationIsEstimated: Bool {
        handle.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
    }

    /// Every stream the header declares, in order.
    public var streams: [Stream] {
        (0..<Int(handle.pointee.nb_streams)).map { index in
            let stream = handle.pointee.streams[index]!
            let parameters = stream.pointee.codecpar!.pointee
            let kind: Stream.Kind = switch parameters.codec_type {
            case AVMEDIA_TYPE_AUDIO: .audio
            case AVMEDIA_TYPE_VIDEO: .video
            case AVMEDIA_TYPE_SUBTITLE: .subtitle
            case AVMEDIA_TYPE_DATA: .data
            case AVMEDIA_TYPE_ATTACHMENT: .attachment
            default: .unknown
            }
            let base = stream.pointee.time_base
            let ticks = stream.pointee.duration
            let duration = ticks == cffmpeg_nopts_value() || ticks <= 0 || base.den == 0
                ? Self.taggedDuration(stream) : Double(ticks) * Double(base.num) / Double(base.den)
            return Stream(index: index, kind: kind, codecName: String(cString: avcodec_get_name(parameters.codec_id)),
                          codecTag: parameters.codec_tag, sampleRate: Int(parameters.sample_rate),
                          channels: Int(parameters.ch_layout.nb_channels), duration: duration)
        }
    }

    /// The stream's `DURATION` tag in seconds, if it has a well-formed one.
    private static func taggedDuration(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        guard let entry = av_dict_get(stream.pointee.metadata, "DURATION", nil, 0),
              let value = entry.pointee.value else { return nil }
        let parts = String(cString: value).split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let sec = Double(parts[2]),
              h >= 0, m >= 0, sec >= 0 else { return nil }
        let total = h * 3600 + m * 60 + sec
        return total > 0 && total.isFinite ? total : nil
    }

    /// Tells the demuxer to drop every stream but `index` (video frames are not even read
    /// into packets where the container allows it).
    public func discardAll(except index: Int) {
        for i in 0..<Int(handle.pointee.nb_streams) {
            handle.pointee.streams[i]!.pointee.discard = i == index ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }

    /// Reads the next packet into `packet` (`av_read_frame`); false at the end of the file.
    public func read(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unref()
        let code = av_read_frame(handle, packet.pointer)
        if code == 0 { return true }
        if code == cffmpeg_error_eof() { return false }
        throw FFmpegError(code: code, function: "av_read_frame", path: path)
    }

    /// The stream's `AVStream`, for a decoder of this module.
    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream>? {
        index >= 0 && index < Int(handle.pointee.nb_streams) ? handle.pointee.streams[index] : nil
    }
}
