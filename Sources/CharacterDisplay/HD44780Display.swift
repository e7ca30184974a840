import LinuxI2C
import LinuxSystem
import SegmanceScreen
#if canImport(Glibc)
import Glibc
#endif

/// Waits the HD44780 needs between writes. The real one sleeps; tests record.
public protocol Delay: AnyObject {
    func wait(microseconds: Int)
}

/// Sleeps on the monotonic clock (`sleepMonotonic`).
public final class SleepingDelay: Delay {
    public init() {}
    public func wait(microseconds: Int) {
        sleepMonotonic(nanoseconds: Int64(microseconds) * 1000)
    }
}

/// An HD44780 (or compatible) in 4-bit mode behind a PCF8574 I2C backpack.
///
/// Init follows the datasheet's "initializing by instruction" sequence; custom glyphs go to
/// CGRAM; each frame writes only the runs of cells that changed (lcdproc's flush). After an
/// error the next `show` re-initialises the controller and redraws everything, so a display
/// that comes back shows the right thing; the caller logs and carries on.
public final class HD44780Display: CharacterDisplay {
    public let columns: Int
    public let rows: Int
    public let pinMap: PCF8574PinMap
    public var backlight = true
    private let bus: I2CBus
    private let delay: Delay
    private var shown: Frame?
    private var needsInit = true
    /// The glyph set in CGRAM.
    private var loaded: GlyphSet?

    /// DDRAM address of each row's first cell (20×4 interleaves rows 2 and 3 after 0 and 1).
    public static let rowOffsets: [UInt8] = [0x00, 0x40, 0x14, 0x54]

    public init(bus: I2CBus, pinMap: PCF8574PinMap = .common, columns: Int, rows: Int, delay: Delay = SleepingDelay()) {
        self.bus = bus
        self.pinMap = pinMap
        self.columns = columns
        self.rows = rows
        self.delay = delay
    }

    public func show(_ frame: Frame) throws {
        do {
            if needsInit {
                try initialise()
                shown = nil
                loaded = .symbols
                needsInit = false
            }
            if frame.backlight != backlight { try setBacklight(frame.backlight) }
            if frame.glyphs != loaded {
                // Cells showing slots 0...7 take the new shapes at once; the runs that
                // follow write what changed besides.
                try load(frame.glyphs)
                loaded = frame.glyphs
            }
            for run in frame.diff(from: shown) {
                try address(0x80 | (Self.rowOffsets[run.row] + UInt8(run.column)))
                for byte in run.bytes { try data(byte) }
            }
            shown = frame
        } catch {
            needsInit = true
            throw error
        }
    }

    /// Forces a re-initialisation and full redraw at the next `show`.
    public func recover() { needsInit = true }

    /// Switches the backlight, keeping it in every byte from now on.
    public func setBacklight(_ on: Bool) throws {
        backlight = on
        try bus.sendByte(on ? pinMap.backlight : 0)
    }

    // MARK: - The controller's protocol

    private func initialise() throws {
        delay.wait(microseconds: 50_000) // > 40 ms after Vcc rises to 2.7 V
        try nibble(0x3, rs: false); delay.wait(microseconds: 4_500)
        try nibble(0x3, rs: false); delay.wait(microseconds: 150)
        try nibble(0x3, rs: false); delay.wait(microseconds: 150)
        try nibble(0x2, rs: false); delay.wait(microseconds: 150) // now 4-bit
        try command(0x28) // function set: 4-bit, 2 lines, 5×8 dots
        try command(0x08) // display off
        try command(0x01) // clear
        delay.wait(microseconds: 2_000)
        try command(0x06) // entry mode: increment, no shift
        try load(.symbols)
        try command(0x0C) // display on, no cursor, no blink
    }

    /// Writes the eight patterns of `set` (8 rows each) into CGRAM: one address, then every
    /// row, as the address counter steps from one slot into the next (entry mode: increment).
    private func load(_ set: GlyphSet) throws {
        // One address, not one per slot.
        try address(0x40) // CGRAM address of slot 0
        for pattern in set.patterns {
            for row in pattern { try data(row) }
        }
    }

    private func command(_ byte: UInt8) throws {
        try nibble(byte >> 4, rs: false)
        try nibble(byte & 0x0F, rs: false)
        delay.wait(microseconds: 50) // ≥ 37 µs per instruction
    }

    /// A DDRAM or CGRAM address: an instruction like any other (37 µs), but no wait after
    /// it. What follows it, data or the next instruction, latches only after two more I2C
    /// bytes, each at least 45 µs at the PCF8574's fastest (400 kHz; ~90 µs at 100 kHz),
    /// as every data write already relies on. A frame's writes are addresses and data, so
    /// the LCD thread draws a frame without sleeping (each sleep was a wake of the thread).
    private func address(_ byte: UInt8) throws {
        try nibble(byte >> 4, rs: false)
        try nibble(byte & 0x0F, rs: false)
    }

    private func data(_ byte: UInt8) throws {
        try nibble(byte >> 4, rs: true)
        try nibble(byte & 0x0F, rs: true)
    }

    /// One nibble: set the lines with E high, then drop E (the controller latches on the
    /// falling edge). Each I2C byte takes ~90 µs at 100 kHz, far over the 450 ns E pulse.
    private func nibble(_ value: UInt8, rs: Bool) throws {
        let lines = pinMap.bits(ofNibble: value) | (rs ? pinMap.rs : 0) | (backlight ? pinMap.backlight : 0)
        try bus.sendByte(lines | pinMap.enable)
        try bus.sendByte(lines)
    }
}
