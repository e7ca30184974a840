import SegmanceCore
import Testing
@testable import SegmanceAudio

/// Loops that count (issue 16): a pause of exactly P frames before each repeat, and a stop
/// at E after the last of N passes, the same however the output is split into periods.
@Suite("Loops: a pause before each repeat to the frame, a stop after N passes", .tags(.unit))
struct LoopRepeatTests {
    @Test("the pause: ramp out at E, exactly P frames of silence, then A with a ramp-in",
          arguments: [97, 128, 1000])
    func pauseBeforeRepeat(period: Int) {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let e: Int64 = 4000, pause: Int64 = 12_345
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(0, .setLoop(start: 2000, end: e, countdownBeforeRepeat: 0, pauseFrames: pause)),
                            Cue(0, .play(from: 3000, countdown: 0))],
                       frames: Int(1000 + pause + 1000), period: period)
        let start = 1000 + pause
        #expect(take.events.map(\.report.kind) == [.started(at: 3000), .looped, .started(at: 2000)])
        #expect(take.events.map(\.frame) == [0, 1000, start])
        let bad = take.firstMismatch(240..<(start + 1000)) { f in
            if f < 1000 { return (pcm.a(3000 + f), pcm.a(3000 + f, 1)) }
            if f >= start {
                let i = f - start
                let g: Float = i < 240 ? rampIn(i, 240) : 1
                return (pcm.a(2000 + i) * g, pcm.a(2000 + i, 1) * g)
            }
            let i = f - 1000
            return i < 240 ? (pcm.a(e + i) * rampOut(i, 240), pcm.a(e + i, 1) * rampOut(i, 240)) : (0, 0)
        }
        #expect(bad == nil)
        // After the pause the position runs on from A.
        let position = r.position
        #expect(position == 2000 + 1000)
    }

    @Test("the pause comes before the count-in of a repeat")
    func pauseThenCountIn() {
        let rate: Int64 = 48_000
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let pause: Int64 = 24_000
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(0, .setLoop(start: 2000, end: 4000, countdownBeforeRepeat: 1, pauseFrames: pause)),
                            Cue(0, .play(from: 3000, countdown: 0))],
                       frames: Int(1000 + pause + rate + 100), period: 128)
        #expect(take.events.map(\.report.kind)
                == [.started(at: 3000), .looped, .countdownTick(remaining: 0), .started(at: 2000)])
        #expect(take.events.map(\.frame) == [0, 1000, 1000 + pause, 1000 + pause + rate])
    }

    @Test("after N passes the loop stops at E, back at A, and the next play counts from 1",
          arguments: [1, 3])
    func stopAfterPasses(passes: Int32) {
        let pcm = TestPCM(frames: 8000)
        defer { pcm.free() }
        var r = makeRenderer(crossfade: 100)
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(0, .setLoop(start: 1000, end: 1500, countdownBeforeRepeat: 0, passes: passes)),
                            Cue(0, .play(from: 1000, countdown: 0))], frames: 4000, period: 97)
        let end = Int64(passes) * 500
        #expect(take.frames { $0 == .looped } == (1..<Int64(passes)).map { $0 * 500 })
        #expect(take.frames { $0 == .loopFinished } == [end])
        let bad = take.firstMismatch((end + 240)..<4000) { _ in (0, 0) }
        #expect(bad == nil, "silence after the last pass")
        let playing = r.isPlaying, position = r.position
        #expect(!playing)
        #expect(position == 1000)
        // Again: the passes count from 1.
        let again = run(&r, [Cue(0, .play(from: 1000, countdown: 0))], frames: 4000, period: 128)
        #expect(again.frames { $0 == .looped }.count == Int(passes) - 1)
        #expect(again.frames { $0 == .loopFinished }.count == 1)
    }

    @Test("a loop set again counts its passes from 1")
    func setAgainResetsTheCount() {
        let pcm = TestPCM(frames: 8000)
        defer { pcm.free() }
        var r = makeRenderer(crossfade: 100)
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(0, .setLoop(start: 1000, end: 1500, countdownBeforeRepeat: 0, passes: 2)),
                            Cue(0, .play(from: 1000, countdown: 0)),
                            Cue(700, .setLoop(start: 1000, end: 1500, countdownBeforeRepeat: 0, passes: 2))],
                       frames: 2500, period: 100)
        // Wrapped at 500 (pass 2), set again at 700 (pass 1): wraps at 1000, stops at 1500.
        #expect(take.frames { $0 == .looped } == [500, 1000])
        #expect(take.frames { $0 == .loopFinished } == [1500])
    }
}
