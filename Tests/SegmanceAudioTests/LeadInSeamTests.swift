import SegmanceCore
import Testing
@testable import SegmanceAudio

@Suite("Lead-in: each repeat starts before A, the seam exact", .tags(.unit))
struct LeadInSeamTests {
    /// A loop [A, E) with a lead-in of L: after E-1 comes the audio of A-L, crossfaded by the
    /// same formula as a plain loop's seam, and every later pass again from A-L.
    @Test("after E-1 comes the audio of A minus the lead-in, crossfaded, pass after pass",
          arguments: [(Int64(3000), Int64(6000), Int64(1000)), (2000, 8000, 500), (500, 4000, 2000)])
    func seam(a: Int64, e: Int64, lead: Int64) {
        let pcm = TestPCM(frames: 8000)
        defer { pcm.free() }
        var r = makeRenderer(crossfade: 240)
        let start = max(0, a - lead)
        let pass = e - start
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(0, .setLoop(start: a, end: e, countdownBeforeRepeat: 0, leadIn: lead)),
                            Cue(0, .play(from: a, countdown: 0))], frames: Int(e - a + 2 * pass))
        // The first pass from A (as counted in), then each from A - L (never before the part's start);
        // the third seam falls on the last frame rendered.
        #expect(take.frames { $0 == .looped } == [e - a, e - a + pass, e - a + 2 * pass])
        let bad = take.firstMismatch(240..<(e - a + 2 * pass)) { f in
            if f < e - a { return (pcm.a(a + f), pcm.a(a + f, 1)) }
            let i = (f - (e - a)) % pass
            if i < 240 {
                return (crossfade(pcm.a(start + i), pcm.a(e + i), i, 240),
                        crossfade(pcm.a(start + i, 1), pcm.a(e + i, 1), i, 240))
            }
            return (pcm.a(start + i), pcm.a(start + i, 1))
        }
        #expect(bad == nil)
    }

    @Test("the core's loop region carries its lead-in and ramp to the render side")
    func conversion() {
        let region = LoopRegion(range: 48_000..<96_000, leadIn: 24_000,
                                ramp: SpeedRamp(from: 70, step: 10, every: 2, to: 100))
        let command = RenderCommand(.setLoop(region)) { _ in nil }
        #expect(command == .setLoop(start: 48_000, end: 96_000, countdownBeforeRepeat: 0, leadIn: 24_000,
                                    ramp: RenderRamp(from: 70, step: 10, every: 2, to: 100)))
        let ramp = RenderRamp(from: 70, step: 10, every: 2, to: 100)
        #expect((1...8).map { ramp.speed(ofPass: Int32($0)) } == [70, 70, 80, 80, 90, 90, 100, 100])
        #expect(RenderRamp.none.speed(ofPass: 3) == nil)
    }
}
