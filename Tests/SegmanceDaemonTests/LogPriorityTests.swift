import Glibc
import LinuxSystem
import SegmanceBoard
@testable import SegmanceDaemon
import SegmanceLibrary
import SegmanceTestSupport
import StickTransfer
import Testing

/// The daemon's lines carry the priority journald files them at (`<3>` error … `<7>` debug,
/// sd-daemon's prefixes on standard error): the problems show under
/// `journalctl -u segmance -p warning`, a normal start does not.
@Suite(.serialized, .tags(.integration)) struct LogPriorityTests {
    /// The daemon with its log written as standard error gets it: each line with its prefix.
    static func start(library: String? = nil, stickStatus: String? = nil, mediaRoot: String? = nil,
                      mountinfo: String? = nil, audio: StandInAudio? = nil, inputs: FakeInputDirectory = .init(),
                      folders: TempDirs) throws -> (running: DaemonThread, log: Transcript) {
        let log = Transcript()
        let profile = try BoardProfile(parsing: DaemonLoopTests.profileText, file: "test.toml")
        let side = audio ?? StandInAudio(engine: RecordingAudioEngine())
        var environment = Daemon.Environment { _, _ in side }
        let folder = inputs.path
        environment.paths.inputDevices = folder
        environment.paths.nameReader = { path in path.hasPrefix(folder + "/event") ? "Test Pedal" : nil }
        if let mountinfo { environment.paths.mountinfo = mountinfo }
        environment.log = Log(entries: { log.append(Log.line($0, $1)) })
        environment.terminal = { _ in }
        var configuration = DaemonConfiguration(board: "test.toml", library: try library ?? folders.make("library"),
                                                mediaRoot: try mediaRoot ?? folders.make("media"))
        configuration.stickStatus = try stickStatus ?? folders.make("stick-status")
        let daemon = try Daemon(configuration: configuration, profile: profile, environment: environment)
        return (try DaemonThread(daemon), log)
    }

    /// What `Log.standardError` writes: the prefix, the text and a newline, read back from a pipe.
    @Test(arguments: Log.Priority.allCases)
    func aLineIsWrittenWithItsPrefix(priority: Log.Priority) throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        Log.writing(to: fds[1])(priority, "stick: refused")
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fds[0], &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self) == "<\(priority.rawValue)>stick: refused\n")
    }

    /// Start-up, then the way out `stop()` takes: every line is info or notice, so
    /// `journalctl -p warning` shows nothing of it.
    @Test func aNormalStartAndStopAreInfoOrNotice() throws {
        let folders = TempDirs()
        let (running, log) = try Self.start(folders: folders)
        #expect(log.wait { $0.hasPrefix("<6>ready: test box") }, "\(log.lines)")
        #expect(running.stop())
        #expect(log.lines.last == "<5>stopped")
        #expect(log.lines.allSatisfy { $0.hasPrefix("<5>") || $0.hasPrefix("<6>") }, "\(log.lines)")
    }

    /// A stick the mount helper refused, and one whose routine.toml has problems: warnings.
    @Test func aRefusedStickAndAFileProblemAreWarnings() throws {
        let folders = TempDirs()
        let status = try folders.make("stick-status")
        let message = "/dev/sdb2 is APFS (a Mac's default format), which Linux cannot read: reformat the stick as exFAT"
        try TestFiles.writeText("device=/dev/sdb2\nfilesystem=apfs\nreason=apfs\nmessage=\(message)\n",
                                to: status + "/sdb2")
        let media = try folders.make("media")
        let stick = media + "/sdz1"
        try TestFiles.mkdir(stick + "/Salsa")
        try TestFiles.tone(stick + "/Salsa/01 Song.wav", seconds: 1)
        try TestFiles.writeText("title = [\"Salsa\"\n", to: stick + "/Salsa/routine.toml") // TOML that does not parse
        let mountinfo = try folders.make("proc") + "/mountinfo"
        try TestFiles.writeText("1 0 254:0 / / rw - ext4 /dev/vda rw\n"
                                + "36 1 8:1 / \(stick) ro,nosuid,nodev,noexec - vfat /dev/sdz1 ro\n", to: mountinfo)
        let (running, log) = try Self.start(stickStatus: status, mediaRoot: media, mountinfo: mountinfo,
                                            folders: folders)
        #expect(log.wait { $0 == "<4>stick: \(message)" }, "\(log.lines)")
        #expect(log.wait { $0.hasPrefix("<4>stick \(stick): Salsa: its routine.toml has problems") }, "\(log.lines)")
        #expect(running.stop())
    }

    /// What the audio side reports (an underrun) is logged at the priority it gives, and the
    /// engine's lines get theirs: what a normal start logs is info, an underrun a warning.
    @Test func theAudioSidesLinesKeepTheirPriority() throws {
        let folders = TempDirs()
        let wake = try EventDescriptor()
        let audio = StandInAudio(engine: RecordingAudioEngine(), wakeDescriptor: wake.fileDescriptor)
        let (running, log) = try Self.start(audio: audio, folders: folders)
        #expect(log.wait { $0.hasPrefix("<6>ready: ") })
        audio.report(.warning, "audio: underrun at output frame 4096 (1 so far); recovered")
        wake.signal()
        #expect(log.wait { $0 == "<4>audio: underrun at output frame 4096 (1 so far); recovered" }, "\(log.lines)")
        #expect(running.stop())
    }

    /// The engine's lines (RealtimeAudioEngine's texts) and the priority each is logged at.
    @Test(arguments: [
        ("audio: hw:Loopback,0,0 S16_LE 48000 Hz, period 512 frames × 4 (buffer 42.7 ms); render thread "
            + "SCHED_FIFO priority 70, memory locked", Log.Priority.info),
        ("audio: speed: 2 stretchers made for 3 voices and warmed up in 812 ms", .info),
        ("audio: underrun at output frame 4096 (1 so far); recovered", .warning),
        ("audio: command of epoch 7 for frame 96000 arrived late; applied at 96512", .warning),
        ("audio: SCHED_FIFO priority 70 not permitted (Operation not permitted); the render thread runs at "
            + "normal priority", .warning),
        ("audio: memory not locked (mlockall: Cannot allocate memory); pages may be swapped out", .warning),
        ("audio: snd_pcm_writei(hw:0): Input/output error — the render thread stopped", .error),
    ])
    func theEnginesLinesArePrioritised(line: String, priority: Log.Priority) {
        #expect(RealtimeAudio.priority(of: line) == priority)
    }

    /// A save that failed (the card full) is an error: the library on a 8 MB tmpfs that
    /// something else has filled, and NEXT on the pedal saves the part left off at.
    @Test(.enabled(if: Mounts.permitted, "mounting a small tmpfs needs CAP_SYS_ADMIN"))
    func aSaveThatFailedIsAnError() throws {
        let folders = TempDirs()
        let card = try folders.make("card")
        #expect(mount("tmpfs", card, "tmpfs", 0, "size=8m") == 0)
        defer { umount2(card, Int32(MNT_DETACH)) }
        let stick = try folders.make("stick")
        try TestFiles.mkdir(stick + "/Salsa")
        try TestFiles.tone(stick + "/Salsa/01 Intro.wav", seconds: 1)
        try TestFiles.tone(stick + "/Salsa/02 Verse.wav", seconds: 1)
        #expect(Importer(library: try Library(directory: card + "/library")).run(stick) { _ in }.added == 1)
        let inputs = FakeInputDirectory()
        inputs.plug("event0")
        let (running, log) = try Self.start(library: card + "/library", inputs: inputs, folders: folders)
        #expect(log.wait { $0.hasPrefix("<6>ready: ") })
        Self.fill(card + "/filler")
        inputs.key("event0", code: 49, down: true)   // KEY_N: NEXT
        inputs.key("event0", code: 49, down: false)
        #expect(log.wait { $0.hasPrefix("<3>not saved: resume \"Salsa\"") }, "\(log.lines)")
        #expect(running.stop())
        unlink(card + "/filler")
    }

    /// Writes `path` until the file system is full.
    static func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { close(fd) }
        let block = [UInt8](repeating: 0x55, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
