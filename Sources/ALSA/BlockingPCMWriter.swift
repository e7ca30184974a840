import CALSA

/// Simple blocking playback of interleaved Float32 samples on a configured `PCMDevice`:
/// converts to the device format in a buffer allocated once, writes everything (looping on
/// short writes, waiting when a non-blocking PCM is full) and recovers from xruns and
/// suspends, counting them. For the interactive simulator, not the real-time engine.
///
/// A class because it owns its conversion buffer; one thread uses it at a time, so it can be
/// handed to a playback thread (`@unchecked Sendable`).
public final class BlockingPCMWriter: @unchecked Sendable {
    /// The device written to.
    public let device: PCMDevice
    /// The device's granted configuration, read when the writer was made.
    public let configuration: PCMConfiguration
    /// Frames converted and written per step; the buffer holds this many.
    public let chunkFrames: Int
    /// Underruns recovered from so far.
    public private(set) var xrunCount = 0
    /// Suspends recovered from so far.
    public private(set) var suspendCount = 0
    /// Frames the device has accepted so far.
    public private(set) var framesWritten = 0

    private let buffer: UnsafeMutableRawPointer

    /// Makes a writer for a device that `configure` has set up.
    /// `chunkFrames` defaults to the device's buffer size.
    public init(device: PCMDevice, chunkFrames: Int? = nil) throws(ALSAError) {
        guard let configuration = device.configuration else {
            throw ALSAError(function: "BlockingPCMWriter.init", pcm: device.name, result: -EBADFD,
                            detail: "configure the PCM before making a writer")
        }
        self.device = device
        self.configuration = configuration
        self.chunkFrames = max(1, chunkFrames ?? configuration.requestedBufferFrames)
        self.buffer = UnsafeMutableRawPointer.allocate(byteCount: self.chunkFrames * configuration.bytesPerFrame,
                                                       alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// Converts and writes interleaved samples; the count must be a whole number of frames.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(ALSAError) {
        let channels = configuration.channels
        precondition(samples.count % channels == 0,
                     "\(samples.count) samples is not a whole number of \(channels)-channel frames")
        guard let base = samples.baseAddress else { return }
        let frames = samples.count / channels
        var frame = 0
        while frame < frames {
            let chunk = min(chunkFrames, frames - frame)
            SampleConversion.convert(base + frame * channels, count: chunk * channels,
                                     to: configuration.format, into: buffer)
            try writeConverted(frames: chunk)
            frame += chunk
        }
    }

    /// Converts and writes interleaved samples; the count must be a whole number of frames.
    public func write(_ samples: [Float]) throws(ALSAError) {
        try samples.withUnsafeBufferPointer { pointer in Result { () throws(ALSAError) in try write(pointer) } }.get()
    }

    /// Waits until everything written has been played (`snd_pcm_drain`).
    public func drain() throws(ALSAError) {
        try device.drain()
    }

    private func writeConverted(frames: Int) throws(ALSAError) {
        let bytesPerFrame = configuration.bytesPerFrame
        var done = 0
        while done < frames {
            let result = device.rawWriteInterleaved(buffer + done * bytesPerFrame, frames: frames - done)
            if result > 0 {
                done += result
                framesWritten += result
                continue
            }
            let code = Int32(truncatingIfNeeded: result)
            if result == 0 || code == -EAGAIN {
                _ = try device.wait()
                continue
            }
            if code == -EPIPE { xrunCount += 1 }
            if code == -ESTRPIPE { suspendCount += 1 }
            // snd_pcm_recover handles EPIPE, ESTRPIPE and EINTR, and hands anything else back.
            let recovered = device.rawRecover(code)
            if recovered < 0 {
                throw ALSAError(function: "snd_pcm_writei", pcm: device.name, result: code)
            }
        }
    }
}
