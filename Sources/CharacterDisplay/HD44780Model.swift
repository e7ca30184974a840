/// A model of the HD44780 controller fed with the bytes a PCF8574 backpack receives:
/// it latches nibbles on the falling edge of E, starts in 8-bit mode and follows the
/// instructions, and shows what the display would. The test oracle for the driver, and
/// the decoder for bytes read back from the kernel's smbus trace.
public struct HD44780Model: Sendable {
    public let pinMap: PCF8574PinMap
    public let columns: Int
    public let rows: Int
    public private(set) var ddram = [UInt8](repeating: 0x20, count: 128)
    public private(set) var cgram = [UInt8](repeating: 0, count: 64)
    public private(set) var displayOn = false
    public private(set) var backlight = false
    public private(set) var fourBit = false
    public private(set) var twoLines = false
    private var address = 0
    private var addressingCGRAM = false
    private var increment = true
    private var lastByte: UInt8 = 0
    private var pendingHigh: (nibble: UInt8, rs: Bool)?

    public init(pinMap: PCF8574PinMap, columns: Int, rows: Int) {
        self.pinMap = pinMap
        self.columns = columns
        self.rows = rows
    }

    public mutating func receive(_ bytes: [UInt8]) {
        for b in bytes { receive(b) }
    }

    public mutating func receive(_ byte: UInt8) {
        backlight = byte & pinMap.backlight != 0
        let fallingEdge = lastByte & pinMap.enable != 0 && byte & pinMap.enable == 0
        let latched = lastByte
        lastByte = byte
        guard fallingEdge, latched & pinMap.rw == 0 else { return }
        let nibble = pinMap.nibble(of: latched)
        let rs = latched & pinMap.rs != 0
        if !fourBit {
            // 8-bit mode: D0–D3 are not wired, so each pulse is an instruction with a zero low nibble.
            execute(nibble << 4, rs: rs)
            return
        }
        if let high = pendingHigh {
            pendingHigh = nil
            execute(high.nibble << 4 | nibble, rs: high.rs)
        } else {
            pendingHigh = (nibble, rs)
        }
    }

    private mutating func execute(_ value: UInt8, rs: Bool) {
        if rs {
            if addressingCGRAM {
                cgram[address & 0x3F] = value & 0x1F
                address = (address + (increment ? 1 : -1)) & 0x3F
            } else {
                ddram[address & 0x7F] = value
                address = (address + (increment ? 1 : -1)) & 0x7F
            }
            return
        }
        switch value {
        case 0x80...: address = Int(value & 0x7F); addressingCGRAM = false
        case 0x40...: address = Int(value & 0x3F); addressingCGRAM = true
        case 0x20...:
            fourBit = value & 0x10 == 0
            twoLines = value & 0x08 != 0
        case 0x10...: break // cursor/display shift: not used
        case 0x08...: displayOn = value & 0x04 != 0
        case 0x04...: increment = value & 0x02 != 0
        case 0x02...: address = 0; addressingCGRAM = false
        case 0x01:
            ddram = [UInt8](repeating: 0x20, count: 128)
            address = 0
            addressingCGRAM = false
            increment = true
        default: break
        }
    }

    /// The visible cells, row by row, as DDRAM codes.
    public var screen: [[UInt8]] {
        (0..<rows).map { r in
            let base = Int(HD44780Display.rowOffsets[r])
            return Array(ddram[base..<base + columns])
        }
    }

    /// The eight CGRAM glyph patterns.
    public var glyphs: [[UInt8]] { (0..<8).map { Array(cgram[$0 * 8..<$0 * 8 + 8]) } }
}
