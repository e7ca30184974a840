import CALSA

extension PCMDevice {
    /// Reads up to `frames` interleaved frames in the configured format into `buffer`
    /// (`snd_pcm_readi`) and returns how many came. A blocking PCM waits for them all unless
    /// interrupted; a non-blocking one returns 0 when nothing is ready (`-EAGAIN`). An
    /// overrun throws an error with `isXrun`; pass it to `recover`.
    public func readInterleaved(into buffer: UnsafeMutableRawPointer, frames: Int) throws(ALSAError) -> Int {
        let read = snd_pcm_readi(handle, buffer, snd_pcm_uframes_t(max(0, frames)))
        if read >= 0 { return read }
        if read == -Int(EAGAIN) { return 0 }
        throw ALSAError(function: "snd_pcm_readi", pcm: name, result: Int32(truncatingIfNeeded: read))
    }
}
