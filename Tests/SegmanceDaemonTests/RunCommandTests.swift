import Foundation
import SegmanceDaemon
import SegmanceLibrary
import SegmanceStick
import SegmanceTestSupport
import StickTransfer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real `segmance run` binary as systemd starts it: configuration and profile from
/// files, a library on disk, READY and WATCHDOG over NOTIFY_SOCKET, SIGTERM → STOPPING,
/// a clean exit 0. The audio goes to alsa-lib's `null` PCM (no sound card here).
@Suite(.tags(.integration), .serialized) struct RunCommandTests {
    static var binary: String {
        if let given = ProcessInfo.processInfo.environment["SEGMANCE_BIN"] { return given }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return bundle.deletingLastPathComponent().appendingPathComponent("segmance").path
    }

    /// A box in `dir`: the demo stick's routines in its library, the LCD on the terminal,
    /// the audio to alsa-lib's `null` PCM.
    static func writeNullBox(in dir: String) throws {
        try DemoStick.write(to: dir + "/stick")
        let summary = Importer(library: try Library(directory: dir + "/library")).run(dir + "/stick") { _ in }
        #expect(summary.added == 2 && summary.failed == 0)
        try TestFiles.writeText("""
            name = "test box"
            [display]
            kind = "terminal"
            [audio]
            device = "null"
            """, to: dir + "/board.toml")
        try TestFiles.writeText("""
            board = "board.toml"
            library = "library"
            media_root = "media"
            realtime_priority = 0
            """, to: dir + "/segmance.toml")
    }

    @Test func theServiceStartsReportsReadyPingsTheWatchdogAndStopsCleanlyOnSIGTERM() throws {
        let folders = TempDirs()
        let dir = try folders.make("run")
        try Self.writeNullBox(in: dir)

        let manager = SystemdNotifierTests.ManagerSocket(abstract: false)
        let log = dir + "/stderr.txt"
        let pid = try spawnSegmance(["run", "--config", dir + "/segmance.toml"], stderr: log,
                                    environment: ["NOTIFY_SOCKET=\(manager.name)", "WATCHDOG_USEC=200000",
                                                  "PATH=/usr/bin:/bin"])

        let ready = manager.receive()
        #expect(ready.hasPrefix("READY=1\nSTATUS=Ready: test box"), "first notification: \(ready)")
        // The watchdog asked for a ping every 200 ms; the loop sends one every 100 ms.
        #expect(manager.receive() == "WATCHDOG=1")
        #expect(kill(pid, SIGTERM) == 0)
        var next = manager.receive()
        while next == "WATCHDOG=1" { next = manager.receive() }
        #expect(next == "STOPPING=1")
        #expect(waitFor(pid) == 0)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        // Each log line with its priority for journald (`<6>` info, `<5>` notice).
        #expect(lines.contains { $0.hasPrefix("<6>ready: test box, audio null") })
        #expect(lines.contains("<5>signal SIGTERM: stopping"))
        #expect(lines.last == "<5>stopped", "log: \(lines)")
    }

    /// The audio side locks the daemon's memory (`mlockall(MCL_CURRENT | MCL_FUTURE)`), and
    /// the kernel then counts every mapping in full against the service's LimitMEMLOCK, used
    /// or not: an allocation past it fails (the box's daemon died of `std::bad_alloc` making
    /// the stretchers at a speed change, with two malloc arenas reserving 128 MB). Ready, the
    /// daemon's address space is under half of the limit, the rest for what playing adds
    /// (the stretchers and their thread, a part's mapped audio).
    @Test func theAddressSpaceTheLockCountsIsUnderHalfOfLimitMEMLOCK() throws {
        let folders = TempDirs()
        let dir = try folders.make("run")
        try Self.writeNullBox(in: dir)
        let manager = SystemdNotifierTests.ManagerSocket(abstract: false)
        let pid = try spawnSegmance(["run", "--config", dir + "/segmance.toml"], stderr: dir + "/stderr.txt",
                                    environment: ["NOTIFY_SOCKET=\(manager.name)", "PATH=/usr/bin:/bin"])
        #expect(manager.receive().hasPrefix("READY=1"))
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let maps = (try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)) ?? ""
        #expect(kill(pid, SIGTERM) == 0)
        #expect(waitFor(pid) == 0)
        let kilobytes = { (key: String) -> Int? in
            status.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                .flatMap { Int($0.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") }
        }
        guard !Sanitizer.active else {
            print("address space not judged: a sanitizer's shadow memory reserves terabytes (\(kilobytes("VmSize") ?? 0) KiB)")
            return
        }
        let size = try #require(kilobytes("VmSize")), locked = kilobytes("VmLck") ?? 0
        let limit = try #require(try Self.serviceMemlockLimitKiB())
        print("segmance run, ready: \(size / 1024) MB of address space, \(locked / 1024) MB locked; "
              + "LimitMEMLOCK \(limit / 1024) MB")
        #expect(size <= limit / 2, Comment(rawValue: "\(size) KiB of address space at ready; LimitMEMLOCK "
                    + "\(limit) KiB; the largest: \(Self.largestMappings(maps))"))
    }

    /// The address space of `/proc/PID/maps` text by what is mapped (a file, or the kind of
    /// anonymous mapping), the eight largest, in KiB.
    static func largestMappings(_ maps: String) -> String {
        var sizes: [String: Int] = [:]
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let bounds = fields.first?.split(separator: "-") ?? []
            guard bounds.count == 2, let start = Int(bounds[0], radix: 16), let end = Int(bounds[1], radix: 16)
            else { continue }
            let name = fields.count > 5 ? fields[5...].joined(separator: " ") : "[anonymous \(fields[1])]"
            sizes[name, default: 0] += (end - start) / 1024
        }
        return sizes.sorted { $0.value > $1.value }.prefix(8).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    /// The service's LimitMEMLOCK (deploy/segmance.service), in KiB.
    static func serviceMemlockLimitKiB() throws -> Int? {
        let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/segmance.service").path
        let line = try String(contentsOfFile: unit, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("LimitMEMLOCK=") }
        guard let value = line?.dropFirst("LimitMEMLOCK=".count), value.hasSuffix("M"),
              let megabytes = Int(value.dropLast()) else { return nil }
        return megabytes * 1024
    }

    /// `segmance library …` without --library works on the library the daemon's
    /// configuration names, as a person on the device expects.
    @Test func libraryCommandsUseTheConfiguredLibrary() throws {
        let folders = TempDirs()
        let dir = try folders.make("run")
        try DemoStick.write(to: dir + "/stick")
        _ = Importer(library: try Library(directory: dir + "/lib")).run(dir + "/stick") { _ in }
        try TestFiles.writeText("board = \"board.toml\"\nlibrary = \"lib\"\n", to: dir + "/segmance.toml")
        let out = dir + "/out.txt"
        #expect(waitFor(try spawnSegmance(["library", "list", "--config", dir + "/segmance.toml"], stdout: out)) == 0)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("Warm-up Session") && text.contains("Street Jam"), "\(text)")
    }

    @Test func aBadConfigurationIsAClearErrorNamingTheFileAndKey() throws {
        let folders = TempDirs()
        let dir = try folders.make("run")
        try TestFiles.writeText("board = \"board.toml\"\nrealtime_priority = 200\n", to: dir + "/segmance.toml")
        let err = dir + "/stderr.txt"
        #expect(waitFor(try spawnSegmance(["run", "--config", dir + "/segmance.toml"], stderr: err)) != 0)
        let text = try String(contentsOfFile: err, encoding: .utf8)
        // One line, at error priority for journald.
        #expect(text == "<3>\(dir)/segmance.toml: realtime_priority: must be 0 (normal scheduling) or a SCHED_FIFO "
                              + "priority 1...99, not 200\n", "\(text)")
    }
}

/// Starts the `segmance` binary with `arguments`, standard output and error to files when
/// given, in `environment` (this process's when nil); returns its pid.
func spawnSegmance(_ arguments: [String], stdout: String? = nil, stderr: String? = nil,
                   environment: [String]? = nil) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdout { posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
    if let stderr { posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
    let argv = cStrings([RunCommandTests.binary] + arguments)
    var env = environment.map(cStrings)
    defer { (argv + (env ?? [])).forEach { free($0) } }
    var pid: pid_t = 0
    let code = env == nil ? posix_spawn(&pid, RunCommandTests.binary, &actions, nil, argv, environ)
        : posix_spawn(&pid, RunCommandTests.binary, &actions, nil, argv, &env!)
    guard code == 0 else {
        throw TestFailure("posix_spawn \(RunCommandTests.binary): \(String(cString: strerror(code)))")
    }
    return pid
}

/// Waits for `pid`: its exit status, or 128 + the signal that ended it.
func waitFor(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status & 0x7f != 0 ? 128 + (status & 0x7f) : (status >> 8) & 0xff
}

/// A NULL-terminated C string array for `posix_spawn`; free each element.
func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] {
    strings.map { strdup($0) } + [nil]
}
