import SndFile

/// Which files the stick scanner treats as audio, and how to name the ones it cannot play.
public enum AudioFormats {
    /// Extensions (lower case) of files decoded: by libsndfile 1.2 (WAV, FLAC, Ogg, Opus,
    /// MP3, AIFF, …) or by FFmpeg (AAC and ALAC in MP4, the audio of MP4/MOV/MKV/WebM
    /// videos, WMA). `.m4p` is listed so that a copy-protected purchase is named as such.
    /// Which decoder reads a file is decided by its content, not by this list.
    public static let playableExtensions: Set<String> = [
        "wav", "wave", "flac", "ogg", "oga", "opus", "mp3", "aif", "aiff", "aifc",
        "au", "snd", "w64", "caf",
        "m4a", "m4b", "m4p", "mp4", "m4v", "mov", "aac", "mkv", "mka", "webm", "wma",
    ]

    /// Common audio formats not decoded, by extension, with a readable name.
    public static let unsupportedExtensions: [String: String] = [
        "ape": "Monkey's Audio", "wv": "WavPack", "ac3": "AC-3", "mid": "MIDI", "midi": "MIDI", "amr": "AMR",
    ]

    /// The formats named in messages, as a performer knows them.
    public static let supportedSummary =
        "MP3, AAC/ALAC (.m4a), WAV, FLAC, Ogg Vorbis, Opus, AIFF, WMA, the sound of MP4/MOV/MKV/WebM videos"

    /// The reason text for an unsupported format.
    public static func unsupportedReason(_ name: String) -> String {
        "unsupported format (\(name)); supported: \(supportedSummary)"
    }

    /// The lower-cased extension of a file name ("" when none).
    public static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    /// Container names libsndfile reports (`SFC_GET_FORMAT_MAJOR`), for diagnostics.
    public static var libraryFormats: [String] { SoundFile.majorFormats.map(\.name) }
}
