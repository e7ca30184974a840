import Foundation
import SegmanceCore
@testable import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// Class sets in a real library (issue 29): a stick's class.toml's replace the last stick's,
/// a set made on the box is kept beside them, all read back in order at boot.
@Suite(.tags(.integration)) struct ClassSetLibraryTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }

    @Test func aSticksSetsReplaceTheLastSticksAndASetMadeOnTheBoxStays() throws {
        let library = try fixture.open()
        let monday = ClassSet(name: "Monday", tracks: [ClassTrack(routine: "Warm-up"),
                                                       ClassTrack(routine: "Salsa", part: 2)], gap: 3, announce: false)
        #expect(try library.replaceStickClassSets([monday]) == 1)
        let made = ClassSet(name: "Class 2", tracks: [ClassTrack(routine: "Salsa")])
        #expect(try library.apply(.classSet(made)))
        #expect(try library.classSets() == [monday, made])
        #expect(try library.snapshot().classSets == [monday, made])
        let friday = ClassSet(name: "Friday", tracks: [ClassTrack(routine: "Tango")], gap: 10)
        #expect(try library.replaceStickClassSets([friday]) == 2)
        #expect(try fixture.open().classSets() == [friday, made])
    }
}
