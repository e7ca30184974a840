/// What to ask of a PCM, and — as returned by `PCMDevice.configure` — what it granted.
///
/// Format, channels and rate are set exactly: a device that cannot do them refuses, and the
/// error says what it offers (a `plug` PCM converts instead). Period and buffer sizes are set
/// to the nearest the device can do; the returned configuration holds the real values, with
/// `bufferFrames`, `startThreshold` and `availMin` filled in.
public struct PCMConfiguration: Equatable, Hashable, Sendable {
    /// Sample format of the interleaved frames written.
    public var format: PCMSampleFormat
    /// Interleaved channels per frame.
    public var channels: Int
    /// Frames per second.
    public var rate: Int
    /// Frames per period: the unit the device wakes the writer for.
    public var periodFrames: Int
    /// Periods in the buffer; ignored when `bufferFrames` is set.
    public var periodCount: Int
    /// Buffer size in frames; nil = `periodFrames × periodCount`.
    public var bufferFrames: Int?
    /// Frames queued before the device starts by itself; nil = the whole buffer.
    public var startThreshold: Int?
    /// Frames of room before a blocking write or a poll wakes; nil = one period.
    public var availMin: Int?
    /// Lets a `plug` PCM resample when the rate is not native
    /// (`snd_pcm_hw_params_set_rate_resample`); a `hw` PCM never resamples either way.
    public var allowResampling: Bool

    public init(format: PCMSampleFormat = .s16LE, channels: Int = 2, rate: Int = 48_000,
                periodFrames: Int = 128, periodCount: Int = 3, bufferFrames: Int? = nil,
                startThreshold: Int? = nil, availMin: Int? = nil, allowResampling: Bool = true) {
        self.format = format
        self.channels = channels
        self.rate = rate
        self.periodFrames = periodFrames
        self.periodCount = periodCount
        self.bufferFrames = bufferFrames
        self.startThreshold = startThreshold
        self.availMin = availMin
        self.allowResampling = allowResampling
    }

    /// Bytes of one interleaved frame.
    public var bytesPerFrame: Int { format.bytesPerSample * channels }

    /// The buffer size this configuration asks for (or, once granted, has), in frames.
    public var requestedBufferFrames: Int { bufferFrames ?? periodFrames * periodCount }
}
