/// Compares what the daemon played in real time (captured from the loopback card) with
/// what the twin rendered in virtual time for the same inputs, sample by sample,
/// ramps and crossfades included.
///
/// The two cannot be equal as whole files: the capture starts at another moment, and live
/// input applies at the render thread's next period boundary (or one later when the thread
/// was already rendering it) while the twin applies it at the frame the scenario says. So:
///
/// - The first sound (the first countdown tick, whose first sample is non-zero by design)
///   aligns the capture with the twin: capture frame = twin frame + offset.
/// - The twin's audio is cut into segments at its commands. After each command the capture
///   may lag the twin by more than before (never less: the daemon applies a command at or
///   after the frame the twin does), by at most what the command's kind explains
///   (`CommandKind.maxLagGrowth`). A kind that starts the sound anew (`realigns`: PLAY
///   from stopped or paused) finds its offset again from its first sound.
/// - Where the daemon applied a command at the twin's frame (the lag did not grow), the
///   whole segment is compared from the command on: the ramp or crossfade too. Where it
///   applied it later, the ramp or crossfade fades out music the twin had stopped at the
///   command's frame: only that ramp (`CommandKind.rampFrames`) is left out, and the frames
///   the capture played on before it (the lag it added).
/// - Every other frame must be equal within `tolerance` (LSB), silence included: a
///   segment that is silent in the twin (after a pause) must be silent in the capture from
///   the command's ramp plus the lag the kind allows.
public struct AudioComparison: Sendable {
    /// What a kind of command does to the audio, as far as the comparison is concerned.
    /// Each command the twin applies has one; a new kind of command brings its own.
    public struct CommandKind: Equatable, Sendable {
        /// "pause", "loop", … (in reports).
        public var name: String
        /// Frames from the command that fade out the music sounding before it (a ramp or a
        /// crossfade): left out when the daemon applied the command later than the twin.
        public var rampFrames: Int
        /// How much more the capture may lag the twin after this command than before it.
        public var maxLagGrowth: Int
        /// The command starts the sound anew: the offset is found from its first sound.
        public var realigns: Bool
        /// The command moves the music (a seek, a wrap, a part change, a pause): applied
        /// later, what follows sounds later by as much. False for one that only changes how
        /// it sounds (the volume): applied later, only its ramp comes later, the offset stays.
        public var movesMusic: Bool

        public init(name: String, rampFrames: Int, maxLagGrowth: Int, realigns: Bool = false, movesMusic: Bool = true) {
            self.name = name
            self.rampFrames = rampFrames
            self.maxLagGrowth = maxLagGrowth
            self.realigns = realigns
            self.movesMusic = movesMusic
        }
    }

    /// A command as the twin applied it.
    public struct Command: Equatable, Sendable {
        /// Twin frame at which it applied.
        public var frame: Int
        public var kind: CommandKind

        public init(frame: Int, kind: CommandKind) {
            self.frame = frame
            self.kind = kind
        }
    }

    public struct Options: Sendable {
        /// Largest difference between two samples that still counts as equal.
        public var tolerance: Int
        /// Channels per frame in both signals.
        public var channels: Int

        public init(tolerance: Int = 0, channels: Int = 2) {
            self.tolerance = tolerance
            self.channels = channels
        }
    }

    /// One stretch of the twin's audio, from a command (or the start) to the next.
    public struct Segment: Equatable, Sendable {
        /// The command that starts it; nil for the stretch before the first command.
        public var command: Command?
        /// Frames of the twin's audio.
        public var twin: Range<Int>
        /// capture frame = twin frame + offset before the segment.
        public var offsetBefore: Int
        /// The same within the segment, when found.
        public var offset: Int?
        /// How much later than the twin the daemon applied the segment's command, when found.
        public var delay: Int?
        /// Frames of the capture not compared at the command: the lag it added and its ramp
        /// (0 when the daemon applied it where the twin did: everything compared).
        public var windowFrames: Int
        /// True when the twin is silent throughout.
        public var silent: Bool
        /// Why it does not match, nil when it does.
        public var failure: String?

