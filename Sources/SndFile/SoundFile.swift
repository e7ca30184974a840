import LinuxSystem
import CSndFile
#if canImport(Glibc)
import Glibc
#endif

/// An open libsndfile handle. Owns its `SNDFILE*`, closed in `deinit` (or by `close()`).
/// Not thread-safe: use one instance from one thread at a time.
public final class SoundFile {
    /// The path the file was opened with.
    public let path: String
    /// What libsndfile reported at open.
    public let info: SoundFileInfo
    private var handle: OpaquePointer?

    /// Opens `path` for reading, by descriptor (`open`, then `sf_open_fd`, `SFM_READ`).
    ///
    /// Not `sf_open(path)`: given a path, libsndfile looks for a resource fork beside the
    /// file (`NAME/..namedfork/rsrc`, `._NAME`, `.AppleDouble/NAME`) and, for a format it
    /// recognises only after that check (an MP3 without an ID3 tag), reads the AppleDouble
    /// sidecar macOS leaves on FAT and exFAT sticks as a Sound Designer II file and fails.
    /// Given a descriptor it knows no path, so it reads nothing but the file.
    public init(readingFrom path: String) throws(SoundFileError) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw SoundFileError(function: "open", path: path, message: SystemError.text(code), code: code)
        }
        var raw = SF_INFO()
        // close_desc = 1: the handle owns the descriptor (closed by sf_close, also on failure).
        guard let handle = sf_open_fd(fd, Int32(SFM_READ), &raw, 1) else {
            throw SoundFileError.current("sf_open_fd", path: path, handle: nil)
        }
        self.path = path
        self.handle = handle
        self.info = SoundFileInfo(raw)
    }

    /// Creates (or truncates) `path` for writing in `format`.
    public init(writingTo path: String, format: SoundFileWriteFormat,
                sampleRate: Int, channels: Int) throws(SoundFileError) {
        var raw = SF_INFO()
        raw.samplerate = Int32(sampleRate)
        raw.channels = Int32(channels)
        raw.format = format.formatWord
        guard sf_format_check(&raw) != 0 else {
            throw SoundFileError(function: "sf_format_check", path: path,
                                 message: "\(format) is invalid at \(sampleRate) Hz, \(channels) channels")
        }
        guard let handle = sf_open(path, Int32(SFM_WRITE), &raw) else {
            throw SoundFileError.current("sf_open", path: path, handle: nil)
        }
        self.path = path
        self.handle = handle
        self.info = SoundFileInfo(raw)
        if format == .oggVorbis {
            var quality = 0.6
            sf_command(handle, Int32(SFC_SET_VBR_ENCODING_QUALITY), &quality,
                       Int32(MemoryLayout<Double>.size))
        }
    }

    deinit {
        if let handle { sf_close(handle) }
    }

    /// Closes the file, reporting a failure (which matters for writers: the last
    /// block is encoded and flushed here). Further use throws.
    public func close() throws(SoundFileError) {
        guard let handle else { return }
        self.handle = nil
        let code = sf_close(handle)
        if code != 0 {
            let text = sf_error_number(code).map { String(cString: $0) } ?? "error \(code)"
            throw SoundFileError(function: "sf_close", path: path, message: text, code: code)
        }
    }

    private func open(_ function: String) throws(SoundFileError) -> OpaquePointer {
        guard let handle else {
            throw SoundFileError(function: function, path: path, message: "file is closed")
        }
        return handle
    }

    /// libsndfile's parse log for this file (`SFC_GET_LOG_INFO`): header fields and
    /// the inconsistencies it tolerated, e.g. "data : 384000 (should be 191978)".
    public var logInfo: String {
        guard let handle else { return "" }
        var buffer = [CChar](repeating: 0, count: 8192)
        let count = Int32(buffer.count)
        buffer.withUnsafeMutableBytes { raw in
            _ = sf_command(handle, Int32(SFC_GET_LOG_INFO), raw.baseAddress, count)
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Reading

    /// Reads up to `buffer.count / channels` interleaved frames as floats in -1...1.
    /// Returns the frames read; 0 at the end. A short read with a libsndfile error throws.
    public func readFrames(into buffer: UnsafeMutableBufferPointer<Float>) throws(SoundFileError) -> Int {
        let handle = try open("sf_readf_float")
        let wanted = buffer.count / max(1, info.channels)
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        let got = sf_readf_float(handle, base, sf_count_t(wanted))
        if got < wanted, sf_error(handle) != 0 {
            throw SoundFileError.current("sf_readf_float", path: path, handle: handle)
        }
        return Int(got)
    }

    /// Reads up to `buffer.count / channels` interleaved frames as 16-bit integers.
    public func readFrames(into buffer: UnsafeMutableBufferPointer<Int16>) throws(SoundFileError) -> Int {
        let handle = try open("sf_readf_short")
        let wanted = buffer.count / max(1, info.channels)
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        let got = sf_readf_short(handle, base, sf_count_t(wanted))
        if got < wanted, sf_error(handle) != 0 {
            throw SoundFileError.current("sf_readf_short", path: path, handle: handle)
        }
        return Int(got)
    }

    /// Reads the rest of the file as interleaved floats.
    public func readAllFloat() throws(SoundFileError) -> [Float] {
        var result = reservedArray(Float.self)
        var chunk = [Float](repeating: 0, count: Self.chunkFrames * max(1, info.channels))
        while true {
            let got = try chunk.withUnsafeMutableBufferPointer { b in
                Result { () throws(SoundFileError) in try readFrames(into: b) }
            }.get()
            if got == 0 { return result }
            result.append(contentsOf: chunk[0..<(got * max(1, info.channels))])
        }
    }

    /// Reads the rest of the file as interleaved 16-bit integers.
    public func readAllInt16() throws(SoundFileError) -> [Int16] {
        var result = reservedArray(Int16.self)
        var chunk = [Int16](repeating: 0, count: Self.chunkFrames * max(1, info.channels))
        while true {
            let got = try chunk.withUnsafeMutableBufferPointer { b in
                Result { () throws(SoundFileError) in try readFrames(into: b) }
            }.get()
            if got == 0 { return result }
            result.append(contentsOf: chunk[0..<(got * max(1, info.channels))])
        }
    }

    private static let chunkFrames = 16_384

    private func reservedArray<T>(_: T.Type) -> [T] {
        var result: [T] = []
        if info.frames > 0 && info.frames < Int64(Int32.max) {
            result.reserveCapacity(Int(info.frames) * max(1, info.channels))
        }
        return result
    }

    /// Seeks to frame `frame` from the start (`sf_seek`).
    public func seek(toFrame frame: Int64) throws(SoundFileError) {
        let handle = try open("sf_seek")
        if sf_seek(handle, frame, SEEK_SET) < 0 {
            throw SoundFileError.current("sf_seek", path: path, handle: handle)
        }
    }

    // MARK: Writing

    /// Writes interleaved float frames (nominally -1...1).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(SoundFileError) {
        let handle = try open("sf_writef_float")
        let frames = samples.count / max(1, info.channels)
        guard frames > 0, let base = samples.baseAddress else { return }
        let done = sf_writef_float(handle, base, sf_count_t(frames))
        if done != frames {
            throw SoundFileError.current("sf_writef_float", path: path, handle: handle)
        }
    }

    /// Writes interleaved 16-bit frames.
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(SoundFileError) {
        let handle = try open("sf_writef_short")
        let frames = samples.count / max(1, info.channels)
        guard frames > 0, let base = samples.baseAddress else { return }
        let done = sf_writef_short(handle, base, sf_count_t(frames))
        if done != frames {
            throw SoundFileError.current("sf_writef_short", path: path, handle: handle)
        }
    }

    /// Writes interleaved float frames.
    public func write(_ samples: [Float]) throws(SoundFileError) {
        try samples.withUnsafeBufferPointer { b in Result { () throws(SoundFileError) in try write(b) } }.get()
    }

    /// Writes interleaved 16-bit frames.
    public func write(_ samples: [Int16]) throws(SoundFileError) {
        try samples.withUnsafeBufferPointer { b in Result { () throws(SoundFileError) in try write(b) } }.get()
    }
}
