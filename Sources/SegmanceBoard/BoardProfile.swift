import SegmanceControls
import SegmanceCore
import TOML

/// What a board is: which GPIO line or input device is which control, the display and
/// its bus, the audio device. Read from a TOML file in `board/`; nothing of it is
/// hard-coded in the sources.
public struct BoardProfile: Equatable, Sendable {
    /// A GPIO line by name ("GPIO17") or offset (17).
    public enum Line: Equatable, Hashable, Sendable {
        case name(String)
        case offset(Int)
    }

    public struct GPIO: Equatable, Sendable {
        /// Chip by path (/dev/gpiochip0), name (gpiochip0) or label (pinctrl-bcm2711).
        public var chip: String
        public var bias: String
        public var activeLow: Bool
        public var buttons: [Button: Line]
        public var encoderA: Line?
        public var encoderB: Line?
    }

    /// An evdev device by its name, with the keys and axes that stand for controls.
    public struct InputDevice: Equatable, Sendable {
        public var name: String
        public var keys: [String: String]
        public var axes: [String: String]
    }

    public struct Display: Equatable, Sendable {
        public enum Kind: String, CaseIterable, Sendable { case hd44780I2C = "hd44780-i2c", lcdproc, terminal }
        public var kind: Kind
        public var columns: Int
        public var rows: Int
        public var bus: Int?
        public var address: Int?
        public var backpack: String?
        public var host: String?
        public var port: Int?
        /// `rom`: the HD44780's character ROM, one of `BoardProfile.roms`: "A00" (the common
        /// Japanese ROM, half-width katakana; the default) or "ascii" (printable ASCII only,
        /// LCDproc's default: its server maps the bytes for its own driver).
        public var rom: String = "A00"
    }

    public struct Audio: Equatable, Sendable {
        public var device: String
        public var rate: Int
        public var periodFrames: Int
        public var periods: Int
        public var format: String
        /// `rewind_guard_frames`: deep-buffer scheduling (the render thread keeps the whole
        /// buffer full and rewinds it for a command, sounding it this many frames past the
        /// play head), or nil for period-by-period writes.
        public var rewindGuardFrames: Int? = nil
    }

    public var name: String
    public var gpio: GPIO?
    public var stepsPerDetent: Int
    public var encoderRest: String
    public var inputs: [InputDevice]
    public var display: Display
    public var audio: Audio
    public var timing: ControlMap.Timing

    public static let biases = ["pull-up", "pull-down", "disable", "as-is"]
    public static let backpacks = ["pcf8574-common", "pcf8574-lcdproc"]
    public static let roms = ["A00", "ascii"]
    public static let formats = ["S16_LE", "S32_LE", "FLOAT_LE"]
    public static let encoderControls = ["encoder_a", "encoder_b"]

