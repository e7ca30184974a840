import CALSA

extension PCMDevice {
    /// Sets hardware and software parameters and returns what the device granted.
    ///
    /// Access is RW interleaved. Format, channels and rate must be met exactly (a `plug`
    /// PCM converts; with `allowResampling` it also resamples). Period and buffer sizes are
    /// the nearest the device can do. Software parameters: start threshold = the buffer
    /// size unless set, avail_min = one period unless set. A PCM that is running is stopped
    /// first (`snd_pcm_drop`), so a device can be reconfigured at any time.
    ///
    /// When the device refuses something the error names the call, what was asked and
    /// what the device offers given what was already set, e.g.
    /// `snd_pcm_hw_params_set_rate(hw:0): Invalid argument — rate 96000 Hz refused; device offers 44100...48000 Hz`.
    @discardableResult
    public func configure(_ request: PCMConfiguration) throws(ALSAError) -> PCMConfiguration {
        switch state {
        case .open, .setup, .prepared: break
        default: try drop()
        }
        let hw = try HardwareParameters(pcm: handle, name: name)
        try check(snd_pcm_hw_params_any(handle, hw.handle), "snd_pcm_hw_params_any",
                  detail: "the PCM has no usable configuration")
        try check(snd_pcm_hw_params_set_rate_resample(handle, hw.handle, request.allowResampling ? 1 : 0),
                  "snd_pcm_hw_params_set_rate_resample")
        try check(snd_pcm_hw_params_set_access(handle, hw.handle, SND_PCM_ACCESS_RW_INTERLEAVED),
                  "snd_pcm_hw_params_set_access", detail: "interleaved read/write access refused")
        try check(snd_pcm_hw_params_set_format(handle, hw.handle, request.format.alsaFormat),
                  "snd_pcm_hw_params_set_format",
                  detail: "format \(request.format.alsaName) refused; device offers \(hw.offeredFormats)")
        try check(snd_pcm_hw_params_set_channels(handle, hw.handle, UInt32(clamping: request.channels)),
                  "snd_pcm_hw_params_set_channels",
                  detail: "\(request.channels) channels refused; device offers \(hw.offeredChannels)")
        try check(snd_pcm_hw_params_set_rate(handle, hw.handle, UInt32(clamping: request.rate), 0),
                  "snd_pcm_hw_params_set_rate",
                  detail: "rate \(request.rate) Hz refused; device offers \(hw.offeredRates)")

        var period = snd_pcm_uframes_t(clamping: request.periodFrames)
        var dir: Int32 = 0
        try check(snd_pcm_hw_params_set_period_size_near(handle, hw.handle, &period, &dir),
                  "snd_pcm_hw_params_set_period_size_near",
                  detail: "period of \(request.periodFrames) frames refused; device offers \(hw.offeredPeriodSizes)")
        if let bufferFrames = request.bufferFrames {
            var buffer = snd_pcm_uframes_t(clamping: bufferFrames)
            try check(snd_pcm_hw_params_set_buffer_size_near(handle, hw.handle, &buffer),
                      "snd_pcm_hw_params_set_buffer_size_near",
                      detail: "buffer of \(bufferFrames) frames refused; device offers \(hw.offeredBufferSizes)")
        } else {
            var periods = UInt32(clamping: request.periodCount)
            try check(snd_pcm_hw_params_set_periods_near(handle, hw.handle, &periods, &dir),
                      "snd_pcm_hw_params_set_periods_near",
                      detail: "\(request.periodCount) periods refused; device offers \(hw.offeredPeriodCounts)")
        }
        try check(snd_pcm_hw_params(handle, hw.handle), "snd_pcm_hw_params",
                  detail: "could not install \(Self.summary(request))")

        var granted = request
        try readBack(hw, into: &granted)
        try applySoftwareParameters(request, granted: &granted)
        configuration = granted
        return granted
    }

    private func readBack(_ hw: HardwareParameters, into granted: inout PCMConfiguration) throws(ALSAError) {
        var channels: UInt32 = 0, rate: UInt32 = 0, periods: UInt32 = 0, dir: Int32 = 0
        var period: snd_pcm_uframes_t = 0, buffer: snd_pcm_uframes_t = 0
        try check(snd_pcm_hw_params_get_channels(hw.handle, &channels), "snd_pcm_hw_params_get_channels")
        try check(snd_pcm_hw_params_get_rate(hw.handle, &rate, &dir), "snd_pcm_hw_params_get_rate")
        try check(snd_pcm_hw_params_get_period_size(hw.handle, &period, &dir), "snd_pcm_hw_params_get_period_size")
        try check(snd_pcm_hw_params_get_buffer_size(hw.handle, &buffer), "snd_pcm_hw_params_get_buffer_size")
        // Not every PCM reports an integral period count; derive it from the sizes then.
        if snd_pcm_hw_params_get_periods(hw.handle, &periods, &dir) < 0 || periods == 0 {
            periods = UInt32(clamping: period == 0 ? 0 : buffer / period)
        }
        granted.channels = Int(channels)
        granted.rate = Int(rate)
        granted.periodFrames = Int(period)
        granted.periodCount = Int(periods)
        granted.bufferFrames = Int(buffer)
    }

    private func applySoftwareParameters(_ request: PCMConfiguration,
                                         granted: inout PCMConfiguration) throws(ALSAError) {
        let sw = try SoftwareParameters(name: name)
        let buffer = granted.bufferFrames ?? granted.requestedBufferFrames
        let start = request.startThreshold ?? buffer
        let availMin = request.availMin ?? granted.periodFrames
        try check(snd_pcm_sw_params_current(handle, sw.handle), "snd_pcm_sw_params_current")
        try check(snd_pcm_sw_params_set_start_threshold(handle, sw.handle, snd_pcm_uframes_t(clamping: start)),
                  "snd_pcm_sw_params_set_start_threshold",
                  detail: "start threshold of \(start) frames refused (buffer is \(buffer) frames)")
        try check(snd_pcm_sw_params_set_avail_min(handle, sw.handle, snd_pcm_uframes_t(clamping: availMin)),
                  "snd_pcm_sw_params_set_avail_min",
                  detail: "avail_min of \(availMin) frames refused (buffer is \(buffer) frames)")
        try check(snd_pcm_sw_params(handle, sw.handle), "snd_pcm_sw_params",
                  detail: "could not install start threshold \(start), avail_min \(availMin)")

        var grantedStart: snd_pcm_uframes_t = 0, grantedAvail: snd_pcm_uframes_t = 0
        try check(snd_pcm_sw_params_get_start_threshold(sw.handle, &grantedStart),
                  "snd_pcm_sw_params_get_start_threshold")
        try check(snd_pcm_sw_params_get_avail_min(sw.handle, &grantedAvail), "snd_pcm_sw_params_get_avail_min")
        granted.startThreshold = Int(grantedStart)
        granted.availMin = Int(grantedAvail)
    }

    private static func summary(_ request: PCMConfiguration) -> String {
        let buffer = request.bufferFrames.map { "buffer \($0) frames" } ?? "\(request.periodCount) periods"
        return "\(request.format.alsaName) \(request.channels) ch \(request.rate) Hz, "
            + "period \(request.periodFrames) frames, \(buffer)"
    }
}
