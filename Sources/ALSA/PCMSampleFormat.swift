import CALSA

/// The sample formats the wrapper hands to a PCM (all little-endian, interleaved).
public enum PCMSampleFormat: String, CaseIterable, Equatable, Hashable, Sendable {
    /// Signed 16-bit.
    case s16LE = "S16_LE"
    /// Signed 32-bit (also what most 24-bit DACs take, left-justified).
    case s32LE = "S32_LE"
    /// IEEE 754 32-bit float, nominal range -1...1.
    case floatLE = "FLOAT_LE"

    /// Bytes per sample of one channel.
    public var bytesPerSample: Int {
        switch self {
        case .s16LE: 2
        case .s32LE, .floatLE: 4
        }
    }

    /// ALSA's name for the format, as in `aplay -f` and in error messages.
    public var alsaName: String { rawValue }

    var alsaFormat: snd_pcm_format_t {
        switch self {
        case .s16LE: SND_PCM_FORMAT_S16_LE
        case .s32LE: SND_PCM_FORMAT_S32_LE
        case .floatLE: SND_PCM_FORMAT_FLOAT_LE
        }
    }
}
