import SegmanceCore
import Testing
@testable import SegmanceAudio

@Suite("Spoken counts: the word of each count at the count's frame, cut short before the next", .tags(.unit))
struct SpokenCountTests {
    /// Word n: `length(n)` frames of the value n/100, so each is recognisable by value and length.
    static func length(_ n: Int) -> Int { 1_000 + 10 * n }
    static func words(_ count: Int, length: (Int) -> Int = SpokenCountTests.length) -> CountWordStorage {
        CountWordStorage((1...count).map { n in [Float](repeating: Float(n) / 100, count: length(n)) })
    }

    /// The frames `onset ..< onset + length` are the word of `number`, and the frames after
    /// it up to `until` are silent.
    static func expectWord(_ take: Take, _ number: Int, at onset: Int64, length: Int, until: Int64,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let value = Float(number) / 100
        let wrong = (onset..<(onset + Int64(length))).first { take.left($0) != value || take.right($0) != value }
        #expect(wrong == nil, "count \(number): frame \(wrong ?? -1) is \(wrong.map(take.left) ?? 0)", sourceLocation: sourceLocation)
        #expect(take.firstSound((onset + Int64(length))..<until) == nil, "count \(number) ends", sourceLocation: sourceLocation)
    }

    @Test("a count-in of four beats says 5, 6, 7, 8 on the count frames")
    func fourBeats() {
        let storage = Self.words(20)
        let pcm = TestPCM(frames: 200_000)
        defer { pcm.free() }
        var r = makeRenderer()
        let countIn = RenderCountIn(beats: 4, beatFrames: 24_000, lead: 12_000, firstCount: 5)
        let take = run(&r, [Cue(0, .load(pcm.slice)), Cue(0, .setCountWords(storage.words)),
                            Cue(50, .playCountIn(from: 0, countIn))], frames: 50 + 5 * 24_000, period: 97)
        #expect(take.firstSound(0..<50) == nil)
        for k in 0..<4 {
            let onset = 50 + Int64(k) * 24_000
            Self.expectWord(take, 5 + k, at: onset, length: Self.length(5 + k), until: k == 3 ? onset + 12_000 : onset + 24_000)
        }
        #expect(take.events.map(\.report.kind) == [.countdownTick(remaining: 3), .countdownTick(remaining: 2),
                                                   .countdownTick(remaining: 1), .countdownTick(remaining: 0),
                                                   .started(at: 0)])
    }

    @Test("a countdown in seconds says the seconds left: 3, 2, 1")
    func seconds() {
        let storage = Self.words(20)
        var r = makeRenderer()
        let take = run(&r, [Cue(0, .setCountWords(storage.words)), Cue(10, .play(from: 0, countdown: 3))],
                       frames: 10 + 3 * 48_000 + 100)
        for k in 0..<3 {
            let onset = 10 + Int64(k) * 48_000
            Self.expectWord(take, 3 - k, at: onset, length: Self.length(3 - k), until: onset + 48_000)
        }
    }

    @Test("a word longer than the beat ends a ramp before the next count, faded over two ramps")
    func longWordsAreCut() {
        // 60 000-frame words at a beat of 24 000 frames (a fast tempo for speech).
        let storage = Self.words(8) { _ in 60_000 }
        var r = makeRenderer(ramp: 240)
        let countIn = RenderCountIn(beats: 4, beatFrames: 24_000, lead: 0, firstCount: 1)
        let take = run(&r, [Cue(0, .setCountWords(storage.words)), Cue(0, .playCountIn(from: 0, countIn))],
                       frames: 4 * 24_000, period: 128)
        let room: Int64 = 24_000 - 240
        for k in 0..<3 {
            let onset = Int64(k) * 24_000, value = Float(k + 1) / 100
            // Whole up to the fade, then fading linearly to 0 at `room`, then silence.
            #expect((onset..<(onset + room - 480)).allSatisfy { take.left($0) == value }, "count \(k + 1)")
            for i: Int64 in [0, 1, 240, 479] {
                let f = onset + room - 480 + i
                #expect(take.left(f) == value * (Float(480 - i) / 480), "fade frame \(i) of count \(k + 1)")
            }
            #expect(take.firstSound((onset + room)..<(onset + 24_000)) == nil, "silence before count \(k + 2)")
            #expect(take.left(onset + 24_000) == Float(k + 2) / 100, "count \(k + 2) starts whole")
        }
    }

    @Test("a number with no word, and words taken away, sound as ticks")
    func ticksWhereThereIsNoWord() {
        let storage = Self.words(6)
        var r = makeRenderer()
        let tick = r.state.tickSound[0]
        let countIn = RenderCountIn(beats: 4, beatFrames: 24_000, lead: 0, firstCount: 5)
        let take = run(&r, [Cue(0, .setCountWords(storage.words)), Cue(0, .playCountIn(from: 0, countIn)),
                            Cue(4 * 24_000 + 100, .setCountWords(.none)),
                            Cue(4 * 24_000 + 200, .playCountIn(from: 0, countIn))],
                       frames: 4 * 24_000 + 200 + 24_000 * 2)
        #expect(take.left(0) == 0.05)
        #expect(take.left(24_000) == 0.06)
        // 7 has no word: a tick.
        #expect(take.left(48_000) == tick)
        let afterwards = Int64(4 * 24_000 + 200)
        #expect(take.left(afterwards) == r.state.accentSound[0], "5: the accented tick again")
        #expect(take.left(afterwards + 24_000) == tick, "6: a tick")
    }

    @Test("the words go with the renderer's state through a snapshot, like every command's effect")
    func snapshot() {
        let storage = Self.words(8)
        var r = makeRenderer()
        r.apply(StampedCommand(.setCountWords(storage.words), epoch: 1))
        let taken = r.snapshot()
        r.apply(StampedCommand(.setCountWords(.none), epoch: 2))
        r.restore(taken)
        #expect(r.state.words == storage.words)
    }
}
