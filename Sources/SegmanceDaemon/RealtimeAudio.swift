import SegmanceAudio
import SegmanceBoard
import SegmanceEngine

/// The real-time engine on the profile's ALSA device as the daemon's audio side, started by
/// `Daemon.run()`: the render thread (SCHED_FIFO at `priority` when permitted, 0 = normal
/// scheduling), memory locked when permitted. On shutdown the last commands (a pause's
/// ramp-out) play, then the device drains.
public final class RealtimeAudio: DaemonAudio {
    private let realtime: RealtimeAudioEngine

    public var engine: AudioEngine { realtime }
    public var wakeDescriptor: Int32? { realtime.wakeDescriptor }
    public var startsLater: Bool { true }

    public var settled: Bool {
        let buffer = realtime.granted.periodFrames * realtime.granted.periodCount
        return realtime.framesHanded > Int64(buffer + realtime.granted.periodFrames)
    }

    /// Opens the device of the profile's `[audio]` table, locking memory when `lockMemory`.
    public init(_ audio: BoardProfile.Audio, priority: Int, lockMemory: Bool = true) throws {
        var configuration = try EngineConfiguration(
            device: audio.device, rate: audio.rate, periodFrames: audio.periodFrames, periods: audio.periods,
            formatName: audio.format, realtimePriority: priority > 0 ? Int32(priority) : nil,
            rewindGuardFrames: audio.rewindGuardFrames)
        configuration.lockMemory = lockMemory
        realtime = try RealtimeAudioEngine(configuration: configuration)
    }

    /// `init`, as `Daemon.Environment.openAudio` takes it.
    public static func open(_ audio: BoardProfile.Audio, priority: Int) throws -> DaemonAudio {
        try RealtimeAudio(audio, priority: priority)
    }

    public func takeLog() -> [(priority: Log.Priority, text: String)] {
        realtime.takeLog().map { (Self.priority(of: $0), $0) }
    }

    /// The priority of a line of the engine's: opening the device and making the stretchers
    /// are what a normal start logs; a stopped render thread is an error; anything else it
    /// says (an underrun, a late command, scheduling or memory refused) is a warning.
    static func priority(of line: String) -> Log.Priority {
        if line.hasSuffix("the render thread stopped") { return .error }
        if line.contains(" Hz, period ") || line.contains(" stretchers made for ") { return .info }
        return .warning
    }

    public func shutdown() { realtime.finish() }
    public func warmUp() { realtime.warmUp() }

    public func watchPosition(reaching frame: Int64?) -> Bool {
        realtime.wakeWhenPosition(reaches: frame)
        return true
    }

    public func start() throws -> Bool {
        try realtime.start()
        return realtime.scheduling?.memoryLocked ?? false
    }
}
