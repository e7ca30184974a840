import Aubio
@testable import BeatTracking
import SegmanceCore
import SegmanceTestSupport
import SndFile
import Testing

/// Beat detection on generated sound: click tracks (accented every fourth beat, a tone
/// under them) get one straight grid on their clicks; noise and speech get none.
@Suite(.tags(.integration)) struct BeatDetectorTests {
    static let rate = 48_000

    static func pcm(_ floats: [Float]) -> [Int16] {
        floats.map { Int16(max(-32768, min(32767, ($0 * 32767).rounded()))) }
    }

    static func detect(_ floats: [Float], rate: Int = BeatDetectorTests.rate) throws -> BeatDetection {
        let samples = pcm(floats)
        return try samples.withUnsafeBufferPointer { buffer in
            try BeatDetector(sampleRate: rate).detect(stereo: buffer.baseAddress!, frames: samples.count / 2)
        }
    }

    @Test(arguments: [90.0, 120.0, 128.0])
    func aClickTrackGetsItsTempoAndGridOnTheClicks(bpm: Double) throws {
        let seconds = 60.0
        let found = try Self.detect(BeatSignals.clickTrack(bpm: bpm, seconds: seconds))
        let grid = try #require(found.grid, "refused: \(found.refusal ?? "")")
        let tempo = grid.bpm(sampleRate: Int64(Self.rate))
        #expect(abs(tempo - bpm) <= 0.5, "tempo \(tempo)")
        #expect(grid.origin == .detected)
        // Every click of the part is within 10 ms of a beat of the one grid.
        var worst = 0.0
        for click in BeatSignals.clickTimes(bpm: bpm, seconds: seconds) {
            let frame = FramePosition((click * Double(Self.rate)).rounded())
            let beat = grid.frame(ofBeat: grid.nearestBeat(to: frame))
            worst = max(worst, abs(Double(beat - frame)) / Double(Self.rate))
        }
        #expect(worst <= 0.010, "worst click off its beat: \(worst * 1000) ms")
        // The accented click (0.25 s, then every fourth) is a "1".
        #expect(abs(Double(grid.one) / Double(Self.rate) - 0.25) <= 0.010, "one at \(grid.one)")
        print("beat detection \(bpm) BPM: tempo \(tempo), worst click \(worst * 1000) ms off, one at "
              + "\(Double(grid.one) / Double(Self.rate)) s, \(found.fit?.inliers ?? 0)/\(found.fit?.beats ?? 0) "
              + "beats on the line, salience \(found.salience)")
    }

    /// A slow click track: beat trackers tend to lock on twice a slow tempo; this one is found
    /// at its own.
    @Test func aSlowClickTrackIsFoundAtItsTempo() throws {
        let found = try Self.detect(BeatSignals.clickTrack(bpm: 75, seconds: 60))
        let tempo = try #require(found.grid).bpm(sampleRate: Int64(Self.rate))
        print("beat detection 75 BPM: tempo \(tempo)")
        #expect(abs(tempo - 75) <= 0.5)
    }

    /// Fed as it comes, in chunks of any size (as a decoder hands them over), the analysis
    /// finds exactly what the whole sound given at once does.
    @Test func theSoundFedInChunksGivesWhatTheWholeGives() throws {
        let samples = Self.pcm(BeatSignals.clickTrack(bpm: 120, seconds: 40))
        let detector = BeatDetector(sampleRate: Self.rate)
        let whole = try samples.withUnsafeBufferPointer {
            try detector.detect(stereo: $0.baseAddress!, frames: samples.count / 2)
        }
        #expect(whole.grid != nil)
        let excerpt = detector.excerpt(ofFrames: samples.count / 2)
        #expect(excerpt == 240_000..<1_680_000)
        let analysis = try BeatAnalysis(detector, start: excerpt.lowerBound)
        var at = excerpt.lowerBound, size = 1
        samples.withUnsafeBufferPointer { buffer in
            while at < excerpt.upperBound {
                let n = min(size, excerpt.upperBound - at)
                analysis.feed(UnsafeBufferPointer(rebasing: buffer[(at * 2)..<((at + n) * 2)]))
                at += n
                size = size * 3 % 9_973 + 1
            }
        }
        #expect(analysis.frames == excerpt.count)
        #expect(analysis.finish() == whole)
    }

    @Test func noiseHasNoGrid() throws {
        let found = try Self.detect(BeatSignals.noise(seconds: 30))
        #expect(found.grid == nil)
        print("beat detection, noise: \(found.refusal ?? "a grid!"), salience \(found.salience)")
    }

    @Test func speechHasNoGrid() throws {
        let dir = try TestFiles.makeTempDir("speech")
        let path = dir + "/speech.wav"
        try BeatSignals.speech(to: path)
        let file = try SoundFile(readingFrom: path)
        let mono = try file.readAllFloat()
        var stereo = [Float](repeating: 0, count: mono.count * 2)
        for i in mono.indices {
            stereo[2 * i] = mono[i]
            stereo[2 * i + 1] = mono[i]
        }
        let found = try Self.detect(stereo, rate: file.info.sampleRate)
        #expect(found.grid == nil)
        print("beat detection, speech: \(found.refusal ?? "a grid!"), salience \(found.salience)")
    }

    @Test func silenceHasNoGrid() throws {
        let found = try Self.detect([Float](repeating: 0, count: 20 * Self.rate * 2))
        #expect(found.grid == nil)
    }

    @Test func aubiosOwnErrorIsThrownWithTheFunctionsName() {
        #expect(throws: AubioError(function: "new_aubio_tempo", message: "tempo: got window size 1, but can not be < 2")) {
            _ = try BeatTracker(sampleRate: 12_000, windowSize: 1, hopSize: 1)
        }
        #expect(throws: AubioError.self) { _ = try BeatTracker(sampleRate: 0, windowSize: 128, hopSize: 32) }
    }

    /// aubio's way: a period a little short, corrected by a step every fifth beat (around the
    /// true beat), and a stretch of eight beats that slipped by a third of a beat.
    static let aubioLike: [Double] = (0..<120).map { (k: Int) -> Double in
        let wobble = Double(k % 5 - 2) * 6
        let slipped: Double = k >= 40 && k < 48 ? 170 : 0
        return 500 * Double(k) - wobble + slipped
    }

    static let lines: [([Double], Double)] = [
        // Beats on a line with wobble.
        ([0, 1000, 2003, 2998, 4000, 5002, 6000, 7001, 7999, 9000, 10_000, 11_000, 12_001], 1000),
        // Two beats half a beat off.
        ([0, 1000, 2000, 3000, 4500, 5500, 6000, 7000, 8000, 9000, 10_000, 11_000, 12_000, 13_000], 1000),
        (aubioLike, 500),
    ]

    @Test(arguments: lines)
    func theFitIsOneStraightLine(beats: [Double], period: Double) throws {
        let fit = try #require(BeatFit.fit(beats, tolerance: 0.06 * period))
        #expect(abs(fit.period - period) < 1, "period \(fit.period)")
        // The same grid whichever beat it numbers 0 (the true one has a beat at 0).
        let phase = fit.origin.truncatingRemainder(dividingBy: period)
        #expect(min(abs(phase), period - abs(phase)) < 0.02 * period, "origin \(fit.origin)")
    }

    @Test func tooFewBeatsFitNoLine() {
        #expect(BeatFit.fit([0, 1000, 2000], tolerance: 30) == nil)
    }
}
