import Foundation
import SegmanceCore
@testable import SegmanceStick
import SegmanceTestSupport
import Testing

/// `fade_out` in routine.toml (issue 29): a part that ends with a fade, or a problem naming
/// the file, the key and the reason.
@Suite(.tags(.integration)) struct ManifestFadeTests {
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
        ("fade_out = \"2 s\"\n", 96_000), ("fade_out = \"1.5s\"\n", 72_000), ("fade_out = 3\n", 144_000),
        ("fade_out = 0.25\n", 12_000), ("fade_out = \"0 s\"\n", 0),
    ] as [(String, Int64)])
    func aPartsFadeOutIsItsFade(keys: String, frames: Int64) throws {
        let content = try load(partKeys: keys)
        #expect(content.problems.isEmpty, "\(content.problems)")
        #expect(content.routines.first?.parts.first?.fadeOut == frames)
    }

    @Test(arguments: [
        ("fade_out = \"soon\"\n", "line 3: part 1: 'fade_out' = \"soon\" is not a fade (write seconds like \"2 s\""),
        ("fade_out = \"-1 s\"\n", "line 3: part 1: 'fade_out' = \"-1 s\" is not a fade"),
        ("fade_out = 31\n", "line 3: part 1: 'fade_out' = 31 is not a fade"),
        ("fade_out = \"0:02\"\n", "line 3: part 1: 'fade_out' = \"0:02\" is not a fade"),
        ("fade_out = true\n", "line 3: part 1: 'fade_out' = a boolean is not a fade"),
        ("fade_out = \"12 s\"\n", "line 3: part 1: 'fade_out' 0:12 is longer than the part (0:10)"),
    ])
    func aBadFadeOutIsAProblemNamingTheFileTheKeyAndTheReason(keys: String, expected: String) throws {
        let content = try load(partKeys: keys)
        // The part is left out; with no other, the song is a part of its own with no fade.
        #expect(content.routines.first?.parts.map(\.fadeOut) == [0])
        #expect(content.problems.contains { $0.path == "Juggling/routine.toml" && $0.reason.hasPrefix(expected) },
                "\(content.problems.map(\.description))")
    }

    @Test func aFadeWrittenToAStickReadsBack() throws {
        let part = Part(title: "Groove", audio: AudioReference("h1"), length: 1_000_000, fadeOut: 120_000)
        let text = ManifestWriter.text(Routine(title: "Jam", parts: [part]), files: [AudioReference("h1"): "g.wav"],
                                       rate: 48_000)
        #expect(text.contains("fade_out = \"2.5 s\""), "\(text)")
        #expect(Manifest.parse(text, rate: 48_000).manifest?.parts.first?.fadeOut == 120_000)
        #expect(ManifestWriter.fadeText(96_000 * 15, rate: 48_000) == "30 s")
    }
}
