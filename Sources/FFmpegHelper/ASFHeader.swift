#if canImport(Glibc)
import Glibc
#endif

/// The file size an ASF file (WMA) declares in its File Properties Object. FFmpeg drops
/// the header's duration when the size disagrees with the file's, so a cut WMA would
/// otherwise decode to its end without a word: this is how it is recognised.
enum ASFHeader {
    private static let fileProperties: [UInt8] = [
        0xA1, 0xDC, 0xAB, 0x8C, 0x47, 0xA9, 0xCF, 0x11, 0x8E, 0xE4, 0x00, 0xC0, 0x0C, 0x20, 0x53, 0x65,
    ]

    /// The declared size in bytes, nil when the header cannot be read or holds none.
    static func declaredFileSize(_ path: String) -> Int64? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Header Object: GUID, size (8), object count (4), 2 reserved bytes; then objects of
        // GUID and size (8). Only the first 64 KiB are searched.
        var header = [UInt8](repeating: 0, count: 64 * 1024)
        let got = pread(fd, &header, header.count, 0)
        guard got > 30 else { return nil }
        var offset = 30
        while offset + 24 <= got {
            let size = Int(min(UInt64(Int32.max), little64(header, offset + 16)))
            guard size >= 24 else { return nil }
            if Array(header[offset..<(offset + 16)]) == fileProperties {
                // File Properties: GUID, size, file ID (16), file size (8).
                guard offset + 48 <= got else { return nil }
                let declared = little64(header, offset + 40)
                return declared > 0 && declared < UInt64(Int64.max) ? Int64(declared) : nil
            }
            offset += size
        }
        return nil
    }

    private static func little64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }
}
