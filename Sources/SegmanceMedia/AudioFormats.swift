import SndFile

/// Which files the stick scanner treats as audio, and how to name the ones it cannot play.
public enum AudioFormats {
    /// Extensions (lower case) of files libsndfile 1.2 decodes.
    public static let playableExtensions: Set<String> = [
        "wav", "wave", "flac", "ogg", "oga", "opus", "mp3", "aif", "aiff", "aifc",
        "au", "snd", "w64", "caf",
    ]

    /// Common audio formats libsndfile cannot decode, by extension, with a readable name.
    public static let unsupportedExtensions: [String: String] = [
        "m4a": "AAC/M4A", "m4b": "AAC/M4A", "mp4": "AAC/M4A", "aac": "AAC", "alac": "ALAC",
        "wma": "WMA", "ape": "Monkey's Audio", "wv": "WavPack", "ac3": "AC-3",
        "mka": "Matroska", "webm": "WebM", "mid": "MIDI", "midi": "MIDI", "amr": "AMR",
    ]

    /// The formats named in messages, as a performer knows them.
    public static let supportedSummary = "WAV, FLAC, Ogg Vorbis, Opus, MP3, AIFF, AU, W64, CAF"

    /// The reason text for an unsupported format.
    public static func unsupportedReason(_ name: String) -> String {
        "unsupported format (\(name)); supported: \(supportedSummary)"
    }

    /// The lower-cased extension of a file name ("" when none).
    static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    /// Container names libsndfile reports (`SFC_GET_FORMAT_MAJOR`), for diagnostics.
    public static var libraryFormats: [String] { SoundFile.majorFormats.map(\.name) }
}

/// What the first bytes of a file say it is.
enum FileSniff: Equatable {
    /// A container libsndfile reads, by name ("WAV", "FLAC", …).
    case audio(String)
    /// A format libsndfile cannot read, by name ("AAC/M4A", "WMA").
    case unsupported(String)
    /// Printable text: a document or a playlist, not audio.
    case text
    case unknown

    static func of(_ bytes: [UInt8]) -> FileSniff {
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
        if starts("ftyp", at: 4) { return .unsupported("AAC/M4A") }
        if bytes.starts(with: [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return .unsupported("WMA") }
        if bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0 {
            // MPEG audio sync; layer bits 00 mean ADTS AAC rather than MP1/2/3.
            return bytes[1] & 0x06 == 0 ? .unsupported("AAC") : .audio("MP3")
        }
        // No control bytes in the first block: text (bytes >= 0x80 allowed for UTF-8).
        if !bytes.isEmpty && bytes.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || ($0 >= 32 && $0 != 127) }) {
            return .text
        }
        return .unknown
    }
}
