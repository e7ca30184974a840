import Glibc
import LinuxInput
import LinuxSystem
import SegmanceBoard
import SegmanceControls
import SegmanceCore
@testable import SegmanceDaemon
import SegmanceLibrary
import SegmanceStick
import SegmanceTestSupport
import StickTransfer
import Testing

/// The control loop with real descriptors: an input node appearing in a watched folder
/// (inotify), key events read from it, the gesture decided by the controls on the loop's
/// deadline, the reducer run, the frame drawn by the display thread, and a clean stop.
@Suite(.tags(.integration), .serialized) struct DaemonLoopTests {
    static let profileText = """
        name = "test box"
        [[input]]
        device = "Test Pedal"
        keys = { KEY_B = "select", KEY_N = "next" }
        axes = { REL_X = "encoder" }
        [display]
        kind = "terminal"
        columns = 16
        rows = 2
        [audio]
        device = "null"
        """

    static func makeDaemon(inputs: FakeInputDirectory, log: Transcript, screen: Transcript,
                           audio: RecordingAudioEngine, folders: TempDirs, library: String? = nil,
                           audioWake: Int32? = nil, polls: Transcript? = nil, stickStatus: String? = nil,
                           mediaRoot: String? = nil, mountinfo: String? = nil) throws -> Daemon {
        let profile = try BoardProfile(parsing: profileText, file: "test.toml")
        var environment = Daemon.Environment { _, _ in StandInAudio(engine: audio, wakeDescriptor: audioWake) }
        environment.paths.inputDevices = inputs.path
        if let mountinfo { environment.paths.mountinfo = mountinfo }
        let folder = inputs.path
        environment.paths.nameReader = { path in path.hasPrefix(folder + "/event") ? "Test Pedal" : nil }
        environment.log = Log { log.append($0) }
        environment.terminal = { screen.append($0) }
        if let polls { environment.willPoll = { polls.append("\($0)") } }
        var configuration = DaemonConfiguration(board: "test.toml", library: try library ?? folders.make("library"),
                                                mediaRoot: try mediaRoot ?? folders.make("media"))
        configuration.stickStatus = try stickStatus ?? folders.make("stick-status")
        return try Daemon(configuration: configuration, profile: profile, environment: environment)
    }

    /// A stick the mount helper refused: the helper leaves a file in the status folder (a dot
    /// file renamed, as deploy/segmance-stick writes it), inotify wakes the loop, the log has
    /// the helper's sentence and the LCD names the problem. The folder need not exist when
    /// the daemon starts (the helper makes it with its first refusal); a refusal already
    /// there when the daemon starts is shown too.
    @Test func aRefusedStickIsNamedOnTheLCDAndInTheLog() throws {
        let folders = TempDirs()
        let status = try folders.make("run") + "/segmance-stick"
        let message = "/dev/sdb2 is APFS (a Mac's default format), which Linux cannot read: reformat the stick as exFAT"
        func refuse(_ device: String) throws {
            try TestFiles.writeText("device=/dev/\(device)\nfilesystem=apfs\nreason=apfs\nmessage=\(message)\n",
                                    to: status + "/.\(device).tmp")
            #expect(rename(status + "/.\(device).tmp", status + "/" + device) == 0)
        }
        do {
            let log = Transcript(), screen = Transcript()
            let daemon = try Self.makeDaemon(inputs: FakeInputDirectory(), log: log, screen: screen,
                                             audio: RecordingAudioEngine(), folders: folders, stickStatus: status)
            let running = try DaemonThread(daemon)
            #expect(screen.wait { $0.contains("No routines") })
            try TestFiles.mkdir(status)
            try refuse("sdb2")
            #expect(log.wait { $0 == "stick: \(message)" }, "\(log.lines)")
            #expect(screen.wait { $0.contains("│!Stick is APFS  │") && $0.contains("│Reformat: exFAT │") },
                    "\(screen.lines)")
            #expect(running.stop())
        }
        // Started with the stick still in: named at once.
        let log = Transcript(), screen = Transcript()
        let daemon = try Self.makeDaemon(inputs: FakeInputDirectory(), log: log, screen: screen,
                                         audio: RecordingAudioEngine(), folders: folders, stickStatus: status)
        let running = try DaemonThread(daemon)
        #expect(screen.wait { $0.contains("│!Stick is APFS  │") }, "\(screen.lines)")
        #expect(log.lines.contains("stick: \(message)"))
        #expect(running.stop())
    }

    /// At boot the routine the library restores is announced by its title for 1.5 s, as in
    /// the twin, then the part shows: the notice is not stamped with a clock of another
    /// origin (the daemon's monotonic clock is days ahead of the core's 0 at boot).
    @Test func theRoutineRestoredAtBootIsAnnouncedByItsTitleFirst() throws {
        let folders = TempDirs()
        let stick = try folders.make("stick")
        try TestFiles.mkdir(stick + "/Salsa")
        try TestFiles.write(TestFiles.sine(frequency: 440, rate: 48_000, frames: 48_000),
                            to: stick + "/Salsa/1 Intro.wav")
        let library = try folders.make("library")
        #expect(Importer(library: try Library(directory: library)).run(stick) { _ in }.added == 1)
        let log = Transcript(), screen = Transcript()
        let daemon = try Self.makeDaemon(inputs: FakeInputDirectory(), log: log, screen: screen,
                                         audio: RecordingAudioEngine(), folders: folders, library: library)
        let running = try DaemonThread(daemon)
        #expect(screen.wait { $0.contains("1/1 Intro") })
        #expect(running.stop())
        let first = try #require(screen.lines.first)
        #expect(first.contains("│Salsa           │"), "the first screen: \(first)")
    }

    /// The loop sleeps until something can change. With a still screen and an audio side
    /// that wakes it when it has news, every `poll` it makes waits with no timeout at all
    /// (the 100 ms tick this replaced would show as 100); a wake from the audio side is
    /// answered, and the loop goes back to waiting with none.
    @Test func withAStillScreenTheLoopWaitsWithNoTimeout() throws {
        let log = Transcript(), screen = Transcript(), polls = Transcript(), folders = TempDirs()
        let audioWake = try EventDescriptor()
        let daemon = try Self.makeDaemon(inputs: FakeInputDirectory(), log: log, screen: screen,
                                         audio: RecordingAudioEngine(), folders: folders,
                                         audioWake: audioWake.fileDescriptor, polls: polls)
        let running = try DaemonThread(daemon)
        #expect(screen.wait { $0.contains("No routines") })
        #expect(polls.wait { $0 == "-1" })
        let count = polls.lines.count
        audioWake.signal()
        #expect(polls.wait { _ in polls.lines.count > count }, "the audio side's wake was not answered")
        #expect(running.stop())
        #expect(polls.lines.allSatisfy { $0 == "-1" }, "\(polls.lines)")
    }

    /// A part title too long for the LCD scrolls on its own: the loop wakes for each
    /// marquee step (the frame says when it changes), with no input and no audio news.
    @Test func aLongTitleScrollsWithNoOtherWake() throws {
        let folders = TempDirs()
        let stick = try folders.make("stick")
        try TestFiles.mkdir(stick + "/Salsa")
        try TestFiles.write(TestFiles.sine(frequency: 440, rate: 48_000, frames: 48_000),
                            to: stick + "/Salsa/1 A very long part title.wav")
        let library = try folders.make("library")
        #expect(Importer(library: try Library(directory: library)).run(stick) { _ in }.added == 1)
        let log = Transcript(), screen = Transcript()
        let audioWake = try EventDescriptor()
        let daemon = try Self.makeDaemon(inputs: FakeInputDirectory(), log: log, screen: screen,
                                         audio: RecordingAudioEngine(), folders: folders, library: library,
                                         audioWake: audioWake.fileDescriptor)
        let running = try DaemonThread(daemon)
        // At rest, then step by step: "A very lon" → " very long" → "very long " → "ery long p".
        #expect(screen.wait { $0.contains("1/1 A very lon") }, "\(screen.lines)")
        for window in [" very long", "very long ", "ery long p"] {
            #expect(screen.wait(seconds: 5) { $0.contains("1/1 \(window)") }, "\(screen.lines)")
        }
        #expect(running.stop())
    }

    @Test func aPedalPluggedInWhileRunningOpensTheMenuAndTheDaemonStopsCleanly() throws {
        let inputs = FakeInputDirectory()
        let log = Transcript(), screen = Transcript(), audio = RecordingAudioEngine(), folders = TempDirs()
        let daemon = try Self.makeDaemon(inputs: inputs, log: log, screen: screen, audio: audio, folders: folders)
        let running = try DaemonThread(daemon)

        #expect(log.wait { $0.hasPrefix("ready: test box") })
        #expect(screen.wait { $0.contains("No routines") })
        // Booting told the audio side its settings before anything else.
        #expect(audio.sent.withLock { !$0.isEmpty })

        inputs.plug("event0")
        #expect(log.wait { $0 == "input: \"Test Pedal\" at \(inputs.path)/event0" })
        inputs.key("event0", code: 48, down: true)   // KEY_B: the encoder's push
        inputs.key("event0", code: 48, down: false)
        // A single push is known only when the double-push window has passed: the loop
        // must wake on the controls' deadline with no further input.
        #expect(screen.wait { $0.contains("Routines") })
        // The journal says which control acted and where the music was.
        #expect(log.lines.contains("control: press select at part 1 frame 0 (stopped)"), "\(log.lines)")

        inputs.unplug("event0")
        #expect(log.wait { $0 == "input: \"Test Pedal\" at \(inputs.path)/event0 is gone" })

        #expect(running.stop())
        #expect(running.error.withLock { $0 } == nil)
        #expect(daemon.state.menu != nil)
        #expect(log.lines.last == "stopped")
    }
}

