import LinuxSystem
import SegmanceCore
import SegmanceMedia
#if canImport(Glibc)
import Glibc
#endif

/// The child side of `ProcessImportRunner`: runs one import in a process of its own
/// (`segmance import-worker`) and writes each event as an `ImportReportLine` on the report
/// descriptor. The decoders (libsndfile, FFmpeg, soxr) and SQLite run here, so a decoder
/// that crashes on a hostile file, or the memory they use, never reaches the daemon.
public enum ImportWorker {
    /// The limits the worker puts on itself before it opens anything.
    public struct Limits: Sendable {
        /// Heap and private mappings (RLIMIT_DATA), bytes.
        public var data: UInt64 = 256 << 20
        /// CPU seconds for the whole import (RLIMIT_CPU): a decoder stuck in a loop ends.
        public var cpuSeconds: UInt64 = 2 * 3600
        /// Open descriptors (RLIMIT_NOFILE).
        public var files: UInt64 = 64
        public init() {}
    }

    /// The variable that, in the worker only, makes it crash (SIGSEGV) as it reaches the file
    /// named (relative to the stick): how tests show a decoder crash is a reported problem.
    public static let crashVariable = "SEGMANCE_IMPORT_WORKER_CRASH_ON"
    /// The variable that, in the worker only, makes it stop (SIGSTOP) as it reaches the file
    /// named: how tests hold an import mid-routine to pull the stick.
    public static let stopVariable = "SEGMANCE_IMPORT_WORKER_STOP_ON"

    /// Imports `stick` (labelled `label`) into the library at `library`, reporting on `reportDescriptor`;
    /// returns the exit status (0 when the import ran to its end, whatever it found).
    public static func run(stick: String, label: String? = nil, library directory: String, sampleRate: Int,
                           reportDescriptor: Int32, limits: Limits = Limits()) -> Int32 {
        // Nothing inherited but the standard streams and the report pipe; no core dump of
        // a crash; gone with the daemon.
        try? CurrentProcess.closeDescriptors(from: max(3, reportDescriptor + 1))
        try? CurrentProcess.signalWhenParentEnds(SIGKILL)
        for (resource, value) in [(RLIMIT_DATA, limits.data), (RLIMIT_CPU, limits.cpuSeconds),
                                  (RLIMIT_NOFILE, limits.files), (RLIMIT_CORE, 0)] {
            var limit = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
            if resource == RLIMIT_CPU { limit.rlim_max = rlim_t(value + 10) }
            if setrlimit(__rlimit_resource_t(resource.rawValue), &limit) != 0 {
                let problem = StickProblem(path: ".", reason: "setrlimit: \(SystemError.text(errno))")
                write(reportDescriptor, .event(.problem(problem)))
            }
        }
        let crashOn = getenv(crashVariable).map { String(cString: $0) }
        let stopOn = getenv(stopVariable).map { String(cString: $0) }
        let library: Library
        do {
            library = try Library(directory: directory, sampleRate: sampleRate)
        } catch {
            write(reportDescriptor, .event(.problem(StickProblem(path: ".", reason: "\(error)"))))
            write(reportDescriptor, .event(.finished(ImportSummary(stopped: "library error"))))
            return 2
        }
        let importer = Importer(library: library) { file in
            write(reportDescriptor, .file(file))
            if file == stopOn { raise(SIGSTOP) }
            if file == crashOn {
                // A real fault, as a decoder's bad read is (raise() would return from
                // the runtime's crash handler).
                UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 0
            }
        }
        importer.run(stick, label: label) { write(reportDescriptor, .event($0)) }
        return 0
    }

    private static func write(_ fd: Int32, _ line: ImportReportLine) {
        var bytes = Array(line.text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            // The daemon is gone (EPIPE) or the pipe broke: nobody is left to tell.
            if n <= 0 { exit(4) }
            done += n
        }
    }
}
