import Foundation
import SegmanceAudio
import SegmanceCore
import SegmanceAppliance
import CMallocCounter
import LinuxSystem
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// The appliance driving the real-time engine live, as the daemon and the interactive
/// simulator do: events into the reducer, commands through the ring at period
/// boundaries, reports back through the event ring and the eventfd. The render thread's
/// heap calls are counted over the whole run, ALSA writes included.
@Suite(.tags(.integration), .serialized) struct LiveApplianceTests {
    init() { EngineTestEnvironment.prepare() }

    final class Rig {
        let engine: RealtimeAudioEngine
        let appliance: Appliance
        var seen: [Transport] = []
        var log: [String] = []

        init(device: String, probe: RenderThreadProbe?) throws {
            var configuration = EngineConfiguration(device: device, lockMemory: false)
            configuration.realtimePriority = nil
            engine = try RealtimeAudioEngine(configuration: configuration, probe: probe)
            appliance = try Appliance(Replay.configuration, audio: engine)
            appliance.importStick(EngineTestEnvironment.demoStick)
            try engine.start()
        }

        /// Lets the engine hand `seconds` more audio to ALSA, feeding its reports to the
        /// core whenever its eventfd wakes us, and every millisecond: ALSA's null device
        /// takes audio as fast as it is rendered, seconds of it in the 100 ms
        /// `Replay.waitForWake` would wait with nothing to wake it (positions do not), and
        /// the core would start the music after the count-in that much late.
        func play(_ seconds: Double) {
            let target = engine.framesHanded + Int64(seconds * 48_000)
            let deadline = monotonicNanoseconds() + 120_000_000_000
            while engine.framesHanded < target && monotonicNanoseconds() < deadline {
                var fd = pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&fd, 1, 1)
                appliance.pollAudio()
                log += engine.takeLog()
                if seen.last != appliance.state.transport { seen.append(appliance.state.transport) }
            }
        }

        func send(_ event: Event) {
            appliance.send(event)
            if seen.last != appliance.state.transport { seen.append(appliance.state.transport) }
        }
    }

    @Test func noAllocationOnTheRenderThreadAcrossPlayPauseSeekLoopsCountdownsAndPartChanges() throws {
        let rig = try Rig(device: "null", probe: Replay.mallocProbe)
        rig.play(0.2)
        rig.send(.buttonPressed(.play))      // Street Jam counts in 3 s, then plays
        rig.play(4)
        #expect(rig.appliance.state.transport == .playing)
        rig.send(.encoderTurned(2))          // seek +2 s
        rig.play(0.5)
        rig.send(.buttonPressed(.next))      // Groove: its saved A-B loop, count in again
        rig.play(4)
        rig.send(.buttonPressed(.loop))      // clear the saved loop
        rig.send(.buttonPressed(.loop))      // mark A
        rig.play(1)
        rig.send(.buttonPressed(.loop))      // mark B: the loop is on, counts before each repeat
        rig.play(6)
        rig.send(.buttonLongPressed(.loop))  // whole-part loop
        rig.play(0.5)
        rig.send(.buttonPressed(.play))      // pause
        rig.play(0.5)
        #expect(rig.appliance.state.transport == .paused)
        rig.send(.buttonPressed(.play))      // resume (counts in)
        rig.play(4)
        rig.send(.buttonLongPressed(.play))  // stop
        rig.play(0.5)
        rig.engine.stop(drain: true)
        rig.appliance.pollAudio()

        #expect(rig.engine.probeResult == 0)
        #expect(rig.engine.xrunCount == 0)
        #expect(rig.seen.contains { if case .countingDown = $0 { true } else { false } })
        #expect(rig.seen.contains(.playing) && rig.seen.contains(.paused) && rig.seen.contains(.stopped))
        #expect(!rig.log.contains { $0.contains("dropped") || $0.contains("stopped") }, "\(rig.log)")
    }

    /// No stretcher exists until the speed first leaves 100 %; then a worker thread makes
    /// them and `send` returns at once: the control side (the daemon's loop, which also reads
    /// the buttons and draws the LCD) does not make them. Counted structurally: the heap calls
    /// the calling thread makes in that `send` stay under a tenth of what making a single
    /// stretcher takes (counted beside it), and `send` returns before the stretchers exist,
    /// holding the speed change and the seek sent after it. When the worker is done it wakes
    /// the control side, which hands them over with the speed change: the render thread makes
    /// no heap call at that first change nor while the part plays stretched, seeks and
    /// changes speed again.
    @Test
    func theStretchersAreMadeAtTheFirstSpeedChangeOffTheControlThreadAndTheRenderThreadStillMakesNoHeapCall() throws {
        var configuration = EngineConfiguration(device: "null", lockMemory: false)
        configuration.realtimePriority = nil
        let engine = try RealtimeAudioEngine(configuration: configuration, probe: Replay.mallocProbe)
        let frames = 48_000 * 20
        let pcm = UnsafeMutablePointer<Int16>.allocate(capacity: frames * 2)
        defer { pcm.deallocate() }
        for i in 0..<(frames * 2) { pcm[i] = Int16(truncatingIfNeeded: (i &* 7_919) % 20_000 - 10_000) }
        var log: [String] = []
        var epoch: UInt32 = 0
        func send(_ command: RenderCommand) {
            epoch += 1
            engine.send(StampedCommand(command, epoch: epoch))
        }
        func play(_ seconds: Double) {
            let target = engine.framesHanded + Int64(seconds * 48_000)
            Replay.wait(engine, until: { engine.framesHanded >= target }) {
                _ = engine.takeReports()
                log += engine.takeLog()
            }
        }
        // The peer: the heap calls making one stretcher (not warmed up) takes on this thread.
        segmance_alloc_count_begin()
        let one = Renderer.makeStretchers(sampleRate: 48_000, config: RenderConfig(stretchVoices: 1))
        let oneStretcher = segmance_alloc_count_end()
        #expect(one != nil)

        try engine.start()
        send(.load(PCMSlice(base: UnsafePointer(pcm), frames: Int64(frames))))
        send(.play(from: 0, countdown: 0))
        play(1)
        #expect(engine.stretchVoices == 0, "no stretcher at 100 %")
        segmance_alloc_count_begin()
        send(.setSpeed(75))
        let sending = segmance_alloc_count_end()
        #expect(engine.isMakingStretchers)
        #expect(engine.stretchVoices == 0, "send returned before the stretchers exist")
        #expect(sending >= 0 && sending * 10 < oneStretcher,
                Comment(rawValue: "\(sending) heap calls on the control thread sending the first speed change; "
                    + "making one stretcher: \(oneStretcher)"))
        send(.seek(96_000))                  // waits behind the speed change: a crossfade of two stretched streams
        #expect(engine.pendingCommands >= 2)
        Replay.wait(engine, until: { engine.stretchVoices == 3 && engine.pendingCommands == 0 }) {
            _ = engine.takeReports()
            log += engine.takeLog()
        }
        #expect(!engine.isMakingStretchers)
        play(1)
        send(.setSpeed(125))
        play(1)
        send(.setSpeed(100))
        play(0.5)
        send(.setSpeed(50))
        play(0.5)
        send(.pause)
        play(0.2)
        engine.stop(drain: true)
        _ = engine.takeReports()
        log += engine.takeLog()

        #expect(engine.probeResult == 0)
        #expect(engine.xrunCount == 0)
        #expect(log.filter { $0.contains("stretchers made") }.count == 1, "\(log)")
        #expect(log.contains { $0.contains("stretchers made") && $0.contains("2 command(s) held") }, "\(log)")
        #expect(!log.contains { $0.contains("dropped") || $0.contains("stopped") || $0.contains("late") }, "\(log)")
    }

    @Test func positionAndReportsReachTheCore() throws {
        let rig = try Rig(device: "null", probe: nil)
        rig.send(.buttonPressed(.play))
        rig.play(5)
        let (frame, epoch) = rig.engine.position
        #expect(epoch == rig.appliance.state.epoch)
        // 3 s of countdown, then about 2 s of audio (position reports every 100 ms).
        #expect(frame > 48_000 && frame < 3 * 48_000)
        #expect(rig.appliance.state.position > 48_000)
        rig.engine.stop(drain: false)
    }
}
