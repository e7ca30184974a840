import SegmanceAppliance
import SegmanceCore
@testable import SegmanceTwin
import Testing

/// *Tap tempo* in the twin (issue 29), on the frame-numbered source of `TwinScenarioTests` (a
/// part with no beat; every output frame says which source frame it is): eight LOOP taps half
/// a second apart give 120 BPM and the "1" at the first tap; a count-in of 4 beats to that "1"
/// lands its last count half a second before it.
@Suite(.tags(.integration), .serialized) struct TapTempoTwinTests {
    static let rate = TwinScenarioTests.rate
    static let row = Menu.Item.allCases.firstIndex(of: .tapTempo)!

    static func run(_ text: String, stick: String) throws -> (samples: [Int16], output: TwinRun.Output) {
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        configuration.settings.countdownBeats = 4
        configuration.settings.loopSnap = .eight
        var samples: [Int16] = []
        let output = try TwinRun(configuration: configuration).run(try Scenario(parsing: text), stick: stick) { b, n in
            for i in 0..<n * 2 { samples.append(WAVWriter.s16(b[i])) }
        }
        return (samples, output)
    }

    /// Played from 0 (four ticks a second apart: no beat yet, the music from 4.06 s), the menu
    /// walked to *Tap tempo* (opened at 4.36 s, a detent each 150 ms); the taps at 11.0 … 14.5 s; stopped and
    /// played again (counted in on the tapped beat), A marked near the first tap's frame and B
    /// an eight later (snapped to the "1"s); stopped, back at A, and played: counted in to the
    /// tapped "1".
    static let scenario = """
        0.0  tap play
        4.0  tap select
        4.6  turn +\(row)
        \(5 + row * 3 / 20 + 1).0 tap select
        11.0 tap loop
        11.5 tap loop
        12.0 tap loop
        12.5 tap loop
        13.0 tap loop
        13.5 tap loop
        14.0 tap loop
        14.5 tap loop
        15.0 hold select 0.8
        16.0 hold select 0.8
        16.8 hold play 0.8
        18.5 tap play
        27.0 tap loop
        31.0 tap loop
        32.0 hold play 0.8
        34.0 tap play
        37.0 end
        """

    @Test func eightTapsAreOneTwentyBPMAndACountInOfFourLandsItsLastCountHalfASecondBeforeTheOne() throws {
        let stick = try TwinScenarioTests.makeStick()
        let before = try Self.run("0.0 tap play\n1.0 end", stick: stick)
        #expect(before.output.finalState.part?.grid == nil, "a part with no beat")

        let (out, result) = try Self.run(Self.scenario, stick: stick)
        let grid = try #require(result.finalState.part?.grid)
        #expect(grid.origin == .tapped)
        let bpm = grid.bpm(sampleRate: Int64(Self.rate))
        #expect(abs(bpm - 120) <= 0.5, "\(bpm) BPM")
        // The first tap, at 11.0 s, heard 11.0 − 4.06 s into the music.
        #expect(abs(Double(grid.one) / Double(Self.rate) - (11.0 - 4.06)) < 0.01, "one at \(grid.one)")
        // A snapped to the tapped "1", B an eight after it.
        guard case .ab(let loop) = result.finalState.loop else {
            Issue.record("no A-B loop: \(result.finalState.loop)")
            return
        }
        #expect(loop.a == grid.one)
        #expect(loop.b == grid.frame(ofBeat: 8))
        // The last count-in: four sounds after silence from 34 s on, then the music at A.
        let frames = out.count / 2
        var onsets: [Int] = []
        var quiet = 200
        for j in (34 * Self.rate)..<frames {
            if out[2 * j] == 0 && out[2 * j + 1] == 0 { quiet += 1; continue }
            if quiet >= 200 { onsets.append(j) }
            quiet = 0
        }
        #expect(onsets.count >= 5, "\(onsets)")
        let counts = Array(onsets.prefix(4))
        for (a, b) in zip(counts, counts.dropFirst()) {
            #expect(abs(b - a - Self.rate / 2) <= 48, "count interval \(b - a) frames") // ±1 ms
        }
        // The music starts at A on its beat with the ramp-in: the frame after the ramp is A + ramp.
        let ramp = 240
        let one = (34 * Self.rate..<frames).first { j in
            TwinScenarioTests.decode(out[2 * j], out[2 * j + 1]) == Int(grid.one) + ramp
        }.map { $0 - ramp }
        let last = counts.last ?? 0
        #expect(one.map { abs($0 - last - Self.rate / 2) <= 48 } == true,
                "the tapped one at \(one ?? -1), the last count at \(last)") // ±1 ms
        print("tap tempo: \(bpm) BPM, the one at \(grid.one); the last count \(one.map { $0 - last } ?? -1) "
              + "frames before it (half a second: \(Self.rate / 2))")
        // The page showed the taps' tempo.
        #expect(result.frames.lines.contains { $0.contains("120.0 BPM") }, "\(result.frames.text)")
    }
}
