import BoxSupport
import Testing

/// The comparison on synthetic signals shaped like the box's: silence, then noise that a
/// command makes jump elsewhere; the "capture" starts later and applies the command a few
/// periods late, with other samples in between (a ramp on another period).
@Suite struct AudioComparisonTests {
    static let source = BoxStick.noise(frames: 200_000, seed: 7)
    static let options = AudioComparison.Options(windowFrames: 2_048 + 240, searchFrames: 2_048)

    /// Twin: 1000 silent frames, source from 0 until `command` (30000), then source from
    /// 120000 on, until 60000 frames. Capture: `lead` silent frames, the same, but the jump
    /// `delay` frames later (the old audio goes on meanwhile), and `tail` frames more.
    static func signals(lead: Int = 2_345, delay: Int = 512, tail: Int = 4_000) -> (twin: [Int16], capture: [Int16]) {
        func frames(_ range: Range<Int>) -> [Int16] { Array(source[(range.lowerBound * 2)..<(range.upperBound * 2)]) }
        let silence = { (n: Int) in [Int16](repeating: 0, count: n * 2) }
        let command = 30_000
        let twin = silence(1_000) + frames(0..<(command - 1_000)) + frames(120_000..<(120_000 + 30_000))
        let capture = silence(lead) + silence(1_000) + frames(0..<(command - 1_000 + delay))
            + frames(120_000..<(120_000 + 30_000 + tail))
        return (twin, capture)
    }

    @Test func aCaptureThatStartsLaterAndAppliesTheCommandLateMatches() {
        let (twin, capture) = Self.signals()
        let result = AudioComparison(Self.options).compare(capture: capture, twin: twin, commands: [30_000])
        #expect(result.matches, "\(result.failures)")
        #expect(result.segments.compactMap(\.offset) == [2_345, 2_345 + 512])
        // Everything but the window after the command was compared.
        #expect(result.matchedSoundFrames == 59_000 - Self.options.windowFrames, "\(result.summary)")
    }

    @Test func oneSampleOffByOneFails() {
        var (twin, capture) = Self.signals()
        capture[(2_345 + 512 + 45_000) * 2 + 1] &+= 1
        let result = AudioComparison(Self.options).compare(capture: capture, twin: twin, commands: [30_000])
        #expect(!result.matches)
        let failure = result.failures.joined()
        #expect(failure.contains("differs at twin frame 45000"), "\(failure)")
        // With a one-LSB tolerance it is equal.
        var tolerant = Self.options
        tolerant.tolerance = 1
        #expect(AudioComparison(tolerant).compare(capture: capture, twin: twin, commands: [30_000]).matches)
        _ = twin
    }

    @Test func aDroppedFrameFails() {
        var (twin, capture) = Self.signals()
        capture.removeSubrange(((2_345 + 10_000) * 2)..<((2_345 + 10_001) * 2))
        let result = AudioComparison(Self.options).compare(capture: capture, twin: twin, commands: [30_000])
        #expect(!result.matches)
        #expect(result.failures.first?.hasPrefix("frames 0..<30000: no offset in 2345...2345") == true, "\(result.failures)")
        _ = twin
    }

    @Test func aCommandLaterThanTheSearchAllowsFails() {
        let (twin, capture) = Self.signals(delay: 4_096)
        let result = AudioComparison(Self.options).compare(capture: capture, twin: twin, commands: [30_000])
        #expect(!result.matches)
        #expect(result.failures.contains { $0.hasPrefix("frames \(30_000 + Self.options.windowFrames)..<60000: no offset") },
                "\(result.failures)")
    }

    @Test func soundWhereTheTwinIsSilentFails() {
        var (twin, capture) = Self.signals()
        // A click in the capture 100 frames before the music.
        capture[(2_345 + 900) * 2] = 500
        let result = AudioComparison(Self.options).compare(capture: capture, twin: twin, commands: [30_000])
        #expect(!result.matches)
        _ = twin
    }

    @Test func aCaptureThatEndsTooSoonFails() {
        let (twin, capture) = Self.signals(tail: 0)
        let short = Array(capture.dropLast(2_000 * 2))
        let result = AudioComparison(Self.options).compare(capture: short, twin: twin, commands: [30_000])
        #expect(!result.matches)
        #expect(result.failures.joined().contains("the capture ends"), "\(result.failures)")
    }

    @Test func silenceOnEitherSideIsReported() {
        let (twin, _) = Self.signals()
        let silent = [Int16](repeating: 0, count: twin.count)
        #expect(AudioComparison(Self.options).compare(capture: silent, twin: twin, commands: []).problems
            == ["the capture is silent throughout"])
        #expect(AudioComparison(Self.options).compare(capture: twin, twin: silent, commands: []).problems
            == ["the twin's audio is silent throughout"])
    }

    @Test func percentilesAreNearestRank() {
        let values = (1...100).map(Double.init)
        #expect(Percentile.of(values, 50) == 50)
        #expect(Percentile.of(values, 99) == 99)
        #expect(Percentile.of([3, 1, 2], 50) == 2)
        #expect(Percentile.of([], 50) == nil)
    }
}
