/// One SMBus write as the kernel's `smbus/smbus_write` trace event prints it, e.g.
/// `smbus_write: i2c-0 a=027 f=0000 c=8 BYTE l=0 []` (a send-byte of 0x08 to 0x27 on
/// i2c-0) or `… c=10 BYTE_DATA l=1 [55]`. The event fires before the transfer, so a write
/// the device did not acknowledge is listed too.
public struct SMBusWrite: Equatable, Sendable {
    /// The adapter number: the N of `/dev/i2c-N`.
    public var adapter: Int
    /// The device address.
    public var address: Int
    /// The client flags (`f=`), hexadecimal in the trace.
    public var flags: Int
    /// The command byte; for a send-byte (`BYTE`) it is the byte sent.
    public var command: UInt8
    /// The transaction kind: `BYTE`, `BYTE_DATA`, `WORD_DATA`, `BLOCK_DATA`, …
    public var kind: String
    /// The data bytes after the command.
    public var data: [UInt8]

    public init(adapter: Int, address: Int, flags: Int = 0, command: UInt8, kind: String, data: [UInt8] = []) {
        self.adapter = adapter
        self.address = address
        self.flags = flags
        self.command = command
        self.kind = kind
        self.data = data
    }
}

/// A trace that cannot be decoded: the line and why.
public struct SMBusTraceError: Error, Equatable, CustomStringConvertible {
    /// 1-based line number in the trace text.
    public var line: Int
    public var reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "smbus trace line \(line): \(reason)" }
}

/// Reads the bytes an I2C device received back out of the kernel's trace
/// (`/sys/kernel/tracing/trace` with `events/smbus/smbus_write` enabled). In the board in a
/// box, i2c-stub acknowledges an LCD backpack's send-byte writes but keeps no record of
/// them; the trace does, and `HD44780Model` turns the bytes into the screen they draw.
public enum SMBusTrace {
    /// Every `smbus_write` event in `text`, in order; other lines are skipped. A trace that
    /// lost events (the ring buffer overran) or a malformed event is an error: decoding an
    /// LCD from an incomplete byte stream would draw a wrong screen.
    public static func parse(_ text: String) throws(SMBusTraceError) -> [SMBusWrite] {
        var writes: [SMBusWrite] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.contains("LOST") && line.contains("EVENTS") {
                throw SMBusTraceError(line: index + 1, reason: "the trace lost events: \(line)")
            }
            guard let marker = line.firstRange(of: "smbus_write: ") else { continue }
            writes.append(try write(line[marker.upperBound...], line: index + 1))
        }
        return writes
    }

    /// The bytes sent to `address` on `adapter` with SMBus send-byte, in order: what a
    /// PCF8574 backpack put on its pins.
    public static func sentBytes(_ writes: [SMBusWrite], adapter: Int, address: Int) -> [UInt8] {
        writes.filter { $0.adapter == adapter && $0.address == address && $0.kind == "BYTE" }.map(\.command)
    }

    /// `i2c-0 a=027 f=0000 c=8 BYTE l=0 []`
    private static func write(_ fields: Substring, line: Int) throws(SMBusTraceError) -> SMBusWrite {
        func fail(_ reason: String) -> SMBusTraceError {
            SMBusTraceError(line: line, reason: "\(reason) in \"smbus_write: \(fields)\"")
        }
        let parts = fields.split(separator: " ", maxSplits: 5)
        guard parts.count == 6 else { throw fail("expected 6 fields") }
        func number(_ field: Substring, _ prefix: String, radix: Int) throws(SMBusTraceError) -> Int {
            guard field.hasPrefix(prefix), let value = Int(field.dropFirst(prefix.count), radix: radix) else {
                throw fail("expected \(prefix)<number>, found \"\(field)\"")
            }
            return value
        }
        let adapter = try number(parts[0], "i2c-", radix: 10)
        let address = try number(parts[1], "a=", radix: 16)
        let flags = try number(parts[2], "f=", radix: 16)
        let command = try number(parts[3], "c=", radix: 16)
        guard command <= 0xFF else { throw fail("command \(parts[3]) is more than a byte") }
        let rest = parts[5].split(separator: " ", maxSplits: 1)
        guard rest.count == 2 else { throw fail("expected l=<length> [<data>]") }
        let length = try number(rest[0], "l=", radix: 10)
        guard rest[1].hasPrefix("["), rest[1].hasSuffix("]") else { throw fail("expected [<data>]") }
        let hex = rest[1].dropFirst().dropLast()
        var data: [UInt8] = []
        for byte in hex.split(separator: "-") {
            guard let value = UInt8(byte, radix: 16) else { throw fail("data byte \"\(byte)\" is not hexadecimal") }
            data.append(value)
        }
        guard data.count == length else { throw fail("l=\(length) but \(data.count) data bytes") }
        return SMBusWrite(adapter: adapter, address: address, flags: flags, command: UInt8(command),
                          kind: String(parts[4]), data: data)
    }
}
