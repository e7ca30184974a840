import ALSA
import Foundation
import SegmanceAudio
import SegmanceCore
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// Deep-buffer scheduling on the paced test PCM (`PacedDevice`, its pointer moving frame by
/// frame as a DMA device's does): the render thread keeps a 170 ms buffer full and rewinds it
/// for commands. The device's capture is what it played, fetched as each 32 frames began to
/// play, so a rewind into frames it had taken would show. No libjack: these run under
/// ThreadSanitizer too (`Tests/Sanitizers/run.sh thread`), the device at a quarter pace.
@Suite(.tags(.integration), .serialized)
struct RewindTests {
    init() { EngineTestEnvironment.prepare() }

    static let rewind = EngineConfiguration.Rewind(guardFrames: 256, chunkFrames: 128)

    static func engine(_ run: PacedRun, periods: Int = 8) throws -> RealtimeAudioEngine {
        try engine(run, probe: RenderThreadProbe?.none, periods: periods)
    }

    static func engine<Probe: RenderProbe>(_ run: PacedRun, probe: Probe, periods: Int = 8,
                                           spares: Int? = nil) throws -> RealtimeAudioEngine {
        var render = Replay.configuration.render
        if let spares { render.stretchSpares = spares }
        // SCHED_FIFO where permitted, so a busy machine does not add underruns of its own.
        let configuration = EngineConfiguration(periodFrames: 1024, periods: periods, realtimePriority: 50,
                                                lockMemory: false, render: render, rewind: rewind)
        return try RealtimeAudioEngine(output: try run.output(), configuration: configuration, probe: probe)
    }

    /// The heap-call probe, where one can count (a sanitizer owns malloc), and what it must say.
    static var probe: RenderThreadProbe? { PacedDevice.underSanitizer ? nil : Replay.mallocProbe }
    static var noHeapCalls: Int? { PacedDevice.underSanitizer ? nil : 0 }

    /// Commands sent for frames the thread has already written (2048 frames before the end
    /// of what it handed ALSA, still far ahead of the play head) are applied there by
    /// rewinding: the device ends up with exactly what the render function makes of the
    /// same commands at the same frames offline, every sample; the reports reach the
    /// control side once each, as offline; nothing is late, nothing underruns, and the
    /// render thread makes no heap call.
    @Test func commandsForFramesAlreadyWrittenAreRewoundAndTheDevicePlaysTheOfflineRender() throws {
        // Each command with the frames to let pass before it: the loop wraps a few times,
        // the countdown ticks and starts before the loop is cleared.
        try Self.rewoundRun("rewind", [
            (.seek(96_000), 12_000), (.setVolume(50), 12_000),
            (.setLoop(start: 100_000, end: 110_000, countdownBeforeRepeat: 0), 12_000), (.setVolume(100), 30_000),
            (.pause, 12_000), (.play(from: 102_000, countdown: 1), 12_000), (.clearLoop, 60_000),
            (.seek(300_000), 12_000), (.stop, 12_000),
        ])
    }

    /// The same at changing speeds (issue 12): the stretchers' state cannot be rewound, but
    /// a stream is a function of its PCM, origin and speed and its recent output is kept,
    /// so a rewound renderer plays what the offline render plays, every sample, with no
    /// heap call on the render thread at 50, 75 or 150 %.
    @Test func speedChangesAreRewoundTooAndTheDevicePlaysTheOfflineRender() throws {
        try Self.rewoundRun("rewind-speed", Self.speedScript)
    }

    static let speedScript: [(RenderCommand, Int64)] = [
        (.setSpeed(75), 12_000), (.seek(96_000), 12_000),
        (.setLoop(start: 100_000, end: 110_000, countdownBeforeRepeat: 0), 12_000), (.setSpeed(50), 30_000),
        (.setSpeed(150), 20_000), (.pause, 12_000), (.play(from: 102_000, countdown: 1), 12_000),
        (.clearLoop, 60_000), (.setSpeed(100), 12_000), (.seek(300_000), 12_000), (.setSpeed(55), 12_000),
        (.stop, 12_000),
    ]

