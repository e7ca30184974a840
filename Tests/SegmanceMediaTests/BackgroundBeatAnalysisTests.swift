@testable import BeatTracking
import SegmanceCore
import SegmanceTestSupport
import Testing

/// Beat detection on a thread of its own, fed through a bounded queue as a decoder hands
/// over its chunks: what detecting the whole sound at once finds.
@Suite(.tags(.unit)) struct BackgroundBeatAnalysisTests {
    static let rate = 48_000

    static func pcm(_ floats: [Float]) -> [Int16] {
        floats.map { Int16(max(-32768, min(32767, ($0 * 32767).rounded()))) }
    }

    /// The whole file offered in a decoder's chunks (those outside the excerpt too): the
    /// same detection as the whole sound given at once.
    @Test func offeredInChunksItFindsWhatDetectingTheWholeFinds() throws {
        let samples = Self.pcm(BeatSignals.clickTrack(bpm: 128, seconds: 45))
        let frames = samples.count / 2
        let detector = BeatDetector(sampleRate: Self.rate)
        let whole = try samples.withUnsafeBufferPointer { try detector.detect(stereo: $0.baseAddress!, frames: frames) }
        let analysis = try #require(BackgroundBeatAnalysis(detector: detector, excerpt: detector.excerpt(ofFrames: frames)))
        samples.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: frames, by: 16_384) {
                let end = min(frames, start + 16_384)
                analysis.offer(UnsafeBufferPointer(rebasing: buffer[(start * 2)..<(end * 2)]), at: start)
            }
        }
        let outcome = try #require(analysis.finish())
        #expect(outcome.frames == detector.excerpt(ofFrames: frames).count)
        #expect(try outcome.detection.get() == whole)
        #expect(whole.grid != nil)
    }

    /// Cancelled half way (a file that fails to decode), the thread ends and nothing is found.
    @Test func aCancelledAnalysisEndsWithNothing() throws {
        let samples = Self.pcm(BeatSignals.clickTrack(bpm: 120, seconds: 20))
        let detector = BeatDetector(sampleRate: Self.rate)
        let analysis = try #require(BackgroundBeatAnalysis(detector: detector, excerpt: 0..<(samples.count / 2)))
        samples.withUnsafeBufferPointer { analysis.offer(UnsafeBufferPointer(rebasing: $0[0..<96_000]), at: 0) }
        analysis.cancel()
        #expect(analysis.finish() == nil)
    }
}
