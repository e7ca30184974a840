import Foundation
import SegmanceLibrary
import SegmanceTestSupport
import StickWatch
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.tags(.integration)) struct MountWatcherTests {
    let temp = TempDirs()

    @Test func mountinfoLinesParseWithEscapedSpaces() {
        let text = """
            22 27 0:21 / /proc rw,relatime - proc proc rw
            36 25 8:1 / /media/usb\\040stick ro,nosuid,nodev,noexec,relatime shared:12 - vfat /dev/sda1 ro,fmask=0022
            37 25 8:17 / /media/tab\\011name rw master:3 unbindable - ext4 /dev/sdb1 rw

            garbage line
            """
        #expect(MountWatcher.parse(text) == [
            MountEntry(mountPoint: "/proc", source: "proc", fileSystem: "proc", options: "rw,relatime"),
            MountEntry(mountPoint: "/media/usb stick", source: "/dev/sda1", fileSystem: "vfat",
                       options: "ro,nosuid,nodev,noexec,relatime"),
            MountEntry(mountPoint: "/media/tab\tname", source: "/dev/sdb1", fileSystem: "ext4", options: "rw"),
        ])
    }

    @Test func onlyMountsBelowTheRootAreSticks() throws {
        let dir = try temp.make("mountinfo")
        let table = dir + "/mountinfo"
        try TestFiles.writeText("""
            1 0 0:1 / / rw - ext4 /dev/vda rw
            2 1 0:2 / /media rw - tmpfs tmpfs rw
            3 2 8:1 / /media/usb0 ro - vfat /dev/sda1 ro
            4 1 8:2 / /mediax/usb1 ro - vfat /dev/sdb1 ro
            """, to: table)
        let watcher = try MountWatcher(root: "/media/", mountinfo: table)
        // What is already mounted at start is reported by the first call.
        #expect(try watcher.changes() == [.appeared(MountEntry(mountPoint: "/media/usb0", source: "/dev/sda1",
                                                               fileSystem: "vfat", options: "ro"))])
        #expect(try watcher.changes() == [])
        try TestFiles.writeText("1 0 0:1 / / rw - ext4 /dev/vda rw\n5 2 8:33 / /media/usb1 ro - exfat /dev/sdc1 ro\n", to: table)
        #expect(try watcher.changes() == [
            .disappeared(MountEntry(mountPoint: "/media/usb0", source: "/dev/sda1", fileSystem: "vfat", options: "ro")),
            .appeared(MountEntry(mountPoint: "/media/usb1", source: "/dev/sdc1", fileSystem: "exfat", options: "ro")),
        ])
        #expect(watcher.mounted.map(\.mountPoint) == ["/media/usb1"])
    }

    /// *Save to stick* remounts the stick read-write and back: the same stick all along, not
    /// one pulled and another offered.
    @Test func aRemountIsNotANewStick() throws {
        let table = try temp.make("remount") + "/mountinfo"
        try TestFiles.writeText("3 2 8:1 / /media/sda1 ro,nosuid - vfat /dev/sda1 ro\n", to: table)
        let watcher = try MountWatcher(root: "/media", mountinfo: table)
        #expect(try watcher.changes().count == 1)
        try TestFiles.writeText("3 2 8:1 / /media/sda1 rw,nosuid - vfat /dev/sda1 rw\n", to: table)
        #expect(try watcher.changes() == [])
        #expect(watcher.mounted.map(\.options) == ["rw,nosuid"])
        try TestFiles.writeText("3 2 8:1 / /media/sda1 ro,nosuid - vfat /dev/sda1 ro\n", to: table)
        #expect(try watcher.changes() == [])
        // Another stick at the same place is new.
        try TestFiles.writeText("4 2 8:17 / /media/sda1 ro,nosuid - exfat /dev/sdb1 ro\n", to: table)
        #expect(try watcher.changes().count == 2)
    }

    /// The real thing: the kernel flags /proc/self/mountinfo when a file system is mounted
    /// under the root, and again when it goes; poll() wakes for each, with no busy loop.
    @Test(.enabled(if: Mounts.permitted, "mounting a tmpfs needs CAP_SYS_ADMIN"))
    func aMountUnderTheRootWakesPollAndIsReported() throws {
        let root = try temp.make("media")
        let stick = root + "/STICK 1"
        mkdir(stick, 0o755)
        let watcher = try MountWatcher(root: root)
        #expect(try watcher.changes() == [])
        // Other tests mount too (elsewhere): a wake-up may bring no change under our root.
        func nextChanges() throws -> [MountChange] {
            for _ in 0..<50 {
                var fd = pollfd(fd: watcher.fileDescriptor, events: MountWatcher.pollEvents, revents: 0)
                guard poll(&fd, 1, 10_000) == 1 else { return [] }
                let changes = try watcher.changes()
                if !changes.isEmpty { return changes }
            }
            return []
        }

        #expect(mount("segmance-test", stick, "tmpfs", UInt(MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC), "size=64k") == 0)
        let appeared = try nextChanges()
        #expect(appeared.count == 1)
        guard case .appeared(let entry) = appeared.first else { return }
        #expect(entry.mountPoint == stick && entry.fileSystem == "tmpfs" && entry.source == "segmance-test")
        #expect(entry.options.hasPrefix("ro,nosuid,nodev,noexec"))

        #expect(umount(stick) == 0)
        #expect(try nextChanges() == [.disappeared(entry)])
    }
}