    /// The same with spare stretchers, whatever the library (they are kept where its reset
    /// calls the heap, Rubber Band 3.2 on): each stream starts on a spare the control side
    /// reset, none on a stretcher reset on the render thread, and the device plays every
    /// sample the offline render plays (where a start resets the spare it leaves at once).
    @Test func withSpareStretchersNoStartResetsOnTheRenderThread() throws {
        try Self.rewoundRun("rewind-spares", Self.speedScript, spares: StretchPool.spareCount)
    }

    /// A buffer deeper than a stretched stream's default ring (1024 × 32, 32,768 frames,
    /// against 16,384; the engine raises its rings to the buffer): commands for frames
    /// 20,000 back are rewound at 75 %, 50 % and 150 % too, each where it was sent for: none
    /// refused, none late, no underrun, no heap call. Not every sample as offline (see
    /// `rewoundRun`'s `exact`): measured here, commands 6,000 frames back at 1024 × 8 and
    /// 12,000 back at 1024 × 16 already differ from the offline render after a few commands.
    @Test func commandsFarBackInADeepBufferAreRewoundAtEverySpeed() throws {
        try Self.rewoundRun("rewind-deep-speed", [
            (.setSpeed(75), 24_000), (.seek(96_000), 24_000),
            (.setLoop(start: 100_000, end: 110_000, countdownBeforeRepeat: 0), 24_000), (.setSpeed(50), 30_000),
            (.setSpeed(150), 24_000), (.pause, 24_000), (.play(from: 102_000, countdown: 1), 24_000),
            (.clearLoop, 60_000), (.stop, 24_000),
        ], periods: 32, behind: 20_000, exact: false)
    }

    /// Plays `script` on the deep-buffer engine (1024 × `periods`), each command sent for
    /// frames already written (`behind` before the end of what was handed), and compares
    /// the device's audio and reports with the offline render.
    ///
    /// `exact`: the audio equals the offline render's, every sample. A command far back in
    /// the buffer may find the stream it rewinds into restarted (two stretchers serve three
    /// voices, and one runs ahead for a loop's next pass), and a restarted Rubber Band
    /// stretcher's samples depend on what it ran before: exact only near the end of what
    /// was written, as `behind`'s 2,048 frames are.
    static func rewoundRun(_ name: String, _ script: [(RenderCommand, Int64)], periods: Int = 8,
                           behind: Int64 = 2_048, exact: Bool = true, spares: Int? = nil) throws {
        let run = try PacedRun(name, seconds: 20, device: .paced(continuous: true))
        defer { run.close() }
        let path = run.tapPath
        let part = run.part

        var sent = [TimedCommand(StampedCommand(.load(part), epoch: 1), frame: 0),
                    TimedCommand(StampedCommand(.play(from: 0, countdown: 0), epoch: 2), frame: 0)]
        var reports: [AudioReport] = []
        var log: [String] = []
        let engine = try Self.engine(run, probe: Self.probe, periods: periods, spares: spares)
        // Making the stretchers at the first speed change takes longer (in a debug build) than
        // the 2048 frames these commands leave: made now, handed over with that change.
        if script.contains(where: { if case .setSpeed = $0.0 { true } else { false } }) { engine.prepareStretchers() }
        for command in sent { #expect(engine.send(command)) }
        try engine.start()
        // A timeout ends the test (the engine is dropped, not drained) instead of waiting
        // again on a device that has stopped.
        func wait(until done: () -> Bool) throws {
            try #require(Replay.wait(engine, timeout: 30, until: done) {
                reports += engine.takeReports()
                log += engine.takeLog()
            }, "\(log)")
        }
        for (i, (command, before)) in script.enumerated() {
            let due = engine.framesHanded + before
            try wait { engine.framesHanded >= due }
            // Not on a chunk boundary: the thread rewinds to the boundary before and splits there.
            let timed = TimedCommand(StampedCommand(command, epoch: UInt32(3 + i)),
                                     frame: engine.framesHanded - behind + Int64(i * 37))
            #expect(engine.send(timed))
            sent.append(timed)
        }
        let end = engine.framesHanded + 24_000
        try wait { engine.framesHanded >= end }
        engine.stop(drain: true)
        reports += engine.takeReports()
        log += engine.takeLog()
        #expect(engine.rewindCount >= script.count)
        #expect(engine.refusedRewindCount == 0)
        #expect(engine.xrunCount == 0, "\(log)")
        #expect(!log.contains { $0.contains("late") }, "\(log)")
        #expect(engine.probeResult == Self.noHeapCalls)
        #expect(engine.stretchVoices == 0 || engine.stretchSpares == spares ?? engine.configuration.render.stretchSpares)
        #expect(engine.stretchResetsAtStart == 0, "stream starts that reset a stretcher on the render thread")
        let truth = try run.truth()
        let gaps = truth.gaps(before: engine.framesHanded)
        #expect(gaps.xruns.isEmpty && gaps.shorts.isEmpty, "underruns \(gaps.xruns), short fetches \(gaps.shorts)")

