import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import StickTransfer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A stick pulled out while one of its files is open leaves a dead mount: `stat` of the
/// root and of the open file still succeed, only reads fail with EIO (seen in the board in a
/// box: the yanked FAT stick's second part failed alone and the routine was committed with
/// its first part). Here the read error is real — the file is `/proc/self/mem` bind-mounted
/// into the stick folder, whose first bytes cannot be read (EIO) — and the kernel's list of
/// block devices is a folder standing in for `/sys/dev/block`, holding the stick's device
/// while it is "plugged in".
@Suite(.tags(.integration)) struct VanishedStickTests {
    /// A stick folder with routine "Big": a real first part and a second whose reads fail.
    final class FailingStick {
        let fixture: LibraryFixture
        let stick: String
        let unreadable: String
        let blockDevices: String
        /// The stick's device, as "MAJOR:MINOR" in the block device list.
        let deviceEntry: String

        init() throws {
            fixture = try LibraryFixture()
            stick = try fixture.stick()
            try Sticks.routine(stick + "/Big", parts: ["One"], seconds: 1)
            unreadable = stick + "/Big/2 Two.wav"
            #expect(FileManager.default.createFile(atPath: unreadable, contents: Data()))
            // MS_BIND: /proc/self resolves to this process when the kernel looks it up.
            guard mount("/proc/self/mem", unreadable, nil, UInt(MS_BIND), nil) == 0 else {
                throw TestFailure("bind mount over \(unreadable): \(String(cString: strerror(errno)))")
            }
            blockDevices = try fixture.temp.make("sys-dev-block")
            var info = stat()
            stat(stick, &info)
            let dev = UInt64(info.st_dev)
            let major = (dev & 0x0000_0000_000F_FF00) >> 8 | (dev & 0xFFFF_F000_0000_0000) >> 32
            let minor = dev & 0xFF | (dev & 0x0000_0FFF_FFF0_0000) >> 12
            deviceEntry = "\(major):\(minor)"
        }

        deinit { umount2(unreadable, Int32(MNT_DETACH)) }

        func plugIn() throws { try TestFiles.mkdir(blockDevices + "/" + deviceEntry) }
        func pullOut() { rmdir(blockDevices + "/" + deviceEntry) }

        func importStick(into library: Library) -> (summary: ImportSummary, events: [ImportEvent]) {
            let importer = Importer(library: library, blockDevices: blockDevices, vanishGrace: 300_000_000)
            let events = EventLog()
            let summary = importer.run(stick) { events.items.append($0) }
            return (summary, events.items)
        }
    }

    @Test(.enabled(if: Mounts.permitted, "bind-mounting a file that fails to read needs CAP_SYS_ADMIN"))
    func aReadErrorOnAStickThatWentAwayAbortsTheRoutineAndLeavesTheLibraryAsItWas() throws {
        let failing = try FailingStick()
        let library = try failing.fixture.open()
        let earlier = try failing.fixture.stick()
        try Sticks.routine(earlier + "/Earlier", parts: ["Kept"], seconds: 1)
        #expect(try failing.fixture.importStick(earlier, into: library).summary == ImportSummary(added: 1))
        let before = try library.routines()
        let mediaBefore = try library.store.contents()

        // The stick is gone from the kernel's block devices: its dead mount still stats.
        failing.pullOut()
        let (summary, events) = failing.importStick(into: library)
        #expect(summary == ImportSummary(failed: 1, stopped: "stick removed"))
        #expect(summary.lines == ["Import stopped", "stick removed"])
        #expect(events.contains(.routineFailed(title: "Big", reason: "the stick went away during the import")))
        #expect(events.problems.last == "Big: routine \"Big\" not imported: the stick went away during the import")
        // No part was failed as if the file were bad: the routine was abandoned whole.
        #expect(!events.problems.contains { $0.contains("Input/output error") }, "\(events.problems)")
        #expect(try library.routines() == before)
        let media = try library.store.contents()
        #expect(media.media == mediaBefore.media && media.temporary.isEmpty)
        #expect(try library.verify() == [])
    }

    @Test(.enabled(if: Mounts.permitted, "bind-mounting a file that fails to read needs CAP_SYS_ADMIN"))
    func aReadErrorOnAStickThatStaysFailsOnlyThatPart() throws {
        let failing = try FailingStick()
        try failing.plugIn()
        let library = try failing.fixture.open()
        let (summary, events) = failing.importStick(into: library)
        #expect(summary == ImportSummary(added: 1, leftOut: 1))
        #expect(events.problems == ["Big/2 Two.wav: cannot read the file: Input/output error"])
        #expect(try library.routines().first?.parts.map(\.title) == ["One"])
    }

    @Test func aStickThatStaysIsNotTakenForGone() throws {
        // The folder the tests run in is on some file system: either a block device the
        // kernel lists in /sys/dev/block, or one with no device (major 0), never unlisted.
        let fixture = try LibraryFixture()
        let stick = try fixture.stick()
        try Sticks.routine(stick + "/A", parts: ["One"], seconds: 0.2)
        let (summary, _) = try fixture.importStick(stick)
        #expect(summary == ImportSummary(added: 1))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
