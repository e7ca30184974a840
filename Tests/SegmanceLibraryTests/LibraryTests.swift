import Foundation
import GRDB
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.tags(.integration)) struct LibraryTests {
    let fixture: LibraryFixture
    init() throws { fixture = try LibraryFixture() }

    /// The simulator's and the twin's library when none is named: a real one, gone with its folder.
    @Test func aTemporaryLibraryGoesWithItsFolder() throws {
        var library: Library? = try Library.temporary("segmance-test-library", sampleRate: 44_100)
        let directory = try #require(library?.directory)
        #expect(library?.sampleRate == 44_100)
        #expect(FileManager.default.fileExists(atPath: directory + "/library.sqlite"))
        #expect(FileManager.default.fileExists(atPath: directory + "/media"))
        library = nil
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func aNewLibraryIsAWALDatabaseWithTheSchemaAndAMediaFolder() throws {
        let library = try fixture.open()
        let queue = try DatabaseQueue(path: library.databasePath)
        let (mode, tables) = try queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"),
             try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'grdb%' ORDER BY name"))
        }
        #expect(mode == "wal")
        #expect(tables == ["boxLoop", "boxMove", "boxPart", "classSet", "classTrack", "media", "meta", "move",
                           "moveType", "part", "partLoop", "partSpeed", "resume", "routine", "savedLoop", "savedOne",
                           "setting"])
        var info = stat()
        #expect(stat(library.store.directory, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR)
        #expect(try library.snapshot() == LibrarySnapshot(routines: []))
    }

    @Test func aLibraryStoredAtAnotherRateIsRefusedWithTheReason() throws {
        _ = try fixture.open()
        #expect {
            _ = try Library(directory: fixture.directory, sampleRate: 44_100)
        } throws: { error in
            "\(error)" == "library \(fixture.directory): cannot open it at 44100 Hz: its audio is stored at 48000 Hz (import the routines again into a new library)"
        }
    }

    @Test func anUnwritableFolderIsAClearError() throws {
        #expect {
            _ = try Library(directory: "/proc/segmance-library")
        } throws: { error in
            "\(error)".hasPrefix("library /proc/segmance-library: cannot create the folder: mkdir(/proc/segmance-library): ")
        }
    }

    /// Settings, loops and the resume point written by one process are what the next one
    /// reads at boot: the library is reopened from its files in between.
    @Test func whatIsSavedIsWhatTheNextBootReads() throws {
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/Salsa", parts: ["Intro", "Shines"], seconds: 1)
        try Sticks.routine(stick + "/Tango", parts: ["Walk"], seconds: 1)
        try fixture.importStick(stick)
        do {
            let library = try fixture.open()
            let settings = Settings(countdown: 8, countdownBeforeRepeat: true, atPartEnd: .next, volume: 35, autoImport: true)
            try library.apply(.settings(settings))
            try library.apply(.savedLoop(routine: "Salsa", part: 1, partTitle: "Shines", loop: ABLoop(a: 100, b: 30_000)))
            try library.apply(.savedLoop(routine: "Tango", part: 0, partTitle: "Walk", loop: nil))
            try library.apply(.resume(ResumePoint(routine: "Salsa", part: 1, partTitle: "Shines", position: 12_345)))
            // A write for a routine the library does not have is skipped, not an error.
            #expect(try !library.apply(.resume(ResumePoint(routine: "Gone", part: 0, partTitle: "x", position: 1))))
        }
        let snapshot = try fixture.open().snapshot()
        #expect(snapshot.settings == Settings(countdown: 8, countdownBeforeRepeat: true, atPartEnd: .next, volume: 35, autoImport: true))
        #expect(snapshot.resume == ResumePoint(routine: "Salsa", part: 1, partTitle: "Shines", position: 12_345))
        #expect(snapshot.routines.map(\.title) == ["Salsa", "Tango"])
        #expect(snapshot.routines[0].parts[1].savedLoop == ABLoop(a: 100, b: 30_000))
        let tango = try #require(try fixture.open().routine(titled: "Tango"))
        #expect(tango.parts[0].deviceLoop == .some(nil))
    }

    @Test func settingsEditedByHandToNonsenseKeepTheirDefaults() throws {
        let library = try fixture.open()
        let queue = try DatabaseQueue(path: library.databasePath)
        try queue.write { db in
            for (k, v) in [("countdown", "7"), ("volume", "250"), ("atPartEnd", "explode"), ("autoImport", "1")] {
                try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?)", arguments: [k, v])
            }
        }
        #expect(try library.settings() == Settings(autoImport: true))
    }

    @Test func routinesComeInNaturalTitleOrder() throws {
        let stick = try fixture.stick()
        for name in ["Routine 10", "routine 9", "Bachata", "Routine 2"] {
            try Sticks.routine(stick + "/" + name, parts: ["x"], seconds: 0.1)
        }
        try fixture.importStick(stick)
        #expect(try fixture.open().routines().map(\.title) == ["Bachata", "Routine 2", "routine 9", "Routine 10"])
    }
}
