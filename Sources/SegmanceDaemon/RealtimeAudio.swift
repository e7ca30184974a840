import SegmanceBoard
import SegmanceEngine

extension Daemon.Audio {
    /// The real-time engine on the profile's ALSA device, started by `Daemon.run()`: the render thread
    /// (SCHED_FIFO at `priority` when permitted, 0 = normal scheduling), memory locked when
    /// permitted. On shutdown the last commands (a pause's ramp-out) play, then the device drains.
    public static func realtime(_ audio: BoardProfile.Audio, priority: Int) throws -> Daemon.Audio {
        try realtime(audio, priority: priority, lockMemory: true)
    }

    /// As `realtime(_:priority:)`, choosing whether the process's memory is locked.
    public static func realtime(_ audio: BoardProfile.Audio, priority: Int, lockMemory: Bool) throws -> Daemon.Audio {
        var configuration = try EngineConfiguration(
            device: audio.device, rate: audio.rate, periodFrames: audio.periodFrames, periods: audio.periods,
            formatName: audio.format, realtimePriority: priority > 0 ? Int32(priority) : nil,
            rewindGuardFrames: audio.rewindGuardFrames)
        configuration.lockMemory = lockMemory
        let engine = try RealtimeAudioEngine(configuration: configuration)
        return Daemon.Audio(engine: engine, wakeDescriptor: engine.wakeDescriptor,
                            takeLog: { engine.takeLog() }, shutdown: { engine.finish() },
                            warmUp: { engine.warmUp() },
                            watchPosition: { engine.wakeWhenPosition(reaches: $0) },
                            start: {
                                try engine.start()
                                return engine.scheduling?.memoryLocked ?? false
                            },
                            settled: {
                                let buffer = engine.granted.periodFrames * engine.granted.periodCount
                                return engine.framesHanded > Int64(buffer + engine.granted.periodFrames)
                            })
    }
}
