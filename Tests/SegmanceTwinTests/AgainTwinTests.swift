import Testing
import SegmanceCore
import SegmanceAudio
import SegmanceAppliance
@testable import SegmanceTwin

/// *Again* on the twin (issue 29, item 6): PREV's double press goes back to where the last
/// play started and counts in, however far a seek took the music since. The part is the
/// frame-numbered source of `TwinScenarioTests`: every output frame says which source frame it is.
@Suite(.tags(.integration), .serialized) struct AgainTwinTests {
    static let rate = TwinScenarioTests.rate

    @Test func againAfterASeekCountsInAndPlaysFromWhereTheLastPlayStarted() throws {
        let stick = try TwinScenarioTests.makeStick()
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        configuration.settings.countdown = 3
        var twin = TwinRun(configuration: configuration)
        twin.recordsCommands = true
        var out: [Int16] = []
        // PLAY at 0.1 s: 3 s of count, then the part from 0:00; at 6 s five seconds on; at 8 s *Again*.
        let scenario = "0.1 tap play\n6.0 turn +5\n8.0 double prev\n14.0 end"
        let result = try twin.run(try Scenario(parsing: scenario), stick: stick) { buffer, count in
            for i in 0..<count * 2 { out.append(WAVWriter.s16(buffer[i])) }
        }
        func source(_ j: Int) -> Int { TwinScenarioTests.decode(out[2 * j], out[2 * j + 1]) }
        // Before *Again*, the seek: at 7.9 s the music is past 0:07.
        #expect(source(Int(7.9 * Double(Self.rate))) > 7 * Self.rate)
        // *Again*: the same start as PLAY's, the count-in with it.
        let starts = result.commands.filter {
            if case .play(from: 0, countdown: 3) = $0.command.command { true } else { false }
        }
        #expect(starts.count == 2, "\(result.commands.map(\.command.command))")
        let again = try #require(starts.last).frame
        #expect(again > 8 * Int64(Self.rate) && again < 9 * Int64(Self.rate))
        // Three seconds of count, then source frame 0 onward, frame for frame (past the ramp in).
        let tenth = Self.rate / 10
        let first = Int(again) + 3 * Self.rate + tenth
        #expect((0..<Self.rate).allSatisfy { source(first + $0) == tenth + $0 },
                "at \(first): source \(source(first)), expected \(tenth)")
        #expect(result.finalState.lastStart == 0)
    }

}
