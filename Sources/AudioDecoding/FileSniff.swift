import Foundation

/// What the first bytes of a file say it is, and so which decoder reads it.
package enum FileSniff: Equatable {
    /// A container libsndfile reads, by name ("WAV", "FLAC", "MP3", …).
    case audio(String)
    /// A container FFmpeg reads, by name ("MP4", "Matroska", "WMA", "AAC").
    case media(String)
    /// A format neither reads, by name ("MIDI").
    case unsupported(String)
    /// Printable text: a document or a playlist, not audio.
    case text
    case unknown

    /// The container's name for messages ("MP4", "WAV"), or "audio" when not known.
    package var name: String {
        switch self {
        case .audio(let name), .media(let name), .unsupported(let name): name
        case .text, .unknown: "audio"
        }
    }

    package static func of(_ bytes: [UInt8]) -> FileSniff {
        func starts(_ ascii: String, at offset: Int = 0) -> Bool {
            let magic = Array(ascii.utf8)
            return bytes.count >= offset + magic.count && Array(bytes[offset..<(offset + magic.count)]) == magic
        }
        if starts("RIFF") || starts("RIFX") || starts("RF64") { return .audio("WAV") }
        if starts("riff") { return .audio("W64") }
        if starts("fLaC") { return .audio("FLAC") }
        if starts("OggS") { return .audio("Ogg") }
        if starts("FORM") { return .audio("AIFF") }
        if starts(".snd") { return .audio("AU") }
        if starts("caff") { return .audio("CAF") }
        if starts("ID3") { return .audio("MP3") }
        // ISO base media (MP4, M4A, MOV): a box header, `ftyp` first, or an old QuickTime
        // movie that starts with another top-level box.
        if ["ftyp", "moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { starts($0, at: 4) }) {
            return .media("MP4")
        }
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .media("Matroska") }  // EBML: MKV, WebM
        if bytes.starts(with: [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return .media("WMA") }  // ASF
        if starts("MThd") { return .unsupported("MIDI") }
        if bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0 {
            // MPEG audio sync; layer bits 00 mean ADTS AAC rather than MP1/2/3.
            return bytes[1] & 0x06 == 0 ? .media("AAC") : .audio("MP3")
        }
        // No control bytes in the first block: text (bytes >= 0x80 allowed for UTF-8).
        if !bytes.isEmpty && bytes.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || ($0 >= 32 && $0 != 127) }) {
            return .text
        }
        return .unknown
    }

    /// Stats and sniffs `path` before a decoder sees it, so the common mistakes get their
    /// own words (libsndfile calls a text file "not a regular file"). Throws for a file that
    /// cannot be read, is empty, is text or is in a format nothing here decodes.
    package static func inspect(_ path: String) throws(AudioDecodeError) -> FileSniff {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "file not found"
            throw AudioDecodeError(path: path, reason: .unreadable(reason))
        }
        defer { try? handle.close() }
        let head: Data
        do {
            head = try handle.read(upToCount: 64) ?? Data()
        } catch {
            throw AudioDecodeError(path: path, reason: .unreadable("\(error.localizedDescription)"))
        }
        if head.isEmpty { throw AudioDecodeError(path: path, reason: .empty) }
        let sniff = FileSniff.of([UInt8](head))
        switch sniff {
        case .unsupported(let name): throw AudioDecodeError(path: path, reason: .unsupported(name))
        case .text: throw AudioDecodeError(path: path, reason: .notAudio("it is a text file"))
        default: return sniff
        }
    }
}
