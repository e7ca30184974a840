import SegmanceCore
import Testing
@testable import SegmanceAudio

/// Fades (issue 29): a stop that fades over a set time, and a part that ends with a fade,
/// sample by sample against the formulas in `Renderer`'s documentation.
@Suite("Fades: a stop's long fade, a part's fade at its end", .tags(.unit))
struct FadeTests {
    @Test("a stop with a fade of F frames: frame i is a[q+i]·(F-i)/F, then silence")
    func stopFading() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let fade: Int64 = 4_800
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 0, countdown: 0)),
                            Cue(1000, .stopFading(frames: fade))], frames: 8000, period: 113)
        let bad = take.firstMismatch(1000..<8000) { f in
            let i = f - 1000
            let g = i < fade ? Float(fade - i) / Float(fade) : 0
            return i < fade ? (pcm.a(f) * g, pcm.a(f, 1) * g) : (0, 0)
        }
        #expect(bad == nil)
        let (position, sounding) = (r.position, r.isSounding)
        #expect(position == 0)
        #expect(!sounding)
    }

    @Test("a fade shorter than the ramp is the ramp; the output does not depend on the periods")
    func shortFadeIsTheRampAndSplitsAlike() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var a = makeRenderer(), b = makeRenderer(), c = makeRenderer()
        let cues = [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 0, countdown: 0)), Cue(1000, .stopFading(frames: 10))]
        let short = run(&a, cues, frames: 2000)
        let stop = run(&b, [cues[0], cues[1], Cue(1000, .stop)], frames: 2000)
        #expect(short.out == stop.out)
        let long = [cues[0], cues[1], Cue(1000, .stopFading(frames: 9_000))]
        var d = makeRenderer()
        #expect(run(&c, long, frames: 12_000, period: 128).out == run(&d, long, frames: 12_000, period: 37).out)
    }

    @Test("a part with a fade of D frames: its last D frames fall to silence at its end")
    func partEndsWithAFade() {
        let pcm = TestPCM(frames: 10_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let fade: Int64 = 3_000
        let take = run(&r, [Cue(0, .load(pcm.slice.fading(fade))), Cue(0, .play(from: 5_000, countdown: 0))],
                       frames: 6_000, period: 128)
        // From the end of the ramp-in to the end of the part.
        let bad = take.firstMismatch(240..<6_000) { f in
            let p = 5_000 + f
            guard p < 10_000 else { return (0, 0) }
            let g: Float = p < 7_000 ? 1 : Float(10_000 - p) / Float(fade)
            return p < 7_000 ? (pcm.a(p), pcm.a(p, 1)) : (pcm.a(p) * g, pcm.a(p, 1) * g)
        }
        #expect(bad == nil)
        #expect(take.kinds().contains(.partEnded))
    }

    @Test("a part with no fade plays exactly as before")
    func noFadeIsUnchanged() {
        let pcm = TestPCM(frames: 10_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 5_000, countdown: 0))], frames: 5_000)
        #expect(take.firstMismatch(240..<5_000) { (pcm.a(5_000 + $0), pcm.a(5_000 + $0, 1)) } == nil)
    }

    @Test("core commands carry the fades: stopFading, and a part's fadeOut onto its PCM")
    func conversion() {
        let pcm = TestPCM(frames: 10_000)
        defer { pcm.free() }
        let part = PartAudio(audio: AudioReference("x"), start: 0, length: 10_000, fadeOut: 2_000)
        #expect(RenderCommand(.stopFading(96_000)) { _ in nil } == .stopFading(frames: 96_000))
        #expect(RenderCommand(.load(part)) { _ in pcm.slice } == .load(PCMSlice(base: pcm.storage, frames: 10_000,
                                                                                  fadeOut: 2_000)))
        #expect(RenderCommand(.setNext(part)) { _ in pcm.slice }
            == .setNext(PCMSlice(base: pcm.storage, frames: 10_000, fadeOut: 2_000)))
        // A fade longer than the part is the whole part.
        #expect(pcm.slice.fading(50_000).fadeOut == 10_000)
    }
}

/// A class set's gap on the render side (issue 29): the start comes `silence` frames after the
/// command, its count-in after that.
@Suite("playAfter: a start after a silence", .tags(.unit))
struct PlayAfterTests {
    @Test("the music starts exactly S frames after the command, with no count")
    func startsAfterTheSilence() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(100, .playAfter(silence: 5_000, from: 0, countdown: 0, countIn: .none))],
                       frames: 8_000, period: 128)
        #expect(take.firstSound(0..<5_100) == nil)
        #expect(take.frames { $0 == .started(at: 0) } == [5_100])
        #expect(take.left(5_100 + 240) == pcm.a(240))
    }

    @Test("with a count-in in beats: the first count S frames after, the start after the beats")
    func countInAfterTheSilence() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let countIn = RenderCountIn(beats: 2, beatFrames: 1_000, lead: 0, firstCount: 7)
        let take = run(&r, [Cue(0, .load(pcm.slice)),
                            Cue(0, .playAfter(silence: 3_000, from: 0, countdown: 0, countIn: countIn))],
                       frames: 8_000, period: 97)
        #expect(take.firstSound(0..<3_000) == nil)
        #expect(take.frames { if case .countdownTick = $0 { true } else { false } } == [3_000, 4_000])
        #expect(take.frames { $0 == .started(at: 0) } == [5_000])
    }
}

/// A class set's announcement on the render side (issue 29): a word added from its frame, cut
/// with a fade to end a ramp before `within`.
@Suite("announce: a spoken title", .tags(.unit))
struct AnnounceTests {
    @Test("the word sounds from the command's frame, cut to end within its room")
    func soundsAndIsCut() {
        let word = UnsafeMutablePointer<Float>.allocate(capacity: 3_000)
        let starts = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        defer { word.deallocate(); starts.deallocate() }
        for i in 0..<3_000 { word[i] = 0.25 }
        starts[0] = 0
        starts[1] = 3_000
        let words = CountWords(samples: word, starts: starts, count: 1)
        var r = makeRenderer()
        let whole = run(&r, [Cue(10, .announce(words, within: 10_000))], frames: 4_000)
        #expect(whole.firstSound(0..<4_000) == 10)
        #expect(whole.left(10) == 0.25 && whole.left(3_009) == 0.25 && whole.left(3_010) == 0)
        var c = makeRenderer()
        let cut = run(&c, [Cue(0, .announce(words, within: 1_240))], frames: 2_000)
        // 1 000 frames (1 240 less the ramp), the last 480 fading.
        #expect(cut.left(520) == 0.25 && cut.left(521) < 0.25 && cut.left(999) > 0 && cut.left(1_000) == 0)
    }
}
