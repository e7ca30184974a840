/// Compares what the daemon played in real time (captured from the loopback card) with
/// what the twin rendered in virtual time for the same inputs, sample by sample.
///
/// The two cannot be equal as whole files: the capture starts at another moment, and live
/// input applies at the render thread's next period boundary (or one later when the thread
/// was already rendering it) while the twin applies it at the frame the scenario says. So:
///
/// - The twin's audio is cut into segments at its command frames. A window after each
///   command (`windowFrames`: the largest delay the daemon may add, plus the ramps and
///   crossfades that start there) is not compared: ramps land on different periods.
/// - The first sound (the first countdown tick, whose first sample is non-zero by design)
///   aligns the capture with the twin.
/// - After each command the daemon may lag the twin by more than before (never less: it
///   applies a command at or after the frame the twin does); each segment finds its own
///   offset, searching at most `searchFrames` beyond the previous one.
/// - Within a segment every sample must be equal within `tolerance` (LSB).
///
/// Segments that are silent in the twin are checked to be silent in the capture where
/// every candidate offset agrees. A segment with sound that no offset makes equal fails
/// the comparison, with where it departs.
public struct AudioComparison: Sendable {
    public struct Options: Sendable {
        /// Frames after each command left out of the comparison.
        public var windowFrames: Int
        /// How much further than the previous segment's offset a segment may be shifted.
        public var searchFrames: Int
        /// Largest difference between two samples that still counts as equal.
        public var tolerance: Int
        /// Channels per frame in both signals.
        public var channels: Int

        public init(windowFrames: Int, searchFrames: Int, tolerance: Int = 0, channels: Int = 2) {
            self.windowFrames = windowFrames
            self.searchFrames = searchFrames
            self.tolerance = tolerance
            self.channels = channels
        }
    }

    /// One stretch of the twin's audio between command windows.
    public struct Segment: Equatable, Sendable {
        /// Frames of the twin's audio.
        public var twin: Range<Int>
        /// capture frame = twin frame + offset, when found.
        public var offset: Int?
        /// True when the twin is silent throughout.
        public var silent: Bool
        /// Why it does not match, nil when it does.
        public var failure: String?
    }

    public struct Result: Sendable {
        public var segments: [Segment]
        /// Problems that concern the whole comparison (no sound at all, the capture too short).
        public var problems: [String]
        /// Frames with sound in the twin that were compared and found equal.
        public var matchedSoundFrames: Int
        /// Frames with sound in the twin (inside or outside the windows).
        public var soundFrames: Int

        /// Every failure, one a line; empty when the capture matches.
        public var failures: [String] { problems + segments.compactMap { s in s.failure.map { "frames \(s.twin): \($0)" } } }
        public var matches: Bool { failures.isEmpty }

        /// "12 segments, 95.1 % of the twin's sound compared equal, offsets …"
        public var summary: String {
            let percent = soundFrames == 0 ? 0 : Double(matchedSoundFrames) * 100 / Double(soundFrames)
            let offsets = segments.compactMap(\.offset)
            return "\(segments.count) segments (\(segments.filter(\.silent).count) silent), "
                + "\(String(format1: percent)) % of the twin's sound frames compared equal; capture offsets \(offsets)"
        }
    }

    public let options: Options

    public init(_ options: Options) { self.options = options }

