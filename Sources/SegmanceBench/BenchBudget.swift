import Foundation

/// One figure a benchmark states, declared in one place: what it is, the figure, its
/// budget, whether the budget is met, and the peer measured in the same run beside it.
struct BenchFigure {
    var what: String
    var figure: String
    /// The budget as a person reads it (`≤ 150 ms`); empty when the figure has none.
    var budget: String
    /// nil when the figure has no budget (it is stated for comparison).
    var met: Bool?
    var peer: String = ""
    /// A budget missed and known to be missed, with why (the issue it is open in), and
    /// whether the figure is still within the bound that fails `--check` meanwhile (a
    /// regression past it fails; within it the miss is printed and written, not failed).
    var knownMiss: (why: String, withinBound: Bool)? = nil

    /// Missed, and not excused by a known miss within its bound: what fails `--check`.
    var fails: Bool { met == false && knownMiss?.withinBound != true }
}

/// Budgets checked by `--check`, and the figures file written by `--write-figures FILE`.
///
/// Every benchmark records its figures here (`record`); `finish` prints them beside their
/// budgets, writes this command's section of the figures file (docs/figures.md, which the
/// READMEs point to) and, with `--check`, exits 1 when one missed.
enum BenchBudget {
    /// True when the command line has `--check`.
    static let checking = CommandLine.arguments.contains("--check")
    /// `--write-figures FILE`: the generated figures file to update.
    static let figuresFile = option("write-figures", "")
    nonisolated(unsafe) private static var figures: [BenchFigure] = []
    /// The figures of the sections finished so far in this run, by section.
    nonisolated(unsafe) private static var sections: [(name: String, figures: [BenchFigure])] = []
    private static let loadAtStart = loadAverage()

    /// Notes the load average at the start of the run (the figures file gives it).
    static func begin() { _ = loadAtStart }

    /// Records a figure with its budget (and the peer measured beside it).
    static func record(_ figure: BenchFigure) {
        figures.append(figure)
    }

    /// Records `what` as missed unless `ok`.
    static func require(_ ok: Bool, _ what: String) {
        if !ok { figures.append(BenchFigure(what: what, figure: "", budget: "", met: false)) }
    }

    /// Ends a section of the figures file: the figures recorded since the last one are its.
    static func endSection(_ name: String) {
        sections.append((name, figures))
        figures = []
    }

    /// Prints every figure beside its budget; with `--write-figures`, writes each section of
    /// the figures file; with `--check`, prints the budgets missed and exits 1 if there are any.
    static func finish() {
        let all = sections.flatMap(\.figures)
        let budgeted = all.filter { $0.met != nil }
        if !budgeted.isEmpty {
            print("budgets:")
            for f in budgeted {
                print(
                    "  \(f.met! ? "ok    " : "MISSED") \(f.what): "
                        + "\(f.figure)\(f.budget.isEmpty ? "" : " (budget \(f.budget))")"
                      + (f.peer.isEmpty ? "" : "; \(f.peer)")
                        + (f.met == false
                            ? f.knownMiss.map { " [known miss: \($0.why)\($0.withinBound ? "" : "; past its bound")]" }
                                ?? "" : ""))
            }
        }
        if !figuresFile.isEmpty {
            for section in sections {
                FiguresFile(path: figuresFile).replace(
                    section: section.name, with: table(section.name, section.figures))
            }
        }
        guard checking else { return }
        let missed = budgeted.filter(\.fails)
        let known = budgeted.filter { $0.met == false && !$0.fails }
        if missed.isEmpty {
            print(known.isEmpty ? "check: every budget met"
                    : "check: every budget met but \(known.count) known miss\(known.count == 1 ? "" : "es"), within "
                      + "their bounds: "
                    + known.map(\.what).joined(separator: "; "))
        } else {
            fail(
                "budgets missed:\n"
                    + missed.map { "  \($0.what): \($0.figure) (budget \($0.budget))" }.joined(separator: "\n"))
        }
    }

    /// This run's figures as the figures file shows them.
    private static func table(_ section: String, _ figures: [BenchFigure]) -> String {
        var text =
            "Written by `\(section) --write-figures` on \(utcDate()) (\(ProcessInfo.processInfo.activeProcessorCount) "
                + "cores, "
            + "load average \(loadAtStart) at the start, \(loadAverage()) at the end).\n\n"
        text += "| what | figure | budget | peer, same run | met |\n|---|---|---|---|---|\n"
        for f in figures {
            let met = f.met.map { $0 ? "yes" : f.knownMiss.map { "**no** (known: \($0.why))" } ?? "**no**" } ?? ""
            text += "| \(cell(f.what)) | \(cell(f.figure)) | \(cell(f.budget)) | \(cell(f.peer)) | \(met) |\n"
        }
        return text
    }

    private static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }

    private static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(1).joined()
    }

    private static func utcDate() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date())
    }
}

/// The generated figures file (docs/figures.md): one section per benchmark command between
/// `<!-- begin: NAME -->` and `<!-- end: NAME -->`, each replaced whole by its command's next
/// run; the rest of the file is kept. Tests/Benchmarks/engine_bench.py writes its section
/// the same way.
struct FiguresFile {
    var path: String

    func replace(section: String, with body: String) {
        let begin = "<!-- begin: \(section) -->", end = "<!-- end: \(section) -->"
        let block = "\(begin)\n### `\(section)`\n\n\(body)\(end)"
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? Self.header
        if let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) {
            text.replaceSubrange(start.lowerBound..<stop.upperBound, with: block)
        } else {
            text += (text.hasSuffix("\n\n") ? "" : "\n") + block + "\n"
        }
        do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch { fail("write \(path): \(error)") }
        print("figures: section `\(section)` written to \(path)")
    }

    static let header = """
        # Figures

        Generated: every section below is written by the command it names (`--write-figures
        docs/figures.md`), never by hand. A figure stated in a README comes from here or from a
        command's output. Each figure stands beside its budget and the peer measured in the
        same run; `--check` fails the command when a budget is missed.

        """
}
