import Foundation
import SegmanceCore
@testable import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// A tapped tempo in a real library (issue 29): kept with a part that had no beat as a detected
/// grid is, replaced by a later session, kept across a re-import, and in the parts made on the box.
@Suite(.tags(.integration)) struct TapTempoLibraryTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }
    static let rate = 48_000

    private func importSalsa() throws -> (String, Library) {
        let stick = try fixture.stick()
        try TestFiles.mkdir(stick + "/Salsa")
        try TestFiles.write(TestFiles.sine(frequency: 220, rate: Self.rate, frames: 10 * Self.rate),
                            to: stick + "/Salsa/song.wav")
        try TestFiles.writeText("[[part]]\ntitle = \"Shines\"\nfile = \"song.wav\"\n",
                                to: stick + "/Salsa/routine.toml")
        _ = try fixture.importStick(stick)
        return (stick, try fixture.open())
    }

    @Test func aTappedGridIsKeptReplacedAndKeptAcrossAReimport() throws {
        let (stick, library) = try importSalsa()
        #expect(try library.routines().first?.parts.first?.grid == nil)
        let tapped = BeatGrid(beatFrames: 24_000, one: 30_000, origin: .tapped)
        #expect(try library.apply(.grid(routine: "Salsa", part: 0, partTitle: "Shines", grid: tapped)))
        #expect(try library.routines().first?.parts.first?.grid == tapped)
        #expect(try library.routine(titled: "Salsa")?.changedOnBox == true)
        #expect(try library.verify(deep: false).isEmpty)
        // A later session replaces it; "One here" on it keeps the tapped tempo.
        let again = BeatGrid(beatFrames: 22_500, one: 40_000, origin: .tapped)
        #expect(try library.apply(.grid(routine: "Salsa", part: 0, partTitle: "Shines", grid: again)))
        let moved = again.withOne(atBeat: 2)
        #expect(try library.apply(.grid(routine: "Salsa", part: 0, partTitle: "Shines", grid: moved)))
        #expect(try library.routines().first?.parts.first?.grid == moved)
        // A re-import of a changed routine keeps the tapped grid with the part of the same title.
        try TestFiles.writeText("subtitle = \"again\"\n[[part]]\ntitle = \"Shines\"\nfile = \"song.wav\"\n",
                                to: stick + "/Salsa/routine.toml")
        let (summary, _) = try fixture.importStick(stick, into: library)
        #expect(summary == ImportSummary(replaced: 1))
        #expect(try library.routines().first?.parts.first?.grid == moved)
    }

    @Test func aTappedGridOnAPartMadeOnTheBoxIsKeptWithItsTempo() throws {
        let (_, library) = try importSalsa()
        let part = try #require(try library.routines().first?.parts.first)
        let (left, right) = EditRules.pieces(of: part, at: 4 * 48_000, secondTitle: "Shines 2")
        #expect(try library.apply(.parts(routine: "Salsa", parts: [left, right])))
        let tapped = BeatGrid(beatFrames: 23_000, one: 5_000, origin: .tapped)
        #expect(try library.apply(.grid(routine: "Salsa", part: 1, partTitle: "Shines 2", grid: tapped)))
        let grid = try #require(try library.routines().first?.parts[1].grid)
        #expect(grid.beatFrames == 23_000 && grid.one == 5_000 && grid.isSetOnTheBox)
    }
}
