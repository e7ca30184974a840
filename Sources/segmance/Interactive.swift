import ALSA
import CharacterDisplay
import SegmanceCore
import SegmanceLibrary
import SegmanceScreen
import SegmanceSim
#if canImport(Glibc)
import Glibc
#endif

/// The simulator in a terminal: the LCD drawn as a box, keys for the buttons, arrows for
/// the encoder; audio to an ALSA PCM by plain blocking writes, or to a WAV file when
/// there is no sound card.
struct Interactive {
    var configuration: Appliance.Configuration
    var stick: String?
    var device: String
    var wav: String?
    /// The library to play from; nil: a temporary one.
    var library: Library?
    var periodFrames = 128

    static let help = [
        "space play/pause   s stop   , . part   < > routine",
        "l loop A/B   L part loop   ← → seek   enter menu",
        "backspace back   m moves view   q quit",
    ]

    func run() throws {
        // Without --library, a temporary library that goes away with the run.
        let temporary = self.library == nil ? try TemporaryDirectory("segmance-sim-library") : nil
        defer { withExtendedLifetime(temporary) {} }
        let library = try self.library ?? Library(directory: temporary!.path, sampleRate: configuration.sampleRate)
        // Imports run on a worker thread, as in the daemon: the keys and the audio go on meanwhile.
        let runner = try ThreadedImportRunner(importer: Importer(library: library))
        let appliance = try Appliance(configuration, library: library, importer: runner)
        var logLines: [String] = []
        appliance.log = { logLines.append($0) }
        if let stick {
            appliance.stickInserted(stick)
            appliance.send(.importRequested)
        }

        let output = try openOutput()
        let terminal = RawTerminal()
        defer { terminal.restore() }
        print("\u{1B}[2J", terminator: "")

        let display = TerminalDisplay(columns: configuration.columns, rows: configuration.rows, write: Console.out)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: periodFrames * 2)
        defer { buffer.deallocate() }
        let start = monotonicNanoseconds()
        var lastFrame: Frame?
        var quit = false
        var periodDeadline = start
        let periodNanoseconds = Int64(periodFrames) * 1_000_000_000 / Int64(configuration.sampleRate)
        while !quit {
            let now = monotonicNanoseconds() - start
            for key in terminal.pendingKeys() {
                switch key {
                case .quit: quit = true
                case .event(let event): appliance.send(event)
                }
            }
            appliance.pollImport()
            appliance.advance(to: now)
            appliance.render(into: buffer, frames: periodFrames)
            switch output {
            case .alsa(let writer):
                // Blocks: the device paces the loop.
                try writer.write(UnsafeBufferPointer(start: buffer, count: periodFrames * 2))
            case .wav(let writer):
                writer.write(buffer, frames: periodFrames)
                periodDeadline += periodNanoseconds
                sleep(until: periodDeadline)
            }
            let frame = appliance.frame
            if frame != lastFrame {
                lastFrame = frame
                display.footer = Self.help + [output.description] + logLines.suffix(3)
                display.show(frame)
            }
        }
        if case .wav(let writer) = output { try writer.finish() }
        print("\u{1B}[2J\u{1B}[H", terminator: "")
    }

    enum Output: CustomStringConvertible {
        case alsa(BlockingPCMWriter)
        case wav(WAVWriter)
        var description: String {
            switch self {
            case .alsa: return "audio: ALSA"
            case .wav(let w): return "audio: no sound card, writing \(w.path)"
            }
        }
    }

    private func openOutput() throws -> Output {
        do {
            let pcm = try PCMDevice(name: device)
            try pcm.configure(PCMConfiguration(rate: configuration.sampleRate, periodFrames: periodFrames))
            return .alsa(try BlockingPCMWriter(device: pcm, chunkFrames: periodFrames))
        } catch {
            let path = wav ?? "segmance-sim.wav"
            Console.error("No sound card (\(error)); writing the audio to \(path) instead.\n")
            return .wav(try WAVWriter(path: path, sampleRate: configuration.sampleRate))
        }
    }
}

func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Sleeps until an absolute CLOCK_MONOTONIC time (ns).
func sleep(until deadline: Int64) {
    var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}
