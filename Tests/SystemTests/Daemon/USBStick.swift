import BoxSupport
import Glibc

/// A FAT32 stick image plugged into the VM's xhci bus through the qemu monitor (`box_hmp`,
/// as guest/stick-test.sh does), mounted and unmounted by deploy/segmance-stick as
/// segmance-stick@.service would run it.
struct USBStick {
    /// The image in the run folder: /share in the guest, $BOX_SHARE_HOST for qemu.
    let name: String
    var guestPath: String { "/share/\(name).img" }
    var hostPath: String { (getenv("BOX_SHARE_HOST").map { String(cString: $0) } ?? "/share") + "/\(name).img" }
    static var helper: String { Box.repository + "/deploy/segmance-stick" }

    /// An MBR image of `megabytes` with one partition of `fileSystem` (vfat, exfat, ntfs, ext4,
    /// or a fake apfs) holding the folders of `content` (guest/stick-image.sh).
    init(name: String, fileSystem: String, megabytes: Int, content: String?) throws {
        self.name = name
        try BoxProcess.check(["/bin/bash", Box.repository + "/Tests/System/guest/stick-image.sh", fileSystem,
                              "/share/\(name).img", String(megabytes)] + (content.map { [$0] } ?? []), timeout: 300)
    }

    /// An MBR image of `megabytes` with one FAT32 partition holding the folders of `content`.
    init(name: String, megabytes: Int, content: String) throws {
        self.name = name
        let image = "/share/\(name).img"
        let script = """
            set -e
            rm -f '\(image)'
            truncate -s \(megabytes)M '\(image)'
            echo 'start=2048, type=c' | sfdisk -q '\(image)'
            mkfs.vfat -F 32 -n SEGMANCE --offset 2048 '\(image)' \((megabytes - 1) * 1024) > /dev/null
            cd '\(content)'
            for folder in *; do mcopy -s -i '\(image)@@1M' "$folder" ::; done
            """
        try BoxProcess.check(["/bin/bash", "-c", script], timeout: 300)
    }

    /// Runs a qemu monitor command.
    static func monitor(_ command: String) throws {
        try BoxProcess.check(["/bin/bash", "-c", ". \"$BOX_DIR/guest/boxlib.sh\" && box_hmp \"$0\"", command])
    }

    /// The first partition of a USB disk, e.g. sda1.
    static func partition() -> String? {
        for letter in "abcdefgh" {
            let name = "sd\(letter)1"
            if access("/sys/class/block/\(name)", F_OK) == 0, access("/dev/\(name)", F_OK) == 0 { return name }
        }
        return nil
    }

    /// Plugs the image in as a removable USB disk (a new drive `id` each time: qemu drops the
    /// old one with its device); returns the partition once the kernel has it.
    func plug(id: String) throws -> String {
        try Self.monitor("drive_add 0 if=none,id=\(id),file=\(hostPath),format=raw")
        try Self.monitor("device_add usb-storage,id=\(id),drive=\(id),bus=xhci.0,removable=on")
        let deadline = Box.now() + 30_000_000_000
        while Box.now() < deadline {
            if let partition = Self.partition() { return partition }
            Box.hold(milliseconds: 20)
        }
        throw BoxError("the stick \(id) did not appear as a partition within 30 s")
    }

    /// Pulls the disk out; returns when the kernel has removed `partition`.
    func yank(id: String, partition: String) throws {
        try Self.monitor("device_del \(id)")
        let deadline = Box.now() + 30_000_000_000
        while access("/sys/class/block/\(partition)", F_OK) == 0 {
            guard Box.now() < deadline else { throw BoxError("/dev/\(partition) still there 30 s after device_del") }
            Box.hold(milliseconds: 10)
        }
    }

    /// ExecStart / ExecStop of segmance-stick@PARTITION.service, with the daemon's media root
    /// (and its stick status folder, where a refusal goes).
    static func helper(_ action: String, _ partition: String, mediaRoot: String, status: String? = nil) throws {
        var environment = ["SEGMANCE_MEDIA_ROOT": mediaRoot]
        environment["SEGMANCE_STICK_STATUS"] = status
        try BoxProcess.check([helper, action, partition], environment: environment)
    }
}
