import ArgumentParser

/// "16x2" or "20x4" on the command line.
struct DisplaySize: ExpressibleByArgument {
    var columns: Int
    var rows: Int

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]),
              [(16, 2), (20, 4)].contains(where: { $0 == (c, r) }) else { return nil }
        columns = c
        rows = r
    }

    static var allValueStrings: [String] { ["16x2", "20x4"] }

    /// As it is typed, for `--help`'s default.
    var defaultValueDescription: String { "\(columns)x\(rows)" }
}
