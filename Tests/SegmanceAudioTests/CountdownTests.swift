import SegmanceCore
import Testing
@testable import SegmanceAudio

@Suite("Countdown: ticks and the start at exact frames", .tags(.unit))
struct CountdownTests {
    static let rate: Int64 = 48_000

    /// play(from: 3000, countdown: 3) applied at frame 50 of a fresh renderer.
    func countdownTake(period: Int) -> (Take, tickLength: Int64) {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(50, .play(from: 3000, countdown: 3))],
                       frames: Int(50 + 3 * Self.rate + 2000), period: period)
        return (take, Int64(r.state.tickLength))
    }

    @Test("ticks start at t0 + k·rate, audio at t0 + n·rate with a ramp-in")
    func onsets() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        let (take, tickLength) = countdownTake(period: 97)
        let t0: Int64 = 50
        for k in Int64(0)..<3 {
            let onset = t0 + k * Self.rate
            // The first non-zero sample of each tick is its onset; the output is silent
            // from the previous tick's end up to it.
            let silentFrom = k == 0 ? 0 : onset - Self.rate + tickLength
            #expect(take.firstSound(silentFrom..<(onset + 1)) == onset)
            #expect(take.left(onset) == take.right(onset))
        }
        let start = t0 + 3 * Self.rate
        #expect(take.firstSound((start - Self.rate + tickLength)..<start) == nil)
        let bad = take.firstMismatch(start..<(start + 2000)) { f in
            let i = f - start
            let g: Float = i < 240 ? rampIn(i, 240) : 1
            return i < 240 ? (pcm.a(3000 + i) * g, pcm.a(3000 + i, 1) * g)
                           : (pcm.a(3000 + i), pcm.a(3000 + i, 1))
        }
        // Same synthetic pattern as inside countdownTake (it is deterministic).
        #expect(bad == nil)
        #expect(take.events.map(\.report.kind)
                == [.countdownTick(remaining: 2), .countdownTick(remaining: 1),
                    .countdownTick(remaining: 0), .started(at: 3000)])
        #expect(take.events.map(\.frame) == [t0, t0 + Self.rate, t0 + 2 * Self.rate, start])
    }

    @Test("the last tick is accented: louder and higher")
    func accent() {
        let (take, tickLength) = countdownTake(period: 128)
        func window(_ k: Int64) -> [Float] {
            let onset = 50 + k * Self.rate
            return (onset..<(onset + tickLength)).map { take.left($0) }
        }
        func peak(_ x: [Float]) -> Float { x.map(abs).max() ?? 0 }
        func signChanges(_ x: [Float]) -> Int {
            zip(x, x.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        }
        #expect(peak(window(2)) > peak(window(0)))
        #expect(signChanges(window(2)) > signChanges(window(0)) * 3 / 2)
        #expect(window(0) == window(1))
    }

    @Test("the same timeline split into other periods renders identically",
          arguments: [128, 97, 1, 1439, 1441, 48_000])
    func periodIndependent(period: Int) {
        let (reference, _) = countdownTake(period: Int.max / 4)
        let (take, _) = countdownTake(period: period)
        #expect(take == reference)
    }

    @Test("a play during a countdown restarts it")
    func restart() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let again: Int64 = 60_000
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 0, countdown: 3)),
                            Cue(again, .play(from: 500, countdown: 2))],
                       frames: Int(again + 2 * Self.rate + 10), period: 128)
        #expect(take.events.map(\.report.kind)
                == [.countdownTick(remaining: 2), .countdownTick(remaining: 1),
                    .countdownTick(remaining: 1), .countdownTick(remaining: 0),
                    .started(at: 500)])
        #expect(take.events.map(\.frame)
                == [0, Self.rate, again, again + Self.rate, again + 2 * Self.rate])
    }

    @Test("stop during a countdown cancels the ticks and the start")
    func stopCancels() {
        let pcm = TestPCM(frames: 30_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let stopAt = Self.rate + 100  // 100 frames into the second tick
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .play(from: 0, countdown: 3)),
                            Cue(stopAt, .stop)],
                       frames: Int(4 * Self.rate), period: 97)
        #expect(take.events.map(\.report.kind)
                == [.countdownTick(remaining: 2), .countdownTick(remaining: 1)])
        // The cut tick fades within one ramp, then nothing more sounds.
        #expect(take.firstSound((stopAt + 240)..<(4 * Self.rate)) == nil)
        #expect(take.firstSound(stopAt..<(stopAt + 1)) == stopAt)
        let (position, sounding) = (r.position, r.isSounding)
        #expect(position == 0)
        #expect(!sounding)
    }
}
