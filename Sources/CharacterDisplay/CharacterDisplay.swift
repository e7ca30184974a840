import SegmanceScreen

/// A character display the appliance draws frames on.
public protocol CharacterDisplay: AnyObject {
    var columns: Int { get }
    var rows: Int { get }
    /// Shows `frame`, writing only what changed since the last frame shown.
    func show(_ frame: Frame) throws
}

/// How a PCF8574 backpack wires its eight outputs to the HD44780 (4-bit mode).
public struct PCF8574PinMap: Equatable, Sendable {
    public var rs: UInt8
    public var rw: UInt8
    public var enable: UInt8
    public var backlight: UInt8
    /// The bits carrying D4, D5, D6, D7.
    public var data: [UInt8]

    public init(rs: UInt8, rw: UInt8, enable: UInt8, backlight: UInt8, data: [UInt8]) {
        self.rs = rs
        self.rw = rw
        self.enable = enable
        self.backlight = backlight
        self.data = data
    }

    /// The common blue "PCF8574T" backpack (most 1602/2004 I2C modules): P0 RS, P1 RW,
    /// P2 E, P3 backlight, P4–P7 D4–D7 (LCDd.conf: i2c_line_RS=0x01 … i2c_line_D4=0x10).
    public static let common = PCF8574PinMap(rs: 0x01, rw: 0x02, enable: 0x04, backlight: 0x08,
                                             data: [0x10, 0x20, 0x40, 0x80])
    /// lcdproc's built-in hd44780-i2c default: P0–P3 D4–D7, P4 RS, P5 RW, P6 E, P7 backlight.
    public static let lcdprocDefault = PCF8574PinMap(rs: 0x10, rw: 0x20, enable: 0x40, backlight: 0x80,
                                                     data: [0x01, 0x02, 0x04, 0x08])

    /// Pin maps by the names board profiles use.
    public static let named: [String: PCF8574PinMap] = ["pcf8574-common": common, "pcf8574-lcdproc": lcdprocDefault]

    /// The backpack byte that puts `nibble` on D4–D7.
    func bits(ofNibble nibble: UInt8) -> UInt8 {
        var byte: UInt8 = 0
        for i in 0..<4 where nibble & (1 << i) != 0 { byte |= data[i] }
        return byte
    }

    /// The nibble D4–D7 carry in `byte`.
    func nibble(of byte: UInt8) -> UInt8 {
        var nibble: UInt8 = 0
        for i in 0..<4 where byte & data[i] != 0 { nibble |= 1 << i }
        return nibble
    }
}
