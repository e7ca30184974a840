#if canImport(Glibc)
import Glibc
#endif

/// A system call failed: which call, on which path, errno and its `strerror` text.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public var function: String
    public var path: String
    public var code: Int32
    /// Replaces the strerror text when the failure needs a more specific explanation.
    public var note: String?

    public init(_ function: String, path: String, code: Int32 = errno) {
        self.function = function
        self.path = path
        self.code = code
    }

    public var message: String { note ?? String(cString: strerror(code)) }

    /// True when the file system is out of space or over a size limit.
    public var isDiskFull: Bool { code == ENOSPC || code == EFBIG || code == EDQUOT }

    public var description: String { "\(function)(\(path)): \(message)" }
}

/// Retries a system call interrupted by a signal.
@inline(__always)
func retryingEINTR<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}

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

/// The names in `directory` but "." and ".." (none when it cannot be read).
package func directoryNames(_ directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
