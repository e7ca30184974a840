import Foundation
import SegmanceAudio
import SegmanceCore
import SegmanceMedia
import SegmanceAppliance
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// The appliance driving the real-time engine live, as the daemon and the interactive
/// simulator do: events into the reducer, commands through the ring at period
/// boundaries, reports back through the event ring and the eventfd. The render thread's
/// heap calls are counted over the whole run, ALSA writes included.
@Suite(.serialized) struct LiveApplianceTests {
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
        /// core whenever its eventfd wakes us.
        func play(_ seconds: Double) {
            let target = engine.framesHanded + Int64(seconds * 48_000)
            Replay.wait(engine, until: { engine.framesHanded >= target }) {
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

    /// No stretcher exists until the speed first leaves 100 %; then the control side makes
    /// them and hands them over with that command: the render thread makes no heap call at
    /// that first change nor while the part plays stretched, seeks and loops.
    @Test func theStretchersAreMadeAtTheFirstSpeedChangeAndTheRenderThreadStillMakesNoHeapCall() throws {
        let rig = try Rig(device: "null", probe: Replay.mallocProbe)
        rig.play(0.2)
        rig.send(.buttonPressed(.play))      // counts in 3 s, then plays at 100 %
        rig.play(4)
        #expect(rig.appliance.state.transport == .playing)
        #expect(rig.engine.stretchVoices == 0, "no stretcher at 100 %")
        rig.send(.encoderTurnedHolding(.loop, -5))   // the speed chord: 75 %
        rig.play(1)
        #expect(rig.appliance.state.speedPercent == 75)
        #expect(rig.engine.stretchVoices == 3)
        rig.send(.encoderTurned(2))          // seek +2 s: a crossfade of two stretched streams
        rig.play(1)
        rig.send(.encoderTurnedHolding(.loop, 10))   // 125 %
        rig.play(1)
        rig.send(.buttonPressed(.play))      // pause
        rig.play(0.5)
        rig.engine.stop(drain: true)
        rig.appliance.pollAudio()

        #expect(rig.engine.probeResult == 0)
        #expect(rig.engine.xrunCount == 0)
        #expect(rig.log.contains { $0.contains("3 stretchers made") }, "\(rig.log)")
        #expect(!rig.log.contains { $0.contains("dropped") || $0.contains("stopped") || $0.contains("late") }, "\(rig.log)")
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
