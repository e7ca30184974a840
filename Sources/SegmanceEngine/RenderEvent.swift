import SegmanceAudio

/// What the render thread tells the control side, as plain data for the event ring.
enum RenderEvent {
    /// A report of the render function.
    case report(RenderReport)
    /// Commands were applied in a period, and that period was handed to ALSA.
    case applied(CommandTiming)
    /// `snd_pcm_writei` (or the wait for room) found an underrun at output frame `frame`
    /// and `snd_pcm_recover` re-prepared the device; the stream goes on.
    case xrun(frame: Int64)
    /// A command carried a frame the thread had already rendered: it was applied at
    /// `appliedAt` instead.
    case late(epoch: UInt32, frame: Int64, appliedAt: Int64)
    /// An ALSA call failed in a way recovery could not mend; the thread stopped.
    case failed(ALSACall, code: Int32)
}

/// The ALSA call a thread event is about.
enum ALSACall: UInt8 {
    case wait = 0, write, recover
    var name: String {
        switch self {
        case .wait: "snd_pcm_wait"
        case .write: "snd_pcm_writei"
        case .recover: "snd_pcm_recover"
        }
    }
}

/// When the render thread applied commands, and when their output reached ALSA: the
/// inside-the-process half of the input-to-sound latency.
public struct CommandTiming: Equatable, Sendable {
    /// Epoch of the first and the last command applied in the period.
    public var firstEpoch: UInt32
    public var lastEpoch: UInt32
    /// Output frame at which the first of them applied.
    public var frame: Int64
    /// CLOCK_MONOTONIC (ns) when `snd_pcm_writei` returned having taken the period that
    /// holds `frame` and the frame after it: the first sample a command can change (a
    /// ramp or crossfade starts at its weight 0, its second frame differs).
    public var handedAt: Int64
    /// The output frame count right after that write (the clock of the next frame).
    public var handedThrough: Int64
    /// `snd_pcm_delay` right after that write: frames from the newest written frame to the
    /// one sounding now.
    public var delayFrames: Int

    public init(firstEpoch: UInt32, lastEpoch: UInt32, frame: Int64, handedAt: Int64,
                handedThrough: Int64, delayFrames: Int) {
        self.firstEpoch = firstEpoch
        self.lastEpoch = lastEpoch
        self.frame = frame
        self.handedAt = handedAt
        self.handedThrough = handedThrough
        self.delayFrames = delayFrames
    }

    /// Frames queued in the device ahead of the first changed sample (`frame + 1`) when
    /// it was handed over: the device delay minus the frames written after it.
    public var framesAheadOfChange: Int {
        max(0, delayFrames - Int(handedThrough - (frame + 1)))
    }
}
