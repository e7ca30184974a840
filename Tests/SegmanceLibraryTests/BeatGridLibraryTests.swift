import Foundation
import GRDB
import SegmanceCore
@testable import SegmanceLibrary
import SegmanceStick
import SegmanceTestSupport
import SndFile
import Testing

/// A part's beat grid through a real import into a real library: detected in click tracks,
/// none in noise and speech, from the manifest, the performer's "1" kept.
@Suite(.tags(.integration)) struct BeatGridLibraryTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }
    static let rate = 48_000

    @Test func clickTracksAreStoredWithTheirTempoAndGridAndNoiseAndSpeechWithNone() throws {
        let stick = try fixture.stick()
        try TestFiles.mkdir(stick + "/Clicks")
        try TestFiles.mkdir(stick + "/Talk")
        let tempi = [90.0, 120.0, 128.0]
        for (i, bpm) in tempi.enumerated() {
            try TestFiles.write(BeatSignals.clickTrack(bpm: bpm, seconds: 40), to: stick + "/Clicks/0\(i + 1) Click \(Int(bpm)).wav")
        }
        try TestFiles.write(BeatSignals.noise(seconds: 30), to: stick + "/Talk/01 Noise.wav")
        try BeatSignals.speech(to: stick + "/Talk/02 Speech.wav")
        let (summary, events) = try fixture.importStick(stick)
        #expect(summary == ImportSummary(added: 2), "\(events.problems)")
        let library = try fixture.open()
        let clicks = try #require(try library.routine(titled: "Clicks"))
        for (part, bpm) in zip(clicks.routine.parts, tempi) {
            let grid = try #require(part.grid, "\(part.title): no grid")
            #expect(grid.origin == .detected)
            let tempo = grid.bpm(sampleRate: Int64(Self.rate))
            #expect(abs(tempo - bpm) <= 0.5, "\(part.title): \(tempo) BPM")
            let worst = BeatSignals.clickTimes(bpm: bpm, seconds: 40).map { click -> Double in
                let frame = FramePosition((click * Double(Self.rate)).rounded())
                return abs(Double(grid.frame(ofBeat: grid.nearestBeat(to: frame)) - frame)) / Double(Self.rate)
            }.max() ?? 1
            #expect(worst <= 0.010, "\(part.title): a click \(worst * 1000) ms off the grid")
        }
        let talk = try #require(try library.routine(titled: "Talk"))
        #expect(talk.routine.parts.map(\.title) == ["Noise", "Speech"])
        #expect(talk.routine.parts.allSatisfy { $0.grid == nil })
        // The library is whole: the digest over the rows, grids included, matches.
        #expect(try library.verify(deep: false).isEmpty)
    }

    @Test func theManifestsTempoAndOneAreStoredAndThePerformersOneIsKeptAcrossAReimport() throws {
        let stick = try fixture.stick()
        try TestFiles.mkdir(stick + "/Salsa")
        try TestFiles.write(TestFiles.sine(frequency: 220, rate: Self.rate, frames: 10 * Self.rate),
                            to: stick + "/Salsa/song.wav")
        try TestFiles.writeText("""
            [[part]]
            title = "Shines"
            file = "song.wav"
            tempo = 120
            one = "0:00.25"
            """, to: stick + "/Salsa/routine.toml")
        _ = try fixture.importStick(stick)
        let library = try fixture.open()
        let manifest = BeatGrid(beatFrames: 24_000, one: 12_000, origin: .manifest)
        #expect(try library.routines().first?.parts.first?.grid == manifest)
        // The performer makes beat 3 the "1".
        let moved = manifest.withOne(atBeat: 3)
        #expect(try library.apply(.grid(routine: "Salsa", part: 0, partTitle: "Shines", grid: moved)))
        #expect(try library.routines().first?.parts.first?.grid == BeatGrid(beatFrames: 24_000, one: 84_000, origin: .performer))
        #expect(try library.routine(titled: "Salsa")?.parts.first?.importedGrid == manifest)
        #expect(try library.verify(deep: false).isEmpty)
        // A re-import with another title of the routine's part keeps the "1" on the part of the same title.
        try TestFiles.writeText("""
            subtitle = "again"
            [[part]]
            title = "Shines"
            file = "song.wav"
            tempo = 120
            one = "0:00.25"
            """, to: stick + "/Salsa/routine.toml")
        let (summary, _) = try fixture.importStick(stick, into: library)
        #expect(summary == ImportSummary(replaced: 1))
        #expect(try library.routines().first?.parts.first?.grid?.one == 84_000)
    }

    /// The demo stick's synthesized music is 120 BPM with its bars from each file's start
    /// (and each cut starts on a bar): every grid found must be that one; how many parts
    /// get one is what detection manages on that music (the README's figure).
    @Test func theDemoSticksMusicIsFoundAt120BPMOnItsBeats() throws {
        let stick = try fixture.stick()
        try DemoStick.write(to: stick)
        _ = try fixture.importStick(stick)
        var found = 0, parts = 0
        for stored in try fixture.open().storedRoutines() {
            for part in stored.routine.parts {
                parts += 1
                guard let grid = part.grid else {
                    print("demo stick: \(stored.routine.title) / \(part.title): no grid")
                    continue
                }
                found += 1
                let tempo = grid.bpm(sampleRate: Int64(Self.rate))
                // The "1" on a beat of the music: a multiple of half a second from the part's start.
                let offBeat = Double(grid.one % 24_000 < 12_000 ? grid.one % 24_000 : grid.one % 24_000 - 24_000) / 48
                print("demo stick: \(stored.routine.title) / \(part.title): \(tempo) BPM, one \(offBeat) ms off a beat")
                #expect(abs(tempo - 120) <= 0.5)
                #expect(abs(offBeat) <= 10)
            }
        }
        print("demo stick: \(found) of \(parts) parts with a grid")
        #expect(found >= 4)
    }

    @Test func theBeatSettingsAreSavedAndRead() throws {
        let library = try fixture.open()
        let settings = Settings(countdown: 5, countdownBeats: 8, loopSnap: .eight, turnBy: .eights)
        try library.apply(.settings(settings))
        #expect(try library.settings() == settings)
    }

    @Test func aLibraryFromBeforeTheGridIsMigratedAndItsPartsHaveNone() throws {
        // The schema as the previous release left it (v1 only), with one routine.
        let path = fixture.directory
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: path + "/library.sqlite")
        try LibrarySchema.migrator.migrate(queue, upTo: "v1: routines, parts, moves, loops, settings, resume")
        let hash = String(repeating: "a", count: 64)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO meta (key, value) VALUES ('sampleRate', '48000');
                INSERT INTO media (hash, frames) VALUES (?, 48000);
                INSERT INTO routine (id, title, subtitle, digest, sourcePath) VALUES (1, 'Old', '', 'x', 'Old');
                INSERT INTO part (routineId, position, title, mediaHash, start, length, isCut) VALUES (1, 0, 'Tune', ?, 0, 48000, 0);
                """, arguments: [hash, hash])
        }
        try queue.close()
        let library = try fixture.open(recover: false)
        let part = try #require(try library.routines().first?.parts.first)
        #expect(part.title == "Tune" && part.grid == nil)
        let migrated = try DatabaseQueue(path: path + "/library.sqlite")
        #expect(try migrated.read { try LibrarySchema.migrator.appliedIdentifiers($0) }.contains("beatGrid"))
    }
}