    /// Parses and checks a profile; every problem names the file and the key.
    public init(parsing text: String, file: String) throws(BoardProfileError) {
        let r = Reader(file: file)
        let root = try r.parse(text)
        try r.known(root, "", ["name", "gpio", "encoder", "input", "display", "audio", "timing"])
        name = try r.string(root, "name") ?? file

        if let g = try r.table(root, "gpio") {
            try r.known(g, "gpio.", ["chip", "bias", "active_low", "lines"])
            guard let chip = try r.string(g, "chip", prefix: "gpio.") else { throw r.error("gpio.chip", "is missing") }
            let bias = try r.string(g, "bias", prefix: "gpio.") ?? "as-is"
            guard Self.biases.contains(bias) else {
                throw r.error("gpio.bias", "'\(bias)' is not one of \(Self.biases.joined(separator: ", "))")
            }
            var buttons: [Button: Line] = [:]
            var a: Line?, b: Line?
            if let lines = try r.table(g, "lines", prefix: "gpio.") {
                let names = Button.allCases.map(\.rawValue) + Self.encoderControls
                try r.known(lines, "gpio.lines.", Set(names))
                for key in lines.keys {
                    let line = try r.line(lines[key]!, key: "gpio.lines.\(key)")
                    if let button = Button(rawValue: key) {
                        buttons[button] = line
                    } else if key == "encoder_a" {
                        a = line
                    } else {
                        b = line
                    }
                }
            }
            guard (a == nil) == (b == nil) else {
                throw r.error("gpio.lines", "an encoder needs both encoder_a and encoder_b")
            }
            gpio = GPIO(chip: chip, bias: bias, activeLow: try r.bool(g, "active_low", prefix: "gpio.") ?? false,
                        buttons: buttons, encoderA: a, encoderB: b)
        } else {
            gpio = nil
        }

        let e = try r.table(root, "encoder")
        if let e { try r.known(e, "encoder.", ["steps_per_detent", "rest"]) }
        stepsPerDetent =
            try e.flatMap { t throws(BoardProfileError) in try r.int(t, "steps_per_detent", prefix: "encoder.") } ?? 4
        guard [1, 2, 4].contains(stepsPerDetent) else {
            throw r.error("encoder.steps_per_detent", "must be 1, 2 or 4, not \(stepsPerDetent)")
        }
        encoderRest =
            try e.flatMap { t throws(BoardProfileError) in try r.string(t, "rest", prefix: "encoder.") } ?? "low"
        guard ["low", "high"].contains(encoderRest) else { throw r.error("encoder.rest", "must be low or high") }

        var inputs: [InputDevice] = []
        if let value = root["input"] {
            guard let array = value.array else { throw r.error("input", "must be [[input]] tables") }
            for i in 0..<array.count {
                let key = "input[\(i + 1)]"
                guard let t = array[i].table else { throw r.error(key, "must be a table") }
                try r.known(t, key + ".", ["device", "keys", "axes"])
                guard let device = try r.string(t, "device", prefix: key + ".") else {
                    throw r.error(key + ".device", "is missing")
                }
                inputs.append(InputDevice(name: device, keys: try r.map(t, "keys", prefix: key + "."),
                                          axes: try r.map(t, "axes", prefix: key + ".")))
            }
        }
        self.inputs = inputs

        guard let d = try r.table(root, "display") else { throw r.error("display", "is missing") }
        try r.known(d, "display.", ["kind", "columns", "rows", "bus", "address", "backpack", "host", "port",
                                          "rom"])
        let kindName = try r.string(d, "kind", prefix: "display.") ?? "terminal"
        guard let kind = Display.Kind(rawValue: kindName) else {
            throw r.error(
                "display.kind",
                "'\(kindName)' is not one of \(Display.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let columns = try r.int(d, "columns", prefix: "display.") ?? 16
        let rows = try r.int(d, "rows", prefix: "display.") ?? 2
        guard (columns, rows) == (16, 2) || (columns, rows) == (20, 4) else {
            throw r.error("display.columns", "\(columns)x\(rows) is not a supported size (16x2, 20x4)")
        }
        display = Display(kind: kind, columns: columns, rows: rows, bus: try r.int(d, "bus", prefix: "display."),
                          address: try r.int(d, "address", prefix: "display."),
                          backpack: try r.string(d, "backpack", prefix: "display."),
            host: try r.string(d, "host", prefix: "display."), port: try r.int(d, "port", prefix: "display."))
        if kind == .hd44780I2C {
            guard display.bus != nil else { throw r.error("display.bus", "is missing (the N of /dev/i2c-N)") }
            guard let address = display.address, (0x03...0x77).contains(address) else {
                throw r.error("display.address", "must be a 7-bit I2C address, e.g. 0x27")
            }
            let backpack = display.backpack ?? "pcf8574-common"
            guard Self.backpacks.contains(backpack) else {
                throw r.error(
                    "display.backpack", "'\(backpack)' is not one of \(Self.backpacks.joined(separator: ", "))")
            }
            display.backpack = backpack
        }
        let rom = try r.string(d, "rom", prefix: "display.") ?? (kind == .lcdproc ? "ascii" : "A00")
        guard Self.roms.contains(rom) else {
            throw r.error("display.rom", "'\(rom)' is not one of \(Self.roms.joined(separator: ", "))")
        }
        display.rom = rom

        let a = try r.table(root, "audio")
        if let a {
            try r.known(a, "audio.", ["device", "rate", "period_frames", "periods", "format", "rewind_guard_frames"])
        }
        func aInt(_ k: String, _ d: Int) throws(BoardProfileError) -> Int {
            guard let a else { return d }
            return try r.int(a, k, prefix: "audio.") ?? d
        }
        audio = Audio(
            device: try a.flatMap { t throws(BoardProfileError) in try r.string(t, "device", prefix: "audio.") }
                ?? "default",
            rate: try aInt("rate", 48_000), periodFrames: try aInt("period_frames", 128),
            periods: try aInt("periods", 3),
            format: try a.flatMap { t throws(BoardProfileError) in try r.string(t, "format", prefix: "audio.") }
                ?? "S16_LE",
            rewindGuardFrames: try a.flatMap { t throws(BoardProfileError) in
                try r.int(t, "rewind_guard_frames", prefix: "audio.")
            })
        guard Self.formats.contains(audio.format) else {
            throw r.error("audio.format", "'\(audio.format)' is not one of \(Self.formats.joined(separator: ", "))")
        }

        let t = try r.table(root, "timing")
        if let t { try r.known(t, "timing.", ["debounce_ms", "long_press_ms", "double_press_ms"]) }
        func ms(_ k: String, _ d: Int) throws(BoardProfileError) -> Int64 {
            guard let t else { return Int64(d) * 1_000_000 }
            return Int64(try r.int(t, k, prefix: "timing.") ?? d) * 1_000_000
        }
        timing = ControlMap.Timing(debounce: try ms("debounce_ms", 10), longPress: try ms("long_press_ms", 600),
                                   doublePressWindow: try ms("double_press_ms", 300))
    }

    /// The control map, given the offsets the profile's lines resolved to on the chip.
    /// Line ids in the map are the chip offsets.
    public func controlMap(offsets: [Line: Int]) -> ControlMap {
        var buttons: [Int: Button] = [:]
        var encoder: EncoderLines?
        if let gpio {
            for (button, line) in gpio.buttons { if let o = offsets[line] { buttons[o] = button } }
            if let a = gpio.encoderA.flatMap({ offsets[$0] }), let b = gpio.encoderB.flatMap({ offsets[$0] }) {
                encoder = EncoderLines(a: a, b: b, stepsPerDetent: StepsPerDetent(rawValue: stepsPerDetent) ?? .four,
                                       rest: encoderRest == "high" ? .high : .low)
            }
        }
        return ControlMap(buttons: buttons, encoder: encoder, chords: ControlMap.volumeChord, timing: timing)
    }
}

/// A problem in a board profile: the file, the key, and why.
public struct BoardProfileError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var key: String
    public var reason: String
    public init(file: String, key: String, reason: String) {
        self.file = file
        self.key = key
        self.reason = reason
    }
    public var description: String { key.isEmpty ? "\(file): \(reason)" : "\(file): \(key): \(reason)" }
}

/// Typed reads that name the key when the type is wrong.
struct Reader {
    let file: String

