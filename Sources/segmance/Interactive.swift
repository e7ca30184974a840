import CharacterDisplay
import LinuxSystem
import SegmanceAppliance
import SegmanceCore
import SegmanceEngine
import SegmanceLibrary
import SegmanceScreen
import SegmanceTwin
import StickTransfer
#if canImport(Glibc)
import Glibc
#endif

/// The simulator in a terminal: the LCD drawn as a box, keys for the buttons, arrows for
/// the encoder; audio through the real-time engine to an ALSA PCM (its render thread paces
/// itself, this loop polls for keys and the engine's reports), or, when there is no
/// sound card, through the twin's renderer to a WAV file in real time.
struct Interactive {
    var configuration: Appliance.Configuration
    var stick: String?
    var device: String
    var wav: String?
    /// The library to play from; nil: a temporary one.
    var library: Library?
    var periodFrames = 128
    var periods = 3
    /// `--speed`: the speed the first part loaded plays at, as LOOP held and the encoder set it.
    var speed: Int?

    static let help = RawTerminal.help(width: 60)

    /// Whether ↑ goes to the row above (the menu's lists, the moves view) rather than turning on.
    static func upMovesBack(_ state: PlayerState) -> Bool {
        switch state.menu?.page {
        case .main?, .routines?, .problems?, .choosing?: return true
        case .editing?, .loopEnds?, .tapping?: return false
        case nil: return state.view == .moves
        }
    }

    func run() throws {
        // Without --library, a temporary library that goes away with the run.
        let library = try self.library
            ?? Library.temporary("segmance-sim-library", sampleRate: configuration.sampleRate)
        // Imports run on a worker thread, as in the daemon: the keys and the audio go on meanwhile.
        let runner = try ThreadedImportRunner(importer: Importer(library: library))
        let output = openOutput()
        let appliance: Appliance
        switch output {
        case .engine(let engine):
            appliance = try Appliance(configuration, audio: engine, library: library, importer: runner)
        case .wav: appliance = try Appliance(configuration, library: library, importer: runner)
        }
        var logLines: [String] = []
        appliance.log = { logLines.append($0) }
        if let stick { appliance.importStick(stick) }
        if case .engine(let engine) = output { try engine.start() }

        let terminal = RawTerminal()
        defer { terminal.restore() }
        print("\u{1B}[2J", terminator: "")
        let display = TerminalDisplay(columns: configuration.columns, rows: configuration.rows, write: Console.out)
        let start = monotonicNanoseconds()
        var lastFrame: Frame?
        var lastFooter: [String] = []
        var quit = false
        var speedToSet = speed
        while !quit {
            switch output {
            case .engine(let engine):
                // The render thread paces itself; this loop sleeps in poll until a key, a
                // report from the render thread or the import, or 10 ms for the controls' deadlines.
                var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: runner.fileDescriptor, events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 3, 10)
                appliance.pollAudio()
                logLines += engine.takeLog()
            case .wav(let writer):
                writer.render(appliance)
            }
            appliance.pollImport()
            // --speed: once a part is there (the stick's import runs on its thread), as the
            // twin's scenario does at its start.
            if let percent = speedToSet, appliance.state.part != nil {
                let detents = (percent - appliance.state.speedPercent) / Rules.speedStep
                if detents != 0 { appliance.send(.encoderTurnedHolding(.loop, detents)) }
                speedToSet = nil
            }
            for key in terminal.pendingKeys(upMovesBack: Self.upMovesBack(appliance.state)) {
                switch key {
                case .quit: quit = true
                case .event(let event): appliance.send(event)
                }
            }
            appliance.advance(to: monotonicNanoseconds() - start)
            let frame = appliance.frame
            let footer = Self.help + [output.description] + logLines.suffix(3)
            if frame != lastFrame || footer != lastFooter {
                lastFrame = frame
                lastFooter = footer
                display.footer = footer
                display.show(frame)
            }
        }
        switch output {
        case .engine(let engine): engine.stop(drain: true)
        case .wav(let writer): try writer.finish()
        }
        print("\u{1B}[2J\u{1B}[H", terminator: "")
    }

    enum Output: CustomStringConvertible {
        /// The real-time engine on an ALSA device.
        case engine(RealtimeAudioEngine)
        /// No device: the twin's renderer in this loop, paced by the clock, into a WAV.
        case wav(PacedWAV)
        var description: String {
            switch self {
            case .engine(let e): return "audio: \(e.device.name), real-time engine"
            case .wav(let w): return "audio: no sound card, writing \(w.writer.path)"
            }
        }
    }

    private func openOutput() -> Output {
        var engineConfiguration = EngineConfiguration(device: device, rate: configuration.sampleRate,
                                                      periodFrames: periodFrames, periods: periods,
                                                      render: configuration.render)
        // The simulator runs in a terminal session: no memory locking of the whole process.
        engineConfiguration.lockMemory = false
        do {
            return .engine(try RealtimeAudioEngine(configuration: engineConfiguration))
        } catch {
            let path = wav ?? "segmance-sim.wav"
            Console.error("No sound card (\(error)); writing the audio to \(path) instead.\n")
            do {
                let writer = try WAVWriter(path: path, sampleRate: configuration.sampleRate)
                return .wav(PacedWAV(writer: writer, periodFrames: periodFrames,
                                     sampleRate: configuration.sampleRate))
            } catch {
                Console.error("\(error)\n")
                exit(1)
            }
        }
    }
}

/// The twin's renderer driven from the interactive loop into a WAV file, a period at a
/// time, sleeping to keep real time (there is no device to pace it).
final class PacedWAV {
    let writer: WAVWriter
    let periodFrames: Int
    let periodNanoseconds: Int64
    private var deadline = monotonicNanoseconds()
    /// One period of stereo samples, rendered into and written out each time.
    private let buffer: UnsafeMutablePointer<Float>

    init(writer: WAVWriter, periodFrames: Int, sampleRate: Int) {
        self.writer = writer
        self.periodFrames = periodFrames
        periodNanoseconds = Int64(periodFrames) * 1_000_000_000 / Int64(sampleRate)
        buffer = .allocate(capacity: periodFrames * 2)
    }

    deinit { buffer.deallocate() }

    /// Renders and writes one period, then sleeps until its end in real time.
    func render(_ appliance: Appliance) {
        appliance.render(into: buffer, frames: periodFrames)
        writer.write(buffer, frames: periodFrames)
        deadline += periodNanoseconds
        sleepUntilMonotonic(deadline)
    }

    func finish() throws { try writer.finish() }
}
