/// Something that carries SMBus "send byte" transactions to one device.
public protocol I2CBus: AnyObject {
    func sendByte(_ byte: UInt8) throws(I2CError)
}

/// An I2C failure, naming the bus, the address and the operation.
public struct I2CError: Error, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var address: UInt8
    public var errno: Int32
    public var reason: String
    /// Buses that do exist, listed when the one asked for is missing.
    public var available: [String]

    public init(operation: String, path: String, address: UInt8, errno: Int32, reason: String, available: [String] = [])
    {
        self.operation = operation
        self.path = path
        self.address = address
        self.errno = errno
        self.reason = reason
        self.available = available
    }

    public var description: String {
        let hex = String(address, radix: 16)
        var text = "\(operation) on \(path) at 0x\(hex.count < 2 ? "0" : "")\(hex): \(reason)"
        if operation == "open" {
            text += available.isEmpty ? "; no I2C buses exist (is i2c-dev loaded, I2C enabled?)"
                : "; buses present: \(available.joined(separator: ", "))"
        }
        return text
    }
}

/// A test double that records every byte sent.
public final class RecordingI2CBus: I2CBus {
    public private(set) var bytes: [UInt8] = []
    /// When set, every send fails with this error (a display that stopped answering).
    public var failure: I2CError?

    public init() {}

    public func sendByte(_ byte: UInt8) throws(I2CError) {
        if let failure { throw failure }
        bytes.append(byte)
    }

    public func clear() { bytes.removeAll() }
}
