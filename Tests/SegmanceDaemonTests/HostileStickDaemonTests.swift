import Foundation
import SegmanceBoard
import SegmanceCore
import SegmanceDaemon
import SegmanceLibrary
import SegmanceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real `segmance run` with auto-import on, as systemd starts it, when a stick holding
/// every hostile manifest is mounted under its media root: it imports the good routine,
/// says on the LCD and in its log why each other one was refused, and is still running
/// (before, the daemon died the moment the stick went in).
@Suite(.tags(.integration), .serialized) struct HostileStickDaemonTests {
    @Test(.enabled(if: Mounts.permitted, "mounting the stick under the daemon's media root needs CAP_SYS_ADMIN"))
    func theDaemonSurvivesAHostileStickAndSaysWhy() throws {
        let folders = TempDirs()
        let dir = try folders.make("daemon-hostile")
        try HostileSticks.write(to: dir + "/stick")
        try TestFiles.mkdir(dir + "/media/sdz1")
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
            auto_import = true
            realtime_priority = 0
            """, to: dir + "/segmance.toml")

        let manager = SystemdNotifierTests.ManagerSocket(abstract: false)
        let output = try OutputPipe()
        let pid = try output.spawn([RunCommandTests.binary, "run", "--config", dir + "/segmance.toml"],
                                   environment: ["NOTIFY_SOCKET=\(manager.name)", "PATH=/usr/bin:/bin"])
        var mounted = false
        defer {
            if mounted { umount2(dir + "/media/sdz1", Int32(MNT_DETACH)) }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL); _ = waitFor(pid) }
        }
        #expect(manager.receive().hasPrefix("READY=1"))

        // The stick arrives as udev's helper mounts it: read-only, nosuid, nodev, noexec.
        #expect(mount(dir + "/stick", dir + "/media/sdz1", nil, UInt(MS_BIND), nil) == 0)
        mounted = true
        let flags = UInt(MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        #expect(mount(nil, dir + "/media/sdz1", nil, flags, nil) == 0)

        // The log: every refusal with its file and reason, in the stick's order, and the good routine.
        for (path, reason) in HostileSticks.expectedProblems {
            #expect(output.wait(seconds: 60) { $0.hasSuffix("import: \(path): \(reason)") }, "\(path): \(output.text)")
        }
        #expect(output.lines.contains { $0.hasSuffix("import: Good: added") }, "\(output.text)")
        print("hostile stick in the daemon: log complete at \(output.elapsed) s")
        // The LCD (the terminal display's frames): the summary, then how many problems there
        // are and where to read them whole (the menu's *Problems*).
        #expect(output.wait(seconds: 30) { $0.hasPrefix("│1 new, 3 failed │") }, "\(output.text)")
        #expect(output.wait(seconds: 30) { $0.hasPrefix("│Menu: Problems  │") }, "\(output.text)")
        print("hostile stick in the daemon: LCD done at \(output.elapsed) s")

        #expect(kill(pid, 0) == 0, "the daemon is gone")
        #expect(kill(pid, SIGTERM) == 0)
        #expect(waitFor(pid) == 0)
        #expect(output.wait(seconds: 10) { $0 == "<5>stopped" })
        let library = try Library(directory: dir + "/library")
        #expect(try library.routines().map(\.title) == ["Good"])
    }
}

/// The same daemon loop in this process, with no mount needed: the mount table is a file
/// that lists the stick as mounted when the daemon starts (it is offered, and with
/// auto-import imported, like one plugged in). Runs where mounting is not permitted.
@Suite(.tags(.integration), .serialized) struct HostileStickDaemonLoopTests {
    @Test func theDaemonLoopSurvivesAHostileStickAndSaysWhy() throws {
        let folders = TempDirs()
        let dir = try folders.make("loop-hostile")
        let stick = dir + "/media/sdz1"
        try HostileSticks.write(to: stick)
        try TestFiles.writeText("""
            1 0 254:0 / / rw - ext4 /dev/vda rw
            36 1 8:1 / \(stick) ro,nosuid,nodev,noexec - vfat /dev/sdz1 ro
            """, to: dir + "/mountinfo")
        let profile = try BoardProfile(parsing: DaemonLoopTests.profileText, file: "test.toml")
        let inputs = FakeInputDirectory()
        let log = Transcript(), screen = Transcript()
        var environment = Daemon.Environment { _, _ in StandInAudio(engine: RecordingAudioEngine()) }
        environment.paths.inputDevices = inputs.path
        environment.paths.mountinfo = dir + "/mountinfo"
        environment.log = Log { log.append($0) }
        environment.terminal = { screen.append($0) }
        environment.importWorker = RunCommandTests.binary
        let configuration = DaemonConfiguration(board: "test.toml", library: dir + "/library",
                                                mediaRoot: dir + "/media", autoImport: true)
        let daemon = try DaemonThread(Daemon(configuration: configuration, profile: profile, environment: environment))

        for (path, reason) in HostileSticks.expectedProblems {
            #expect(log.wait(seconds: 60) { $0.hasSuffix("import: \(path): \(reason)") }, "\(path): \(log.lines)")
        }
        #expect(log.wait { $0 == "import: Good: added" }, "\(log.lines)")
        #expect(screen.wait(seconds: 30) { $0.contains("│Menu: Problems  │") }, "\(screen.lines.suffix(3))")
        #expect(daemon.stop())
        // Every problem, file and reason, kept for the problems view.
        let problems = daemon.daemon.state.problems
        for (path, reason) in HostileSticks.expectedProblems {
            #expect(problems.contains { $0.file == path && $0.reason == reason }, "\(path): \(problems)")
        }
        #expect(daemon.error.withLock { $0 } == nil)
        #expect(daemon.daemon.state.routines.map(\.title) == ["Good"])
    }
}

/// A child's standard output and error through a pipe, read line by line with a deadline.
final class OutputPipe {
    private let readEnd: Int32
    private var writeEnd: Int32
    private var pending: [UInt8] = []
    private(set) var lines: [String] = []
    private let start = OutputPipe.monotonic()

    /// Seconds since the pipe was made, for the test's log.
    var elapsed: Double { Double(Self.monotonic() - start) / 1e9 }

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        readEnd = fds[0]
        writeEnd = fds[1]
        // Neither end may leak into other children (the spawn dup2s the write end for its own).
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
    }

    deinit {
        close(readEnd)
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// The last lines read, escape sequences shown as "^[", for a failure's message.
    var text: String {
        lines.suffix(60).joined(separator: "\n").replacingOccurrences(of: "\u{1B}", with: "^[")
    }

    /// Starts `arguments` with both its outputs into the pipe; returns its pid.
    func spawn(_ arguments: [String], environment: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        let argv = cStrings(arguments)
        var env = cStrings(environment)
        defer { (argv + env).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, arguments[0], &actions, nil, argv, &env)
        close(writeEnd)
        writeEnd = -1
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
        return pid
    }

    /// Reads until a line satisfies `match` or `seconds` pass (or the child closed its end).
    func wait(seconds: Double, for match: (String) -> Bool) -> Bool {
        if lines.contains(where: match) { return true }
        let deadline = Self.monotonic() + Int64(seconds * 1e9)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline - Self.monotonic()
            guard left > 0 else { return false }
            var ready = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Int32(min(left / 1_000_000 + 1, 60_000)))
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { continue }
            let n = read(readEnd, &buffer, buffer.count)
            if n <= 0 { return false }
            pending += buffer[0..<n]
            var found = false
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                lines.append(line)
                if match(line) { found = true }
            }
            if found { return true }
        }
    }

    static func monotonic() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }
}