/// The journal line of a control event: what acted and where the music was, parsed by the
/// system tests to place the same inputs in the twin.
@Suite(.tags(.integration)) struct ControlLineTests {
    @Test func controlsAreLoggedWithThePartAndFrame() {
        var state = PlayerState()
        state.partIndex = 1
        state.position = 96_000
        state.transport = .playing
        #expect(InputSource.controlLine(.buttonPressed(.loop), state)
                == "control: press loop at part 2 frame 96000 (playing)")
        #expect(InputSource.controlLine(.buttonLongPressed(.next), state)
                == "control: long press next at part 2 frame 96000 (playing)")
        state.transport = .countingDown(Countdown(remaining: 2, origin: .stopped))
        #expect(InputSource.controlLine(.encoderTurned(-2), state)
                == "control: turn -2 at part 2 frame 96000 (counting down 2)")
        #expect(InputSource.controlLine(.encoderTurned(1), state)
                == "control: turn +1 at part 2 frame 96000 (counting down 2)")
        #expect(InputSource.controlLine(.buttonDoublePressed(.select), state)?
            .hasPrefix("control: double press select") == true)
    }

    /// The line after it: the kernel timestamp of the control's edge and the frame heard then.
    @Test func theEdgeLineHasTheKernelTimestampAndTheFrameHeard() {
        var state = PlayerState()
        state.partIndex = 1
        state.transport = .playing
        #expect(InputSource.edgeLine(TimedEvent(.buttonPressed(.loop), at: 12_345_678_901), heard: 95_000, state)
                == "control edge: press loop at 12345678901 ns heard part 2 frame 95000")
        #expect(InputSource.edgeLine(TimedEvent(.encoderTurned(-1), at: 7), heard: nil, state)
                == "control edge: turn -1 at 7 ns heard none")
        #expect(InputSource.edgeLine(TimedEvent(.clock(5), at: 7), heard: nil, state) == nil)
    }

    @Test func otherEventsAreNotControls() {
        #expect(InputSource.controlLine(.clock(5), PlayerState()) == nil)
        #expect(InputSource.controlLine(.shuttingDown, PlayerState()) == nil)
    }
}

