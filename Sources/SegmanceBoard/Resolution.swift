/// A GPIO chip as an inventory describes it (GPIOD's inventory feeds this in the daemon).
public struct ChipDescription: Equatable, Sendable {
    public var path: String
    public var name: String
    public var label: String
    /// Line names by offset; nil where a line has none.
    public var lineNames: [String?]

    public init(path: String, name: String, label: String, lineNames: [String?]) {
        self.path = path
        self.name = name
        self.label = label
        self.lineNames = lineNames
    }
}

extension BoardProfile {
    /// Finds the profile's chip and each of its lines among `chips`. Errors name the
    /// profile key and list what exists.
    public func resolveGPIO(
        on chips: [ChipDescription], file: String
    ) throws(BoardProfileError) -> (chip: ChipDescription, offsets: [Line: Int]) {
        guard let gpio else {
            throw BoardProfileError(file: file, key: "gpio", reason: "the profile has no [gpio] section")
        }
        guard let chip = chips.first(where: { [$0.path, $0.name, $0.label].contains(gpio.chip) }) else {
            let present = chips.map { "\($0.name) (\($0.label))" }
            throw BoardProfileError(file: file, key: "gpio.chip",
                reason:
                    "no chip '\(gpio.chip)'; chips present: "
                        + "\(present.isEmpty ? "none" : present.joined(separator: ", "))"
            )
        }
        var offsets: [Line: Int] = [:]
        let wanted = gpio.buttons.map { ($0.key.rawValue, $0.value) }
            + [("encoder_a", gpio.encoderA), ("encoder_b", gpio.encoderB)].compactMap { k, l in l.map { (k, $0) } }
        for (key, line) in wanted.sorted(by: { $0.0 < $1.0 }) {
            switch line {
            case .offset(let o):
                guard o < chip.lineNames.count else {
                    throw BoardProfileError(file: file, key: "gpio.lines.\(key)",
                        reason: "offset \(o) is past the last line of \(chip.name) (\(chip.lineNames.count) lines)")
                }
                offsets[line] = o
            case .name(let n):
                guard let o = chip.lineNames.firstIndex(of: n) else {
                    let named = chip.lineNames.compactMap { $0 }
                    throw BoardProfileError(file: file, key: "gpio.lines.\(key)",
                        reason:
                            "no line named '\(n)' on \(chip.name); named lines: "
                                + "\(named.isEmpty ? "none" : named.joined(separator: ", "))"
                    )
                }
                offsets[line] = o
            }
        }
        return (chip, offsets)
    }

    /// Checks the display's bus exists among `buses` (paths like /dev/i2c-1).
    public func resolveI2CBus(among buses: [String], file: String) throws(BoardProfileError) -> String {
        guard display.kind == .hd44780I2C, let bus = display.bus else {
            throw BoardProfileError(file: file, key: "display.kind", reason: "the display is not on I2C")
        }
        let path = "/dev/i2c-\(bus)"
        guard buses.contains(path) else {
            throw BoardProfileError(file: file, key: "display.bus",
                reason: "\(path) does not exist; buses present: "
                    + (buses.isEmpty ? "none (enable I2C: dtparam=i2c_arm=on, and load i2c-dev)"
                                     : buses.joined(separator: ", ")))
        }
        return path
    }
}
