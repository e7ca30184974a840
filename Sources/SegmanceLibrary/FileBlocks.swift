import LinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// Reads the file at `path` from start to end, 64 KB at a time, handing each block to `body`.
func forEachBlock(ofFile path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(SystemError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError("open", path: path) }
    defer { close(fd) }
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    defer { chunk.deallocate() }
    while true {
        let n = retryingEINTR { read(fd, chunk.baseAddress, chunk.count) }
        guard n >= 0 else { throw SystemError("read", path: path) }
        if n == 0 { return }
        body(UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
    }
}

/// fsyncs a directory, so the names created or renamed in it survive a power cut.
func syncDirectory(_ path: String) throws(SystemError) {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError("open", path: path) }
    defer { close(fd) }
    guard fsync(fd) == 0 else { throw SystemError("fsync", path: path) }
}
