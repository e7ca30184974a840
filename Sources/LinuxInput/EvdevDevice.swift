import Glibc

/// An evdev node (`/dev/input/eventN`) open read-only and non-blocking. Closes it on deinit.
///
/// Used from one thread at a time; it may move between threads.
public final class EvdevDevice: @unchecked Sendable {
    public let path: String
    /// The descriptor, for poll(2).
    public let fileDescriptor: Int32
    /// The device's name (`EVIOCGNAME`), e.g. "PCsensor FootSwitch"; nil when the file is
    /// not an evdev node (a FIFO or file standing in for one).
    public let name: String?
    /// Whether timestamps are on CLOCK_MONOTONIC, like GPIO edges (`EVIOCSCLOCKID`);
    /// otherwise they are on the kernel's default, CLOCK_REALTIME.
    public let monotonicTimestamps: Bool
    public let layout: InputEvent.Layout
    private var pending: [UInt8] = []
    private var buffer: [UInt8]

    /// Opens `path` read-only and non-blocking, reads its name and asks for monotonic timestamps.
    public init(path: String, layout: InputEvent.Layout = .native) throws {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw InputError.system(function: "open", path: path, errno: errno) }
        self.path = path
        self.fileDescriptor = fd
        self.layout = layout
        self.name = Self.name(of: fd)
        var clock = CLOCK_MONOTONIC
        self.monotonicTimestamps = ioctl(fd, IOControl.evdevSetClock, &clock) == 0
        self.buffer = [UInt8](repeating: 0, count: 64 * layout.size)
    }

    deinit {
        close(fileDescriptor)
    }

    /// The name of the evdev node at `path`, or nil if it cannot be opened or is not one.
    public static func name(at path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return name(of: fd)
    }

    static func name(of fd: Int32) -> String? {
        var bytes = [UInt8](repeating: 0, count: 256)
        let length = bytes.withUnsafeMutableBytes {
            ioctl(fd, IOControl.evdevGetName(length: $0.count), $0.baseAddress!)
        }
        guard length >= 0 else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Every event pending now, oldest first; empty when none is. Never blocks.
    /// An unplugged device throws an error whose `isDisconnect` is true.
    public func readEvents() throws -> [InputEvent] {
        var events: [InputEvent] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let error = errno
                if error == EINTR { continue }
                if error == EAGAIN || error == EWOULDBLOCK { return events }
                throw InputError.system(function: "read", path: path, errno: error)
            }
            // End of file: a FIFO with no writer or a file read to its end. A device never ends.
            if count == 0 { return events }
            pending += buffer.prefix(count)
            // evdev hands out whole records; a pipe or file may split one across reads.
            let consumed = pending.withUnsafeBytes { bytes in
                let decoded = InputEvent.decode(bytes, layout: layout)
                events += decoded.events
                return decoded.consumed
            }
            pending.removeFirst(consumed)
        }
    }

    /// Takes the device's events for this process alone (`EVIOCGRAB`), so a presenter
    /// remote or pedal that is a keyboard does not also type into the console's login prompt.
    /// Closing the device gives them back.
    public func grab() throws {
        guard ioctl(fileDescriptor, IOControl.evdevGrab, 1) == 0 else {
            throw InputError.system(function: "ioctl(EVIOCGRAB)", path: path, errno: errno)
        }
    }

    /// The keys held down now (`EVIOCGKEY`), to resynchronise after `SYN_DROPPED`.
    public func pressedKeys() throws -> Set<UInt16> {
        var bits = [UInt8](repeating: 0, count: 96) // KEY_MAX 0x2ff + 1 bits
        let result = bits.withUnsafeMutableBytes {
            ioctl(fileDescriptor, IOControl.evdevGetKeyState(length: $0.count), $0.baseAddress!)
        }
        guard result >= 0 else { throw InputError.system(function: "ioctl(EVIOCGKEY)", path: path, errno: errno) }
        var keys: Set<UInt16> = []
        for (index, byte) in bits.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << bit) != 0 {
                keys.insert(UInt16(index * 8 + bit))
            }
        }
        return keys
    }
}
