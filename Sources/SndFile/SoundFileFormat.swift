import CSndFile

/// The formats this project writes.
public enum SoundFileWriteFormat: String, CaseIterable, Sendable {
    /// RIFF WAV, 16-bit signed PCM.
    case wavPCM16
    /// RIFF WAV, 32-bit float.
    case wavFloat
    /// FLAC, 16-bit.
    case flac16
    /// Ogg Vorbis (lossy).
    case oggVorbis
    /// AIFF, 16-bit signed PCM.
    case aiffPCM16
    /// MPEG-1 Layer III (libsndfile 1.1+ with LAME).
    case mp3
    /// Ogg Opus (48 kHz and its divisors only).
    case opus

    /// The `SF_FORMAT_*` word for `SF_INFO.format`.
    public var formatWord: Int32 {
        switch self {
        case .wavPCM16: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        case .wavFloat: Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)
        case .flac16: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        case .oggVorbis: Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        case .aiffPCM16: Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16)
        case .mp3: Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        case .opus: Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
        }
    }
}

/// A container format libsndfile can read, as it names it.
public struct SoundFileMajorFormat: Equatable, Sendable {
    public var format: Int32
    /// e.g. "WAV (Microsoft)", "FLAC (Free Lossless Audio Codec)".
    public var name: String
    /// The usual extension, e.g. "wav".
    public var fileExtension: String
}

extension SoundFile {
    /// The container formats the linked libsndfile supports
    /// (`SFC_GET_FORMAT_MAJOR_COUNT` / `SFC_GET_FORMAT_MAJOR`).
    public static var majorFormats: [SoundFileMajorFormat] {
        var count: Int32 = 0
        sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR_COUNT), &count, Int32(MemoryLayout<Int32>.size))
        var result: [SoundFileMajorFormat] = []
        for index in 0..<max(0, count) {
            var info = SF_FORMAT_INFO(format: index, name: nil, extension: nil)
            guard sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR), &info,
                             Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0 else { continue }
            result.append(SoundFileMajorFormat(
                format: info.format,
                name: info.name.map { String(cString: $0) } ?? "?",
                fileExtension: info.extension.map { String(cString: $0) } ?? ""))
        }
        return result
    }

    /// The libsndfile version string, e.g. "libsndfile-1.2.0".
    public static var libraryVersion: String { String(cString: sf_version_string()) }
}
