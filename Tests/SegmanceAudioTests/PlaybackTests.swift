import SegmanceCore
import Testing
@testable import SegmanceAudio

@Suite("Playback: exact samples, ramps, part end", .tags(.unit))
struct PlaybackTests {
    @Test("play ramps in, then outputs the source exactly", arguments: [1, 16, 240])
    func playRampsInThenExact(ramp: Int) {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer(ramp: ramp)
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 1000, countdown: 0))],
                       frames: 4000)
        let bad = take.firstMismatch(0..<4000) { f in
            let g: Float = f < ramp ? rampIn(f, ramp) : 1
            return f < ramp ? (pcm.a(1000 + f) * g, pcm.a(1000 + f, 1) * g)
                            : (pcm.a(1000 + f), pcm.a(1000 + f, 1))
        }
        #expect(bad == nil)
        // Converting back gives the source sample for sample.
        let roundTrip = (Int64(ramp)..<4000).allSatisfy { f in
            Int16(take.left(f) * 32768) == pcm.storage[Int(1000 + f) * 2]
                && Int16(take.right(f) * 32768) == pcm.storage[Int(1000 + f) * 2 + 1]
        }
        #expect(roundTrip)
        #expect(take.events == [RenderReport(AudioReport(epoch: 2, .started(at: 1000)), frame: 0)])
        let position = r.position
        #expect(position == 5000)
    }

    @Test("a loaded part stays silent until play")
    func loadIsSilent() {
        let pcm = TestPCM(frames: 1000)
        defer { pcm.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(pcm.slice))], frames: 500)
        #expect(take.firstSound(0..<500) == nil)
        #expect(take.reports.isEmpty)
        let sounding = r.isSounding
        #expect(!sounding)
    }

    @Test("the part's end with a next part continues with its frame 0 at the next frame")
    func advanceIsSeamless() {
        let first = TestPCM(frames: 3000)
        let second = TestPCM(frames: 5000, seed: 5000)
        defer { first.free(); second.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(first.slice)), Cue(0, .setNext(second.slice)),
                            Cue(0, .play(from: 2000, countdown: 0))], frames: 2500)
        let bad = take.firstMismatch(240..<2500) { f in
            f < 1000 ? (first.a(2000 + f), first.a(2000 + f, 1))
                     : (second.a(f - 1000), second.a(f - 1000, 1))
        }
        #expect(bad == nil)
        #expect(take.events.map(\.frame) == [0, 1000])
        #expect(take.events.map(\.report.kind) == [.started(at: 2000), .advanced])
        let position = r.position
        #expect(position == 1500)
    }

    @Test("the part's end with no next part: silence and partEnded")
    func partEnds() {
        let pcm = TestPCM(frames: 3000)
        defer { pcm.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 2500, countdown: 0))],
                       frames: 1000)
        #expect(take.left(499) == pcm.a(2999))
        #expect(take.firstSound(500..<1000) == nil)
        #expect(take.events.map(\.report.kind) == [.started(at: 2500), .partEnded])
        #expect(take.events.last?.frame == 500)
        let (position, sounding) = (r.position, r.isSounding)
        #expect(position == 3000)
        #expect(!sounding)
    }

    @Test("volume is (percent/100)², ramped; 100 is exact again",
          arguments: [0, 25, 50, 99])
    func volume(percent: Int32) {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 0, countdown: 0)),
                            Cue(1000, .setVolume(percent)), Cue(2000, .setVolume(100))],
                       frames: 3000)
        let gain = Float(percent * percent) / 10_000
        let bad = take.firstMismatch(1240..<2000) { f in (pcm.a(f) * gain, pcm.a(f, 1) * gain) }
        #expect(bad == nil)
        // During the ramp the gain moves monotonically from 1 toward the target.
        let ratios = (1000..<1240).map { take.left($0) / pcm.a($0) }
        #expect(zip(ratios, ratios.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(ratios.first == 1)
        let back = take.firstMismatch(2240..<3000) { f in (pcm.a(f), pcm.a(f, 1)) }
        #expect(back == nil)
    }

    @Test("periodic position reports at exact output frames while advancing")
    func positionReports() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer(positionInterval: 1000)
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(500, .play(from: 100, countdown: 0))],
                       frames: 3500, period: 97)
        let positions = take.reports.compactMap { report -> RenderReport? in
            if case .position = report.report.kind { return report } else { return nil }
        }
        #expect(positions.map(\.frame) == [1000, 2000, 3000])
        #expect(positions.map(\.report.kind) == [.position(600), .position(1600), .position(2600)])
    }
}
