import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// A part left out for its manifest leaves nothing in the library: its audio was decoded
/// to check it against its length, and what that put in the media store goes again.
@Suite(.tags(.integration)) struct RefusedRoutineTests {
    let fixture: LibraryFixture

    init() throws {
        fixture = try LibraryFixture()
    }

    @Test func aLeftOutPartLeavesNoMediaBehind() throws {
        let stick = try fixture.stick()
        try Sticks.tone(stick + "/Three/a.wav", seconds: 2)
        try Sticks.tone(stick + "/Three/b.wav", seconds: 2, frequency: 660)
        try TestFiles.writeText("""
            [[part]]
            file = "a.wav"
            [[part]]
            file = "b.wav"
            from = "0:01"
            to = "0:05"
            [[part]]
            file = "a.wav"
            from = "0:01.5"
            to = "0:01"
            """, to: stick + "/Three/routine.toml")
        try Sticks.routine(stick + "/Good", parts: ["One"])
        let (summary, events) = try fixture.importStick(stick)
        #expect(summary == ImportSummary(added: 2, leftOut: 2))
        #expect(events.problems == [
            "Three/routine.toml: line 6: part 2: 'to' 0:05 is past the end of \"b.wav\" (0:02)",
            "Three/routine.toml: line 10: part 3: 'from' 0:01.5 must be before 'to' 0:01",
            "Three: routine \"Three\" imported without part 2, part 3 of its routine.toml",
        ])
        let library = try fixture.open()
        #expect(try library.routines().map(\.title) == ["Good", "Three"])
        #expect(try library.routines().last?.parts.count == 1)
        // a.wav and Good's one file: b.wav was decoded and dropped again.
        #expect(try library.store.contents().media.count == 2)
        #expect(try library.verify() == [])
    }
}
