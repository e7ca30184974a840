import ArgumentParser
import SegmanceBoard
import SegmanceLibrary
#if canImport(Glibc)
import Glibc
#endif

/// `--library DIR`, taken by every command that touches the library. Without it, the
/// library is the one the daemon's configuration names (`--config`, by default
/// /etc/segmance/segmance.toml, when that file exists), else /var/lib/segmance.
struct LibraryOptions: ParsableArguments {
    @Option(help: "The library folder (default: the configuration's `library`, else \(Library.defaultDirectory)).")
    var library: String?

    @Option(help: "The daemon configuration whose library is meant when --library is not given.")
    var config: String = "/etc/segmance/segmance.toml"

    @Option(help: "Output rate in Hz the library stores audio at.")
    var rate: Int = 48_000

    /// The folder meant: `--library`, the configuration's, or the default.
    func directory() throws -> String {
        if let library { return library }
        guard access(config, F_OK) == 0 else { return Library.defaultDirectory }
        return try DaemonConfiguration(parsing: try readFile(config), file: config).library
    }

    /// The library, with what an interrupted import left removed unless `recover` is false.
    func open(recover: Bool = true) throws -> Library {
        try Library(directory: try directory(), sampleRate: rate, recover: recover)
    }
}

/// A failure of a command at run time (not a usage mistake): printed as "Error: …", exit 1.
struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
