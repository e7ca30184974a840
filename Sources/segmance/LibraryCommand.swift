import ArgumentParser
import SegmanceCore
import SegmanceLibrary
import SegmanceStick

struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "List, show, remove and check the routines in the library; its settings and resume point.",
        subcommands: [List.self, Show.self, Remove.self, Restore.self, Check.self, SettingsCommand.self,
                      ResumeCommand.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the routines.")
        @OptionGroup var options: LibraryOptions
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let library = try options.open()
            let routines = try library.storedRoutines()
            let reports = routines.map { RoutineReport($0.routine, source: $0.sourcePath, rate: library.sampleRate) }
            if json { return try printJSON(reports) }
            if routines.isEmpty { Console.out("The library \(library.directory) is empty.\n") }
            for report in reports {
                Console.out(report.lines(rate: library.sampleRate)[0] + "\n")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a routine: parts, cuts, loops, moves.")
        @Argument(help: "The routine's title.") var routine: String
        @OptionGroup var options: LibraryOptions
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let library = try options.open()
            guard let stored = try library.routine(titled: routine) else { throw notFound(routine, in: library) }
            let report = RoutineReport(stored.routine, source: stored.sourcePath, rate: library.sampleRate)
            if json { return try printJSON(report) }
            let resume = try library.resume()
            let here =
                resume?.routine == routine ? stored.routine.parts.firstIndex { $0.title == resume?.partTitle } : nil
            let mark = resume.map { "◀ resume at \(ManifestTime.format($0.position, rate: library.sampleRate))" } ?? ""
            Console.out(
                report.lines(rate: library.sampleRate, markPart: here, markText: mark).joined(separator: "\n") + "\n")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a routine and the audio only it uses.")
        @Argument(help: "The routine's title.") var routine: String
        @OptionGroup var options: LibraryOptions

        func run() throws {
            let library = try options.open()
            guard try library.remove(titled: routine) else { throw notFound(routine, in: library) }
            Console.out("Removed \"\(routine)\".\n")
        }
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Bring back the stick's values of a routine: forget the loops, speeds, \"1\"s and count-in choice set "
                    + "on the box."
        )
        @Argument(help: "The routine's title.") var routine: String
        @OptionGroup var options: LibraryOptions

        func run() throws {
            let library = try options.open()
            guard try library.restoreStickValues(titled: routine) else { throw notFound(routine, in: library) }
            Console.out("\"\(routine)\": the stick's loops, speeds, beats and count-in are in force again.\n")
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the library is whole (SQLite integrity, media files, complete routines).",
            discussion: """
            First does what the box does when it starts: removes what an interrupted import \
            left (temporary files, media no routine uses) and says so. Exits with status 1 and \
            lists the problems when the library is not whole.
            """)
        @OptionGroup var options: LibraryOptions
        @Flag(help: "Also read every media file to its end.") var deep = false

        func run() throws {
            let library = try options.open(recover: false)
            let swept = try library.sweep(wait: true)
            for name in swept.temporaryFiles { Console.out("recovered: removed the partial file media/\(name)\n") }
            for hash in swept.orphanMedia {
                Console.out("recovered: removed media/\(hash).pcm, which no routine uses\n")
            }
            let problems = try library.verify(deep: deep)
            for problem in problems { Console.out("\(problem)\n") }
            guard problems.isEmpty else { throw ExitCode(1) }
            let count = try library.storedRoutines().count
            Console.out("The library \(library.directory) is whole: \(count) routine\(count == 1 ? "" : "s").\n")
        }
    }
}

private func notFound(_ title: String, in library: Library) -> CommandError {
    let titles = (try? library.storedRoutines().map { "\"\($0.routine.title)\"" }) ?? []
    return CommandError("no routine titled \"\(title)\" in \(library.directory)"
                           + (titles.isEmpty ? " (it is empty)" : "; it has \(titles.joined(separator: ", "))"))
}
