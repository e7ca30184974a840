/// Budgets checked by `--check`: a missed one is printed and makes the benchmark exit 1.
enum BenchBudget {
    /// True when the command line has `--check`.
    static let checking = CommandLine.arguments.contains("--check")
    nonisolated(unsafe) private static var missed: [String] = []

    /// Records `what` as missed unless `ok`.
    static func require(_ ok: Bool, _ what: String) {
        if !ok { missed.append(what) }
    }

    /// With `--check`: prints the budgets missed and exits 1 if there are any.
    static func finish() {
        guard checking else { return }
        if missed.isEmpty {
            print("check: every budget met")
        } else {
            fail("budgets missed:\n" + missed.map { "  \($0)" }.joined(separator: "\n"))
        }
    }
}
