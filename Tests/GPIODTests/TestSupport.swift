import Glibc
@testable import GPIOD

/// A fresh empty directory under /tmp, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/gpiod-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
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

/// The kernel's event record the build reads, little-endian: with libgpiod 1 `struct
/// gpioevent_data` (uAPI v1: u64 timestamp, u32 id, 4 bytes padding), with libgpiod 2 `struct
/// gpio_v2_line_event` (u64 timestamp_ns, u32 id, offset, seqno, line_seqno, 6 u32 padding).
func gpioEventData(timestamp: UInt64, rising: Bool, offset: UInt32 = 0) -> [UInt8] {
    let id: UInt32 = rising ? 1 : 2 // GPIOEVENT_EVENT_RISING_EDGE, _FALLING_EDGE (same values in v2)
    let head = withUnsafeBytes(of: timestamp.littleEndian, Array.init)
        + withUnsafeBytes(of: id.littleEndian, Array.init)
    if GPIOEventReader.apiVersion == 1 { return head + [0, 0, 0, 0] }
    return head + withUnsafeBytes(of: offset.littleEndian, Array.init) + [UInt8](repeating: 0, count: 32)
}
