import Foundation
import GRDB
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// What is made on the box (`Persist.parts`, `.newRoutine`) in a real library: kept beside the
/// stick's rows, each save one transaction that survives reopening; the box's other saves
/// (loop, speed, "1", resume) go to the box's parts; a restore brings the stick's parts back.
@Suite(.tags(.integration)) struct BoxLayerLibraryTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }

    /// "Salsa": one 3 s song cut at 0:01 into "Intro" and "Verse", the stick naming a loop "Hit".
    private func imported() throws -> Library { try imported(at: try fixture.stick()) }

    private func imported(at stick: String, cut: String = "0:01") throws -> Library {
        try? Sticks.tone(stick + "/Salsa/1 Song.wav", seconds: 3)
        try """
            [[part]]
            title = "Intro"
            file = "1 Song.wav"
            to = "\(cut)"
            [[part]]
            title = "Verse"
            file = "1 Song.wav"
            from = "\(cut)"
            """.write(toFile: stick + "/Salsa/routine.toml", atomically: true, encoding: .utf8)
        _ = try fixture.importStick(stick)
        return try fixture.open()
    }

    @Test func partsMadeOnTheBoxPlayInPlaceOfTheSticksAndEverySaveReachesThem() throws {
        let library = try imported()
        let stick = try library.routines()[0]
        var made = stick.parts
        let (first, second) = EditRules.pieces(of: made[1], at: 24_000, secondTitle: "Verse 2")
        made.replaceSubrange(1...1, with: [first, second])
        made[0].title = "Chorus"
        made[0].moves = [Move(type: MoveType("Spin"), name: "Spin", cue: 1_000)]
        made[2].loops = [NamedLoop(name: "Eight 1", loop: ABLoop(a: 0, b: 12_000))]
        #expect(try library.apply(.parts(routine: "Salsa", parts: made)))
        // Reopened, as after a restart or a power cut: the box's parts, the stick's beneath.
        var reopened = try fixture.open()
        #expect(try reopened.routines()[0].parts == made)
        let stored = try #require(try reopened.routine(titled: "Salsa"))
        #expect(stored.partsMadeOnBox && stored.parts.map(\.part.title) == ["Intro", "Verse"])
        #expect(try reopened.verify() == [])

        // The box's other saves go to its parts, found by place and title.
        let loop = ABLoop(a: 100, b: 20_000)
        #expect(try reopened.apply(.savedLoop(routine: "Salsa", part: 2, partTitle: "Verse 2", loop: loop)))
        #expect(try reopened.apply(.partSpeed(routine: "Salsa", part: 0, partTitle: "Chorus", speed: 75)))
        #expect(try reopened.apply(.resume(ResumePoint(routine: "Salsa", part: 2, partTitle: "Verse 2", position: 5_000))))
        #expect(try !reopened.apply(.savedLoop(routine: "Salsa", part: 1, partTitle: "Gone", loop: loop)))
        reopened = try fixture.open()
        let parts = try reopened.routines()[0].parts
        try #require(parts.count == 3)
        #expect(parts[2].savedLoop == loop && parts[2].stickLoop == nil && parts[0].speed == 75)
        #expect(try reopened.resume() == ResumePoint(routine: "Salsa", part: 2, partTitle: "Verse 2", position: 5_000))
        // Another save of the parts keeps the resume point in its part.
        made = parts
        made[1].title = "Bridge"
        #expect(try reopened.apply(.parts(routine: "Salsa", parts: made)))
        #expect(try reopened.resume() == ResumePoint(routine: "Salsa", part: 2, partTitle: "Verse 2", position: 5_000))

        // A restore forgets the box's parts: the stick's play again.
        #expect(try reopened.restoreStickValues(titled: "Salsa"))
        #expect(try reopened.routines()[0] == stick)
    }

    @Test func aNewRoutineMadeOnTheBoxHasOnePartPerWholeSong() throws {
        let library = try imported()
        let song = try library.routines()[0].parts[0].audio
        let frames = try #require(try library.mediaFrames(song.id))
        #expect(try library.apply(.newRoutine(title: "New routine", songs: [Song(audio: song, title: "Salsa")])))
        #expect(try library.apply(.newRoutine(title: "New routine", songs: [Song(audio: song, title: "Salsa")])))
        let routines = try library.routines()
        try #require(routines.map(\.title) == ["New routine", "New routine (2)", "Salsa"])
        #expect(routines[0].parts == [Part(title: "Salsa", audio: song, length: frames)])
        #expect(try library.verify() == [])
        // A song the library does not hold makes nothing.
        #expect(try !library.apply(.newRoutine(title: "X", songs: [Song(audio: AudioReference("none"), title: "X")])))
    }

    /// A changed stick under parts made on the box: the box's are kept as "Salsa (box)", whose
    /// own rows (`part`, `move`, `partLoop`) hold them whole, named loops and moves included.
    @Test func aChangedStickKeepsTheBoxsPartsAsARoutineOfTheirOwn() throws {
        let stick = try fixture.stick()
        let library = try imported(at: stick)
        let loops = [NamedLoop(name: "Hit", loop: ABLoop(a: 0, b: 24_000))]
        var made = try library.routines()[0].parts
        made[0].loops = loops
        made[0].moves = [Move(type: MoveType("Lift"), name: "Lift", cue: 2_000)]
        #expect(try library.apply(.parts(routine: "Salsa", parts: made)))
        _ = try imported(at: stick, cut: "0:01.5")
        let routines = try library.routines()
        try #require(routines.map(\.title) == ["Salsa", "Salsa (box)"])
        #expect(routines[0].parts[0].length == 72_000 && routines[0].parts[0].loops.isEmpty)
        #expect(routines[1].parts == made)
        // Its own rows, under the box's parts, are the same parts.
        #expect(try library.restoreStickValues(titled: "Salsa (box)"))
        #expect(try library.routines()[1].parts == made)
        let queue = try DatabaseQueue(path: library.databasePath)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM partLoop") } == 1)
        #expect(try library.verify() == [])
    }
}