        /// How much the lag grew at this segment's command.
        public var lagGrowth: Int? { offset.map { $0 - offsetBefore } }

        public init(command: Command?, twin: Range<Int>, offsetBefore: Int, offset: Int? = nil, delay: Int? = nil,
                    windowFrames: Int = 0, silent: Bool, failure: String? = nil) {
            self.command = command
            self.twin = twin
            self.offsetBefore = offsetBefore
            self.offset = offset
            self.delay = delay
            self.windowFrames = windowFrames
            self.silent = silent
            self.failure = failure
        }
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
        public var failures: [String] {
            problems + segments.compactMap { s in
                s.failure.map { "\(s.command.map { "after the \($0.kind.name) at twin frame \($0.frame), " } ?? "")frames \(s.twin): \($0)" }
            }
        }
        public var matches: Bool { failures.isEmpty }

        /// Percent of the twin's sound frames compared equal.
        public var percentCompared: Double {
            soundFrames == 0 ? 0 : Double(matchedSoundFrames) * 100 / Double(soundFrames)
        }

        /// The offset in effect just before twin frame `frame` (nil before the alignment or
        /// where a segment found none).
        public func offset(before frame: Int) -> Int? {
            guard let segment = segments.last(where: { $0.twin.lowerBound < frame }) else { return nil }
            return segment.offset
        }

        /// "6 commands, 99.6 % of the twin's sound frames compared equal; applied later than
        /// the twin by: loop +0, part +1024 (window 1264), …; capture offset at the start 3200"
        public var summary: String {
            let commands = segments.filter { $0.command != nil }
            let lags = commands.map { s in
                "\(s.command!.kind.name) \(s.delay.map { "+\($0)" } ?? "?")"
                    + (s.windowFrames > 0 ? " (window \(s.windowFrames))" : "")
            }
            return "\(commands.count) commands, \(String(format1: percentCompared)) % of the twin's sound frames compared equal; "
                + "applied later than the twin by: \(lags.joined(separator: ", ")); capture offset at the start \(segments.first?.offset.map(String.init) ?? "?")"
        }
    }

    public let options: Options

    public init(_ options: Options = Options()) { self.options = options }

