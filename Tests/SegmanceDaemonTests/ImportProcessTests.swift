import Foundation
import SegmanceAudio
import SegmanceBoard
import SegmanceCore
@testable import SegmanceDaemon
import SegmanceLibrary
import SegmanceTestSupport
import StickTransfer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The daemon imports in a child process (`segmance import-worker`, the real binary): the
/// routines arrive through the report pipe; a worker that crashes on a file is a reported
/// problem naming the file, and the daemon goes on and plays; a stick pulled out kills the
/// worker and the library keeps what it had before that routine.
@Suite(.tags(.integration), .serialized) struct ImportProcessTests {
    static let profileText = """
        name = "test box"
        [[input]]
        device = "Test Pedal"
        keys = { KEY_P = "play" }
        [display]
        kind = "terminal"
        columns = 16
        rows = 2
        [audio]
        device = "null"
        """

    /// Two routines of one short part each: "A Salsa" then "B Tango".
    static func writeStick(_ stick: String) throws {
        for routine in ["A Salsa", "B Tango"] {
            try TestFiles.mkdir(stick + "/" + routine)
            try TestFiles.tone(stick + "/\(routine)/01 Song.wav", seconds: 1)
        }
    }

    struct Running {
        let thread: DaemonThread
        let log: Transcript
        let screen: Transcript
        let audio: RecordingAudioEngine
        let inputs: FakeInputDirectory
    }

    /// The daemon in this process, auto-import on, its import worker the real `segmance`.
    static func start(dir: String, mountinfo: String?, workerEnvironment: [String]) throws -> Running {
        let profile = try BoardProfile(parsing: profileText, file: "test.toml")
        let inputs = FakeInputDirectory()
        inputs.plug("event0")
        let log = Transcript(), screen = Transcript(), audio = RecordingAudioEngine()
        var environment = Daemon.Environment { _, _ in StandInAudio(engine: audio) }
        let folder = inputs.path
        environment.paths.inputDevices = folder
        environment.paths.nameReader = { path in path.hasPrefix(folder + "/event") ? "Test Pedal" : nil }
        if let mountinfo { environment.paths.mountinfo = mountinfo }
        environment.log = Log { log.append($0) }
        environment.terminal = { screen.append($0) }
        environment.importWorker = RunCommandTests.binary
        // The worker's crash backtrace is not what these tests read.
        environment.importWorkerEnvironment = ["SWIFT_BACKTRACE=enable=no"] + workerEnvironment
        var configuration = DaemonConfiguration(board: "test.toml", library: dir + "/library",
                                                mediaRoot: dir + "/media", autoImport: true)
        configuration.stickStatus = dir + "/stick-status"
        let thread = try DaemonThread(Daemon(configuration: configuration, profile: profile, environment: environment))
        return Running(thread: thread, log: log, screen: screen, audio: audio, inputs: inputs)
    }

    /// A stick the mount table lists when the daemon starts (offered and imported at once).
    static func mountedStick(_ dir: String) throws -> String {
        let stick = dir + "/media/sdz1"
        try writeStick(stick)
        try TestFiles.writeText("""
            1 0 254:0 / / rw - ext4 /dev/vda rw
            36 1 8:1 / \(stick) ro,nosuid,nodev,noexec - vfat /dev/sdz1 ro
            """, to: dir + "/mountinfo")
        return dir + "/mountinfo"
    }

    /// The worker's pid from the daemon's log line.
    static func workerPID(_ log: Transcript) -> pid_t? {
        log.lines.lazy.compactMap { line -> pid_t? in
            guard line.hasPrefix("import: worker ") else { return nil }
            return pid_t(line.dropFirst("import: worker ".count).prefix { $0.isNumber })
        }.first
    }

    static func isGone(_ pid: pid_t) -> Bool { kill(pid, 0) == -1 && errno == ESRCH }

    @Test func theDaemonImportsThroughAChildProcess() throws {
        let folders = TempDirs()
        let dir = try folders.make("import-child")
        let running = try Self.start(dir: dir, mountinfo: try Self.mountedStick(dir), workerEnvironment: [])
        #expect(running.log.wait { $0.hasPrefix("import: worker ") && $0.hasSuffix(" importing \(dir)/media/sdz1") },
                "\(running.log.lines)")
        let worker = try #require(Self.workerPID(running.log))
        #expect(worker != getpid())
        #expect(running.log.wait(seconds: 60) { $0 == "import: A Salsa: added" }, "\(running.log.lines)")
        #expect(running.log.wait(seconds: 60) { $0 == "import: B Tango: added" }, "\(running.log.lines)")
        #expect(running.screen.wait(seconds: 30) { $0.contains("2 new") }, "\(running.screen.lines.suffix(3))")
        #expect(running.thread.stop())
        #expect(running.thread.error.withLock { $0 } == nil)
        #expect(running.thread.daemon.state.routines.map(\.title) == ["A Salsa", "B Tango"])
        // Reaped, not left a zombie.
        #expect(Self.isGone(worker))
        #expect(!running.log.lines.contains { $0.contains("crashed") || $0.contains("not imported") },
                "\(running.log.lines)")
    }

    @Test func aWorkerThatCrashesIsAProblemNamingTheFileAndTheDaemonPlaysOn() throws {
        let folders = TempDirs()
        let dir = try folders.make("import-crash")
        let running = try Self.start(dir: dir, mountinfo: try Self.mountedStick(dir),
                                     workerEnvironment: ["\(ImportWorker.crashVariable)=B Tango/01 Song.wav"])
        let reason = "import stopped: the importer crashed (signal 11) on B Tango/01 Song.wav"
        #expect(running.log.wait(seconds: 60) { $0 == "import: A Salsa: added" }, "\(running.log.lines)")
        #expect(running.log.wait(seconds: 60) { $0 == "import: B Tango not imported: \(reason)" },
                "\(running.log.lines)")
        #expect(running.log.wait { $0 == "import: B Tango/01 Song.wav: \(reason)" }, "\(running.log.lines)")
        let worker = try #require(Self.workerPID(running.log))
        #expect(Self.isGone(worker))
        // The LCD: the summary says the import stopped and why.
        #expect(running.screen.wait(seconds: 30) { $0.contains("Import stopped") }, "\(running.screen.lines.suffix(3))")
        #expect(running.screen.lines.contains { $0.contains("importer crashed") }, "\(running.screen.lines.suffix(6))")

        // Still running, and it plays what was imported.
        running.inputs.key("event0", code: 25, down: true)   // KEY_P: PLAY
        running.inputs.key("event0", code: 25, down: false)
        #expect(running.log.wait { $0.hasPrefix("control: press play at part 1") }, "\(running.log.lines)")
        #expect(running.thread.stop())
        #expect(running.thread.error.withLock { $0 } == nil)
        let played = running.audio.sent.withLock { sent in
            sent.contains { if case .play = $0.command { true } else { false } }
        }
        #expect(played)
        #expect(running.thread.daemon.state.routines.map(\.title) == ["A Salsa"])
        let library = try Library(directory: dir + "/library")
        #expect(try library.routines().map(\.title) == ["A Salsa"])
        #expect(try library.verify(deep: true) == [])
    }

    @Test(.enabled(if: Mounts.permitted, "pulling a mounted stick out needs CAP_SYS_ADMIN"))
    func pullingTheStickKillsTheWorkerAndTheLibraryIsWhole() throws {
        let folders = TempDirs()
        let dir = try folders.make("import-cancel")
        try TestFiles.mkdir(dir + "/media/sdz1")
        try Self.writeStick(dir + "/stick")
        // The worker holds itself at B's file: the stick is pulled out mid-routine.
        let running = try Self.start(dir: dir, mountinfo: nil,
                                     workerEnvironment: ["\(ImportWorker.stopVariable)=B Tango/01 Song.wav"])
        var mounted = false
        defer { if mounted { umount2(dir + "/media/sdz1", Int32(MNT_DETACH)) } }
        #expect(running.log.wait { $0.hasPrefix("ready: ") })
        #expect(mount(dir + "/stick", dir + "/media/sdz1", nil, UInt(MS_BIND), nil) == 0)
        mounted = true
        #expect(running.log.wait(seconds: 60) { $0 == "import: A Salsa: added" }, "\(running.log.lines)")
        let worker = try #require(Self.workerPID(running.log))
        #expect(running.screen.wait(seconds: 30) { $0.contains("B Tango") }, "\(running.screen.lines.suffix(3))")

        #expect(umount2(dir + "/media/sdz1", Int32(MNT_DETACH)) == 0)
        mounted = false
        #expect(running.log.wait(seconds: 30) {
            $0 == "import: B Tango not imported: the import was cancelled: the stick went away"
        }, "\(running.log.lines)")
        #expect(Self.isGone(worker))
        #expect(running.screen.wait(seconds: 30) { $0.contains("stick removed") }, "\(running.screen.lines.suffix(3))")
        #expect(running.thread.stop())
        #expect(running.thread.error.withLock { $0 } == nil)
        #expect(!running.log.lines.contains { $0.contains("crashed") }, "\(running.log.lines)")
        let library = try Library(directory: dir + "/library")
        #expect(try library.routines().map(\.title) == ["A Salsa"])
        #expect(try library.verify(deep: true) == [])
    }
}
