import LinuxSystem
import CGPIOD
import Glibc

/// What GPIO chips and lines this machine has, for `segmance devices` and for error messages.
public enum GPIOInventory {
    /// One chip and the state of its lines.
    public struct ChipInfo: Equatable, Sendable {
        /// The device node, e.g. `/dev/gpiochip0`.
        public var path: String
        /// The kernel's name, e.g. `gpiochip0`.
        public var name: String
        /// The driver's label, e.g. `pinctrl-bcm2711`.
        public var label: String
        public var lines: [GPIOLineInfo]

        public init(path: String, name: String, label: String, lines: [GPIOLineInfo]) {
            self.path = path
            self.name = name
            self.label = label
            self.lines = lines
        }
    }

    /// The `gpiochip*` device nodes in `directory`, in chip number order.
    public static func chipPaths(in directory: String = "/dev") -> [String] {
        Directory(directory).numbered(prefix: "gpiochip").map { join(directory, $0.name) }
    }

    /// Every chip in `directory` that opens, with its lines.
    public static func chips(in directory: String = "/dev") -> [ChipInfo] {
        scan(in: directory).chips
    }

    /// Every chip in `directory`: those that open, and the errors of those that do not.
    public static func scan(in directory: String = "/dev") -> (chips: [ChipInfo], failures: [GPIOError]) {
        var chips: [ChipInfo] = []
        var failures: [GPIOError] = []
        for path in chipPaths(in: directory) {
            guard let handle = sgpio_chip_open(path) else {
                failures.append(.last("gpiod_chip_open", "chip \"\(path)\""))
                continue
            }
            let chip = GPIOChipHandle(handle)
            chips.append(ChipInfo(path: path, name: chip.name, label: chip.label, lines: chip.lines()))
        }
        return (chips, failures)
    }

    /// One line a chip: `gpiochip0 [pinctrl-bcm2711] 58 lines`, or why it cannot be opened.
    static func chipSummaries(in directory: String) -> [String] {
        chipPaths(in: directory).map { path in
            guard let handle = sgpio_chip_open(path) else {
                return "\(path) (cannot open: \(SystemError.text(Glibc.errno)))"
            }
            let chip = GPIOChipHandle(handle)
            return "\(chip.name) [\(chip.label)] \(chip.lineCount) lines"
        }
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