/// A board that is not what its profile says stops the daemon at start with the profile
/// key and what the machine has, instead of running half-blind.
@Suite(.tags(.integration)) struct DaemonStartupErrorTests {
    static func start(_ profileText: String, devices: String) -> String {
        do {
            let profile = try BoardProfile(parsing: profileText, file: "board.toml")
            var environment = Daemon.Environment { _, _ in StandInAudio(engine: RecordingAudioEngine()) }
            environment.paths.devices = devices
            environment.log = Log { _ in }
            let folders = TempDirs()
            let configuration = DaemonConfiguration(board: "board.toml", library: try folders.make("library"),
                                                    mediaRoot: try folders.make("media"))
            _ = try Daemon(configuration: configuration, profile: profile, environment: environment)
            return "started"
        } catch {
            return "\(error)"
        }
    }

    @Test func aMissingGPIOChipNamesTheKey() {
        let empty = "/tmp/segmance-nodev-\(getpid())"
        mkdir(empty, 0o700)
        defer { rmdir(empty) }
        let text = "[gpio]\nchip = \"pinctrl-bcm2711\"\n[gpio.lines]\nplay = \"GPIO17\"\n"
            + "[display]\nkind = \"terminal\"\n"
        #expect(Self.start(text, devices: empty)
            == "board.toml: gpio.chip: no chip 'pinctrl-bcm2711'; chips present: none")
    }

    @Test func aMissingI2CBusNamesTheKeyAndSaysHowToEnableIt() {
        let empty = "/tmp/segmance-nodev-\(getpid())-i2c"
        mkdir(empty, 0o700)
        defer { rmdir(empty) }
        let text = "[display]\nkind = \"hd44780-i2c\"\nbus = 1\naddress = 0x27\n"
        #expect(Self.start(text, devices: empty)
            == "board.toml: display.bus: /dev/i2c-1 does not exist; buses present: none "
                + "(enable I2C: dtparam=i2c_arm=on, and load i2c-dev)")
    }
}

