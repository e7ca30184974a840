import Foundation
import SegmanceLibrary
import SegmanceTestSupport
import StickTransfer
import Testing

/// The mount helper's *Save to stick* (`deploy/segmance-stick save SPOOL`) on a real file
/// system: an ext2 image on a loop device (the host's kernel has ext4; the box runs FAT32 and
/// exFAT, Tests/System/guest/stick-save-test.sh), mounted read-only by the helper, the spool
/// owned by another user (0700) as the player's is. Needs root and a free loop device.
@Suite(.tags(.integration), .serialized, .enabled(if: LoopDevices.permitted, "needs root, mounts and a loop device"))
struct StickHelperSaveTests {
    let dirs = TempDirs()

    /// A stick image on a loop device, mounted by the helper; `body` gets the run's paths.
    private func withStick(_ body: (Stick) throws -> Void) throws {
        let root = try dirs.make("save")
        let image = root + "/stick.img"
        try StickHelperPlanTests.mkfs(["mkfs.ext2", "-q", "-F"], image)
        let (attached, loop) = try StickHelperPlanTests.run(["losetup", "-f", "--show", image], environment: [:])
        try #require(attached == 0, "\(loop)")
        let device = loop.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? StickHelperPlanTests.run(["losetup", "-d", device], environment: [:]) }
        let stick = Stick(root: root, name: String(device.dropFirst("/dev/".count)))
        #expect(try stick.helper("mount", stick.name).0 == 0)
        defer { _ = try? stick.helper("unmount", stick.name) }
        try #require(stick.options.hasPrefix("ro,"), "\(stick.options)")
        try body(stick)
    }

    struct Stick {
        var root: String
        var name: String
        var mount: String { root + "/media/" + name }
        var spool: String { root + "/spool/stick-save" }
        var environment: [String: String] {
            ["SEGMANCE_MEDIA_ROOT": root + "/media", "SEGMANCE_STICK_STATUS": root + "/status",
             "SEGMANCE_STICK_USER": "nobody"]
        }
        @discardableResult
        func helper(_ arguments: String...) throws -> (Int32, String) {
            try StickHelperPlanTests.run([StickHelperPlanTests.helper] + arguments, environment: environment)
        }
        var options: String {
            (try? StickHelperPlanTests.run(["findmnt", "-no", "OPTIONS", mount], environment: [:]).1)?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        }
        /// The player's outbox with `folders` (name: files), owned by nobody, and its request.
        func ask(_ id: String, _ folders: [String: [String: String]], device: String? = nil) throws {
            try? FileManager.default.removeItem(atPath: root + "/spool")
            for (folder, files) in folders {
                try FileManager.default.createDirectory(atPath: spool + "/outbox/Segmance/" + folder,
                                                        withIntermediateDirectories: true)
                for (file, text) in files {
                    try TestFiles.writeText(text, to: spool + "/outbox/Segmance/\(folder)/\(file)")
                }
            }
            try TestFiles.writeText("id=\(id)\ndevice=\(device ?? name)\n", to: spool + "/request")
            _ = try StickHelperPlanTests.run(["chown", "-R", "nobody:nogroup", root + "/spool"], environment: [:])
            _ = try StickHelperPlanTests.run(["chmod", "-R", "go-rwx", root + "/spool"], environment: [:])
        }
        /// Runs the save as segmance-stick-save.service does (its capability bounding set).
        func save() throws -> StickSaveResult? {
            let (status, output) = try StickHelperPlanTests.run(
                ["setpriv", "--bounding-set", "-all,+sys_admin,+dac_override,+setuid,+setgid", "--",
                 StickHelperPlanTests.helper, "save", spool], environment: environment)
            #expect(status == 0, "\(output)")
            #expect(!FileManager.default.fileExists(atPath: spool + "/request"))
            return StickSaveSpool(directory: spool, statusDirectory: root + "/status").result(id: answeredID)
        }
        private var answeredID: String {
            let text = (try? String(contentsOfFile: root + "/status/save-result", encoding: .utf8)) ?? ""
            return String(text.split(separator: "\n").first { $0.hasPrefix("id=") }?.dropFirst(3) ?? "")
        }
    }

    @Test func aSaveWritesANewFolderBesideAndLeavesTheStickReadOnly() throws {
        try withStick { stick in
            try stick.ask("1", ["Salsa": ["routine.toml": "title = \"Salsa\"\n", "Intro.wav": "RIFF…"]])
            let first = try #require(try stick.save())
            #expect(first == StickSaveResult(id: "1", status: .saved, folders: ["Segmance/Salsa"]))
            #expect(try String(contentsOfFile: stick.mount + "/Segmance/Salsa/routine.toml", encoding: .utf8)
                    == "title = \"Salsa\"\n")
            #expect(stick.options.hasPrefix("ro,"), "\(stick.options)")
            let before = try Data(contentsOf: URL(fileURLWithPath: stick.mount + "/Segmance/Salsa/Intro.wav"))

            // Again: beside it, the first untouched; a link the player planted is not followed.
            try stick.ask("2", ["Salsa": ["routine.toml": "title = \"Salsa\"\n"]])
            let secret = stick.root + "/secret"
            try TestFiles.writeText("root's", to: secret)
            chmod(secret, 0o600)
            symlink(secret, stick.spool + "/outbox/Segmance/Salsa/leak.txt")
            let second = try #require(try stick.save())
            #expect(second.status == .saved && second.folders == ["Segmance/Salsa 2"])
            #expect(!FileManager.default.fileExists(atPath: stick.mount + "/Segmance/Salsa 2/leak.txt"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: stick.mount + "/Segmance/Salsa/Intro.wav")) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: stick.mount + "/Segmance").sorted()
                    == ["Salsa", "Salsa 2"])
            #expect(stick.options.hasPrefix("ro,"))
        }
    }

    @Test func aWriteProtectedStickAnswersLockedAndAForeignNameFailed() throws {
        try withStick { stick in
            let device = "/dev/" + stick.name
            _ = try StickHelperPlanTests.run(["blockdev", "--setro", device], environment: [:])
            defer { _ = try? StickHelperPlanTests.run(["blockdev", "--setrw", device], environment: [:]) }
            try stick.ask("3", ["Salsa": ["routine.toml": "title = \"Salsa\"\n"]])
            let locked = try #require(try stick.save())
            #expect(locked.status == .locked && locked.message.contains("write-protected"), "\(locked)")
            #expect(locked.failure.map { $0.lcd.0 } == "Stick locked:")
            #expect(!FileManager.default.fileExists(atPath: stick.mount + "/Segmance"))

            try stick.ask("4", ["Salsa": ["routine.toml": ""]], device: "../sda1")
            #expect(try stick.save()?.status == .failed)
            try stick.ask("5", ["Salsa": ["routine.toml": ""]], device: "sdz9")
            #expect(try stick.save()?.status == .gone)
        }
    }
}

private enum LoopDevices {
    static let permitted = getuid() == 0 && Mounts.permitted && access("/dev/loop-control", F_OK) == 0
}