        // Offline: the same commands at the same frames, straight into the render function.
        let captured = try Replay.s16Samples(path)
        let total = captured.count / 2
        // A drain gives up a second past the buffer's length in real time: at a quarter pace
        // (a sanitizer) a deep buffer's last frames are dropped, not played.
        #expect(total >= Int(end) - (PacedDevice.underSanitizer ? periods * 1024 : 0))
        var renderer = Renderer(sampleRate: 48_000, config: engine.configuration.render)
        var floats = [Float](repeating: 0, count: total * 2)
        var offlineReports: [AudioReport] = []
        floats.withUnsafeMutableBufferPointer { out in
            for command in sent {
                let upTo = Int(command.frame)
                let from = Int(renderer.clock)
                if upTo > from { renderer.render(into: out.baseAddress! + from * 2, frames: upTo - from) }
                renderer.apply(command.command)
            }
            let from = Int(renderer.clock)
            renderer.render(into: out.baseAddress! + from * 2, frames: total - from)
            offlineReports = renderer.takeReports().map(\.report)
        }
        var offline = [Int16](repeating: 0, count: total * 2)
        offline.withUnsafeMutableBytes { bytes in
            floats.withUnsafeBufferPointer {
                SampleConversion.convert($0.baseAddress!, count: total * 2, to: .s16LE, into: bytes.baseAddress!)
            }
        }
        #expect(offline.contains { $0 != 0 })
        guard exact else { return }
        let difference = Replay.firstDifference(captured, offline, count: total * 2)
        #expect(difference == nil, "first differing sample \(difference ?? -1) (frame \((difference ?? 0) / 2))")

