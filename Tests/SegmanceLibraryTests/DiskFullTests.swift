import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A full disk under the library: a real 2 MB tmpfs mounted over the library folder.
/// Mounting needs CAP_SYS_ADMIN (root, as in CI's container); without it the test says so.
@Suite(.tags(.integration)) struct DiskFullTests {
    @Test(.enabled(if: Mounts.permitted, "mounting a small tmpfs needs CAP_SYS_ADMIN"))
    func aFullDiskAbortsTheRoutineCleanlyWithAMessage() throws {
        let fixture = try LibraryFixture()
        try TestFiles.mkdir(fixture.directory)
        #expect(mount("tmpfs", fixture.directory, "tmpfs", 0, "size=4m") == 0)
        defer { umount2(fixture.directory, Int32(MNT_DETACH)) }
        let stick = try fixture.stick()
        // 1 s of stereo PCM is 188 KB: A (2 s) fits beside the 2 MB kept free for saves, B (30 s, 5.6 MB) does not.
        try Sticks.routine(stick + "/A", parts: ["Small"], seconds: 2)
        try Sticks.routine(stick + "/B", parts: ["Big", "Bigger"], seconds: 15)
        try Sticks.routine(stick + "/C", parts: ["Never"], seconds: 1)
        let library = try fixture.open()
        let (summary, events) = try fixture.importStick(stick, into: library)
        #expect(summary == ImportSummary(added: 1, failed: 1, stopped: "library disk full"))
        #expect(summary.lines == ["Import stopped", "library disk full"])
        let last = try #require(events.problems.last)
        #expect(last.hasPrefix("B: routine \"B\" not imported: the library's disk is full (write(\(fixture.directory)/media/tmp-"))
        #expect(last.hasSuffix("): No space left on device (the last 2 MB are kept for the library's saves))"), "\(last)")
        #expect(try library.routines().map(\.title) == ["A"])
        #expect(try library.verify() == [])
        // The space is given back: the routine that was abandoned left nothing.
        let contents = try library.store.contents()
        #expect(contents.media.count == 1 && contents.temporary.isEmpty)
        // The library still works on the full disk: the resume point is written.
        try library.apply(.resume(ResumePoint(routine: "A", part: 0, partTitle: "Small", position: 5)))
        #expect(try library.resume()?.position == 5)
    }

    /// An import fills the card up to the reserve and no further, so that the saves of the
    /// rehearsal after it (settings, loops, the resume point, a few hundred of them: SQLite's
    /// write-ahead log grows and is checkpointed into the database file) still land, and the
    /// system beside the library (its journal, the spoken counts' cache) keeps some room.
    /// Without the reserve the same import takes the card to its last pages: the second case.
    @Test(.enabled(if: Mounts.permitted, "mounting a small tmpfs needs CAP_SYS_ADMIN"),
          arguments: [MediaStore.defaultReserve, 0])
    func theSavesAfterAnImportThatFilledTheCardLandOnlyWithTheReserve(reserve: Int64) throws {
        let fixture = try LibraryFixture()
        try TestFiles.mkdir(fixture.directory)
        #expect(mount("tmpfs", fixture.directory, "tmpfs", 0, "size=3m") == 0)
        defer { umount2(fixture.directory, Int32(MNT_DETACH)) }
        let stick = try fixture.stick()
        // Four routines of 2 s (384 KB of PCM each), then 200 of 0.05 s (9.6 KB each): more than
        // the card takes, and small enough at the end to fill it to its last pages.
        for i in 1...4 { try Sticks.routine(stick + "/A\(i)", parts: ["Only"], seconds: 2, frequency: 200 + Double(i) * 10) }
        for i in 1...200 {
            try Sticks.routine(stick + "/B\(1000 + i)", parts: ["Only"], seconds: 0.05, frequency: 300 + Double(i) * 5)
        }
        let reopened = try Library(directory: fixture.directory, reserve: reserve)
        let (summary, _) = try fixture.importStick(stick, into: reopened)
        #expect(summary.stopped == "library disk full")
        var fs = statvfs()
        #expect(statvfs(fixture.directory, &fs) == 0)
        let free = Int64(fs.f_bavail) * Int64(fs.f_frsize)
        let routines = try reopened.routines()
        let first = try #require(routines.first)
        let saves: [Persist] = (1...10).flatMap { round -> [Persist] in
            [.settings(Settings(volume: 5 * round))]
                + routines.prefix(30).map { .savedLoop(routine: $0.title, part: 0, partTitle: "Only",
                                                       loop: ABLoop(a: Int64(round), b: 2_000)) }
        } + [.settings(Settings(volume: 55)),
             .resume(ResumePoint(routine: first.title, part: 0, partTitle: "Only", position: 4_800))]
        var failed: [String] = []
        for save in saves {
            do { try reopened.apply(save) } catch { failed.append("\(error)") }
        }
        if reserve > 0 {
            // The media never took the reserve; the routines' rows took a few pages of it.
            #expect(free >= reserve - (64 << 10), "free after the import: \(free) bytes")
            #expect(failed == [], "saves failed with \(free) bytes free")
            #expect(try reopened.settings()?.volume == 55)
            #expect(try reopened.resume()?.position == 4_800)
        } else {
            #expect(free < 64 << 10, "the import left \(free) bytes free")
        }
        #expect(try reopened.verify() == [])
    }
}
