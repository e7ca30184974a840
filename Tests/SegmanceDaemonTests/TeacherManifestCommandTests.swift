import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import Testing

/// A manifest a teacher can write and a routine that leaves the box (issue 26, items 5 and 6),
/// through the real binary: `stick check`, `stick new`, `export`, `import`, `library show --json`.
@Suite(.tags(.integration)) struct TeacherManifestCommandTests {
    let temp = TempDirs()

    private func segmance(_ arguments: [String]) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RunCommandTests.binary)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func song(_ path: String, frequency: Double, seconds: Double = 2) throws {
        try TestFiles.mkdir((path as NSString).deletingLastPathComponent)
        try TestFiles.write(TestFiles.sine(frequency: frequency, rate: 48_000, frames: Int(seconds * 48_000)), to: path)
    }

    @Test func plainStringMovesAndSecondsAsNumbersPass() throws {
        let stick = try temp.make("stick")
        try song(stick + "/Salsa/song.wav", frequency: 300, seconds: 40)
        try TestFiles.writeText("""
            title = "Salsa"
            [[part]]
            file = "song.wav"
            from = 0
            to = 30.5
            loop = { a = "0:02", b = 4.5 }
            moves = ["Roll down", "Spin"]
            """, to: stick + "/Salsa/routine.toml")
        let result = try segmance(["stick", "check", stick])
        #expect(result.status == 0, "\(result.out)")
        #expect(result.out.contains("1 routine to import, 0 problems"), "\(result.out)")
        #expect(result.out.contains("cut 0:00–0:30.5"), "\(result.out)")
        #expect(result.out.contains("Roll down") && result.out.contains("Spin"), "\(result.out)")
    }

    @Test func aMistypedKeyIsAnsweredWithTheKeyMeant() throws {
        let stick = try temp.make("stick")
        try song(stick + "/Salsa/song.wav", frequency: 300)
        try TestFiles.writeText("tittle = \"Salsa\"\n[[part]]\nfile = \"song.wav\"\nmoves = [{ nmae = \"Spin\" }]\n",
                                to: stick + "/Salsa/routine.toml")
        let result = try segmance(["stick", "check", stick])
        #expect(result.status == 1)
        #expect(result.out.contains("line 1: unknown key 'tittle': did you mean 'title'?"), "\(result.out)")
        #expect(result.out.contains("unknown key 'nmae' in move 1 of part 1: did you mean 'name'?"), "\(result.out)")
    }

    @Test func aFileNameMatchesWithoutRegardToCaseWithANote() throws {
        let stick = try temp.make("stick")
        try song(stick + "/Salsa/Track 1.wav", frequency: 300)
        try TestFiles.writeText("[[part]]\ntitle = \"Intro\"\nfile = \"TRACK 1.wav\"\n", to: stick + "/Salsa/routine.toml")
        let result = try segmance(["stick", "check", stick])
        #expect(result.status == 0, "\(result.out)")
        #expect(result.out.contains("0 problems"), "\(result.out)")
        #expect(result.out.contains("Notes:\n  Salsa/routine.toml: line 3: part 1: \"TRACK 1.wav\" read as \"Track 1.wav\""),
                "\(result.out)")
        // The import says it too, and imports the part.
        let library = try temp.make("library")
        let imported = try segmance(["import", stick, "--library", library])
        #expect(imported.status == 0, "\(imported.out)")
        #expect(imported.out.contains("note: Salsa/routine.toml: line 3: part 1: \"TRACK 1.wav\" read as"), "\(imported.out)")
    }

    @Test func twoFilesDifferingInCapitalsOnlyAreNotGuessed() throws {
        let stick = try temp.make("stick")
        try song(stick + "/Salsa/Track 1.wav", frequency: 300)
        try song(stick + "/Salsa/track 1.WAV", frequency: 400)
        try TestFiles.writeText("[[part]]\nfile = \"TRACK 1.wav\"\n", to: stick + "/Salsa/routine.toml")
        let result = try segmance(["stick", "check", stick])
        #expect(result.status == 1)
        #expect(result.out.contains("part 1: file \"TRACK 1.wav\" not found"), "\(result.out)")
    }

    @Test func stickNewWritesAStarterThatPassesAndIsNeverOverwritten() throws {
        let stick = try temp.make("stick")
        try song(stick + "/Spring Show/02 Verse.wav", frequency: 400)
        try song(stick + "/Spring Show/01 Intro.wav", frequency: 300)
        try TestFiles.writeText("notes", to: stick + "/Spring Show/notes.txt")
        let made = try segmance(["stick", "new", stick + "/Spring Show"])
        #expect(made.status == 0, "\(made.out)")
        let text = try String(contentsOfFile: stick + "/Spring Show/routine.toml", encoding: .utf8)
        for key in ["title", "subtitle", "short", "countdown", "file", "from", "to", "loop", "loops", "moves", "tempo",
                    "one", "speed"] {
            #expect(text.contains("\n\(key) =") || text.contains("# \(key) ="), "\(key) missing in \(text)")
        }
        #expect(text.range(of: "file = \"01 Intro.wav\"")!.lowerBound < text.range(of: "file = \"02 Verse.wav\"")!.lowerBound)
        let check = try segmance(["stick", "check", stick])
        #expect(check.status == 0, "\(check.out)")
        #expect(check.out.contains("1 routine to import, 0 problems"), "\(check.out)")
        #expect(check.out.contains("Spring Show  (2 parts"), "\(check.out)")
        let again = try segmance(["stick", "new", stick + "/Spring Show"])
        #expect(again.status == 1)
        #expect(again.out.contains("exists"), "\(again.out)")
        #expect(try String(contentsOfFile: stick + "/Spring Show/routine.toml", encoding: .utf8) == text)
    }

    /// The demo routine with a loop, a speed and a "1" set on the box, exported, imported into
    /// an empty library: the same `library show --json` but for where it came from (its
    /// folder) and where its beats came from (now the manifest).
    @Test func anExportedRoutineImportsBackEqual() throws {
        let (first, exported) = try demoExported()
        let second = try temp.make("second")
        let imported = try segmance(["import", exported, "--library", second])
        #expect(imported.status == 0, "\(imported.out)")
        let before = try show(library: first), after = try show(library: second)
        #expect(before.titles == ["Intro", "Groove", "Finale"])
        #expect(before.json == after.json)
        let a = try #require(try Library(directory: first).routine(titled: "Street Jam")).routine.parts
        let b = try #require(try Library(directory: second).routine(titled: "Street Jam")).routine.parts
        for (x, y) in zip(a, b) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: Library(directory: first).store.path(of: x.audio.id)))
                    == Data(contentsOf: URL(fileURLWithPath: Library(directory: second).store.path(of: y.audio.id))))
        }
        #expect(before.raw.contains("\"speed\" : 80") && before.raw.contains("\"a\" : 0.5"), "\(before.raw)")
    }

    @Test func anExportedManifestEditedByAPersonImportsWithTheEdit() throws {
        let (_, exported) = try demoExported()
        let manifest = exported + "/Segmance/Street Jam/routine.toml"
        var text = try String(contentsOfFile: manifest, encoding: .utf8)
        #expect(text.contains("title = \"Groove\""), "\(text)")
        text = text.replacingOccurrences(of: "title = \"Groove\"", with: "title = \"Main groove\"")
            .replacingOccurrences(of: "speed = 80", with: "speed = 90")
        try TestFiles.writeText(text, to: manifest)
        let library = try temp.make("edited")
        #expect(try segmance(["import", exported, "--library", library]).status == 0)
        let after = try show(library: library)
        #expect(after.titles == ["Intro", "Main groove", "Finale"])
        #expect(after.raw.contains("\"speed\" : 90"), "\(after.raw)")
    }

    @Test func anExportNeverChangesWhatIsThere() throws {
        let (first, exported) = try demoExported()
        let manifest = exported + "/Segmance/Street Jam/routine.toml"
        let before = try Data(contentsOf: URL(fileURLWithPath: manifest))
        let again = try segmance(["export", "Street Jam", exported, "--library", first])
        #expect(again.status == 0, "\(again.out)")
        #expect(again.out.contains("Segmance/Street Jam 2"), "\(again.out)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: manifest)) == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: exported + "/Segmance").sorted()
        #expect(names == ["Street Jam", "Street Jam 2"])
    }

    // MARK: - Helpers

    /// The demo stick imported into a library, a loop, a speed and a "1" set as the box sets
    /// them, exported to a folder: (library, folder).
    private func demoExported() throws -> (String, String) {
        let stick = try temp.make("demo")
        #expect(try segmance(["demo-stick", stick]).status == 0)
        let first = try temp.make("first")
        #expect(try segmance(["import", stick, "--library", first]).status == 0)
        let library = try Library(directory: first)
        let groove = try #require(try library.routine(titled: "Street Jam")?.routine.parts[1])
        try library.apply(.savedLoop(routine: "Street Jam", part: 1, partTitle: groove.title,
                                     loop: ABLoop(a: 24_000, b: 96_000)))
        try library.apply(.partSpeed(routine: "Street Jam", part: 1, partTitle: groove.title, speed: 80))
        let grid = try #require(groove.grid)
        try library.apply(.grid(routine: "Street Jam", part: 1, partTitle: groove.title,
                                grid: BeatGrid(beatFrames: grid.beatFrames, one: grid.one + 1_234, origin: .performer)))
        let out = try temp.make("out")
        let exported = try segmance(["export", "Street Jam", out, "--library", first])
        #expect(exported.status == 0, "\(exported.out)")
        return (first, out)
    }

    /// `library show --json` of the demo routine, without where it came from (its folder, its
    /// audio's source file, its beats' origin, the stick's loop a loop set on the box hides):
    /// what an export carries.
    private func show(library: String) throws -> (json: String, titles: [String], raw: String) {
        let shown = try segmance(["library", "show", "Street Jam", "--json", "--library", library])
        #expect(shown.status == 0, "\(shown.out)")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(shown.out.utf8)) as? [String: Any])
        object["source"] = nil
        var parts = try #require(object["parts"] as? [[String: Any]])
        for i in parts.indices {
            if var beat = parts[i]["beat"] as? [String: Any] {
                beat["origin"] = nil
                parts[i]["beat"] = beat
            }
            parts[i]["stickLoop"] = nil
            // Named by its source file, which differs; `sameAudio` compares the samples.
            parts[i]["audio"] = nil
        }
        object["parts"] = parts
        let encoded = { (value: Any) throws -> String in
            String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
        }
        return (try encoded(object), parts.map { ($0["title"] as? String) ?? "" }, shown.out)
    }
}
