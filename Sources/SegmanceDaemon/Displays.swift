import CharacterDisplay
import LinuxI2C
import SegmanceBoard
import SegmanceScreen

/// The display a board profile names, opened. A bus that does not exist is a
/// configuration error (it names the key and lists the buses); a display that does not
/// answer yet is not: it is retried like one that stops answering later.
public enum Displays {
    public static func open(_ profile: BoardProfile, file: String, devices: String = "/dev",
                            terminal: @escaping (String) -> Void) throws -> CharacterDisplay {
        let d = profile.display
        switch d.kind {
        case .hd44780I2C:
            let path = try profile.resolveI2CBus(among: LinuxI2CBus.buses(in: devices), file: file)
            let bus = try LinuxI2CBus(path: path, address: UInt8(d.address ?? 0x27))
            let pins = PCF8574PinMap.named[d.backpack ?? "pcf8574-common"] ?? .common
            return HD44780Display(bus: bus, pinMap: pins, columns: d.columns, rows: d.rows)
        case .lcdproc:
            let host = d.host ?? "127.0.0.1"
            let port = UInt16(clamping: d.port ?? 13666)
            return ReconnectingDisplay(columns: d.columns, rows: d.rows) {
                try LCDprocClient(host: host, port: port)
            }
        case .terminal:
            return TerminalDisplay(columns: d.columns, rows: d.rows, write: terminal)
        }
    }
}

/// A display reached over a connection that may not be there yet or may drop (LCDd
/// restarting): connects on the first frame and again after any failure.
final class ReconnectingDisplay: CharacterDisplay {
    let columns: Int
    let rows: Int
    private let connect: () throws -> CharacterDisplay
    private var connection: CharacterDisplay?

    init(columns: Int, rows: Int, connect: @escaping () throws -> CharacterDisplay) {
        self.columns = columns
        self.rows = rows
        self.connect = connect
    }

    func show(_ frame: Frame) throws {
        do {
            if connection == nil { connection = try connect() }
            try connection!.show(frame)
        } catch {
            connection = nil
            throw error
        }
    }
}
