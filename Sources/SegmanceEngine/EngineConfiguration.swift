import ALSA
import SegmanceAudio

/// Everything the real-time engine needs to know: the ALSA device and its format, period
/// and buffer, the render thread's scheduling, and the queues' sizes.
///
/// The board profile's `[audio]` table maps onto it key for key: `device`, `rate`,
/// `period_frames`, `periods`, `format` (see `init(device:rate:periodFrames:periods:formatName:)`).
public struct EngineConfiguration: Equatable, Sendable {
    /// The ALSA PCM to play to, e.g. `default`, `hw:0,0`, `plughw:1`, or one defined in an
    /// ALSA configuration.
    public var device: String
    /// Sample format handed to ALSA.
    public var format: PCMSampleFormat
    /// Output rate in Hz; the library's PCM is stored at this rate.
    public var rate: Int
    /// Frames per period: the unit the render thread renders and writes.
    public var periodFrames: Int
    /// Periods in the device buffer.
    public var periods: Int
    /// SCHED_FIFO priority for the render thread (1...99), or nil for normal scheduling.
    /// When the process may not use SCHED_FIFO the thread runs at normal priority and the
    /// engine logs a line saying so.
    public var realtimePriority: Int32?
    /// Lock the process's memory at start when permitted
    /// (`mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)`): pages stay resident once
    /// touched, so the render thread never waits for a page to come back from swap.
    public var lockMemory: Bool
    /// Commands that can wait for the render thread at once.
    public var commandCapacity: Int
    /// Reports and thread events that can wait for the control side at once; more are
    /// dropped and counted.
    public var eventCapacity: Int
    /// Ramps, crossfades and clicks of the render function.
    public var render: RenderConfig
    /// Deep-buffer scheduling with rewinds, or nil for period-by-period writes.
    public var rewind: Rewind?

    /// Deep-buffer scheduling: the render thread keeps the whole device buffer full and
    /// sleeps until three quarters of it have played (as `aplay` does), so it wakes a few
    /// times a second instead of once per short period. A command wakes it at once: it rewinds
    /// the device (`snd_pcm_rewind`) to the first chunk boundary at least `guardFrames`
    /// past the frame playing now, restores the renderer's snapshot of that frame and
    /// renders again from there with the command applied. Input-to-sound latency is then
    /// the guard (plus up to one chunk), whatever the buffer.
    ///
    /// For devices that rewind faithfully (USB audio, I2S DACs, alsa-lib plugins). Not for
    /// one that has already copied its buffer elsewhere (the Raspberry Pi's own headphone
    /// output hands audio to the VideoCore ahead of its pointer): there a refused or
    /// partial rewind is logged and the command waits for the buffer.
    public struct Rewind: Equatable, Sendable {
        /// Frames past the one playing that are never rewritten: what the device may
        /// already be reading. At least one chunk.
        public var guardFrames: Int
        /// The render unit: commands apply at chunk boundaries (or at their exact frame),
        /// and the renderer's state is kept at every boundary in the buffer.
        public var chunkFrames: Int

        public init(guardFrames: Int = 256, chunkFrames: Int = 128) {
            self.guardFrames = guardFrames
            self.chunkFrames = chunkFrames
        }
    }

    public init(device: String = "default", format: PCMSampleFormat = .s16LE, rate: Int = 48_000,
                periodFrames: Int = 128, periods: Int = 3, realtimePriority: Int32? = 70,
                lockMemory: Bool = true, commandCapacity: Int = 256, eventCapacity: Int = 1024,
                render: RenderConfig? = nil, rewind: Rewind? = nil) {
        self.device = device
        self.format = format
        self.rate = rate
        self.periodFrames = periodFrames
        self.periods = periods
        self.realtimePriority = realtimePriority
        self.lockMemory = lockMemory
        self.commandCapacity = commandCapacity
        self.eventCapacity = eventCapacity
        self.render = render ?? .standard(sampleRate: rate)
        self.rewind = rewind
    }

    /// From a board profile's `[audio]` values; `formatName` is ALSA's name
    /// (`S16_LE`, `S32_LE`, `FLOAT_LE`).
    /// `rewindGuardFrames`: deep-buffer scheduling with that guard (`Rewind`), nil for
    /// period-by-period writes.
    public init(device: String, rate: Int, periodFrames: Int, periods: Int, formatName: String,
                realtimePriority: Int32? = 70, rewindGuardFrames: Int? = nil) throws(EngineError) {
        guard let format = PCMSampleFormat(rawValue: formatName) else {
            throw .unknownFormat(formatName)
        }
        self.init(device: device, format: format, rate: rate, periodFrames: periodFrames,
                  periods: periods, realtimePriority: realtimePriority,
                  rewind: rewindGuardFrames.map { Rewind(guardFrames: $0) })
    }

    /// What to ask of the PCM. The start threshold is the whole buffer (a full buffer
    /// before the device starts, so the first periods cannot underrun) and the writer
    /// wakes with one period of room; with `rewind`, with three quarters of the buffer.
    public var pcmRequest: PCMConfiguration {
        PCMConfiguration(format: format, channels: 2, rate: rate, periodFrames: periodFrames,
                         periodCount: periods,
                         availMin: rewind == nil ? nil : max(periodFrames, periodFrames * periods * 3 / 4))
    }

    /// Checks the values the engine cannot work with, naming the key.
    func validate() throws(EngineError) {
        try EngineError.Setting.rate.check(rate)
        try EngineError.Setting.periodFrames.check(periodFrames)
        try EngineError.Setting.periods.check(periods)
        if let r = rewind {
            try EngineError.Setting.renderChunk.check(r.chunkFrames)
            // The buffer is refilled when a quarter of it is left: a larger guard leaves
            // nothing to rewind.
            if r.guardFrames < r.chunkFrames || r.guardFrames > periodFrames * periods / 4 {
                throw .rewindGuard(frames: r.guardFrames, chunk: r.chunkFrames,
                                   quarterBuffer: periodFrames * periods / 4)
            }
        }
        if let p = realtimePriority { try EngineError.Setting.realtimePriority.check(Int(p)) }
    }
}
