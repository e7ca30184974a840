import Glibc
import LinuxInput

/// A virtual input device made through /dev/uinput: a USB foot pedal that is plugged in
/// when made and pulled out by `unplug()` (or when the object goes).
final class UInputDevice {
    private var fd: Int32

    static let eventKey: Int32 = 0x01
    static let busUSB: UInt16 = 0x03

    // uinput's ioctls (linux/uinput.h).
    static let setEventBit = IOControl.request(direction: IOControl.write, type: "U", number: 100, size: 4)
    static let setKeyBit = IOControl.request(direction: IOControl.write, type: "U", number: 101, size: 4)
    /// `struct uinput_setup { struct input_id id; char name[80]; u32 ff_effects_max; }`
    static let setupSize = 8 + 80 + 4
    static let setup = IOControl.request(direction: IOControl.write, type: "U", number: 3, size: setupSize)
    static let create = IOControl.request(direction: IOControl.none, type: "U", number: 1, size: 0)
    static let destroy = IOControl.request(direction: IOControl.none, type: "U", number: 2, size: 0)

    /// Creates the device with `keys`; its evdev node appears in /dev/input.
    init(name: String, vendor: UInt16, product: UInt16, keys: [UInt16]) throws {
        fd = open("/dev/uinput", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BoxError("open /dev/uinput: \(String(cString: strerror(errno)))") }
        try check(ioctl(fd, Self.setEventBit, Self.eventKey), "UI_SET_EVBIT")
        for key in keys { try check(ioctl(fd, Self.setKeyBit, Int32(key)), "UI_SET_KEYBIT") }
        var setup = [UInt8](repeating: 0, count: Self.setupSize)
        for (offset, value) in [(0, Self.busUSB), (2, vendor), (4, product), (6, UInt16(1))] {
            setup[offset] = UInt8(value & 0xFF)
            setup[offset + 1] = UInt8(value >> 8)
        }
        for (index, byte) in name.utf8.prefix(79).enumerated() { setup[8 + index] = byte }
        try check(setup.withUnsafeMutableBytes { ioctl(fd, Self.setup, $0.baseAddress!) }, "UI_DEV_SETUP")
        try check(ioctl(fd, Self.create), "UI_DEV_CREATE")
    }

    deinit { unplug() }

    /// A key going down or up, then the report that ends the change.
    func key(_ code: UInt16, down: Bool) throws {
        try emit(InputEvent(seconds: 0, microseconds: 0, type: InputEvent.key, code: code, value: down ? 1 : 0))
        try emit(InputEvent(seconds: 0, microseconds: 0, type: InputEvent.synchronization,
                            code: InputEvent.synReport, value: 0))
    }

    /// Pulls the device out: its node goes away, readers get ENODEV.
    func unplug() {
        guard fd >= 0 else { return }
        _ = ioctl(fd, Self.destroy)
        close(fd)
        fd = -1
    }

    private func emit(_ event: InputEvent) throws {
        let bytes = event.encoded()
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw BoxError("write to /dev/uinput: \(String(cString: strerror(errno)))")
        }
    }

    private func check(_ result: Int32, _ call: String) throws {
        guard result >= 0 else { throw BoxError("ioctl(\(call)) on /dev/uinput: \(String(cString: strerror(errno)))") }
    }
}
