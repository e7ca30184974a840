import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// The stick's layer and the teacher's, in a real library: a re-import of an unchanged stick
/// keeps what the box set, a changed stick updates the stick's values and keeps the box's
/// where the part still exists (same title, same cut), and a restore brings the stick's back.
@Suite(.tags(.integration)) struct LayersLibraryTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }

    static let rate: Int64 = 48_000

    private func manifest(_ stick: String, subtitle: String, secondTo: String) throws {
        try """
            subtitle = "\(subtitle)"
            countdown = 3
            [[part]]
            title = "Intro"
            file = "1 Song.wav"
            to = "0:01"
            loop = { a = "0:00.25", b = "0:00.75" }
            speed = 80
            [[part]]
            title = "Verse"
            file = "1 Song.wav"
            from = "0:01"
            to = "\(secondTo)"
            loop = { a = "0:00.1", b = "0:00.5" }
            """.write(toFile: stick + "/Salsa/routine.toml", atomically: true, encoding: .utf8)
    }

    @Test func theBoxsLayerSurvivesReimportsWhereThePartStillExistsAndARestoreBringsBackTheSticks() throws {
        let stick = try fixture.stick()
        try Sticks.tone(stick + "/Salsa/1 Song.wav", seconds: 3)
        try manifest(stick, subtitle: "v1", secondTo: "0:02")
        #expect(try fixture.importStick(stick).summary == ImportSummary(added: 1))
        let library = try fixture.open()
        let stickLoops = [ABLoop(a: 12_000, b: 36_000), ABLoop(a: 4_800, b: 24_000)]
        #expect(try library.routines()[0].parts.map(\.savedLoop) == stickLoops)

        // On the box: Intro's loop cleared, its speed to 100 %, Verse's loop replaced, and
        // the teacher's countdown chosen over the routine's.
        let mine = ABLoop(a: 1_000, b: 30_000)
        try library.apply(.savedLoop(routine: "Salsa", part: 0, partTitle: "Intro", loop: nil))
        try library.apply(.partSpeed(routine: "Salsa", part: 0, partTitle: "Intro", speed: 100))
        try library.apply(.savedLoop(routine: "Salsa", part: 1, partTitle: "Verse", loop: mine))
        #expect(try library.apply(.countdownChoice(routine: "Salsa", choice: .mine)))
        func boxState() throws -> (loops: [ABLoop?], speeds: [Int], choice: CountdownChoice) {
            let routine = try library.routines()[0]
            return (routine.parts.map(\.savedLoop), routine.parts.map(\.speed), routine.countdownChoice)
        }
        var now = try boxState()
        #expect(now.loops == [nil, mine] && now.speeds == [100, 100] && now.choice == .mine)

        // The same stick again: unchanged, nothing the box set is lost.
        #expect(try fixture.importStick(stick, into: library).summary == ImportSummary(unchanged: 1))
        now = try boxState()
        #expect(now.loops == [nil, mine] && now.speeds == [100, 100] && now.choice == .mine)

        // A changed stick: Verse is cut longer (a new part: the box's loop for the old cut is
        // dropped, the stick's loop is in force); Intro is the same part, its box values stay.
        try manifest(stick, subtitle: "v2", secondTo: "0:03")
        #expect(try fixture.importStick(stick, into: library).summary == ImportSummary(replaced: 1))
        now = try boxState()
        #expect(now.loops == [nil, stickLoops[1]] && now.speeds == [100, 100] && now.choice == .mine)
        let stored = try #require(try library.routine(titled: "Salsa"))
        #expect(stored.parts.map(\.part.stickLoop) == stickLoops)
        #expect(stored.parts.map(\.stickSpeed) == [80, 100])
        #expect(stored.routine.subtitle == "v2")

        // On request, the stick's values of the routine come back, and stay after a restart.
        #expect(try library.restoreStickValues(titled: "Salsa"))
        #expect(try !library.restoreStickValues(titled: "Gone"))
        let restored = try fixture.open().routines()[0]
        #expect(restored.parts.map(\.savedLoop) == stickLoops)
        #expect(restored.parts.map(\.speed) == [80, 100])
        #expect(restored.countdownChoice == .routine && restored.countdown == 3)
        #expect(try library.verify() == [])
    }
}
