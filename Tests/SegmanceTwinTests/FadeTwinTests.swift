import SegmanceAppliance
import SegmanceCore
import SndFile
@testable import SegmanceTwin
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Fades in the twin (issue 29): a stop with *Stop fade* at 2 s, and a part whose manifest
/// ends it with `fade_out = "2 s"`, on a stick whose audio holds one level (so the RMS of a
/// period is the fade's gain times that level) with a marker click at a known frame.
@Suite(.tags(.integration), .serialized) struct FadeTwinTests {
    static let rate = TwinScenarioTests.rate
    static let period = TwinScenarioTests.period
    static let level: Int16 = 10_000
    /// The marker: one frame at full scale, 1 s into the song.
    static let marker = 48_000

    static func makeStick(seconds: Int, manifest: String?) throws -> String {
        let root = "/tmp/segmance-fade-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let routine = root + "/Fade"
        mkdir(root, 0o755)
        mkdir(routine, 0o755)
        var samples = [Int16](repeating: level, count: seconds * rate * 2)
        samples[marker * 2] = .max
        samples[marker * 2 + 1] = .max
        let file = try SoundFile(writingTo: routine + "/01 Level.wav", format: .wavPCM16, sampleRate: rate, channels: 2)
        try file.write(samples)
        try file.close()
        if let manifest {
            let f = fopen(routine + "/routine.toml", "wb")!
            fputs(manifest, f)
            fclose(f)
        }
        return root
    }

    static func run(_ text: String, stick: String, stopFade: Int = 0) throws -> [Int16] {
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        configuration.settings.stopFade = stopFade
        var samples: [Int16] = []
        _ = try TwinRun(configuration: configuration).run(try Scenario(parsing: text), stick: stick) { buffer, count in
            for i in 0..<count * 2 { samples.append(WAVWriter.s16(buffer[i])) }
        }
        return samples
    }

    /// The RMS of the left channel over `frames` from `start`.
    static func rms(_ out: [Int16], _ start: Int, _ frames: Int) -> Double {
        var sum = 0.0
        for j in start..<min(start + frames, out.count / 2) { sum += Double(out[2 * j]) * Double(out[2 * j]) }
        return (sum / Double(frames)).squareRoot()
    }

    /// Where the fade begins (the first frame below the level after `after`) and ends (the
    /// first of the silence after it), and whether the RMS of each period between never rises.
    static func fade(in out: [Int16], after: Int) -> (start: Int, end: Int, monotonic: Bool)? {
        let frames = out.count / 2
        guard let start = (after..<frames).first(where: { out[2 * $0] < level && out[2 * $0] >= 0 }),
              let end = (start..<frames).first(where: { j in
                  (j..<min(j + period, frames)).allSatisfy { out[2 * $0] == 0 }
              })
        else { return nil }
        var previous = Double.infinity
        var monotonic = true
        for window in stride(from: start, to: end, by: period) {
            let value = rms(out, window, min(period, end - window))
            if value > previous + 1e-9 { monotonic = false }
            previous = value
        }
        return (start, end, monotonic)
    }

    @Test func aStopWithATwoSecondFadeFallsMonotonicallyToSilenceOverTwoSeconds() throws {
        let stick = try Self.makeStick(seconds: 12, manifest: nil)
        let out = try Self.run("0.0 tap play\n3.0 hold play 0.8\n9.0 end", stick: stick, stopFade: 2000)
        // The marker sounded where the song put it (the ramp-in's first frame is silent).
        let start = try #require((0..<(out.count / 2)).first { out[2 * $0] != 0 }) - 1
        #expect(out[2 * (start + Self.marker)] > 30_000, "the marker, 1 s after the music's start")
        let fade = try #require(Self.fade(in: out, after: start + Self.marker + 1))
        // The stop acts at the release (3.8 s), at a period boundary; the fade's first frames
        // round to the level.
        let stop = fade.start / Self.period * Self.period
        #expect((Int(3.8 * Double(Self.rate))...Int(3.9 * Double(Self.rate))).contains(stop), "\(fade.start)")
        #expect(fade.start - stop < 16)
        #expect(abs(fade.end - stop - 2 * Self.rate) <= Self.period,
                "the fade lasts \(fade.end - stop) frames (2 s: \(2 * Self.rate))")
        #expect(fade.monotonic)
        // Half way the level is halved.
        #expect(abs(Self.rms(out, stop + Self.rate - 64, 128) - Double(Self.level) / 2) < 20)
        #expect(out[(2 * fade.end)...].allSatisfy { $0 == 0 })
        print("stop fade: \(fade.end - stop) frames from \(stop), RMS never rising: \(fade.monotonic)")
    }

    @Test func withNoStopFadeTheStopIsTheShortRamp() throws {
        let stick = try Self.makeStick(seconds: 12, manifest: nil)
        let out = try Self.run("0.0 tap play\n3.0 hold play 0.8\n6.0 end", stick: stick)
        let fade = try #require(Self.fade(in: out, after: Int(2.0 * Double(Self.rate))))
        #expect(fade.end - fade.start / Self.period * Self.period <= 240)
    }

    @Test func aPartWithFadeOutEndsWithATwoSecondFadeToItsEnd() throws {
        let manifest = "[[part]]\nfile = \"01 Level.wav\"\nfade_out = \"2 s\"\n"
        let stick = try Self.makeStick(seconds: 6, manifest: manifest)
        let out = try Self.run("0.0 tap play\n8.0 end", stick: stick)
        let start = try #require((0..<(out.count / 2)).first { out[2 * $0] != 0 }) - 1
        #expect(out[2 * (start + Self.marker)] > 30_000, "the marker, 1 s after the music's start")
        let fade = try #require(Self.fade(in: out, after: start + Self.marker + 1))
        // The fade begins 4 s into the part (its first frames round to the level) and ends
        // with it, at 6 s.
        #expect((0..<16).contains(fade.start - (start + 4 * Self.rate)), "\(fade.start - start)")
        #expect(abs(fade.end - (start + 6 * Self.rate)) <= 8, "\(fade.end - start)")
        #expect(fade.monotonic)
    }
}
