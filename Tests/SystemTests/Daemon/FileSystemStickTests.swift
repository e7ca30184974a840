import BoxSupport
import Glibc
import Testing

extension SystemTests.Daemon {
    /// Sticks in the file systems a dancer brings, each made by its own mkfs, hot-plugged and
    /// mounted by deploy/segmance-stick: exFAT, NTFS (the kernel's ntfs3) and ext4 are offered
    /// and imported on a push; then a Mac's APFS stick (faked by its container superblock)
    /// is named on the LCD — "Stick is APFS / Reformat: exFAT" — and in the daemon's log
    /// with the helper's sentence, and nothing is offered. After each import the daemon gives
    /// back the code the import ran.
    @Test func sticksOfEveryFileSystemImportAndAnAPFSStickIsNamed() throws {
        let rig = try DaemonRig("filesystems")
        try rig.start()
        let lcd = try #require(rig.lcd), daemon = try #require(rig.daemon)
        var after = 0
        for (i, fileSystem) in ["exfat", "ntfs", "ext4"].enumerated() {
            let title = "\(fileSystem) Routine"
            let routine = BoxStick.Routine(folder: title, manifest: "title = \"\(title)\"\ncountdown = 0\n",
                                           parts: [("01 Part.wav", 2, 44_100)])
            let content = rig.directory + "/usb-\(fileSystem)"
            try BoxStick.write([routine], to: content)
            let stick = try USBStick(name: "fs-\(fileSystem)", fileSystem: fileSystem, megabytes: 16, content: content)
            let partition = try stick.plug(id: "fs\(i)")
            try USBStick.helper("mount", partition, mediaRoot: rig.mediaRoot, status: rig.stickStatus)
            after = try lcd.expectScreen("the \(fileSystem) stick's offer", timeout: 30, after: after) {
                $0 == ["Stick: 1 routine", "Push to import  "]
            }.index
            try rig.panel.tap("select")
            after = try lcd.expectScreen("the \(fileSystem) import done", timeout: 60, after: after) {
                $0 == ["Import done     ", "1 new           "]
            }.index
            let added = try daemon.expectLine(containing: "import: \(title): added", timeout: 5)
            // Nothing plays: the code the import ran is given back at once (memory is locked on fault).
            try daemon.expectLine(containing: "memory: the import's code given back", timeout: 10, after: added.index)
            try USBStick.helper("unmount", partition, mediaRoot: rig.mediaRoot, status: rig.stickStatus)
            try stick.yank(id: "fs\(i)", partition: partition)
        }
        let list = try rig.segmance(["library", "list", "--library", rig.library])
        #expect(["exfat", "ext4", "ntfs"].allSatisfy { fs in list.contains { $0.hasPrefix("\(fs) Routine") } }, "\(list)")

        let apfs = try USBStick(name: "fs-apfs", fileSystem: "apfs", megabytes: 16, content: nil)
        let partition = try apfs.plug(id: "fsapfs")
        try USBStick.helper("mount", partition, mediaRoot: rig.mediaRoot, status: rig.stickStatus)
        _ = try lcd.expectScreen("the APFS stick named", timeout: 30, after: after) {
            $0 == ["!Stick is APFS  ", "Reformat: exFAT "]
        }
        let line = try daemon.expectLine(containing: "stick: /dev/\(partition) is APFS", timeout: 5)
        #expect(line.line.text.hasSuffix("which Linux cannot read: reformat the stick as exFAT (Disk Utility: Erase, Format ExFAT)"))
        #expect(access(rig.mediaRoot + "/" + partition, F_OK) != 0, "a mount point was made for the APFS stick")
        try USBStick.helper("unmount", partition, mediaRoot: rig.mediaRoot, status: rig.stickStatus)
        #expect(access(rig.stickStatus + "/" + partition, F_OK) != 0, "the refusal outlived the stick")
        try apfs.yank(id: "fsapfs", partition: partition)
        try rig.stop()
    }
}
