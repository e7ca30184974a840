import Testing
import SegmanceCore
import SndFile
import SegmanceAppliance
@testable import SegmanceTwin
#if canImport(Glibc)
import Glibc
#endif

/// Musical time in the twin: a 120 BPM part whose first beat is at 0.25 s (its grid from
/// the manifest), made of the frame-numbered source of `TwinScenarioTests`, so every output
/// frame says which source frame it is and every beat can be found to the frame.
@Suite(.tags(.integration), .serialized) struct BeatTwinTests {
    static let rate = TwinScenarioTests.rate
    /// Frames per beat at 120 BPM, and the source frame of the first beat (0.25 s).
    static let beat = 24_000
    static let firstBeat = 12_000

    static func makeStick() throws -> String {
        let root = "/tmp/segmance-beat-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let routine = root + "/Beat"
        mkdir(root, 0o755)
        mkdir(routine, 0o755)
        let file = try SoundFile(writingTo: routine + "/01 Count.wav", format: .wavPCM16, sampleRate: rate, channels: 2)
        try file.write(TwinScenarioTests.source(frames: 30 * rate))
        try file.close()
        let manifest = """
            [[part]]
            title = "Count"
            file = "01 Count.wav"
            tempo = 120
            one = "0:00.25"
            """
        let f = fopen(routine + "/routine.toml", "wb")!
        fputs(manifest, f)
        fclose(f)
        return root
    }

    static func run(_ text: String, stick: String, settings: (inout Settings) -> Void)
        throws -> (samples: [Int16], output: TwinRun.Output) {
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        settings(&configuration.settings)
        var samples: [Int16] = []
        let output = try TwinRun(configuration: configuration).run(try Scenario(parsing: text), stick: stick) { buffer, count in
            for i in 0..<count * 2 { samples.append(WAVWriter.s16(buffer[i])) }
        }
        return (samples, output)
    }

    static func source(_ out: [Int16], _ j: Int) -> Int { TwinScenarioTests.decode(out[2 * j], out[2 * j + 1]) }

    static func isBeat(_ frame: Int) -> Bool { frame >= firstBeat && (frame - firstBeat) % beat == 0 }

    @Test func aFourBeatCountInCountsHalfSecondsAndTheMusicsFirstBeatFollowsOneBeatLater() throws {
        let stick = try Self.makeStick()
        let (out, result) = try Self.run("0.0 tap play\n4.0 end", stick: stick) { $0.countdownBeats = 4 }
        #expect(result.finalState.part?.grid == BeatGrid(beatFrames: 24_000, one: 12_000, origin: .manifest))
        // The count sounds: each the first sound after at least 200 frames of silence.
        var onsets: [Int] = []
        var quiet = 200
        for j in 0..<(out.count / 2) {
            if out[2 * j] == 0 && out[2 * j + 1] == 0 { quiet += 1; continue }
            if quiet >= 200 { onsets.append(j) }
            quiet = 0
        }
        // Four counts, then the music (which starts with a ramp from silence, a quarter beat
        // before its first beat).
        #expect(onsets.count >= 5, "\(onsets)")
        let counts = Array(onsets.prefix(4))
        for (a, b) in zip(counts, counts.dropFirst()) {
            #expect(abs(b - a - Self.beat) <= 48, "count interval \(b - a) frames") // ±1 ms
        }
        // The first beat of the music: the output frame that is source frame 0.25 s.
        let firstBeat = (0..<(out.count / 2)).first { Self.source(out, $0) == Self.firstBeat }
        #expect(firstBeat.map { abs($0 - counts[3] - Self.beat) <= 96 } == true,
                "first beat at \(firstBeat ?? -1), last count at \(counts[3])") // ±2 ms
        print("count-in: counts \(zip(counts, counts.dropFirst()).map { $1 - $0 }) frames apart, the first beat "
              + "\(firstBeat.map { $0 - counts[3] } ?? -1) frames after the last count (a beat: \(Self.beat))")
        #expect(result.finalState.transport == .playing)
        // The LCD shows the counts "5", "6", "7", "8" in big digits.
        let lines = result.frames.lines
        #expect(lines.contains { $0.contains("|Ready in     █≣≣|") }, "5")
        #expect(lines.contains { $0.contains("|Ready in     █≣█|") }, "8")
    }

    @Test func aLoopMarkedAt2_1And4_4SnapsTo2_25And4_25AndKeepsTheBeatAcrossTenSeams() throws {
        let stick = try Self.makeStick()
        let (out, result) = try Self.run("0.0 tap play\n2.1 tap loop\n4.4 tap loop\n26.0 end", stick: stick) {
            $0.loopSnap = .beat
        }
        #expect(result.finalState.loop == .ab(ABLoop(a: 108_000, b: 204_000)))
        // Every beat in the output: a beat's source frame following its predecessor, or the
        // first frame after a seam (B−1 followed by the loop's start: B and A are both beats).
        var beats: [Int] = []
        var seams = 0
        for j in 1..<(out.count / 2 - 1) {
            let here = Self.source(out, j), before = Self.source(out, j - 1)
            if before == 204_000 - 1 {
                // The crossfade's first frame is exactly B's; the next is no longer B + 1.
                beats.append(j)
                if Self.source(out, j + 1) != 204_001 { seams += 1 }
            } else if Self.isBeat(here) && before == here - 1 {
                beats.append(j)
            }
        }
        #expect(seams >= 10, "\(seams) seams")
        let intervals0 = zip(beats, beats.dropFirst()).map { $1 - $0 }
        print("snapped loop: \(intervals0.count) beat intervals across \(seams) seams, "
              + "\(intervals0.min() ?? 0)...\(intervals0.max() ?? 0) frames (a beat: \(Self.beat))")
        let intervals = zip(beats, beats.dropFirst()).map { $1 - $0 }
        let off = intervals.filter { abs($0 - Self.beat) > 48 } // ±1 ms
        #expect(off.isEmpty, "intervals off the beat: \(off); \(intervals.count) intervals")
        #expect(intervals.count >= 10 * 4)
    }

    /// Issue 25, on the 16×2 LCD: playing the part, the clock keeps its length and the place
    /// in the eights shows beside it, labelled, beat by beat; once the A–B loop is on, its
    /// pass takes the place's room, and still no clock loses its length.
    @Test func theClockKeepsItsLengthAndThePlaceInTheEightsIsLabelled() throws {
        let stick = try Self.makeStick()
        let (_, result) = try Self.run("0.0 tap play\n2.1 tap loop\n4.4 tap loop\n8.0 end", stick: stick) {
            $0.loopSnap = .beat
        }
        let lines = result.frames.lines
        // 1.25 s is beat 3 of eight 1 (the first "1" is at 0.25 s), 1.75 s beat 4.
        #expect(lines.contains { $0.hasSuffix("|▶ 1/1 Count     |0:01/0:30  E1 B3|") }, "\(result.frames.text)")
        #expect(lines.contains { $0.hasSuffix("|▶ 1/1 Count     |0:01/0:30  E1 B4|") }, "\(result.frames.text)")
        #expect(lines.contains { $0.hasSuffix("|▶ 1/1 Count   ⒶⒷ|0:02/0:30    ⟲x3|") }, "\(result.frames.text)")
        let clocks = lines.compactMap { $0.split(separator: "|").dropFirst(2).first }
            .filter { $0.contains(/^[0-9]:[0-9][0-9]/) }
        #expect(clocks.count > 8)
        #expect(clocks.allSatisfy { $0.contains("/0:30") }, "\(clocks)")
    }
}
