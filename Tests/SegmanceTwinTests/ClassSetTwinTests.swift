import SegmanceAppliance
import SegmanceCore
import SndFile
@testable import SegmanceTwin
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A class set in the twin (issue 29): a stick of three routines — one 2 s part each, at a level
/// of its own, 120 BPM from its start, a marker click 0.5 s in — and a class.toml giving a set
/// of the three with a 3 s gap. Chosen in the menu, the set plays them in order; each next
/// routine's first sample comes 3 s (± one period) after the last one's, its 4-beat count-in
/// (2 s) sounding in the gap.
@Suite(.tags(.integration), .serialized) struct ClassSetTwinTests {
    static let rate = TwinScenarioTests.rate
    static let period = TwinScenarioTests.period
    static let levels: [Int16] = [4_000, 8_000, 12_000]
    static let titles = ["Warm", "Routine", "Cool"]
    static let marker = 24_000

    static func makeStick(announce: Bool = false) throws -> String {
        let root = "/tmp/segmance-class-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(root, 0o755)
        for (title, level) in zip(titles, levels) {
            let folder = root + "/" + title
            mkdir(folder, 0o755)
            var samples = [Int16](repeating: level, count: 2 * rate * 2)
            samples[2 * marker] = .max
            samples[2 * marker + 1] = .max
            let file = try SoundFile(writingTo: folder + "/01 Part.wav", format: .wavPCM16, sampleRate: rate,
                                     channels: 2)
            try file.write(samples)
            try file.close()
            write("title = \"\(title)\"\n[[part]]\nfile = \"01 Part.wav\"\ntempo = 120\n", to: folder + "/routine.toml")
        }
        write("""
            [[class]]
            name = "Monday"
            gap = "3 s"
            announce = \(announce)
            tracks = ["Warm", "Routine", { routine = "Cool", part = 1 }]
            """, to: root + "/class.toml")
        return root
    }

    static func write(_ text: String, to path: String) {
        let f = fopen(path, "wb")!
        fputs(text, f)
        fclose(f)
    }

    @Test func threeRoutinesPlayInOrderEachFirstSampleThreeSecondsAfterTheLastOnes() throws {
        let stick = try Self.makeStick()
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        configuration.settings.countdownBeats = 4
        let row = Menu.Item.allCases.firstIndex(of: .classSet)!
        let list = 1 + row * 3 / 20 + 1
        let scenario = """
            0.0 tap select
            0.5 turn +\(row)
            \(list).0 tap select
            \(list + 1).0 tap select
            \(list + 20).0 end
            """
        var out: [Int16] = []
        let twin = TwinRun(configuration: configuration)
        let result = try twin.run(try Scenario(parsing: scenario), stick: stick) { b, n in
            for i in 0..<n * 2 { out.append(WAVWriter.s16(b[i])) }
        }
        #expect(result.finalState.classSets.map(\.name) == ["Monday"], "\(result.log)")
        let frames = out.count / 2
        // Each routine's music: its level at full gain held 100 frames (a count's sine may touch
        // it), from the first frame after its ramp-in to its last.
        func held(_ j: Int, _ level: Int16) -> Bool { (j..<j + 100).allSatisfy { out[2 * $0] == level } }
        var starts: [Int] = [], ends: [Int] = []
        for level in Self.levels {
            let first = try #require((0..<frames - 100).first { held($0, level) }, "level \(level) never sounds")
            let last = try #require((0..<frames - 100).last { held($0, level) }) + 99
            starts.append(first - 240)
            ends.append(last)
            #expect(out[2 * (first - 240 + Self.marker)] == .max, "the marker, 0.5 s into the routine")
            #expect(last - (first - 240) == 2 * Self.rate - 1, "the whole part played")
        }
        for k in 1..<3 {
            let gap = starts[k] - ends[k - 1]
            #expect(abs(gap - 3 * Self.rate) <= Self.period, "routine \(k + 1): \(gap) frames after the last sample")
            // Four counts in the gap, the last a beat before the music.
            var onsets: [Int] = []
            var quiet = 200
            for j in (ends[k - 1] + 1)..<starts[k] {
                if out[2 * j] == 0 { quiet += 1; continue }
                if quiet >= 200 { onsets.append(j) }
                quiet = 0
            }
            #expect(onsets.count == 4, "\(onsets)")
            #expect(onsets.last.map { starts[k] - $0 } == Self.rate / 2)
            print("class set: routine \(k + 1) starts \(gap) frames after routine \(k)'s last sample (3 s: "
                  + "\(3 * Self.rate)), its last count \(onsets.last.map { starts[k] - $0 } ?? -1) frames before")
        }
        #expect(starts[0] < starts[1] && starts[1] < starts[2])
        let lines = result.frames.lines
        #expect(lines.contains { $0.contains("|Class 2/3   0:03|Routine") }, "\(result.frames.text)")
        #expect(lines.contains { $0.contains("|Class 3/3   0:01|Cool") })
        #expect(lines.contains { $0.contains("Class done") })
    }

    /// With `announce = true` the next title is spoken (espeak-ng, cached in the library) at the
    /// gap's start, and ends before the first count; the next first sample is still 3 s after.
    @Test func theNextTitleIsSpokenAtTheGapsStartBeforeItsCount() throws {
        let stick = try Self.makeStick(announce: true)
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        configuration.settings.countdownBeats = 4
        let row = Menu.Item.allCases.firstIndex(of: .classSet)!
        let list = 1 + row * 3 / 20 + 1
        let scenario = "0.0 tap select\n0.5 turn +\(row)\n\(list).0 tap select\n\(list + 1).0 tap select\n"
            + "\(list + 10).0 end\n"
        var out: [Int16] = []
        let result = try TwinRun(configuration: configuration).run(try Scenario(parsing: scenario), stick: stick) {
            for i in 0..<$1 * 2 { out.append(WAVWriter.s16($0[i])) }
        }
        let frames = out.count / 2
        func held(_ j: Int, _ level: Int16) -> Bool { (j..<j + 100).allSatisfy { out[2 * $0] == level } }
        let end = try #require((0..<frames - 100).last { held($0, Self.levels[0]) }) + 99
        let next = try #require((0..<frames - 100).first { held($0, Self.levels[1]) }) - 240
        #expect(abs(next - end - 3 * Self.rate) <= Self.period, "\(next - end)")
        // The words: sound from within a period of the end, then silence before the first count (1 s
        // of silence: the gap less the 2 s count-in).
        let spoken = try #require((end + 1..<next).first { out[2 * $0] != 0 })
        #expect(spoken - end <= Self.period + 1, "the announcement \(spoken - end) frames after the end")
        let firstCount = next - 2 * Self.rate
        let lastWord = try #require((end + 1..<firstCount).last { out[2 * $0] != 0 })
        #expect(lastWord > spoken + Self.rate / 10 && lastWord < firstCount - 240, "\(spoken)...\(lastWord)")
        #expect(result.log.contains { $0.contains("not announced") } == false, "\(result.log)")
        print("class set: the next title spoken from \(spoken - end) to \(lastWord - end) frames after the end, "
              + "the first count at \(firstCount - end)")
    }
}
