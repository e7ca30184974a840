import Glibc

/// A fresh empty directory under /tmp, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/gpiod-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: template)
    }

    func touch(_ name: String) {
        let fd = open(path + "/" + name, O_CREAT | O_WRONLY, 0o644)
        precondition(fd >= 0, "cannot create \(name)")
        close(fd)
    }

    func remove() {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}

/// A pipe standing in for a GPIO line event fd.
struct Pipe {
    let read: Int32
    let write: Int32

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe failed")
        read = fds[0]
        write = fds[1]
    }

    func close() {
        Glibc.close(read)
        Glibc.close(write)
    }

    /// Writes bytes, all of them.
    func send(_ bytes: [UInt8]) {
        let written = bytes.withUnsafeBytes { Glibc.write(write, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "short write")
    }
}

/// The kernel's `struct gpioevent_data` (GPIO uAPI v1): u64 timestamp, u32 id, 4 bytes padding.
func gpioEventData(timestamp: UInt64, rising: Bool) -> [UInt8] {
    let id: UInt32 = rising ? 1 : 2 // GPIOEVENT_EVENT_RISING_EDGE, _FALLING_EDGE
    return withUnsafeBytes(of: timestamp.littleEndian, Array.init)
        + withUnsafeBytes(of: id.littleEndian, Array.init)
        + [0, 0, 0, 0]
}
