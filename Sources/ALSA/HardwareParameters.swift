import CALSA

/// Owns a `snd_pcm_hw_params_t` (the `_alloca` macros are not importable, so malloc/free)
/// and describes the ranges it still allows, for error messages.
final class HardwareParameters {
    let handle: OpaquePointer
    private let pcm: OpaquePointer

    init(pcm: OpaquePointer, name: String) throws(ALSAError) {
        var params: OpaquePointer?
        let result = snd_pcm_hw_params_malloc(&params)
        guard result >= 0, let params else {
            throw ALSAError(function: "snd_pcm_hw_params_malloc", pcm: name, result: result < 0 ? result : -ENOMEM)
        }
        self.handle = params
        self.pcm = pcm
    }

    deinit {
        snd_pcm_hw_params_free(handle)
    }

    /// "44100...48000 Hz", or "48000 Hz" when only one rate is left.
    var offeredRates: String {
        var low: UInt32 = 0, high: UInt32 = 0, dir: Int32 = 0
        guard snd_pcm_hw_params_get_rate_min(handle, &low, &dir) >= 0,
              snd_pcm_hw_params_get_rate_max(handle, &high, &dir) >= 0 else { return "no rate" }
        return Self.range(UInt(low), UInt(high), unit: "Hz")
    }

    var offeredChannels: String {
        var low: UInt32 = 0, high: UInt32 = 0
        guard snd_pcm_hw_params_get_channels_min(handle, &low) >= 0,
              snd_pcm_hw_params_get_channels_max(handle, &high) >= 0 else { return "no channel count" }
        return Self.range(UInt(low), UInt(high), unit: "channels")
    }

    var offeredPeriodSizes: String {
        var low: snd_pcm_uframes_t = 0, high: snd_pcm_uframes_t = 0, dir: Int32 = 0
        guard snd_pcm_hw_params_get_period_size_min(handle, &low, &dir) >= 0,
              snd_pcm_hw_params_get_period_size_max(handle, &high, &dir) >= 0 else { return "no period size" }
        return Self.range(low, high, unit: "frames")
    }

    var offeredPeriodCounts: String {
        var low: UInt32 = 0, high: UInt32 = 0, dir: Int32 = 0
        guard snd_pcm_hw_params_get_periods_min(handle, &low, &dir) >= 0,
              snd_pcm_hw_params_get_periods_max(handle, &high, &dir) >= 0 else { return "no period count" }
        return Self.range(UInt(low), UInt(high), unit: "periods")
    }

    var offeredBufferSizes: String {
        var low: snd_pcm_uframes_t = 0, high: snd_pcm_uframes_t = 0
        guard snd_pcm_hw_params_get_buffer_size_min(handle, &low) >= 0,
              snd_pcm_hw_params_get_buffer_size_max(handle, &high) >= 0 else { return "no buffer size" }
        return Self.range(low, high, unit: "frames")
    }

    /// The wrapper's formats the device still accepts; when none, every format it accepts,
    /// by ALSA name, so the message says what would have to be converted.
    var offeredFormats: String {
        let ours = PCMSampleFormat.allCases.filter { accepts($0.alsaFormat) }.map(\.alsaName)
        if !ours.isEmpty { return ours.joined(separator: ", ") }
        var theirs: [String] = []
        for raw in 0...SND_PCM_FORMAT_LAST.rawValue {
            let format = snd_pcm_format_t(rawValue: raw)
            if accepts(format), let name = snd_pcm_format_name(format) {
                theirs.append(String(cString: name))
            }
        }
        return theirs.isEmpty ? "no format" : "only " + theirs.joined(separator: ", ")
    }

    private func accepts(_ format: snd_pcm_format_t) -> Bool {
        snd_pcm_hw_params_test_format(pcm, handle, format) == 0
    }

    private static func range(_ low: UInt, _ high: UInt, unit: String) -> String {
        low == high ? "\(low) \(unit)" : "\(low)...\(high) \(unit)"
    }
}

/// Owns a `snd_pcm_sw_params_t`.
final class SoftwareParameters {
    let handle: OpaquePointer

    init(name: String) throws(ALSAError) {
        var params: OpaquePointer?
        let result = snd_pcm_sw_params_malloc(&params)
        guard result >= 0, let params else {
            throw ALSAError(function: "snd_pcm_sw_params_malloc", pcm: name, result: result < 0 ? result : -ENOMEM)
        }
        self.handle = params
    }

    deinit {
        snd_pcm_sw_params_free(handle)
    }
}
