import SegmanceAppliance
import SegmanceCore
import SegmanceStick
@testable import SegmanceTwin
import SndFile
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The twin end to end: a real stick folder, real WAV decoding, the scenario's edges through
/// the controls, the reducer, the render function. Facts are checked in the output audio
/// and the frame log.
@Suite(.tags(.integration), .serialized) struct TwinScenarioTests {
    static let rate = 48_000
    static let period = 128

    /// A source whose every frame says where it is: frame f = (right + 50) · 20000 + left + 10000.
    static func source(frames: Int) -> [Int16] {
        var samples = [Int16](repeating: 0, count: frames * 2)
        for f in 0..<frames {
            samples[2 * f] = Int16(f % 20000 - 10000)
            samples[2 * f + 1] = Int16(f / 20000 - 50)
        }
        return samples
    }

    static func decode(_ left: Int16, _ right: Int16) -> Int { (Int(right) + 50) * 20000 + Int(left) + 10000 }

    /// A stick with one routine of one 30 s part made of `source`.
    static func makeStick(extra: [(String, [UInt8])] = []) throws -> String {
        let root = "/tmp/segmance-twin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let routine = root + "/Counting"
        mkdir(root, 0o755)
        mkdir(routine, 0o755)
        let file = try SoundFile(writingTo: routine + "/01 Count.wav", format: .wavPCM16, sampleRate: rate, channels: 2)
        try file.write(source(frames: 30 * rate))
        try file.close()
        for (name, bytes) in extra {
            let f = fopen(routine + "/" + name, "wb")!
            fwrite(bytes, 1, bytes.count, f)
            fclose(f)
        }
        return root
    }

    static func run(_ text: String, stick: String, countdown: Int = 0) throws -> (samples: [Int16], output: TwinRun.Output) {
        var configuration = Appliance.Configuration()
        configuration.settings.countdown = countdown
        configuration.settings.volume = 100
        let run = TwinRun(configuration: configuration)
        var samples: [Int16] = []
        let output = try run.run(try Scenario(parsing: text), stick: stick) { buffer, count in
            for i in 0..<count * 2 { samples.append(WAVWriter.s16(buffer[i])) }
        }
        return (samples, output)
    }

    /// The first period boundary at or after `seconds`: inputs are taken at period starts.
    static func boundary(after seconds: Double) -> Int {
        let frame = Int((seconds * Double(rate)).rounded(.up))
        return (frame + period - 1) / period * period
    }

    @Test func outsideTheRampTheOutputIsTheSourceSampleForSample() throws {
        let stick = try Self.makeStick()
        let (out, _) = try Self.run("0.0 tap play\n3.0 end", stick: stick)
        let start = Self.boundary(after: 0.060) // PLAY counts at the release edge
        #expect(out[0..<start * 2].allSatisfy { $0 == 0 })
        let source = Self.source(frames: 3 * Self.rate)
        let ramp = 240
        let n = 3 * Self.rate - start
        #expect(Array(out[(start + ramp) * 2..<n * 2]) == Array(source[ramp * 2..<(n - start) * 2]))
        // The ramp itself rises from silence and never overshoots the source.
        for i in 0..<ramp {
            #expect(abs(Int(out[(start + i) * 2])) <= abs(Int(source[i * 2])))
        }
    }

    @Test func afterBComesAsAudio() throws {
        let stick = try Self.makeStick()
        let (out, result) = try Self.run("0.0 tap play\n1.0 tap loop\n2.0 tap loop\n6.0 end", stick: stick)
        guard case .ab(let loop) = result.finalState.loop else {
            Issue.record("no A–B loop at the end: \(result.finalState.loop)")
            return
        }
        let a = Int(loop.a), b = Int(loop.b), crossfade = 240
        #expect(b - a > Self.rate / 2)
        // Find every seam: a source frame B−1 in the output, followed by A's audio. B is the
        // frame heard at the press (2.0 s), played before the loop was set at the release:
        // seams come after that.
        var seams: [Int] = []
        for j in Self.boundary(after: 2.060)..<(out.count / 2 - crossfade - 1000) where Self.decode(out[2 * j], out[2 * j + 1]) == b - 1 {
            seams.append(j)
            for k in 0..<1000 {
                let i = j + 1 + crossfade + k
                #expect(Self.decode(out[2 * i], out[2 * i + 1]) == a + crossfade + k)
            }
        }
        // Marked B at ~2.06 s, loop length ~1 s: wraps at least three times by 6 s.
        #expect(seams.count >= 3)
        for (x, y) in zip(seams, seams.dropFirst()) { #expect(y - x == b - a) }
    }

    @Test func countdownTicksLandOnExactFramesAndTheMusicFollows() throws {
        let stick = try Self.makeStick()
        let (out, result) = try Self.run("0.0 tap play\n4.0 end", stick: stick, countdown: 3)
        let t0 = Self.boundary(after: 0.060)
        func firstSound(from: Int) -> Int? { (from..<out.count / 2).first { out[2 * $0] != 0 || out[2 * $0 + 1] != 0 } }
        #expect(firstSound(from: 0).map { $0 - t0 } ?? -1 <= 1) // a sine tick starts at sin(0) = 0
        for k in 1...2 {
            let onset = t0 + k * Self.rate
            #expect(out[(onset - 200) * 2..<onset * 2].allSatisfy { $0 == 0 }, "silence before tick \(k)")
            #expect(firstSound(from: onset - 200).map { $0 - onset } ?? -1 <= 1, "tick \(k) onset")
        }
        // Music from the part's first frame, 3 s after t0, past the fade-in.
        let start = t0 + 3 * Self.rate, ramp = 240
        let source = Self.source(frames: Self.rate)
        #expect(Array(out[(start + ramp) * 2..<(start + 20_000) * 2]) == Array(source[ramp * 2..<20_000 * 2]))
        #expect(result.finalState.transport == .playing)
        // The LCD counted down 3, 2, 1 (in big digits) at those times, then showed the play symbol.
        let lines = result.frames.lines
        #expect(lines.contains { $0.contains("|Ready in     ≣≣█|Count        ▄▄█|") })
        let two = lines.first { $0.contains("|Ready in     ≣≣█|Count        █▄▄|") }
        #expect(two?.hasPrefix("    1.0") == true, "\(two ?? "none")")
        #expect(lines.contains { $0.contains("▶ 1/1 Count") })
    }

    @Test func aBrokenFileIsReportedOnTheLCDAndTheRestPlays() throws {
        let stick = try Self.makeStick(extra: [("02 Broken.mp3", Array("this is not audio".utf8))])
        let (out, result) = try Self.run("0.0 tap play\n12.0 end", stick: stick)
        // The stick's summary, then how many problems there are and where to read them.
        #expect(result.frames.lines.first { $0.contains("Stick found") }?.contains("1 routine") == true)
        #expect(result.frames.lines.contains { $0.contains("|!1 problem      |Menu: Problems  |") })
        #expect(result.finalState.problems.first?.file == "Counting/02 Broken.mp3")
        #expect(result.log.contains { $0.contains("02 Broken.mp3") && $0.contains("not an audio file") })
        #expect(result.finalState.routine?.parts.count == 1)
        #expect(out.contains { $0 != 0 })
    }

    @Test func twoRunsGiveIdenticalBytes() throws {
        let dir = "/tmp/segmance-determinism-\(getpid())"
        try DemoStick.write(to: dir)
        let text = try String(contentsOfFile: #filePath.replacingOccurrences(of: "SegmanceTwinTests/TwinScenarioTests.swift", with: "Scenarios/demo.scenario"), encoding: .utf8)
        let first = try Self.run(text, stick: dir)
        let second = try Self.run(text, stick: dir)
        #expect(first.samples == second.samples)
        #expect(first.output.frames.text == second.output.frames.text)
        #expect(first.samples.count == 118 * Self.rate * 2)
        #expect(first.output.frames.lines.count > 40)
        // Its last gesture, the A-B loop nudged in the menu: A two beats later, B one earlier.
        #expect(first.output.frames.lines.contains { $0.hasSuffix("|>A 0:03.0 +-beat| B 0:06.0       |") })
        #expect(first.output.frames.lines.contains { $0.hasSuffix("| A 0:03.0       |>B 0:05.5 +-beat|") })
    }
}
