import ArgumentParser
import SegmanceLibrary
import StickTransfer

/// The daemon's import, in a process of its own (`ProcessImportRunner` starts it): not for
/// people, so not listed in `--help`.
struct ImportWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-worker",
        abstract: "Import a stick for the daemon, reporting on a descriptor (internal).",
        shouldDisplay: false)

    @Option(help: "The library's folder.")
    var library: String

    @Option(help: "The library's sample rate, in Hz.")
    var rate: Int

    @Option(name: .customLong("report-fd"), help: "The descriptor the import's events are written to, a line each.")
    var reportDescriptor: Int32

    @Option(help: "The stick's volume label (names the routine of loose songs at its root).")
    var label: String?

    @Argument(help: "The stick's folder (its mount point).")
    var directory: String

    func run() throws {
        let status = ImportWorker.run(stick: directory, label: label, library: library, sampleRate: rate,
                                      reportDescriptor: reportDescriptor)
        if status != 0 { throw ExitCode(status) }
    }
}
