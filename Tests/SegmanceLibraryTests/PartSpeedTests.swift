import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// A part's practice speed (issue 12): a manifest's `speed` is where it starts, a change on
/// the device is kept (the "partSpeed" migration's table) and read at the next boot.
@Suite(.tags(.integration)) struct PartSpeedTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }

    @Test func theManifestsSpeedAndTheDevicesChangesAreWhatTheNextBootReads() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/Salsa", parts: ["Intro", "Shines"], seconds: 1)
        try """
            [[part]]
            file = "1 Intro.wav"
            [[part]]
            file = "2 Shines.wav"
            speed = 75
            """.write(toFile: stick + "/Salsa/routine.toml", atomically: true, encoding: .utf8)
        let (summary, events) = try fixture.importStick(stick)
        #expect(summary.added == 1, "\(events.problems)")
        var parts = try fixture.open().snapshot().routines[0].parts
        #expect(parts.map(\.speed) == [100, 75])
        try fixture.open().apply(.partSpeed(routine: "Salsa", part: 0, partTitle: parts[0].title, speed: 60))
        try fixture.open().apply(.partSpeed(routine: "Salsa", part: 1, partTitle: parts[1].title, speed: 100))
        parts = try fixture.open().snapshot().routines[0].parts
        #expect(parts.map(\.speed) == [60, 100])
        // A part the library does not have: skipped.
        #expect(try !fixture.open().apply(.partSpeed(routine: "Gone", part: 0, partTitle: "x", speed: 80)))

        // Re-imported with a changed manifest: the speeds set on the device stay (the second
        // part's 100 % too), as a loop learned on the device does.
        try """
            subtitle = "Shines, slower"
            [[part]]
            file = "1 Intro.wav"
            speed = 90
            [[part]]
            file = "2 Shines.wav"
            speed = 50
            """.write(toFile: stick + "/Salsa/routine.toml", atomically: true, encoding: .utf8)
        let again = try fixture.importStick(stick)
        #expect(again.summary.replaced == 1, "\(again.events.problems)")
        parts = try fixture.open().snapshot().routines[0].parts
        #expect(parts.map(\.speed) == [60, 100])
    }

    @Test(arguments: ["77", "200", "\"fast\""])
    func aSpeedOffTheGridIsAProblemNamingTheFileAndLine(_ value: String) throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/Salsa", parts: ["Intro"], seconds: 1)
        try "[[part]]\nfile = \"1 Intro.wav\"\nspeed = \(value)\n"
            .write(toFile: stick + "/Salsa/routine.toml", atomically: true, encoding: .utf8)
        let (summary, events) = try fixture.importStick(stick)
        // The part is left out; with no other, the song is a part at 100 %.
        #expect(summary.added == 1)
        #expect(try fixture.open().snapshot().routines[0].parts.map(\.speed) == [100])
        #expect(events.problems.contains { $0.contains("routine.toml") && $0.contains("line 3")
                                           && $0.contains("speed of part 1 must be a percent from 50 to 150 in steps of 5") },
                "\(events.problems)")
    }
}
