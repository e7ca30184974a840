import LinuxSystem
import CLinuxI2C
#if canImport(Glibc)
import Glibc
#endif

/// `/dev/i2c-N` through the kernel's i2c-dev: I2C_SLAVE, then SMBus send-byte ioctls (what
/// a PCF8574 backpack takes, and what i2c-stub answers in the board-in-a-box VM).
public final class LinuxI2CBus: I2CBus {
    public let path: String
    public let address: UInt8
    private let fd: Int32

    /// Opens bus `number` (or a device path) and addresses the device at `address`.
    public init(path: String, address: UInt8) throws(I2CError) {
        self.path = path
        self.address = address
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw I2CError(operation: "open", path: path, address: address, errno: e,
                           reason: SystemError.text(e), available: Self.buses())
        }
        guard segmance_i2c_set_address(fd, Int(address)) == 0 else {
            let e = errno
            close(fd)
            throw I2CError(operation: "ioctl(I2C_SLAVE)", path: path, address: address, errno: e,
                           reason: SystemError.text(e))
        }
        self.fd = fd
    }

    public convenience init(bus: Int, address: UInt8) throws(I2CError) {
        try self.init(path: "/dev/i2c-\(bus)", address: address)
    }

    deinit { close(fd) }

    public func sendByte(_ byte: UInt8) throws(I2CError) {
        guard segmance_smbus_send_byte(fd, byte) == 0 else {
            let e = errno
            throw I2CError(operation: "ioctl(I2C_SMBUS send byte)", path: path, address: address, errno: e,
                           reason: SystemError.text(e))
        }
    }

    /// The /dev/i2c-* nodes that exist.
    public static func buses(in directory: String = "/dev") -> [String] {
        let names = (try? Directory(directory).names()) ?? []
        return names.filter { $0.hasPrefix("i2c-") }.map { directory + "/" + $0 }.sorted()
    }
}
