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
@Suite struct DiskFullTests {
    @Test(.enabled(if: Mounts.permitted, "mounting a small tmpfs needs CAP_SYS_ADMIN"))
    func aFullDiskAbortsTheRoutineCleanlyWithAMessage() throws {
        let fixture = try LibraryFixture()
        try TestFiles.mkdir(fixture.directory)
        #expect(mount("tmpfs", fixture.directory, "tmpfs", 0, "size=2m") == 0)
        defer { umount2(fixture.directory, Int32(MNT_DETACH)) }
        let stick = try fixture.stick()
        // 1 s of stereo PCM is 188 KB: A (2 s) fits, B (30 s, 5.6 MB) does not.
        try Sticks.routine(stick + "/A", parts: ["Small"], seconds: 2)
        try Sticks.routine(stick + "/B", parts: ["Big", "Bigger"], seconds: 15)
        try Sticks.routine(stick + "/C", parts: ["Never"], seconds: 1)
        let library = try fixture.open()
        let (summary, events) = try fixture.importStick(stick, into: library)
        #expect(summary == ImportSummary(added: 1, failed: 1, stopped: "library disk full"))
        #expect(summary.lines == ["Import stopped", "library disk full"])
        let last = try #require(events.problems.last)
        #expect(last.hasPrefix("B: routine \"B\" not imported: the library's disk is full (write(\(fixture.directory)/media/tmp-"))
        #expect(last.hasSuffix("): No space left on device)"), "\(last)")
        #expect(try library.routines().map(\.title) == ["A"])
        #expect(try library.verify() == [])
        // The space is given back: the routine that was abandoned left nothing.
        let contents = try library.store.contents()
        #expect(contents.media.count == 1 && contents.temporary.isEmpty)
        // The library still works on the full disk: the resume point is written.
        try library.apply(.resume(ResumePoint(routine: "A", part: 0, partTitle: "Small", position: 5)))
        #expect(try library.resume()?.position == 5)
    }
}
