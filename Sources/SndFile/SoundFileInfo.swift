import CSndFile

/// What libsndfile knows about an open file.
public struct SoundFileInfo: Equatable, Sendable {
    /// Frames (samples per channel). For a write handle: frames written so far at open (0).
    public var frames: Int64
    public var sampleRate: Int
    public var channels: Int
    /// The full `SF_FORMAT_*` word.
    public var format: Int32

    public init(frames: Int64, sampleRate: Int, channels: Int, format: Int32) {
        self.frames = frames
        self.sampleRate = sampleRate
        self.channels = channels
        self.format = format
    }

    init(_ info: SF_INFO) {
        self.init(frames: info.frames, sampleRate: Int(info.samplerate),
                  channels: Int(info.channels), format: info.format)
    }

    /// The container (`SF_FORMAT_WAV`, `SF_FORMAT_FLAC`, …).
    public var majorFormat: Int32 { format & Int32(SF_FORMAT_TYPEMASK) }
    /// The encoding (`SF_FORMAT_PCM_16`, `SF_FORMAT_VORBIS`, …).
    public var subtype: Int32 { format & Int32(SF_FORMAT_SUBMASK) }
    /// True for MPEG audio (MP1/2/3), whose frame count is an estimate.
    public var isMPEG: Bool { majorFormat == Int32(SF_FORMAT_MPEG) }
    /// True for 16-bit integer PCM, whose Int16 read is lossless.
    public var isPCM16: Bool { subtype == Int32(SF_FORMAT_PCM_16) }
}
