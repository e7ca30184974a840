import AudioDecoding
import Foundation
import SegmanceCore
import SegmanceStick
import SegmanceTestSupport
import TOML
import Testing

/// Thousands of randomly damaged manifests (bit flips, truncations, deletions, random bytes,
/// TOML punctuation inserted, stretches duplicated) through the parser and through the
/// stick's routine reading: each gives a value or an error with a place, never a crash.
/// The seed is printed; `SEGMANCE_FUZZ_SEED=N` replays a run. A case that ever fails
/// becomes a named test in `HostileManifestTests`.
@Suite(.tags(.integration)) struct ManifestFuzzTests {
    static let readmeExample = """
        title = "Juggling Act"
        subtitle = "Kihoku summer festival"
        countdown = 5

        [[part]]
        title = "Opening"
        file = "street-jam.wav"           # one file may be cut into several parts
        from = "0:00"
        to = "1:05.5"
        loop = { a = "0:20", b = "0:32" }
        moves = [
          { type = "Juggle", name = "5-ball cascade", note = "face the audience" },
          { type = "Dance", name = "Spin", at = "0:12.5" },   # cue shown on the LCD at 0:12.5
        ]
        """

    /// What else a person writes: other string forms, numbers as times, dotted keys.
    static let varied = #"""
        title = 'Tango \d literal'
        subtitle = """
          Two lines, \
          joined \u00E9\U0001F483"""
        countdown = 0x0A

        [[part]]
        title = '''raw
        text'''
        file = "street-jam.wav"
        from = 1_0
        to = 20.5e0
        loop.a = 2
        loop.b = 4.25
        moves = [ { type = "Dance", name = "Step", at = 00:00:03.5 }, ]
        [[part]]
        "file" = 'street-jam.wav'
        """#

    /// What a teacher writes (docs/stick.md) and the box exports: plain-string moves, seconds
    /// as numbers, named loops, a pickup "1", a mistyped key, a name in other capitals.
    static let teacher = #"""
        tittle = "Spring Show"
        title = "Spring Show"
        [[part]]
        title = "Intro"
        file = "STREET-JAM.wav"
        from = 0
        to = 30.5
        loops = [{ name = "Hit", a = "0:08", b = "0:16" }, { name = "Eight 2", a = 2.5, b = 4 }]
        moves = ["Roll down", "Spin", { name = "Lift", at = "0:12" }]
        tempo = 120.00000000000001
        one = "-0:00.000020834"
        speed = 80
        """#

    static let manifests = [DemoStick.streetJamManifest, readmeExample, varied, teacher]

    private static func seed(_ label: String) -> UInt64 {
        let seed = Mutations.seed(environment: ProcessInfo.processInfo.environment)
        print("\(label): seed \(seed) (replay with SEGMANCE_FUZZ_SEED=\(seed))")
        return seed
    }

    @Test func theBaseManifestsAreGood() throws {
        for text in Self.manifests { _ = try TOMLTable(parsing: text) }
    }

    @Test func damagedManifestsGiveAValueOrAnErrorWithAPlace() {
        var generator = SeededGenerator(seed: Self.seed("manifest fuzz, parser"))
        var parsed = 0, refused = 0
        for i in 0..<20_000 {
            let bytes = Mutations.mutate(Array(Self.manifests[i % Self.manifests.count].utf8), using: &generator)
            do {
                let table = try TOMLTable(parsing: bytes)
                _ = table.description
                parsed += 1
            } catch {
                let lines = bytes.count { $0 == 0x0A } + 1
                #expect(error.line >= 1 && error.line <= lines && error.column >= 1 && !error.reason.isEmpty,
                        "case \(i): \(error) for \(bytes)")
                refused += 1
            }
        }
        print("manifest fuzz, parser: \(parsed) parsed, \(refused) refused")
        #expect(parsed > 1000 && refused > 1000)
    }

    /// The routine reading around the parser (scan, manifest, parts against their audio),
    /// with the audio's length given by a stand-in decoder so that thousands of cases run.
    @Test func damagedManifestsLoadOrNameTheirProblem() throws {
        let temp = TempDirs()
        let root = try temp.make("fuzz")
        try TestFiles.mkdir(root + "/Jam")
        try TestFiles.writeText("stand-in", to: root + "/Jam/street-jam.wav")
        var generator = SeededGenerator(seed: Self.seed("manifest fuzz, routine reading"))
        var loaded = 0, refused = 0
        for i in 0..<3_000 {
            let bytes = Mutations.mutate(Array(Self.manifests[i % Self.manifests.count].utf8), using: &generator)
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/Jam/routine.toml"))
            let scan = StickScanner().scan(root)
            let source = try #require(scan.routines.first)
            let built = try RoutineBuilder(root: try #require(scan.root), decoder: FakeStickDecoder()).build(source)
            if let routine = built.routine {
                #expect(!routine.parts.isEmpty)
                loaded += 1
            } else {
                #expect(built.problems.contains { $0.path == "Jam" && $0.reason.contains("skipped") },
                        "case \(i): \(built.problems) for \(bytes)")
                refused += 1
            }
        }
        print("manifest fuzz, routine reading: \(loaded) loaded, \(refused) refused")
        #expect(loaded > 100 && refused > 100)
    }

    /// The same through `StickChecker` with real audio decoded, fewer cases.
    @Test func damagedManifestsThroughTheStickChecker() throws {
        let temp = TempDirs()
        let root = try temp.make("fuzz")
        try TestFiles.mkdir(root + "/Jam")
        try TestFiles.tone(root + "/Jam/street-jam.wav", seconds: 0.5, rate: 8000)
        var generator = SeededGenerator(seed: Self.seed("manifest fuzz, stick loader"))
        for i in 0..<300 {
            let bytes = Mutations.mutate(Array(Self.manifests[i % Self.manifests.count].utf8), using: &generator)
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/Jam/routine.toml"))
            let content = StickChecker().check(root)
            #expect(content.routines.count == 1 || content.problems.contains { $0.path == "Jam" },
                    "case \(i): \(content.problems) for \(bytes)")
        }
    }
}

/// Every file is 72 s long at the output rate (the demo manifest's song).
final class FakeStickDecoder: StickAudioDecoding {
    let outputRate = 48_000
    func decode(_ file: StickAudioFile) -> Result<DecodedAudio, AudioDecodeError> {
        .success(DecodedAudio(reference: AudioReference(file.shown), frames: 72 * 48_000))
    }
}
