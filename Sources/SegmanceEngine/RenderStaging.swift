import ALSA

/// The render thread's staging memory: the renderer's float frames and, when the device
/// takes another format, the converted bytes written to it.
struct RenderStaging {
    /// Frames `floats` and `bytes` hold: one period, or with rewinds the buffer's chunks.
    let frames: Int
    let floats: UnsafeMutablePointer<Float>
    let bytes: UnsafeMutableRawPointer
    /// Whether the floats are converted into `bytes` before the write.
    let converts: Bool
    /// What is written to the device: `bytes` after the conversion, or `floats` themselves
    /// when the device takes the renderer's own samples (FLOAT_LE on a little-endian
    /// machine), which saves a copy of every frame.
    let output: UnsafeRawPointer
    let format: PCMSampleFormat

    init(frames: Int, configuration: PCMConfiguration) {
        self.frames = frames
        format = configuration.format
        floats = .allocate(capacity: frames * 2)
        floats.initialize(repeating: 0, count: frames * 2)
        bytes = .allocate(byteCount: frames * configuration.bytesPerFrame, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: frames * configuration.bytesPerFrame)
        converts = configuration.format != .floatLE || 1.littleEndian != 1
        output = converts ? UnsafeRawPointer(bytes) : UnsafeRawPointer(floats)
    }

    func deallocate() {
        floats.deallocate()
        bytes.deallocate()
    }

    /// Converts the first `frames` staged frames for the device, when it needs that.
    @inline(__always)
    func convert(frames: Int) {
        if converts { SampleConversion.convert(floats, count: frames &* 2, to: format, into: bytes) }
    }
}
