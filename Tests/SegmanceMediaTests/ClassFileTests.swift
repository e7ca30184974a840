import SegmanceCore
@testable import SegmanceStick
import Testing

/// A stick's class.toml (issue 29): the sets a teacher wrote, or problems naming the file, the
/// line, the key and the reason; a set with a problem is left out, the others kept.
@Suite(.tags(.unit)) struct ClassFileTests {
    static func parse(_ text: String) -> ClassFile.Reading { ClassFile.parse(Array(text.utf8)) }

    @Test func setsAreReadWithTheirTracksGapAndAnnouncement() {
        let reading = Self.parse("""
            [[class]]
            name = "Monday"
            gap = "3 s"
            announce = false
            tracks = ["Warm-up", { routine = "Street Jam", part = 2 }, "Cool-down"]

            [[class]]
            name = "Friday"
            gap = 8
            tracks = ["Street Jam"]
            """)
        #expect(reading.problems.isEmpty, "\(reading.problems)")
        #expect(reading.sets == [
            ClassSet(name: "Monday", tracks: [ClassTrack(routine: "Warm-up"),
                                              ClassTrack(routine: "Street Jam", part: 1),
                                              ClassTrack(routine: "Cool-down")], gap: 3, announce: false),
            ClassSet(name: "Friday", tracks: [ClassTrack(routine: "Street Jam")], gap: 8, announce: true),
        ])
    }

    @Test(arguments: [
        ("gap = \"soon\"",
         "class.toml: line 3: class 1: 'gap' = \"soon\" is not a gap (write whole seconds like \"3 s\""),
        ("gap = 500", "class.toml: line 3: class 1: 'gap' = 500 is not a gap"),
        ("announce = \"yes\"",
         "class.toml: line 3: class 1: 'announce' must be true or false, found string"),
        ("tracks = [{ routine = \"A\", part = 0 }]",
         "class.toml: line 3: track 1 of class 1: 'part' = 0 is not a part"),
        ("tracks = [3]", "class.toml: line 3: track 1 of class 1 must be a routine's title"),
        ("gapp = 3", "class.toml: line 3: unknown key 'gapp' in class 1: did you mean 'gap'?"),
    ])
    func aBadValueIsAProblemAndItsSetIsLeftOut(line: String, expected: String) {
        let tracks = line.hasPrefix("tracks") ? "" : "tracks = [\"A\"]\n"
        let reading = Self.parse("[[class]]\nname = \"Monday\"\n\(line)\n" + tracks
                                 + "[[class]]\nname = \"Friday\"\ntracks = [\"B\"]\n")
        #expect(reading.sets.map(\.name) == ["Friday"])
        #expect(reading.problems.contains { "\($0)".hasPrefix(expected) }, "\(reading.problems.map(\.description))")
    }

    @Test func aSetNeedsANameAndTracks() {
        let reading = Self.parse("[[class]]\ngap = 3\n")
        #expect(reading.sets.isEmpty)
        #expect(reading.problems.map(\.reason) == [
            "line 1: class 1 needs a 'name', a text like \"Monday beginners\"",
            "line 1: class 1 needs 'tracks', a list like [\"Warm-up\", \"Salsa\"]",
        ])
    }
}
