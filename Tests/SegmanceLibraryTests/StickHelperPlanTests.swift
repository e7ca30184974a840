import Foundation
import SegmanceTestSupport
import Testing

/// The stick mount helper's choice of driver and options for each file system a stick comes
/// in (`deploy/segmance-stick plan IMAGE`): real images made by each file system's own mkfs,
/// HFS+ and APFS crafted by their superblocks (Debian ships no mkfs for either). The kernel's
/// list of file systems is given to the helper, so the choice is the same on any host; the
/// box mounts the images for real (Tests/System/guest/stick-test.sh).
@Suite(.tags(.integration)) struct StickHelperPlanTests {
    static let helper = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy/segmance-stick").path
    static let allKernelFileSystems = ["vfat", "exfat", "ntfs3", "ext4", "hfsplus"]
    static let readOnly = "ro,nosuid,nodev,noexec,noatime"
    static let masks = "uid=0,gid=0,fmask=0133,dmask=0022"
    let dirs = TempDirs()

    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        /// Makes the image at the path given.
        var make: @Sendable (String) throws -> Void
        var kernel: [String] = StickHelperPlanTests.allKernelFileSystems
        var ntfs3g: String? = "/usr/bin/ntfs-3g"
        var expected: [String]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "FAT32", make: { try mkfs(["mkfs.vfat", "-F", "32"], $0) },
            expected: ["type=vfat", "mount=vfat", "options=\(readOnly),\(masks),shortname=mixed,utf8"]),
        Row(name: "exFAT", make: { try mkfs(["mkfs.exfat"], $0) },
            expected: ["type=exfat", "mount=exfat", "options=\(readOnly),\(masks),iocharset=utf8"]),
        Row(name: "NTFS, kernel ntfs3", make: { try mkfs(["mkntfs", "-F", "-q", "-f"], $0) },
            expected: ["type=ntfs", "mount=ntfs3", "options=\(readOnly),\(masks),iocharset=utf8"]),
        Row(name: "NTFS, no ntfs3: ntfs-3g", make: { try mkfs(["mkntfs", "-F", "-q", "-f"], $0) },
            kernel: ["vfat", "exfat", "ext4"],
            expected: ["type=ntfs", "mount=ntfs-3g", "options=\(readOnly),\(masks)"]),
        Row(name: "NTFS, no driver at all", make: { try mkfs(["mkntfs", "-F", "-q", "-f"], $0) },
            kernel: ["vfat", "exfat", "ext4"], ntfs3g: "",
            expected: ["type=ntfs", "refused=unsupported",
                       "message=IMAGE is NTFS, and this system has neither the kernel's ntfs3 nor ntfs-3g: install ntfs-3g, or reformat the stick as exFAT"]),
        Row(name: "ext4 (journal not replayed)", make: { try mkfs(["mkfs.ext4", "-q"], $0) },
            expected: ["type=ext4", "mount=ext4", "options=\(readOnly),noload"]),
        Row(name: "ext2", make: { try mkfs(["mkfs.ext2", "-q"], $0) },
            expected: ["type=ext2", "mount=ext4", "options=\(readOnly)"]),
        Row(name: "HFS+ (H+ volume header)", make: { try hfsPlus($0, signature: "H+", blockSize: 4096) },
            expected: ["type=hfsplus", "mount=hfsplus", "options=\(readOnly),uid=65534,gid=65534,umask=0022,nls=utf8"]),
        Row(name: "HFSX (HX, by its magic alone)", make: { try hfsPlus($0, signature: "HX", blockSize: 0) },
            expected: ["type=hfsplus", "mount=hfsplus", "options=\(readOnly),uid=65534,gid=65534,umask=0022,nls=utf8"]),
        Row(name: "APFS (container superblock, as blkid knows it)", make: { try apfs($0, complete: true) },
            expected: ["type=apfs", "refused=apfs", apfsMessage]),
        Row(name: "APFS (NXSB magic alone)", make: { try apfs($0, complete: false) },
            expected: ["type=apfs", "refused=apfs", apfsMessage]),
        Row(name: "exFAT on a kernel without exFAT", make: { try mkfs(["mkfs.exfat"], $0) }, kernel: ["vfat"],
            expected: ["type=exfat", "refused=unsupported",
                       "message=IMAGE is exfat, and this kernel has no exfat driver: reformat the stick as exFAT or FAT32"]),
        Row(name: "nothing known", make: { try blank($0) },
            expected: ["type=", "refused=unknown",
                       "message=IMAGE holds no file system this box knows: reformat the stick as exFAT or FAT32"]),
    ]
    static let apfsMessage = "message=IMAGE is APFS (a Mac's default format), which Linux cannot read: reformat the stick as exFAT (Disk Utility: Erase, Format ExFAT)"

    @Test(arguments: rows) func theHelperChoosesTheDriverAndOptions(_ row: Row) throws {
        let dir = try dirs.make("plan")
        let image = dir + "/stick.img"
        try row.make(image)
        let filesystems = dir + "/filesystems"
        try TestFiles.writeText("nodev\tproc\n" + row.kernel.map { "\t\($0)\n" }.joined(), to: filesystems)
        var environment = ["SEGMANCE_STICK_FILESYSTEMS": filesystems, "SEGMANCE_STICK_USER": "nobody"]
        environment["SEGMANCE_STICK_NTFS_3G"] = row.ntfs3g
        let (status, output) = try Self.run([Self.helper, "plan", image], environment: environment)
        #expect(status == 0)
        #expect(output.split(separator: "\n").map { $0.replacingOccurrences(of: image, with: "IMAGE") } == row.expected)
    }

    @Test func aPathIsPlannedButNeverMountedByName() throws {
        let (status, output) = try Self.run([Self.helper, "mount", "../sda1"], environment: [:])
        #expect(status == 2)
        #expect(output.contains("'../sda1' is not a kernel block device name"))
    }

    // MARK: images

    static func mkfs(_ command: [String], _ path: String) throws {
        try blank(path)
        let (status, output) = try run(command + [path], environment: [:])
        guard status == 0 else { throw PlanTestError("\(command[0]) \(path) failed: \(output)") }
    }

    static func blank(_ path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw PlanTestError("cannot create \(path)") }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 40 << 20)
        try handle.close()
    }

    /// An HFS+ volume header at byte 1024 (big-endian): signature, version 4, the block size at 40.
    static func hfsPlus(_ path: String, signature: String, blockSize: UInt32) throws {
        try blank(path)
        var header = [UInt8](repeating: 0, count: 512)
        header[0...1] = ArraySlice(signature.utf8)
        header[3] = signature == "H+" ? 4 : 5
        withUnsafeBytes(of: blockSize.bigEndian) { header[40..<44] = ArraySlice($0) }
        try write(header, at: 1024, to: path)
    }

    /// An APFS container superblock (`nx_superblock_t`, little-endian) at byte 0: "NXSB" at
    /// 32; complete, also the object type (1, container superblock), the 4096-byte block size
    /// and the Fletcher-64 checksum over the rest of the block that APFS keeps at 0.
    static func apfs(_ path: String, complete: Bool) throws {
        try blank(path)
        var block = [UInt8](repeating: 0, count: 4096)
        block[32..<36] = ArraySlice("NXSB".utf8)
        if complete {
            block[24] = 1                                   // o_type: OBJECT_TYPE_NX_SUPERBLOCK
            block[27] = 0x80                                // OBJ_EPHEMERAL flag
            withUnsafeBytes(of: UInt32(4096).littleEndian) { block[36..<40] = ArraySlice($0) }
            withUnsafeBytes(of: UInt64(10_240).littleEndian) { block[40..<48] = ArraySlice($0) }
            var sum1: UInt64 = 0, sum2: UInt64 = 0
            let modulus: UInt64 = 0xFFFF_FFFF
            for i in stride(from: 8, to: 4096, by: 4) {
                let word = UInt64(block[i]) | UInt64(block[i + 1]) << 8 | UInt64(block[i + 2]) << 16 | UInt64(block[i + 3]) << 24
                sum1 = (sum1 + word) % modulus
                sum2 = (sum2 + sum1) % modulus
            }
            let check1 = modulus - ((sum1 + sum2) % modulus)
            let check2 = modulus - ((sum1 + check1) % modulus)
            withUnsafeBytes(of: UInt32(check1).littleEndian) { block[0..<4] = ArraySlice($0) }
            withUnsafeBytes(of: UInt32(check2).littleEndian) { block[4..<8] = ArraySlice($0) }
        }
        try write(block, at: 0, to: path)
    }

    static func write(_ bytes: [UInt8], at offset: UInt64, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
    }

    /// Runs a command with these variables added; its status and what it printed (both streams).
    static func run(_ command: [String], environment: [String: String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0].hasPrefix("/") ? command[0] : "/usr/bin/env")
        process.arguments = command[0].hasPrefix("/") ? Array(command.dropFirst()) : command
        var variables = ProcessInfo.processInfo.environment
        variables["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        for (key, value) in environment { variables[key] = value }
        process.environment = variables
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

struct PlanTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
