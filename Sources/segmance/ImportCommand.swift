import ArgumentParser
import SegmanceCore
import SegmanceLibrary
import StickTransfer
#if canImport(Glibc)
import Glibc
#endif

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a stick (a folder laid out like one) into the library.",
        discussion: """
        Each routine is imported whole or not at all. The same routine (same title from the \
        same folder, or holding all of its songs) is replaced, keeping the loops and the \
        resume point of parts that still exist; a different routine of the same title is \
        kept beside it as "Title (2)"; identical content changes nothing. What was set on \
        the box (loops, speeds, "1"s, the count-in choice) is kept, unless \
        --restore-stick-values is given. Exits with status 1 when anything was not \
        imported or left out.
        """)

    @Argument(help: "The stick's folder (its mount point).")
    var directory: String

    @Option(help: "The stick's volume label: the title of its loose songs' routine (default: \"USB stick\").")
    var label: String?

    @OptionGroup var options: LibraryOptions

    @Flag(
        help:
            "Bring back the stick's loops, speeds, beats and count-in of every routine imported (also unchanged ones).")
    var restoreStickValues = false

    func run() throws {
        let library = try options.open()
        let tty = isatty(STDERR_FILENO) == 1
        var problems = 0
        var imported: [String] = []
        let summary = Importer(library: library).run(directory, label: label) { event in
            switch event {
            case .started(let count):
                Console.error(
                    "Importing \(directory) into \(library.directory): \(count) routine\(count == 1 ? "" : "s")\n")
            case .progress(let p):
                if tty { Console.error("\r[\(p.routine)/\(p.count)] \(p.title) \(p.percent)%\u{1B}[K") }
            case .problem(let problem):
                problems += 1
                Console.error((tty ? "\r\u{1B}[K" : "") + "problem: \(problem)\n")
            case .note(let note):
                Console.error((tty ? "\r\u{1B}[K" : "") + "note: \(note)\n")
            case .routine(let title, let outcome):
                imported.append(title)
                Console.out((tty ? "\r\u{1B}[K" : "") + "\(title): \(outcome.rawValue)\n")
            case .routineFailed(let title, let reason):
                Console.out((tty ? "\r\u{1B}[K" : "") + "\(title): not imported (\(reason))\n")
            case .finished(let summary):
                Console.out(summary.lines.joined(separator: ": ") + "\n")
            }
        }
        if restoreStickValues {
            for title in imported where try library.restoreStickValues(titled: title) {
                Console.out("\(title): the stick's values are in force again\n")
            }
        }
        if problems > 0 || summary.failed > 0 || summary.stopped != nil { throw ExitCode(1) }
    }
}
