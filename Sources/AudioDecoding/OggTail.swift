import Foundation

/// The end of an Ogg file: its last page must carry the end-of-stream flag (RFC 3533). A file
/// cut short ends inside a page or after one without it; libsndfile 1.2.2 (trixie) then takes
/// the last whole page's position as the length and decodes the rest without a word.
enum OggTail {
    /// A page is at most 27 + 255 + 255 · 255 bytes.
    static let window = 65_307

    /// Why the Ogg file at `path` is cut short, or nil when its last page ends the stream.
    /// Bytes after a whole last page (a tag some programs append) are not looked at.
    static func truncation(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0 else { return nil }
        let start = size > UInt64(window) ? size - UInt64(window) : 0
        guard (try? handle.seek(toOffset: start)) != nil, let data = try? handle.readToEnd() else { return nil }
        let tail = [UInt8](data)
        // The last page header in what was read ("OggS", version 0).
        for at in stride(from: tail.count - 27, through: 0, by: -1)
        where tail[at] == 0x4F && tail[at + 1] == 0x67 && tail[at + 2] == 0x67 && tail[at + 3] == 0x53
            && tail[at + 4] == 0 {
            let segments = Int(tail[at + 26])
            guard at + 27 + segments <= tail.count else { return "the stream ends inside its last page" }
            let body = tail[(at + 27)..<(at + 27 + segments)].reduce(0) { $0 + Int($1) }
            guard at + 27 + segments + body <= tail.count else { return "the stream ends inside its last page" }
            return tail[at + 5] & 0x04 == 0 ? "the stream ends before its last page" : nil
        }
        return nil
    }
}
