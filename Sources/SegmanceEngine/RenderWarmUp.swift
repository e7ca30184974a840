import ALSA
import SegmanceAudio
import SegmanceCore

/// Runs the render function through every path it has, on scratch memory, so its code is
/// resident before the real-time thread needs it. With the process's memory locked on
/// fault (`mlockall(MCL_ONFAULT)`), what this touches stays locked: the render thread then
/// never takes a page fault on its first countdown tick, loop seam or crossfade. Call it
/// on the control side, after start-up memory was given back (`ResidentSet.trim`).
public enum RenderWarmUp {
    /// Renders three and a half seconds of a scripted timeline (load, a counted start, playing,
    /// seek, an A–B loop with a counted repeat, volume, pause, play, the next part taking
    /// over, the speed at 150 % and 50 %, stop) into scratch buffers, as `configuration`
    /// renders. Returns the reports the timeline produced (which also keeps the work from
    /// being optimised away).
    ///
    /// The speed changes run on `stretchers` (their streams are forgotten afterwards); without,
    /// they are ignored: stretch voices are made only when the speed first leaves 100 %
    /// (`RealtimeAudioEngine`), and warmed up then, with the render code that uses them.
    /// The stretch voices `configuration` asks for at `sampleRate`, for the render thread to
    /// keep (`Renderer.makeStretchers`): run through this warm-up, so the render code's speed
    /// paths and every page they touch are resident, then warmed up again as made
    /// (`StretchStorage.warmUp`), since a reset Rubber Band R3 stretcher's output still
    /// depends on what it ran before and the twin's never ran this (`WarmedStretcherTests`).
    /// Nil when none can be made. Allocates: off the render thread.
    public static func makeStretchers(_ configuration: EngineConfiguration, sampleRate: Int) -> StretchStorage? {
        guard let made = Renderer.makeStretchers(sampleRate: sampleRate, config: configuration.render) else {
            return nil
        }
        run(configuration, stretchers: made)
        return made.warmUp() ? made : nil
    }

    @discardableResult
    public static func run(_ configuration: EngineConfiguration,
                           stretchers: StretchStorage? = nil) -> [AudioReport.Kind] {
        let rate = configuration.rate
        let frames = rate * 2
        // Mapped, not from the heap: freed heap memory stays resident while memory is locked.
        guard let pcm = ScratchPages.map(Int16.self, count: frames * 2) else { return [] }
        defer { ScratchPages.unmap(pcm, count: frames * 2) }
        for i in 0..<(frames * 2) { pcm[i] = Int16(truncatingIfNeeded: i &* 37) }
        let slice = PCMSlice(base: UnsafePointer(pcm), frames: Int64(frames))
        let period = configuration.periodFrames
        let out = UnsafeMutablePointer<Float>.allocate(capacity: period * 2)
        defer { out.deallocate() }
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: period * 2 * 4, alignment: 16)
        defer { bytes.deallocate() }

        var renderer = Renderer(sampleRate: rate, config: configuration.render, deferringStretchers: true)
        if let stretchers { renderer.attach(stretchers.pool) }
        defer { stretchers?.forgetStreams() }
        let r = Int64(rate)
        // Times in tenths of a second: a counted start (audio from 1.0), a seek, a seamless
        // loop wrapping at 1.35, a counted one of two passes wrapping at 1.45, pausing 0.02 s,
        // resuming at 2.47 and finishing at 2.57, volume, pause, play, the next part taking
        // over at 2.9, stop.
        func at(_ tenths: Int) -> Int { rate * tenths / 10 }
        let timeline: [(at: Int, command: RenderCommand)] = [
            (0, .load(slice)), (0, .setVolume(100)), (0, .play(from: 0, countdown: 1)),
            (at(11), .seek(r / 4)), (at(12), .setLoop(start: r / 4, end: r / 2, countdownBeforeRepeat: 0)),
            (at(14), .setLoop(start: r / 4, end: r * 35 / 100, countdownBeforeRepeat: 1, pauseFrames: r / 50,
                              passes: 2)),
            (at(26), .clearLoop), (at(26), .setVolume(60)), (at(27), .pause),
            (at(28), .play(from: r / 2, countdown: 0)), (at(28), .setNext(slice.slice(from: 0, length: r / 2))),
            (at(29), .seek(r * 19 / 10)), (at(30), .setSpeed(150)), (at(31), .setSpeed(50)), (at(32), .stop),
        ]
        var next = 0
        var reports: [AudioReport.Kind] = []
        var clock = 0
        let end = at(35)
        while clock < end {
            while next < timeline.count, timeline[next].at <= clock {
                renderer.apply(StampedCommand(timeline[next].command, epoch: UInt32(next + 1)))
                next += 1
            }
            renderer.render(into: out, frames: period)
            renderer.drainReports { reports.append($0.report.kind) }
            SampleConversion.convert(out, count: period * 2, to: configuration.format, into: bytes)
            clock += period
        }
        return reports
    }
}
