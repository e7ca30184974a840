import SegmanceCore
import Testing
@testable import SegmanceAudio

@Suite("Transport: pause, resume, seek, stop, epochs", .tags(.unit))
struct TransportTests {
    @Test("pause ramps out while advancing, holds; play resumes where it held")
    func pauseResume() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let played = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 1000, countdown: 0))],
                         frames: 2000)
        #expect(played.left(1999) == pcm.a(2999))
        let paused = run(&r, [Cue(0, .pause)], frames: 1000, period: 97)
        let bad = paused.firstMismatch(0..<1000) { i in
            i < 240 ? (pcm.a(3000 + i) * rampOut(i, 240), pcm.a(3000 + i, 1) * rampOut(i, 240))
                    : (0, 0)
        }
        #expect(bad == nil)
        #expect(paused.reports == [RenderReport(AudioReport(epoch: 1, .position(3240)),
                                                frame: 240)])
        let (held, sounding) = (r.position, r.isSounding)
        #expect(held == 3240)
        #expect(!sounding)
        let resumed = run(&r, [Cue(0, .play(from: held, countdown: 0))], frames: 500)
        let bad2 = resumed.firstMismatch(0..<500) { i in
            let g: Float = i < 240 ? rampIn(i, 240) : 1
            return i < 240 ? (pcm.a(held + i) * g, pcm.a(held + i, 1) * g)
                           : (pcm.a(held + i), pcm.a(held + i, 1))
        }
        #expect(bad2 == nil)
    }

    @Test("seek while playing crossfades old into new")
    func seekWhilePlaying() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer(crossfade: 240)
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 1000, countdown: 0)),
                            Cue(1000, .seek(15_000))], frames: 2000)
        let bad = take.firstMismatch(240..<2000) { f in
            if f < 1000 { return (pcm.a(1000 + f), pcm.a(1000 + f, 1)) }
            let i = f - 1000
            return i < 240
                ? (crossfade(pcm.a(15_000 + i), pcm.a(2000 + i), i, 240),
                   crossfade(pcm.a(15_000 + i, 1), pcm.a(2000 + i, 1), i, 240))
                : (pcm.a(15_000 + i), pcm.a(15_000 + i, 1))
        }
        #expect(bad == nil)
    }

    @Test("seek while paused only moves the position")
    func seekWhilePaused() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .seek(12_345)),
                            Cue(0, .seek(99_999_999))], frames: 300)
        #expect(take.firstSound(0..<300) == nil)
        let position = r.position
        #expect(position == 30_000)
        _ = run(&r, [Cue(0, .seek(-5))], frames: 1)
        let clamped = r.position
        #expect(clamped == 0)
    }

    @Test("stop while playing ramps out and forgets the position")
    func stopWhilePlaying() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 0, countdown: 0)),
                            Cue(1000, .stop)], frames: 2000)
        let bad = take.firstMismatch(1000..<2000) { f in
            let i = f - 1000
            return i < 240 ? (pcm.a(f) * rampOut(i, 240), pcm.a(f, 1) * rampOut(i, 240)) : (0, 0)
        }
        #expect(bad == nil)
        let (position, sounding) = (r.position, r.isSounding)
        #expect(position == 0)
        #expect(!sounding)
    }

    @Test("load while playing ramps the old part out and stays silent")
    func loadWhilePlaying() {
        let first = TestPCM(frames: 30_000)
        let second = TestPCM(frames: 30_000, seed: 7000)
        defer { first.free(); second.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(first.slice)), Cue(0, .play(from: 0, countdown: 0)),
                            Cue(1000, .load(second.slice))], frames: 2000, period: 97)
        let bad = take.firstMismatch(1000..<2000) { f in
            let i = f - 1000
            return i < 240 ? (first.a(f) * rampOut(i, 240), first.a(f, 1) * rampOut(i, 240))
                           : (0, 0)
        }
        #expect(bad == nil)
        let (position, sounding) = (r.position, r.isSounding)
        #expect(position == 0)
        #expect(!sounding)
    }

    @Test("play with a countdown while playing ramps out, counts, starts at its frame")
    func countdownWhilePlaying() {
        let rate: Int64 = 48_000
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 0, countdown: 0)),
                            Cue(1000, .play(from: 500, countdown: 1))],
                       frames: Int(1000 + rate + 300), period: 128)
        let tick = r.state.accentSound
        let tickLength = Int64(r.state.accentLength)
        let bad = take.firstMismatch(1000..<(1000 + rate + 300)) { f in
            let i = f - 1000
            if i >= rate {
                let j = i - rate
                let g: Float = j < 240 ? rampIn(j, 240) : 1
                return (pcm.a(500 + j) * g, pcm.a(500 + j, 1) * g)
            }
            var l: Float = 0
            var r: Float = 0
            if i < 240 {
                l = pcm.a(f) * rampOut(i, 240)
                r = pcm.a(f, 1) * rampOut(i, 240)
            }
            if i < tickLength {
                l += tick[Int(i)]
                r += tick[Int(i)]
            }
            return (l, r)
        }
        #expect(bad == nil)
        #expect(take.events.map(\.report.kind)
                == [.started(at: 0), .countdownTick(remaining: 0), .started(at: 500)])
        #expect(take.events.map(\.frame) == [0, 1000, 1000 + rate])
    }

    @Test("reports carry the epoch of the last applied command")
    func epochs() {
        let pcm = TestPCM(frames: 3000)
        defer { pcm.free() }
        var r = makeRenderer()
        r.apply(StampedCommand(.load(pcm.slice), epoch: 7))
        r.apply(StampedCommand(.play(from: 2500, countdown: 0), epoch: 8))
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 2000)
        defer { out.deallocate() }
        r.render(into: out, frames: 200)
        let first = r.takeReports()
        r.apply(StampedCommand(.setVolume(100), epoch: 9))
        r.render(into: out, frames: 1000)
        let second = r.takeReports()
        let epoch = r.epoch
        #expect(first.map(\.report) == [AudioReport(epoch: 8, .started(at: 2500))])
        #expect(second.map(\.report) == [AudioReport(epoch: 9, .partEnded)])
        #expect(second.map(\.frame) == [500])
        #expect(epoch == 9)
    }

    @Test("a full report buffer drops and counts, never grows")
    func reportOverflow() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer(positionInterval: 10, reportCapacity: 4)
        r.apply(StampedCommand(.load(pcm.slice), epoch: 1))
        r.apply(StampedCommand(.play(from: 0, countdown: 0), epoch: 2))
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 200)
        defer { out.deallocate() }
        r.render(into: out, frames: 100)  // started + positions at 0, 10, …, 100
        let (count, dropped) = (r.reportCount, r.droppedReports)
        #expect(count == 4)
        #expect(dropped == 12 - 4)
        var drained: [AudioReport.Kind] = []
        r.drainReports { drained.append($0.report.kind) }
        #expect(drained == [.started(at: 0), .position(0), .position(10), .position(20)])
        let after = r.reportCount
        #expect(after == 0)
    }
}
