import BoxSupport
import Testing

/// The comparison on synthetic signals shaped like the box's: silence, then noise that a
/// command makes jump elsewhere (with a crossfade, or a pause's ramp out); the "capture"
/// starts later and applies the command where the twin did or a few periods late.
@Suite(.tags(.unit)) struct AudioComparisonTests {
    static let source = BoxStick.noise(frames: 200_000, seed: 7)
    static let seek = AudioComparison.CommandKind(name: "seek", rampFrames: 240, maxLagGrowth: 2_048)
    static let pause = AudioComparison.CommandKind(name: "pause", rampFrames: 240, maxLagGrowth: 512)
    static let start = AudioComparison.CommandKind(name: "start", rampFrames: 0, maxLagGrowth: 0, realigns: true)
    static let commands = [AudioComparison.Command(frame: 30_000, kind: seek)]

    static func frames(_ range: Range<Int>) -> [Int16] { Array(source[(range.lowerBound * 2)..<(range.upperBound * 2)]) }
    static func silence(_ n: Int) -> [Int16] { [Int16](repeating: 0, count: n * 2) }
    /// `a` fading out while `b` fades in over their length (a crossfade), or `a` alone fading out.
    static func fade(_ a: [Int16], into b: [Int16]? = nil) -> [Int16] {
        let n = a.count / 2
        return (0..<(n * 2)).map { i in
            let w = Double(i / 2) / Double(n)
            return Int16((Double(a[i]) * (1 - w) + Double(b?[i] ?? 0) * w).rounded())
        }
    }

    /// Twin: 1000 silent frames, source from 0 until `command` (30000), then source from
    /// 120000 on, until 60000 frames. Capture: `lead` silent frames, the same, but the jump
    /// `delay` frames later (the old audio goes on meanwhile), and `tail` frames more. With
    /// `crossfade` both fade over 240 frames at the jump, the capture only when `captureFades`.
    static func signals(lead: Int = 2_345, delay: Int = 512, tail: Int = 4_000, crossfade: Bool = false,
                        captureFades: Bool = true) -> (twin: [Int16], capture: [Int16]) {
        let command = 30_000
        let old = command - 1_000
        func jump(at position: Int, fades: Bool) -> [Int16] {
            guard fades else { return frames(120_000..<(120_000 + 240)) }
            return fade(frames(position..<(position + 240)), into: frames(120_000..<(120_000 + 240)))
        }
        let twin = silence(1_000) + frames(0..<old) + jump(at: old, fades: crossfade)
            + frames(120_240..<(120_000 + 30_000))
        let capture = silence(lead) + silence(1_000) + frames(0..<(old + delay))
            + jump(at: old + delay, fades: crossfade && captureFades) + frames(120_240..<(120_000 + 30_000 + tail))
        return (twin, capture)
    }

    @Test func aCaptureThatStartsLaterAndAppliesTheCommandLateMatches() {
        let (twin, capture) = Self.signals()
        let result = AudioComparison().compare(capture: capture, twin: twin, commands: Self.commands)
        #expect(result.matches, "\(result.failures)")
        #expect(result.segments.map(\.offset) == [2_345, 2_345 + 512])
        #expect(result.segments.last?.lagGrowth == 512)
        // What the daemon played on past the command, and the crossfade after it, were left out.
        #expect(result.segments.last?.windowFrames == 512 + 240)
        #expect(result.matchedSoundFrames == 59_000 - 240, "\(result.summary)")
    }

    @Test func aCommandAppliedWhereTheTwinAppliedItIsComparedWithItsCrossfade() {
        let (twin, capture) = Self.signals(delay: 0, crossfade: true)
        let result = AudioComparison().compare(capture: capture, twin: twin, commands: Self.commands)
        #expect(result.matches, "\(result.failures)")
        #expect(result.segments.last?.windowFrames == 0)
        #expect(result.matchedSoundFrames == 59_000, "\(result.summary)")
        #expect(result.percentCompared == 100)

        // The same with the crossfade dropped in the capture (a hard cut): it differs there.
        let (_, cut) = Self.signals(delay: 0, crossfade: true, captureFades: false)
        let dropped = AudioComparison().compare(capture: cut, twin: twin, commands: Self.commands)
        #expect(!dropped.matches)
        #expect(dropped.failures.first?.hasPrefix("after the seek at twin frame 30000, frames 30000..<60000: no offset in 2345...4393") == true,
                "\(dropped.failures)")
    }

    @Test func oneSampleOffByOneFails() {
        var (twin, capture) = Self.signals()
        capture[(2_345 + 512 + 45_000) * 2 + 1] &+= 1
        let result = AudioComparison().compare(capture: capture, twin: twin, commands: Self.commands)
        #expect(!result.matches)
        let failure = result.failures.joined()
        #expect(failure.contains("differs at twin frame 45000"), "\(failure)")
        // With a one-LSB tolerance it is equal.
        #expect(AudioComparison(.init(tolerance: 1)).compare(capture: capture, twin: twin, commands: Self.commands).matches)
        _ = twin
    }

    @Test func aDroppedFrameFails() {
        var (twin, capture) = Self.signals()
        capture.removeSubrange(((2_345 + 10_000) * 2)..<((2_345 + 10_001) * 2))
        let result = AudioComparison().compare(capture: capture, twin: twin, commands: Self.commands)
        #expect(!result.matches)
        #expect(result.failures.first?.hasPrefix("frames 0..<30000: no offset in 2345...2345") == true, "\(result.failures)")
        _ = twin
    }

    @Test func aLagGrowingMoreThanTheCommandExplainsFails() {
        let (twin, capture) = Self.signals(delay: 4_096)
        let result = AudioComparison().compare(capture: capture, twin: twin, commands: Self.commands)
        #expect(!result.matches)
        #expect(result.failures.contains { $0.hasPrefix("after the seek at twin frame 30000, frames 30000..<60000: no offset in 2345...4393") },
                "\(result.failures)")
    }

    @Test func soundWhereTheTwinIsSilentFails() {
        var (twin, capture) = Self.signals()
        // A click in the capture 100 frames before the music.
        capture[(2_345 + 900) * 2] = 500
        let result = AudioComparison().compare(capture: capture, twin: twin, commands: Self.commands)
        #expect(!result.matches)
        _ = twin
    }

    /// A pause: the music ramps out over 240 frames, then silence. The capture may ramp out
    /// up to one period (512 frames) later than the twin, no more.
    static func paused(delay: Int) -> (twin: [Int16], capture: [Int16]) {
        let twin = silence(1_000) + frames(0..<29_000) + fade(frames(29_000..<29_240)) + silence(20_000)
        let capture = silence(700) + silence(1_000) + frames(0..<(29_000 + delay))
            + fade(frames((29_000 + delay)..<(29_240 + delay))) + silence(30_000)
        return (twin, capture)
    }

    @Test func theTailAfterAPauseIsSilentWithinTheRampAndOnePeriod() {
        let commands = [AudioComparison.Command(frame: 30_000, kind: Self.pause)]
        // Where the twin paused: the ramp itself is compared, and the silence after it.
        let (twin, capture) = Self.paused(delay: 0)
        let same = AudioComparison().compare(capture: capture, twin: twin, commands: commands)
        #expect(same.matches, "\(same.failures)")
        #expect(same.matchedSoundFrames == same.soundFrames)
        for delay in [128, 512] {
            let (twin, capture) = Self.paused(delay: delay)
            let result = AudioComparison().compare(capture: capture, twin: twin, commands: commands)
            #expect(result.matches, "delay \(delay): \(result.failures)")
            // The ramp's last frames may round to silence.
            #expect(((delay - 2)...delay).contains(result.segments.last?.lagGrowth ?? -1), "\(result.summary)")
        }
        let (late, sounding) = Self.paused(delay: 600)
        let result = AudioComparison().compare(capture: sounding, twin: late, commands: commands)
        #expect(!result.matches)
        #expect(result.failures.first?.contains("the capture sounds until capture frame 315") == true, "\(result.failures)")
    }

    /// A volume change: the gain ramps from 1 to 0.5 over 240 frames. Applied later, only
    /// the ramp comes later: the music does not move.
    static func louder(at ramp: Int, frames count: Int = 40_000) -> [Int16] {
        (0..<(count * 2)).map { i in
            let t = i / 2
            let gain = t < ramp ? 1.0 : t >= ramp + 240 ? 0.5 : 1.0 - 0.5 * Double(t - ramp) / 240
            return Int16((Double(source[i]) * gain).rounded())
        }
    }

    @Test func aLaterVolumeChangeOnlyMovesItsRamp() {
        let volume = AudioComparison.CommandKind(name: "volume", rampFrames: 240, maxLagGrowth: 1_024, movesMusic: false)
        let commands = [AudioComparison.Command(frame: 30_000, kind: volume)]
        let twin = Self.silence(1_000) + Self.louder(at: 29_000)
        for delay in [0, 512] {
            let capture = Self.silence(1_500) + Self.louder(at: 29_000 + delay)
            let result = AudioComparison().compare(capture: capture, twin: twin, commands: commands)
            #expect(result.matches, "delay \(delay): \(result.failures)")
            #expect(result.segments.map(\.offset) == [500, 500])
            #expect(result.segments.last?.delay == delay)
            #expect(result.segments.last?.windowFrames == (delay == 0 ? 0 : delay + 240))
        }
        let late = Self.silence(1_500) + Self.louder(at: 29_000 + 1_100)
        let result = AudioComparison().compare(capture: late, twin: twin, commands: commands)
        #expect(!result.matches)
        #expect(result.failures.first?.hasPrefix("after the volume at twin frame 30000, frames 30000..<41000: no offset in 500...500") == true,
                "\(result.failures)")
    }

    @Test func aStartFindsItsOffsetFromItsFirstSound() {
        let start = [AudioComparison.Command(frame: 1_000, kind: Self.start),
                     AudioComparison.Command(frame: 30_000, kind: Self.pause),
                     AudioComparison.Command(frame: 50_000, kind: Self.start)]
        let resume = Self.frames(29_000..<39_000)
        let twin = Self.silence(1_000) + Self.frames(0..<29_000) + Self.fade(Self.frames(29_000..<29_240)) + Self.silence(20_760) + resume
        // The second start sounds 7 000 frames later in the capture than in the twin.
        let capture = Self.silence(300) + Self.silence(1_000) + Self.frames(0..<29_000) + Self.fade(Self.frames(29_000..<29_240))
            + Self.silence(27_760) + resume + Self.silence(100)
        let result = AudioComparison().compare(capture: capture, twin: twin, commands: start)
        #expect(result.matches, "\(result.failures)")
        #expect(result.segments.map(\.offset) == [300, 300, 300, 7_300])
        #expect(result.matchedSoundFrames == result.soundFrames)
    }

    @Test func aCaptureThatEndsTooSoonFails() {
        let (twin, capture) = Self.signals(tail: 0)
        let short = Array(capture.dropLast(2_000 * 2))
        let result = AudioComparison().compare(capture: short, twin: twin, commands: Self.commands)
        #expect(!result.matches)
        #expect(result.failures.joined().contains("the capture ends"), "\(result.failures)")
    }

    @Test func silenceOnEitherSideIsReported() {
        let (twin, _) = Self.signals()
        let silent = [Int16](repeating: 0, count: twin.count)
        #expect(AudioComparison().compare(capture: silent, twin: twin, commands: []).problems
            == ["the capture is silent throughout"])
        #expect(AudioComparison().compare(capture: twin, twin: silent, commands: []).problems
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
