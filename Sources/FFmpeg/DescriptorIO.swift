import LinuxSystem
import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// A custom `AVIOContext` reading one open file descriptor: FFmpeg reads the file through
/// it and nothing else (no protocol, no path, no sibling file). Owns the descriptor, the
/// context and its buffer; all freed in `deinit`.
final class DescriptorIO {
    /// The context to hand to `AVFormatContext.pb`.
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    /// The descriptor, where the callbacks find it (the context's `opaque`).
    private let descriptor: UnsafeMutablePointer<Int32>

    private static let bufferSize = 64 * 1024

    init(path: String) throws(FFmpegError) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw FFmpegError(function: "open", path: path, message: SystemError.text(code),
                              code: cffmpeg_error_posix(code))
        }
        descriptor = .allocate(capacity: 1)
        descriptor.initialize(to: fd)
        guard let buffer = av_malloc(Self.bufferSize) else {
            throw FFmpegError(code: cffmpeg_error_posix(ENOMEM), function: "av_malloc", path: path)
        }
        guard let io = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(Self.bufferSize), 0,
                                          descriptor, readDescriptor, nil, seekDescriptor) else {
            av_free(buffer)
            throw FFmpegError(code: cffmpeg_error_posix(ENOMEM), function: "avio_alloc_context", path: path)
        }
        context = io
    }

    deinit {
        if context != nil {
            // The context may have replaced its buffer: free the one it holds now.
            av_freep(&context!.pointee.buffer)
            avio_context_free(&context)
        }
        Glibc.close(descriptor.pointee)
        descriptor.deallocate()
    }
}

private func readDescriptor(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?,
                            _ size: Int32) -> Int32 {
    guard let opaque, let buffer, size > 0 else { return cffmpeg_error_posix(EINVAL) }
    let fd = opaque.load(as: Int32.self)
    while true {
        let got = Glibc.read(fd, buffer, Int(size))
        if got > 0 { return Int32(got) }
        if got == 0 { return cffmpeg_error_eof() }
        if errno != EINTR { return cffmpeg_error_posix(errno) }
    }
}

private func seekDescriptor(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
    guard let opaque else { return Int64(cffmpeg_error_posix(EINVAL)) }
    let fd = opaque.load(as: Int32.self)
    if whence & AVSEEK_SIZE != 0 {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int64(info.st_size) : Int64(cffmpeg_error_posix(errno))
    }
    let position = lseek(fd, off_t(offset), whence & ~AVSEEK_FORCE)
    return position < 0 ? Int64(cffmpeg_error_posix(errno)) : Int64(position)
}
