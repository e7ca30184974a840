import Foundation
import Testing
import SegmanceCore
@testable import SegmanceAudio

/// The render side at speeds other than 100 % (issue 12): positions, loop ends and reports
/// stay in source frames, the stretched audio does not depend on how calls split the
/// timeline or on a snapshot restored, and a loop's seam is a crossfade of two running
/// streams with no click.
@Suite(.tags(.unit)) struct SpeedTests {
    /// A 440 Hz tone at 0.3 of full scale, both channels.
    static func tone(frames: Int) -> UnsafeMutablePointer<Int16> {
        let pcm = UnsafeMutablePointer<Int16>.allocate(capacity: frames * 2)
        for f in 0..<frames {
            let s = Int16((0.3 * sin(2 * Double.pi * 440 * Double(f) / 48_000) * 32767).rounded())
            pcm[2 * f] = s
            pcm[2 * f + 1] = s
        }
        return pcm
    }

    static func stretching(positionInterval: Int = 0) -> Renderer {
        Renderer(sampleRate: 48_000, config: RenderConfig(positionReportInterval: positionInterval, stretchVoices: 3))
    }

    /// The loop [A, B) at 75 %: each pass lasts (B − A)/0.75 output frames (to a frame's
    /// rounding) over ten repeats, and the seam is as smooth as the tone.
    @Test func aLoopAtSeventyFivePercentLastsItsSourceLengthOverTheSpeedAndItsSeamDoesNotClick() {
        let frames = 10 * 48_000
        let pcm = Self.tone(frames: frames)
        defer { pcm.deallocate() }
        var r = Self.stretching()
        // B − A is not a whole number of the tone's cycles: the seam joins different phases.
        let a: Int64 = 48_000, b: Int64 = 48_000 + 96_037
        let take = run(&r, [Cue(0, .load(PCMSlice(base: pcm, frames: Int64(frames)))), Cue(0, .setSpeed(75)),
                            Cue(0, .play(from: a, countdown: 0)),
                            Cue(0, .setLoop(start: a, end: b, countdownBeforeRepeat: 0))],
                       frames: 11 * 128_050 + 4_000)
        let wraps = take.frames { $0 == .looped }
        #expect(wraps.count >= 10)
        let period = Double(b - a) * 100 / 75
        for (x, y) in zip(wraps, wraps.dropFirst()) {
            #expect(abs(Double(y - x) - period) <= 1, "pass of \(y - x) frames, expected \(period)")
        }
        // Over ten repeats: no drift beyond one frame.
        #expect(abs(Double(wraps[10] - wraps[0]) - 10 * period) <= 1)
        // The largest step between samples at each seam against the largest in the steady tone.
        func steepest(_ range: Range<Int64>) -> Float {
            var m: Float = 0
            for f in range.lowerBound + 1..<range.upperBound { m = max(m, abs(take.left(f) - take.left(f - 1))) }
            return m
        }
        let steady = steepest(wraps[0] + 20_000..<wraps[0] + 60_000)
        #expect(steady > 0.01 && steady < 0.03, "steady steps \(steady)")
        for w in wraps.prefix(10) {
            let seam = steepest(w - 480..<w + 480)
            #expect(seam <= steady * 1.5, "seam at \(w): step \(seam) against \(steady)")
        }
    }

    /// Position reports at 75 % are source frames: 0.75 of the output frames between them.
    @Test func positionsAreSourceFrames() {
        let frames = 4 * 48_000
        let pcm = Self.tone(frames: frames)
        defer { pcm.deallocate() }
        var r = Self.stretching(positionInterval: 4_800)
        let take = run(&r, [Cue(0, .load(PCMSlice(base: pcm, frames: Int64(frames)))), Cue(0, .setSpeed(75)),
                            Cue(0, .play(from: 1_000, countdown: 0))], frames: 48_000)
        let positions = take.reports.compactMap { if case .position(let p) = $0.report.kind { p } else { nil } }
        #expect(positions.count >= 8)
        for (x, y) in zip(positions, positions.dropFirst()) { #expect(y - x == 3_600) }
        let position = r.position
        #expect(position == 1_000 + 48_000 * 3 / 4)
    }

    /// A part at 150 % ends at its source end: `partEnded` after (length − start)/1.5 frames.
    @Test func aPartAtOneHundredFiftyPercentEndsAtItsSourceEnd() {
        let frames = 3 * 48_000
        let pcm = Self.tone(frames: frames)
        defer { pcm.deallocate() }
        var r = Self.stretching()
        let take = run(&r, [Cue(0, .load(PCMSlice(base: pcm, frames: Int64(frames)))), Cue(0, .setSpeed(150)),
                            Cue(0, .play(from: 0, countdown: 0))], frames: 110_000)
        #expect(take.frames { $0 == .partEnded } == [96_000])
    }

    /// The same timeline in calls of 128, 97 and 1000 frames: the same output, sample for sample.
    @Test func theOutputDoesNotDependOnHowCallsSplitTheTimeline() {
        let frames = 6 * 48_000
        let pcm = Self.tone(frames: frames)
        defer { pcm.deallocate() }
        let cues = [Cue(0, .load(PCMSlice(base: pcm, frames: Int64(frames)))), Cue(0, .setSpeed(75)),
                    Cue(0, .play(from: 0, countdown: 0)), Cue(20_000, .seek(100_000)), Cue(40_000, .setSpeed(130)),
                    Cue(60_000, .setLoop(start: 110_000, end: 150_000, countdownBeforeRepeat: 0)),
                    Cue(90_000, .setSpeed(50)), Cue(150_000, .pause), Cue(160_000, .play(from: 5_000, countdown: 0))]
        var takes: [Take] = []
        for period in [128, 97, 1_000] {
            var r = Self.stretching()
            takes.append(run(&r, cues, frames: 200_000, period: period))
        }
        #expect(takes[0].out == takes[1].out)
        #expect(takes[0].out == takes[2].out)
        #expect(takes[0].out.contains { $0 != 0 })
    }

    /// A snapshot restored renders again what it rendered: exactly while the stream's output
    /// is still in its slot's ring (the deep buffer's rewinds), and within -80 dB when every
    /// slot has moved on to other streams since (seeks, speed changes) and the stream is made
    /// again from its key: a reset Rubber Band R3 stretcher is not bit-for-bit the fresh one.
    @Test func aRestoredSnapshotRendersTheSameAtSpeedEvenAfterTheStretchersMovedOn() {
        let frames = 6 * 48_000
        let pcm = Self.tone(frames: frames)
        defer { pcm.deallocate() }
        var r = Self.stretching()
        _ = run(&r, [Cue(0, .load(PCMSlice(base: pcm, frames: Int64(frames)))), Cue(0, .setSpeed(75)),
                     Cue(0, .play(from: 0, countdown: 0))], frames: 30_000)
        let snapshot = r.snapshot()
        let first = run(&r, frames: 6_000)
        // Within the ring: re-read.
        r.restore(snapshot)
        #expect(run(&r, frames: 6_000).out == first.out)
        // After other streams took every slot: made again.
        _ = run(&r, [Cue(0, .seek(150_000)), Cue(2_000, .setSpeed(140)), Cue(4_000, .seek(40_000)),
                     Cue(6_000, .setSpeed(60)), Cue(8_000, .seek(200_000))], frames: 40_000)
        r.restore(snapshot)
        let again = run(&r, frames: 6_000).out
        let largest = zip(again, first.out).map { abs($0 - $1) }.max() ?? .infinity
        #expect(largest < 1e-4, "largest difference \(largest)")
    }

    /// Three voices share two stretchers (`StretchPool.engines`, ~2 MB resident each): a
    /// stream that leaves the main voice reads its last frames from its ring, so its
    /// stretcher goes to the next stream, and the other runs a loop's next pass ahead of its
    /// seam. A timeline crowding the voices — seeks during a seam's crossfade and during a
    /// seek's, a speed change and a pause inside crossfades, play while ramping out, loop
    /// seams — never leaves a voice without its frames, starts each seam's pass ahead, and
    /// sounds as smooth as with a stretcher for every voice (its steepest step between samples
    /// no steeper: the crossfades' phases differ, since a reset R3 stretcher's output depends
    /// on what it ran before, so the samples are not compared).
    @Test func threeVoicesShareTwoStretchersAndNoneGoesWithoutItsFrames() throws {
        let frames = 8 * 48_000
        let pcm = Self.tone(frames: frames)
        defer { pcm.deallocate() }
        let part = PCMSlice(base: pcm, frames: Int64(frames))
        let config = RenderConfig(positionReportInterval: 0, stretchVoices: 3)
        var shared = Renderer(sampleRate: 48_000, config: config)
        #expect(shared.state.pool.count == 3 && shared.state.pool.engineCount == 2)
        let each = try #require(StretchStorage.make(count: 3, sampleRate: 48_000, engine: Renderer.stretchEngine,
                                                    engines: 3))
        var reference = Renderer(sampleRate: 48_000, config: config, deferringStretchers: true)
        reference.attach(each.pool)
        // From 38 000 into the loop [40 000, 52 000) at 75 %: the first seam at output frame 18 667,
        // then one every 16 000.
        let cues = [Cue(0, .load(part)), Cue(0, .setSpeed(75)), Cue(0, .play(from: 38_000, countdown: 0)),
                    Cue(0, .setLoop(start: 40_000, end: 52_000, countdownBeforeRepeat: 0)),
                    Cue(18_700, .seek(44_000)), Cue(18_800, .seek(46_000)), Cue(18_900, .setSpeed(60)),
                    Cue(30_000, .pause), Cue(30_100, .play(from: 41_000, countdown: 0)), Cue(30_150, .setSpeed(140)),
                    Cue(50_000, .setSpeed(55)), Cue(50_050, .seek(45_000)), Cue(50_120, .pause),
                    Cue(60_000, .play(from: 50_000, countdown: 0)), Cue(90_000, .clearLoop), Cue(95_000, .seek(200_000)),
                    Cue(95_100, .setSpeed(150)), Cue(95_200, .seek(100_000)), Cue(120_000, .stop)]
        // Just before the first seam, A's stream runs on the other stretcher.
        _ = run(&shared, cues, frames: 18_600)
        let a = StreamKey(base: pcm, frames: Int64(frames), origin: 40_000, speed: 75)
        let primed = shared.state.pool.find(a, at: 0, hint: -1)
        #expect(primed >= 0 && primed != Int(shared.state.main.slot) && shared.state.pool.slots[primed].engine >= 0)
        let ours = run(&shared, cues.filter { $0.frame >= 18_600 }.map { Cue($0.frame - 18_600, $0.command) },
                       frames: 130_000 - 18_600)
        let theirs = withExtendedLifetime(each) { run(&reference, cues, frames: 130_000) }
        #expect(shared.state.pool.starvedFrames == 0, "\(shared.state.pool.starvedFrames) frames without a stretcher")
        // Window by window (500 frames): ours as smooth as theirs, within the tone's own step.
        func steepest(_ take: Take, _ frames: Range<Int64>) -> Float {
            var m: Float = 0
            for f in frames { m = max(m, abs(take.left(f) - take.left(f - 1))) }
            return m
        }
        let tone = steepest(theirs, 1_000..<10_000)
        #expect(tone > 0.01 && tone < 0.03)
        var rougher: [Int64] = []
        var w: Int64 = 18_600
        while w < 130_000 {
            let window = w..<min(w + 500, 130_000)
            let mine = steepest(ours, (window.lowerBound - 18_600 + 1)..<(window.upperBound - 18_600))
            if mine > max(steepest(theirs, window), tone) * 1.1 { rougher.append(w) }
            w += 500
        }
        #expect(ours.out.contains { $0 != 0 })
        #expect(rougher.isEmpty, "windows rougher than with a stretcher per voice: \(rougher)")
    }

    /// A seek inside a loop takes the stretcher its next pass was started on (both began at
    /// the same frame; the first is taken): the pass is started again ahead of its seam, so
    /// the seam still crossfades two running streams, and no voice goes without its frames.
    @Test func aLoopsNextPassThatLostItsStretcherIsStartedAgainBeforeTheSeam() {
        let frames = 8 * 48_000
        let pcm = Self.tone(frames: frames)
        defer { pcm.deallocate() }
        var r = Self.stretching()
        let a = StreamKey(base: pcm, frames: Int64(frames), origin: 40_000, speed: 75)
        // At 41 000 in the loop [40 000, 52 000) at 75 %: A's pass is started at once (the seam
        // is within a quarter second of source); the second seek takes its stretcher.
        _ = run(&r, [Cue(0, .load(PCMSlice(base: pcm, frames: Int64(frames)))), Cue(0, .setSpeed(75)),
                     Cue(0, .play(from: 41_000, countdown: 0)),
                     Cue(0, .setLoop(start: 40_000, end: 52_000, countdownBeforeRepeat: 0)),
                     Cue(1_000, .seek(45_000)), Cue(2_000, .seek(46_000))], frames: 2_001)
        let pool = r.state.pool
        let again = pool.find(a, at: 0, hint: -1, running: true)
        #expect(again >= 0 && again != Int(r.state.main.slot), "A's pass running on a stretcher of its own")
        let take = run(&r, frames: 12_000)
        #expect(take.kinds().contains(.looped))
        #expect(r.state.pool.starvedFrames == 0)
    }

    /// A stream the music will need is fed ahead, a block at each 512-frame grid point: the
    /// music after a count-in and a loop's next pass start with their stretcher's start-up
    /// work (start pad and delay: seven blocks) done, so no 512-frame period feeds more than
    /// the speed needs and one block more. A seek, which nothing foretells, feeds all of it in
    /// its period (the peer: the measure sees a burst where there is one).
    @Test(arguments: [75, 150] as [Int32])
    func aCountInsMusicAndALoopsNextPassAreFedAheadNotInOnePeriod(speed: Int32) {
        let frames = 20 * 48_000
        let pcm = Self.tone(frames: frames)
        defer { pcm.deallocate() }
        var r = Self.stretching()
        let period = 512
        // The source blocks a period needs at this speed, and one more for the one fed ahead.
        let bound = (period * Int(speed) / 100 + StretchPool.block - 1) / StretchPool.block + 1
        var cues = [Cue(0, .load(PCMSlice(base: pcm, frames: Int64(frames)))), Cue(0, .setSpeed(speed)),
                    Cue(0, .play(from: 48_000, countdown: 2)),
                    Cue(0, .setLoop(start: 48_000, end: 72_000, countdownBeforeRepeat: 0))]
        var perPeriod: [Int] = []
        var reports: [RenderReport] = []
        var pumped = r.state.pool.pumpedBlocks
        var clock: Int64 = 0
        // Two seconds of count-in, then four passes of the loop.
        let until = 96_000 + 4 * 24_000 * 100 / Int(speed) + 1_024
        while clock < until {
            let take = run(&r, cues.filter { $0.frame == 0 }, frames: period, period: period)
            cues = []
            reports += take.reports.map { var x = $0; x.frame += clock; return x }
            perPeriod.append(r.state.pool.pumpedBlocks - pumped)
            pumped = r.state.pool.pumpedBlocks
            clock += Int64(period)
        }
        let started = reports.filter { if case .started = $0.report.kind { true } else { false } }.map(\.frame)
        let wraps = reports.filter { $0.report.kind == .looped }.map(\.frame)
        #expect(started == [96_000])
        #expect(wraps.count >= 3)
        #expect(perPeriod.max() ?? 99 <= bound, "blocks fed per period: \(perPeriod), at most \(bound)")
        // The periods of the music's start and of each seam, each within the bound.
        for frame in started + wraps {
            #expect(perPeriod[Int(frame) / period] <= bound, "\(perPeriod[Int(frame) / period]) blocks at \(frame)")
        }
        #expect(r.state.pool.starvedFrames == 0)
        // The peer: a seek inside the loop, unforeseen, starts its stream in its own period.
        let before = r.state.pool.pumpedBlocks
        _ = run(&r, [Cue(0, .seek(60_000))], frames: period, period: period)
        let seek = r.state.pool.pumpedBlocks - before
        #expect(seek >= 6, "a seek at \(speed) % fed \(seek) blocks in its period")
    }

    /// Without stretch voices the speed stays 100 %: the PCM as it is.
    @Test func aRendererWithoutStretchVoicesIgnoresTheSpeed() {
        let pcm = TestPCM(frames: 20_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let can = r.canChangeSpeed
        #expect(!can)
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .setSpeed(75)), Cue(0, .play(from: 0, countdown: 0))],
                       frames: 2_000)
        let speed = r.speedPercent
        #expect(speed == 100)
        #expect(take.firstMismatch(240..<2_000) { (pcm.a($0), pcm.a($0, 1)) } == nil)
    }
}
