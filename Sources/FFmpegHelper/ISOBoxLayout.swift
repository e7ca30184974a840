#if canImport(Glibc)
import Glibc
#endif

/// The top-level boxes of an ISO base media file (MP4, M4A, MOV), read only to say why
/// FFmpeg could not open one: the file is cut short, or its index (`moov`) is missing.
enum ISOBoxLayout: Equatable {
    /// The box `type` declares an end past the file's last byte.
    case cut(type: String, declaredEnd: Int64, fileSize: Int64)
    /// The boxes tile the file exactly; their types in order.
    case whole([String])

    /// The type of the first sample entry of each track (`moov/trak/mdia/minf/stbl/stsd`):
    /// "mp4a", "alac", "avc1" — or "drms" (FairPlay), "enca" (common encryption) for
    /// protected audio. Empty when the index cannot be read (or is over 16 MiB).
    static func sampleEntries(_ path: String) -> [String] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return [] }
        let size = Int64(info.st_size)
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 8)
        for _ in 0..<4096 {
            guard offset + 8 <= size, pread(fd, &header, 8, off_t(offset)) == 8 else { return [] }
            let length = Int64(header[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            guard length >= 8 else { return [] }
            if header[4..<8].elementsEqual("moov".utf8) {
                guard length <= 16 << 20, offset + length <= size else { return [] }
                var moov = [UInt8](repeating: 0, count: Int(length))
                guard pread(fd, &moov, moov.count, off_t(offset)) == moov.count else { return [] }
                return children(of: moov, in: 8..<moov.count, named: "trak").compactMap { trak in
                    var range = trak
                    for name in ["mdia", "minf", "stbl", "stsd"] {
                        guard let child = children(of: moov, in: range, named: name).first else { return nil }
                        range = child
                    }
                    // stsd: version and flags, entry count, then the entries.
                    let entry = range.lowerBound + 8
                    guard entry + 8 <= range.upperBound else { return nil }
                    return String(decoding: moov[(entry + 4)..<(entry + 8)], as: UTF8.self)
                }
            }
            offset += length
        }
        return []
    }

    /// The payload ranges of the boxes called `name` directly inside `range` of `bytes`.
    private static func children(of bytes: [UInt8], in range: Range<Int>, named name: String) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let length = Int(bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            guard length >= 8, offset + length <= range.upperBound else { break }
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual(name.utf8) {
                found.append((offset + 8)..<(offset + length))
            }
            offset += length
        }
        return found
    }

    /// Walks the top-level box headers of `path` (at most `maxBoxes`); nil when the file
    /// cannot be read or a header is malformed.
    static func of(_ path: String, maxBoxes: Int = 4096) -> ISOBoxLayout? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int64(info.st_size)
        var offset: Int64 = 0
        var types: [String] = []
        var header = [UInt8](repeating: 0, count: 16)
        while offset < size && types.count < maxBoxes {
            let got = pread(fd, &header, 16, off_t(offset))
            guard got >= 8 else { return .cut(type: "header", declaredEnd: offset + 8, fileSize: size) }
            let type = String(decoding: header[4..<8].map { $0 >= 32 && $0 < 127 ? $0 : UInt8(ascii: "?") },
                              as: UTF8.self)
            var length = Int64(header[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            if length == 1 {
                guard got >= 16 else { return .cut(type: type, declaredEnd: offset + 16, fileSize: size) }
                length = Int64(bitPattern: header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            } else if length == 0 {
                length = size - offset  // to the end of the file
            }
            guard length >= 8 else { return nil }
            types.append(type)
            let (end, overflow) = offset.addingReportingOverflow(length)
            if overflow || end > size { return .cut(type: type, declaredEnd: overflow ? .max : end, fileSize: size) }
            offset = end
        }
        return .whole(types)
    }
}
