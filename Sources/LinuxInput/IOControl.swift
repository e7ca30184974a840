/// ioctl request numbers, computed as the kernel's `_IOC` macros do
/// (`dir << 30 | size << 16 | type << 8 | nr`, the generic layout of x86 and ARM).
public enum IOControl {
    /// `_IOC_NONE`, `_IOC_WRITE`, `_IOC_READ`.
    public static let none: UInt = 0
    public static let write: UInt = 1
    public static let read: UInt = 2

    /// `_IOC(direction, type, number, size)`.
    public static func request(direction: UInt, type: Character, number: UInt8, size: Int) -> UInt {
        precondition(size < 1 << 14, "ioctl argument size exceeds _IOC_SIZEBITS")
        let typeCode = UInt(type.asciiValue ?? 0)
        return direction << 30 | UInt(size) << 16 | typeCode << 8 | UInt(number)
    }

    /// `EVIOCGNAME(len)`: read the device name into a buffer of `length` bytes.
    public static func evdevGetName(length: Int) -> UInt {
        request(direction: read, type: "E", number: 0x06, size: length)
    }

    /// `EVIOCGKEY(len)`: read the bitmap of keys held down now.
    public static func evdevGetKeyState(length: Int) -> UInt {
        request(direction: read, type: "E", number: 0x18, size: length)
    }

    /// `EVIOCSCLOCKID`: choose the clock of event timestamps (takes an `int`).
    public static let evdevSetClock = request(direction: write, type: "E", number: 0xa0,
                                              size: MemoryLayout<Int32>.size)

    /// `EVIOCGRAB`: take (1) or give back (0) exclusive use of the device's events.
    public static let evdevGrab = request(direction: write, type: "E", number: 0x90,
                                          size: MemoryLayout<Int32>.size)
}
