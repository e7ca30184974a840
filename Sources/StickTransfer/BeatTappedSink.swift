import AudioDecoding
import BeatTracking
import SegmanceLibrary

/// The media writer with beat detection tapped in: every chunk goes to the writer, and the
/// frames of the excerpt `BeatDetector` would analyse — the middle of the length the file
/// announces (`begin`) — to a `BackgroundBeatAnalysis` on its own thread.
final class BeatTappedSink: PCMSink {
    let writer: MediaWriter
    let detector: BeatDetector
    /// The analysis under way, once the decoder has announced the file's length.
    private(set) var analysis: BackgroundBeatAnalysis?
    /// Frames written so far.
    private var position = 0

    init(writer: MediaWriter, detector: BeatDetector) {
        self.writer = writer
        self.detector = detector
    }

    func begin(expectedFrames: Int) {
        writer.begin(expectedFrames: expectedFrames)
        analysis = BackgroundBeatAnalysis(detector: detector, excerpt: detector.excerpt(ofFrames: expectedFrames))
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try writer.write(samples)
        analysis?.offer(samples, at: position)
        position += samples.count / 2
    }

    func progress(sourceFrames: Int64, of total: Int64) {
        writer.progress(sourceFrames: sourceFrames, of: total)
    }
}
