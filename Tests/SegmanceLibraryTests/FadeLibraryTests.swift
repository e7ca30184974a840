import Foundation
import SegmanceCore
@testable import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// Fades through a real import into a real library (issue 29): a part's `fade_out` kept with
/// it (also in the parts made on the box), *Stop fade* kept with the settings.
@Suite(.tags(.integration)) struct FadeLibraryTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }
    static let rate = 48_000

    @Test func aPartsFadeIsStoredAndKeptInThePartsMadeOnTheBox() throws {
        let stick = try fixture.stick()
        try TestFiles.mkdir(stick + "/Salsa")
        try TestFiles.write(TestFiles.sine(frequency: 220, rate: Self.rate, frames: 10 * Self.rate),
                            to: stick + "/Salsa/song.wav")
        try TestFiles.writeText("""
            [[part]]
            title = "Shines"
            file = "song.wav"
            fade_out = "2.5 s"
            """, to: stick + "/Salsa/routine.toml")
        _ = try fixture.importStick(stick)
        let library = try fixture.open()
        let part = try #require(try library.routines().first?.parts.first)
        #expect(part.fadeOut == 120_000)
        #expect(try library.verify(deep: false).isEmpty)
        // Split on the box: the fade stays at the end, in the second piece.
        let (left, right) = EditRules.pieces(of: part, at: 4 * 48_000, secondTitle: "Shines 2")
        #expect(try library.apply(.parts(routine: "Salsa", parts: [left, right])))
        #expect(try library.routines().first?.parts.map(\.fadeOut) == [0, 120_000])
    }

    @Test func stopFadeIsKeptWithTheSettings() throws {
        let library = try fixture.open()
        #expect(try library.apply(.settings(Settings(stopFade: 2000))))
        #expect(try library.snapshot().settings?.stopFade == 2000)
    }
}