    /// Compares `capture` with `twin` (interleaved samples); `commands` are what the twin
    /// applied, and where.
    public func compare(capture: [Int16], twin: [Int16], commands: [Command]) -> Result {
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

        let sorted = commands.filter { $0.frame < twinFrames }.sorted { $0.frame < $1.frame }
        var offset = captureOnset - twinOnset
        var start = 0
        for i in 0...sorted.count {
            let command = i == 0 ? nil : sorted[i - 1]
            let end = i < sorted.count ? sorted[i].frame : twinFrames
            defer { start = end }
            var segment = Segment(command: command, twin: start..<end, offsetBefore: offset, silent: true)
            let firstSound = segment.twin.first { !isSilent(twin, frame: $0) }
            segment.silent = firstSound == nil
            if segment.twin.isEmpty { continue }
            let kind = command?.kind

            // The offsets to try, each with the twin frames it compares and the delay it means.
            var candidates: [(offset: Int, range: Range<Int>, delay: Int)]
            if let kind, kind.realigns, let firstSound {
                // Starts anew: its first sound against the capture's first sound after the command.
                guard let heard = Self.firstSound(capture, channels: channels, from: max(0, segment.twin.lowerBound + offset)) else {
                    segment.failure = "the twin sounds from frame \(firstSound), the capture is silent from frame \(segment.twin.lowerBound + offset) on"
                    result.segments.append(segment)
                    continue
                }
                candidates = [(heard - firstSound, segment.twin, 0)]
            } else if let kind, kind.movesMusic {
                candidates = (0...max(0, kind.maxLagGrowth)).map { growth in
                    (offset + growth, (segment.twin.lowerBound + (growth == 0 ? 0 : min(kind.rampFrames, segment.twin.count)))..<end, growth)
                }
            } else if let kind {
                // Same offset; the ramp comes `delay` later, and the frames up to its end are left out.
                candidates = (0...max(0, kind.maxLagGrowth)).map { delay in
                    (offset, (segment.twin.lowerBound + (delay == 0 ? 0 : min(delay + kind.rampFrames, segment.twin.count)))..<end, delay)
                }
            } else {
                candidates = [(offset, segment.twin, 0)]
            }
            if let first = candidates.first, first.range.upperBound + first.offset > captureFrames {
                segment.failure = "the capture ends at frame \(captureFrames), before the twin's frame \(end - 1) (+ offset \(first.offset))"
                result.segments.append(segment)
                continue
            }
            if let found = candidates.first(where: { matches(capture, twin, $0.range, offset: $0.offset, probe: firstSound) }) {
                segment.offset = found.offset
                segment.delay = found.delay
                offset = found.offset
                segment.windowFrames = found.delay == 0 ? 0
                    : found.range.lowerBound - segment.twin.lowerBound + (found.offset - segment.offsetBefore)
                result.matchedSoundFrames += found.range.reduce(0) { $0 + (isSilent(twin, frame: $1) ? 0 : 1) }
            } else {
                // Silent in the twin after the ramp (a pause): say how long the capture sounded on.
                let tail = candidates.last!.range
                segment.failure = tail.allSatisfy({ isSilent(twin, frame: $0) })
                    ? describeSound(capture, candidates.last!.range, candidates: candidates.first!.offset...candidates.last!.offset)
                    : describeMismatch(capture, twin, candidates.map { ($0.offset, $0.range) })
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

    /// Whether the capture at `offset` equals the twin over `range`; `probe` (a frame with
    /// sound) is checked first, so a wrong offset is refused without a walk over silence.
    private func matches(_ capture: [Int16], _ twin: [Int16], _ range: Range<Int>, offset: Int, probe: Int?) -> Bool {
        let channels = options.channels
        // Before the capture began there is nothing to compare (the first sound is after it).
        let range = max(range.lowerBound, -offset)..<max(range.upperBound, -offset)
        guard (range.upperBound + offset) * channels <= capture.count else { return false }
        let tolerance = options.tolerance
        if let probe, range.contains(probe) {
            for c in 0..<channels {
                let difference = Int(capture[(probe + offset) * channels + c]) - Int(twin[probe * channels + c])
                if difference > tolerance || difference < -tolerance { return false }
            }
        }
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

    /// Where the capture sounds although the twin is silent, at the largest offset allowed.
    private func describeSound(_ capture: [Int16], _ range: Range<Int>, candidates: ClosedRange<Int>) -> String {
        let offset = candidates.upperBound
        let loud = (range.lowerBound..<range.upperBound).last { !isSilent(capture, frame: $0 + offset) } ?? range.lowerBound
        return "the twin is silent from frame \(range.lowerBound), the capture sounds until capture frame \(loud + offset) "
            + "(twin frame \(loud) at the largest offset allowed, \(offset); \(loud + 1 - range.lowerBound) frames too long)"
    }

    /// Where the closest candidate departs: the offset that matches the most leading frames
    /// of what it compares.
    private func describeMismatch(_ capture: [Int16], _ twin: [Int16], _ tried: [(offset: Int, range: Range<Int>)]) -> String {
        let channels = options.channels
        let candidates = tried.first!.offset...tried.last!.offset
        if (tried.first!.range.lowerBound + candidates.lowerBound) * channels >= capture.count {
            return "the capture ends at frame \(capture.count / channels), before this segment (offset \(candidates.lowerBound))"
        }
        var best = (offset: candidates.lowerBound, range: tried.first!.range, equalFrames: -1)
        for (offset, range) in tried where range.lowerBound + offset >= 0 {
            var frame = range.lowerBound
            while frame < range.upperBound, (frame + offset + 1) * channels <= capture.count,
                  (0..<channels).allSatisfy({ abs(Int(capture[(frame + offset) * channels + $0]) - Int(twin[frame * channels + $0])) <= options.tolerance }) {
                frame += 1
            }
            if frame - range.lowerBound > best.equalFrames { best = (offset, range, frame - range.lowerBound) }
        }
        let range = best.range
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
