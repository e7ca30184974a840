/// One entry of the render side's play history: from output frame `outputFrame` on (until
/// the next entry), output frame `f` played source frame
/// `sourceFrame + (f - outputFrame) · rate` of the part loaded then.
///
/// The renderer starts a new entry wherever that mapping stops continuing the previous
/// one: a start, a loop's wrap, a seek, a pause settling (the rate becomes 0, the source
/// frame holds), a part loaded or advanced to, and any command (a new epoch). Between
/// entries the mapping is exact to the frame, so "which source frame did output frame f
/// play" is answered without sampling.
public struct PlayedSpan: Equatable, Sendable {
    /// The first output frame it covers (`Renderer.clock` then).
    public var outputFrame: Int64
    /// The part-relative source frame played at `outputFrame`.
    public var sourceFrame: Int64
    /// Source frames per output frame: 1 while audio advances, 0 while the position holds
    /// (paused, stopped, counting down). A time stretch (the speed) writes its own rate.
    public var rate: Double
    /// The epoch of the last command applied before `outputFrame`.
    public var epoch: UInt32
    /// Counts parts since the renderer's creation: one more for each load and each
    /// advance to the next part, so two entries of the same part have the same number.
    public var part: UInt32

    public init(outputFrame: Int64, sourceFrame: Int64, rate: Double, epoch: UInt32, part: UInt32) {
        self.outputFrame = outputFrame
        self.sourceFrame = sourceFrame
        self.rate = rate
        self.epoch = epoch
        self.part = part
    }

    /// The source frame played at output frame `frame` (at or after `outputFrame`).
    @inline(__always)
    public func sourceFrame(atOutput frame: Int64) -> Int64 {
        let elapsed = frame &- outputFrame
        if rate == 1 { return sourceFrame &+ elapsed }
        if rate == 0 { return sourceFrame }
        return sourceFrame &+ Int64((Double(elapsed) * rate).rounded(.down))
    }

    /// Whether `next`, taken at a later output frame, only continues this entry.
    @inline(__always)
    func isContinued(by next: PlayedSpan) -> Bool {
        next.rate == rate && next.epoch == epoch && next.part == part
            && next.sourceFrame == sourceFrame(atOutput: next.outputFrame)
    }
}

/// What was sounding at one output frame: the part-relative source frame, the epoch of the
/// command in force and the part's number (`PlayedSpan.part`).
public struct HeardFrame: Equatable, Sendable {
    public var sourceFrame: Int64
    public var epoch: UInt32
    public var part: UInt32
    /// Whether the source was advancing there (false: paused, stopped or counting down).
    public var advancing: Bool

    public init(sourceFrame: Int64, epoch: UInt32, part: UInt32, advancing: Bool) {
        self.sourceFrame = sourceFrame
        self.epoch = epoch
        self.part = part
        self.advancing = advancing
    }
}

extension PlayedSpan {
    /// What a history of `count` entries (the newest `capacity` of them kept, entry `i` read
    /// by `entry(i)`) says output frame `frame` played: the newest entry at or before it.
    /// Nil when the history starts after `frame` or has lost the entry that covers it.
    public static func heard(atOutput frame: Int64, count: Int, capacity: Int,
                             entry: (Int) -> PlayedSpan) -> HeardFrame? {
        var i = count - 1
        let oldest = max(0, count - capacity)
        while i >= oldest {
            let span = entry(i)
            if span.outputFrame <= frame {
                return HeardFrame(sourceFrame: span.sourceFrame(atOutput: frame), epoch: span.epoch,
                                  part: span.part, advancing: span.rate != 0)
            }
            i -= 1
        }
        return nil
    }
}
