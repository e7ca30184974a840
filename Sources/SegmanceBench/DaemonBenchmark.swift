import CharacterDisplay
import LinuxI2C
import LinuxInput
import LinuxSystem
import SegmanceBoard
import SegmanceCore
import SegmanceDaemon
import SegmanceLibrary
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `daemon`: the daemon as it runs on the board, for the CPU, memory and start-up figures
/// beside aplay and MPD. It is `segmance run` in all but the edges a machine without a board
/// lacks: the poll loop, the real-time engine on the given ALSA device, the library on
/// disk with the mapped PCM and its resident window, the LCD thread drawing an HD44780
/// (over an I2C bus that drops the bytes, with the controller's real timing), and a FIFO
/// standing in for a USB foot pedal that presses PLAY once the daemon is ready.
///
/// It plays the part `prepare` imported into its library: a 3 s countdown,
/// then an A–B loop over 10–18 s with the countdown again before every repeat, until
/// SIGTERM (with `--speed N`, at N %). Prints `ready_ms=…`: from `--t0` (CLOCK_REALTIME ns when the caller started the
/// process) to the daemon's "ready" line.
enum DaemonBenchmark {
    static let pedal = "Bench Pedal"

    static func run() {
        let t0 = Int64(option("t0", "")) ?? realtimeNanoseconds()
        // Each line of the log with the time since the process was started (where start-up goes).
        @Sendable func since() -> String { "+" + String(format2: Double(realtimeNanoseconds() - t0) / 1e6) + " ms " }
        printError(since() + "daemon benchmark: main\n")
        let directory = option("dir", "/tmp/segmance-engine-bench")
        let device = option("device", "default")
        let library = directory + "/daemon-library"
        let inputs = directory + "/daemon-input"
        mkdir(inputs, 0o700)
        let fifo = inputs + "/event0"
        unlink(fifo)
        guard mkfifo(fifo, 0o600) == 0 else { fail("mkfifo \(fifo): \(SystemError.text(errno))") }

        let profileText = """
            name = "bench"
            [[input]]
            device = "\(pedal)"
            keys = { KEY_B = "play" }
            [display]
            kind = "hd44780-i2c"
            bus = 1
            address = 0x27
            [audio]
            device = "\(device)"
            period_frames = \(option("period", "128"))
            periods = \(option("periods", "3"))
            format = "\(option("format", "S16_LE"))"
            \(option("rewind-guard", "").isEmpty ? "" : "rewind_guard_frames = " + option("rewind-guard", ""))
            """
        let profile: BoardProfile
        do { profile = try BoardProfile(parsing: profileText, file: "bench.toml") } catch { fail("\(error)") }
        // `--speed N`: the part's saved speed, so it plays at N % (the memory with the stretchers).
        if let speed = Int(option("speed", "")) {
            do {
                _ = try Library(directory: library, sampleRate: EngineBenchmarks.rate)
                    .apply(.partSpeed(routine: "Bench", part: 0, partTitle: "Loop", speed: speed))
            } catch {
                fail("\(error)")
            }
        }
        let presser = PedalPresser(fifo: fifo)
        let lock = option("lock", "1") != "0"
        var environment = Daemon.Environment { try Daemon.Audio.realtime($0, priority: $1, lockMemory: lock) }
        environment.trimsStartup = option("trim", "1") != "0"
        environment.setsControlPriority = true
        environment.paths.inputDevices = inputs
        environment.paths.nameReader = { $0 == fifo ? pedal : nil }
        environment.openDisplay = { profile in
            HD44780Display(bus: DroppingI2CBus(), columns: profile.display.columns, rows: profile.display.rows)
        }
        environment.log = Log { line in
            printError(since() + line + "\n")
            if line.hasPrefix("ready: ") {
                printOut("ready_ms=\(String(format2: Double(realtimeNanoseconds() - t0) / 1e6))\n")
            }
            if line.hasPrefix("input: \"\(pedal)\" at ") { presser.press() }
        }
        let configuration = DaemonConfiguration(board: "bench.toml", library: library, mediaRoot: directory + "/media",
                                                realtimePriority: Int(option("priority", "70")) ?? 70)
        do {
            let daemon = try Daemon(configuration: configuration, profile: profile, environment: environment)
            try daemon.run()
            let state = daemon.state
            printError("daemon: ended \(state.transport), routine \(state.routine?.title ?? "none"), position "
                + "\(state.position) frames, loop \(state.loop)\n")
        } catch {
            fail("\(error)")
        }
        unlink(fifo)
    }

    /// The `daemon` benchmark's library in `directory` (made by `prepare`): one routine, the
    /// prepared part with its A–B loop and a 3 s countdown, counted again before every
    /// repeat, at full volume.
    static func prepare(directory: String) throws {
        let library = directory + "/daemon-library", stick = directory + "/daemon-stick"
        let audio = directory + "/part.wav"
        _ = system("rm -rf '\(library)' '\(stick)'")
        mkdir(stick, 0o755)
        mkdir(stick + "/Bench", 0o755)
        guard link(audio, stick + "/Bench/part.wav") == 0 else {
            throw DaemonError("link \(audio): \(SystemError.text(errno))")
        }
        let manifest = """
            title = "Bench"
            countdown = 3
            [[part]]
            title = "Loop"
            file = "part.wav"
            loop = { a = "0:10", b = "0:18" }
            """
        guard let f = fopen(stick + "/Bench/routine.toml", "w") else { throw DaemonError("cannot write the manifest") }
        fputs(manifest, f)
        fclose(f)
        let opened = try Library(directory: library, sampleRate: EngineBenchmarks.rate)
        let summary = Importer(library: opened).run(stick) { _ in }
        guard summary.added == 1 else { throw DaemonError("the bench stick did not import: \(summary)") }
        try opened.apply(.settings(Settings(countdown: 3, countdownBeforeRepeat: true, volume: 100)))
    }
}

/// Presses and releases KEY_B on the FIFO the daemon reads as its pedal, once.
final class PedalPresser: @unchecked Sendable {
    let fifo: String
    private let pressed = Mutex(false)

    init(fifo: String) { self.fifo = fifo }

    func press() {
        guard pressed.withLock({ was in defer { was = true }; return !was }) else { return }
        let fd = open(fifo, O_WRONLY | O_NONBLOCK)
        guard fd >= 0 else { fail("open \(fifo): \(SystemError.text(errno))") }
        let now = monotonicNanoseconds()
        let seconds = now / 1_000_000_000, micro = now % 1_000_000_000 / 1000
        var bytes: [UInt8] = []
        for (value, offset) in [(Int32(1), Int64(0)), (Int32(0), Int64(80_000))] {
            let us = micro + offset
            bytes += InputEvent(seconds: seconds + us / 1_000_000, microseconds: us % 1_000_000, type: 1, code: 48, value: value).encoded()
            bytes += InputEvent(seconds: seconds + us / 1_000_000, microseconds: us % 1_000_000, type: 0, code: 0, value: 0).encoded()
        }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        // The daemon keeps reading the pedal; holding the write end open keeps the FIFO
        // from reporting hang-up (a real evdev node never does).
    }
}

/// An I2C bus that takes every byte and keeps none: the HD44780 driver does all its work
/// and waits its real delays, and nothing grows.
final class DroppingI2CBus: LinuxI2C.I2CBus {
    func sendByte(_ byte: UInt8) throws(LinuxI2C.I2CError) {}
}
