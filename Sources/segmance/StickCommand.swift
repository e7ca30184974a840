import LinuxSystem
import ArgumentParser
import Foundation
import SegmanceMedia

struct Stick: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stick",
        abstract: "Look at a stick (a folder laid out like one) without importing it.",
        subcommands: [Check.self, New.self])

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a starter routine.toml in a folder of songs: one part per song, every key shown.",
            discussion: "Refuses to replace a routine.toml the folder has. `stick check` passes it with 0 problems.")

        @Argument(help: "The routine's folder (its songs in it).")
        var folder: String

        func run() throws {
            let path = folder + "/routine.toml"
            guard !FileManager.default.fileExists(atPath: path) else {
                throw CommandError("\(path) exists: it is left as it is (move it away to start anew)")
            }
            guard let names = try? Directory(folder).names() else {
                throw CommandError("\(folder) cannot be read: is it a folder?")
            }
            let songs = names.filter {
                !FileNames.isDebris($0) && AudioFormats.playableExtensions.contains(AudioFormats.fileExtension($0))
            }.sorted(by: FileNames.naturalLess)
            guard !songs.isEmpty else {
                throw CommandError("\(folder) has no songs: looked for " + StickScanner.lookedFor)
            }
            let title = URL(fileURLWithPath: folder).standardizedFileURL.lastPathComponent
            let text = ManifestWriter.starter(title: title, files: songs)
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
                throw CommandError("\(path) cannot be written")
            }
            Console.out("Wrote \(path): \(songs.count) part\(songs.count == 1 ? "" : "s"). "
                        + "Check it with: segmance stick check \(folder)\n")
        }
    }

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
            /// Guesses worth saying, no problem (a file name matched without regard to case).
            var notes: [ProblemReport]
        }

        func run() throws {
            var content = StickLoader(outputRate: rate).check(directory, label: label)
            if !StickScanner().scan(directory, label: label).routines.contains(where: \.hasMusic) {
                content.problems.append(StickProblem(path: ".", reason: "no music on this stick: looked for "
                                                     + StickScanner.lookedFor))
            }
            let routines = content.routines.map { RoutineReport($0, source: nil, rate: rate) }
            if json {
                try printJSON(Output(stick: directory, routines: routines, problems: content.problems.map(ProblemReport.init),
                                     notes: content.notes.map(ProblemReport.init)))
            } else {
                let count = content.problems.count
                Console.out("Stick \(directory): \(routines.count) routine\(routines.count == 1 ? "" : "s") to import, "
                            + "\(count) problem\(count == 1 ? "" : "s")\n")
                for routine in routines { Console.out("\n" + routine.lines(rate: rate).joined(separator: "\n") + "\n") }
                if !content.notes.isEmpty {
                    Console.out("\nNotes:\n")
                    for note in content.notes { Console.out("  \(note)\n") }
                }
                if count > 0 {
                    Console.out("\nProblems:\n")
                    for problem in content.problems { Console.out("  \(problem)\n") }
                }
            }
            if !content.problems.isEmpty { throw ExitCode(1) }
        }
    }
}
