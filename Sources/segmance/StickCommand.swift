import ArgumentParser
import SegmanceMedia

struct Stick: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stick",
        abstract: "Look at a stick (a folder laid out like one) without importing it.",
        subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode everything on a stick and say what would be imported and every problem.",
            discussion: """
            Exits with status 1 when there is any problem, audio files left out (e.g. not in \
            routine.toml) included, and when there is no music on the stick at all. Nothing is \
            written anywhere.
            """)

        @Argument(help: "The stick's folder (its mount point).")
        var directory: String

        @Option(help: "The stick's volume label: the title of its loose songs' routine (default: \"USB stick\").")
        var label: String?

        @Flag(help: "Print JSON: {stick, routines: [...], problems: [{path, line, reason}]}.")
        var json = false

        @Option(help: "Output rate in Hz that times are counted at.")
        var rate: Int = 48_000

        struct Output: Codable {
            var stick: String
            var routines: [RoutineReport]
            var problems: [ProblemReport]
        }

        func run() throws {
            var content = StickLoader(outputRate: rate).check(directory, label: label)
            if !StickScanner().scan(directory, label: label).routines.contains(where: \.hasMusic) {
                content.problems.append(StickProblem(path: ".", reason: "no music on this stick: looked for "
                                                     + StickScanner.lookedFor))
            }
            let routines = content.routines.map { RoutineReport($0, source: nil, rate: rate) }
            if json {
                try printJSON(Output(stick: directory, routines: routines, problems: content.problems.map(ProblemReport.init)))
            } else {
                let count = content.problems.count
                Console.out("Stick \(directory): \(routines.count) routine\(routines.count == 1 ? "" : "s") to import, "
                            + "\(count) problem\(count == 1 ? "" : "s")\n")
                for routine in routines { Console.out("\n" + routine.lines(rate: rate).joined(separator: "\n") + "\n") }
                if count > 0 {
                    Console.out("\nProblems:\n")
                    for problem in content.problems { Console.out("  \(problem)\n") }
                }
            }
            if !content.problems.isEmpty { throw ExitCode(1) }
        }
    }
}
