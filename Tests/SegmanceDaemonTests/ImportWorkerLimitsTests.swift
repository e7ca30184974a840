import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import StickTransfer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The import worker as `ProcessImportRunner` starts it (the real binary), held at a file:
/// its limits are set, it holds no descriptor of the parent's beyond the report pipe, and a
/// cancel kills and reaps it.
@Suite(.tags(.integration), .serialized) struct ImportWorkerLimitsTests {
    @Test func theWorkerRunsLimitedWithOnlyItsReportPipeAndACancelKillsIt() throws {
        let folders = TempDirs()
        let dir = try folders.make("worker-limits")
        try ImportProcessTests.writeStick(dir + "/stick")
        // A descriptor of this process without close-on-exec: the worker must not keep it.
        let leaked = open(dir + "/stick/A Salsa/01 Song.wav", O_RDONLY)
        defer { close(leaked) }
        let runner = ProcessImportRunner(executable: RunCommandTests.binary, library: dir + "/library", sampleRate: 48_000,
                                         environment: ["\(ImportWorker.stopVariable)=B Tango/01 Song.wav"])
        runner.start(dir + "/stick")
        let pid = try #require(runner.pid)
        // Wait until the worker has stopped itself at B (a stop is reported, not reaped).
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WUNTRACED) == pid)
        #expect(status & 0xFF == 0x7F && (status >> 8) & 0xFF == SIGSTOP, "status \(status)")
        #expect(runner.isRunning)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        #expect(Self.limit(limits, "Max data size") == "268435456", "\(limits)")
        #expect(Self.limit(limits, "Max cpu time") == "7200", "\(limits)")
        #expect(Self.limit(limits, "Max open files") == "64", "\(limits)")
        #expect(Self.limit(limits, "Max core file size") == "0", "\(limits)")
        // Standard streams, the report pipe, and what the import itself opened (the library,
        // the file it is on): none of this process's.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int32($0) }
        #expect(descriptors.contains(3))
        let pipe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/3")
        #expect(pipe.hasPrefix("pipe:"), "\(pipe)")
        for fd in descriptors where fd > 3 {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? ""
            #expect(!target.hasSuffix("A Salsa/01 Song.wav"), "fd \(fd): \(target)")
        }

        runner.cancel()
        let events = runner.waitUntilFinished()
        #expect(!runner.isRunning)
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        #expect(events.contains(.routine(title: "A Salsa", outcome: .added)))
        #expect(events.contains(.routineFailed(title: "B Tango", reason: "the import was cancelled: the stick went away")))
        #expect(events.last == .finished(ImportSummary(added: 1, failed: 1, stopped: "stick removed")))
    }

    /// The soft limit of the row named `name` in /proc/PID/limits.
    static func limit(_ table: String, _ name: String) -> String? {
        table.split(separator: "\n").first { $0.hasPrefix(name) }
            .map { $0.dropFirst(name.count).split(separator: " ").first.map(String.init) ?? "" }
    }
}
