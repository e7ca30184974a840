import Testing
import SegmanceCore
@testable import SegmanceAudio

/// Spare stretchers (`StretchPool.spares`): kept where Rubber Band's reset calls the heap
/// (3.2 on), made here whatever the library. A stream's start swaps a clean spare in for its
/// engine's stretcher; the one swapped out is reset by the control side (`resetUsedSpares`)
/// in the engine, by the start itself in the twin. Run either way, the audio is the same
/// sample for sample, and no start resets a stretcher itself while the control side keeps up.
@Suite(.tags(.unit)) struct StretcherSparesTests {
    /// Speed changes, seeks and a loop whose next pass starts ahead of each seam: starts.
    static func cues(_ part: PCMSlice) -> [Cue] {
        [Cue(0, .load(part)), Cue(0, .setSpeed(75)), Cue(0, .play(from: 38_000, countdown: 0)),
         Cue(0, .setLoop(start: 40_000, end: 52_000, countdownBeforeRepeat: 0)),
         Cue(18_700, .seek(44_000)), Cue(24_000, .setSpeed(60)), Cue(40_000, .setSpeed(140)),
         Cue(56_000, .clearLoop), Cue(60_000, .seek(100_000)), Cue(70_000, .setSpeed(50)),
         Cue(80_000, .seek(150_000)), Cue(90_000, .stop)]
    }

    static let frames = 96_000

    /// Renders the cues on a renderer over `storage`'s voices, a period at a time, calling
    /// `between` after each period.
    static func render(_ storage: StretchStorage, _ part: PCMSlice, between: () -> Void = {}) -> [Float] {
        let config = RenderConfig(positionReportInterval: 0, stretchVoices: 3)
        var r = Renderer(sampleRate: 48_000, config: config, deferringStretchers: true)
        r.attach(storage.pool)
        var out = [Float](repeating: .nan, count: frames * 2)
        let cues = Self.cues(part)
        var next = 0
        var done = 0
        while done < frames {
            while next < cues.count && cues[next].frame <= Int64(done) {
                r.apply(StampedCommand(cues[next].command, epoch: UInt32(next + 1)))
                next += 1
            }
            var n = min(256, frames - done)
            if next < cues.count { n = min(n, Int(cues[next].frame) - done) }
            out.withUnsafeMutableBufferPointer { r.render(into: $0.baseAddress! + done * 2, frames: n) }
            _ = r.takeReports()
            done += n
            between()
        }
        return out
    }

    static func make(spares: Int) throws -> StretchStorage {
        try #require(StretchStorage.make(count: 3, sampleRate: 48_000, engine: Renderer.stretchEngine,
                                         spares: spares))
    }

    /// Runs `body` with an eight-second tone part.
    static func withPart(_ body: (PCMSlice) throws -> Void) rethrows {
        let pcm = SpeedTests.tone(frames: 8 * 48_000)
        defer { pcm.deallocate() }
        try body(PCMSlice(base: pcm, frames: 8 * 48_000))
    }

    /// A storage with `spares` whose used spares the control side resets, and its render
    /// of the cues with no resets from that side.
    static func unattended(spares: Int, _ part: PCMSlice) throws -> (StretchStorage, [Float]) {
        let storage = try make(spares: spares)
        storage.resetSparesOnTheControlSide()
        return (storage, render(storage, part))
    }

    @Test func aStartTakesASpareTheControlSideResetAndPlaysWhatTheTwinPlays() throws {
        try Self.withPart { part in try Self.twinAndEngine(part) }
    }

    static func twinAndEngine(_ part: PCMSlice) throws {
        let twin = try Self.make(spares: 2)
        let engine = try Self.make(spares: 2)
        engine.resetSparesOnTheControlSide()
        #expect(twin.spareCount == 2 && engine.spareCount == 2)

        let twinOut = Self.render(twin, part)
        var resetByTheControlSide = 0
        let engineOut = Self.render(engine, part) { resetByTheControlSide += engine.resetUsedSpares() }

        // Four seeks and speed changes and the loop's passes each started a stream.
        #expect(resetByTheControlSide >= 6, "\(resetByTheControlSide) spares reset by the control side")
        #expect(engine.pool.resetsAtStart == 0 && twin.pool.resetsAtStart == 0)
        #expect(twin.resetUsedSpares() == 0, "the twin's starts reset the spares they leave themselves")
        #expect(engineOut.contains { $0 != 0 } && !engineOut.contains { $0.isNaN })
        let first = twinOut.indices.first { twinOut[$0] != engineOut[$0] }
        #expect(first == nil, "the twin and the engine differ from sample \(first ?? -1)")
    }

    /// With no spare clean (the control side has not reset the ones used), a start resets
    /// its engine's stretcher itself, and counts it: what the engine's tests watch.
    @Test func aStartWithNoCleanSpareResetsItsOwnStretcherAndCountsIt() throws {
        try Self.withPart { part in
            let (engine, out) = try Self.unattended(spares: 2, part)
            #expect(engine.pool.resetsAtStart >= 4, "\(engine.pool.resetsAtStart) starts reset their own stretcher")
            #expect(engine.resetUsedSpares() == 2, "both spares were taken and left used")
            #expect(engine.resetUsedSpares() == 0)
            #expect(out.contains { $0 != 0 } && !out.contains { $0.isNaN })
        }
    }

    /// Without spares (where a reset does not call the heap) a start resets in place, as it
    /// always did: nothing counted, nothing for the control side.
    @Test func withoutSparesAStartResetsInPlace() throws {
        try Self.withPart { part in
            let (storage, out) = try Self.unattended(spares: 0, part)
            #expect(storage.spareCount == 0 && storage.pool.resetsAtStart == 0 && storage.resetUsedSpares() == 0)
            #expect(out.contains { $0 != 0 })
        }
    }

    /// The library decides the default: spares exactly where a reset calls the heap.
    @Test func sparesAreKeptWhereTheLibrarysResetCallsTheHeap() throws {
        let storage = try #require(StretchStorage.make(count: 3, sampleRate: 48_000, engine: Renderer.stretchEngine))
        #expect(storage.spareCount == StretchPool.defaultSpares, "\(StretchPool.library)")
        let version = StretchPool.library.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
        try #require(version.count >= 2, "\(StretchPool.library)")
        let calls = version[0] > 3 || version[0] == 3 && version[1] >= 2
        #expect(StretchPool.defaultSpares == (calls ? StretchPool.spareCount : 0))
        #expect(RenderConfig().stretchSpares == storage.spareCount)
    }
}
