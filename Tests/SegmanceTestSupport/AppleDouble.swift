import Foundation

/// The `._NAME` sidecar macOS writes beside a file it copies to a FAT or exFAT stick when
/// the file has extended attributes (a downloaded song's quarantine flag is one): an
/// AppleDouble header (magic 0x00051607, version 0x00020000, "Mac OS X" filler) with a
/// Finder-info entry (id 9, holding the extended attributes) and a resource-fork entry
/// (id 2, the empty fork the Finder writes), laid out as macOS lays them out.
public enum AppleDouble {
    /// The sidecar's bytes.
    public static var bytes: [UInt8] {
        var out: [UInt8] = []
        func u32(_ value: UInt32) { out += withUnsafeBytes(of: value.bigEndian, Array.init) }
        func u16(_ value: UInt16) { out += withUnsafeBytes(of: value.bigEndian, Array.init) }
        let finderInfo = finderInfoEntry
        let fork = emptyResourceFork
        u32(0x0005_1607)                        // AppleDouble magic
        u32(0x0002_0000)                        // version 2
        out += Array("Mac OS X        ".utf8)   // 16-byte filler
        u16(2)                                  // entries
        let first = UInt32(out.count + 2 * 12)
        u32(9); u32(first); u32(UInt32(finderInfo.count))
        u32(2); u32(first + UInt32(finderInfo.count)); u32(UInt32(fork.count))
        return out + finderInfo + fork
    }

    /// Writes `._NAME` beside `path`.
    public static func write(beside path: String) throws {
        let url = URL(fileURLWithPath: path)
        let sidecar = url.deletingLastPathComponent().appendingPathComponent("._" + url.lastPathComponent)
        try Data(bytes).write(to: sidecar)
    }

    /// 32 bytes of Finder info, then the "ATTR" block macOS keeps the extended attributes
    /// in (here one: com.apple.quarantine), padded to the 3810 bytes macOS reserves.
    private static var finderInfoEntry: [UInt8] {
        var entry = [UInt8](repeating: 0, count: 32)
        let name = Array("com.apple.quarantine".utf8) + [0]
        let value = Array("0083;65a0c1f2;Safari;".utf8)
        func u32(_ v: UInt32) { entry += withUnsafeBytes(of: v.bigEndian, Array.init) }
        func u16(_ v: UInt16) { entry += withUnsafeBytes(of: v.bigEndian, Array.init) }
        entry += [0, 0]                                 // pad to a 4-byte boundary (offset 50 + 34)
        let headerStart = entry.count
        entry += Array("ATTR".utf8)
        u32(0)                                          // debug tag
        u32(3810)                                       // total size
        let dataOffset = UInt32(50 + headerStart + 36 + 12 + ((name.count + 3) & ~3))
        u32(dataOffset); u32(UInt32(value.count))       // attribute data
        u32(0); u32(0); u32(0)                          // reserved
        u16(0); u16(1)                                  // flags, one attribute
        u32(dataOffset); u32(UInt32(value.count)); u16(0)
        entry.append(UInt8(name.count))
        entry += name
        while (entry.count + 2) % 4 != 0 { entry.append(0) }
        entry += value
        entry += [UInt8](repeating: 0, count: max(0, 3810 - entry.count))
        return entry
    }

    /// The 286-byte resource fork the Finder writes for a file without one.
    private static var emptyResourceFork: [UInt8] {
        var fork = [UInt8](repeating: 0, count: 286)
        func put32(_ v: UInt32, at offset: Int) {
            withUnsafeBytes(of: v.bigEndian) { for (i, b) in $0.enumerated() { fork[offset + i] = b } }
        }
        func put16(_ v: UInt16, at offset: Int) {
            withUnsafeBytes(of: v.bigEndian) { for (i, b) in $0.enumerated() { fork[offset + i] = b } }
        }
        // Header: data at 0x100 (0 bytes), map at 0x100 (0x1E bytes).
        put32(0x100, at: 0); put32(0x100, at: 4); put32(0, at: 8); put32(0x1E, at: 12)
        let blank = Array("This resource fork intentionally left blank   ".utf8)
        for (i, b) in blank.enumerated() { fork[0x10 + i] = b }
        // The map repeats the header, then: type list at 0x1C, name list at 0x1E, no types.
        put32(0x100, at: 0x100); put32(0x100, at: 0x104); put32(0, at: 0x108); put32(0x1E, at: 0x10C)
        put16(0x1C, at: 0x118); put16(0x1E, at: 0x11A); put16(0xFFFF, at: 0x11C)
        return fork
    }
}
