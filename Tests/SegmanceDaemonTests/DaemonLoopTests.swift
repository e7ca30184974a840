import Glibc
import LinuxInput
import SegmanceBoard
import SegmanceCore
import Testing
@testable import SegmanceDaemon

/// The control loop with real descriptors: an input node appearing in a watched folder
/// (inotify), key events read from it, the gesture decided by the controls on the loop's
/// deadline, the reducer run, the frame drawn by the display thread, and a clean stop.
@Suite(.serialized) struct DaemonLoopTests {
    static let profileText = """
        name = "test box"
        [[input]]
        device = "Test Pedal"
        keys = { KEY_B = "select", KEY_N = "next" }
        [display]
        kind = "terminal"
        columns = 16
        rows = 2
        [audio]
        device = "null"
        """

    static func makeDaemon(inputs: FakeInputDirectory, log: Transcript, screen: Transcript,
                           audio: RecordingAudioEngine) throws -> Daemon {
        let profile = try BoardProfile(parsing: profileText, file: "test.toml")
        var environment = Daemon.Environment { _, _ in Daemon.Audio(engine: audio) }
        environment.paths.inputDevices = inputs.path
        let folder = inputs.path
        environment.paths.nameReader = { path in path.hasPrefix(folder + "/event") ? "Test Pedal" : nil }
        environment.log = Log { log.append($0) }
        environment.terminal = { screen.append($0) }
        return try Daemon(configuration: DaemonConfiguration(board: "test.toml"), profile: profile,
                          environment: environment)
    }

    @Test func aPedalPluggedInWhileRunningOpensTheMenuAndTheDaemonStopsCleanly() throws {
        let inputs = FakeInputDirectory()
        let log = Transcript(), screen = Transcript(), audio = RecordingAudioEngine()
        let daemon = try Self.makeDaemon(inputs: inputs, log: log, screen: screen, audio: audio)
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

        inputs.unplug("event0")
        #expect(log.wait { $0 == "input: \"Test Pedal\" at \(inputs.path)/event0 is gone" })

        #expect(running.stop())
        #expect(running.error.withLock { $0 } == nil)
        #expect(daemon.state.menu != nil)
        #expect(log.lines.last == "stopped")
    }
}
