import Glibc
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import StickWatch
import Testing

/// The folder where the stick mount helper says why it refused a stick, watched with inotify.
@Suite(.tags(.integration)) struct StickRefusalWatcherTests {
    let dirs = TempDirs()

    /// As the helper writes: a dot file, renamed into place.
    static func write(_ text: String, folder: String, device: String) throws {
        try TestFiles.writeText(text, to: folder + "/." + device + ".tmp")
        #expect(rename(folder + "/." + device + ".tmp", folder + "/" + device) == 0)
    }

    /// True when the watcher's descriptor is readable within a second.
    static func readable(_ watcher: StickRefusalWatcher) -> Bool {
        var entry = pollfd(fd: watcher.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 1000) == 1
    }

    @Test func aRefusalIsReportedOnceAndAgainWhenTheStickComesBack() throws {
        let status = try dirs.make("run") + "/segmance-stick"
        let watcher = try StickRefusalWatcher(directory: status)
        #expect(watcher.changes().isEmpty)
        // The folder appears with the first refusal; the parent's watch sees it.
        try TestFiles.mkdir(status)
        #expect(Self.readable(watcher))
        #expect(watcher.changes().isEmpty)
        try Self.write("device=/dev/sdb1\nfilesystem=btrfs\nreason=unsupported\nmessage=/dev/sdb1 is btrfs\n", folder: status, device: "sdb1")
        #expect(Self.readable(watcher))
        let refusal = StickRefusal(device: "sdb1", fileSystem: "btrfs", reason: .unsupported, message: "/dev/sdb1 is btrfs")
        #expect(watcher.changes() == [refusal])
        #expect(watcher.changes().isEmpty, "reported twice")
        #expect(watcher.present == [refusal])
        // Gone (ExecStop), then the same stick again: reported again.
        #expect(unlink(status + "/sdb1") == 0)
        #expect(Self.readable(watcher))
        #expect(watcher.changes().isEmpty)
        #expect(watcher.present.isEmpty)
        try Self.write("device=/dev/sdb1\nfilesystem=btrfs\nreason=unsupported\nmessage=/dev/sdb1 is btrfs\n", folder: status, device: "sdb1")
        #expect(Self.readable(watcher))
        #expect(watcher.changes() == [refusal])
    }

    @Test func dotFilesFilesWithoutAReasonAndOversizedFilesAreNotRefusals() throws {
        let status = try dirs.make("status")
        try TestFiles.writeText("reason=apfs\n", to: status + "/.sdc1.tmp")
        try TestFiles.writeText("device=/dev/sdc2\n", to: status + "/sdc2")
        try TestFiles.writeText("reason=apfs\n" + String(repeating: "x", count: StickRefusalWatcher.maximumFileBytes), to: status + "/sdc3")
        try TestFiles.writeText("reason=something-new\nfilesystem=zfs\n", to: status + "/sdc4")
        let watcher = try StickRefusalWatcher(directory: status)
        // An unknown reason from a newer helper still names the stick: unsupported, with a message.
        #expect(watcher.changes() == [StickRefusal(device: "sdc4", fileSystem: "zfs", reason: .unsupported,
                                                   message: "sdc4: something-new")])
    }

    /// A stick the helper mounted: its status file has the label and no reason, so it is no
    /// refusal, and the label names the routine of its loose songs.
    @Test func aMountedSticksLabelIsReadAndIsNoRefusal() throws {
        let status = try dirs.make("status")
        try Self.write("device=/dev/sdd1\nfilesystem=vfat\nlabel=SALSA CLASS\n", folder: status, device: "sdd1")
        try Self.write("device=/dev/sde1\nfilesystem=exfat\nlabel=\n", folder: status, device: "sde1")
        let watcher = try StickRefusalWatcher(directory: status)
        #expect(watcher.changes().isEmpty)
        #expect(StickRefusalWatcher.label(directory: status, device: "sdd1") == "SALSA CLASS")
        #expect(StickRefusalWatcher.label(directory: status, device: "sde1") == nil)
        #expect(StickRefusalWatcher.label(directory: status, device: "sdf1") == nil)
        #expect(StickRefusalWatcher.label(directory: status, device: "../status/sdd1") == nil)
    }
}
