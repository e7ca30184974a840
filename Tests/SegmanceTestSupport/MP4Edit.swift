import Foundation

/// Edits an MP4 written by `ffmpeg` (index at the end, after the audio) the way a store's
/// DRM lays one out: the audio sample entry (`mp4a`) renamed and given a protection-scheme
/// box (`sinf`: the original format `frma`, the scheme `schm`, its info `schi`). The
/// boxes around it grow by the inserted bytes; the audio itself does not move.
public enum MP4Edit {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Renames the first `mp4a` sample entry to `entry` ("drms": FairPlay, "enca": common
    /// encryption) and, with `scheme` ("itun", "cenc"), inserts a `sinf` box into it.
    public static func protect(_ path: String, entry: String, scheme: String?) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The path of boxes from the top down to the sample description.
        var ancestors: [Int] = []
        var offset = 0
        var end = bytes.count
        for name in ["moov", "trak", "mdia", "minf", "stbl", "stsd"] {
            guard let found = find(name, in: bytes, from: offset, to: end) else {
                throw Failure(description: "no \(name) box in \(path)")
            }
            ancestors.append(found)
            offset = found + 8 + (name == "stsd" ? 8 : 0)  // stsd: version, flags, entry count
            end = found + size(bytes, at: found)
        }
        let sampleEntry = offset
        guard String(decoding: bytes[(sampleEntry + 4)..<(sampleEntry + 8)], as: UTF8.self) == "mp4a" else {
            throw Failure(description: "the first sample entry of \(path) is not mp4a")
        }
        bytes.replaceSubrange((sampleEntry + 4)..<(sampleEntry + 8), with: Array(entry.utf8))
        guard let scheme else {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return
        }
        let sinf = box("sinf", box("frma", Array("mp4a".utf8))
            + box("schm", [0, 0, 0, 0] + Array(scheme.utf8) + [0, 0, 0, 0])
            + box("schi", box("user", [0, 0, 0, 1]) + box("key ", [0, 0, 0, 1]) + box("iviv", [UInt8](repeating: 0x5A, count: 16))))
        let entryEnd = sampleEntry + size(bytes, at: sampleEntry)
        bytes.insert(contentsOf: sinf, at: entryEnd)
        for start in ancestors + [sampleEntry] { setSize(&bytes, at: start, size(bytes, at: start) + sinf.count) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func size(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func setSize(_ bytes: inout [UInt8], at offset: Int, _ value: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * (3 - i))) }
    }

    /// The offset of the first box called `name` among the boxes in `from..<to`.
    private static func find(_ name: String, in bytes: [UInt8], from: Int, to: Int) -> Int? {
        var offset = from
        while offset + 8 <= to {
            let length = size(bytes, at: offset)
            if String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) == name { return offset }
            guard length >= 8 else { return nil }
            offset += length
        }
        return nil
    }

    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let length = 8 + payload.count
        return (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * (3 - $0))) } + Array(type.utf8) + payload
    }
}
