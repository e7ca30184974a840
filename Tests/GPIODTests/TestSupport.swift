import Glibc
@testable import GPIOD

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
