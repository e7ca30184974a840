import LinuxSystem
import ArgumentParser
import SegmanceCore
import SegmanceLibrary
import SegmanceAppliance
import SegmanceTwin
#if canImport(Glibc)
import Glibc
#endif

struct Sim: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Run the appliance's digital twin.",
        discussion: """
        With --scenario, runs headless in virtual time and writes exactly what the audio \
        device would have received (--wav) and every LCD frame with its time (--frames). \
        Without it, runs interactively in this terminal, with these keys for the controls:
        \(RawTerminal.keys.map { "\($0.keys): \($0.does)" }.joined(separator: "; ")).
        """)

    @Option(help: "A folder laid out like a USB stick, inserted and imported at the start.")
    var stick: String?

    @Option(help: "The library to play from and import into (default: a temporary one, deleted at the end).")
    var library: String?

    @Flag(help: "Import sticks as soon as they appear (scenario 'stick' actions) instead of offering them.")
    var autoImport = false

    @Option(help: "A scenario file (one action a line); runs headless.")
    var scenario: String?

    @Option(help: "Where to write the audio (16-bit stereo WAV).")
    var wav: String?

    @Option(help: "Where to write the LCD frame log.")
    var frames: String?

    @Option(help: "The display: 16x2 or 20x4.")
    var display: DisplaySize = DisplaySize(argument: "16x2")!

    @Option(help: "Countdown before playback: seconds (0, 3, 5, 8, 10, 15, 20), or beats at the part's tempo (beats4: \"5, 6, 7, 8\"; beats8: a full eight).")
    var countdown: CountdownOption = CountdownOption(argument: "0")!

    @Option(help: "What a countdown sounds like: ticks, or spoken (the counts spoken on the beat, by espeak-ng; ticks when it is not installed).")
    var countVoice: CountVoice = Settings().countVoice

    @Option(help: "What loop marks snap to on a part with a beat: beat, eight or off.")
    var snap: LoopSnap = Settings().loopSnap

    @Option(help: "Practice speed at the start, in percent (50 to 150 in steps of 5; pitch kept), as if set with LOOP held and the encoder (interactively: on the first part loaded).")
    var speed: Int?

    @Option(help: "Output rate in Hz.")
    var rate: Int = 48_000

    @Option(help: "Interactive only: the ALSA PCM to play to.")
    var device: String = "default"

    @Option(help: "Interactive only: frames per ALSA period.")
    var periodFrames: Int = 128

    @Option(help: "Interactive only: periods in the ALSA buffer.")
    var periods: Int = 3

    func validate() throws {
        if let speed, !Player.speedRange.contains(speed) || speed % Player.speedStep != 0 {
            throw ValidationError("--speed must be 50 to 150 in steps of 5")
        }
        if scenario != nil, wav == nil, frames == nil {
            throw ValidationError("a headless run needs --wav and/or --frames to write its output")
        }
    }

    var applianceConfiguration: Appliance.Configuration {
        var c = Appliance.Configuration()
        c.sampleRate = rate
        c.columns = display.columns
        c.rows = display.rows
        c.settings.countdown = countdown.seconds
        c.settings.countdownBeats = countdown.beats
        c.settings.loopSnap = snap
        c.settings.countVoice = countVoice
        c.settings.autoImport = autoImport
        return c
    }

    func run() throws {
        if let scenario {
            try headless(scenario)
        } else {
            try Interactive(configuration: applianceConfiguration, stick: stick, device: device, wav: wav,
                            library: try library.map { try Library(directory: $0, sampleRate: rate) },
                            periodFrames: periodFrames, periods: periods, speed: speed).run()
        }
    }

    private func headless(_ path: String) throws {
        let text = try readFile(path)
        var parsed = try Scenario(parsing: text, file: path)
        if let speed { parsed.steps.insert(Scenario.Step(time: 0, action: .speed(speed), line: 0), at: 0) }
        var twin = TwinRun(configuration: applianceConfiguration)
        twin.baseDirectory = directory(of: path)
        twin.library = try library.map { try Library(directory: $0, sampleRate: rate) }
        let writer = try wav.map { try WAVWriter(path: $0, sampleRate: rate) }
        let output = try twin.run(parsed, stick: stick) { samples, count in writer?.write(samples, frames: count) }
        try writer?.finish()
        if let frames { try writeFile(frames, output.frames.text) }
        for line in output.log { Console.error(line + "\n") }
        let seconds = Double(output.renderedFrames) / Double(rate)
        print("Rendered \(output.renderedFrames) frames (\(seconds) s), \(output.frames.lines.count) LCD frames.")
    }
}

func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return String(path[..<slash])
}

func readFile(_ path: String) throws -> String {
    guard let f = fopen(path, "rb") else {
        throw ValidationError("cannot read \(path): \(SystemError.text(errno))")
    }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func writeFile(_ path: String, _ text: String) throws {
    guard let f = fopen(path, "wb") else {
        throw ValidationError("cannot write \(path): \(SystemError.text(errno))")
    }
    defer { fclose(f) }
    let bytes = Array(text.utf8)
    guard fwrite(bytes, 1, bytes.count, f) == bytes.count else {
        throw ValidationError("cannot write \(path): \(SystemError.text(errno))")
    }
}
