import SegmanceAppliance
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
@testable import SegmanceTwin
import Speech
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Spoken counts in the twin (issue 13, item 3), on `BeatTwinTests`' 120 BPM part whose first
/// beat is at 0.25 s. The words are espeak-ng's (deploy/install-deps.sh installs it: these
/// tests need it and fail, never skip, without it), from the library's cache.
@Suite(.tags(.integration), .serialized) struct SpokenCountTwinTests {
    static let beat = BeatTwinTests.beat
    let temp = TempDirs()

    struct Run {
        var samples: [Int16]
        var output: TwinRun.Output
        var library: String
    }

    func run(_ text: String, stick: String, library: String? = nil, settings: (inout Appliance.Configuration) -> Void) throws -> Run {
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        configuration.settings.countdownBeats = 4
        settings(&configuration)
        let directory = try library ?? temp.make("spoken-twin") + "/lib"
        var twin = TwinRun(configuration: configuration)
        twin.library = try Library(directory: directory, sampleRate: configuration.sampleRate)
        var samples: [Int16] = []
        let output = try twin.run(try Scenario(parsing: text), stick: stick) { buffer, count in
            for i in 0..<count * 2 { samples.append(WAVWriter.s16(buffer[i])) }
        }
        return Run(samples: samples, output: output, library: directory)
    }

    /// Onsets in the left channel: the first sample at or above `threshold` of full scale after
    /// at least 50 ms below it (the words have gaps of up to 38 ms: "six", "eight").
    static func onsets(_ out: [Int16], threshold: Double = 0.005, through end: Int? = nil) -> [Int] {
        let level = Int(threshold * 32768)
        var onsets: [Int] = []
        var quiet = 2_400
        for j in 0..<min(end ?? .max, out.count / 2) {
            if abs(Int(out[2 * j])) < level { quiet += 1; continue }
            if quiet >= 2_400 { onsets.append(j) }
            quiet = 0
        }
        return onsets
    }

    @Test func aSpokenFourBeatCountInSaysFiveSixSevenEightHalfSecondsApartAndTheMusicsBeatFollows() throws {
        let stick = try BeatTwinTests.makeStick()
        let run = try run("0.0 tap play\n4.0 end", stick: stick) { $0.settings.countVoice = .spoken }
        let out = run.samples
        #expect(run.output.log.contains { $0.hasPrefix("spoken counts: 20 words ready") }, "\(run.output.log)")
        // The first beat of the music: the output frame that is source frame 0.25 s. The music
        // starts a quarter beat before it, right after the last word: the counts are the
        // onsets before that.
        let firstBeat = try #require((0..<(out.count / 2)).first { BeatTwinTests.source(out, $0) == BeatTwinTests.firstBeat })
        let counts = Self.onsets(out, through: firstBeat - BeatTwinTests.firstBeat - 10)
        #expect(counts.count == 4, "\(counts)")
        guard counts.count == 4 else { return }
        let intervals = zip(counts, counts.dropFirst()).map { $1 - $0 }
        for interval in intervals { #expect(abs(interval - Self.beat) <= 48, "count interval \(interval) frames") } // ±1 ms
        #expect(abs(firstBeat - counts[3] - Self.beat) <= 96, "first beat at \(firstBeat), last count at \(counts[3])") // ±2 ms
        print("spoken count-in: words \(intervals) frames apart, the first beat \(firstBeat - counts[3]) "
              + "frames after the last word's onset (a beat: \(Self.beat))")
        // They are the words five, six, seven, eight, sample for sample (the cache's).
        let words = try SpokenCounts(library: run.library, sampleRate: 48_000).load()
        #expect(words.spoken == 0)
        for (k, onset) in counts.prefix(3).enumerated() {
            let word = words.sounds[4 + k]
            let heard = (0..<word.count).map { out[2 * (onset + $0)] }
            #expect(heard == word.map(WAVWriter.s16), "the word \(SpokenCounts.words[4 + k]) at \(onset)")
        }
        #expect(run.output.finalState.transport == .playing)
    }

    @Test func aSpokenRunIsTheSameBytesEveryTimeAndNotTheTicks() throws {
        let stick = try BeatTwinTests.makeStick()
        let script = "0.0 tap play\n3.0 tap play\n3.5 tap play\n6.0 end"
        let a = try run(script, stick: stick) { $0.settings.countVoice = .spoken }
        let b = try run(script, stick: stick) { $0.settings.countVoice = .spoken }
        #expect(a.samples == b.samples)
        let ticks = try run(script, stick: stick) { $0.settings.countVoice = .ticks }
        #expect(ticks.samples != a.samples)
        #expect(ticks.samples.count == a.samples.count)
    }

    @Test func withoutEspeakNgTheCountsAreTicksAndTheLogSaysWhy() throws {
        let stick = try BeatTwinTests.makeStick()
        let script = "0.0 tap play\n4.0 end"
        let absent = try run(script, stick: stick) {
            $0.settings.countVoice = .spoken
            $0.speech = EspeakSpeech(executable: "/nonexistent/espeak-ng")
        }
        let ticks = try run(script, stick: stick) { $0.settings.countVoice = .ticks }
        #expect(absent.samples == ticks.samples)
        #expect(absent.output.log.contains { $0.hasSuffix("/nonexistent/espeak-ng not found (install the Debian package espeak-ng); counting with ticks") },
                "\(absent.output.log)")
        #expect(absent.output.finalState.settings.countVoice == .spoken)
    }

    @Test func aCorruptCacheIsSpokenAgainAndTheRunIsTheSame() throws {
        let stick = try BeatTwinTests.makeStick()
        let script = "0.0 tap play\n4.0 end"
        let first = try run(script, stick: stick) { $0.settings.countVoice = .spoken }
        let counts = SpokenCounts(library: first.library, sampleRate: 48_000)
        let six = counts.path(of: "six")
        let f = try #require(fopen(six, "r+b"))
        fseek(f, -10, SEEK_END)
        let byte = fgetc(f)
        fseek(f, -10, SEEK_END)
        fputc(byte ^ 0x55, f)
        fclose(f)
        let again = try run(script, stick: stick, library: first.library) { $0.settings.countVoice = .spoken }
        #expect(again.output.log.contains { $0.hasPrefix("spoken counts: \(six): not a valid cached word (its SHA-256 does not match)") },
                "\(again.output.log)")
        #expect(again.output.log.contains { $0.hasPrefix("spoken counts: 20 words ready, 1 spoken now") })
        #expect(again.samples == first.samples)
    }

    /// The box at boot: spoken counts saved in its library are made ready as it restores
    /// them, and the lines logged then reach the log its owner sets after the start.
    @Test func spokenCountsSavedInTheLibraryAreReadyAtBootAndSaidInTheLog() throws {
        let library = try Library(directory: try temp.make("spoken-boot") + "/lib")
        try library.apply(.settings(Settings(countVoice: .spoken)))
        let appliance = try Appliance(Appliance.Configuration(), library: library)
        var lines: [String] = []
        appliance.log = { lines.append($0) }
        #expect(appliance.state.settings.countVoice == .spoken)
        #expect(lines.count == 1 && lines[0].hasPrefix("spoken counts: 20 words ready, 20 spoken now by espeak-ng en-us 200wpm"), "\(lines)")
        appliance.log("after")
        #expect(lines.last == "after")
        // The next boot reads them from the cache.
        lines = []
        let again = try Appliance(Appliance.Configuration(), library: library)
        again.log = { lines.append($0) }
        #expect(lines.count == 1 && lines[0].hasPrefix("spoken counts: 20 words ready, 0 spoken now"), "\(lines)")
    }

    @Test func atAFastTempoAWordEndsBeforeTheNextCount() throws {
        // 120 BPM at 150 %: a beat of 16 000 frames (1/3 s); "seven" lasts 0.40 s.
        let stick = try BeatTwinTests.makeStick()
        let run = try run("0.0 speed 150\n0.0 tap play\n3.0 end", stick: stick) { $0.settings.countVoice = .spoken }
        let out = run.samples
        // PLAY counts at its release (0.16 s): counts at about 7 680 + k·16 000, the music from
        // half a beat after the last.
        // Words cut short leave 5 ms between them (and "six" has 34 ms of silence inside): the
        // first onset is found as above, each next one as the first sample at or above the
        // threshold after at least 240 silent frames, within a quarter beat of a beat later.
        guard let first = Self.onsets(out, through: 20_000).first else {
            Issue.record("no count")
            return
        }
        var counts = [first]
        for _ in 1..<4 {
            let expected = counts.last! + 16_000
            guard let next = (expected - 4_000..<expected + 4_000).first(where: { j in
                abs(Int(out[2 * j])) >= 164 && (j - 240..<j).allSatisfy { out[2 * $0] == 0 && out[2 * $0 + 1] == 0 }
            }) else { break }
            counts.append(next)
        }
        #expect(counts.count == 4, "\(counts)")
        guard counts.count == 4 else { return }
        print("spoken count-in at 150 %: words \(zip(counts, counts.dropFirst()).map { $1 - $0 }) frames apart (a beat: 16000)")
        for (a, b) in zip(counts, counts.dropFirst()).prefix(3) {
            #expect(abs(b - a - 16_000) <= 48, "count interval \(b - a)")
            // The word before each count has ended, a ramp (5 ms) of silence before it.
            #expect((b - 240..<b).allSatisfy { out[2 * $0] == 0 && out[2 * $0 + 1] == 0 }, "silence before the count at \(b)")
        }
    }
}
