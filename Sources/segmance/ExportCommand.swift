import ArgumentParser
import SegmanceLibrary
import StickTransfer

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a routine of the library as a routine folder a box imports back to the same routine.",
        discussion: """
        Writes DIR/Segmance/ROUTINE/routine.toml and one WAV per song its parts use, as *Save to \
        stick* does: nothing that exists is changed (a folder of that name gets " 2"), the \
        folder is written under a dot name, fsynced and renamed into place. Exits with status \
        1 when it was not written (not enough room, a read-only folder), leaving no folder.
        """)

    @Argument(help: "The routine's title.")
    var routine: String

    @Argument(help: "The folder to write into: a stick's mount point or any folder.")
    var directory: String

    @OptionGroup var options: LibraryOptions

    func run() throws {
        let library = try options.open()
        do {
            let folder = try RoutineExporter(library: library).export(titled: routine, into: directory)
            Console.out("Wrote \"\(routine)\" to \(directory)/\(folder)\n")
        } catch {
            throw CommandError("\"\(routine)\" not written to \(directory): \(error)")
        }
    }
}
