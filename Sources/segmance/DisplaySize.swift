import ArgumentParser
import SegmanceCore

/// "16x2" or "20x4" on the command line.
extension DisplaySize: ExpressibleByArgument {
    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]),
              [(16, 2), (20, 4)].contains(where: { $0 == (c, r) }) else { return nil }
        self.init(columns: c, rows: r)
    }

    public static var allValueStrings: [String] { ["16x2", "20x4"] }

    /// As it is typed, for `--help`'s default.
    public var defaultValueDescription: String { "\(columns)x\(rows)" }
}
