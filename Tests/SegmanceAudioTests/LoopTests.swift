import SegmanceCore
import Testing
@testable import SegmanceAudio

@Suite("Loops: seams crossfaded exactly, counted repeats", .tags(.unit))
struct LoopTests {
    /// (A, E) inside a part of 8000 frames; E = 8000 is the part's end, where the
    /// crossfade reads silence past it.
    @Test("after E-1 comes A's audio, crossfaded by the formula",
          arguments: [(Int64(2000), Int64(6000)), (2000, 8000), (0, 8000)])
    func seam(a: Int64, e: Int64) {
        let pcm = TestPCM(frames: 8000)
        defer { pcm.free() }
        var r = makeRenderer(crossfade: 240)
        let p = e - 1000
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(0, .setLoop(start: a, end: e, countdownBeforeRepeat: 0)),
                            Cue(0, .play(from: p, countdown: 0))], frames: 2000)
        let bad = take.firstMismatch(240..<2000) { f in
            if f < 1000 { return (pcm.a(p + f), pcm.a(p + f, 1)) }
            let i = f - 1000
            if i < 240 {
                return (crossfade(pcm.a(a + i), pcm.a(e + i), i, 240),
                        crossfade(pcm.a(a + i, 1), pcm.a(e + i, 1), i, 240))
            }
            return (pcm.a(a + i), pcm.a(a + i, 1))
        }
        #expect(bad == nil)
        #expect(take.events.map(\.report.kind) == [.started(at: p), .looped])
        #expect(take.events.last?.frame == 1000)
        let position = r.position
        #expect(position == a + 1000)
    }

    /// B is marked where it was heard (or where the control side last read the position);
    /// by the time the loop reaches the render side the play head has moved on past it. It
    /// wraps at once, crossfaded, to as far past A as the head was past B, so a loop of
    /// whole beats keeps the beat across its first seam too.
    @Test("a loop that arrives after the play head passed its end wraps at once, as far past A")
    func loopArrivingLate() {
        let pcm = TestPCM(frames: 20_000)
        defer { pcm.free() }
        var r = makeRenderer(crossfade: 240)
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 0, countdown: 0)),
                            Cue(6_000, .setLoop(start: 1_000, end: 5_000, countdownBeforeRepeat: 0))],
                       frames: 8_000, period: 128)
        // The loop applies at 6000, a thousand frames past its end: the seam is there, to A + 1000.
        #expect(take.frames { $0 == .looped } == [6_000])
        let bad = take.firstMismatch(240..<8_000) { f in
            if f < 6_000 { return (pcm.a(f), pcm.a(f, 1)) }
            let i = f - 6_000
            return i < 240
                ? (crossfade(pcm.a(2_000 + i), pcm.a(6_000 + i), i, 240),
                   crossfade(pcm.a(2_000 + i, 1), pcm.a(6_000 + i, 1), i, 240))
                : (pcm.a(2_000 + i), pcm.a(2_000 + i, 1))
        }
        #expect(bad == nil)
        #expect(r.position == 2_000 + 8_000 - 6_000)
    }

    @Test("a loop that arrives more than its length past its end wraps to A")
    func loopArrivingAFullLoopLate() {
        let pcm = TestPCM(frames: 20_000)
        defer { pcm.free() }
        var r = makeRenderer(crossfade: 240)
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 0, countdown: 0)),
                            Cue(6_000, .setLoop(start: 1_000, end: 2_000, countdownBeforeRepeat: 0))],
                       frames: 6_500, period: 128)
        #expect(take.frames { $0 == .looped } == [6_000])
        #expect(r.position == 1_000 + 500)
    }

    @Test("a short loop wraps at every pass, each seam crossfaded")
    func repeatedWraps() {
        let pcm = TestPCM(frames: 8000)
        defer { pcm.free() }
        var r = makeRenderer(crossfade: 100)
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(0, .setLoop(start: 1000, end: 1500, countdownBeforeRepeat: 0)),
                            Cue(0, .play(from: 1000, countdown: 0))], frames: 2600, period: 97)
        #expect(take.frames { $0 == .looped } == [500, 1000, 1500, 2000, 2500])
        let bad = take.firstMismatch(500..<2600) { f in
            let i = (f - 500) % 500
            return i < 100
                ? (crossfade(pcm.a(1000 + i), pcm.a(1500 + i), i, 100),
                   crossfade(pcm.a(1000 + i, 1), pcm.a(1500 + i, 1), i, 100))
                : (pcm.a(1000 + i), pcm.a(1000 + i, 1))
        }
        #expect(bad == nil)
    }

    @Test("countdown before repeat: ramp out at E, ticks, then A with a ramp-in")
    func countdownBeforeRepeat() {
        let rate: Int64 = 48_000
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let tick = r.state.tickSound
        let tickLength = Int64(r.state.tickLength)
        let accent = r.state.accentSound
        let e: Int64 = 4000
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(0, .setLoop(start: 2000, end: e, countdownBeforeRepeat: 2)),
                            Cue(0, .play(from: 3000, countdown: 0))],
                       frames: Int(1000 + 2 * rate + 1000), period: 97)
        let start = 1000 + 2 * rate
        #expect(take.events.map(\.report.kind)
                == [.started(at: 3000), .looped, .countdownTick(remaining: 1),
                    .countdownTick(remaining: 0), .started(at: 2000)])
        #expect(take.events.map(\.frame) == [0, 1000, 1000, 1000 + rate, start])
        let bad = take.firstMismatch(240..<(start + 1000)) { f in
            if f < 1000 { return (pcm.a(3000 + f), pcm.a(3000 + f, 1)) }
            if f >= start {
                let i = f - start
                let g: Float = i < 240 ? rampIn(i, 240) : 1
                return i < 240 ? (pcm.a(2000 + i) * g, pcm.a(2000 + i, 1) * g)
                               : (pcm.a(2000 + i), pcm.a(2000 + i, 1))
            }
            var l: Float = 0
            var r: Float = 0
            let i = f - 1000
            if i < 240 {
                l = pcm.a(e + i) * rampOut(i, 240)
                r = pcm.a(e + i, 1) * rampOut(i, 240)
            }
            if i < tickLength {
                l += tick[Int(i)]
                r += tick[Int(i)]
            }
            let k = f - (1000 + rate)
            if k >= 0 && k < tickLength {
                l += accent[Int(k)]
                r += accent[Int(k)]
            }
            return (l, r)
        }
        #expect(bad == nil)
    }

    @Test("seeks are clamped into an active loop")
    func seekClampedIntoLoop() {
        let pcm = TestPCM(frames: 8000)
        defer { pcm.free() }
        var r = makeRenderer()
        _ = run(&r, [Cue(0, .load(pcm.slice)),
                     Cue(0, .setLoop(start: 1000, end: 2000, countdownBeforeRepeat: 0)),
                     Cue(0, .seek(5000))], frames: 10)
        let high = r.position
        _ = run(&r, [Cue(0, .seek(10))], frames: 10)
        let low = r.position
        #expect(high == 1999)
        #expect(low == 1000)
    }
}
