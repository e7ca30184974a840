import Foundation
import SegmanceCore
import SegmanceStick
import SegmanceTestSupport
import Testing

/// `tempo` and `one` in routine.toml: a part's beat grid, or a problem naming the line.
@Suite(.tags(.integration)) struct ManifestBeatTests {
    let temp = TempDirs()
    let loader = StickChecker()

    private func load(partKeys: String) throws -> StickContent {
        let root = try temp.make("stick")
        try TestFiles.mkdir(root + "/Juggling")
        try TestFiles.tone(root + "/Juggling/song.wav", seconds: 10)
        try TestFiles.writeText("[[part]]\nfile = \"song.wav\"\n" + partKeys, to: root + "/Juggling/routine.toml")
        return loader.check(root)
    }

    @Test(arguments: [
        ("tempo = 120\none = \"0:00.25\"\n", BeatGrid(beatFrames: 24_000, one: 12_000, origin: .manifest)),
        ("tempo = 128.0\n", BeatGrid(beatFrames: 22_500, one: 0, origin: .manifest)),
        ("tempo = 90\none = 1.5\n", BeatGrid(beatFrames: 32_000, one: 72_000, origin: .manifest)),
    ] as [(String, BeatGrid)])
    func aPartsTempoAndOneAreItsGrid(keys: String, grid: BeatGrid) throws {
        let content = try load(partKeys: keys)
        #expect(content.problems.isEmpty, "\(content.problems)")
        #expect(content.routines.first?.parts.first?.grid == grid)
    }

    @Test(arguments: [
        ("tempo = 0\n", "line 3: part 1: 'tempo' = 0 is not a tempo (write beats a minute, 20 to 400)"),
        ("tempo = 1000\n", "line 3: part 1: 'tempo' = 1000 is not a tempo"),
        ("tempo = \"fast\"\n", "line 3: part 1: 'tempo' = a string is not a tempo"),
        ("one = \"0:01\"\n", "line 3: part 1: 'one' needs a 'tempo'"),
        ("tempo = 120\none = \"soon\"\n", "line 4: part 1: 'one' = \"soon\" is not a time"),
    ])
    func aBadTempoOrOneIsAProblemOnItsLine(keys: String, expected: String) throws {
        let content = try load(partKeys: keys)
        // The part is left out; with no other, the song is a part without the manifest's grid.
        #expect(content.routines.first?.parts.map(\.grid) == [nil])
        #expect(content.problems.contains { $0.path == "Juggling/routine.toml" && $0.reason.hasPrefix(expected) },
                "\(content.problems.map(\.description))")
    }
}
