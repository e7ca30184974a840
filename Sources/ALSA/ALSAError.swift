import CALSA

/// An error returned by alsa-lib, with enough context to act on it from a log line.
///
/// `description` reads like
/// `snd_pcm_hw_params_set_rate(hw:0): Invalid argument — rate 96000 Hz refused; device offers 44100...48000 Hz`.
public struct ALSAError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The alsa-lib function that failed, e.g. `snd_pcm_writei`.
    public var function: String
    /// The PCM (or card) the call was made on.
    public var pcm: String
    /// The positive errno value (alsa-lib returns it negated), e.g. `EPIPE` for an xrun.
    public var code: Int32
    /// What was refused and what the device offers, when known.
    public var detail: String?

    /// Creates an error from an alsa-lib result; `result` may be negative (as returned) or positive.
    public init(function: String, pcm: String, result: Int32, detail: String? = nil) {
        self.function = function
        self.pcm = pcm
        self.code = result < 0 ? -result : result
        self.detail = detail
    }

    /// alsa-lib's text for the code (`snd_strerror`).
    public var message: String {
        String(cString: snd_strerror(-code))
    }

    /// The negative value alsa-lib returned, as `snd_pcm_recover` expects it.
    public var alsaResult: Int32 { -code }

    /// An underrun (playback) or overrun (capture): `recover` re-prepares the PCM.
    public var isXrun: Bool { code == EPIPE }

    /// The device was suspended (system sleep): `recover` resumes or re-prepares it.
    public var isSuspended: Bool { code == ESTRPIPE }

    /// A non-blocking PCM has no room right now.
    public var isWouldBlock: Bool { code == EAGAIN }

    public var description: String {
        var text = "\(function)(\(pcm)): \(message)"
        if let detail { text += " — \(detail)" }
        return text
    }
}
