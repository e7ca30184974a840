import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// A part's lead-in and speed ramp (issue 29): the manifest's `lead_in` and `ramp` imported into a
/// real library (the "practice" migration's columns), the menu's changes kept and read at the
/// next boot, and a bad value a problem naming the file, the line and the reason.
@Suite(.tags(.integration)) struct PracticeLibraryTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }

    @Test func theManifestsLeadInAndRampAndTheMenusChangesAreWhatTheNextBootReads() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/Salsa", parts: ["Intro", "Shines"], seconds: 1)
        try """
            [[part]]
            file = "1 Intro.wav"
            lead_in = "1 eight"
            [[part]]
            file = "2 Shines.wav"
            ramp = { from = 70, step = 5, to = 100 }
            """.write(toFile: stick + "/Salsa/routine.toml", atomically: true, encoding: .utf8)
        let (summary, events) = try fixture.importStick(stick)
        #expect(summary.added == 1, "\(events.problems)")
        var parts = try fixture.open().snapshot().routines[0].parts
        #expect(parts.map(\.leadIn) == [LeadIn(1, .eights), nil])
        #expect(parts.map(\.ramp) == [nil, SpeedRamp(from: 70, step: 5, every: 1, to: 100)])
        let ramp = SpeedRamp(from: 80, step: 10, every: 2, to: 110)
        try fixture.open().apply(.partPractice(routine: "Salsa", part: 0, partTitle: parts[0].title,
                                               leadIn: LeadIn(2, .seconds), ramp: ramp))
        try fixture.open().apply(.partPractice(routine: "Salsa", part: 1, partTitle: parts[1].title,
                                               leadIn: nil, ramp: nil))
        parts = try fixture.open().snapshot().routines[0].parts
        #expect(parts.map(\.leadIn) == [LeadIn(2, .seconds), nil])
        #expect(parts.map(\.ramp) == [ramp, nil])
        #expect(try !fixture.open().apply(.partPractice(routine: "Gone", part: 0, partTitle: "x", leadIn: nil,
                                                        ramp: nil)))
    }

    @Test(arguments: [
        ("lead_in = \"2 bars\"", "lead_in of part 1 = \"2 bars\" is not a lead-in"),
        ("lead_in = 2", "lead_in of part 1 = 2 is not a lead-in"),
        ("ramp = { from = 90, step = 5, to = 90 }", "the ramp of part 1: 'to' = 90 must be above 'from' = 90"),
        ("ramp = { from = 70, step = 5 }", "the ramp of part 1 has no 'to'"),
        ("ramp = { from = 70, step = 5, to = 100, by = 2 }", "unknown key 'by' in the ramp of part 1"),
        ("ramp = 70", "ramp of part 1 must be a table like { from = 70, step = 5, every = 1, to = 100 }"),
    ])
    func aBadLeadInOrRampIsAProblemNamingTheFileLineAndReason(_ line: String, _ reason: String) throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/Salsa", parts: ["Intro"], seconds: 1)
        try "[[part]]\nfile = \"1 Intro.wav\"\n\(line)\n"
            .write(toFile: stick + "/Salsa/routine.toml", atomically: true, encoding: .utf8)
        let (summary, events) = try fixture.importStick(stick)
        // The part is left out; with no other, the song is a part with neither.
        #expect(summary.added == 1)
        #expect(try fixture.open().snapshot().routines[0].parts.map(\.leadIn) == [nil])
        #expect(events.problems.contains { $0.contains("routine.toml") && $0.contains("line 3") && $0.contains(reason) },
                "\(events.problems)")
    }
}
