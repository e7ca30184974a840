import SegmanceCore
import Testing
@testable import SegmanceAudio

@Suite("Count-in in beats: counts at exact frames, the music's beat one beat after the last", .tags(.unit))
struct CountInTests {
    /// playCountIn applied at frame 50 of a fresh renderer, rendered in `period`-frame calls.
    func take(_ countIn: RenderCountIn, from: Int64, period: Int = 97) -> (Take, tickLength: Int64, pcm: TestPCM) {
        let pcm = TestPCM(frames: 200_000)
        var r = makeRenderer()
        let end = 50 + Int((Double(countIn.beats + 1) * countIn.beatFrames).rounded()) + 2_000
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(50, .playCountIn(from: from, countIn))],
                       frames: end, period: period)
        return (take, Int64(r.state.tickLength), pcm)
    }

    @Test("counts at t0 + round(k·beat); the audio starts `lead` frames before t0 + round(n·beat)",
          arguments: [
            RenderCountIn(beats: 4, beatFrames: 24_000, lead: 12_000, firstCount: 5),
            RenderCountIn(beats: 8, beatFrames: 22_677.165354330708, lead: 0, firstCount: 1), // 127 BPM
            RenderCountIn(beats: 4, beatFrames: 32_000, lead: 31_999, firstCount: 5),
          ])
    func onsets(countIn: RenderCountIn) {
        let (take, tickLength, pcm) = take(countIn, from: 3_000)
        defer { pcm.free() }
        let t0: Int64 = 50
        let counts = (0..<Int64(countIn.beats)).map { t0 + Int64((Double($0) * countIn.beatFrames).rounded()) }
        for (k, onset) in counts.enumerated() {
            let silentFrom = k == 0 ? 0 : counts[k - 1] + tickLength
            #expect(take.firstSound(silentFrom..<(onset + 1)) == onset, "count \(k + 1)")
        }
        let beat = t0 + Int64((Double(countIn.beats) * countIn.beatFrames).rounded())
        let start = beat - countIn.lead
        #expect(take.events.map(\.frame) == counts + [start])
        #expect(take.events.last?.report.kind == .started(at: 3_000))
        // Past the ramp-in the output is the source: the source's frame 3000 + lead (its beat)
        // sounds at exactly one beat after the last count.
        // (A start right after the last count has that count's sound over its first frames.)
        let clean = max(start + 240, counts.last! + tickLength)
        let bad = take.firstMismatch(clean..<(clean + 1_500)) { f in (pcm.a(3_000 + Int64(f - start)), pcm.a(3_000 + Int64(f - start), 1)) }
        #expect(bad == nil)
        if countIn.lead >= 240 {
            #expect(take.left(beat) == pcm.a(3_000 + countIn.lead), "the source's beat at the output's")
        }
    }

    @Test("counts 1 and 5 of the eight are the accented sound")
    func accents() {
        let countIn = RenderCountIn(beats: 8, beatFrames: 24_000, lead: 0, firstCount: 1)
        let (take, tickLength, pcm) = take(countIn, from: 0, period: 128)
        defer { pcm.free() }
        func peak(_ k: Int64) -> Float {
            let onset = 50 + k * 24_000
            return (onset..<(onset + tickLength)).map { abs(take.left($0)) }.max() ?? 0
        }
        let peaks = (0..<Int64(8)).map(peak)
        let loud = peaks.max() ?? 0
        #expect(peaks.indices.filter { peaks[$0] == loud } == [0, 4], "\(peaks)")
    }

    @Test("a count before each repeat in beats: A's beat one beat after the last count")
    func beforeARepeat() {
        let pcm = TestPCM(frames: 200_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let countIn = RenderCountIn(beats: 4, beatFrames: 24_000, lead: 0, firstCount: 5)
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 10_000, countdown: 0)),
                            Cue(0, .setLoop(start: 10_000, end: 34_000, countdownBeforeRepeat: 0, countIn: countIn))],
                       frames: 24_000 + 5 * 24_000 + 1_000, period: 128)
        // The pass ends at 24000 (34000 - 10000): counts at 24000 + k·24000, A at 24000 + 4·24000.
        let kinds = take.events.map(\.report.kind)
        #expect(kinds.prefix(6) == [.started(at: 10_000), .looped, .countdownTick(remaining: 3), .countdownTick(remaining: 2),
                                    .countdownTick(remaining: 1), .countdownTick(remaining: 0)])
        let frames = take.events.map(\.frame)
        #expect(Array(frames.dropFirst(2).prefix(5)) == [24_000, 48_000, 72_000, 96_000, 120_000])
        #expect(take.events.dropFirst(6).first?.report.kind == .started(at: 10_000))
    }
}