    func error(_ key: String, _ reason: String) -> BoardProfileError {
        BoardProfileError(file: file, key: key, reason: reason)
    }

    /// The document's root table; a syntax error names its line.
    func parse(_ text: String) throws(BoardProfileError) -> TOMLTable {
        do {
            return try TOMLTable(parsing: text)
        } catch {
            throw BoardProfileError(
                file: file, key: "line \(error.line)",
                reason: "TOML syntax error: \(error.reason) (column \(error.column))")
        }
    }

    func known(_ t: TOMLTable, _ prefix: String, _ keys: Set<String>) throws(BoardProfileError) {
        for key in t.keys.sorted() where !keys.contains(key) {
            throw error(prefix + key, "unknown key (known: \(keys.sorted().joined(separator: ", ")))")
        }
    }

    func table(_ t: TOMLTable, _ key: String, prefix: String = "") throws(BoardProfileError) -> TOMLTable? {
        guard let v = t[key] else { return nil }
        guard let table = v.table else { throw error(prefix + key, "must be a table") }
        return table
    }

    func string(_ t: TOMLTable, _ key: String, prefix: String = "") throws(BoardProfileError) -> String? {
        guard let v = t[key] else { return nil }
        guard let s = v.string else { throw error(prefix + key, "must be a string") }
        return s
    }

    func int(_ t: TOMLTable, _ key: String, prefix: String = "") throws(BoardProfileError) -> Int? {
        guard let v = t[key] else { return nil }
        guard let i = v.int else { throw error(prefix + key, "must be a whole number") }
        return i
    }

    func bool(_ t: TOMLTable, _ key: String, prefix: String = "") throws(BoardProfileError) -> Bool? {
        guard let v = t[key] else { return nil }
        guard let b = v.bool else { throw error(prefix + key, "must be true or false") }
        return b
    }

    func map(_ t: TOMLTable, _ key: String, prefix: String) throws(BoardProfileError) -> [String: String] {
        guard let table = try self.table(t, key, prefix: prefix) else { return [:] }
        var out: [String: String] = [:]
        for k in table.keys {
            guard let s = table[k]?.string else { throw error(prefix + key + "." + k, "must be a control name") }
            out[k] = s
        }
        return out
    }

    func line(_ v: TOMLValue, key: String) throws(BoardProfileError) -> BoardProfile.Line {
        if let i = v.int, i >= 0 { return .offset(i) }
        if let s = v.string, !s.isEmpty { return .name(s) }
        throw error(key, "must be a line name (\"GPIO17\") or offset (17)")
    }
}