    /// Compares `capture` with `twin` (interleaved samples); `commands` are the twin frames
    /// at which commands applied.
    public func compare(capture: [Int16], twin: [Int16], commands: [Int]) -> Result {
        let channels = options.channels
        let twinFrames = twin.count / channels
        let captureFrames = capture.count / channels
        var result = Result(segments: [], problems: [], matchedSoundFrames: 0, soundFrames: 0)
        guard let twinOnset = Self.firstSound(twin, channels: channels) else {
            result.problems.append("the twin's audio is silent throughout")
            return result
        }
        guard let captureOnset = Self.firstSound(capture, channels: channels) else {
            result.problems.append("the capture is silent throughout")
            return result
        }
        result.soundFrames = (0..<twinFrames).reduce(0) { $0 + (isSilent(twin, frame: $1) ? 0 : 1) }

        // Segments: from the end of one command's window to the next command.
        var bounds: [Range<Int>] = []
        var start = 0
        for command in commands.sorted() where command >= start {
            if command > start { bounds.append(start..<min(command, twinFrames)) }
            start = command + options.windowFrames
        }
        if start < twinFrames { bounds.append(start..<twinFrames) }

        var offset = captureOnset - twinOnset
        var first = true
        for range in bounds where !range.isEmpty {
            var segment = Segment(twin: range, offset: nil, silent: false, failure: nil)
            let sound = range.filter { !isSilent(twin, frame: $0) }.count
            segment.silent = sound == 0
            // The first sound fixes the offset exactly; later segments may lag further.
            let candidates = first && !segment.silent && range.contains(twinOnset)
                ? offset...offset : offset...(offset + options.searchFrames)
            if segment.silent {
                // Every candidate offset sees silence over the frames they all cover.
                let low = max(0, range.lowerBound + candidates.upperBound)
                let common = low..<max(low, range.upperBound + candidates.lowerBound)
                if common.upperBound > captureFrames {
                    segment.failure = "the capture ends at frame \(captureFrames), before the twin's frame \(range.upperBound - 1) (+ offset \(candidates.lowerBound))"
                } else if let loud = common.first(where: { !isSilent(capture, frame: $0) }) {
                    segment.failure = "the twin is silent here, the capture has sound at capture frame \(loud)"
                        + " (twin frame \(loud - candidates.upperBound)…\(loud - candidates.lowerBound))"
                }
                result.segments.append(segment)
                continue
            }
            first = false
            if let found = candidates.first(where: { matches(capture, twin, range, offset: $0) }) {
                segment.offset = found
                offset = found
                result.matchedSoundFrames += sound
            } else {
                segment.failure = describeMismatch(capture, twin, range, candidates: candidates)
            }
            result.segments.append(segment)
        }
        return result
    }

    /// The first frame with a non-zero sample.
    public static func firstSound(_ samples: [Int16], channels: Int = 2, from: Int = 0) -> Int? {
        var frame = from
        while (frame + 1) * channels <= samples.count {
            for c in 0..<channels where samples[frame * channels + c] != 0 { return frame }
            frame += 1
        }
        return nil
    }

    private func isSilent(_ samples: [Int16], frame: Int) -> Bool {
        let base = frame * options.channels
        for c in 0..<options.channels where samples[base + c] != 0 { return false }
        return true
    }

    private func matches(_ capture: [Int16], _ twin: [Int16], _ range: Range<Int>, offset: Int) -> Bool {
        let channels = options.channels
        guard range.lowerBound + offset >= 0, (range.upperBound + offset) * channels <= capture.count else { return false }
        let tolerance = options.tolerance
        var i = range.lowerBound * channels
        var j = (range.lowerBound + offset) * channels
        let end = range.upperBound * channels
        while i < end {
            let difference = Int(capture[j]) - Int(twin[i])
            if difference > tolerance || difference < -tolerance { return false }
            i += 1
            j += 1
        }
        return true
    }

    /// Where the closest candidate departs: the offset that matches the most leading frames.
    private func describeMismatch(_ capture: [Int16], _ twin: [Int16], _ range: Range<Int>,
                                  candidates: ClosedRange<Int>) -> String {
        let channels = options.channels
        if (range.lowerBound + candidates.lowerBound) * channels >= capture.count {
            return "the capture ends at frame \(capture.count / channels), before this segment (offset \(candidates.lowerBound))"
        }
        var best = (offset: candidates.lowerBound, equalFrames: -1)
        for offset in candidates where range.lowerBound + offset >= 0 {
            var frame = range.lowerBound
            while frame < range.upperBound, (frame + offset + 1) * channels <= capture.count,
                  (0..<channels).allSatisfy({ abs(Int(capture[(frame + offset) * channels + $0]) - Int(twin[frame * channels + $0])) <= options.tolerance }) {
                frame += 1
            }
            if frame - range.lowerBound > best.equalFrames { best = (offset, frame - range.lowerBound) }
        }
        let at = range.lowerBound + max(0, best.equalFrames)
        if (at + best.offset + 1) * channels > capture.count {
            return "the capture ends at frame \(capture.count / channels) (offset \(best.offset), \(best.equalFrames) frames equal before)"
        }
        let twinFrame = Array(twin[(at * channels)..<((at + 1) * channels)])
        let captured = Array(capture[((at + best.offset) * channels)..<((at + best.offset + 1) * channels)])
        var differing = 0
        for frame in at..<range.upperBound where (frame + best.offset + 1) * channels <= capture.count {
            if (0..<channels).contains(where: { capture[(frame + best.offset) * channels + $0] != twin[frame * channels + $0] }) {
                differing += 1
            }
        }
        return "no offset in \(candidates) makes the capture equal; the closest, \(best.offset), agrees for \(best.equalFrames) "
            + "frames, then differs at twin frame \(at): capture \(captured) vs twin \(twinFrame) "
            + "(\(differing) of the remaining \(range.upperBound - at) frames differ)"
    }
}

extension String {
    /// One decimal, without Foundation.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