/// Where the performer left off survives the daemon being stopped and started again: the
/// part changed with the pedal is written to the library then, and the next daemon on the
/// same library comes back to it.
@Suite(.tags(.integration), .serialized) struct DaemonResumeTests {
    @Test func thePartLeftOffAtComesBackAfterARestart() throws {
        let folders = TempDirs()
        let library = try folders.make("library"), media = try folders.make("media"), stick = try folders.make("stick")
        try DemoStick.write(to: stick)
        let summary = Importer(library: try Library(directory: library)).run(stick) { _ in }
        #expect(summary.added == 2)
        let configuration = DaemonConfiguration(board: "test.toml", library: library, mediaRoot: media)

        func start(_ inputs: FakeInputDirectory, _ log: Transcript, _ screen: Transcript) throws -> DaemonThread {
            let profile = try BoardProfile(parsing: DaemonLoopTests.profileText, file: "test.toml")
            var environment = Daemon.Environment { _, _ in StandInAudio(engine: RecordingAudioEngine()) }
            let folder = inputs.path
            environment.paths.inputDevices = folder
            environment.paths.nameReader = { path in path.hasPrefix(folder + "/event") ? "Test Pedal" : nil }
            environment.log = Log { log.append($0) }
            environment.terminal = { screen.append($0) }
            return try DaemonThread(Daemon(configuration: configuration, profile: profile, environment: environment))
        }

        let inputs = FakeInputDirectory()
        inputs.plug("event0")
        let log = Transcript(), screen = Transcript()
        let first = try start(inputs, log, screen)
        #expect(log.wait { $0 == "input: \"Test Pedal\" at \(inputs.path)/event0" })
        #expect(screen.wait { $0.contains("1/3") })
        inputs.key("event0", code: 49, down: true)   // KEY_N: NEXT
        inputs.key("event0", code: 49, down: false)
        #expect(screen.wait { $0.contains("2/3") })
        #expect(first.stop())
        let routine = first.daemon.state.routine?.title
        #expect(first.daemon.state.partIndex == 1)

        let log2 = Transcript(), screen2 = Transcript()
        let second = try start(inputs, log2, screen2)
        #expect(log2.wait { $0.hasPrefix("ready: ") })
        #expect(second.stop())
        #expect(second.daemon.state.routine?.title == routine)
        #expect(second.daemon.state.partIndex == 1)
    }
}
