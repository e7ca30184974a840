import SegmanceCore
@testable import SegmanceStick
import SegmanceTestSupport
import Testing

/// What the box writes to a stick reads back to the same frames, and the forms a teacher
/// writes read as meant (issue 26, items 5 and 6).
@Suite(.tags(.unit)) struct ManifestWriterTests {
    @Test(arguments: [44_100, 48_000])
    func everyFrameWrittenAsATimeReadsBackExactly(rate: Int) {
        var generator = SeededGenerator(seed: 26)
        let frames = (0..<5_000).map { _ in Int64.random(in: 0...(Int64(rate) * 5_000), using: &generator) }
            + [0, 1, Int64(rate) - 1, Int64(rate), Int64(rate) * 60 - 1, Int64(rate) * 3_600]
        for frame in frames {
            let text = ManifestWriter.time(frame, rate: rate)
            #expect(ManifestTime.frames(text, rate: rate) == frame, "\(frame) written as \(text)")
        }
        #expect(ManifestWriter.time(3_144_000, rate: 48_000) == "1:05.5")
    }

    @Test func aWrittenManifestReadsBackToTheSameParts() throws {
        let grid = BeatGrid(beatFrames: 22_677.165354330708, one: -1_234, origin: .performer)
        let part = Part(title: "Gro\"ove\\ ✨", audio: AudioReference("h1"), range: 48_000..<1_048_000, length: 1_000_000,
                        moves: [Move(type: MoveType(""), name: "Spin"),
                                Move(type: MoveType("Dance"), name: "Lift", note: "slow\nly", cue: 12_345)],
                        savedLoop: ABLoop(a: 1, b: 96_001), grid: grid, speed: 80, short: "GROOVE",
                        loops: [NamedLoop(name: "Hit", loop: ABLoop(a: 7, b: 700_000))])
        let routine = Routine(title: "Street Jam", subtitle: "Demo", countdown: 5, parts: [part], short: "SJ")
        let text = ManifestWriter.text(routine, files: [AudioReference("h1"): "Groove.wav"], rate: 48_000)
        let reading = Manifest.parse(text, rate: 48_000)
        #expect(reading.issues.isEmpty, "\(reading.issues)\n\(text)")
        let manifest = try #require(reading.manifest)
        #expect(manifest.title == "Street Jam" && manifest.subtitle == "Demo" && manifest.countdown == 5
                && manifest.short == "SJ")
        let spec = try #require(manifest.parts.first)
        #expect(spec.title == part.title && spec.file == "Groove.wav" && spec.short == "GROOVE")
        #expect(spec.from == 48_000 && spec.to == 1_048_000 && spec.loop == part.savedLoop && spec.speed == 80)
        #expect(spec.moves == part.moves && spec.loops == part.loops)
        #expect(spec.grid?.one == -1_234)
        #expect(abs((spec.grid?.beatFrames ?? 0) - grid.beatFrames) < 1e-6)
    }

    @Test func aTeachersFormsReadAsMeant() throws {
        let reading = Manifest.parse("""
            tittle = "x"
            [[part]]
            file = "a.wav"
            to = 30.5
            moves = ["Roll down", "Spin"]
            loops = [{ name = "Hit", a = "0:08", b = 16, nmae = "y" }]
            """, rate: 48_000)
        #expect(reading.issues.map(\.message) == [
            "unknown key 'tittle': did you mean 'title'? (known: countdown, part, short, subtitle, title)",
            "unknown key 'nmae' in loop 1 of part 1: did you mean 'name'? (known: a, b, name)",
        ])
        let spec = try #require(reading.manifest?.parts.first)
        #expect(spec.to == 1_464_000)
        #expect(spec.moves.map(\.name) == ["Roll down", "Spin"])
        #expect(spec.loops == [NamedLoop(name: "Hit", loop: ABLoop(a: 384_000, b: 768_000))])
    }

    @Test(arguments: [("tittle", "title"), ("fiel", "file"), ("tmepo", "tempo"), ("moves", nil), ("colour", nil),
                      ("x", nil)] as [(String, String?)])
    func theKeyMeantIsTheNearestKnownOne(typed: String, meant: String?) {
        let known = Manifest.partKeys.union(Manifest.topKeys)
        #expect(KeySuggestion.nearest(typed, in: known.subtracting([typed])) == meant)
    }
}
