/// A countdown click: a sine burst with a decaying envelope, synthesized once at init.
public struct TickSound: Equatable, Sendable {
    /// Pitch in Hz.
    public var frequency: Double
    /// Peak amplitude, 0...1 of full scale.
    public var amplitude: Float
    /// Length in seconds.
    public var duration: Double

    public init(frequency: Double, amplitude: Float, duration: Double) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.duration = duration
    }
}

/// Lengths of the render side's ramps and its click sounds. Lengths are in frames at the
/// output rate; every length is at least 1.
public struct RenderConfig: Equatable, Sendable {
    /// Fade-in on play, fade-out on pause/stop/load and before a counted repeat.
    public var rampFrames: Int
    /// Crossfade at loop seams and on seek while sounding.
    public var crossfadeFrames: Int
    /// Ramp of a volume change.
    public var volumeRampFrames: Int
    /// A `.position` report every this many output frames while audio advances; 0 = none.
    public var positionReportInterval: Int
    /// Reports held between drains; more are dropped and counted.
    public var reportCapacity: Int
    /// The countdown ticks, and the accented last one.
    public var tick: TickSound
    public var accent: TickSound
    /// Time-stretchers kept ready for speeds other than 100 % (`RenderCommand.setSpeed`):
    /// one per voice that can sound at once (the part, a crossfade partner, a fade-out),
    /// so 3 for the appliance, sharing up to `StretchPool.engines` (2) Rubber Band stretchers
    /// (~2 MB resident each); 0 = speed stays 100 % (no stretcher memory).
    public var stretchVoices: Int
    /// Output frames of each stretched stream kept so that a rewind can read them again
    /// (the stretcher's state cannot be restored): at least the device buffer a deep-buffer
    /// engine rewinds through, and a stretcher's burst. The engine raises it to its buffer's
    /// (`RealtimeAudioEngine`); a ring shorter than the buffer leaves a command that comes
    /// just after a refill unable to rewind.
    public var stretchRingFrames = StretchPool.defaultRingFrames
    /// Stretchers reset ahead of a stream's start (`StretchPool.spares`, ~2 MB each): where
    /// a reset calls the heap (Rubber Band 3.2 on, `StretchPool.defaultSpares`), none
    /// where it does not. Tests set it to run the spares with any library.
    public var stretchSpares = StretchPool.defaultSpares

    /// Defaults for 48 kHz: 5 ms ramps and crossfades, a position report every 100 ms,
    /// a 30 ms 1 kHz tick and a louder 2 kHz accent.
    public init(rampFrames: Int = 240, crossfadeFrames: Int = 240, volumeRampFrames: Int = 240,
                positionReportInterval: Int = 4800, reportCapacity: Int = 64,
                tick: TickSound = TickSound(frequency: 1000, amplitude: 0.4, duration: 0.03),
                accent: TickSound = TickSound(frequency: 2000, amplitude: 0.7, duration: 0.03),
                stretchVoices: Int = 0) {
        self.rampFrames = rampFrames
        self.crossfadeFrames = crossfadeFrames
        self.volumeRampFrames = volumeRampFrames
        self.positionReportInterval = positionReportInterval
        self.reportCapacity = reportCapacity
        self.tick = tick
        self.accent = accent
        self.stretchVoices = stretchVoices
    }

    /// The defaults scaled to another rate: 5 ms ramps, reports every 100 ms, speed change
    /// on (3 stretch voices).
    public static func standard(sampleRate: Int) -> RenderConfig {
        let ms5 = max(1, sampleRate / 200)
        return RenderConfig(rampFrames: ms5, crossfadeFrames: ms5, volumeRampFrames: ms5,
                            positionReportInterval: max(1, sampleRate / 10), stretchVoices: 3)
    }
}
