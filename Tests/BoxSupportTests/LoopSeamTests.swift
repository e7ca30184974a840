import BoxSupport
import Testing

/// The loop's facts from a synthetic capture shaped like the rehearsal's: pass 1 plays the
/// noise straight from before A to past B, the loop arrives 3000 frames past B and wraps as
/// far past A, pass 2 ends at B and pass 3 starts at A, each seam crossfaded over 240 frames
/// (or not, or to the wrong place).
@Suite(.tags(.unit)) struct LoopSeamTests {
    static let source = BoxStick.noise(frames: 400_000, seed: 9)
    static let a = 48_000, b = 144_000, over = 3_000
    /// Capture frame of A in pass 1.
    static let a1 = 2_000 + 20_000

    static func frames(_ from: Int, _ count: Int) -> [Int16] { Array(source[(from * 2)..<((from + count) * 2)]) }
    /// Source from `out` fading out while source from `into` fades in, over `n` frames.
    static func seam(from out: Int, to into: Int, frames n: Int) -> [Int16] {
        let x = frames(out, n), y = frames(into, n)
        return (0..<(n * 2)).map { i in
            let w = Double(i / 2) / Double(n)
            return Int16((Double(x[i]) * (1 - w) + Double(y[i]) * w).rounded())
        }
    }

    /// The capture; pass 3 starts at `third` (A) with a `crossfade`-frame seam.
    static func capture(crossfade: Int = 240, third: Int = a) -> [Int16] {
        var c = [Int16](repeating: 0, count: 2_000 * 2) + frames(a - 20_000, b + over - (a - 20_000))
        c += seam(from: b + over, to: a + over, frames: 240)
        c += frames(a + over + 240, b - (a + over + 240))
        if crossfade > 0 { c += seam(from: b, to: third, frames: crossfade) }
        c += frames(third + crossfade, 60_000)
        return c
    }

    @Test func theLoopsPeriodSeamAndEndsAreMeasuredFromTheCaptureAlone() throws {
        let measured = try LoopSeam.measure(capture: Self.capture(), heardA: Int64(Self.a1 + 37),
                                            heardB: Int64(Self.a1 + Self.b - Self.a - 50), tolerance: 2_048)
        #expect(measured.period == Int64(Self.b - Self.a))
        // The crossfade's first frame is still all B: the seam is found a frame late.
        #expect(measured.a == Int64(Self.a1 + 1))
        #expect(measured.b == Int64(Self.a1 + Self.b - Self.a + 1))
        #expect(measured.crossfade == 239)
    }

    @Test func aSeamWithNoCrossfadeMeasuresNone() throws {
        let measured = try LoopSeam.measure(capture: Self.capture(crossfade: 0), heardA: Int64(Self.a1),
                                            heardB: Int64(Self.a1 + Self.b - Self.a), tolerance: 2_048)
        #expect(measured.crossfade == 0)
    }

    @Test func aLoopThatWrapsPastAIsNotMeasured() {
        #expect(throws: LoopSeam.Unmeasurable.self) {
            try LoopSeam.measure(capture: Self.capture(third: Self.a + 100), heardA: Int64(Self.a1),
                                 heardB: Int64(Self.a1 + Self.b - Self.a), tolerance: 2_048)
        }
    }

    @Test func edgesTooFarFromTheLoopFindNoPeriod() {
        #expect(throws: LoopSeam.Unmeasurable.self) {
            try LoopSeam.measure(capture: Self.capture(), heardA: Int64(Self.a1),
                                 heardB: Int64(Self.a1 + Self.b - Self.a + 3_000), tolerance: 2_048)
        }
    }
}
