import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceMedia
import SegmanceTestSupport
import Testing

/// A routine refused for its manifest leaves nothing in the library: its audio was decoded
/// to check every part against its length, and what that put in the media store goes again.
@Suite struct RefusedRoutineTests {
    let fixture: LibraryFixture

    init() throws {
        fixture = try LibraryFixture()
    }

    @Test func aRefusedRoutineLeavesNoMediaBehind() throws {
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
        #expect(summary == ImportSummary(added: 1, failed: 1))
        #expect(events.problems == [
            "Three/routine.toml: line 6: part 2: 'to' 0:05 is past the end of \"b.wav\" (0:02)",
            "Three/routine.toml: line 10: part 3: 'from' 0:01.5 must be before 'to' 0:01",
            "Three: routine \"Three\" skipped: its routine.toml has problems",
        ])
        let library = try fixture.open()
        #expect(try library.routines().map(\.title) == ["Good"])
        // Only the good routine's one file: a.wav and b.wav were decoded and dropped again.
        #expect(try library.store.contents().media.count == 1)
        #expect(try library.verify() == [])
    }
}
