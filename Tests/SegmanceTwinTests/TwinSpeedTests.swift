import Testing
import SegmanceCore
import SegmanceAudio
import SndFile
import SegmanceAppliance
@testable import SegmanceTwin
#if canImport(Glibc)
import Glibc
#endif

/// Practice speed on the twin (issue 12): a 440 Hz tone with a 1 ms click at every whole
/// source second, played at 50, 75 and 150 %. The clicks keep their source spacing scaled by
/// the speed, the tone keeps its pitch, 100 % is the PCM itself, and runs repeat exactly.
@Suite(.tags(.integration), .serialized) struct TwinSpeedTests {
    static let rate = 48_000
    static let seconds = 24

    /// Tone at 0.3 of full scale; at every whole second a 1 ms pulse at 0.9.
    static func clicked(frames: Int) -> [Int16] {
        var samples = [Int16](repeating: 0, count: frames * 2)
        for f in 0..<frames {
            var v = 0.3 * sin(2 * Double.pi * 440 * Double(f) / Double(rate))
            if f % rate < rate / 1000 { v = 0.9 }
            let s = Int16((v * 32767).rounded())
            samples[2 * f] = s
            samples[2 * f + 1] = s
        }
        return samples
    }

    static func makeStick() throws -> String {
        let root = "/tmp/segmance-speed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(root, 0o755)
        mkdir(root + "/Clicks", 0o755)
        let file = try SoundFile(writingTo: root + "/Clicks/01 Clicks.wav", format: .wavPCM16, sampleRate: rate, channels: 2)
        try file.write(clicked(frames: seconds * rate))
        try file.close()
        return root
    }

    static func run(_ text: String, stick: String, stretchVoices: Int = 3) throws -> [Int16] {
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        configuration.render.stretchVoices = stretchVoices
        var samples: [Int16] = []
        _ = try TwinRun(configuration: configuration).run(try Scenario(parsing: text), stick: stick) { buffer, count in
            for i in 0..<count * 2 { samples.append(WAVWriter.s16(buffer[i])) }
        }
        return samples
    }

    /// Output frames where a click begins: the first frame of each burst of sample-to-sample
    /// steps far larger than the tone's (0.3 · 2π · 440 / 48000 ≈ 0.017 of full scale).
    static func clickOnsets(_ samples: [Int16]) -> [Int] {
        var onsets: [Int] = []
        var last = -rate
        for f in 1..<(samples.count / 2) {
            let step = abs(Int(samples[2 * f]) - Int(samples[2 * f - 2]))
            if step > 2_500 {
                if f - last > rate / 4 { onsets.append(f) }
                last = f
            }
        }
        return onsets
    }

    /// The tone's frequency over `frames` from `start`, from its rising zero crossings
    /// (interpolated between samples).
    static func frequency(_ samples: [Int16], from start: Int, frames: Int) -> Double {
        var crossings: [Double] = []
        for f in (start + 1)..<(start + frames) {
            let a = Double(samples[2 * f - 2]), b = Double(samples[2 * f])
            if a < 0 && b >= 0 { crossings.append(Double(f - 1) + a / (a - b)) }
        }
        guard crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) * Double(rate) / (crossings.last! - crossings.first!)
    }

    @Test(arguments: [50, 75, 150])
    func clicksComeAtTheirSourceTimeOverTheSpeedAndTheToneKeepsItsPitch(speed: Int) throws {
        let stick = try Self.makeStick()
        // Long enough for ten intervals at 50 %, at most the part at 150 %.
        let playSeconds = speed == 150 ? 15 : 22
        let out = try Self.run("0.0 speed \(speed)\n0.1 tap play\n\(playSeconds).0 end", stick: stick)
        let onsets = Self.clickOnsets(out)
        let period = Double(Self.rate) * 100 / Double(speed)
        // Source seconds 1, 2, …: the click at 0 lies in the start's ramp.
        let clicks = Array(onsets.drop { $0 < Self.rate / 4 })
        #expect(clicks.count >= 10, "clicks found: \(clicks.count)")
        // Each at its source second from the start (PLAY counts at its release, 0.16 s,
        // a period boundary): the stretcher's latency is compensated.
        let start = 7_680
        for (n, onset) in clicks.enumerated() {
            let expected = Double(start) + Double(n + 1) * period
            #expect(abs(Double(onset) - expected) / Double(Self.rate) * 1000 <= 10,
                    "click of source second \(n + 1) at \(onset), expected \(expected), \(speed) %")
        }
        let intervals = zip(clicks.dropFirst(), clicks).map { Double($0 - $1) }
        let meanError = (intervals.reduce(0, +) / Double(intervals.count) - period) / Double(Self.rate) * 1000
        let worst = intervals.map { abs($0 - period) / Double(Self.rate) * 1000 }.max() ?? .infinity
        #expect(abs(meanError) <= 3, "mean interval error \(meanError) ms at \(speed) %")
        #expect(worst <= 10, "worst interval error \(worst) ms at \(speed) %")
        // The tone between clicks: a window in the middle of each gap.
        for (a, b) in zip(clicks, clicks.dropFirst()).prefix(8) {
            let gap = b - a
            let hz = Self.frequency(out, from: a + gap / 4, frames: gap / 2)
            #expect(abs(hz - 440) <= 3, "tone \(hz) Hz between clicks at \(a) and \(b), \(speed) %")
        }
    }

    @Test func atAHundredPercentTheOutputIsTheUnstretchedOnesByteForByte() throws {
        let stick = try Self.makeStick()
        let plain = try Self.run("0.1 tap play\n3.0 turn +2\n6.0 end", stick: stick, stretchVoices: 0)
        // With stretchers, and the speed set to 75 % and back before playing.
        let back = try Self.run("0.0 speed 75\n0.05 speed 100\n0.1 tap play\n3.0 turn +2\n6.0 end", stick: stick)
        #expect(plain.count == 6 * Self.rate * 2)
        #expect(plain == back)
        #expect(plain.contains { $0 != 0 })
    }

    @Test func twoRunsAtSpeedGiveIdenticalBytes() throws {
        let stick = try Self.makeStick()
        let text = "0.0 speed 75\n0.1 tap play\n2.0 turn +2\n3.0 speed 120\n4.0 tap loop\n5.5 tap loop\n9.0 end"
        let first = try Self.run(text, stick: stick)
        let second = try Self.run(text, stick: stick)
        #expect(first == second)
        #expect(first.contains { $0 != 0 })
    }

    @Test func simSpeedOptionAndScenarioActionParse() throws {
        let parsed = try Scenario(parsing: "1.5 speed 75")
        #expect(parsed.steps.first?.action == .speed(75))
        #expect(throws: ScenarioError.self) { try Scenario(parsing: "1.0 speed 77") }
        #expect(throws: ScenarioError.self) { try Scenario(parsing: "1.0 speed 200") }
    }
}
