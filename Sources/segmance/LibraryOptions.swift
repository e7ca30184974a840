import ArgumentParser
import SegmanceLibrary

/// `--library DIR`, taken by every command that touches the library.
struct LibraryOptions: ParsableArguments {
    @Option(help: "The library folder.")
    var library: String = Library.defaultDirectory

    @Option(help: "Output rate in Hz the library stores audio at.")
    var rate: Int = 48_000

    func open() throws -> Library {
        try Library(directory: library, sampleRate: rate)
    }
}

/// A failure of a command at run time (not a usage mistake): printed as "Error: …", exit 1.
struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
