import Foundation
import SegmanceAppliance
import SegmanceCore
import SegmanceLibrary
import SegmanceStick
import SegmanceTestSupport
@testable import SegmanceTwin
import StickTransfer
import Testing

/// What a stick offers is what its import does, and nothing on it is lost or left out
/// unnamed (issue 24): sticks inserted through the twin's `stick` action, as a mount would,
/// imported into a real library from real audio files.
@Suite(.tags(.integration)) struct StickOfferTwinTests {
    let temp = TempDirs()

    /// A song of `seconds` at `frequency` (distinct frequencies: distinct audio).
    private func song(_ path: String, frequency: Double, seconds: Double = 0.5) throws {
        try TestFiles.mkdir((path as NSString).deletingLastPathComponent)
        try TestFiles.write(TestFiles.sine(frequency: frequency, rate: 48_000, frames: Int(seconds * 48_000)), to: path)
    }

    private func run(_ text: String, library: Library, autoImport: Bool = true) throws -> TwinRun.Output {
        var configuration = Appliance.Configuration()
        configuration.settings.autoImport = autoImport
        var twin = TwinRun(configuration: configuration)
        twin.library = library
        return try twin.run(try Scenario(parsing: text), stick: nil) { _, _ in }
    }

    /// Every song the library holds, by content (the media hashes of all parts).
    private func songs(_ library: Library) throws -> Set<String> {
        Set(try library.routines().flatMap { $0.parts.map(\.audio.id) })
    }

    /// Bug 3: two classes' sticks with loose songs at the root, mounted at the same node one
    /// after the other, end as two routines, and the library holds every song of both.
    @Test func twoSticksOfLooseSongsAtTheSameNodeEndAsTwoRoutines() throws {
        let node = try temp.make("media") + "/sda1"
        let library = try Library(directory: try temp.make("library"))
        try song(node + "/01 Warmup.wav", frequency: 300)
        try song(node + "/02 Combo.wav", frequency: 400)
        let first = try run("1.0 stick \(node)\n3.0 end", library: library)
        #expect(first.log.contains("import: USB stick: added"), "\(first.log)")
        let firstSongs = try songs(library)

        try FileManager.default.removeItem(atPath: node)
        try song(node + "/01 Shines.wav", frequency: 500)
        try song(node + "/02 Turns.wav", frequency: 600)
        try song(node + "/03 Outro.wav", frequency: 700)
        let second = try run("1.0 stick \(node)\n8.0 end", library: library)
        #expect(second.log.contains("import: USB stick (2): added beside (a different routine has its title)"),
                "\(second.log)")
        #expect(second.frames.lines.contains { $0.contains("|Import done     |1 new, 1 renamed|") })
        let routines = try library.routines()
        #expect(routines.map(\.title) == ["USB stick", "USB stick (2)"])
        #expect(routines.map(\.parts.count) == [2, 3])
        #expect(try songs(library).isSuperset(of: firstSongs) && songs(library).count == 5)

        // The second stick again: the same routine, changed nothing.
        let again = try run("1.0 stick \(node)\n3.0 end", library: library)
        #expect(again.log.contains("import: USB stick (2): unchanged"), "\(again.log)")
        #expect(try library.routines().count == 2)
    }

    /// A labelled stick names its loose songs' routine; the device's node never does, and a
    /// song added on the same stick updates the routine rather than making another.
    @Test func looseSongsAreNamedAfterTheLabelAndUpdatedByTheSameStick() throws {
        let node = try temp.make("media") + "/sdb1"
        let library = try Library(directory: try temp.make("library"))
        try song(node + "/01 Warmup.wav", frequency: 300)
        let first = try run("1.0 stick \(node) label Salsa class\n3.0 end", library: library)
        #expect(first.log.contains("import: Salsa class: added"), "\(first.log)")
        try song(node + "/02 Combo.wav", frequency: 400)
        let second = try run("1.0 stick \(node) label Salsa class\n3.0 end", library: library)
        #expect(second.log.contains("import: Salsa class: replaced"), "\(second.log)")
        #expect(try library.routines().map(\.title) == ["Salsa class"])
        #expect(try library.routines().first?.parts.count == 2)
    }

    /// Bug 4: a manifest naming one of three songs imports that part and names the two left out.
    @Test func songsTheManifestDoesNotListAreNamed() throws {
        let stick = try temp.make("stick")
        try song(stick + "/Salsa/01 Intro.wav", frequency: 300)
        try song(stick + "/Salsa/02 Verse.wav", frequency: 400)
        try song(stick + "/Salsa/03 Chorus.wav", frequency: 500)
        try TestFiles.writeText("[[part]]\nfile = \"01 Intro.wav\"\n", to: stick + "/Salsa/routine.toml")
        let library = try Library(directory: try temp.make("library"))
        let output = try run("1.0 stick \(stick)\n20.0 end", library: library)
        #expect(output.log.contains("import: Salsa: not in routine.toml: 02 Verse.wav, 03 Chorus.wav"), "\(output.log)")
        #expect(output.frames.lines.contains { $0.contains("|!Import done    |1 in, 2 not in  |") })
        #expect(try library.routines().first?.parts.count == 1)

        let check = StickChecker().check(stick)
        #expect(check.problems.map(\.description) == ["Salsa: not in routine.toml: 02 Verse.wav, 03 Chorus.wav"])
    }

    /// Bug 5: a stick whose every routine.toml has a typo imports what it offers: each
    /// routine's songs, with the typo named (it offered "2 routines", then "2 failed").
    @Test func aTypoInEveryManifestStillImportsWhatWasOffered() throws {
        let stick = try temp.make("stick")
        for (name, frequency) in [("Salsa", 300.0), ("Tango", 400.0)] {
            try song(stick + "/\(name)/song.wav", frequency: frequency)
            try TestFiles.writeText("[[part]]\nfiel = \"song.wav\"\n", to: stick + "/\(name)/routine.toml")
        }
        let library = try Library(directory: try temp.make("library"))
        let output = try run("1.0 stick \(stick)\n5.0 tap select\n30.0 end", library: library, autoImport: false)
        #expect(output.frames.lines.contains { $0.contains("|Stick found     |2 routines      |") },
                "\(output.frames.lines)")
        let typo = "import: Salsa/routine.toml: line 2: unknown key 'fiel' in part 1: did you mean 'file'? "
            + "(known: fade_out, file, from, lead_in, loop, loops, moves, one, ramp, short, speed, tempo, title, to)"
        #expect(output.log.contains(typo), "\(output.log)")
        #expect(output.frames.lines.contains { $0.contains("|Import done     |2 new           |") })
        #expect(try library.routines().map(\.title) == ["Salsa", "Tango"])
        #expect(StickChecker().check(stick).routines.count == 2)
    }

    /// Bug 5: routines the import will refuse (a routine.toml that cannot be read) are said,
    /// not offered: "0 ok, 2 bad" rather than "2 routines / Push to import".
    @Test func routinesTheImportWillRefuseAreNotOffered() throws {
        let stick = try temp.make("stick")
        for (name, frequency) in [("Salsa", 300.0), ("Tango", 400.0)] {
            try song(stick + "/\(name)/song.wav", frequency: frequency)
            try TestFiles.writeText("[[part]\nfile = \"song.wav\"\n", to: stick + "/\(name)/routine.toml")
        }
        let library = try Library(directory: try temp.make("library"))
        let output = try run("1.0 stick \(stick)\n5.0 tap select\n6.0 end", library: library, autoImport: false)
        #expect(output.frames.lines.contains { $0.contains("|!Stick found    |0 ok, 2 bad     |") },
                "\(output.frames.lines)")
        #expect(!output.frames.lines.contains { $0.contains("Push to import") })
        #expect(output.finalState.stick == nil)
        #expect(StickChecker().check(stick).routines.isEmpty)
        #expect(try library.routines().isEmpty)
    }

    /// The import counts what the offer counted: a routine it refuses is named, not numbered.
    @Test func theImportCountsWhatTheOfferCounted() throws {
        let stick = try temp.make("stick")
        try song(stick + "/Bad/song.wav", frequency: 300)
        try TestFiles.writeText("[[part]\nfile = \"song.wav\"\n", to: stick + "/Bad/routine.toml")
        try song(stick + "/Good/song.wav", frequency: 400)
        let library = try Library(directory: try temp.make("library"))
        var events: [ImportEvent] = []
        Importer(library: library).run(stick) { events.append($0) }
        #expect(events.first == .started(routines: 1))
        let counts = events.compactMap { if case .progress(let p) = $0 { p.count } else { nil } }
        #expect(!counts.isEmpty && counts.allSatisfy { $0 == 1 }, "\(counts)")
        #expect(try library.routines().map(\.title) == ["Good"])
    }

    /// Bug 5: one corrupt song of five imports four parts, and the summary says one was left out.
    @Test func aCorruptSongIsCountedInTheSummary() throws {
        let stick = try temp.make("stick")
        for i in 1...5 { try song(stick + "/Salsa/0\(i) Part.wav", frequency: 200 + Double(i) * 100) }
        try TestFiles.truncate(stick + "/Salsa/03 Part.wav", to: 20)
        let library = try Library(directory: try temp.make("library"))
        let output = try run("1.0 stick \(stick)\n20.0 end", library: library)
        #expect(output.frames.lines.contains { $0.contains("|Stick found     |1 routine       |") })
        #expect(output.frames.lines.contains { $0.contains("|!Import done    |1 in, 1 not in  |") },
                "\(output.frames.lines)")
        #expect(try library.routines().first?.parts.count == 4)
    }

    /// Bug 6: a stick with no music says so (and what was looked for) instead of offering.
    @Test func aStickWithNoMusicSaysSo() throws {
        let stick = try temp.make("stick")
        try TestFiles.writeText("notes", to: stick + "/README.txt")
        try TestFiles.mkdir(stick + "/Photos")
        let library = try Library(directory: try temp.make("library"))
        let output = try run("1.0 stick \(stick)\n3.0 end", library: library, autoImport: false)
        #expect(output.frames.lines.contains { $0.contains("|!No music on    |this stick      |") }, "\(output.frames.lines)")
        #expect(!output.frames.lines.contains { $0.contains("Stick found") })
        #expect(output.log.contains { $0.hasPrefix("stick \(stick): no music: audio files (") })
        #expect(output.finalState.stick == nil)
    }
}