        // Reports of the frames handed, once each; positions thin out with the wakes, so they
        // are compared apart from the rest.
        func events(_ list: [AudioReport]) -> [AudioReport] {
            list.filter { if case .position = $0.kind { false } else { true } }
        }
        let delivered = events(reports)
        #expect(delivered == Array(events(offlineReports).prefix(delivered.count)))
        #expect(delivered.contains { $0.kind == .looped }, "\(delivered)")
        #expect(delivered.contains { $0.kind == .started(at: 102_000) }, "\(delivered)")
    }

    /// On a device whose pointer moves a period at a time (the paced PCM's "period" pointer)
    /// the period playing was taken as it began: a command sent with no frame rewinds to a
    /// period the device has not taken, a guard or more ahead, so nothing is written over a
    /// frame it took (its truth's `late` lines), wherever in a period the commands fall.
    @Test func onAPeriodPointerARewindNeverWritesOverAPeriodTheDeviceTook() throws {
        let run = try PacedRun("rewind-period-pointer", seconds: 20, device: .paced(continuous: false))
        defer { run.close() }
        let engine = try Self.engine(run, probe: Self.probe)
        engine.send(StampedCommand(.load(run.part), epoch: 1))
        engine.send(StampedCommand(.play(from: 0, countdown: 0), epoch: 2))
        try engine.start()
        var log: [String] = []
        var random = SplitMix(seed: 4)
        for i in 0..<40 {
            usleep(UInt32(15_000 + random.next() % 30_000))
            _ = engine.takeReports()
            log += engine.takeLog()
            let command: RenderCommand = i % 2 == 0
                ? .seek(48_000 + random.next() % 400_000) : .setVolume(Int32(50 + i))
            engine.send(StampedCommand(command, epoch: UInt32(3 + i)))
        }
        // The last command plays out: 300 ms more handed to the device, by its own clock.
        let end = engine.framesHanded + 14_400
        try #require(Replay.wait(engine, timeout: 30, until: { engine.framesHanded >= end }) {
            _ = engine.takeReports()
            log += engine.takeLog()
        }, "\(log)")
        engine.stop(drain: true)
        log += engine.takeLog()
        let truth = try run.truth()
        // A command that arrives during a refill is rendered in it, with nothing to rewind.
        #expect(engine.rewindCount >= 20, "\(engine.rewindCount) rewinds for 40 commands: \(log)")
        let gaps = truth.gaps(before: engine.framesHanded)
        #expect(engine.xrunCount == 0 && gaps.xruns.isEmpty, "\(log)")
        // A period fetched before it was all written (a short fetch: the render thread missed
        // the guard's deadline, seen once at load 15) is written late after it: not a rewind
        // into a period taken. Any other late write is.
        let period = Int64(engine.granted.periodFrames)
        let intoTaken = truth.lates.filter { late in !truth.shorts.contains { $0 <= late && late < $0 + period } }
        #expect(intoTaken.isEmpty,
                Comment(rawValue: "\(intoTaken.count) writes over periods the device took, "
                    + "at \(intoTaken.prefix(5)); shorts at \(truth.shorts)"))
        #expect(gaps.shorts.count <= 2, "short fetches at \(gaps.shorts)")
    }

    /// A command sent with no frame sounds the guard (plus at most a chunk) past the play
    /// head, not after the 170 ms the buffer holds: the thread wakes for it, rewinds, and
    /// hands the changed chunk to ALSA at once.
    @Test func aPlainCommandSoundsAGuardPastThePlayHeadNotABufferLater() throws {
        let run = try PacedRun("rewind-plain", seconds: 10, device: .paced(continuous: true))
        defer { run.close() }
        let playing = try PlayingEngine(try Self.engine(run), part: run.part)
        let engine = playing.engine
        try playing.collect { engine.framesHanded >= 24_000 }
        playing.timings.removeAll()
        var handedWhenSent: [Int64] = []
        for epoch in UInt32(3)...8 {
            let due = engine.framesHanded + 6_000
            try playing.collect { engine.framesHanded >= due }
            handedWhenSent.append(engine.framesHanded)
            let count = playing.timings.count
            engine.send(StampedCommand(.setVolume(Int32(epoch) * 10), epoch: epoch))
            try playing.collect { playing.timings.count > count }
        }
        engine.stop(drain: false)
        try #require(playing.timings.count == 6)
        #expect(playing.timings.map(\.firstEpoch) == Array(UInt32(3)...8))
        for (timing, handed) in zip(playing.timings, handedWhenSent) {
            #expect(timing.frame % 128 == 0)
            #expect(timing.frame < handed, "applied at \(timing.frame), the buffer ended at \(handed): no rewind")
            #expect(timing.framesAheadOfChange <= 256 + 128, "\(timing)")
        }
        #expect(engine.rewindCount >= 6)
        #expect(engine.xrunCount == 0, "\(playing.log)")
    }

    /// A command that comes while the thread refills the buffer is not applied in the
    /// refill, as far past the play head as the refill has got: the refill stops and the
    /// thread rewinds for it, so it sounds the guard past the play head like any other.
    /// The thread is held (`holdForCommand`) at the start of a refill's chunk and the command
    /// sent meanwhile; applied in the refill, it sounded a buffer late, and the commands
    /// after it were held behind it (a rewind never goes back past the last command).
    @Test func aCommandThatComesDuringARefillIsRewoundForNotAppliedInTheRefill() throws {
        let run = try PacedRun("rewind-refill", seconds: 10, device: .paced(continuous: true))
        defer { run.close() }
        let hooks = HookProbe()
        defer { hooks.destroy() }
        // 512 ms: the thread wakes for room with 128 ms still queued.
        let playing = try PlayingEngine(try Self.engine(run, probe: hooks, periods: 24), part: run.part)
        let engine = playing.engine
        defer { engine.stop(drain: false) }
        try playing.collect { engine.framesHanded >= 48_000 }
        playing.timings.removeAll()
        for epoch in UInt32(3)...6 {
            hooks.holdForCommand()
            // The thread wakes the control side as it begins to hold.
            try playing.collect { hooks.isHoldingForCommand }
            let count = playing.timings.count
            engine.send(StampedCommand(.setVolume(Int32(epoch) * 10), epoch: epoch))
            try playing.collect { playing.timings.count > count }
        }
        engine.stop(drain: false)
        try #require(playing.timings.count == 4)
        #expect(playing.timings.map(\.firstEpoch) == Array(UInt32(3)...6))
        for timing in playing.timings {
            #expect(timing.framesAheadOfChange <= 256 + 128, "\(timing)")
        }
        #expect(engine.refusedRewindCount == 0)
        #expect(engine.xrunCount == 0, "\(playing.log)")
    }

    /// Playing alone does not wake the control side: positions (ten a second) reach it with
    /// its next wake, which it times itself (the clock on the LCD from the device's clock,
    /// `heard(at:)`). Only the start's reports wake it. The wake eventfd's counter, summed
    /// over three seconds of playback, counts the wakes. Both schedulings.
    @Test(arguments: [false, true])
    func playingAloneDoesNotWakeTheControlSide(deepBuffer: Bool) throws {
        let run = try PacedRun("wakes", seconds: 10, device: .paced(continuous: true))
        defer { run.close() }
        let engine = try deepBuffer
            ? Self.engine(run)
            : RealtimeAudioEngine(output: try run.output(),
                                  configuration: EngineConfiguration(realtimePriority: 50, lockMemory: false))
        engine.send(StampedCommand(.load(run.part), epoch: 1))
        engine.send(StampedCommand(.play(from: 0, countdown: 0), epoch: 2))
        try engine.start()
        // Each read of the eventfd gives the wakes since the last one, so the sum counts them
        // all; the reports are taken only at the end (taking them reads the eventfd too).
        var wakes: UInt64 = 0
        func countWakes() {
            var count: UInt64 = 0
            if read(engine.wakeDescriptor, &count, 8) == 8 { wakes += count }
        }
        try #require(Replay.wait(engine, timeout: 30, until: { engine.framesHanded >= 3 * 48_000 + 24_000 },
                                 each: countWakes), "the device did not play")
        countWakes()
        let handed = engine.framesHanded
        let reports = engine.takeReports()
        engine.stop(drain: false)
        // Waking for positions, it was one a whole second, 4 or more in these 3.5 s. A report
        // other than a position (an underrun on a loaded machine) is worth its wake.
        let waking = reports.filter { if case .position = $0.kind { false } else { true } }
        #expect(wakes >= 1, "the start wakes it")
        #expect(wakes <= 2 + UInt64(waking.count), "\(wakes) wakes in \(handed) frames; reports that wake: \(waking)")
        let positions = reports.filter { if case .position = $0.kind { true } else { false } }
        #expect(positions.count >= 25, "positions reach the control side all the same")
    }
}
